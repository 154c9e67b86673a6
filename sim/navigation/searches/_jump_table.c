/* Jump tables (JPS+) in C: the build, the repair after an edit, and the search that reads them.
 * The contract and the ideas are in jump_table.py; this file holds the loops.
 *
 * The table is int16 [cell][8], directions clockwise from north (N, NE, E, SE, S, SW, W, NW):
 * for a walkable cell and a direction, v > 0 says the next jump point lies v legal steps away,
 * v <= 0 that -v legal steps lead to a wall with no jump point on the way. Blocked cells hold 0.
 * Rules: the Moving AI one (8-connected, a diagonal step needs both cells it passes between
 * walkable), with jump points as jps.py defines them: straight, a cell with a forced neighbour;
 * diagonal, a cell from which a straight scan along one of the two components finds one.
 *
 * After Rabin & Silva's JPS+ ("JPS+: An Extreme A* Speed Optimization for Static Uniform Cost
 * Grids", Game AI Pro 2, 2015) and Harabor & Grastien's offline JPS ("Improving Jump Point
 * Search", ICAPS 2014); written from those papers.
 */
#include "../_common.h"
#include "_flat_path.h"

#define DIRECTIONS 8
#define SQRT2 1.4142135623730951

static const int D_ROW[DIRECTIONS] = {-1, -1, 0, 1, 1, 1, 0, -1};
static const int D_COL[DIRECTIONS] = {0, 1, 1, 1, 0, -1, -1, -1};

typedef struct {
    const uint8_t *open;
    int16_t *table;
    long height, width;
} Grid;

static inline int open_at(const Grid *g, long row, long col) {
    return row >= 0 && row < g->height && col >= 0 && col < g->width &&
           g->open[row * g->width + col];
}

/* Whether moving in straight direction `d` into (row, col) finds a forced neighbour there. */
static inline int forced(const Grid *g, long row, long col, int d) {
    const long br = row - D_ROW[d], bc = col - D_COL[d];
    for (int turn = 2; turn <= 6; turn += 4) {
        const int p = (d + turn) & 7;
        if (open_at(g, row + D_ROW[p], col + D_COL[p]) && !open_at(g, br + D_ROW[p], bc + D_COL[p]))
            return 1;
    }
    return 0;
}

/* One value from the value of the next cell along the direction: one step more. */
static inline int16_t one_more(int16_t next) { return (int16_t)(next > 0 ? next + 1 : next - 1); }

/* Straight direction `d` along the line through (row, col) (a row for E/W, a column for N/S),
 * from its far end back; returns the entries written. */
static long straight_line(Grid *g, long row, long col, int d) {
    long r = D_ROW[d] ? (D_ROW[d] < 0 ? 0 : g->height - 1) : row;
    long c = D_COL[d] ? (D_COL[d] < 0 ? 0 : g->width - 1) : col;
    long written = 0;
    while (r >= 0 && r < g->height && c >= 0 && c < g->width) {
        int16_t v = 0;
        if (g->open[r * g->width + c]) {
            const long nr = r + D_ROW[d], nc = c + D_COL[d];
            if (!open_at(g, nr, nc))
                v = 0;
            else if (forced(g, nr, nc, d))
                v = 1;
            else
                v = one_more(g->table[(nr * g->width + nc) * DIRECTIONS + d]);
        }
        g->table[(r * g->width + c) * DIRECTIONS + d] = v;
        written++;
        r -= D_ROW[d];
        c -= D_COL[d];
    }
    return written;
}

/* The diagonal entry of (r, c) in direction `d`, from the entries of the next cell along it
 * (its straight ones must be up to date). */
static inline int16_t diagonal_entry(const Grid *g, long r, long c, int d) {
    const int dr = D_ROW[d], dc = D_COL[d];
    if (!g->open[r * g->width + c]) return 0;
    const long nr = r + dr, nc = c + dc;
    if (!(open_at(g, nr, nc) && open_at(g, r + dr, c) && open_at(g, r, c + dc))) return 0;
    const int16_t *next = &g->table[(nr * g->width + nc) * DIRECTIONS];
    const int vertical = dr < 0 ? 0 : 4, horizontal = dc > 0 ? 2 : 6;
    return next[vertical] > 0 || next[horizontal] > 0 ? 1 : one_more(next[d]);
}

/* Diagonal direction `d` along the line of cells (row + k * d) through (row, col), far end
 * first; the straight entries must be up to date. Returns the entries written. */
static long diagonal_line(Grid *g, long row, long col, int d) {
    const int dr = D_ROW[d], dc = D_COL[d];
    /* Walk to the far end along d, then back. */
    long steps = dr < 0 ? row : g->height - 1 - row;
    const long col_steps = dc < 0 ? col : g->width - 1 - col;
    if (col_steps < steps) steps = col_steps;
    long r = row + steps * dr, c = col + steps * dc, written = 0;
    while (r >= 0 && r < g->height && c >= 0 && c < g->width) {
        g->table[(r * g->width + c) * DIRECTIONS + d] = diagonal_entry(g, r, c, d);
        written++;
        r -= dr;
        c -= dc;
    }
    return written;
}

