/* D* Lite in C: sim/navigation/dstar_lite.py (the Python reference) step for step.
 *
 * A `Planner` keeps one agent's search between calls: the snapshot of the previous call's grid,
 * g and rhs of every cell (cost to the goal, and its one-step lookahead), and the queue of
 * inconsistent cells. `plan` diffs the grid it is given against the snapshot, repairs the cells
 * that changed and their neighbours, runs the search loop of the paper's optimized version
 * (Koenig & Likhachev 2002, Figure 4) and walks the path from the start. Everything the Python
 * reference computes is computed here by the same operations in the same order, so both return
 * the same cells, the same cost to the last bit and the same expansion count
 * (tests/unit/test_nav_incremental.py checks it):
 *   - moves are those of sim/navigation/moves.py, in DIRECTIONS order (up, down, left, right,
 *     then the diagonals up-left, up-right, down-left, down-right); a move s -> t costs
 *     length * cost[t], added to g as `length * cost + g`;
 *   - a key is (floor((min(g, rhs) + h) + km) * TIE_SCALE), min(g, rhs)), ties then to the
 *     smaller flat cell; every cell is queued at most once, so the order is strict and this
 *     indexed binary heap pops exactly the sequence of the reference's heap of lazily deleted
 *     entries;
 *   - the heuristic is h_factor * heuristic(|d col|, |d row|) as in heuristics.py.
 * Bit-identical sums need the compiler not to fuse a * b + c into one FMA instruction (which
 * rounds once instead of twice); the pragmas below forbid that on GCC and Clang.
 *
 * Speed: flat arrays, no Python object per cell; the snapshot diff compares 4 KiB chunks with
 * memcmp and looks into a chunk only when it differs, so an unchanged 512 x 512 grid costs a
 * few tens of microseconds. The GIL is released while planning; a Planner refuses a second
 * call while one runs (RuntimeError) instead of racing on its state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define TIE_SCALE 1073741824.0 /* 2**30, as search.TIE_SCALE */
#define CHUNK 4096             /* cells compared per memcmp in the snapshot diff */

enum { H_MANHATTAN = 0, H_OCTILE = 1, H_EUCLIDEAN = 2, H_CHEBYSHEV = 3, H_ZERO = 4 };
enum { PLAN_OK = 0, PLAN_NO_MEMORY = -1 };
enum { WALK_FOUND = 1, WALK_UNREACHABLE = 0, WALK_FAILED = -2 };

/* math.sqrt(2.0) and math.sqrt(2.0) - 1.0, computed at import as Python does. */
static double SQRT2;
static double SQRT2_MINUS_1;

/* heuristics.py, same operations in the same order (dx = column difference). */
static double heuristic_of(int kind, long dx, long dy) {
    switch (kind) {
        case H_MANHATTAN:
            return (double)(dx + dy);
        case H_OCTILE:
            if (dx < dy) {
                long t = dx;
                dx = dy;
                dy = t;
            }
            return (double)dx + SQRT2_MINUS_1 * (double)dy;
        case H_EUCLIDEAN:
            /* Exact integer squares, one correctly rounded sqrt: what math.hypot returns. */
            return sqrt((double)dx * (double)dx + (double)dy * (double)dy);
        case H_CHEBYSHEV:
            return (double)(dx > dy ? dx : dy);
        default:
            return 0.0;
    }
}

/* A queue entry: the key (k1 floored, k2) and the cell. */
typedef struct {
    double k1, k2;
    int32_t cell;
} Entry;

static inline int entry_less(const Entry *a, const Entry *b) {
    if (a->k1 != b->k1) return a->k1 < b->k1;
    if (a->k2 != b->k2) return a->k2 < b->k2;
    return a->cell < b->cell;
}

