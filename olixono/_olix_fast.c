/* The Olix bot's hot helpers in C: a search position with the engine's push and pop, and bot_olix.py's bitboard
 * functions, with the same results.
 *
 * olix.py (the engine) and bot_olix.py are the reference. ``Position`` keeps both players' stones, best values and
 * best ``L`` the way olix.OlixBoard does (the same incremental search from the new stone, the same choice of ``L``
 * where several tie, so that bot_olix.ordered_moves sees the same squares), and decides the end of the game after every
 * stone as the engine does: an automatic win (rule 10), all stones placed, or settled (rule 11's decided addition:
 * no formation a player could still complete would move a marker; the witness of the contrary is cached as the
 * engine caches it). On top of that it offers what bot_olix.OlixSearch computes by pushing (wins in one, the
 * opponent's threats), its evaluation and its move ordering, each the same as its reference in Python
 * (tests/test_olix_fast.py holds them alike), so a seeded search makes the same moves with either view.
 *
 * A set of squares is a 121-bit int in Python (bit rank * 11 + file, a1 = 0) and a 128-bit integer here (GCC and
 * Clang's unsigned __int128: two 64-bit words). Built by setuptools as an optional extension: where it cannot be
 * built, bot_olix.py's own view and functions are used.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 bb_t;

#define WIDTH 11
#define SQUARES 121
#define LINE_VALUES 2048 /* an 11-bit line */
#define STONES_PER_PLAYER 50
#define STONES_IN_ALL 100
#define KINDS 4
#define O_ 0
#define L_ 1
#define I_ 2
#define X_ 3
#define WIN_RUN 8 /* an unbroken line of eight wins at once */
#define L_WATCH 6 /* bot_olix.L_WATCH: from this value on, the squares that lengthen an L are searched first */
#define ORDER_RUN 7 /* bot_olix.ordered_moves: lines made or cut, from seven down */
#define CENTRE (5 * WIDTH + 5)

/* Each player's stones as 11-bit lines, laid out as olix.py lays them out (see its _GEOMETRY): ranks at ROW0 + rank
 * and files at COL0 + file, with two empty padding lines on both sides; diagonals at DIAG0 + file - rank + 10 and
 * anti-diagonals at ANTI0 + file + rank (bit: the file). */
#define ROW0 2
#define COL0 (ROW0 + WIDTH + 4)
#define DIAG0 (COL0 + WIDTH + 2)
#define ANTI0 (DIAG0 + 2 * WIDTH - 1)
#define LINES (ANTI0 + 2 * WIDTH - 1)

/* Directions for the bit-parallel runs: east, north, north-east, north-west (the order of bot_olix._DIRECTIONS). */
#define EAST 0
#define NORTH 1
#define NORTH_EAST 2
#define NORTH_WEST 3
static const int STEP[4] = {1, WIDTH, WIDTH + 1, WIDTH - 1};

/* Reasons the game ended, and push's results for the stone's player. */
#define ENDED_NOT 0
#define ENDED_FORMATION 1
#define ENDED_STONES 2
#define ENDED_SETTLED 3
#define ENDED_OTHER 4 /* ended before this position's stones end it: resigned or agreed (Position's ``over``) */
static const char *const REASONS[5] = {NULL, "formation", "stones", "settled", "ended"};
#define DRAW (-1)
#define RESULT_NONE 2 /* the game goes on */

static const int FIELDS[KINDS][4] = {{4, 6, 8, 9}, {5, 6, 7, 8}, {4, 5, 6, 7}, {4, 5, 6, 7}}; /* rule 8 */
#define FIRST(k) (FIELDS[k][0])
#define TOP(k) (FIELDS[k][3])
static const double WINDOW_WEIGHT[WIN_RUN + 1] = {0.0, 0.0, 0.1, 0.4, 1.0, 2.5, 6.0, 14.0, 0.0}; /* bot_olix's */

/* -- tables, made once ------------------------------------------------------------------------- */
/* Per position 0-10, indexed by an 11-bit line: the run through the position (length, first and last bit, longest
 * one-sided arm, mask; 0 when none), and the widest pair of side columns around the position (-1 when none). */
static uint8_t RUN[WIDTH][LINE_VALUES], ARM[WIDTH][LINE_VALUES], SPAN_LO[WIDTH][LINE_VALUES],
    SPAN_HI[WIDTH][LINE_VALUES];
static uint16_t RUN_MASK[WIDTH][LINE_VALUES];
static int8_t WIDE_LO[WIDTH][LINE_VALUES], WIDE_HI[WIDTH][LINE_VALUES];
static bb_t BOARD;
static bb_t STEP_OK[4];           /* squares from which one step stays on the board */
static bb_t UP_OK[4], DOWN_OK[4]; /* bot_olix._DIRECTIONS: what stays after ``<< step`` and after ``>> step`` */
static bb_t WINDOWS[4 * SQUARES]; /* bot_olix.WINDOWS, in its order */
static int WINDOW_COUNT;

static void make_tables(void) {
    for (int bits = 0; bits < LINE_VALUES; bits++) {
        int pos = 0;
        while (pos < WIDTH) {
            if (!(bits >> pos & 1)) {
                pos++;
                continue;
            }
            int start = pos;
            while (pos < WIDTH && bits >> pos & 1) pos++;
            int end = pos - 1;
            uint16_t mask = (uint16_t)(((1u << (end - start + 1)) - 1) << start);
            for (int q = start; q <= end; q++) {
                RUN[q][bits] = (uint8_t)(end - start + 1);
                SPAN_LO[q][bits] = (uint8_t)start;
                SPAN_HI[q][bits] = (uint8_t)end;
                ARM[q][bits] = (uint8_t)((q - start > end - q ? q - start : end - q) + 1);
                RUN_MASK[q][bits] = mask;
            }
        }
        int low = bits ? __builtin_ctz(bits) : 0, high = bits ? 31 - __builtin_clz(bits) : 0;
        for (int q = 0; q < WIDTH; q++) {
            int ok = bits && low <= q && q <= high && low < high;
            WIDE_LO[q][bits] = (int8_t)(ok ? low : -1);
            WIDE_HI[q][bits] = (int8_t)(ok ? high : -1);
        }
    }
    bb_t file_a = 0, rank_11 = 0;
    BOARD = (((bb_t)1) << SQUARES) - 1;
    for (int r = 0; r < WIDTH; r++) file_a |= (bb_t)1 << (r * WIDTH);
    bb_t file_k = file_a << (WIDTH - 1);
    rank_11 = (bb_t)((1u << WIDTH) - 1) << (WIDTH * (WIDTH - 1));
    STEP_OK[EAST] = BOARD & ~file_k;
    STEP_OK[NORTH] = BOARD & ~rank_11;
    STEP_OK[NORTH_EAST] = BOARD & ~file_k & ~rank_11;
    STEP_OK[NORTH_WEST] = BOARD & ~file_a & ~rank_11;
    UP_OK[EAST] = BOARD & ~file_a, DOWN_OK[EAST] = BOARD & ~file_k;
    UP_OK[NORTH] = BOARD, DOWN_OK[NORTH] = BOARD;
    UP_OK[NORTH_EAST] = BOARD & ~file_a, DOWN_OK[NORTH_EAST] = BOARD & ~file_k;
    UP_OK[NORTH_WEST] = BOARD & ~file_k, DOWN_OK[NORTH_WEST] = BOARD & ~file_a;
    WINDOW_COUNT = 0;
    for (int d = 0; d < 4; d++)
        for (int start = 0; start < SQUARES; start++) {
            bb_t w = 0;
            int s = start, ok = 1;
            for (int k = 0; k < WIN_RUN; k++) {
                w |= (bb_t)1 << s;
                if (k < WIN_RUN - 1) {
                    if (!((((bb_t)1 << s) << STEP[d]) & UP_OK[d])) {
                        ok = 0;
                        break;
                    }
                    s += STEP[d];
                }
            }
            if (ok) WINDOWS[WINDOW_COUNT++] = w;
        }
}

