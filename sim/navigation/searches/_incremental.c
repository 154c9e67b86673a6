/* D* Lite in C: sim/navigation/searches/dstar_lite.py (the Python reference) step for step.
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
 *   - a key is (floor(((min(g, rhs) + h) + km) * TIE_SCALE), min(g, rhs)), ties then to the
 *     smaller flat cell; every cell is queued at most once, so the order is strict and this
 *     indexed heap pops exactly the sequence of the reference's heap of lazily deleted
 *     entries (an entry also records the epoch of its key, so a key is recomputed at the top
 *     only when the start moved since; the reference recomputes it and finds it equal);
 *   - the heuristic is h_factor * heuristic(|d col|, |d row|) as in heuristics.py;
 *   - g and rhs within NOISE of each other count as equal (`differ`), and a predecessor is
 *     requeued only when its rhs changed.
 *   - links (set_links: LinkGraph.csr both ways) are edges after the moves: a link s -> t is
 *     a successor of s (lookahead, the walk) and a predecessor of t (compute), costing its
 *     hop, usable while both ends are open; a changed cell also repairs the starts of the
 *     links into it; the key's heuristic is lowered by the start's link bounds (plan's
 *     bound_cells / bound_offsets: LinkGraph.bounds(start, reverse=True)), as `_h` does.
 * Bit-identical sums need the compiler not to fuse a * b + c into one FMA instruction (which
 * rounds once instead of twice); the pragmas of ../_common.h forbid that on GCC and Clang.
 *
 * Speed: one 32-byte record per cell (CellState), no Python object per cell, a 4-ary heap
 * compared on integer bits; the snapshot diff compares 4 KiB chunks with memcmp and looks into
 * a chunk only when it differs, so an unchanged 512 x 512 grid costs a few tens of
 * microseconds. The GIL is released while planning; a Planner refuses a second
 * call while one runs (RuntimeError) instead of racing on its state.
 */
#include "_search_common.h"

#define CHUNK 4096             /* cells compared per memcmp in the snapshot diff */
#define NOISE 5.684341886080802e-14 /* 2**-44, as dstar_lite.NOISE */

enum { PLAN_OK = 0, PLAN_NO_MEMORY = -1 };
enum { WALK_FOUND = 1, WALK_UNREACHABLE = 0, WALK_FAILED = -2 };

/* A queue entry: the key (k1 floored, k2) as bits_of gives them, and the cell. */
typedef struct {
    uint64_t k1, k2;
    int32_t cell;
    uint32_t epoch; /* Planner.epoch when keyed: the key is current while they match */
} Entry;

/* The order of the reference's (k1, k2, cell) entries (see key_less). */
static inline int entry_less(const Entry *a, const Entry *b) {
    return key_less(a->k1, a->k2, a->cell, b->k1, b->k2, b->cell);
}

/* Everything the search reads and writes about one cell, in one 32-byte record: a cell and
 * its neighbours are then a few cache lines, not a few per array (measured 1.4 times faster
 * than separate g, rhs and slot arrays on the 512 x 512 maps). */
typedef struct {
    double g, rhs;
    double cost;   /* what entering it costs (1.0 without costs); read only when open */
    int32_t slot;  /* its index in the heap, -1 when not queued */
    uint8_t open;  /* walkable */
    uint8_t mark;  /* 0 between calls: marks cells already listed for a repair */
} CellState;

typedef struct {
    PyObject_HEAD
    Py_ssize_t height, width, size;
    int diagonal, heuristic;
    int busy;          /* a plan is running (the GIL is released): refuse another */
    int has_snapshot;  /* `walkable` (and `costs`) hold the previous call's grid */
    int has_state;     /* g, rhs and the queue describe a search toward `goal` */
    uint8_t *walkable; /* snapshot, 0 or 1 per cell, for the diff */
    double *costs;     /* snapshot for the diff; NULL: 1 everywhere */
    CellState *cells;
    Entry *heap;
    Py_ssize_t count, capacity;
    int32_t *list; /* changed cells, then the cells to repair */
    int32_t *path; /* room for size + 1 cells */
    Py_ssize_t path_length;
    int32_t goal, start;
    long start_row, start_col;
    double km, h_factor;
    uint32_t epoch; /* counts the start's moves (km changes), wrapping before UINT32_MAX */
    Py_ssize_t expanded;
    /* Links (NULL without): CSR out of each cell and into it, as LinkGraph.csr gives them. */
    int32_t *out_first, *out_target, *in_first, *in_target;
    double *out_hop, *in_hop;
    /* The start's link bounds (LinkGraph.bounds), and the next start's until it is set. */
    int32_t *bound_cells, *next_cells;
    double *bound_d, *next_d;
    Py_ssize_t bound_count, next_count, bound_capacity;
} Planner;

