/* The Oxono bot's hot helpers in C: the same functions as olixono/bot_oxono.py, with the same results.
 *
 * bot_oxono.py is the reference: every function here returns exactly what its namesake there returns, for every
 * state, and draws the same random numbers in the same order (``random`` is the caller's own ``rng.random``), so a
 * seeded search (mcts.Mcts) makes the same moves with this module or without it (tests/test_bots_fast.py checks it).
 * The solver keeps its table of proven bounds in a ``Table`` object of its own (a fixed-size hash table) where the
 * reference keeps a dict; values are exact either way.
 *
 * The tree search's loop is here too (``Tree``: mcts.Mcts's iterations, checks and proofs on nodes in C arrays, for
 * bot_oxono.FastMcts); mcts.py is its reference, and gives the same statistics given the same shuffle.
 *
 * A state is the tuple (own, opp, xs, tx, to, own_lx, own_lo, opp_lx, opp_lo) of bot_oxono.py; a move the tuple
 * (symbol, dest, pawn). Squares: rank * 6 + file, a1 = 0. Built by setuptools as an optional extension: where it
 * cannot be built, bot_oxono.py's own functions are used.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t bb_t;

#define WIDTH 6
#define SQUARES 36
#define BOARD ((bb_t)0xFFFFFFFFFULL)
#define PAWNS_IN_ALL 32
#define SYM_X 0
#define SYM_O 1

typedef struct {
    bb_t own, opp, xs;
    int tx, to, lx, lo, olx, olo;
} State;

typedef struct {
    int symbol, dest, pawn;
} Move;

/* -- tables, made once ------------------------------------------------------------------------- */
static bb_t NEIGHBOURS[SQUARES];
static int RAYS[SQUARES][4][WIDTH];
static int RAY_LEN[SQUARES][4];
static bb_t SQ_WINDOWS[SQUARES][8];
static int SQ_WINDOW_COUNT[SQUARES];
static bb_t CROSS[SQUARES];
static bb_t ALL_WINDOWS[36];
static int ALL_WINDOW_COUNT;
static bb_t EAST_OK[4], WEST_OK[4];
static bb_t NOT_FILE_A, NOT_FILE_F;

static void make_tables(void) {
    static const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}}; /* north, south, east, west */
    bb_t file_a = 0, files[WIDTH];
    for (int r = 0; r < WIDTH; r++) file_a |= (bb_t)1 << (r * WIDTH);
    for (int f = 0; f < WIDTH; f++) files[f] = file_a << f;
    NOT_FILE_A = BOARD & ~files[0];
    NOT_FILE_F = BOARD & ~files[WIDTH - 1];
    for (int k = 0; k < 4; k++) {
        bb_t east = 0, west = 0;
        for (int f = 0; f < k; f++) east |= files[f];
        for (int f = WIDTH - k; f < WIDTH; f++) west |= files[f];
        EAST_OK[k] = BOARD & ~east;
        WEST_OK[k] = BOARD & ~west;
    }
    for (int sq = 0; sq < SQUARES; sq++) {
        int rank = sq / WIDTH, file = sq % WIDTH;
        NEIGHBOURS[sq] = 0;
        for (int d = 0; d < 4; d++) {
            int n = 0, r = rank + dirs[d][0], f = file + dirs[d][1];
            while (r >= 0 && r < WIDTH && f >= 0 && f < WIDTH) {
                RAYS[sq][d][n++] = r * WIDTH + f;
                r += dirs[d][0];
                f += dirs[d][1];
            }
            RAY_LEN[sq][d] = n;
            if (n) NEIGHBOURS[sq] |= (bb_t)1 << RAYS[sq][d][0];
        }
        int count = 0;
        bb_t cross = 0;
        for (int start = (file - 3 > 0 ? file - 3 : 0); start <= (file < WIDTH - 4 ? file : WIDTH - 4); start++) {
            bb_t w = 0;
            for (int f = start; f < start + 4; f++) w |= (bb_t)1 << (rank * WIDTH + f);
            SQ_WINDOWS[sq][count++] = w;
            cross |= w;
        }
        for (int start = (rank - 3 > 0 ? rank - 3 : 0); start <= (rank < WIDTH - 4 ? rank : WIDTH - 4); start++) {
            bb_t w = 0;
            for (int r = start; r < start + 4; r++) w |= (bb_t)1 << (r * WIDTH + file);
            SQ_WINDOWS[sq][count++] = w;
            cross |= w;
        }
        SQ_WINDOW_COUNT[sq] = count;
        CROSS[sq] = cross;
    }
    ALL_WINDOW_COUNT = 0;
    for (int r = 0; r < WIDTH; r++)
        for (int start = 0; start + 4 <= WIDTH; start++) {
            bb_t h = 0, v = 0;
            for (int k = 0; k < 4; k++) {
                h |= (bb_t)1 << (r * WIDTH + start + k);
                v |= (bb_t)1 << ((start + k) * WIDTH + r);
            }
            ALL_WINDOWS[ALL_WINDOW_COUNT++] = h;
            ALL_WINDOWS[ALL_WINDOW_COUNT++] = v;
        }
}

/* -- the rules' pieces ------------------------------------------------------------------------- */
static inline int popcount(bb_t b) { return __builtin_popcountll(b); }
static inline int lowest(bb_t b) { return __builtin_ctzll(b); }

static inline bb_t adjacent(bb_t b) {
    return ((b << WIDTH) & BOARD) | (b >> WIDTH) | ((b << 1) & NOT_FILE_A) | ((b >> 1) & NOT_FILE_F);
}

/* oxono.reachable: where a totem on ``square`` may go, ``occupied`` holding the pawns and the other totem. */
static bb_t reachable(int square, bb_t occupied) {
    int enclosed = !(NEIGHBOURS[square] & ~occupied);
    bb_t dests = 0;
    for (int d = 0; d < 4; d++) {
        const int *ray = RAYS[square][d];
        int n = RAY_LEN[square][d];
        if (!enclosed) {
            for (int i = 0; i < n; i++) {
                if (occupied & ((bb_t)1 << ray[i])) break;
                dests |= (bb_t)1 << ray[i];
            }
        } else {
            for (int i = 0; i < n; i++)
                if (!(occupied & ((bb_t)1 << ray[i]))) {
                    dests |= (bb_t)1 << ray[i];
                    break;
                }
        }
    }
    if (enclosed && !dests) return BOARD & ~occupied & ~((bb_t)1 << square);
    return dests;
}

/* bot_oxono.completions */
static bb_t completions(bb_t s) {
    bb_t e1 = (s << 1) & EAST_OK[1], e2 = (s << 2) & EAST_OK[2], e3 = (s << 3) & EAST_OK[3];
    bb_t w1 = (s >> 1) & WEST_OK[1], w2 = (s >> 2) & WEST_OK[2], w3 = (s >> 3) & WEST_OK[3];
    bb_t n1 = (s << WIDTH) & BOARD, n2 = (s << 2 * WIDTH) & BOARD, n3 = (s << 3 * WIDTH) & BOARD;
    bb_t s1 = s >> WIDTH, s2 = s >> 2 * WIDTH, s3 = s >> 3 * WIDTH;
    return (e1 & e2 & (e3 | w1)) | (w1 & w2 & (w3 | e1)) | (n1 & n2 & (n3 | s1)) | (s1 & s2 & (s3 | n1));
}