/* -- bits ---------------------------------------------------------------------------------------- */
static inline int popcount(bb_t b) {
    return __builtin_popcountll((uint64_t)b) + __builtin_popcountll((uint64_t)(b >> 64));
}

static inline int lowest(bb_t b) {
    uint64_t low = (uint64_t)b;
    return low ? __builtin_ctzll(low) : 64 + __builtin_ctzll((uint64_t)(b >> 64));
}

/* The squares start, start + step, ... (length of them). */
static bb_t run_bits(int start, int step, int length) {
    bb_t b = 0;
    for (int k = 0; k < length; k++) b |= (bb_t)1 << (start + step * k);
    return b;
}

/* -- a player's stones and best formations: olix.OlixBoard's incremental search ------------------ */
typedef struct {
    uint16_t lines[LINES];
    bb_t stones;
    int best[KINDS];
    bb_t l_shape; /* the squares of its best L, as the engine reports them */
} Side;

/* olix._l_squares: the L with its corner on ``corner``, its longer arm each way (east and north on a tie). */
static bb_t l_squares(const uint16_t *lines, int corner) {
    int rank = corner / WIDTH, file = corner % WIDTH;
    uint16_t row = lines[ROW0 + rank], col = lines[COL0 + file];
    int west = SPAN_LO[file][row], east = SPAN_HI[file][row];
    int south = SPAN_LO[rank][col], north = SPAN_HI[rank][col];
    bb_t across = east - file >= file - west ? run_bits(corner, 1, east - file + 1)
                                             : run_bits(rank * WIDTH + west, 1, file - west + 1);
    bb_t up = north - rank >= rank - south ? run_bits(corner, WIDTH, north - rank + 1)
                                           : run_bits(south * WIDTH + file, WIDTH, rank - south + 1);
    return across | up;
}

/* olix.OlixBoard._add: place a stone on ``s`` and raise the best values from the lines through it (the same walk,
 * so the same L is kept where several tie). Returns the improved types as bits (bit k: type k, in order O L I X). */
static int add(Side *me, int s) {
    int rank = s / WIDTH, file = s % WIDTH;
    int ri = ROW0 + rank, ci = COL0 + file, di = DIAG0 + file - rank + WIDTH - 1, ai = ANTI0 + file + rank;
    uint16_t *lines = me->lines;
    unsigned row = lines[ri] |= (uint16_t)(1u << file);
    unsigned col = lines[ci] |= (uint16_t)(1u << rank);
    unsigned diag = lines[di] |= (uint16_t)(1u << file);
    unsigned anti = lines[ai] |= (uint16_t)(1u << file);
    me->stones |= (bb_t)1 << s;
    int best_o = me->best[O_], best_l = me->best[L_], best_i = me->best[I_], best_x = me->best[X_];
    int changed = 0;

    /* I (rule 4) and X (rule 5): the runs through s. */
    int h = RUN[file][row], v = RUN[rank][col];
    int i = h > v ? h : v;
    if (i > best_i && i >= 4) {
        best_i = i;
        changed |= 1 << I_;
    }
    int d = RUN[file][diag], e = RUN[file][anti];
    int x = d > e ? d : e;
    if (x > best_x && x >= 4) {
        best_x = x;
        changed |= 1 << X_;
    }

    /* L (rule 6): corners on s's horizontal run with a vertical arm of 3, and vice versa. */
    int l_corner = -1;
    if (h >= 3) {
        unsigned corners = RUN_MASK[file][row] & ((lines[ri + 1] & lines[ri + 2]) | (lines[ri - 1] & lines[ri - 2]));
        while (corners) {
            int c = __builtin_ctz(corners);
            corners &= corners - 1;
            int across = ARM[c][row];
            if (across >= 3) {
                int value = across + ARM[rank][lines[COL0 + c]] - 1;
                if (value > best_l) {
                    best_l = value;
                    l_corner = rank * WIDTH + c;
                }
            }
        }
    }
    if (v >= 3) {
        unsigned corners = RUN_MASK[rank][col] & ((lines[ci + 1] & lines[ci + 2]) | (lines[ci - 1] & lines[ci - 2]));
        while (corners) {
            int c = __builtin_ctz(corners);
            corners &= corners - 1;
            int along = ARM[c][col];
            if (along >= 3) {
                int value = along + ARM[file][lines[ROW0 + c]] - 1;
                if (value > best_l) {
                    best_l = value;
                    l_corner = c * WIDTH + file;
                }
            }
        }
    }
    if (l_corner >= 0) changed |= 1 << L_;

    /* O (rule 7): walk up and down from s's rank while two side columns around its file go on, noting the ranks that
     * could be an edge (full between the columns); measure the widest rectangle on every pair of edges. */
    int tops[WIDTH + 2], bottoms[WIDTH + 2];
    unsigned top_edges[WIDTH + 2], bottom_edges[WIDTH + 2];
    int n_tops = 0, n_bottoms = 0;
    unsigned alive = row;
    for (int t = ri + 1; WIDE_LO[file][alive & lines[t]] >= 0; t++) {
        alive &= lines[t];
        unsigned edge = alive & RUN_MASK[file][lines[t]];
        if (WIDE_LO[file][edge] >= 0) {
            tops[n_tops] = t;
            top_edges[n_tops++] = edge;
        }
    }
    alive = row;
    for (int u = ri - 1; WIDE_LO[file][alive & lines[u]] >= 0; u--) {
        alive &= lines[u];
        unsigned edge = alive & RUN_MASK[file][lines[u]];
        if (WIDE_LO[file][edge] >= 0) {
            bottoms[n_bottoms] = u;
            bottom_edges[n_bottoms++] = edge;
        }
    }
    if (n_tops || n_bottoms) {
        unsigned edge = RUN_MASK[file][row];
        if (WIDE_LO[file][edge] >= 0) { /* s's rank as the top or the bottom edge */
            tops[n_tops] = ri;
            top_edges[n_tops++] = edge;
            bottoms[n_bottoms] = ri;
            bottom_edges[n_bottoms++] = edge;
        }
        for (int a = 0; a < n_tops; a++)
            for (int b = 0; b < n_bottoms; b++) {
                int t = tops[a], u = bottoms[b];
                unsigned pair = top_edges[a] & bottom_edges[b];
                int left = WIDE_LO[file][pair], right = WIDE_HI[file][pair];
                if (left < 0 || t == u) continue;
                if ((t - u + 1) * (right - left + 1) < best_o) continue; /* too small to beat the best */
                unsigned segment = (2u << right) - (1u << left);
                int value = 0;
                for (int r = u; r <= t; r++) value += __builtin_popcount(lines[r] & segment);
                if (value > best_o) {
                    best_o = value;
                    changed |= 1 << O_;
                }
            }
    }

    if (changed) {
        me->best[O_] = best_o, me->best[L_] = best_l, me->best[I_] = best_i, me->best[X_] = best_x;
        if (changed & 1 << L_) me->l_shape = l_squares(lines, l_corner);
    }
    return changed;
}