/* ---- The queue: an indexed 4-ary heap ---- */

/* Four children a node: half the levels of a binary heap, and the children share a cache
 * line or two; measured faster than a binary heap here (the queue's keys sift a lot). */
#define ARITY 4

static inline void heap_place(Planner *p, Py_ssize_t index, Entry entry) {
    p->heap[index] = entry;
    p->cells[entry.cell].slot = (int32_t)index;
}

static void heap_sift_up(Planner *p, Py_ssize_t index, Entry entry) {
    while (index > 0) {
        const Py_ssize_t parent = (index - 1) / ARITY;
        if (!entry_less(&entry, &p->heap[parent])) break;
        heap_place(p, index, p->heap[parent]);
        index = parent;
    }
    heap_place(p, index, entry);
}

static void heap_sift_down(Planner *p, Py_ssize_t index, Entry entry) {
    const Py_ssize_t count = p->count;
    for (;;) {
        const Py_ssize_t first = ARITY * index + 1;
        if (first >= count) break;
        const Py_ssize_t end = first + ARITY < count ? first + ARITY : count;
        Py_ssize_t best = first;
        for (Py_ssize_t child = first + 1; child < end; child++)
            if (entry_less(&p->heap[child], &p->heap[best])) best = child;
        if (!entry_less(&p->heap[best], &entry)) break;
        heap_place(p, index, p->heap[best]);
        index = best;
    }
    heap_place(p, index, entry);
}