typedef struct {
    PyObject_HEAD
    Py_ssize_t height, width, size;
    int diagonal, heuristic;
    int busy;          /* a plan is running (the GIL is released): refuse another */
    int has_snapshot;  /* `walkable` (and `costs`) hold the previous call's grid */
    int has_state;     /* g, rhs and the queue describe a search toward `goal` */
    uint8_t *walkable; /* snapshot, 0 or 1 per cell */
    double *costs;     /* snapshot; NULL: 1 everywhere */
    double *g, *rhs;
    int32_t *slot; /* each cell's index in `heap`, -1 when not queued */
    Entry *heap;
    Py_ssize_t count, capacity;
    int32_t *list; /* changed cells, then the cells to repair */
    uint8_t *mark; /* all 0 between calls: marks cells already in `list` */
    int32_t *path;
    Py_ssize_t path_length, path_capacity;
    int32_t goal, start;
    long start_row, start_col;
    double km, h_factor;
    Py_ssize_t expanded;
} Planner;

/* ---- The queue: an indexed binary heap ---- */

static void heap_place(Planner *p, Py_ssize_t index, Entry entry) {
    p->heap[index] = entry;
    p->slot[entry.cell] = (int32_t)index;
}

static void heap_sift_up(Planner *p, Py_ssize_t index, Entry entry) {
    while (index > 0) {
        Py_ssize_t parent = (index - 1) / 2;
        if (!entry_less(&entry, &p->heap[parent])) break;
        heap_place(p, index, p->heap[parent]);
        index = parent;
    }
    heap_place(p, index, entry);
}

static void heap_sift_down(Planner *p, Py_ssize_t index, Entry entry) {
    for (;;) {
        Py_ssize_t child = 2 * index + 1;
        if (child >= p->count) break;
        if (child + 1 < p->count && entry_less(&p->heap[child + 1], &p->heap[child])) child++;
        if (!entry_less(&p->heap[child], &entry)) break;
        heap_place(p, index, p->heap[child]);
        index = child;
    }
    heap_place(p, index, entry);
}

/* Queue `cell` under `key`, or move it there if queued. 0 when out of memory. */
static int queue_set(Planner *p, int32_t cell, double k1, double k2) {
    Entry entry = {k1, k2, cell};
    int32_t index = p->slot[cell];
    if (index >= 0) {
        Entry old = p->heap[index];
        if (old.k1 == k1 && old.k2 == k2) return 1;
        if (entry_less(&entry, &old))
            heap_sift_up(p, index, entry);
        else
            heap_sift_down(p, index, entry);
        return 1;
    }
    if (p->count == p->capacity) {
        Py_ssize_t capacity = p->capacity ? 2 * p->capacity : 1024;
        if (capacity > p->size) capacity = p->size;
        Entry *grown = PyMem_RawRealloc(p->heap, (size_t)capacity * sizeof(Entry));
        if (grown == NULL) return 0;
        p->heap = grown;
        p->capacity = capacity;
    }
    heap_sift_up(p, p->count++, entry);
    return 1;
}

static void queue_remove(Planner *p, int32_t cell) {
    int32_t index = p->slot[cell];
    if (index < 0) return;
    p->slot[cell] = -1;
    Entry last = p->heap[--p->count];
    if (index == p->count) return;
    if (entry_less(&last, &p->heap[index]))
        heap_sift_up(p, index, last);
    else
        heap_sift_down(p, index, last);
}

/* ---- The grid: legal moves and costs ---- */

static inline double cost_of(const Planner *p, int32_t cell) {
    return p->costs ? p->costs[cell] : 1.0;
}

/* The legal moves from `cell`, in DIRECTIONS order, as `_moves` in the reference: `to`
 * receives the neighbours, `length` 1.0 or SQRT2; returns how many. The rules are symmetric,
 * so these are also the cells that may step onto `cell`. */
