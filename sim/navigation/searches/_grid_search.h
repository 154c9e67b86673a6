/* What the compiled best-first grid searches share (`_kernel.c`, `_jps.c`): the frontier, the
 * per-cell search state, and the end of a search (its cost, its answer to Python). Each
 * extension includes it and gets its own copy (everything here is static; functions a file
 * does not use are inline, so unused ones raise no warning), with its own spare workspace. The
 * heuristics, key order, grid checks and path tuples come from _search_common.h, which
 * _incremental.c shares too.
 *
 * The frontier's order is that of sim/navigation/searches/best_first.py: priorities are
 * floor((g_weight * g + h) * TIE_SCALE), ties go to the smaller h, then to the smaller flat
 * cell index; bit-identical sums rest on ../_common.h's pragmas (no fused multiply-add).
 *
 * Speed (after pyastar2d): the search state of a cell is one 16-byte
 * record in a flat array; the frontier is a 4-ary heap with decrease-key and a one-node "hand"
 * (see Frontier); both live in a workspace reused across calls, and only the cells a search
 * touched are reset after it, so no call does work proportional to the whole grid.
 */
#ifndef SIM_GRID_SEARCH_H
#define SIM_GRID_SEARCH_H

#include "_search_common.h"

/* ---- The heap and the per-cell state (_kernel.c's `search` and `field`, _jps.c) ---- */

/* A frontier entry: priority and h as bits_of gives them, and the cell. */
typedef struct {
    uint64_t priority_bits;
    uint64_t h_bits;
    int32_t cell;
} Node;

/* The order of Python's (priority, h, cell) tuples (see key_less). */
static HOT_INLINE int node_less(const Node *a, const Node *b) {
    return key_less(a->priority_bits, a->h_bits, a->cell, b->priority_bits, b->h_bits, b->cell);
}

/* Where a cell stands: a heap index (>= 0) while it waits on the frontier, else one of these. */
enum { SLOT_NONE = -1, SLOT_HAND = -2, SLOT_CLOSED = -3 };

/* What a search knows about one cell, in one 16-byte record per cell rather than separate
 * g / came_from / closed arrays: a relaxation finds a neighbour's closed flag, g and heap slot
 * on one cache line. */
typedef struct {
    double cost_so_far; /* INFINITY until the cell is reached */
    int32_t came_from;
    int32_t slot; /* heap index, or SLOT_NONE / SLOT_HAND / SLOT_CLOSED */
} CellState;

static const CellState UNTOUCHED = {INFINITY, -1, SLOT_NONE};

typedef struct {
    Py_ssize_t size;  /* cells the arrays hold; a call may use any grid up to this size */
    CellState *state; /* search: every record UNTOUCHED between calls */
    int32_t *touched; /* search: the cells a call has queued, to reset after it */
    uint8_t *closed;  /* field: all 0 between calls (see run_field) */
    Node *heap;
    Py_ssize_t heap_capacity;
} Workspace;

/* One spare workspace; taken and given back under the GIL, so threads never share one. */
static Workspace *spare = NULL;

static inline void workspace_free(Workspace *ws) {
    if (ws == NULL) return;
    PyMem_RawFree(ws->state);
    PyMem_RawFree(ws->touched);
    PyMem_RawFree(ws->closed);
    PyMem_RawFree(ws->heap);
    PyMem_RawFree(ws);
}

static inline Workspace *workspace_take(Py_ssize_t size) {
    if (spare != NULL && spare->size >= size) {
        Workspace *ws = spare;
        spare = NULL;
        return ws;
    }
    Workspace *ws = PyMem_RawCalloc(1, sizeof(Workspace));
    if (ws == NULL) return NULL;
    ws->size = size;
    ws->state = PyMem_RawMalloc((size_t)size * sizeof(CellState));
    ws->touched = PyMem_RawMalloc((size_t)size * sizeof(int32_t));
    ws->closed = PyMem_RawCalloc((size_t)size, 1);
    ws->heap_capacity = 1024;
    ws->heap = PyMem_RawMalloc((size_t)ws->heap_capacity * sizeof(Node));
    if (!ws->state || !ws->touched || !ws->closed || !ws->heap) {
        workspace_free(ws);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < size; i++) ws->state[i] = UNTOUCHED;
    return ws;
}