/* Diagonal direction `d` from (row, col) back against it, the cells beyond (row, col) along
 * `d` being up to date; once past row `last` (the last cell whose inputs changed) an entry
 * that comes out as it was ends the walk: every entry behind it is computed from it alone.
 * Returns the entries written. */
static long diagonal_run(Grid *g, long row, long col, int d, long last) {
    const int dr = D_ROW[d], dc = D_COL[d];
    long r = row, c = col, written = 0;
    while (r >= 0 && r < g->height && c >= 0 && c < g->width) {
        int16_t *entry = &g->table[(r * g->width + c) * DIRECTIONS + d];
        const int16_t v = diagonal_entry(g, r, c, d);
        const int past = dr < 0 ? r > last : r < last;
        if (past && v == *entry) break;
        *entry = v;
        written++;
        r -= dr;
        c -= dc;
    }
    return written;
}

/* Recompute the NE/SW entries on the anti-diagonal row + col == sum, or the NW/SE ones on the
 * diagonal row - col == diff. */
static long sum_line(Grid *g, long sum) {
    const long row = sum < g->width ? 0 : sum - (g->width - 1);
    return diagonal_line(g, row, sum - row, 1) + diagonal_line(g, row, sum - row, 5);
}

static long diff_line(Grid *g, long diff) {
    const long row = diff < 0 ? 0 : diff;
    return diagonal_line(g, row, row - diff, 7) + diagonal_line(g, row, row - diff, 3);
}