/* Queue `cell` under `key`, or move it there if queued. 0 when out of memory. */
static int queue_set(Planner *p, int32_t cell, double k1, double k2) {
    const Entry entry = {bits_of(k1), bits_of(k2), cell, p->epoch};
    const int32_t index = p->cells[cell].slot;
    if (index >= 0) {
        const Entry old = p->heap[index];
        if (old.k1 == entry.k1 && old.k2 == entry.k2) {
            p->heap[index].epoch = p->epoch;
            return 1;
        }
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

/* Take the top entry out. The hole at the top first moves down to a leaf along the least
 * children, then the last entry sifts up from there: it belongs near the bottom, so that is
 * short, and it saves comparing it with the children at every level (as in _kernel.c). */
static void heap_remove_top(Planner *p) {
    const Entry last = p->heap[--p->count];
    const Py_ssize_t count = p->count;
    if (count == 0) return;
    Py_ssize_t hole = 0;
    for (;;) {
        const Py_ssize_t first = ARITY * hole + 1;
        if (first >= count) break;
        const Py_ssize_t end = first + ARITY < count ? first + ARITY : count;
        Py_ssize_t best = first;
        for (Py_ssize_t child = first + 1; child < end; child++)
            if (entry_less(&p->heap[child], &p->heap[best])) best = child;
        heap_place(p, hole, p->heap[best]);
        hole = best;
    }
    heap_sift_up(p, hole, last);
}

static void queue_remove(Planner *p, int32_t cell) {
    const int32_t index = p->cells[cell].slot;
    if (index < 0) return;
    p->cells[cell].slot = -1;
    if (index == 0) {
        heap_remove_top(p);
        return;
    }
    const Entry last = p->heap[--p->count];
    if (index == p->count) return;
    if (entry_less(&last, &p->heap[index]))
        heap_sift_up(p, index, last);
    else
        heap_sift_down(p, index, last);
}

/* ---- The grid: legal moves and costs ---- */

static inline double cost_of(const Planner *p, int32_t cell) { return p->cells[cell].cost; }

/* The legal moves from a cell: neighbours, their rows and columns, lengths (1 or SQRT2). */
typedef struct {
    int n;
    int32_t to[8];
    long row[8], col[8];
    double length[8];
} Moves;

static inline void add_move(Moves *m, int32_t to, long row, long col, double length) {
    m->to[m->n] = to;
    m->row[m->n] = row;
    m->col[m->n] = col;
    m->length[m->n++] = length;
}

/* The legal moves from `cell` at (row, col), in DIRECTIONS order, as `_moves` in the
 * reference. The rules are symmetric, so these are also the cells that may step onto it. */
static inline void moves_at(const Planner *p, int32_t cell, long row, long col, Moves *m) {
    const CellState *c = p->cells;
    m->n = 0;
    if (!c[cell].open) return;
    const long width = (long)p->width;
    const int up = row > 0 && c[cell - width].open;
    const int down = row + 1 < (long)p->height && c[cell + width].open;
    const int left = col > 0 && c[cell - 1].open;
    const int right = col + 1 < width && c[cell + 1].open;
    if (up) add_move(m, (int32_t)(cell - width), row - 1, col, 1.0);
    if (down) add_move(m, (int32_t)(cell + width), row + 1, col, 1.0);
    if (left) add_move(m, cell - 1, row, col - 1, 1.0);
    if (right) add_move(m, cell + 1, row, col + 1, 1.0);
    if (p->diagonal) {
        if (up && left && c[cell - width - 1].open)
            add_move(m, (int32_t)(cell - width - 1), row - 1, col - 1, SQRT2);
        if (up && right && c[cell - width + 1].open)
            add_move(m, (int32_t)(cell - width + 1), row - 1, col + 1, SQRT2);
        if (down && left && c[cell + width - 1].open)
            add_move(m, (int32_t)(cell + width - 1), row + 1, col - 1, SQRT2);
        if (down && right && c[cell + width + 1].open)
            add_move(m, (int32_t)(cell + width + 1), row + 1, col + 1, SQRT2);
    }
}

static inline void moves_of(const Planner *p, int32_t cell, Moves *m) {
    const long width = (long)p->width;
    moves_at(p, cell, cell / width, cell % width, m);
}

/* min(c(cell, s') + g[s']) over the legal moves from `cell`; INFINITY if none. */
static double lookahead(const Planner *p, int32_t cell) {
    Moves m;
    moves_of(p, cell, &m);
    double best = INFINITY;
    for (int i = 0; i < m.n; i++) {
        const double value = m.length[i] * cost_of(p, m.to[i]) + p->cells[m.to[i]].g;
        if (value < best) best = value;
    }
    if (p->out_first && p->cells[cell].open) {
        for (int32_t k = p->out_first[cell]; k < p->out_first[cell + 1]; k++) {
            const int32_t end = p->out_target[k];
            if (!p->cells[end].open) continue;
            const double value = p->out_hop[k] + p->cells[end].g;
            if (value < best) best = value;
        }
    }
    return best;
}

/* ---- D* Lite ---- */

/* The scaled heuristic between the start and (row, col). */
static inline double h_to_start(const Planner *p, long row, long col) {
    double h = p->h_factor *
               heuristic_of(p->heuristic, labs(col - p->start_col), labs(row - p->start_row));
    const long width = (long)p->width;
    for (Py_ssize_t i = 0; i < p->bound_count; i++) {
        const long b_row = p->bound_cells[i] / width, b_col = p->bound_cells[i] % width;
        const double via =
            p->h_factor * heuristic_of(p->heuristic, labs(col - b_col), labs(row - b_row)) +
            p->bound_d[i];
        if (via < h) h = via;
    }
    return h;
}

/* The next start's bounds become the start's (copied: a plan may start over after a repair). */
static void take_next_bounds(Planner *p) {
    if (p->next_count) {
        memcpy(p->bound_cells, p->next_cells, (size_t)p->next_count * sizeof(int32_t));
        memcpy(p->bound_d, p->next_d, (size_t)p->next_count * sizeof(double));
    }
    p->bound_count = p->next_count;
}

/* A copy of `count` int32 or float64 items of a contiguous buffer into `*into` (grown to
 * `capacity` items); 1, or 0 with an exception set. */
static int copy_array(PyObject *obj, char format, Py_ssize_t itemsize, Py_ssize_t count,
                      Py_ssize_t capacity, void **into, const char *name) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    if (view.itemsize != itemsize || !format_is(&view, format) ||
        (count >= 0 && view.len != count * itemsize)) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd contiguous '%c' items", name, count, format);
        PyBuffer_Release(&view);
        return 0;
    }
    void *grown = PyMem_RawRealloc(*into, (size_t)(capacity > 0 ? capacity : 1) * itemsize);
    if (grown == NULL) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return 0;
    }
    *into = grown;
    memcpy(grown, view.buf, (size_t)view.len);
    PyBuffer_Release(&view);
    return 1;
}