/* Take the stone on ``s`` off again (the caller restores the best values and the L). */
static void take_back(Side *me, int s) {
    int rank = s / WIDTH, file = s % WIDTH;
    me->lines[ROW0 + rank] ^= (uint16_t)(1u << file);
    me->lines[COL0 + file] ^= (uint16_t)(1u << rank);
    me->lines[DIAG0 + file - rank + WIDTH - 1] ^= (uint16_t)(1u << file);
    me->lines[ANTI0 + file + rank] ^= (uint16_t)(1u << file);
    me->stones &= ~((bb_t)1 << s);
}

/* A player's best values and L from scratch: its stones added in the order a loaded position adds them (ranks 11
 * down to 1, files a to k), so the L is the one olix.OlixBoard.from_position reports. */
static void side_of(bb_t stones, Side *side) {
    memset(side, 0, sizeof *side);
    for (int rank = WIDTH - 1; rank >= 0; rank--)
        for (int file = 0; file < WIDTH; file++)
            if (stones >> (rank * WIDTH + file) & 1) add(side, rank * WIDTH + file);
}

/* -- formations on plain bitboards: olix._find_* (the settled ending's witness) ---------------------- */
/* olix._run_starts: starts[k], squares where a run of at least k stones begins towards ``dir`` (starts[0]: all). */
static void run_starts(bb_t stones, int dir, bb_t starts[WIDTH + 2]) {
    bb_t ok = stones & STEP_OK[dir];
    starts[0] = BOARD;
    starts[1] = stones;
    for (int k = 2; k <= WIDTH + 1; k++) starts[k] = k <= WIDTH ? ok & (starts[k - 1] >> STEP[dir]) : 0;
}

/* olix._find_line: a run of ``need`` stones along ``dirs[0]`` or ``dirs[1]``. */
static int find_line(bb_t stones, const int dirs[2], int need, int *value, bb_t *squares) {
    if (need > WIDTH) return 0;
    for (int i = 0; i < 2; i++) {
        bb_t ok = stones & STEP_OK[dirs[i]], starts = stones;
        for (int k = 1; k < need; k++) starts = ok & (starts >> STEP[dirs[i]]);
        if (starts) {
            *value = need;
            *squares = run_bits(lowest(starts), STEP[dirs[i]], need);
            return 1;
        }
    }
    return 0;
}

/* Length of the unbroken run of ``stones`` from (rank, file) on, towards (dr, df). */
static int arm_length(bb_t stones, int rank, int file, int dr, int df) {
    int n = 0;
    while (rank >= 0 && rank < WIDTH && file >= 0 && file < WIDTH && stones >> (rank * WIDTH + file) & 1) {
        n++;
        rank += dr;
        file += df;
    }
    return n;
}

/* olix._find_l: an L of value at least ``need`` within ``stones`` (olix._corner_l at the lowest corner found). */
static int find_l(bb_t stones, int need, int *value, bb_t *squares) {
    bb_t east[WIDTH + 2], north[WIDTH + 2], horizontal[WIDTH + 1], vertical[WIDTH + 1];
    run_starts(stones, EAST, east);
    run_starts(stones, NORTH, north);
    for (int k = 1; k <= WIDTH; k++) {
        horizontal[k] = east[k] | (east[k] << (k - 1));
        vertical[k] = north[k] | (north[k] << (WIDTH * (k - 1)));
    }
    for (int h = 3; h <= WIDTH; h++) {
        int v = need + 1 - h > 3 ? need + 1 - h : 3;
        if (v > WIDTH) continue;
        bb_t corners = horizontal[h] & vertical[v];
        if (!corners) continue;
        int corner = lowest(corners), rank = corner / WIDTH, file = corner % WIDTH;
        int east_len = arm_length(stones, rank, file, 0, 1), west_len = arm_length(stones, rank, file, 0, -1);
        int north_len = arm_length(stones, rank, file, 1, 0), south_len = arm_length(stones, rank, file, -1, 0);
        bb_t across = east_len >= west_len ? run_bits(corner, 1, east_len)
                                           : run_bits(corner - west_len + 1, 1, west_len);
        bb_t up = north_len >= south_len ? run_bits(corner, WIDTH, north_len)
                                         : run_bits(corner - WIDTH * (south_len - 1), WIDTH, south_len);
        *value = (east_len > west_len ? east_len : west_len) + (north_len > south_len ? north_len : south_len) - 1;
        *squares = across | up;
        return 1;
    }
    return 0;
}

/* The closed rectangle of files left..right and ranks bottom..top. */
static bb_t rect_mask(int left, int right, int bottom, int top) {
    bb_t segment = (bb_t)(((1u << (right - left + 1)) - 1) << left), mask = 0;
    for (int r = bottom; r <= top; r++) mask |= segment << (r * WIDTH);
    return mask;
}