static inline int left_of(const State *s, int symbol) { return symbol == SYM_X ? s->lx : s->lo; }

/* bot_oxono._totem: the destinations and the free squares of the totem ``symbol``. */
static inline void totem(const State *s, int symbol, bb_t *dests, bb_t *free) {
    bb_t pawns = s->own | s->opp;
    int square = symbol == SYM_X ? s->tx : s->to, other = symbol == SYM_X ? s->to : s->tx;
    bb_t occupied = pawns | ((bb_t)1 << other);
    *dests = reachable(square, occupied);
    *free = BOARD & ~occupied;
}

static inline bb_t places_of(int dest, bb_t free) {
    bb_t around = NEIGHBOURS[dest] & free;
    return around ? around : free & ~((bb_t)1 << dest);
}

/* bot_oxono.legal_moves; returns how many (at most 36 destinations times 35 squares a symbol). */
#define MOST_MOVES 2600
static int legal_moves(const State *s, Move *out) {
    int n = 0;
    for (int symbol = SYM_X; symbol <= SYM_O; symbol++) {
        if (!left_of(s, symbol)) continue;
        bb_t dests, free;
        totem(s, symbol, &dests, &free);
        while (dests) {
            int dest = lowest(dests);
            dests &= dests - 1;
            bb_t places = places_of(dest, free);
            while (places) {
                out[n].symbol = symbol;
                out[n].dest = dest;
                out[n].pawn = lowest(places);
                n++;
                places &= places - 1;
            }
        }
    }
    return n;
}

static int line_made(int placed, bb_t colour, bb_t symbol) {
    bb_t cross = CROSS[placed];
    if (popcount(colour & cross) >= 4)
        for (int i = 0; i < SQ_WINDOW_COUNT[placed]; i++)
            if ((colour & SQ_WINDOWS[placed][i]) == SQ_WINDOWS[placed][i]) return 1;
    if (popcount(symbol & cross) >= 4)
        for (int i = 0; i < SQ_WINDOW_COUNT[placed]; i++)
            if ((symbol & SQ_WINDOWS[placed][i]) == SQ_WINDOWS[placed][i]) return 1;
    return 0;
}

/* bot_oxono.play: the state after ``m``; returns 1 (its mover won), 0 (a draw) or -1 (the game goes on). */
static int play(const State *s, Move m, State *after) {
    bb_t p = (bb_t)1 << m.pawn;
    bb_t new_own = s->own | p, pawns = new_own | s->opp, xs = s->xs;
    int tx = s->tx, to = s->to, lx = s->lx, lo = s->lo, line;
    if (m.symbol == SYM_X) {
        xs |= p;
        tx = m.dest;
        lx -= 1;
        line = line_made(m.pawn, new_own, xs);
    } else {
        to = m.dest;
        lo -= 1;
        line = line_made(m.pawn, new_own, pawns & ~xs);
    }
    after->own = s->opp;
    after->opp = new_own;
    after->xs = xs;
    after->tx = tx;
    after->to = to;
    after->lx = s->olx;
    after->lo = s->olo;
    after->olx = lx;
    after->olo = lo;
    if (line) return 1;
    if (popcount(pawns) == PAWNS_IN_ALL) return 0;
    return -1;
}

/* bot_oxono.winning_move: 1 and the move, or 0. */
static int winning_move(const State *s, Move *win) {
    bb_t pawns = s->own | s->opp, colour = completions(s->own);
    for (int symbol = SYM_X; symbol <= SYM_O; symbol++) {
        if (!left_of(s, symbol)) continue;
        bb_t marked = symbol == SYM_X ? s->xs : pawns & ~s->xs;
        bb_t targets = (colour | completions(marked)) & ~pawns;
        if (!targets) continue;
        bb_t dests, free;
        totem(s, symbol, &dests, &free);
        targets &= free;
        if (!targets) continue;
        if (!(adjacent(dests) & targets) && !(dests & ~adjacent(free))) continue;
        while (dests) {
            int dest = lowest(dests);
            dests &= dests - 1;
            bb_t hit = places_of(dest, free) & targets;
            if (hit) {
                win->symbol = symbol;
                win->dest = dest;
                win->pawn = lowest(hit);
                return 1;
            }
        }
    }
    return 0;
}

static inline void swapped(const State *s, State *out) {
    out->own = s->opp;
    out->opp = s->own;
    out->xs = s->xs;
    out->tx = s->tx;
    out->to = s->to;
    out->lx = s->olx;
    out->lo = s->olo;
    out->olx = s->lx;
    out->olo = s->lo;
}

/* bot_oxono._threatens: the player who just moved into ``s`` could win at once if it moved again. */
static int threatens(const State *s) {
    State other;
    Move unused;
    swapped(s, &other);
    return winning_move(&other, &unused);
}

static int line_score(bb_t own, bb_t opp) {
    int score = 0;
    for (int i = 0; i < ALL_WINDOW_COUNT; i++) {
        bb_t w = ALL_WINDOWS[i];
        if (!(opp & w)) {
            int n = popcount(own & w);
            if (n >= 2) score += n * n;
        }
    }
    return score;
}

/* bot_oxono.evaluate */
static double evaluate(const State *s) {
    bb_t free = BOARD & ~(s->own | s->opp);
    int own_threats = popcount(completions(s->own) & free), opp_threats = popcount(completions(s->opp) & free);
    return 6.0 * (double)(own_threats - opp_threats) + 0.5 * (double)(line_score(s->own, s->opp) - line_score(s->opp, s->own));
}

/* bot_oxono.forced_win: 1 and the move, 0 for none. */
static int forced_win(const State *s, int moves, Move *found) {
    if (winning_move(s, found)) return 1;
    if (moves <= 1) return 0;
    Move *list = PyMem_Malloc(sizeof(Move) * MOST_MOVES), *replies = PyMem_Malloc(sizeof(Move) * MOST_MOVES);
    int result = 0;
    if (list == NULL || replies == NULL) {
        PyMem_Free(list);
        PyMem_Free(replies);
        return -1;
    }
    int n = legal_moves(s, list);
    for (int i = 0; i < n && !result; i++) {
        State after, reached;
        Move unused;
        if (play(s, list[i], &after) >= 0 || winning_move(&after, &unused) || !threatens(&after)) continue;
        int k = legal_moves(&after, replies), all = 1;
        for (int j = 0; j < k; j++) {
            if (play(&after, replies[j], &reached) >= 0) {
                all = 0;
                break;
            }
            int deeper = forced_win(&reached, moves - 1, &unused);
            if (deeper < 0) {
                result = -1;
                break;
            }
            if (!deeper) {
                all = 0;
                break;
            }
        }
        if (result < 0) break;
        if (all) {
            *found = list[i];
            result = 1;
        }
    }
    PyMem_Free(list);
    PyMem_Free(replies);
    return result;
}