/* The key of the cell at (row, col): (floor(k1 * TIE_SCALE), k2), INFINITY twice if no path. */
static inline void key_at(const Planner *p, int32_t cell, long row, long col, double *k1,
                          double *k2) {
    const double g = p->cells[cell].g, rhs = p->cells[cell].rhs;
    const double m = rhs < g ? rhs : g;
    if (m == INFINITY) {
        *k1 = *k2 = INFINITY;
        return;
    }
    const double sum = m + h_to_start(p, row, col) + p->km;
    *k1 = floor(sum * TIE_SCALE);
    *k2 = m;
}

/* `differ`: whether g and rhs differ by more than float rounding (NOISE of the larger). */
static inline int differ(double g, double rhs) {
    if (g == rhs) return 0;
    if (g == INFINITY || rhs == INFINITY) return 1;
    return fabs(g - rhs) > NOISE * (g > rhs ? g : rhs);
}

/* Queue an inconsistent cell under its key now; take a consistent one out. 0: no memory. */
static inline int update_vertex_at(Planner *p, int32_t cell, long row, long col) {
    if (differ(p->cells[cell].g, p->cells[cell].rhs)) {
        double k1, k2;
        key_at(p, cell, row, col, &k1, &k2);
        return queue_set(p, cell, k1, k2);
    }
    queue_remove(p, cell);
    return 1;
}

static int update_vertex(Planner *p, int32_t cell) {
    const long width = (long)p->width;
    return update_vertex_at(p, cell, cell / width, cell % width);
}

static void set_start(Planner *p, int32_t start) {
    p->start = start;
    p->start_row = start / (long)p->width;
    p->start_col = start % (long)p->width;
}

static int start_over(Planner *p, int32_t start, int32_t goal, double h_factor) {
    for (Py_ssize_t i = 0; i < p->size; i++) {
        p->cells[i].g = INFINITY;
        p->cells[i].rhs = INFINITY;
        p->cells[i].slot = -1;
    }
    p->count = 0;
    p->has_state = 1;
    p->goal = goal;
    set_start(p, start);
    take_next_bounds(p);
    p->km = 0.0;
    p->h_factor = h_factor;
    p->cells[goal].rhs = 0.0;
    return update_vertex(p, goal);
}

static void move_start(Planner *p, int32_t start) {
    if (start == p->start) return;
    const long width = (long)p->width;
    p->km = p->km + h_to_start(p, start / width, start % width);
    /* Epochs run from 0 to UINT32_MAX - 1; UINT32_MAX marks every queued key stale when they
     * wrap, so that no old entry can pass for current. */
    if (++p->epoch == UINT32_MAX) {
        p->epoch = 0;
        for (Py_ssize_t i = 0; i < p->count; i++) p->heap[i].epoch = UINT32_MAX;
    }
    set_start(p, start);
    take_next_bounds(p);
}