/* olix._find_o: an O of value at least ``need`` within ``stones``. */
static int find_o(bb_t stones, int need, int *value, bb_t *squares) {
    bb_t east[WIDTH + 2], north[WIDTH + 2];
    run_starts(stones, EAST, east);
    run_starts(stones, NORTH, north);
    for (int w = 2; w <= WIDTH && east[w]; w++)
        for (int h = 2; h <= WIDTH && north[h]; h++) {
            if (w * h < need) continue;
            bb_t corners = east[w] & (east[w] >> (WIDTH * (h - 1))) & north[h] & (north[h] >> (w - 1));
            while (corners) {
                int corner = lowest(corners), rank = corner / WIDTH, file = corner % WIDTH;
                corners &= corners - 1;
                bb_t inside = stones & rect_mask(file, file + w - 1, rank, rank + h - 1);
                if (popcount(inside) >= need) {
                    *value = popcount(inside);
                    *squares = inside;
                    return 1;
                }
            }
        }
    return 0;
}

static const int ORTHOGONAL[2] = {EAST, NORTH}, DIAGONAL[2] = {NORTH_EAST, NORTH_WEST};

/* olix._find_formation: a formation of type ``kind`` worth at least ``need`` within ``stones``. */
static int find_formation(int kind, bb_t stones, int need, int *value, bb_t *squares) {
    switch (kind) {
    case I_: return find_line(stones, ORTHOGONAL, need, value, squares);
    case X_: return find_line(stones, DIAGONAL, need, value, squares);
    case L_: return find_l(stones, need, value, squares);
    default: return find_o(stones, need, value, squares);
    }
}

/* -- scoring (rules 9, 10, 12) ------------------------------------------------------------------- */
static int wins_outright(const int *best) {
    for (int k = 0; k < KINDS; k++)
        if (best[k] > TOP(k)) return 1;
    return 0;
}

/* A value's field position on track k (1-4), 0 when it is no field. */
static int field_position(int k, int value) {
    for (int f = 0; f < 4; f++)
        if (FIELDS[k][f] == value) return f + 1;
    return 0;
}

static int by_size_down(const void *a, const void *b) { return *(const int *)b - *(const int *)a; }

/* olix._leader: rule 12's winner (0 first, 1 second) on the two players' best values, DRAW if none. */
static int leader(const int *first, const int *second) {
    int marks[2][KINDS], n[2] = {0, 0};
    for (int k = 0; k < KINDS; k++) {
        int record = first[k] > second[k] ? first[k] : second[k];
        int position = field_position(k, record);
        if (!position) continue; /* no marker (none yet, or a record above the top) */
        if (first[k] == record) marks[0][n[0]++] = position;
        if (second[k] == record) marks[1][n[1]++] = position;
    }
    if (n[0] != n[1]) return n[0] > n[1] ? 0 : 1;
    qsort(marks[0], (size_t)n[0], sizeof(int), by_size_down);
    qsort(marks[1], (size_t)n[1], sizeof(int), by_size_down);
    for (int i = 0; i < n[0]; i++)
        if (marks[0][i] != marks[1][i]) return marks[0][i] > marks[1][i] ? 0 : 1;
    return DRAW;
}

/* bot_olix._track_score: markers and formation sizes, mine minus theirs (the same operations in the same order, so
 * the same double). */
static double track_score(const int *mine, const int *theirs) {
    double score = 0.0;
    for (int k = 0; k < KINDS; k++) {
        int a = mine[k], b = theirs[k];
        if (a >= FIRST(k) && a >= b) {
            int position = field_position(k, a);
            score += 10.0 + 2.0 * (position ? position : 4);
        }
        if (b >= FIRST(k) && b >= a) {
            int position = field_position(k, b);
            score -= 10.0 + 2.0 * (position ? position : 4);
        }
        score += 0.8 * ((a < TOP(k) ? a : TOP(k)) - (b < TOP(k) ? b : TOP(k)));
    }
    return score;
}

/* bot_olix._window_score: the open lines of eight of ``own`` (none of ``opp``'s stones), weighted by its stones. */
static double window_score(bb_t own, bb_t opp) {
    double score = 0.0;
    for (int i = 0; i < WINDOW_COUNT; i++)
        if (!(opp & WINDOWS[i])) score += WINDOW_WEIGHT[popcount(own & WINDOWS[i])];
    return score;
}

/* -- bot_olix's bitboard functions --------------------------------------------------------------- */
/* bot_olix._runs_at_least: squares where one more stone makes a line of at least ``length`` (1-11) along one of the
 * first ``directions`` directions (east, north, north-east, north-west). */
static bb_t runs_at_least(bb_t stones, int length, int directions) {
    bb_t out = 0;
    for (int d = 0; d < directions; d++) {
        bb_t fs[WIDTH], bs[WIDTH];
        fs[0] = bs[0] = BOARD;
        for (int j = 1; j < length; j++) {
            fs[j] = ((stones & fs[j - 1]) >> STEP[d]) & DOWN_OK[d];
            bs[j] = ((stones & bs[j - 1]) << STEP[d]) & UP_OK[d];
        }
        for (int a = 0; a < length; a++) out |= fs[a] & bs[length - 1 - a];
    }
    return out;
}

/* bot_olix.runs_through: out[k] for k in 0..length (length 1-11): squares where one more stone makes a line of at
 * least k. */
static void runs_through(bb_t stones, int length, bb_t *out) {
    out[0] = out[1] = BOARD;
    for (int k = 2; k <= length; k++) out[k] = 0;
    for (int d = 0; d < 4; d++) {
        bb_t fwd[WIDTH], bwd[WIDTH];
        fwd[0] = bwd[0] = BOARD;
        for (int j = 1; j < length; j++) {
            fwd[j] = ((stones & fwd[j - 1]) >> STEP[d]) & DOWN_OK[d];
            bwd[j] = ((stones & bwd[j - 1]) << STEP[d]) & UP_OK[d];
        }
        for (int k = 2; k <= length; k++) {
            bb_t acc = 0;
            for (int a = 0; a < k; a++) acc |= fwd[a] & bwd[k - 1 - a];
            out[k] |= acc;
        }
    }
}

/* bot_olix.win_candidates: empty squares where one more stone might win at once (every real one included). */
static bb_t win_candidates(bb_t stones, bb_t empty) {
    int count = popcount(stones);
    if (count < WIN_RUN - 1) return 0;
    bb_t cands = runs_at_least(stones, WIN_RUN, 4);
    if (count >= 8) {
        bb_t five = runs_at_least(stones, 5, 2);
        cands |= five & stones ? runs_at_least(stones, 3, 2) : five;
    }
    if (count >= 9) {
        bb_t a = (stones << 1) & UP_OK[EAST], b = (stones >> 1) & DOWN_OK[EAST];
        bb_t c = (stones << WIDTH) & BOARD, d = stones >> WIDTH;
        bb_t four = runs_at_least(stones, 4, 2);
        cands |= ((a & (b | c | d)) | (b & (c | d)) | (c & d)) & (four & stones ? BOARD : four);
    }
    return cands & empty;
}