static inline void workspace_give_back(Workspace *ws) {
    if (spare == NULL) {
        spare = ws;
    } else if (spare->size < ws->size) {
        workspace_free(spare);
        spare = ws;
    } else {
        workspace_free(ws);
    }
}

/* Room in the workspace's heap for `count` + `more` nodes; returns 0 when out of memory. The
 * loops call it once per expansion (at most 8 new nodes), which keeps the test out of every
 * push. */
static inline int heap_reserve(Workspace *ws, Py_ssize_t count, Py_ssize_t more) {
    if (count + more <= ws->heap_capacity) return 1;
    Py_ssize_t capacity = ws->heap_capacity * 2;
    Node *grown = PyMem_RawRealloc(ws->heap, (size_t)capacity * sizeof(Node));
    if (grown == NULL) return 0;
    ws->heap = grown;
    ws->heap_capacity = capacity;
    return 1;
}

/* A 4-ary min-heap of nodes: half as deep as a binary heap, so a pop walks through half as
 * many cache lines, at three comparisons per level instead of one (a search measured about
 * 7 % faster than with a binary heap). With `state`, each node's heap index is kept in its
 * cell's slot (for decrease-key, see Frontier); the field passes NULL and the compiler drops
 * those writes. */
#define ARITY 4

static HOT_INLINE void heap_place(Node *heap, CellState *state, Py_ssize_t i, Node node) {
    heap[i] = node;
    if (state) state[node.cell].slot = (int32_t)i;
}

/* Put `node` at heap index `i` or above: a new last entry, or an entry whose key dropped. */
static HOT_INLINE void heap_sift_up(Node *heap, CellState *state, Py_ssize_t i, Node node) {
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / ARITY;
        if (!node_less(&node, &heap[parent])) break;
        heap_place(heap, state, i, heap[parent]);
        i = parent;
    }
    heap_place(heap, state, i, node);
}

/* Take the least of `*count` > 0 nodes. The hole at the top first moves down to a leaf along
 * the least children, then the last node sifts up from there: it belongs near the bottom, so
 * that is short, and it saves comparing it with the children at every level. */
static HOT_INLINE Node heap_pop(Node *heap, CellState *state, Py_ssize_t *count) {
    Node top = heap[0];
    Node last = heap[--*count];
    const Py_ssize_t n = *count;
    if (n == 0) return top;
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t first = ARITY * i + 1, least;
        if (first + 3 < n) { /* all ARITY = 4 children: a two-round tournament */
            Py_ssize_t a = first + node_less(&heap[first + 1], &heap[first]);
            Py_ssize_t b = first + 2 + node_less(&heap[first + 3], &heap[first + 2]);
            least = node_less(&heap[b], &heap[a]) ? b : a;
        } else if (first < n) {
            least = first;
            for (Py_ssize_t child = first + 1; child < n; child++)
                if (node_less(&heap[child], &heap[least])) least = child;
        } else {
            break;
        }
        heap_place(heap, state, i, heap[least]);
        i = least;
    }
    heap_sift_up(heap, state, i, last);
    return top;
}

/* The frontier of `search`: the heap with decrease-key, plus one node held in a "hand" in
 * front of it.
 *
 * Python's heapq pushes a cell again each time its cost drops and skips the stale entries
 * when they come out (up to 40 % of all pops on the Moving AI mazes). Here a cell has at most
 * one entry, found through its `slot`, and a lower cost moves that entry up instead. Both pop
 * the cells in the same order: the entries left out are exactly the stale ones, each of which
 * sorts after (or equal to, being the same node) the live entry of its cell.
 *
 * The hand holds one queued node outside the heap: a new node takes it when it is empty or
 * when the new node sorts first (the one held then goes into the heap). A* very often pops next
 * a neighbour it has just queued (the same priority, a smaller h), and that node then never
 * enters the heap at all. A pop takes the lesser of the hand and the heap's top, so the order is
 * still that of one heap. */
typedef struct {
    Workspace *ws;
    CellState *state;
    Node *heap; /* ws->heap, re-read when frontier_reserve grows it */
    Py_ssize_t count;
    Node hand;
    int holding;
    Py_ssize_t touched_count; /* cells in ws->touched */
} Frontier;