static int moves_of(const Planner *p, int32_t cell, int32_t to[8], double length[8]) {
    const uint8_t *open = p->walkable;
    if (!open[cell]) return 0;
    const long width = (long)p->width;
    const long row = cell / width, col = cell % width;
    const int up = row > 0 && open[cell - width];
    const int down = row + 1 < (long)p->height && open[cell + width];
    const int left = col > 0 && open[cell - 1];
    const int right = col + 1 < width && open[cell + 1];
    int n = 0;
    if (up) to[n] = (int32_t)(cell - width), length[n++] = 1.0;
    if (down) to[n] = (int32_t)(cell + width), length[n++] = 1.0;
    if (left) to[n] = cell - 1, length[n++] = 1.0;
    if (right) to[n] = cell + 1, length[n++] = 1.0;
    if (p->diagonal) {
        if (up && left && open[cell - width - 1])
            to[n] = (int32_t)(cell - width - 1), length[n++] = SQRT2;
        if (up && right && open[cell - width + 1])
            to[n] = (int32_t)(cell - width + 1), length[n++] = SQRT2;
        if (down && left && open[cell + width - 1])
            to[n] = (int32_t)(cell + width - 1), length[n++] = SQRT2;
        if (down && right && open[cell + width + 1])
            to[n] = (int32_t)(cell + width + 1), length[n++] = SQRT2;
    }
    return n;
}

/* min(c(cell, s') + g[s']) over the legal moves from `cell`; INFINITY if none. */
static double lookahead(const Planner *p, int32_t cell) {
    int32_t to[8];
    double length[8];
    const int n = moves_of(p, cell, to, length);
    double best = INFINITY;
    for (int i = 0; i < n; i++) {
        const double value = length[i] * cost_of(p, to[i]) + p->g[to[i]];
        if (value < best) best = value;
    }
    return best;
}

/* ---- D* Lite ---- */

static double h_between(const Planner *p, long row, long col, int32_t cell) {
    const long width = (long)p->width;
    const long cell_row = cell / width, cell_col = cell % width;
    return p->h_factor * heuristic_of(p->heuristic, labs(cell_col - col), labs(cell_row - row));
}

static void key_of(const Planner *p, int32_t cell, double *k1, double *k2) {
    const double g = p->g[cell], rhs = p->rhs[cell];
    const double m = rhs < g ? rhs : g;
    if (m == INFINITY) {
        *k1 = *k2 = INFINITY;
        return;
    }
    const double sum = m + h_between(p, p->start_row, p->start_col, cell) + p->km;
    *k1 = floor(sum * TIE_SCALE);
    *k2 = m;
}

/* Queue an inconsistent cell under its key now; take a consistent one out. */
static int update_vertex(Planner *p, int32_t cell) {
    if (p->g[cell] != p->rhs[cell]) {
        double k1, k2;
        key_of(p, cell, &k1, &k2);
        return queue_set(p, cell, k1, k2);
    }
    queue_remove(p, cell);
    return 1;
}

static void set_start(Planner *p, int32_t start) {
    p->start = start;
    p->start_row = start / (long)p->width;
    p->start_col = start % (long)p->width;
}

static int start_over(Planner *p, int32_t start, int32_t goal, double h_factor) {
    for (Py_ssize_t i = 0; i < p->size; i++) {
        p->g[i] = INFINITY;
        p->rhs[i] = INFINITY;
        p->slot[i] = -1;
    }
    p->count = 0;
    p->has_state = 1;
    p->goal = goal;
    set_start(p, start);
    p->km = 0.0;
    p->h_factor = h_factor;
    p->rhs[goal] = 0.0;
    return update_vertex(p, goal);
}

static void move_start(Planner *p, int32_t start) {
    if (start == p->start) return;
    p->km = p->km + h_between(p, p->start_row, p->start_col, start);
    set_start(p, start);
}

static int compare_int32(const void *a, const void *b) {
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* `_repair`: the `changed` first cells of p->list; the list is reused for the cells to redo. */
static int repair(Planner *p, Py_ssize_t changed) {
    const long width = (long)p->width, height = (long)p->height;
    Py_ssize_t count = changed;
    for (Py_ssize_t i = 0; i < changed; i++) p->mark[p->list[i]] = 1;
    for (Py_ssize_t i = 0; i < changed; i++) {
        const int32_t cell = p->list[i];
        /* No move enters or leaves a blocked cell: it is done with at once. */
        if (!p->walkable[cell]) p->g[cell] = p->rhs[cell] = INFINITY;
    }
    /* The neighbours go after the changed cells: every cell is in the list at most once (the
     * marks), so it never holds more than the grid's cells, its capacity. */
    for (Py_ssize_t i = 0; i < changed; i++) {
        const int32_t cell = p->list[i];
        const long row = cell / width, col = cell % width;
        for (long d_row = -1; d_row <= 1; d_row++) {
            for (long d_col = -1; d_col <= 1; d_col++) {
                const long r = row + d_row, c = col + d_col;
                if (r < 0 || r >= height || c < 0 || c >= width) continue;
                const int32_t near = (int32_t)(r * width + c);
                if (p->mark[near]) continue;
                p->mark[near] = 1;
                p->list[count++] = near;
            }
        }
    }
    qsort(p->list, (size_t)count, sizeof(int32_t), compare_int32);
    int ok = 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        const int32_t cell = p->list[i];
        p->mark[cell] = 0;
        if (!ok) continue;
        if (cell != p->goal) p->rhs[cell] = lookahead(p, cell);
        ok = update_vertex(p, cell);
    }
    return ok;
}