/* bot_olix._grow: ``bb`` and its eight neighbours. */
static bb_t grow(bb_t bb) {
    bb_t out = bb;
    for (int d = 0; d < 4; d++) out |= ((bb << STEP[d]) & UP_OK[d]) | ((bb >> STEP[d]) & DOWN_OK[d]);
    return out;
}

/* bot_olix.l_extensions: the squares that lengthen an L (given by its squares) at the far end of either arm. */
static bb_t l_extensions(bb_t shape) {
    bb_t east = (shape << 1) & UP_OK[EAST], west = (shape >> 1) & DOWN_OK[EAST];
    bb_t north = (shape << WIDTH) & BOARD, south = shape >> WIDTH;
    bb_t corner = shape & (east | west) & (north | south), arms = shape & ~corner;
    return (((arms & east & ~west) << 1) & UP_OK[EAST]) | (((arms & west & ~east) >> 1) & DOWN_OK[EAST]) |
           (((arms & north & ~south) << WIDTH) & BOARD) | ((arms & south & ~north) >> WIDTH);
}

/* -- the position -------------------------------------------------------------------------------- */
typedef struct {
    int square;
    int best[KINDS]; /* the stone's player's, before it */
    bb_t l_shape;
} Undo;

typedef struct {
    PyObject_HEAD
    Side side[2];
    int turn;   /* 0: first to move, 1: second */
    int stones; /* on the board */
    int reason; /* ENDED_* (ENDED_NOT while the game goes on) */
    int winner; /* 0, 1 or DRAW once ended */
    int depth;
    Undo undo[SQUARES];
    /* rule 11's witness, as olix.OlixBoard caches it: a formation of ``witness_player``'s worth ``witness_value`` on
     * squares the opponent has not taken, that would move a marker; only an opponent stone on it, or a best value
     * passing it, makes the settled check search again. */
    int has_witness, witness_player, witness_kind, witness_value;
    bb_t witness_squares;
} Position;

/* olix.OlixBoard._witness_holds: the cached witness still beats what it must (its squares are known to be free). */
static int witness_holds(const Position *pos) {
    int p = pos->witness_player, k = pos->witness_kind;
    return pos->witness_value > pos->side[p].best[k] && pos->witness_value >= pos->side[1 - p].best[k];
}

/* olix.OlixBoard._find_witness: a formation some player could still make that would move a marker; cached. */
static int find_witness(Position *pos) {
    static const int order[KINDS] = {I_, X_, L_, O_};
    for (int p = 0; p < 2; p++) {
        bb_t room = BOARD & ~pos->side[1 - p].stones;
        for (int i = 0; i < KINDS; i++) {
            int k = order[i], own = pos->side[p].best[k], other = pos->side[1 - p].best[k];
            int need = own + 1 > other ? own + 1 : other;
            if (need < FIRST(k)) need = FIRST(k);
            int value;
            bb_t squares;
            if (find_formation(k, room, need, &value, &squares)) {
                pos->has_witness = 1;
                pos->witness_player = p, pos->witness_kind = k, pos->witness_value = value;
                pos->witness_squares = squares;
                return 1;
            }
        }
    }
    pos->has_witness = 0;
    return 0;
}

/* olix.OlixBoard.push: place the mover's stone on ``s`` (empty, the game going on) and decide whether the game ended.
 * Returns how it ended for the stone's player: 1 won, 0 drawn, -1 lost, RESULT_NONE not yet. */
static int push(Position *pos, int s) {
    int p = pos->turn;
    Side *me = &pos->side[p];
    Undo *u = &pos->undo[pos->depth++];
    u->square = s;
    memcpy(u->best, me->best, sizeof u->best);
    u->l_shape = me->l_shape;
    int improved = add(me, s);
    pos->turn = 1 - p;
    pos->stones++;
    if (improved && wins_outright(me->best)) {
        pos->reason = ENDED_FORMATION;
        pos->winner = p;
    } else if (pos->stones >= STONES_IN_ALL) {
        pos->reason = ENDED_STONES;
        pos->winner = leader(pos->side[0].best, pos->side[1].best);
    } else if ((!pos->has_witness || (pos->witness_player != p && pos->witness_squares >> s & 1) ||
                (improved && !witness_holds(pos))) &&
               !find_witness(pos)) {
        pos->reason = ENDED_SETTLED;
        pos->winner = leader(pos->side[0].best, pos->side[1].best);
    }
    if (pos->reason == ENDED_NOT) return RESULT_NONE;
    return pos->winner == DRAW ? 0 : pos->winner == p ? 1 : -1;
}

/* olix.OlixBoard.pop: take the last stone back (the cached witness stays valid: fewer stones, lower bests). */
static void pop(Position *pos) {
    Undo *u = &pos->undo[--pos->depth];
    int p = 1 - pos->turn;
    Side *me = &pos->side[p];
    take_back(me, u->square);
    memcpy(me->best, u->best, sizeof me->best);
    me->l_shape = u->l_shape;
    pos->turn = p;
    pos->stones--;
    pos->reason = ENDED_NOT;
    pos->winner = DRAW;
}

static inline bb_t empty_of(const Position *pos) { return BOARD & ~(pos->side[0].stones | pos->side[1].stones); }

/* bot_olix.OlixSearch.winning_squares: the candidates (win_candidates) where the mover's stone wins, by pushing. */
static int winning_squares(Position *pos, int first_only, int *found) {
    int n = 0;
    bb_t cands = win_candidates(pos->side[pos->turn].stones, empty_of(pos));
    while (cands) {
        int square = lowest(cands);
        cands &= cands - 1;
        if (push(pos, square) == 1) found[n++] = square;
        pop(pos);
        if (n && first_only) break;
    }
    return n;
}

/* bot_olix.OlixSearch.threat_squares: squares where the opponent would win at once if it were their move, checked by
 * pushing a stone of ours elsewhere (a non-candidate first) and theirs on each candidate; a candidate that cannot be
 * checked so (the game ends whatever we play) is kept. In square order. */
static int threat_squares(Position *pos, int *found) {
    int n = 0;
    bb_t empty = empty_of(pos);
    bb_t untested = win_candidates(pos->side[1 - pos->turn].stones, empty);
    bb_t passes[2] = {empty & ~untested, untested};
    for (int pass = 0; pass < 2; pass++) {
        bb_t ours = passes[pass];
        while (ours && untested) {
            int square = lowest(ours);
            bb_t low = (bb_t)1 << square;
            ours ^= low;
            if (push(pos, square) != RESULT_NONE) {
                pop(pos);
                continue;
            }
            bb_t rest = untested & ~low;
            untested &= low;
            while (rest) {
                int c = lowest(rest);
                rest &= rest - 1;
                if (push(pos, c) == 1) found[n++] = c;
                pop(pos);
            }
            pop(pos);
        }
    }
    while (untested) {
        found[n++] = lowest(untested);
        untested &= untested - 1;
    }
    /* sorted: an insertion sort of a few squares */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && found[j - 1] > found[j]; j--) {
            int t = found[j];
            found[j] = found[j - 1];
            found[j - 1] = t;
        }
    return n;
}