static int compare_int32(const void *a, const void *b) {
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* `_repair`: the `changed` first cells of p->list; the list is reused for the cells to redo. */
static int repair(Planner *p, Py_ssize_t changed) {
    const long width = (long)p->width, height = (long)p->height;
    Py_ssize_t count = changed;
    CellState *c = p->cells;
    for (Py_ssize_t i = 0; i < changed; i++) c[p->list[i]].mark = 1;
    for (Py_ssize_t i = 0; i < changed; i++) {
        const int32_t cell = p->list[i];
        /* No move enters or leaves a blocked cell: it is done with at once. */
        if (!c[cell].open) c[cell].g = c[cell].rhs = INFINITY;
    }
    /* The neighbours go after the changed cells: every cell is in the list at most once (the
     * marks), so it never holds more than the grid's cells, its capacity. */
    for (Py_ssize_t i = 0; i < changed; i++) {
        const int32_t cell = p->list[i];
        const long row = cell / width, col = cell % width;
        for (long d_row = -1; d_row <= 1; d_row++) {
            for (long d_col = -1; d_col <= 1; d_col++) {
                const long r = row + d_row, k = col + d_col;
                if (r < 0 || r >= height || k < 0 || k >= width) continue;
                const int32_t near = (int32_t)(r * width + k);
                if (c[near].mark) continue;
                c[near].mark = 1;
                p->list[count++] = near;
            }
        }
        if (!p->in_first) continue;
        for (int32_t k = p->in_first[cell]; k < p->in_first[cell + 1]; k++) {
            const int32_t source = p->in_target[k];
            if (c[source].mark) continue;
            c[source].mark = 1;
            p->list[count++] = source;
        }
    }
    qsort(p->list, (size_t)count, sizeof(int32_t), compare_int32);
    int ok = 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        const int32_t cell = p->list[i];
        c[cell].mark = 0;
        if (!ok) continue;
        if (cell != p->goal) c[cell].rhs = lookahead(p, cell);
        ok = update_vertex(p, cell);
    }
    return ok;
}

/* `_compute`: pop and expand until the start is consistent and no key below its own is left
 * (keys one tie bucket above the start's included). 0 when out of memory. */
static int compute(Planner *p) {
    CellState *c = p->cells;
    const int32_t goal = p->goal;
    const long width = (long)p->width;
    Moves m;
    while (p->count > 0) {
        const Entry top = p->heap[0];
        const int32_t cell = top.cell;
        const CellState *start = &c[p->start];
        /* The start's key: h(start, start) is 0.0, added as the reference adds it. */
        const double start_m = start->rhs < start->g ? start->rhs : start->g;
        const double start_k1 =
            start_m == INFINITY ? INFINITY : floor((start_m + 0.0 + p->km) * TIE_SCALE);
        const int underconsistent = start->rhs > start->g && differ(start->g, start->rhs);
        /* top.k1 <= start_k1 + 1.0, on the bits (both non-negative; +inf is the largest). */
        if (!(top.k1 <= bits_of(start_k1 + 1.0) || underconsistent)) break;
        const long row = cell / width, col = cell % width;
        if (top.epoch != p->epoch) {
            /* Keyed before the start moved: the key may be stale (a lower bound). */
            double new_k1, new_k2;
            key_at(p, cell, row, col, &new_k1, &new_k2);
            const Entry moved = {bits_of(new_k1), bits_of(new_k2), cell, p->epoch};
            if (top.k1 < moved.k1 || (top.k1 == moved.k1 && top.k2 < moved.k2)) {
                heap_sift_down(p, 0, moved);
                continue;
            }
            p->heap[0].epoch = p->epoch;
        }
        p->expanded++;
        const double enter = c[cell].cost;
        moves_at(p, cell, row, col, &m);
        if (c[cell].g > c[cell].rhs) {
            /* Overconsistent: its cost is now known; offer it to each predecessor. */
            c[cell].g = c[cell].rhs;
            queue_remove(p, cell);
            const double g_cell = c[cell].g;
            for (int i = 0; i < m.n; i++) {
                const int32_t neighbour = m.to[i];
                if (neighbour == goal) continue;
                const double new_rhs = m.length[i] * enter + g_cell;
                if (!(new_rhs < c[neighbour].rhs)) continue;
                c[neighbour].rhs = new_rhs;
                if (!update_vertex_at(p, neighbour, m.row[i], m.col[i])) return 0;
            }
            if (p->in_first && c[cell].open) {
                for (int32_t k = p->in_first[cell]; k < p->in_first[cell + 1]; k++) {
                    const int32_t neighbour = p->in_target[k];
                    if (!c[neighbour].open || neighbour == goal) continue;
                    const double new_rhs = p->in_hop[k] + g_cell;
                    if (!(new_rhs < c[neighbour].rhs)) continue;
                    c[neighbour].rhs = new_rhs;
                    if (!update_vertex(p, neighbour)) return 0;
                }
            }
        } else {
            /* Underconsistent: its cost went up; predecessors that used it look again. */
            const double g_old = c[cell].g;
            c[cell].g = INFINITY;
            for (int i = 0; i < m.n; i++) {
                const int32_t neighbour = m.to[i];
                if (neighbour == goal || c[neighbour].rhs != m.length[i] * enter + g_old) continue;
                c[neighbour].rhs = lookahead(p, neighbour);
                if (!update_vertex_at(p, neighbour, m.row[i], m.col[i])) return 0;
            }
            if (p->in_first && c[cell].open) {
                for (int32_t k = p->in_first[cell]; k < p->in_first[cell + 1]; k++) {
                    const int32_t neighbour = p->in_target[k];
                    if (!c[neighbour].open || neighbour == goal) continue;
                    if (c[neighbour].rhs != p->in_hop[k] + g_old) continue;
                    c[neighbour].rhs = lookahead(p, neighbour);
                    if (!update_vertex(p, neighbour)) return 0;
                }
            }
            if (!update_vertex_at(p, cell, row, col)) return 0;
        }
    }
    return 1;
}