/* `_compute`: pop and expand until the start is consistent and no key below its own is left
 * (keys one tie bucket above the start's included). 0 when out of memory. */
static int compute(Planner *p) {
    double *g = p->g, *rhs = p->rhs;
    const int32_t goal = p->goal;
    int32_t to[8];
    double length[8];
    while (p->count > 0) {
        const Entry top = p->heap[0];
        const int32_t cell = top.cell, start = p->start;
        double start_k1, start_k2;
        key_of(p, start, &start_k1, &start_k2);
        if (!(top.k1 <= start_k1 + 1.0 || rhs[start] > g[start])) break;
        double new_k1, new_k2;
        key_of(p, cell, &new_k1, &new_k2);
        const Entry fresh_entry = {new_k1, new_k2, cell};
        if (top.k1 < new_k1 || (top.k1 == new_k1 && top.k2 < new_k2)) {
            /* Queued before km grew: only its key was stale. */
            heap_sift_down(p, 0, fresh_entry);
            continue;
        }
        p->expanded++;
        const double enter = cost_of(p, cell);
        const int n = moves_of(p, cell, to, length);
        if (g[cell] > rhs[cell]) {
            /* Overconsistent: its cost is now known; offer it to each predecessor. */
            g[cell] = rhs[cell];
            queue_remove(p, cell);
            const double g_cell = g[cell];
            for (int i = 0; i < n; i++) {
                const int32_t neighbour = to[i];
                if (neighbour != goal) {
                    const double new_rhs = length[i] * enter + g_cell;
                    if (new_rhs < rhs[neighbour]) rhs[neighbour] = new_rhs;
                }
                if (!update_vertex(p, neighbour)) return 0;
            }
        } else {
            /* Underconsistent: its cost went up; predecessors that used it look again. */
            const double g_old = g[cell];
            g[cell] = INFINITY;
            for (int i = 0; i < n; i++) {
                const int32_t neighbour = to[i];
                if (neighbour != goal && rhs[neighbour] == length[i] * enter + g_old)
                    rhs[neighbour] = lookahead(p, neighbour);
                if (!update_vertex(p, neighbour)) return 0;
            }
            if (!update_vertex(p, cell)) return 0;
        }
    }
    return 1;
}

/* `_extract`: walk from the start to the goal into p->path. */
static int walk(Planner *p) {
    p->path_length = 0;
    if (p->rhs[p->start] == INFINITY) return WALK_UNREACHABLE;
    int32_t to[8];
    double length[8];
    int32_t cell = p->start;
    p->path[p->path_length++] = cell;
    while (cell != p->goal) {
        const int n = moves_of(p, cell, to, length);
        int32_t best = -1;
        double best_value = INFINITY;
        for (int i = 0; i < n; i++) {
            const double value = length[i] * cost_of(p, to[i]) + p->g[to[i]];
            if (value < best_value) {
                best = to[i];
                best_value = value;
            }
        }
        /* p->path holds size + 1 cells: the reference gives up past size. */
        if (best < 0 || p->path_length > p->size) return WALK_FAILED;
        p->path[p->path_length++] = best;
        cell = best;
    }
    return WALK_FOUND;
}

/* `_take_snapshot`: store the grid; the cells that differ go to p->list, ascending. A cell
 * differs when its walkability flipped, or it is walkable and its cost changed. Returns the
 * count, or -1 when out of memory. */