/* bot_olix.OlixSearch.evaluate: the position for the mover, in evaluation points. */
static double evaluate(const Position *pos) {
    const Side *me = &pos->side[pos->turn], *them = &pos->side[1 - pos->turn];
    return track_score(me->best, them->best) + window_score(me->stones, them->stones) -
           window_score(them->stones, me->stones);
}

/* Append the squares of ``tier`` in order. */
static int append_squares(bb_t tier, int *out, int n) {
    while (tier) {
        out[n++] = lowest(tier);
        tier &= tier - 1;
    }
    return n;
}

/* bot_olix.ordered_moves: the squares worth playing, most promising first. */
static int ordered_moves(Position *pos, int *out) {
    int n = threat_squares(pos, out);
    if (n) return n;
    bb_t own = pos->side[pos->turn].stones, opp = pos->side[1 - pos->turn].stones, empty = empty_of(pos);
    if (!(own | opp)) {
        out[0] = CENTRE;
        return 1;
    }
    bb_t mine[ORDER_RUN + 1], theirs[ORDER_RUN + 1], taken = 0;
    runs_through(own, ORDER_RUN, mine);
    runs_through(opp, ORDER_RUN, theirs);
    const Side *sides[2] = {&pos->side[pos->turn], &pos->side[1 - pos->turn]};
    for (int k = ORDER_RUN; k > 1; k--) {
        bb_t tiers[4];
        int count = 0;
        tiers[count++] = mine[k] & empty;
        tiers[count++] = theirs[k] & empty;
        if (k == ORDER_RUN)
            for (int i = 0; i < 2; i++)
                if (sides[i]->best[L_] >= L_WATCH) tiers[count++] = l_extensions(sides[i]->l_shape) & empty;
        for (int i = 0; i < count; i++) {
            bb_t tier = tiers[i] & ~taken;
            taken |= tier;
            n = append_squares(tier, out, n);
        }
    }
    bb_t rest[3] = {grow(own) & empty, grow(opp) & empty, empty};
    for (int i = 0; i < 3; i++) {
        bb_t tier = rest[i] & ~taken;
        taken |= tier;
        n = append_squares(tier, out, n);
    }
    return n;
}

/* -- Python values in and out -------------------------------------------------------------------- */
static PyObject *SIXTY_FOUR; /* the int 64, for shifts */

static PyObject *bb_out(bb_t b) {
    PyObject *low = PyLong_FromUnsignedLongLong((unsigned long long)b);
    if (low == NULL || !(b >> 64)) return low;
    PyObject *high = PyLong_FromUnsignedLongLong((unsigned long long)(b >> 64));
    PyObject *up = high == NULL ? NULL : PyNumber_Lshift(high, SIXTY_FOUR);
    PyObject *out = up == NULL ? NULL : PyNumber_Or(up, low);
    Py_XDECREF(high);
    Py_XDECREF(up);
    Py_DECREF(low);
    return out;
}

/* A set of squares: an int (not a bool) from 0 to 2**121 - 1. */
static int bb_in(PyObject *obj, bb_t *out, const char *what) {
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int (a set of squares), not %.80s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    /* int's own shift, not a subclass's __rshift__ (which could run any code and answer anything) */
    PyObject *high = PyLong_Type.tp_as_number->nb_rshift(obj, SIXTY_FOUR);
    if (high == NULL) return -1;
    int overflow;
    long long h = PyLong_AsLongLongAndOverflow(high, &overflow);
    Py_DECREF(high);
    if (h == -1 && PyErr_Occurred()) return -1;
    if (overflow || h < 0 || (unsigned long long)h >> (SQUARES - 64)) {
        PyErr_Format(PyExc_ValueError, "%s holds squares off the board (bits 0-%d only)", what, SQUARES - 1);
        return -1;
    }
    unsigned long long l = PyLong_AsUnsignedLongLongMask(obj);
    if (l == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = ((bb_t)(unsigned long long)h << 64) | l;
    return 0;
}

/* An int (not a bool) from low to high. */
static int int_in(PyObject *obj, long low, long high, long *out, const char *what) {
    if (!PyLong_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.80s", what, Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow;
    long v = PyLong_AsLongAndOverflow(obj, &overflow);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow || v < low || v > high) {
        PyErr_Format(PyExc_ValueError, "%s must be from %ld to %ld", what, low, high);
        return -1;
    }
    *out = v;
    return 0;
}

static PyObject *squares_out(const int *squares, int n) {
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *s = PyLong_FromLong(squares[i]);
        if (s == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, s);
    }
    return out;
}

static PyObject *values_out(const int *best) { return Py_BuildValue("(iiii)", best[0], best[1], best[2], best[3]); }

static int nargs_is(Py_ssize_t nargs, Py_ssize_t low, Py_ssize_t high, const char *usage) {
    if (nargs < low || nargs > high) {
        PyErr_Format(PyExc_TypeError, "%s", usage);
        return -1;
    }
    return 0;
}

/* -- the module's functions ---------------------------------------------------------------------- */
static PyObject *py_best_values(PyObject *self, PyObject *arg) {
    bb_t stones;
    Side side;
    if (bb_in(arg, &stones, "stones") < 0) return NULL;
    side_of(stones, &side);
    return values_out(side.best);
}

static PyObject *py_l_squares(PyObject *self, PyObject *arg) {
    bb_t stones;
    Side side;
    if (bb_in(arg, &stones, "stones") < 0) return NULL;
    side_of(stones, &side);
    return bb_out(side.l_shape);
}

static PyObject *py_runs_through(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    bb_t stones, out[WIDTH + 1];
    long length;
    if (nargs_is(nargs, 2, 2, "runs_through(stones, length)") < 0 || bb_in(args[0], &stones, "stones") < 0 ||
        int_in(args[1], 1, WIDTH, &length, "length") < 0)
        return NULL;
    runs_through(stones, (int)length, out);
    PyObject *list = PyList_New(length + 1);
    if (list == NULL) return NULL;
    for (int k = 0; k <= length; k++) {
        PyObject *b = bb_out(out[k]);
        if (b == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, k, b);
    }
    return list;
}