/* `_extract`: walk from the start to the goal into p->path. */
static int walk(Planner *p) {
    p->path_length = 0;
    if (p->cells[p->start].rhs == INFINITY) return WALK_UNREACHABLE;
    Moves m;
    int32_t cell = p->start;
    p->path[p->path_length++] = cell;
    while (cell != p->goal) {
        moves_of(p, cell, &m);
        int32_t best = -1;
        double best_value = INFINITY;
        for (int i = 0; i < m.n; i++) {
            const double value = m.length[i] * cost_of(p, m.to[i]) + p->cells[m.to[i]].g;
            if (value < best_value) {
                best = m.to[i];
                best_value = value;
            }
        }
        if (p->out_first && p->cells[cell].open) {
            for (int32_t k = p->out_first[cell]; k < p->out_first[cell + 1]; k++) {
                const int32_t end = p->out_target[k];
                if (!p->cells[end].open) continue;
                const double value = p->out_hop[k] + p->cells[end].g;
                if (value < best_value) {
                    best = end;
                    best_value = value;
                }
            }
        }
        /* p->path holds size + 1 cells: the reference gives up past size. */
        if (best < 0 || p->path_length > p->size) return WALK_FAILED;
        p->path[p->path_length++] = best;
        cell = best;
    }
    return WALK_FOUND;
}

/* `_take_snapshot`: store the grid; the cells that differ go to p->list, ascending, and get
 * their new walkability and cost in p->cells. A cell differs when its walkability flipped, or
 * it is walkable and its cost changed. Returns the count, or -1 when out of memory. */
static Py_ssize_t take_snapshot(Planner *p, const uint8_t *walkable, const double *costs) {
    const Py_ssize_t size = p->size;
    CellState *c = p->cells;
    if (!p->has_snapshot) {
        PyMem_RawFree(p->costs);
        p->costs = NULL;
        if (costs != NULL) {
            p->costs = PyMem_RawMalloc((size_t)size * sizeof(double));
            if (p->costs == NULL) return -1;
            memcpy(p->costs, costs, (size_t)size * sizeof(double));
        }
        memcpy(p->walkable, walkable, (size_t)size);
        for (Py_ssize_t i = 0; i < size; i++) {
            c[i].open = walkable[i] != 0;
            c[i].cost = costs ? costs[i] : 1.0;
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
            cost_differs =
                memcmp(old_costs + begin, costs + begin, (size_t)n * sizeof(double)) != 0;
        if (!walk_differs && !cost_differs) continue;
        for (Py_ssize_t i = begin; i < begin + n; i++) {
            const uint8_t now = walkable[i] != 0;
            int differs = now != p->walkable[i];
            if (!differs && now && cost_differs) {
                const double new_cost = costs ? costs[i] : 1.0;
                const double old_cost = old_costs ? old_costs[i] : 1.0;
                differs = new_cost != old_cost;
            }
            if (differs) {
                p->list[changed++] = (int32_t)i;
                c[i].open = now;
                c[i].cost = costs ? costs[i] : 1.0;
            }
        }
        memcpy(p->walkable + begin, walkable + begin, (size_t)n);
        if (costs != NULL && old_costs != NULL)
            memcpy(old_costs + begin, costs + begin, (size_t)n * sizeof(double));
    }
    if (new_snapshot != NULL) {
        p->costs = new_snapshot;
    } else if (costs == NULL && old_costs != NULL) {
        /* 1 everywhere from now on (each walkable cell that cost otherwise was changed). */
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
            if (p->out_first) {
                /* The cheaper of the move and a link, a tie to the move (`_path_cost`). */
                Moves m;
                moves_of(p, here, &m);
                double step = INFINITY;
                for (int j = 0; j < m.n; j++)
                    if (m.to[j] == there) step = m.length[j] * cost_of(p, there);
                for (int32_t k = p->out_first[here]; k < p->out_first[here + 1]; k++)
                    if (p->out_target[k] == there && p->cells[there].open && p->out_hop[k] < step)
                        step = p->out_hop[k];
                cost += step;
                continue;
            }
            const int diagonal_step =
                (here % width != there % width) && (here / width != there / width);
            cost += (diagonal_step ? SQRT2 : 1.0) * cost_of(p, there);
        }
        out.cost = cost;
    }
    return out;
}