/* -- Python values in and out -------------------------------------------------------------------- */
static int state_in(PyObject *obj, State *s) {
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 9) {
        PyErr_SetString(PyExc_TypeError, "a state is a tuple of nine ints");
        return -1;
    }
    unsigned long long bits[3];
    long small[6];
    for (int i = 0; i < 3; i++) {
        bits[i] = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(obj, i));
        if (bits[i] == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    }
    for (int i = 0; i < 6; i++) {
        small[i] = PyLong_AsLong(PyTuple_GET_ITEM(obj, 3 + i));
        if (small[i] == -1 && PyErr_Occurred()) return -1;
    }
    if ((bits[0] | bits[1] | bits[2]) & ~BOARD || small[0] < 0 || small[0] >= SQUARES || small[1] < 0 ||
        small[1] >= SQUARES) {
        PyErr_SetString(PyExc_ValueError, "a state off the board");
        return -1;
    }
    /* What no game reaches, refused: the searches' buffers are sized for real games (MOST_PLIES plies at most). */
    bb_t pawns = bits[0] | bits[1], totems = ((bb_t)1 << small[0]) | ((bb_t)1 << small[1]);
    int counts_ok = 1;
    for (int i = 2; i < 6; i++) counts_ok &= small[i] >= 0 && small[i] <= PAWNS_IN_ALL / 4;
    int own = popcount(bits[0]), opp = popcount(bits[1]);
    if (bits[0] & bits[1] || bits[2] & ~pawns || pawns & totems || small[0] == small[1] || !counts_ok ||
        own + small[2] + small[3] != PAWNS_IN_ALL / 2 || opp + small[4] + small[5] != PAWNS_IN_ALL / 2 ||
        (own != opp && own != opp - 1)) {
        PyErr_SetString(PyExc_ValueError, "a state no game reaches");
        return -1;
    }
    s->own = bits[0];
    s->opp = bits[1];
    s->xs = bits[2];
    s->tx = (int)small[0];
    s->to = (int)small[1];
    s->lx = (int)small[2];
    s->lo = (int)small[3];
    s->olx = (int)small[4];
    s->olo = (int)small[5];
    return 0;
}

static PyObject *state_out(const State *s) {
    return Py_BuildValue("(KKKiiiiii)", (unsigned long long)s->own, (unsigned long long)s->opp,
                         (unsigned long long)s->xs, s->tx, s->to, s->lx, s->lo, s->olx, s->olo);
}

static PyObject *move_out(Move m) { return Py_BuildValue("(iii)", m.symbol, m.dest, m.pawn); }

static int move_in(PyObject *obj, Move *m) {
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 3) {
        PyErr_SetString(PyExc_TypeError, "a move is a tuple of three ints");
        return -1;
    }
    long v[3];
    for (int i = 0; i < 3; i++) {
        v[i] = PyLong_AsLong(PyTuple_GET_ITEM(obj, i));
        if (v[i] == -1 && PyErr_Occurred()) return -1;
    }
    if (v[0] < 0 || v[0] > 1 || v[1] < 0 || v[1] >= SQUARES || v[2] < 0 || v[2] >= SQUARES) {
        PyErr_SetString(PyExc_ValueError, "a move off the board");
        return -1;
    }
    m->symbol = (int)v[0];
    m->dest = (int)v[1];
    m->pawn = (int)v[2];
    return 0;
}

static PyObject *result_out(int result) {
    if (result < 0) Py_RETURN_NONE;
    return PyLong_FromLong(result);
}

/* -- the module's functions ---------------------------------------------------------------------- */
static PyObject *py_completions(PyObject *self, PyObject *arg) {
    unsigned long long s = PyLong_AsUnsignedLongLong(arg);
    if (s == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    if (s & ~BOARD) {
        PyErr_SetString(PyExc_ValueError, "squares off the board");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(completions(s));
}

static PyObject *py_winning_move(PyObject *self, PyObject *arg) {
    State s;
    Move m;
    if (state_in(arg, &s) < 0) return NULL;
    if (winning_move(&s, &m)) return move_out(m);
    Py_RETURN_NONE;
}

static PyObject *py_threatens(PyObject *self, PyObject *arg) {
    State s;
    if (state_in(arg, &s) < 0) return NULL;
    return PyBool_FromLong(threatens(&s));
}

static PyObject *py_legal_moves(PyObject *self, PyObject *arg) {
    State s;
    Move list[MOST_MOVES];
    if (state_in(arg, &s) < 0) return NULL;
    int n = legal_moves(&s, list);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *m = move_out(list[i]);
        if (m == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, m);
    }
    return out;
}

static PyObject *py_play(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    State s, after;
    Move m;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "play(state, move)");
        return NULL;
    }
    if (state_in(args[0], &s) < 0 || move_in(args[1], &m) < 0) return NULL;
    int result = play(&s, m, &after);
    PyObject *st = state_out(&after), *res = result_out(result);
    if (st == NULL || res == NULL) {
        Py_XDECREF(st);
        Py_XDECREF(res);
        return NULL;
    }
    PyObject *out = PyTuple_Pack(2, st, res);
    Py_DECREF(st);
    Py_DECREF(res);
    return out;
}

static PyObject *py_evaluate(PyObject *self, PyObject *arg) {
    State s;
    if (state_in(arg, &s) < 0) return NULL;
    return PyFloat_FromDouble(evaluate(&s));
}

static PyObject *py_forced_win(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    State s;
    Move m;
    long moves = 2;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "forced_win(state, moves=2)");
        return NULL;
    }
    if (state_in(args[0], &s) < 0) return NULL;
    if (nargs == 2 && (moves = PyLong_AsLong(args[1])) == -1 && PyErr_Occurred()) return NULL;
    if (moves > PAWNS_IN_ALL) moves = PAWNS_IN_ALL; /* no game lasts longer: the same answer */
    int found = forced_win(&s, (int)moves, &m);
    if (found < 0) return PyErr_NoMemory();
    if (found) return move_out(m);
    Py_RETURN_NONE;
}

/* One draw of the caller's ``random()``: 0 <= r < 1, or -1 with the error set. */
static double draw(PyObject *random) {
    PyObject *r = PyObject_CallNoArgs(random);
    if (r == NULL) return -1.0;
    double v = PyFloat_AsDouble(r);
    Py_DECREF(r);
    if (v == -1.0 && PyErr_Occurred()) return -1.0;
    if (!(v >= 0.0 && v < 1.0)) { /* NaN too */
        PyErr_SetString(PyExc_ValueError, "random() must return a number in [0, 1)");
        return -1.0;
    }
    return v;
}

static int pick(bb_t b, int index) {
    for (int i = 0; i < index; i++) b &= b - 1;
    return lowest(b);
}

/* bot_oxono.random_move: 0, or -1 with the error set. */
static int random_move(const State *s, PyObject *random, Move *m) {
    int symbol;
    if (!s->lx && !s->lo) {
        PyErr_SetString(PyExc_ValueError, "no move: the player to move has no pawn left");
        return -1;
    }
    if (s->lx && s->lo) {
        double r = draw(random);
        if (r < 0) return -1;
        symbol = r < 0.5 ? SYM_X : SYM_O;
    } else {
        symbol = s->lx ? SYM_X : SYM_O;
    }
    bb_t dests, free;
    totem(s, symbol, &dests, &free);
    double r = draw(random);
    if (r < 0) return -1;
    int dest = pick(dests, (int)(r * popcount(dests)));
    bb_t places = places_of(dest, free);
    r = draw(random);
    if (r < 0) return -1;
    m->symbol = symbol;
    m->dest = dest;
    m->pawn = pick(places, (int)(r * popcount(places)));
    return 0;
}