static PyObject *py_runs_at_least(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    bb_t stones;
    long length, directions = 4;
    if (nargs_is(nargs, 2, 3, "runs_at_least(stones, length, directions=4)") < 0 ||
        bb_in(args[0], &stones, "stones") < 0 || int_in(args[1], 1, WIDTH, &length, "length") < 0 ||
        (nargs == 3 && int_in(args[2], 1, 4, &directions, "directions") < 0))
        return NULL;
    return bb_out(runs_at_least(stones, (int)length, (int)directions));
}

static PyObject *py_win_candidates(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    bb_t stones, empty;
    if (nargs_is(nargs, 2, 2, "win_candidates(stones, empty)") < 0 || bb_in(args[0], &stones, "stones") < 0 ||
        bb_in(args[1], &empty, "empty") < 0)
        return NULL;
    return bb_out(win_candidates(stones, empty));
}

static PyObject *py_window_score(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    bb_t own, opp;
    if (nargs_is(nargs, 2, 2, "window_score(own, opp)") < 0 || bb_in(args[0], &own, "own") < 0 ||
        bb_in(args[1], &opp, "opp") < 0)
        return NULL;
    return PyFloat_FromDouble(window_score(own, opp));
}

/* -- the Position type --------------------------------------------------------------------------- */
/* Whether ``shape`` is an L of value ``value`` (rule 6): a horizontal and a vertical run of at least 3 squares each,
 * sharing an end square (the corner); no squares at all for value 0. */
static int is_l(bb_t shape, int value) {
    if (!value) return shape == 0;
    for (bb_t rest = shape; rest; rest &= rest - 1) {
        int corner = lowest(rest), rank = corner / WIDTH, file = corner % WIDTH;
        int east = arm_length(shape, rank, file, 0, 1), west = arm_length(shape, rank, file, 0, -1);
        int north = arm_length(shape, rank, file, 1, 0), south = arm_length(shape, rank, file, -1, 0);
        if ((east > 1) == (west > 1) || (north > 1) == (south > 1)) continue; /* the corner ends both arms */
        int across = east > west ? east : west, up = north > south ? north : south;
        bb_t arms = (east > 1 ? run_bits(corner, 1, east) : run_bits(corner - west + 1, 1, west)) |
                    (north > 1 ? run_bits(corner, WIDTH, north) : run_bits(corner - WIDTH * (south - 1), WIDTH, south));
        if (across >= 3 && up >= 3 && across + up - 1 == value && arms == shape) return 1;
    }
    return 0;
}

/* Position(first, second, l_first, l_second, over): both players' stones and the squares of their best L as the
 * engine reports them (their values are worked out here), and whether the game is over already (the stones' own
 * endings are found here whatever ``over`` says; ``over`` adds a resigned or agreed ending). */
static PyObject *Position_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *objs[4];
    int over;
    static char *names[] = {"first", "second", "l_first", "l_second", "over", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOp:Position", names, &objs[0], &objs[1], &objs[2], &objs[3],
                                     &over))
        return NULL;
    bb_t stones[2], shapes[2];
    if (bb_in(objs[0], &stones[0], "first") < 0 || bb_in(objs[1], &stones[1], "second") < 0 ||
        bb_in(objs[2], &shapes[0], "l_first") < 0 || bb_in(objs[3], &shapes[1], "l_second") < 0)
        return NULL;
    int n_first = popcount(stones[0]), n_second = popcount(stones[1]);
    if (stones[0] & stones[1]) {
        PyErr_SetString(PyExc_ValueError, "first's and second's stones overlap");
        return NULL;
    }
    if ((n_first != n_second && n_first != n_second + 1) || n_first > STONES_PER_PLAYER) {
        PyErr_Format(PyExc_ValueError, "first has %d stones and second %d: no game reaches that", n_first, n_second);
        return NULL;
    }
    Position *pos = (Position *)type->tp_alloc(type, 0);
    if (pos == NULL) return NULL;
    for (int p = 0; p < 2; p++) {
        side_of(stones[p], &pos->side[p]);
        if (shapes[p] & ~stones[p] || !is_l(shapes[p], pos->side[p].best[L_])) {
            Py_DECREF(pos);
            PyErr_Format(PyExc_ValueError, "l_%s is not a best L of that player's stones", p ? "second" : "first");
            return NULL;
        }
        pos->side[p].l_shape = shapes[p];
    }
    pos->turn = n_first == n_second ? 0 : 1;
    pos->stones = n_first + n_second;
    pos->reason = ENDED_NOT;
    pos->winner = DRAW;
    /* How the stones end the game, as olix.OlixBoard loads a position: an automatic win belongs to the player who
     * moved last (one held by the player to move cannot arise), then all stones placed, then settled. ``over``
     * without any of these: ended otherwise (resigned or agreed). */
    int last = 1 - pos->turn;
    if (wins_outright(pos->side[pos->turn].best)) {
        Py_DECREF(pos);
        PyErr_SetString(PyExc_ValueError, "the player to move holds an automatic win: no game reaches that");
        return NULL;
    }
    if (wins_outright(pos->side[last].best)) {
        pos->reason = ENDED_FORMATION;
        pos->winner = last;
    } else if (pos->stones >= STONES_IN_ALL) {
        pos->reason = ENDED_STONES;
        pos->winner = leader(pos->side[0].best, pos->side[1].best);
    } else if (!find_witness(pos)) {
        pos->reason = ENDED_SETTLED;
        pos->winner = leader(pos->side[0].best, pos->side[1].best);
    } else if (over) {
        pos->reason = ENDED_OTHER;
        pos->winner = DRAW;
    }
    return (PyObject *)pos;
}

static PyObject *Position_push(Position *pos, PyObject *arg) {
    long square;
    if (int_in(arg, 0, SQUARES - 1, &square, "a square") < 0) return NULL;
    if (pos->reason != ENDED_NOT) {
        PyErr_SetString(PyExc_ValueError, "the game is over: no stone can be placed");
        return NULL;
    }
    if ((pos->side[0].stones | pos->side[1].stones) >> square & 1) {
        PyErr_Format(PyExc_ValueError, "square %ld is taken", square);
        return NULL;
    }
    int result = push(pos, (int)square);
    if (result == RESULT_NONE) Py_RETURN_NONE;
    return PyLong_FromLong(result);
}

static PyObject *Position_pop(Position *pos, PyObject *unused) {
    if (!pos->depth) {
        PyErr_SetString(PyExc_IndexError, "no stone to take back");
        return NULL;
    }
    pop(pos);
    Py_RETURN_NONE;
}

static PyObject *Position_moves(Position *pos, PyObject *unused) {
    int squares[SQUARES], n = 0;
    if (pos->reason == ENDED_NOT) n = append_squares(empty_of(pos), squares, 0);
    return squares_out(squares, n);
}