static Py_ssize_t take_snapshot(Planner *p, const uint8_t *walkable, const double *costs) {
    const Py_ssize_t size = p->size;
    if (!p->has_snapshot) {
        memcpy(p->walkable, walkable, (size_t)size);
        if (costs != NULL) {
            p->costs = PyMem_RawMalloc((size_t)size * sizeof(double));
            if (p->costs == NULL) return -1;
            memcpy(p->costs, costs, (size_t)size * sizeof(double));
        }
        p->has_snapshot = 1;
        return 0;
    }
    double *old_costs = p->costs;
    double *new_snapshot = NULL;
    if (costs != NULL && old_costs == NULL) {
        /* Costs after none: the new snapshot is a copy; compare against 1 as we go. */
        new_snapshot = PyMem_RawMalloc((size_t)size * sizeof(double));
        if (new_snapshot == NULL) return -1;
        memcpy(new_snapshot, costs, (size_t)size * sizeof(double));
    }
    const int costs_may_differ = costs != NULL || old_costs != NULL;
    Py_ssize_t changed = 0;
    for (Py_ssize_t begin = 0; begin < size; begin += CHUNK) {
        const Py_ssize_t n = size - begin < CHUNK ? size - begin : CHUNK;
        const int walk_differs = memcmp(p->walkable + begin, walkable + begin, (size_t)n) != 0;
        int cost_differs = costs_may_differ;
        if (costs != NULL && old_costs != NULL)
            cost_differs = memcmp(old_costs + begin, costs + begin, (size_t)n * sizeof(double)) != 0;
        if (!walk_differs && !cost_differs) continue;
        for (Py_ssize_t i = begin; i < begin + n; i++) {
            const uint8_t now = walkable[i] != 0;
            int differs = now != p->walkable[i];
            if (!differs && now && cost_differs) {
                const double new_cost = costs ? costs[i] : 1.0;
                const double old_cost = old_costs ? old_costs[i] : 1.0;
                differs = new_cost != old_cost;
            }
            if (differs) p->list[changed++] = (int32_t)i;
        }
        memcpy(p->walkable + begin, walkable + begin, (size_t)n);
        if (costs != NULL && old_costs != NULL)
            memcpy(old_costs + begin, costs + begin, (size_t)n * sizeof(double));
    }
    if (new_snapshot != NULL) {
        p->costs = new_snapshot;
    } else if (costs == NULL && old_costs != NULL) {
        /* 1 everywhere from now on; blocked cells' costs are never read. */
        PyMem_RawFree(old_costs);
        p->costs = NULL;
    }
    return changed;
}

typedef struct {
    int status;
    int walked;
    int repaired;
    Py_ssize_t changed;
    double cost;
} Outcome;

/* The whole of `DStarLite.plan`; runs without the GIL. */
static Outcome run_plan(Planner *p, const uint8_t *walkable, const double *costs, int32_t start,
                        int32_t goal, double h_factor, int fresh) {
    Outcome out = {PLAN_OK, WALK_UNREACHABLE, 0, 0, INFINITY};
    const Py_ssize_t changed = take_snapshot(p, walkable, costs);
    if (changed < 0) {
        out.status = PLAN_NO_MEMORY;
        return out;
    }
    out.changed = changed;
    p->expanded = 0;
    out.repaired = p->has_state && !fresh && goal == p->goal && h_factor == p->h_factor;
    int ok;
    if (out.repaired) {
        /* The paper's order: raise km for the moved start, then repair the changed cells. */
        move_start(p, start);
        ok = repair(p, changed);
    } else {
        ok = start_over(p, start, goal, h_factor);
    }
    ok = ok && compute(p);
    if (ok) out.walked = walk(p);
    if (ok && out.walked == WALK_FAILED && out.repaired) {
        /* Only float rounding after a repair could leave a walk that does not reach the goal;
         * a fresh search cannot. */
        out.repaired = 0;
        ok = start_over(p, start, goal, h_factor) && compute(p);
        if (ok) out.walked = walk(p);
    }
    if (!ok) {
        /* The state is half updated: forget it, and the snapshot it was diffed against. */
        p->has_state = 0;
        p->has_snapshot = 0;
        out.status = PLAN_NO_MEMORY;
        return out;
    }
    if (out.walked == WALK_FOUND) {
        /* `_path_cost`: true step costs summed in path order, from 0.0. */
        const Py_ssize_t width = p->width;
        double cost = 0.0;
        for (Py_ssize_t i = 1; i < p->path_length; i++) {
            const int32_t here = p->path[i - 1], there = p->path[i];
            const int diagonal_step =
                (here % width != there % width) && (here / width != there / width);
            cost += (diagonal_step ? SQRT2 : 1.0) * cost_of(p, there);
        }
        out.cost = cost;
    }
    return out;
}