static PyObject *py_random_move(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    State s;
    Move m;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "random_move(state, random)");
        return NULL;
    }
    if (state_in(args[0], &s) < 0 || random_move(&s, args[1], &m) < 0) return NULL;
    return move_out(m);
}

#define PLAYOUT_SCALE 10.0 /* bot_oxono.PLAYOUT_SCALE: evaluation points that make a playout's value tanh(1) */

/* bot_oxono.playout: 0 and the value in ``*value``, or -1 with the error set. */
static int playout(const State *start, PyObject *random, long plies, long tries, double *value) {
    State s = *start, after;
    double sign = 1.0;
    for (long ply = 0; ply < plies; ply++) {
        int threat = 0;
        for (long t = 0; t < tries; t++) {
            Move m, unused;
            if (random_move(&s, random, &m) < 0) return -1;
            int result = play(&s, m, &after);
            if (result >= 0) {
                *value = sign * (double)result;
                return 0;
            }
            threat = winning_move(&after, &unused);
            if (!threat) break;
        }
        s = after;
        if (threat) {
            *value = -sign;
            return 0;
        }
        sign = -sign;
    }
    *value = sign * tanh(evaluate(&s) / PLAYOUT_SCALE);
    return 0;
}

static PyObject *py_playout(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    State s;
    long plies, tries;
    double value;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "playout(state, random, plies, tries)");
        return NULL;
    }
    if (state_in(args[0], &s) < 0) return NULL;
    if ((plies = PyLong_AsLong(args[2])) == -1 && PyErr_Occurred()) return NULL;
    if ((tries = PyLong_AsLong(args[3])) == -1 && PyErr_Occurred()) return NULL;
    if (tries < 1 || plies < 0) {
        PyErr_SetString(PyExc_ValueError, "playout: tries must be at least 1, plies at least 0");
        return NULL;
    }
    if (playout(&s, args[1], plies, tries, &value) < 0) return NULL;
    return PyFloat_FromDouble(value);
}

/* -- the solver, and its table ------------------------------------------------------------------- */
typedef struct {
    bb_t k1, k2, k3; /* the state, packed; k3 == 0 marks an empty slot (a state always has a pawn left to place) */
    signed char low, high;
} Entry;

typedef struct {
    PyObject_HEAD
    Entry *slots;
    size_t mask, used;
} Table;

#define TABLE_BITS 20

static void pack(const State *s, bb_t *k1, bb_t *k2, bb_t *k3) {
    *k1 = s->own | ((bb_t)s->tx << 36) | ((bb_t)s->to << 42) | ((bb_t)s->lx << 48) | ((bb_t)s->lo << 53);
    *k2 = s->opp | ((bb_t)s->olx << 36) | ((bb_t)s->olo << 41);
    *k3 = s->xs | ((bb_t)1 << 63);
}