static PyObject *Position_stones(Position *pos, PyObject *unused) {
    PyObject *own = bb_out(pos->side[pos->turn].stones), *opp = bb_out(pos->side[1 - pos->turn].stones);
    PyObject *out = own && opp ? PyTuple_Pack(2, own, opp) : NULL;
    Py_XDECREF(own);
    Py_XDECREF(opp);
    return out;
}

static PyObject *Position_sides(Position *pos, PyObject *unused) {
    const Side *me = &pos->side[pos->turn], *them = &pos->side[1 - pos->turn];
    PyObject *own = bb_out(me->stones), *opp = bb_out(them->stones);
    PyObject *mine = values_out(me->best), *theirs = values_out(them->best);
    PyObject *out = own && opp && mine && theirs ? PyTuple_Pack(4, own, opp, mine, theirs) : NULL;
    Py_XDECREF(own);
    Py_XDECREF(opp);
    Py_XDECREF(mine);
    Py_XDECREF(theirs);
    return out;
}

static PyObject *Position_best_ls(Position *pos, PyObject *unused) {
    const Side *me = &pos->side[pos->turn], *them = &pos->side[1 - pos->turn];
    PyObject *mine = bb_out(me->l_shape), *theirs = bb_out(them->l_shape);
    PyObject *out = mine && theirs ? Py_BuildValue("((iO)(iO))", me->best[L_], mine, them->best[L_], theirs) : NULL;
    Py_XDECREF(mine);
    Py_XDECREF(theirs);
    return out;
}

static PyObject *Position_winning_squares(Position *pos, PyObject *const *args, Py_ssize_t nargs) {
    int found[SQUARES], first_only = 0;
    if (nargs_is(nargs, 0, 1, "winning_squares(first_only=False)") < 0) return NULL;
    if (nargs == 1 && (first_only = PyObject_IsTrue(args[0])) < 0) return NULL;
    if (pos->reason != ENDED_NOT) return PyList_New(0);
    return squares_out(found, winning_squares(pos, first_only, found));
}

static PyObject *Position_winning_move(Position *pos, PyObject *unused) {
    int found[SQUARES];
    if (pos->reason == ENDED_NOT && winning_squares(pos, 1, found)) return PyLong_FromLong(found[0]);
    Py_RETURN_NONE;
}

static PyObject *Position_threat_squares(Position *pos, PyObject *unused) {
    int found[SQUARES];
    if (pos->reason != ENDED_NOT) return PyList_New(0);
    return squares_out(found, threat_squares(pos, found));
}

static PyObject *Position_ordered_moves(Position *pos, PyObject *unused) {
    int out[SQUARES];
    if (pos->reason != ENDED_NOT) return PyList_New(0);
    return squares_out(out, ordered_moves(pos, out));
}

static PyObject *Position_evaluate(Position *pos, PyObject *unused) { return PyFloat_FromDouble(evaluate(pos)); }

static PyObject *Position_outcome(Position *pos, PyObject *unused) {
    if (pos->reason == ENDED_NOT) Py_RETURN_NONE;
    if (pos->winner == DRAW) return Py_BuildValue("(Os)", Py_None, REASONS[pos->reason]);
    return Py_BuildValue("(is)", pos->winner, REASONS[pos->reason]);
}

static PyObject *Position_get_turn(Position *pos, void *closure) { return PyLong_FromLong(pos->turn); }

static PyMethodDef Position_methods[] = {
    {"push", (PyCFunction)Position_push, METH_O,
     "Place the mover's stone on a square: 1 won, 0 drawn, -1 lost for its player, None while the game goes on."},
    {"pop", (PyCFunction)Position_pop, METH_NOARGS, "Take the last stone back."},
    {"moves", (PyCFunction)Position_moves, METH_NOARGS, "The empty squares, in order (none once the game is over)."},
    {"stones", (PyCFunction)Position_stones, METH_NOARGS, "The mover's stones and the opponent's."},
    {"sides", (PyCFunction)Position_sides, METH_NOARGS,
     "The mover's stones, the opponent's, and their best values (O L I X)."},
    {"best_ls", (PyCFunction)Position_best_ls, METH_NOARGS,
     "The mover's best L and the opponent's, each as (value, squares)."},
    {"winning_squares", (PyCFunction)(void (*)(void))Position_winning_squares, METH_FASTCALL,
     "bot_olix.OlixSearch.winning_squares"},
    {"winning_move", (PyCFunction)Position_winning_move, METH_NOARGS, "bot_olix.OlixSearch.winning_move"},
    {"threat_squares", (PyCFunction)Position_threat_squares, METH_NOARGS, "bot_olix.OlixSearch.threat_squares"},
    {"ordered_moves", (PyCFunction)Position_ordered_moves, METH_NOARGS, "bot_olix.ordered_moves"},
    {"evaluate", (PyCFunction)Position_evaluate, METH_NOARGS, "bot_olix.OlixSearch.evaluate"},
    {"outcome", (PyCFunction)Position_outcome, METH_NOARGS,
     "How the game ended: (winner 0, 1 or None, reason), or None while it goes on."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Position_getset[] = {
    {"turn", (getter)Position_get_turn, NULL, "The player to move: 0 first, 1 second.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PositionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "olixono._olix_fast.Position",
    .tp_basicsize = sizeof(Position),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Position(first, second, l_first, l_second, over): an Olix position to search, with the engine's push "
              "and pop.",
    .tp_new = Position_new,
    .tp_methods = Position_methods,
    .tp_getset = Position_getset,
};

static PyMethodDef methods[] = {
    {"best_values", py_best_values, METH_O, "A stone set's best value of each type (O L I X; 0 when none)."},
    {"l_squares", py_l_squares, METH_O, "The squares of a stone set's best L, as a loaded position reports them."},
    {"runs_through", (PyCFunction)(void (*)(void))py_runs_through, METH_FASTCALL, "bot_olix.runs_through"},
    {"runs_at_least", (PyCFunction)(void (*)(void))py_runs_at_least, METH_FASTCALL, "bot_olix._runs_at_least"},
    {"win_candidates", (PyCFunction)(void (*)(void))py_win_candidates, METH_FASTCALL, "bot_olix.win_candidates"},
    {"window_score", (PyCFunction)(void (*)(void))py_window_score, METH_FASTCALL, "bot_olix._window_score"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_olix_fast", "The Olix bot's hot helpers in C (see bot_olix.py and olix.py, the reference).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__olix_fast(void) {
    make_tables();
    SIXTY_FOUR = PyLong_FromLong(64);
    if (SIXTY_FOUR == NULL || PyType_Ready(&PositionType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&PositionType);
    if (PyModule_AddObject(m, "Position", (PyObject *)&PositionType) < 0) {
        Py_DECREF(&PositionType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