/* ---- The Python type ---- */

static void planner_dealloc(Planner *self) {
    PyMem_RawFree(self->walkable);
    PyMem_RawFree(self->costs);
    PyMem_RawFree(self->cells);
    PyMem_RawFree(self->heap);
    PyMem_RawFree(self->list);
    PyMem_RawFree(self->path);
    PyMem_RawFree(self->out_first);
    PyMem_RawFree(self->out_target);
    PyMem_RawFree(self->out_hop);
    PyMem_RawFree(self->in_first);
    PyMem_RawFree(self->in_target);
    PyMem_RawFree(self->in_hop);
    PyMem_RawFree(self->bound_cells);
    PyMem_RawFree(self->bound_d);
    PyMem_RawFree(self->next_cells);
    PyMem_RawFree(self->next_d);
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
    if (!check_grid(height, width)) return NULL;
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
    /* Calloc: every mark starts 0; g, rhs, cost and slot are set before they are read. */
    self->cells = PyMem_RawCalloc(size, sizeof(CellState));
    self->list = PyMem_RawMalloc(size * sizeof(int32_t));
    self->path = PyMem_RawMalloc((size + 1) * sizeof(int32_t));
    if (!self->walkable || !self->cells || !self->list || !self->path) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    return (PyObject *)self;
}

PyDoc_STRVAR(set_links_doc,
             "set_links(out_first, out_target, out_hop, in_first, in_target, in_hop) -> None\n\n"
             "The links as LinkGraph.csr() and LinkGraph.csr(reverse=True) give them; once,\n"
             "before the first plan.");