/* ---- The Python type ---- */

static int format_is(const Py_buffer *view, char code) {
    const char *f = view->format;
    if (f == NULL) return code == 'B';
    if (f[0] == '@' || f[0] == '=' || f[0] == '<' || f[0] == '|') {
        /* '<' is native only on little-endian machines. */
        if (f[0] == '<' && PY_BIG_ENDIAN) return 0;
        f++;
    }
    return f[0] == code && f[1] == '\0';
}

static PyObject *cell_pair(int32_t cell, Py_ssize_t width) {
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) return NULL;
    PyObject *row = PyLong_FromSsize_t(cell / width);
    PyTuple_SET_ITEM(pair, 0, row);
    PyObject *col = row == NULL ? NULL : PyLong_FromSsize_t(cell % width);
    PyTuple_SET_ITEM(pair, 1, col);
    if (col == NULL) {
        Py_DECREF(pair); /* also releases `row`; an empty item is skipped */
        return NULL;
    }
    return pair;
}

static void planner_dealloc(Planner *self) {
    PyMem_RawFree(self->walkable);
    PyMem_RawFree(self->costs);
    PyMem_RawFree(self->g);
    PyMem_RawFree(self->rhs);
    PyMem_RawFree(self->slot);
    PyMem_RawFree(self->heap);
    PyMem_RawFree(self->list);
    PyMem_RawFree(self->mark);
    PyMem_RawFree(self->path);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *planner_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    Py_ssize_t height, width;
    int diagonal, heuristic;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0) {
        PyErr_SetString(PyExc_TypeError, "Planner() takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "nnpi:Planner", &height, &width, &diagonal, &heuristic))
        return NULL;
    if (height <= 0 || width <= 0 || height > INT32_MAX / width) {
        PyErr_Format(PyExc_ValueError, "grid of %zd x %zd cells: need 1 to 2**31 - 1 cells",
                     height, width);
        return NULL;
    }
    if (heuristic < H_MANHATTAN || heuristic > H_ZERO) {
        PyErr_Format(PyExc_ValueError, "unknown heuristic code %d", heuristic);
        return NULL;
    }
    Planner *self = (Planner *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    const size_t size = (size_t)(height * width);
    self->height = height;
    self->width = width;
    self->size = height * width;
    self->diagonal = diagonal;
    self->heuristic = heuristic;
    self->walkable = PyMem_RawMalloc(size);
    self->g = PyMem_RawMalloc(size * sizeof(double));
    self->rhs = PyMem_RawMalloc(size * sizeof(double));
    self->slot = PyMem_RawMalloc(size * sizeof(int32_t));
    self->list = PyMem_RawMalloc(size * sizeof(int32_t));
    self->mark = PyMem_RawCalloc(size, 1);
    self->path = PyMem_RawMalloc((size + 1) * sizeof(int32_t));
    if (!self->walkable || !self->g || !self->rhs || !self->slot || !self->list || !self->mark ||
        !self->path) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

PyDoc_STRVAR(plan_doc,
             "plan(walkable, costs, start, goal, h_factor, *, fresh) -> "
             "(found, cells, cost, expanded, changed, repaired)\n\n"
             "DStarLite.plan of sim/navigation/dstar_lite.py, in C.");

static PyObject *planner_plan(Planner *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"", "", "", "", "", "fresh", NULL};
    PyObject *walkable_obj, *costs_obj;
    Py_ssize_t start, goal;
    double h_factor;
    int fresh;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOnnd$p:plan", keywords, &walkable_obj,
                                     &costs_obj, &start, &goal, &h_factor, &fresh))
        return NULL;
    const Py_ssize_t size = self->size;
    if (start < 0 || start >= size || goal < 0 || goal >= size) {
        PyErr_Format(PyExc_ValueError, "start %zd and goal %zd must be cells of the %zd", start,
                     goal, size);
        return NULL;
    }
    if (!(h_factor > 0.0 && h_factor <= 1.0)) {
        PyErr_SetString(PyExc_ValueError, "h_factor must be in (0, 1]");
        return NULL;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Planner.plan is already running in another thread");
        return NULL;
    }
    Py_buffer walkable_view, costs_view;
    const int have_costs = costs_obj != Py_None;
    if (PyObject_GetBuffer(walkable_obj, &walkable_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    /* Bool only: the snapshot diff compares bytes, which are then 0 or 1. */
    if (walkable_view.itemsize != 1 || walkable_view.len != size ||
        !format_is(&walkable_view, '?')) {
        PyErr_Format(PyExc_ValueError, "walkable must be %zd contiguous bools", size);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    if (have_costs) {
        if (PyObject_GetBuffer(costs_obj, &costs_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyBuffer_Release(&walkable_view);
            return NULL;
        }
        if (costs_view.itemsize != 8 || costs_view.len != size * 8 ||
            !format_is(&costs_view, 'd')) {
            PyErr_Format(PyExc_ValueError, "costs must be %zd contiguous float64 values", size);
            PyBuffer_Release(&costs_view);
            PyBuffer_Release(&walkable_view);
            return NULL;
        }
    }
    self->busy = 1;
    Outcome out;
    Py_BEGIN_ALLOW_THREADS
    out = run_plan(self, walkable_view.buf, have_costs ? costs_view.buf : NULL, (int32_t)start,
                   (int32_t)goal, h_factor, fresh);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    if (out.status == PLAN_NO_MEMORY) return PyErr_NoMemory();

    const Py_ssize_t length = out.walked == WALK_FOUND ? self->path_length : 0;
    PyObject *cells = PyTuple_New(length);
    if (cells == NULL) return NULL;
    for (Py_ssize_t i = 0; i < length; i++) {
        PyObject *pair = cell_pair(self->path[i], self->width);
        if (pair == NULL) {
            Py_DECREF(cells);
            return NULL;
        }
        PyTuple_SET_ITEM(cells, i, pair);
    }
    return Py_BuildValue("(ONdnnO)", out.walked == WALK_FOUND ? Py_True : Py_False, cells,
                         out.cost, self->expanded, out.changed,
                         out.repaired ? Py_True : Py_False);
}

static PyMethodDef planner_methods[] = {
    {"plan", (PyCFunction)(void (*)(void))planner_plan, METH_VARARGS | METH_KEYWORDS, plan_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PlannerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sim.navigation._incremental.Planner",
    .tp_basicsize = sizeof(Planner),
    .tp_dealloc = (destructor)planner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("Planner(height, width, diagonal, heuristic): one agent's D* Lite state "
                        "(see sim/navigation/incremental.py)."),
    .tp_methods = planner_methods,
    .tp_new = planner_new,
};

static struct PyModuleDef incremental_module = {
    PyModuleDef_HEAD_INIT, "_incremental", "Compiled D* Lite (see incremental.py).", -1, NULL,
    NULL,                  NULL,           NULL,                                       NULL,
};

PyMODINIT_FUNC PyInit__incremental(void) {
    SQRT2 = sqrt(2.0);
    SQRT2_MINUS_1 = SQRT2 - 1.0;
    if (PyType_Ready(&PlannerType) < 0) return NULL;
    PyObject *module = PyModule_Create(&incremental_module);
    if (module == NULL) return NULL;
    Py_INCREF(&PlannerType);
    if (PyModule_AddObject(module, "Planner", (PyObject *)&PlannerType) < 0) {
        Py_DECREF(&PlannerType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