static inline size_t slot_of(const Table *t, bb_t k1, bb_t k2, bb_t k3) {
    bb_t h = k1 * 0x9E3779B97F4A7C15ULL ^ (k2 + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL ^ k3 * 0x165667B19E3779F9ULL;
    return (size_t)(h >> 17) & t->mask;
}

static Entry *lookup(Table *t, const State *s) {
    bb_t k1, k2, k3;
    pack(s, &k1, &k2, &k3);
    for (size_t i = slot_of(t, k1, k2, k3);; i = (i + 1) & t->mask) {
        Entry *e = &t->slots[i];
        if (e->k3 == 0) return NULL;
        if (e->k1 == k1 && e->k2 == k2 && e->k3 == k3) return e;
    }
}

static void store(Table *t, const State *s, int low, int high) {
    bb_t k1, k2, k3;
    pack(s, &k1, &k2, &k3);
    if (t->used * 4 > (t->mask + 1) * 3) { /* three quarters full: start again */
        memset(t->slots, 0, sizeof(Entry) * (t->mask + 1));
        t->used = 0;
    }
    for (size_t i = slot_of(t, k1, k2, k3);; i = (i + 1) & t->mask) {
        Entry *e = &t->slots[i];
        if (e->k3 == 0) {
            e->k1 = k1;
            e->k2 = k2;
            e->k3 = k3;
            t->used++;
        } else if (e->k1 != k1 || e->k2 != k2 || e->k3 != k3) {
            continue;
        }
        e->low = (signed char)low;
        e->high = (signed char)high;
        return;
    }
}

static PyObject *Table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    Table *self = (Table *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->mask = ((size_t)1 << TABLE_BITS) - 1;
    self->used = 0;
    self->slots = PyMem_Calloc(self->mask + 1, sizeof(Entry));
    if (self->slots == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

static void Table_dealloc(Table *self) {
    PyMem_Free(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static Py_ssize_t Table_len(Table *self) { return (Py_ssize_t)self->used; }

static PySequenceMethods Table_as_sequence = {.sq_length = (lenfunc)Table_len};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "olixono._oxono_fast.Table",
    .tp_basicsize = sizeof(Table),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The solver's proven bounds (low, high) by position, for solve and best_move calls to share.",
    .tp_new = Table_new,
    .tp_dealloc = (destructor)Table_dealloc,
    .tp_as_sequence = &Table_as_sequence,
};

static PyObject *perf_counter;

#define MOST_PLIES (PAWNS_IN_ALL + 2)

typedef struct {
    Table *table;
    long long budget;
    double deadline;
    int failed; /* 1: out of budget or time; 2: a Python error */
    Move *moves; /* MOST_MOVES a ply, for MOST_PLIES plies: the moves of every position on the current line */
} Solve;

static int solve_rec(const State *s, int alpha, int beta, Solve *run, int ply) {
    run->budget -= 1;
    if (run->budget < 0) {
        run->failed = 1;
        return 0;
    }
    if ((run->budget & 1023) == 0 && PyErr_CheckSignals() < 0) { /* Ctrl-C */
        run->failed = 2;
        return 0;
    }
    if ((run->budget & 1023) == 0 && run->deadline < INFINITY) {
        PyObject *now = PyObject_CallNoArgs(perf_counter);
        if (now == NULL) {
            run->failed = 2;
            return 0;
        }
        double t = PyFloat_AsDouble(now);
        Py_DECREF(now);
        if (t > run->deadline) {
            run->failed = 1;
            return 0;
        }
    }
    Move win;
    if (winning_move(s, &win)) return 1;
    int low = -1, high = 1;
    Entry *e = lookup(run->table, s);
    if (e != NULL) {
        low = e->low;
        high = e->high;
    }
    if (low >= beta || low == high) return low;
    if (high <= alpha) return high;
    int a0 = alpha > low ? alpha : low, b0 = beta < high ? beta : high, best = -1;
    Move *list = run->moves + (size_t)ply * MOST_MOVES;
    int n = legal_moves(s, list);
    for (int i = 0; i < n; i++) {
        State after;
        int result = play(s, list[i], &after), value;
        if (result == 0) {
            value = 0;
        } else {
            value = -solve_rec(&after, -b0, -(a0 > best ? a0 : best), run, ply + 1);
            if (run->failed) return 0;
        }
        if (value > best) {
            best = value;
            if (best >= b0) break;
        }
    }
    if (best <= a0) high = best;
    else if (best >= b0) low = best;
    else low = high = best;
    store(run->table, s, low, high);
    return best;
}

static int solve_args(PyObject *const *args, Py_ssize_t nargs, const char *name, State *s, Solve *run) {
    if (nargs < 3 || nargs > 4) {
        PyErr_Format(PyExc_TypeError, "%s(state, table, nodes, deadline=inf)", name);
        return -1;
    }
    if (state_in(args[0], s) < 0) return -1;
    if (!s->lx && !s->lo) {
        PyErr_Format(PyExc_ValueError, "%s: no move: the board is full", name);
        return -1;
    }
    if (!PyObject_TypeCheck(args[1], &TableType)) {
        PyErr_Format(PyExc_TypeError, "%s: the table must be a Table", name);
        return -1;
    }
    run->table = (Table *)args[1];
    run->budget = PyLong_AsLongLong(args[2]);
    if (run->budget == -1 && PyErr_Occurred()) return -1;
    if (run->budget < 0) run->budget = 0; /* none: and no overflow below */
    run->deadline = nargs == 4 ? PyFloat_AsDouble(args[3]) : INFINITY;
    if (run->deadline == -1.0 && PyErr_Occurred()) return -1;
    run->failed = 0;
    run->moves = PyMem_Malloc(sizeof(Move) * MOST_MOVES * MOST_PLIES);
    if (run->moves == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* bot_oxono.solve: the exact value for the player to move, or None (out of nodes or time). */
static PyObject *py_solve(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    State s;
    Solve run;
    if (solve_args(args, nargs, "solve", &s, &run) < 0) return NULL;
    int value = solve_rec(&s, -1, 1, &run, 1);
    PyMem_Free(run.moves);
    if (run.failed == 2) return NULL;
    if (run.failed) Py_RETURN_NONE;
    return PyLong_FromLong(value);
}

/* bot_oxono.best_move: (value, move), or None. */
static PyObject *py_best_move(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    State s;
    Solve run;
    Move win, choice = {0, 0, 0};
    if (solve_args(args, nargs, "best_move", &s, &run) < 0) return NULL;
    Move *list = run.moves; /* ply 0: the root's own moves; the searches below them start at ply 1 */
    int best = -2;
    solve_rec(&s, -1, 1, &run, 1);
    if (!run.failed && winning_move(&s, &win)) {
        best = 1;
        choice = win;
    } else if (!run.failed) {
        int n = legal_moves(&s, list);
        for (int i = 0; i < n; i++) {
            State after;
            int result = play(&s, list[i], &after), value = 0;
            if (result != 0) {
                value = -solve_rec(&after, -1, 1, &run, 1);
                if (run.failed) break;
            }
            if (value > best) {
                best = value;
                choice = list[i];
                if (best == 1) break;
            }
        }
    }
    PyMem_Free(run.moves);
    if (run.failed == 2) return NULL;
    if (run.failed) Py_RETURN_NONE;
    return Py_BuildValue("(iN)", best, move_out(choice));
}

/* -- the tree search, in C arrays ---------------------------------------------------------------- */
/* mcts.Mcts's search with Oxono's settings (no move ordering: the moves shuffled at expansion), for
 * bot_oxono.FastMcts: the iterations (Mcts._iterate), the checks of the principal variation (Mcts._check_line) and of
 * the best root moves (Mcts._check), and MCTS-Solver's proofs (mcts._prove_parent) all run here, the nodes kept in one
 * growable array. The root solver and the ranking of the result stay in Python (mcts.py). The random numbers come
 * from the caller's ``random()``, as the playouts' do, so a seeded search is deterministic; its shuffle is not
 * Python's ``random.shuffle`` (Fisher-Yates on ``random()``), so its moves differ from mcts.py's in detail, not in
 * kind.
 *
 * A node's moves are made into nodes all at once when it is expanded, consecutive, shuffled: the first ``tried`` of
 * them are its children (Node.children), the rest its untried moves (Node.untried), tried in order. */

#define UNPROVEN 2            /* Node.proven: not proven; else 1 won, 0 drawn, -1 lost, for the player who moved */
#define CHECK_EVERY 64        /* mcts.CHECK_EVERY: iterations between checks of the principal variation ... */
#define CHECK_DEPTH 3         /* mcts.CHECK_DEPTH: ... this deep ... */
#define CHECK_VISITS 8        /* mcts.CHECK_VISITS: ... each move once it has this many visits */
#define WIN_IN 2              /* refuted: the player to move has a forced_win within this many moves */
#define SIGNALS_EVERY 64      /* iterations between looks for Ctrl-C */
#define FIRST_NODES 4096      /* the node array's first size; it doubles when full ... */
#define MOST_NODES (1 << 22)  /* ... up to this many nodes (56 bytes each): a search that needs more stops there */

typedef struct {
    double total, q, u;   /* q = total / visits and u = 1 / sqrt(visits), kept by the backup for the selection */
    long long visits;
    int32_t parent;       /* -1 for the root */
    int32_t first;        /* the node of its first move (its moves' nodes are consecutive); -1 before expansion */
    uint16_t moves, tried; /* its legal moves; how many of them are children (nodes first .. first + tried - 1) */
    unsigned char symbol, dest, pawn; /* the move into it */
    signed char proven;   /* UNPROVEN, or the exact result of its move for its mover */
    unsigned char checked; /* whether ``refuted`` was asked of its move */
} Node;

typedef struct {
    PyObject_HEAD
    Node *nodes;
    int32_t used, size, most; /* nodes in use, room for, and at most (MOST_NODES, or fewer if asked) */
    int busy;             /* being searched: its ``random`` or ``clock`` may not change it (they are Python's) */
    State root;           /* the root's position (the nodes hold moves only) */
    double exploration;   /* UCT's constant (Mcts.exploration) */
    int refute_new;       /* Mcts.refute_new: every new node asked for a win in two, not only a win in one */
    long plies, tries;    /* the playouts' (bot_oxono.PLAYOUT_PLIES, PLAYOUT_TRIES) */
    long long generation; /* how many times it was rerooted: its node numbers change then */
} Tree;

static inline Move move_of(const Node *n) {
    Move m = {n->symbol, n->dest, n->pawn};
    return m;
}

static void node_init(Node *n, Move m, int32_t parent) {
    memset(n, 0, sizeof(Node));
    n->parent = parent;
    n->first = -1;
    n->symbol = (unsigned char)m.symbol;
    n->dest = (unsigned char)m.dest;
    n->pawn = (unsigned char)m.pawn;
    n->proven = UNPROVEN;
}

/* Room for ``n`` more nodes: 0, 1 when that would pass MOST_NODES, -1 with the error set. */
static int tree_reserve(Tree *t, int n) {
    if ((long long)t->used + n > t->most) return 1;
    if (t->used + n <= t->size) return 0;
    int32_t size = t->size;
    while (size < t->used + n) size = size * 2 < t->most ? size * 2 : t->most;
    Node *grown = PyMem_Realloc(t->nodes, sizeof(Node) * (size_t)size);
    if (grown == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    t->nodes = grown;
    t->size = size;
    return 0;
}

/* Mcts._expand: the moves of ``index`` (whose position is ``s``) made into nodes, shuffled. 0, 1 (no room), or -1
 * with the error set; nothing changes but on success. */
static int expand(Tree *t, int32_t index, const State *s, PyObject *random) {
    Move list[MOST_MOVES];
    int n = legal_moves(s, list), room = tree_reserve(t, n);
    if (room) return room;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        double r = draw(random);
        if (r < 0) return -1;
        int j = (int)(r * (i + 1));
        if (j > i) j = i; /* r * (i + 1) rounded up to i + 1 */
        Move m = list[i];
        list[i] = list[j];
        list[j] = m;
    }
    for (int i = 0; i < n; i++) node_init(&t->nodes[t->used + i], list[i], index);
    t->nodes[index].first = t->used;
    t->nodes[index].moves = (uint16_t)n;
    t->nodes[index].tried = 0;
    t->used += n;
    return 0;
}

/* mcts._prove_parent: ``child`` (a move of ``parent``'s) is proven: whether that proves ``parent``. */
static int prove_parent(Tree *t, int32_t child, int32_t parent) {
    Node *p = &t->nodes[parent];
    if (t->nodes[child].proven == 1) {
        p->proven = -1;
    } else if (p->tried == p->moves) {
        int best = -1;
        for (int32_t i = p->first; i < p->first + p->tried; i++) {
            if (t->nodes[i].proven == UNPROVEN) return 0;
            if (t->nodes[i].proven > best) best = t->nodes[i].proven;
        }
        p->proven = (signed char)-best;
    }
    return p->proven != UNPROVEN;
}

/* Mcts._prove_up: ``index`` was just proven: what that proves above it. */
static void prove_up(Tree *t, int32_t index) {
    int32_t parent;
    while ((parent = t->nodes[index].parent) >= 0 && t->nodes[parent].proven == UNPROVEN &&
           prove_parent(t, index, parent))
        index = parent;
}

/* OxonoSearch.refuted, or only a win in one: 1, 0, or -1 with the error set. */
static int refuted(const State *s, int moves) {
    Move unused;
    int found = forced_win(s, moves, &unused);
    if (found < 0) PyErr_NoMemory();
    return found;
}

/* Mcts._iterate: one iteration from the root. 0, 1 (the tree is full: nothing done), or -1 with the error set. */
static int iterate(Tree *t, PyObject *random) {
    int32_t index = 0;
    State s = t->root, after;
    double value;
    for (;;) {
        Node *n = &t->nodes[index];
        if (n->proven != UNPROVEN) {
            value = n->proven;
            break;
        }
        if (n->first < 0) {
            int expanded = expand(t, index, &s, random);
            if (expanded) return expanded;
            n = &t->nodes[index]; /* the array may have moved */
        }
        if (n->tried < n->moves) { /* a new node: judged at once, or by a playout */
            int32_t child = n->first + n->tried++;
            Node *c = &t->nodes[child];
            int result = play(&s, move_of(c), &after);
            if (result >= 0) {
                c->proven = (signed char)result;
                value = result;
            } else {
                int lost = refuted(&after, t->refute_new ? WIN_IN : 1);
                double leaf = 0.0;
                if (lost < 0 || (!lost && playout(&after, random, t->plies, t->tries, &leaf) < 0)) {
                    n->tried--; /* left untried */
                    return -1;
                }
                if (lost) {
                    c->proven = -1;
                    c->checked = 1;
                    value = -1.0;
                } else {
                    value = -leaf;
                }
            }
            index = child;
            break;
        }
        /* Select: UCT among the moves not proven lost; if every move is lost, this node is won. */
        double scale = t->exploration * sqrt(log(n->visits ? (double)n->visits : 1.0)), best_score = -INFINITY;
        int32_t best = -1;
        for (int32_t i = n->first; i < n->first + n->tried; i++) {
            const Node *c = &t->nodes[i];
            double q;
            if (c->proven == UNPROVEN) q = c->q;
            else if (c->proven == -1) continue;
            else q = c->proven;
            double score = q + scale * c->u;
            if (score > best_score) {
                best = i;
                best_score = score;
            }
        }
        if (best < 0) {
            n->proven = 1;
            value = 1.0;
            break;
        }
        play(&s, move_of(&t->nodes[best]), &after);
        s = after;
        index = best;
    }
    /* Back up: ``value`` is for the player who moved into ``index``. */
    while (index >= 0) {
        Node *c = &t->nodes[index];
        c->visits += 1;
        c->total += value;
        c->q = c->total / (double)c->visits;
        c->u = 1.0 / sqrt((double)c->visits);
        int32_t parent = c->parent;
        if (parent >= 0 && t->nodes[parent].proven == UNPROVEN && c->proven != UNPROVEN)
            prove_parent(t, index, parent);
        value = -value;
        index = parent;
    }
    return 0;
}

/* Mcts._check_line: the principal variation's moves, from the root down, each checked once for a win in two it
 * allows; a refuted move is lost, and that goes up the tree. 0, or -1 with the error set. */
static int check_line(Tree *t) {
    int32_t index = 0;
    State s = t->root, after;
    for (int depth = 0; depth < CHECK_DEPTH; depth++) {
        const Node *n = &t->nodes[index];
        int32_t best = -1;
        for (int32_t i = n->first; n->first >= 0 && i < n->first + n->tried; i++)
            if (t->nodes[i].proven == UNPROVEN && (best < 0 || t->nodes[i].visits > t->nodes[best].visits)) best = i;
        if (best < 0 || t->nodes[best].visits < CHECK_VISITS) break;
        play(&s, move_of(&t->nodes[best]), &after);
        s = after;
        if (!t->nodes[best].checked) {
            t->nodes[best].checked = 1;
            int lost = refuted(&s, WIN_IN);
            if (lost < 0) return -1;
            if (lost) {
                t->nodes[best].proven = -1;
                prove_up(t, best);
                break;
            }
        }
        index = best;
    }
    return 0;
}

/* The search's clock (``clock()``, seconds): 0, or -1 with the error set. */
static int now_of(PyObject *clock, double *now) {
    PyObject *r = PyObject_CallNoArgs(clock);
    if (r == NULL) return -1;
    *now = PyFloat_AsDouble(r);
    Py_DECREF(r);
    return *now == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* Whether the tree may be changed now: not from within its own search's ``random`` or ``clock``. */
static int tree_free(const Tree *t) {
    if (!t->busy) return 1;
    PyErr_SetString(PyExc_RuntimeError, "the tree is being searched");
    return 0;
}

static PyObject *tree_run(Tree *t, PyObject *random, long long limit, double deadline, int checking, PyObject *clock);

/* Tree.run: Mcts.search's loop. */
static PyObject *Tree_run(Tree *t, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "run(random, iterations, deadline, check_line, clock)");
        return NULL;
    }
    PyObject *random = args[0], *clock = args[4];
    long long limit = PyLong_AsLongLong(args[1]);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (limit < 0) {
        PyErr_SetString(PyExc_ValueError, "run: iterations must be at least 0");
        return NULL;
    }
    double deadline = PyFloat_AsDouble(args[2]);
    if (deadline == -1.0 && PyErr_Occurred()) return NULL;
    int checking = PyObject_IsTrue(args[3]);
    if (checking < 0 || !tree_free(t)) return NULL;
    t->busy = 1;
    PyObject *done = tree_run(t, random, limit, deadline, checking, clock);
    t->busy = 0;
    return done;
}

static PyObject *tree_run(Tree *t, PyObject *random, long long limit, double deadline, int checking, PyObject *clock) {
    Node *root = &t->nodes[0];
    if (root->first < 0) {
        int expanded = expand(t, 0, &t->root, random);
        if (expanded < 0) return NULL;
        root = &t->nodes[0];
    }
    if (root->moves == 0) {
        PyErr_SetString(PyExc_ValueError, "no legal move to search");
        return NULL;
    }
    /* Stop before an iteration that would likely end past the deadline (at the mean pace so far). */
    int timed = deadline < INFINITY;
    double now = 0.0, begun = 0.0;
    if (timed && now_of(clock, &begun) < 0) return NULL;
    now = begun;
    long long done = 0;
    while (done < limit && t->nodes[0].proven == UNPROVEN &&
           (done == 0 || now + (now - begun) / (double)done < deadline)) {
        int ran = iterate(t, random);
        if (ran < 0) return NULL;
        if (ran) break; /* no room for more nodes: the search ends here */
        done++;
        if (checking && done % CHECK_EVERY == 0 && check_line(t) < 0) return NULL;
        if (done % SIGNALS_EVERY == 0 && PyErr_CheckSignals() < 0) return NULL; /* Ctrl-C */
        if (timed && now_of(clock, &now) < 0) return NULL;
    }
    return PyLong_FromLongLong(done);
}

static int by_visits(const void *a, const void *b) {
    const Node *x = *(const Node *const *)a, *y = *(const Node *const *)b;
    if (x->visits != y->visits) return x->visits < y->visits ? 1 : -1;
    return x < y ? -1 : x > y; /* stable: the order of the children */
}

/* Tree.check: Mcts._check: the most visited root moves not proven, in turn (at most ``count``), until one is not
 * refuted; each refuted one is lost. */
static PyObject *Tree_check(Tree *t, PyObject *arg) {
    long count = PyLong_AsLong(arg);
    if ((count == -1 && PyErr_Occurred()) || !tree_free(t)) return NULL;
    const Node *root = &t->nodes[0];
    if (root->first < 0 || count <= 0) Py_RETURN_NONE;
    Node **ranked = PyMem_Malloc(sizeof(Node *) * (root->tried ? root->tried : 1));
    if (ranked == NULL) return PyErr_NoMemory();
    int n = 0;
    for (int32_t i = root->first; i < root->first + root->tried; i++)
        if (t->nodes[i].proven == UNPROVEN) ranked[n++] = &t->nodes[i];
    qsort(ranked, (size_t)n, sizeof(Node *), by_visits);
    int failed = 0;
    for (int k = 0; k < n && k < count; k++) {
        Node *child = ranked[k];
        if (child->checked) break;
        child->checked = 1;
        State after;
        play(&t->root, move_of(child), &after);
        int lost = refuted(&after, WIN_IN);
        if (lost <= 0) {
            failed = lost < 0;
            break;
        }
        child->proven = -1;
        prove_up(t, (int32_t)(child - t->nodes));
    }
    PyMem_Free(ranked);
    if (failed) return NULL;
    Py_RETURN_NONE;
}

/* Tree.decide: a fresh tree whose root's move is known (a win in one, or the solver's): that move, proven. */
static PyObject *Tree_decide(Tree *t, PyObject *const *args, Py_ssize_t nargs) {
    Move m, list[MOST_MOVES];
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "decide(move, value)");
        return NULL;
    }
    if (move_in(args[0], &m) < 0 || !tree_free(t)) return NULL;
    long value = PyLong_AsLong(args[1]);
    if (value == -1 && PyErr_Occurred()) return NULL;
    if (value < -1 || value > 1 || t->nodes[0].first >= 0) {
        PyErr_SetString(PyExc_ValueError, "decide: a value of -1, 0 or 1, on a tree not searched yet");
        return NULL;
    }
    int n = legal_moves(&t->root, list), legal = 0;
    for (int i = 0; i < n && !legal; i++)
        legal = list[i].symbol == m.symbol && list[i].dest == m.dest && list[i].pawn == m.pawn;
    if (!legal) {
        PyErr_SetString(PyExc_ValueError, "decide: not a legal move of the root");
        return NULL;
    }
    if (tree_reserve(t, 1) != 0) return NULL; /* room for one node: a fresh tree has it */
    Node *child = &t->nodes[1];
    node_init(child, m, 0);
    child->proven = (signed char)value;
    child->visits = 1;
    child->total = child->q = (double)value;
    child->u = 1.0;
    t->nodes[0].first = 1;
    t->nodes[0].moves = t->nodes[0].tried = 1;
    t->nodes[0].proven = (signed char)-value;
    t->used = 2;
    Py_RETURN_NONE;
}

static int index_in(Tree *t, PyObject *arg, int32_t *index) {
    long i = PyLong_AsLong(arg);
    if (i == -1 && PyErr_Occurred()) return -1;
    if (i < 0 || i >= t->used) {
        PyErr_SetString(PyExc_IndexError, "no such node in the tree");
        return -1;
    }
    *index = (int32_t)i;
    return 0;
}

/* Tree.reroot: the node ``index`` becomes the root (Mcts.search's ``tree``): its subtree is copied to the front of a
 * new array, the rest dropped, and the root's position played down to it. */
static PyObject *Tree_reroot(Tree *t, PyObject *arg) {
    int32_t index;
    if (index_in(t, arg, &index) < 0 || !tree_free(t)) return NULL;
    if (index == 0) Py_RETURN_NONE;
    int32_t parent = t->nodes[index].parent;
    if (index - t->nodes[parent].first >= t->nodes[parent].tried) {
        PyErr_SetString(PyExc_ValueError, "reroot: a move not searched yet");
        return NULL;
    }
    Move path[MOST_PLIES];
    int depth = 0;
    for (int32_t i = index; i > 0; i = t->nodes[i].parent) {
        if (depth == MOST_PLIES) { /* no game is longer: a tree cannot be deeper */
            PyErr_SetString(PyExc_SystemError, "reroot: a tree deeper than a game");
            return NULL;
        }
        path[depth++] = move_of(&t->nodes[i]);
    }
    Node *nodes = PyMem_Malloc(sizeof(Node) * (size_t)t->size);
    int32_t *from = PyMem_Malloc(sizeof(int32_t) * (size_t)t->size); /* each new node's old number */
    if (nodes == NULL || from == NULL) {
        PyMem_Free(nodes);
        PyMem_Free(from);
        return PyErr_NoMemory();
    }
    nodes[0] = t->nodes[index];
    nodes[0].parent = -1;
    from[0] = index;
    int32_t used = 1;
    for (int32_t k = 0; k < used; k++) { /* breadth first: each node's moves stay consecutive */
        const Node *old = &t->nodes[from[k]];
        if (old->first < 0) continue;
        nodes[k].first = used;
        for (int j = 0; j < old->moves; j++) {
            nodes[used + j] = t->nodes[old->first + j];
            nodes[used + j].parent = k;
            from[used + j] = old->first + j;
        }
        used += old->moves;
    }
    PyMem_Free(from);
    PyMem_Free(t->nodes);
    t->nodes = nodes;
    t->used = used;
    for (int d = depth - 1; d >= 0; d--) {
        State after;
        play(&t->root, path[d], &after);
        t->root = after;
    }
    t->generation++;
    Py_RETURN_NONE;
}

/* Tree.node: (move or None for the root, visits, total, proven or None, checked). */
static PyObject *Tree_node(Tree *t, PyObject *arg) {
    int32_t index;
    if (index_in(t, arg, &index) < 0) return NULL;
    const Node *n = &t->nodes[index];
    PyObject *move = index == 0 ? Py_NewRef(Py_None) : move_out(move_of(n));
    if (move == NULL) return NULL;
    PyObject *proven = n->proven == UNPROVEN ? Py_NewRef(Py_None) : PyFloat_FromDouble((double)n->proven);
    if (proven == NULL) {
        Py_DECREF(move);
        return NULL;
    }
    return Py_BuildValue("(NLdNO)", move, n->visits, n->total, proven, n->checked ? Py_True : Py_False);
}

/* Tree.children: the numbers of a node's children (its moves tried), in the order they were tried. */
static PyObject *Tree_children(Tree *t, PyObject *arg) {
    int32_t index;
    if (index_in(t, arg, &index) < 0) return NULL;
    const Node *n = &t->nodes[index];
    int tried = n->first < 0 ? 0 : n->tried;
    PyObject *out = PyList_New(tried);
    if (out == NULL) return NULL;
    for (int i = 0; i < tried; i++) {
        PyObject *k = PyLong_FromLong(n->first + i);
        if (k == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, k);
    }
    return out;
}

static PyObject *Tree_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *state;
    double exploration;
    int refute_new;
    long plies, tries, most = MOST_NODES;
    if (!PyArg_ParseTuple(args, "Odpll|l:Tree", &state, &exploration, &refute_new, &plies, &tries, &most)) return NULL;
    State s;
    if (state_in(state, &s) < 0) return NULL;
    if (!(exploration >= 0.0 && exploration < INFINITY) || plies < 0 || tries < 1 || most < 2 || most > MOST_NODES) {
        PyErr_Format(PyExc_ValueError, "Tree: exploration must be finite and at least 0, plies at least 0, tries at "
                                       "least 1, most_nodes from 2 to %d", MOST_NODES);
        return NULL;
    }
    Tree *t = (Tree *)type->tp_alloc(type, 0);
    if (t == NULL) return NULL;
    t->size = most < FIRST_NODES ? (int32_t)most : FIRST_NODES;
    t->most = (int32_t)most;
    t->busy = 0;
    t->nodes = PyMem_Malloc(sizeof(Node) * (size_t)t->size);
    if (t->nodes == NULL) {
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    t->used = 1;
    Move none = {0, 0, 0};
    node_init(&t->nodes[0], none, -1);
    t->root = s;
    t->exploration = exploration;
    t->refute_new = refute_new;
    t->plies = plies;
    t->tries = tries;
    t->generation = 0;
    return (PyObject *)t;
}

static void Tree_dealloc(Tree *t) {
    PyMem_Free(t->nodes);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

static Py_ssize_t Tree_len(Tree *t) { return (Py_ssize_t)t->used; }

static PyObject *Tree_get_state(Tree *t, void *closure) { return state_out(&t->root); }

static PyObject *Tree_get_generation(Tree *t, void *closure) { return PyLong_FromLongLong(t->generation); }

static PyMethodDef Tree_methods[] = {
    {"run", (PyCFunction)(void (*)(void))Tree_run, METH_FASTCALL,
     "run(random, iterations, deadline, check_line, clock): iterations until the budget, the deadline (on "
     "``clock()``, seconds), a proven root or a full tree; how many were done"},
    {"check", (PyCFunction)Tree_check, METH_O, "check(count): Mcts._check on the root's moves"},
    {"decide", (PyCFunction)(void (*)(void))Tree_decide, METH_FASTCALL,
     "decide(move, value): the root's move proven, without a search"},
    {"reroot", (PyCFunction)Tree_reroot, METH_O, "reroot(index): that node becomes the root; the rest is dropped"},
    {"node", (PyCFunction)Tree_node, METH_O, "node(index): (move, visits, total, proven, checked)"},
    {"children", (PyCFunction)Tree_children, METH_O, "children(index): the numbers of its children"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Tree_getset[] = {
    {"state", (getter)Tree_get_state, NULL, "the root's position", NULL},
    {"generation", (getter)Tree_get_generation, NULL, "how many times rerooted (node numbers change then)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PySequenceMethods Tree_as_sequence = {.sq_length = (lenfunc)Tree_len};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "olixono._oxono_fast.Tree",
    .tp_basicsize = sizeof(Tree),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Tree(state, exploration, refute_new, plies, tries, most_nodes=MOST_NODES): Mcts's search tree from "
              "``state``, searched in C.",
    .tp_new = Tree_new,
    .tp_dealloc = (destructor)Tree_dealloc,
    .tp_methods = Tree_methods,
    .tp_getset = Tree_getset,
    .tp_as_sequence = &Tree_as_sequence,
};

static PyMethodDef methods[] = {
    {"completions", py_completions, METH_O, "bot_oxono.completions"},
    {"winning_move", py_winning_move, METH_O, "bot_oxono.winning_move"},
    {"threatens", py_threatens, METH_O, "bot_oxono._threatens"},
    {"legal_moves", py_legal_moves, METH_O, "bot_oxono.legal_moves"},
    {"play", (PyCFunction)(void (*)(void))py_play, METH_FASTCALL, "bot_oxono.play"},
    {"evaluate", py_evaluate, METH_O, "bot_oxono.evaluate"},
    {"forced_win", (PyCFunction)(void (*)(void))py_forced_win, METH_FASTCALL, "bot_oxono.forced_win"},
    {"random_move", (PyCFunction)(void (*)(void))py_random_move, METH_FASTCALL, "bot_oxono.random_move"},
    {"playout", (PyCFunction)(void (*)(void))py_playout, METH_FASTCALL, "bot_oxono.playout"},
    {"solve", (PyCFunction)(void (*)(void))py_solve, METH_FASTCALL, "bot_oxono.solve, on a Table"},
    {"best_move", (PyCFunction)(void (*)(void))py_best_move, METH_FASTCALL, "bot_oxono.best_move, on a Table"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_oxono_fast", "The Oxono bot's hot helpers in C (see bot_oxono.py, the reference).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__oxono_fast(void) {
    make_tables();
    if (PyType_Ready(&TableType) < 0 || PyType_Ready(&TreeType) < 0) return NULL;
    PyObject *time = PyImport_ImportModule("time");
    if (time == NULL) return NULL;
    perf_counter = PyObject_GetAttrString(time, "perf_counter");
    Py_DECREF(time);
    if (perf_counter == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&TableType);
    if (PyModule_AddObject(m, "Table", (PyObject *)&TableType) < 0) {
        Py_DECREF(&TableType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&TreeType);
    if (PyModule_AddObject(m, "Tree", (PyObject *)&TreeType) < 0) {
        Py_DECREF(&TreeType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MOST_NODES", MOST_NODES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