static inline Frontier frontier_start(Workspace *ws) {
    Frontier f = {ws, ws->state, ws->heap, 0, {0, 0, 0}, 0, 0};
    return f;
}

static HOT_INLINE int frontier_empty(const Frontier *f) { return !f->holding && f->count == 0; }

static inline int frontier_reserve(Frontier *f, Py_ssize_t more) {
    if (!heap_reserve(f->ws, f->count, more)) return 0;
    f->heap = f->ws->heap;
    return 1;
}

/* Queue `node` for its cell, or lower the key of the cell's entry (a cell is never queued
 * again once closed: the callers check). */
static HOT_INLINE void frontier_update(Frontier *f, Node node) {
    CellState *cell = &f->state[node.cell];
    if (cell->slot == SLOT_HAND) {
        f->hand = node;
        return;
    }
    if (cell->slot >= 0) {
        heap_sift_up(f->heap, f->state, cell->slot, node);
        return;
    }
    f->ws->touched[f->touched_count++] = node.cell;
    if (f->holding && !node_less(&node, &f->hand)) {
        heap_sift_up(f->heap, f->state, f->count++, node);
        return;
    }
    if (f->holding) heap_sift_up(f->heap, f->state, f->count++, f->hand);
    f->hand = node;
    f->holding = 1;
    cell->slot = SLOT_HAND;
}

/* Take the least node off a frontier that is not empty, and close its cell. */
static HOT_INLINE Node frontier_pop(Frontier *f) {
    Node top;
    if (f->holding && (f->count == 0 || node_less(&f->hand, &f->heap[0]))) {
        f->holding = 0;
        top = f->hand;
    } else {
        top = heap_pop(f->heap, f->state, &f->count);
    }
    f->state[top.cell].slot = SLOT_CLOSED;
    return top;
}

/* Make every record the frontier touched UNTOUCHED again. */
static inline void frontier_reset(Frontier *f) {
    for (Py_ssize_t i = 0; i < f->touched_count; i++) f->state[f->ws->touched[i]] = UNTOUCHED;
}

/* ---- The end of a search ---- */

enum { SEARCH_UNREACHABLE = 0, SEARCH_FOUND = 1, SEARCH_NO_MEMORY = -1 };

/* start and goal among the `size` cells: 1 if so, else 0 with a ValueError set. */
static inline int check_ends(Py_ssize_t start, Py_ssize_t goal, Py_ssize_t size) {
    if (start < 0 || start >= size || goal < 0 || goal >= size) {
        PyErr_Format(PyExc_ValueError, "start %zd or goal %zd outside the %zd cells", start, goal,
                     size);
        return 0;
    }
    return 1;
}

/* The cost of a path as the Python searches sum it (Search._path_cost,
 * JumpPointSearch.result): each step's length times the cost of the cell it enters, in path
 * order, from 0.0; `costs` NULL is 1 everywhere (and x * 1.0 is x, to the bit). */
static inline double path_cost(const int32_t *path, Py_ssize_t length, Py_ssize_t width,
                               const double *costs) {
    double cost = 0.0;
    for (Py_ssize_t i = 1; i < length; i++) {
        const int32_t here = path[i - 1], there = path[i];
        const int diagonal_step = (here % width != there % width) && (here / width != there / width);
        cost += (diagonal_step ? SQRT2 : 1.0) * (costs ? costs[there] : 1.0);
    }
    return cost;
}

/* A search's answer to Python, (found, cells, cost, expanded), cells as a `flat_path`
 * (_search_common.h), or NULL with an exception set; takes `path` (NULL when there is none) and
 * frees it. */
static inline PyObject *search_answer(int status, int32_t *path, Py_ssize_t length,
                                      Py_ssize_t width, double cost, Py_ssize_t expanded) {
    if (status == SEARCH_NO_MEMORY) {
        PyMem_RawFree(path);
        return PyErr_NoMemory();
    }
    PyObject *answer = flat_answer(status == SEARCH_FOUND, path, length, width, cost, expanded);
    PyMem_RawFree(path);
    return answer;
}

/* The module's m_free: the spare workspace and the kept ints. */
static inline void grid_search_free(void *module) {
    (void)module;
    workspace_free(spare);
    spare = NULL;
    cached_ints_free();
}

#endif /* SIM_GRID_SEARCH_H */