static int take_grid(PyObject *walkable_obj, PyObject *table_obj, Py_ssize_t height,
                     Py_ssize_t width, Py_buffer *walkable, Py_buffer *table, Grid *g) {
    if (height < 1 || width < 1 || height > INT16_MAX || width > INT16_MAX) {
        PyErr_Format(PyExc_ValueError, "jump tables take 1 to %d cells a side, got %zd x %zd",
                     (int)INT16_MAX, height, width);
        return 0;
    }
    if (PyObject_GetBuffer(walkable_obj, walkable, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    if (PyObject_GetBuffer(table_obj, table, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) <
        0) {
        PyBuffer_Release(walkable);
        return 0;
    }
    const Py_ssize_t size = height * width;
    if (walkable->len != size || !format_is(walkable, '?') || table->itemsize != 2 ||
        table->len != size * DIRECTIONS * 2 || !format_is(table, 'h') ||
        views_overlap(walkable, table)) {
        PyErr_Format(PyExc_ValueError,
                     "a jump table needs %zd bools and %zd separate int16 entries", size,
                     size * DIRECTIONS);
        PyBuffer_Release(table);
        PyBuffer_Release(walkable);
        return 0;
    }
    *g = (Grid){walkable->buf, table->buf, (long)height, (long)width};
    return 1;
}

PyDoc_STRVAR(build_doc,
             "build(walkable, height, width, table) -> None\n\n"
             "Fill table (int16, height * width * 8) from walkable. See jump_table.py.");

static PyObject *jt_build(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *table_obj;
    Py_ssize_t height, width;
    if (!PyArg_ParseTuple(args, "OnnO:build", &walkable_obj, &height, &width, &table_obj))
        return NULL;
    Py_buffer walkable, table;
    Grid g;
    if (!take_grid(walkable_obj, table_obj, height, width, &walkable, &table, &g)) return NULL;
    Py_BEGIN_ALLOW_THREADS
    for (long r = 0; r < g.height; r++) {
        straight_line(&g, r, 0, 2);
        straight_line(&g, r, 0, 6);
    }
    for (long c = 0; c < g.width; c++) {
        straight_line(&g, 0, c, 0);
        straight_line(&g, 0, c, 4);
    }
    for (long s = 0; s < g.height + g.width - 1; s++) sum_line(&g, s);
    for (long d = -(g.width - 1); d < g.height; d++) diff_line(&g, d);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&table);
    PyBuffer_Release(&walkable);
    Py_RETURN_NONE;
}

/* Widen the row span [lo, hi] of a diagonal line to take rows `from` to `to`. */
static inline void span(long *lo_hi, long from, long to) {
    if (from < lo_hi[0]) lo_hi[0] = from;
    if (to > lo_hi[1]) lo_hi[1] = to;
}

PyDoc_STRVAR(repair_doc,
             "repair(walkable, height, width, table, cells) -> int\n\n"
             "Recompute the lines of table that the flat `cells` (int64) can change, walkable\n"
             "holding their new values; returns the entries written. See jump_table.py.");

static PyObject *jt_repair(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *table_obj, *cells_obj;
    Py_ssize_t height, width;
    if (!PyArg_ParseTuple(args, "OnnOO:repair", &walkable_obj, &height, &width, &table_obj,
                          &cells_obj))
        return NULL;
    Py_buffer walkable, table, cells;
    Grid g;
    if (!take_grid(walkable_obj, table_obj, height, width, &walkable, &table, &g)) return NULL;
    if (PyObject_GetBuffer(cells_obj, &cells, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&table);
        PyBuffer_Release(&walkable);
        return NULL;
    }
    const long size = g.height * g.width, n = (long)(cells.len / 8);
    const int64_t *changed = cells.buf;
    int bad = !is_int64(&cells);
    for (long i = 0; !bad && i < n; i++) bad = changed[i] < 0 || changed[i] >= size;
    /* A flag per row and column (each recomputed whole, once), and per anti-diagonal and
     * diagonal the rows its changed inputs span (lo > hi: none). */
    const long lines = g.height + g.width - 1;
    uint8_t *marks = bad ? NULL : calloc((size_t)(g.height + g.width), 1);
    long *spans = bad || marks == NULL ? NULL : malloc(sizeof(long) * (size_t)lines * 4);
    if (spans == NULL) {
        free(marks);
        marks = NULL;
    }
    if (bad || marks == NULL) {
        PyBuffer_Release(&cells);
        PyBuffer_Release(&table);
        PyBuffer_Release(&walkable);
        if (bad) {
            PyErr_Format(PyExc_ValueError, "cells must be int64 flat cells below %ld", size);
            return NULL;
        }
        return PyErr_NoMemory();
    }
    uint8_t *rows = marks, *cols = rows + g.height;
    long *sums = spans, *diffs = spans + 2 * lines; /* [lo, hi] pairs; diffs by diff + width - 1 */
    for (long i = 0; i < 2 * lines; i++) spans[i] = i % 2 ? -1 : g.height;
    for (long i = 2 * lines; i < 4 * lines; i++) spans[i] = i % 2 ? -1 : g.height;
    long written = 0;
    int16_t *old = malloc(sizeof(int16_t) * (size_t)(g.height > g.width ? g.height : g.width) * 2);
    Py_BEGIN_ALLOW_THREADS
    /* A cell's walkability reaches the straight entries of its row and column, and of the rows
     * and columns beside them (forced neighbours), and the diagonal steps through and beside it. */
    for (long i = 0; i < n; i++) {
        const long r = (long)(changed[i] / g.width), c = (long)(changed[i] % g.width);
        for (long k = -1; k <= 1; k++) {
            if (r + k >= 0 && r + k < g.height) rows[r + k] = 1;
            if (c + k >= 0 && c + k < g.width) cols[c + k] = 1;
            if (r + c + k >= 0 && r + c + k < lines) span(&sums[2 * (r + c + k)], r - 1, r + 1);
            if (r - c + k > -g.width && r - c + k < g.height)
                span(&diffs[2 * (r - c + k + g.width - 1)], r - 1, r + 1);
        }
    }
    /* A straight entry that turns positive or not changes the diagonals through its cell. */
    for (int pass = 0; pass < 2 && old != NULL; pass++) {
        const long lines = pass == 0 ? g.height : g.width;
        const long length = pass == 0 ? g.width : g.height;
        const uint8_t *marked = pass == 0 ? rows : cols;
        const int first = pass == 0 ? 2 : 0, second = pass == 0 ? 6 : 4;
        for (long line = 0; line < lines; line++) {
            if (!marked[line]) continue;
            for (long k = 0; k < length; k++) {
                const long cell = pass == 0 ? line * g.width + k : k * g.width + line;
                old[2 * k] = g.table[cell * DIRECTIONS + first];
                old[2 * k + 1] = g.table[cell * DIRECTIONS + second];
            }
            written += straight_line(&g, pass == 0 ? line : 0, pass == 0 ? 0 : line, first);
            written += straight_line(&g, pass == 0 ? line : 0, pass == 0 ? 0 : line, second);
            for (long k = 0; k < length; k++) {
                const long cell = pass == 0 ? line * g.width + k : k * g.width + line;
                const int16_t *now = &g.table[cell * DIRECTIONS];
                if ((old[2 * k] > 0) != (now[first] > 0) ||
                    (old[2 * k + 1] > 0) != (now[second] > 0)) {
                    const long r = cell / g.width, c = cell % g.width;
                    span(&sums[2 * (r + c)], r, r);
                    span(&diffs[2 * (r - c + g.width - 1)], r, r);
                }
            }
        }
    }
    if (old != NULL) {
        for (long s = 0; s < lines; s++) {
            /* The rows of anti-diagonal s: r + c == s inside the grid. */
            const long top = s < g.width ? 0 : s - (g.width - 1);
            const long bottom = s < g.height ? s : g.height - 1;
            const long lo = sums[2 * s] < top ? top : sums[2 * s];
            const long hi = sums[2 * s + 1] > bottom ? bottom : sums[2 * s + 1];
            if (lo > hi) continue;
            written += diagonal_run(&g, lo, s - lo, 1, hi);  /* NE: back is down-left */
            written += diagonal_run(&g, hi, s - hi, 5, lo);  /* SW: back is up-right */
        }
        for (long d = -(g.width - 1); d < g.height; d++) {
            const long *at = &diffs[2 * (d + g.width - 1)];
            const long top = d < 0 ? 0 : d;
            const long bottom = g.width - 1 + d < g.height - 1 ? g.width - 1 + d : g.height - 1;
            const long lo = at[0] < top ? top : at[0], hi = at[1] > bottom ? bottom : at[1];
            if (lo > hi) continue;
            written += diagonal_run(&g, lo, lo - d, 7, hi);  /* NW: back is down-right */
            written += diagonal_run(&g, hi, hi - d, 3, lo);  /* SE: back is up-left */
        }
    }
    Py_END_ALLOW_THREADS
    free(marks);
    free(spans);
    PyBuffer_Release(&cells);
    PyBuffer_Release(&table);
    PyBuffer_Release(&walkable);
    if (old == NULL) return PyErr_NoMemory();
    free(old);
    return PyLong_FromLong(written);
}

/* The search's state, kept between calls: a cell's entries are valid when its stamp is this
 * search's (odd: seen, even + 1: closed), so nothing is cleared between searches. */
typedef struct {
    double g;
    int32_t parent;
    int8_t arrival;
} CellState;

typedef struct {
    long size;
    uint16_t stamp;
    uint16_t *stamps; /* apart from the rest: 2 bytes a cell stay in cache where 16 do not */
    CellState *state;
    struct Node {
        double f, h;
        int32_t cell;
    } *heap;
    long heap_cap;
} Workspace;

static Workspace ws;
static const int16_t *ws_table; /* the table of the search running, for prefetches */

/* The landmark heuristic of the search running (offline.py): int32 fields [cell][lm_count] in
 * units of lm_unit cells, FIELD_NONE where a landmark is not reached; the goal's value of each
 * landmark that reaches it. lm_terms == 0: octile alone. */
#define FIELD_NONE INT32_MAX
#define MAX_LANDMARKS 32
static const int32_t *lm_fields;
static long lm_count;
static int lm_terms;
static int lm_index[MAX_LANDMARKS];
static int32_t lm_goal[MAX_LANDMARKS];
static double lm_unit;

static void ws_free(void *module) {
    (void)module;
    free(ws.stamps);
    free(ws.state);
    free(ws.heap);
    ws = (Workspace){0};
}

static int ws_ready(long size) {
    if (ws.size < size) {
        ws_free(NULL);
        ws.stamps = calloc((size_t)size, sizeof *ws.stamps);
        ws.state = malloc((size_t)size * sizeof *ws.state);
        ws.heap_cap = 1024;
        ws.heap = malloc((size_t)ws.heap_cap * sizeof *ws.heap);
        if (!ws.stamps || !ws.state || !ws.heap) {
            ws_free(NULL);
            return 0;
        }
        ws.size = size;
    }
    if (ws.stamp >= UINT16_MAX - 4) {
        memset(ws.stamps, 0, (size_t)ws.size * sizeof *ws.stamps);
        ws.stamp = 0;
    }
    ws.stamp += 2;
    return 1;
}

static inline int node_before(const struct Node *a, const struct Node *b) {
    if (a->f != b->f) return a->f < b->f;
    if (a->h != b->h) return a->h < b->h;
    return a->cell < b->cell;
}

static int heap_push(long *count, struct Node node) {
    if (*count == ws.heap_cap) {
        struct Node *grown = realloc(ws.heap, (size_t)ws.heap_cap * 2 * sizeof *grown);
        if (grown == NULL) return 0;
        ws.heap = grown;
        ws.heap_cap *= 2;
    }
    long i = (*count)++;
    while (i > 0 && node_before(&node, &ws.heap[(i - 1) / 2])) {
        ws.heap[i] = ws.heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    ws.heap[i] = node;
    return 1;
}

static struct Node heap_pop(long *count) {
    struct Node top = ws.heap[0], last = ws.heap[--*count];
    long i = 0;
    for (;;) {
        long child = 2 * i + 1;
        if (child >= *count) break;
        if (child + 1 < *count && node_before(&ws.heap[child + 1], &ws.heap[child])) child++;
        if (!node_before(&ws.heap[child], &last)) break;
        ws.heap[i] = ws.heap[child];
        i = child;
    }
    ws.heap[i] = last;
    return top;
}

static inline double octile(long dr, long dc) {
    if (dr < 0) dr = -dr;
    if (dc < 0) dc = -dc;
    const long lo = dr < dc ? dr : dc, hi = dr < dc ? dc : dr;
    return (double)(hi - lo) + SQRT2 * (double)lo;
}

static inline int sign(long x) { return (x > 0) - (x < 0); }

/* Octile raised by the landmarks that reach both `cell` and the goal: |q(goal) - q(cell)| units
 * (each a lower bound, 1-Lipschitz: offline.py proves it), exact in double. */
static inline double heuristic(long cell, long w, long gr, long gc) {
    double h = octile(cell / w - gr, cell % w - gc);
    const int32_t *row = lm_fields + cell * lm_count;
    for (int t = 0; t < lm_terms; t++) {
        const int32_t v = row[lm_index[t]];
        if (v == FIELD_NONE) continue;
        const double gap = (double)llabs((long long)lm_goal[t] - (long long)v) * lm_unit;
        if (gap > h) h = gap;
    }
    return h;
}

/* How far a straight jump in direction `d` goes from a cell with table entry `v`, the goal
 * lying (dr, dc) away: to the goal when it lies on the ray no farther than the wall or the next
 * jump point, else to that jump point; 0 for none. */
static inline long straight_steps(const Grid *g, long v, int d, long dr, long dc) {
    (void)g;
    const long along = D_ROW[d] ? dr * D_ROW[d] : dc * D_COL[d];
    const long across = D_ROW[d] ? dc : dr;
    if (across == 0 && along > 0 && along <= (v > 0 ? v : -v)) return along;
    return v > 0 ? v : 0;
}

/* Queue `next` at `new_cost` through `parent`, reached moving in direction `arrival`, unless
 * it is closed or queued as cheap already; 0 when out of memory. */
static inline int relax(long *count, long next, double new_cost, long parent, int arrival, long w,
                        long gr, long gc) {
    const uint16_t seen = (uint16_t)(ws.stamp - 1), closed = ws.stamp;
    const uint16_t stamp = ws.stamps[next];
    if (stamp == closed) return 1;
    if (stamp == seen && new_cost >= ws.state[next].g) return 1;
    ws.stamps[next] = seen;
    ws.state[next] = (CellState){new_cost, (int32_t)parent, (int8_t)arrival};
    const double h = heuristic(next, w, gr, gc);
    /* Its entries are read when it comes off the frontier: often soon, and a miss otherwise. */
    __builtin_prefetch(&ws_table[next * DIRECTIONS]);
    return heap_push(count, (struct Node){new_cost + h, h, (int32_t)next});
}

/* A* over jump points; SEARCH result: 1 found, 0 none, -1 out of memory. */
static int run(const Grid *g, long start, long goal, long *expanded) {
    const long w = g->width, gr = goal / w, gc = goal % w;
    long count = 0;
    const uint16_t seen = (uint16_t)(ws.stamp - 1), closed = ws.stamp;
    ws.stamps[start] = seen;
    ws.state[start] = (CellState){0.0, -1, -1};
    const double h0 = heuristic(start, w, gr, gc);
    if (!heap_push(&count, (struct Node){h0, h0, (int32_t)start})) return -1;
    while (count > 0) {
        const struct Node node = heap_pop(&count);
        const long current = node.cell;
        if (ws.stamps[current] == closed) continue;
        ws.stamps[current] = closed;
        const CellState *st = &ws.state[current];
        (*expanded)++;
        if (current == goal) return 1;
        const long r = current / w, c = current % w;
        const double g0 = st->g;
        const int a = st->arrival;
        unsigned directions;
        if (a < 0) {
            directions = 0xFF;
        } else if (a & 1) {
            directions = (1u << a) | (1u << ((a + 7) & 7)) | (1u << ((a + 1) & 7));
        } else {
            directions = 1u << a;
            for (int turn = 2; turn <= 6; turn += 4) {
                const int p = (a + turn) & 7;
                if (open_at(g, r + D_ROW[p], c + D_COL[p]) &&
                    !open_at(g, r - D_ROW[a] + D_ROW[p], c - D_COL[a] + D_COL[p]))
                    directions |= (1u << p) | (1u << ((a + (turn == 2 ? 1 : 7)) & 7));
            }
        }
        const int16_t *entry = &g->table[current * DIRECTIONS];
        for (int d = 0; d < DIRECTIONS; d++) {
            if (!(directions & (1u << d))) continue;
            if (!(d & 1)) {
                const long steps = straight_steps(g, entry[d], d, gr - r, gc - c);
                if (steps > 0 && !relax(&count, current + steps * (D_ROW[d] * w + D_COL[d]),
                                        g0 + (double)steps, current, d, w, gr, gc))
                    return -1;
                continue;
            }
            /* Along the diagonal from one diagonal jump point to the next, queueing the straight
             * jump points each finds (costed through it, parent the expanded cell) instead of
             * the diagonal jump point itself: the pruning of Harabor & Grastien (ICAPS 2014). */
            const int vertical = D_ROW[d] < 0 ? 0 : 4, horizontal = D_COL[d] > 0 ? 2 : 6;
            long at = current, travelled = 0;
            for (;;) {
                const long v = g->table[at * DIRECTIONS + d], reach = v > 0 ? v : -v;
                const long dr = gr - at / w, dc = gc - at % w;
                if (sign(dr) == D_ROW[d] && sign(dc) == D_COL[d]) {
                    /* The goal's quadrant: where the diagonal meets the goal's row or column,
                     * the goal may lie straight ahead; that cell is queued as a jump point. */
                    const long meet = dr * D_ROW[d] < dc * D_COL[d] ? dr * D_ROW[d] : dc * D_COL[d];
                    if (meet <= reach) {
                        const long target = at + meet * (D_ROW[d] * w + D_COL[d]);
                        if (!relax(&count, target, g0 + (double)(travelled + meet) * SQRT2, current,
                                   d, w, gr, gc))
                            return -1;
                        break;
                    }
                }
                if (v <= 0) break;
                at += v * (D_ROW[d] * w + D_COL[d]);
                travelled += v;
                const double here = g0 + (double)travelled * SQRT2;
                const int16_t *jump = &g->table[at * DIRECTIONS];
                for (int k = 0; k < 2; k++) {
                    const int s = k == 0 ? vertical : horizontal;
                    const long steps = straight_steps(g, jump[s], s, gr - at / w, gc - at % w);
                    if (steps > 0 && !relax(&count, at + steps * (D_ROW[s] * w + D_COL[s]),
                                            here + (double)steps, current, s, w, gr, gc))
                        return -1;
                }
            }
        }
    }
    return 0;
}

/* (True, cells, cost, expanded) for the path the search found to `goal`: the jump points back
 * to the start, each hop laid out cell by cell, the cost summed step by step from the start as
 * find_path sums it (so equal cells cost the same to the last bit). */
static PyObject *found_path(const Grid *g, long goal, long expanded) {
    const long w = g->width;
    long length = 1;
    for (long cell = goal; ws.state[cell].parent >= 0; cell = ws.state[cell].parent) {
        const long p = ws.state[cell].parent;
        const long dr = labs(cell / w - p / w), dc = labs(cell % w - p % w);
        length += dr > dc ? dr : dc;
    }
    int32_t *path = malloc((size_t)length * sizeof *path);
    if (path == NULL) return PyErr_NoMemory();
    long index = length - 1;
    path[index] = (int32_t)goal;
    for (long cell = goal; ws.state[cell].parent >= 0; cell = ws.state[cell].parent) {
        /* A hop runs diagonally while both coordinates differ, then straight: the way the
         * search went. Laid out forward from the parent into its place before `cell`. */
        const long p = ws.state[cell].parent;
        long r = p / w, c = p % w;
        const long to_r = cell / w, to_c = cell % w;
        const long hop = labs(to_r - r) > labs(to_c - c) ? labs(to_r - r) : labs(to_c - c);
        index -= hop;
        path[index] = (int32_t)p;
        for (long k = 1; k < hop; k++) {
            r += sign(to_r - r);
            c += sign(to_c - c);
            path[index + k] = (int32_t)(r * w + c);
        }
    }
    double cost = 0.0;
    for (long i = 1; i < length; i++) {
        const int diagonal = path[i - 1] / w != path[i] / w && path[i - 1] % w != path[i] % w;
        cost += diagonal ? SQRT2 : 1.0;
    }
    /* The cells cross as a flat path, laid out as pairs when PathResult.cells is first read. */
    PyObject *answer = flat_answer(1, path, length, w, cost, expanded);
    free(path);
    return answer;
}

PyDoc_STRVAR(search_doc,
             "search(walkable, height, width, table, start, goal, compare=None, fields=None,\n"
             "       unit=1.0) -> (found, cells, cost, expanded) or None\n\n"
             "A* over the table's jump points from flat start to flat goal (both walkable);\n"
             "cells run cell by cell, cost summed step by step; None when compare (an array)\n"
             "holds other bytes than walkable. fields (int32 [cell][count], units of `unit`\n"
             "cells) raise the octile heuristic. See jump_table.py and offline.py.");

static PyObject *jt_search(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *table_obj, *compare_obj = Py_None, *fields_obj = Py_None;
    Py_ssize_t height, width, start, goal;
    double unit = 1.0;
    if (!PyArg_ParseTuple(args, "OnnOnn|OOd:search", &walkable_obj, &height, &width, &table_obj,
                          &start, &goal, &compare_obj, &fields_obj, &unit))
        return NULL;
    Py_buffer walkable, table, fields = {0};
    Grid g;
    if (!take_grid(walkable_obj, table_obj, height, width, &walkable, &table, &g)) return NULL;
    const long size = g.height * g.width;
    PyObject *result = NULL;
    lm_terms = 0;
    if (fields_obj != Py_None) {
        if (PyObject_GetBuffer(fields_obj, &fields, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyBuffer_Release(&table);
            PyBuffer_Release(&walkable);
            return NULL;
        }
        const long count = fields.itemsize == 4 ? (long)(fields.len / 4 / (size ? size : 1)) : 0;
        if (!format_is(&fields, 'i') || count < 1 || count > MAX_LANDMARKS ||
            fields.len != size * count * 4 || !(unit > 0.0)) {
            PyErr_Format(PyExc_ValueError,
                         "fields must be 1 to %d int32 per cell and unit positive",
                         MAX_LANDMARKS);
            PyBuffer_Release(&fields);
            PyBuffer_Release(&table);
            PyBuffer_Release(&walkable);
            return NULL;
        }
        lm_fields = fields.buf;
        lm_count = count;
        lm_unit = unit;
    }
    if (compare_obj != Py_None) {
        /* The table holds for the bytes it was built from only: a cell opened since can hide
         * a shorter path. Compared on every call (about 10 us for 512 x 512). */
        Py_buffer compare;
        if (PyObject_GetBuffer(compare_obj, &compare, PyBUF_C_CONTIGUOUS) < 0) {
            PyBuffer_Release(&table);
            PyBuffer_Release(&walkable);
            return NULL;
        }
        const int same = compare.len == size && memcmp(compare.buf, g.open, (size_t)size) == 0;
        PyBuffer_Release(&compare);
        if (!same) {
            PyBuffer_Release(&table);
            PyBuffer_Release(&walkable);
            Py_RETURN_NONE;
        }
    }
    if (start < 0 || goal < 0 || start >= size || goal >= size || !g.open[start] ||
        !g.open[goal]) {
        PyErr_SetString(PyExc_ValueError, "start and goal must be walkable cells of the grid");
    } else if (!ws_ready(size)) {
        PyErr_NoMemory();
    } else {
        long expanded = 0;
        ws_table = g.table;
        if (fields.buf != NULL) {
            for (long k = 0; k < lm_count; k++) {
                const int32_t v = lm_fields[goal * lm_count + k];
                if (v == FIELD_NONE) continue;
                lm_index[lm_terms] = (int)k;
                lm_goal[lm_terms++] = v;
            }
        }
        const int status = run(&g, (long)start, (long)goal, &expanded);
        if (status < 0) {
            PyErr_NoMemory();
        } else if (status == 0) {
            result = Py_BuildValue("(O()dl)", Py_False, INFINITY, expanded);
        } else {
            result = found_path(&g, (long)goal, expanded);
        }
    }
    lm_terms = 0;
    if (fields.buf != NULL) PyBuffer_Release(&fields);
    PyBuffer_Release(&table);
    PyBuffer_Release(&walkable);
    return result;
}

/* A binary heap of (value, cell) for `lower`'s propagation, on its own: `search`'s workspace
 * may hold another thread's search state only when the GIL is held, and `lower` lets it go.
 * An item is one word, value << 32 | cell (values below 2^31, cells below 2^32): one compare
 * orders it, and half the bytes of a pair move. */
typedef uint64_t Lowered;

static inline Lowered lowered_of(int64_t value, long cell) {
    return ((uint64_t)value << 32) | (uint64_t)(uint32_t)cell;
}

static int lowered_push(Lowered **heap, long *count, long *cap, Lowered item) {
    if (*count == *cap) {
        Lowered *grown = realloc(*heap, (size_t)(*cap * 2) * sizeof *grown);
        if (grown == NULL) return 0;
        *heap = grown;
        *cap *= 2;
    }
    long i = (*count)++;
    while (i > 0 && item < (*heap)[(i - 1) / 2]) {
        (*heap)[i] = (*heap)[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    (*heap)[i] = item;
    return 1;
}

/* Append `item` to a growable array; 0 when out of memory. */
static int lowered_push_back(Lowered **items, long *count, long *cap, Lowered item) {
    if (*count == *cap) {
        const long grown_cap = *cap ? *cap * 2 : 256;
        Lowered *grown = realloc(*items, (size_t)grown_cap * sizeof *grown);
        if (grown == NULL) return 0;
        *items = grown;
        *cap = grown_cap;
    }
    (*items)[(*count)++] = item;
    return 1;
}

static Lowered lowered_pop(Lowered *heap, long *count) {
    Lowered top = heap[0], last = heap[--*count];
    long i = 0;
    for (;;) {
        long child = 2 * i + 1;
        if (child >= *count) break;
        if (child + 1 < *count && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = last;
    return top;
}

PyDoc_STRVAR(lower_doc,
             "lower(walkable, height, width, fields, landmark, straight, diagonal, seeds) -> int\n\n"
             "Dijkstra from the flat cells `seeds` (int64) at their values in column `landmark`\n"
             "of fields (int32 [cell][count]), lowering every walkable cell to the least of its\n"
             "value and a neighbour's plus the step's units (straight, diagonal; Moving AI rule).\n"
             "Returns the values lowered. See offline.py.");

static PyObject *jt_lower(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *fields_obj, *seeds_obj;
    Py_ssize_t height, width, landmark;
    long long straight, diagonal;
    if (!PyArg_ParseTuple(args, "OnnOnLLO:lower", &walkable_obj, &height, &width, &fields_obj,
                          &landmark, &straight, &diagonal, &seeds_obj))
        return NULL;
    Py_buffer walkable, fields, seeds;
    if (PyObject_GetBuffer(walkable_obj, &walkable, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(fields_obj, &fields,
                           PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&walkable);
        return NULL;
    }
    if (PyObject_GetBuffer(seeds_obj, &seeds, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&fields);
        PyBuffer_Release(&walkable);
        return NULL;
    }
    const Py_ssize_t size = height * width;
    const long count = size > 0 && fields.itemsize == 4 ? (long)(fields.len / 4 / size) : 0;
    if (height < 1 || width < 1 || size > (Py_ssize_t)UINT32_MAX || walkable.len != size ||
        !format_is(&walkable, '?') ||
        !format_is(&fields, 'i') || count < 1 || fields.len != size * count * 4 ||
        landmark < 0 || landmark >= count || !is_int64(&seeds) ||
        straight < 1 || diagonal < straight || diagonal >= 2 * straight) {
        PyErr_SetString(PyExc_ValueError,
                         "lower needs a bool grid, int32 fields [cell][count], a landmark "
                         "column, units with straight <= diagonal < 2 straight and int64 seeds");
        PyBuffer_Release(&seeds);
        PyBuffer_Release(&fields);
        PyBuffer_Release(&walkable);
        return NULL;
    }
    const uint8_t *open = walkable.buf;
    int32_t *value = fields.buf;
    const int64_t *seed = seeds.buf;
    const long n_seeds = (long)(seeds.len / 8), w = (long)width, h = (long)height;
    long lowered = 0, n = 0, cap = 1024;
    int failed = 0;
    /* Dial's buckets: bucket k holds values in [k straight, (k + 1) straight). A step adds at
     * least `straight`, so a bucket's cells only fill later buckets, at most RING - 1 ahead;
     * every cell whose least value falls in bucket k is queued at that value before bucket k
     * is taken, its predecessor's bucket being earlier: Dijkstra's order without a heap. The
     * seeds, at any values, wait in a heap until their bucket comes. */
    enum { RING = 3 };
    Lowered *ring[RING] = {NULL};
    long ring_n[RING] = {0}, ring_cap[RING] = {0}, queued = 0;
    Lowered *heap = malloc((size_t)cap * sizeof *heap);
    Py_BEGIN_ALLOW_THREADS
    failed = heap == NULL;
    for (long i = 0; !failed && i < n_seeds; i++) {
        const int64_t cell = seed[i];
        if (cell < 0 || cell >= size || !open[cell]) continue;
        const int32_t v = value[cell * count + landmark];
        if (v != FIELD_NONE && !lowered_push(&heap, &n, &cap, lowered_of(v, cell))) failed = 1;
    }
    int64_t k = -1;
    while (!failed && (queued > 0 || n > 0)) {
        k = queued > 0 ? k + 1 : (int64_t)(heap[0] >> 32) / straight;
        const int b = (int)(k % RING);
        while (n > 0 && (int64_t)(heap[0] >> 32) / straight <= k) {
            const Lowered item = lowered_pop(heap, &n);
            if (!lowered_push_back(&ring[b], &ring_n[b], &ring_cap[b], item)) failed = 1;
            queued++;
        }
        for (long i = 0; !failed && i < ring_n[b]; i++) {
            const Lowered top = ring[b][i];
            const long cell = (long)(uint32_t)top;
            const int64_t top_value = (int64_t)(top >> 32);
            if (top_value != value[cell * count + landmark]) continue; /* lowered since */
            const long r = cell / w, c = cell % w;
            for (int d = 0; d < DIRECTIONS && !failed; d++) {
                const long nr = r + D_ROW[d], nc = c + D_COL[d];
                if (nr < 0 || nr >= h || nc < 0 || nc >= w || !open[nr * w + nc]) continue;
                /* Moving AI: a diagonal step needs both cells it passes between walkable. */
                if ((d & 1) && (!open[r * w + nc] || !open[nr * w + c])) continue;
                const int64_t next = top_value + ((d & 1) ? diagonal : straight);
                int32_t *at = &value[(nr * w + nc) * count + landmark];
                if (next >= (int64_t)*at || next >= FIELD_NONE) continue;
                *at = (int32_t)next;
                lowered++;
                const int nb = (int)((next / straight) % RING);
                if (!lowered_push_back(&ring[nb], &ring_n[nb], &ring_cap[nb],
                                       lowered_of(next, nr * w + nc)))
                    failed = 1;
                queued++;
            }
        }
        queued -= ring_n[b];
        ring_n[b] = 0;
    }
    Py_END_ALLOW_THREADS
    for (int i = 0; i < RING; i++) free(ring[i]);
    free(heap);
    PyBuffer_Release(&seeds);
    PyBuffer_Release(&fields);
    PyBuffer_Release(&walkable);
    if (failed) return PyErr_NoMemory();
    return PyLong_FromLong(lowered);
}

static PyMethodDef jt_methods[] = {
    {"build", jt_build, METH_VARARGS, build_doc},
    {"repair", jt_repair, METH_VARARGS, repair_doc},
    {"search", jt_search, METH_VARARGS, search_doc},
    {"lower", jt_lower, METH_VARARGS, lower_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef jt_module = {
    PyModuleDef_HEAD_INIT, "_jump_table", "Compiled jump tables (see jump_table.py).", -1,
    jt_methods,           NULL,          NULL,
    NULL,                 ws_free,
};

PyMODINIT_FUNC PyInit__jump_table(void) { return PyModule_Create(&jt_module); }
