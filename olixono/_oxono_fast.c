/* The Oxono bot's hot helpers in C: the same functions as olixono/bot_oxono.py, with the same results.
 *
 * bot_oxono.py is the reference: every function here returns exactly what its namesake there returns, for every
 * state, and draws the same random numbers in the same order (``random`` is the caller's own ``rng.random``), so a
 * seeded search makes the same moves with this module or without it (tests/test_bots_fast.py checks it). The solver
 * keeps its table of proven bounds in a ``Table`` object of its own (a fixed-size hash table) where the reference
 * keeps a dict; values are exact either way.
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

/* bot_oxono.playout */
static PyObject *py_playout(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    State s, after;
    long plies, tries;
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
    PyObject *random = args[1];
    double sign = 1.0;
    for (long ply = 0; ply < plies; ply++) {
        int threat = 0;
        for (long t = 0; t < tries; t++) {
            Move m, unused;
            if (random_move(&s, random, &m) < 0) return NULL;
            int result = play(&s, m, &after);
            if (result >= 0) return PyFloat_FromDouble(sign * (double)result);
            threat = winning_move(&after, &unused);
            if (!threat) break;
        }
        s = after;
        if (threat) return PyFloat_FromDouble(-sign);
        sign = -sign;
    }
    return PyFloat_FromDouble(sign * tanh(evaluate(&s) / 10.0));
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
    if (PyType_Ready(&TableType) < 0) return NULL;
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
    return m;
}