static PyObject *planner_set_links(Planner *self, PyObject *args) {
    PyObject *objs[6];
    if (!PyArg_ParseTuple(args, "OOOOOO:set_links", &objs[0], &objs[1], &objs[2], &objs[3],
                          &objs[4], &objs[5]))
        return NULL;
    if (self->busy || self->has_state) {
        PyErr_SetString(PyExc_RuntimeError, "set_links before the first plan only");
        return NULL;
    }
    const Py_ssize_t size = self->size;
    for (int way = 0; way < 2; way++) {
        int32_t **first = way ? &self->in_first : &self->out_first;
        int32_t **target = way ? &self->in_target : &self->out_target;
        double **hop = way ? &self->in_hop : &self->out_hop;
        if (!copy_array(objs[3 * way], 'i', 4, size + 1, size + 1, (void **)first, "first"))
            return NULL;
        const int32_t edges = (*first)[size];
        int ok = (*first)[0] == 0 && edges >= 0;
        for (Py_ssize_t i = 0; ok && i < size; i++) ok = (*first)[i] <= (*first)[i + 1];
        if (ok) ok = copy_array(objs[3 * way + 1], 'i', 4, edges, edges, (void **)target, "target");
        if (ok) {
            for (int32_t k = 0; ok && k < edges; k++) ok = (*target)[k] >= 0 && (*target)[k] < size;
            if (!ok) PyErr_SetString(PyExc_ValueError, "a link target lies outside the grid");
        } else if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "first must rise from 0");
        }
        if (ok) ok = copy_array(objs[3 * way + 2], 'd', 8, edges, edges, (void **)hop, "hop");
        if (!ok) {
            /* Half set is no links at all. */
            PyMem_RawFree(self->out_first);
            PyMem_RawFree(self->in_first);
            self->out_first = self->in_first = NULL;
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

PyDoc_STRVAR(plan_doc,
             "plan(walkable, costs, start, goal, h_factor, *, fresh, bound_cells=None,\n"
             "     bound_offsets=None) -> (found, cells, cost, expanded, changed, repaired)\n\n"
             "DStarLite.plan of sim/navigation/searches/dstar_lite.py, in C; with links, the\n"
             "start's link bounds (LinkGraph.bounds(start, reverse=True): cells and D).");

static PyObject *planner_plan(Planner *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"", "", "", "", "", "fresh", "bound_cells", "bound_offsets", NULL};
    PyObject *walkable_obj, *costs_obj, *cells_obj = Py_None, *offsets_obj = Py_None;
    Py_ssize_t start, goal;
    double h_factor;
    int fresh = 0; /* optional only because the bounds are: the caller always says */
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOnnd|$pOO:plan", keywords, &walkable_obj,
                                     &costs_obj, &start, &goal, &h_factor, &fresh, &cells_obj,
                                     &offsets_obj))
        return NULL;
    const Py_ssize_t size = self->size;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Planner.plan is already running in another thread");
        return NULL;
    }
    self->next_count = 0;
    if (cells_obj != Py_None) {
        Py_buffer probe;
        if (PyObject_GetBuffer(cells_obj, &probe, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return NULL;
        const Py_ssize_t count = probe.itemsize ? probe.len / probe.itemsize : 0;
        PyBuffer_Release(&probe);
        const Py_ssize_t capacity = count > self->bound_capacity ? count : self->bound_capacity;
        if (!copy_array(cells_obj, 'i', 4, count, capacity, (void **)&self->next_cells,
                        "bound_cells") ||
            !copy_array(offsets_obj, 'd', 8, count, capacity, (void **)&self->next_d,
                        "bound_offsets"))
            return NULL;
        /* The start's own arrays grow with them (take_next_bounds copies into them). */
        int32_t *cells = PyMem_RawRealloc(self->bound_cells, (size_t)(capacity ? capacity : 1) * 4);
        if (cells == NULL) return PyErr_NoMemory();
        self->bound_cells = cells;
        double *d = PyMem_RawRealloc(self->bound_d, (size_t)(capacity ? capacity : 1) * 8);
        if (d == NULL) return PyErr_NoMemory();
        self->bound_d = d;
        self->bound_capacity = capacity;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (self->next_cells[i] < 0 || self->next_cells[i] >= size) {
                PyErr_SetString(PyExc_ValueError, "a bound cell lies outside the grid");
                return NULL;
            }
        }
        self->next_count = count;
    }
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
    PyObject *cells = path_cells(self->path, length, self->width);
    if (cells == NULL) return NULL;
    return Py_BuildValue("(ONdnnO)", out.walked == WALK_FOUND ? Py_True : Py_False, cells,
                         out.cost, self->expanded, out.changed,
                         out.repaired ? Py_True : Py_False);
}

static PyMethodDef planner_methods[] = {
    {"plan", (PyCFunction)(void (*)(void))planner_plan, METH_VARARGS | METH_KEYWORDS, plan_doc},
    {"set_links", (PyCFunction)planner_set_links, METH_VARARGS, set_links_doc},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PlannerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "sim.navigation.searches._incremental.Planner",
    .tp_basicsize = sizeof(Planner),
    .tp_dealloc = (destructor)planner_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("Planner(height, width, diagonal, heuristic): one agent's D* Lite state "
                        "(see sim/navigation/searches/incremental.py)."),
    .tp_methods = planner_methods,
    .tp_new = planner_new,
};

static void incremental_free(void *module) {
    (void)module;
    cached_ints_free();
}

static struct PyModuleDef incremental_module = {
    PyModuleDef_HEAD_INIT, "_incremental", "Compiled D* Lite (see incremental.py).", -1, NULL,
    NULL,                  NULL,           NULL,                                       incremental_free,
};

PyMODINIT_FUNC PyInit__incremental(void) {
    heuristics_init();
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
