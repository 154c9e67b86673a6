/* What the compiled grid searches share (`_kernel.c`, `_jps.c`): the frontier, the per-cell
 * search state, the heuristics and a few buffer helpers. Each extension includes it and gets
 * its own copy (everything here is static; functions a file does not use are inline, so
 * unused ones raise no warning), with its own spare workspace.
 *
 * The heuristics and the frontier's order are those of sim/navigation/searches/best_first.py: priorities are
 * floor((g_weight * g + h) * TIE_SCALE), ties go to the smaller h, then to the smaller flat cell
 * index. Bit-identical sums need the compiler not to fuse a * b + c into one FMA instruction
 * (which rounds once instead of twice); the pragmas below forbid that on GCC and Clang, in
 * every file that includes this one.
 *
 * Speed (after pyastar2d, see PERFORMANCE-NOTES.md): the search state of a cell is one 16-byte
 * record in a flat array; the frontier is a 4-ary heap with decrease-key and a one-node "hand"
 * (see Frontier); both live in a workspace reused across calls, and only the cells a search
 * touched are reset after it, so no call does work proportional to the whole grid.
 *
 * Each including module sets SQRT2 and SQRT2_MINUS_1 in its init function.
 */
#ifndef SIM_GRID_SEARCH_H
#define SIM_GRID_SEARCH_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* The helpers of the hot loops are tiny and called from one or two places each; inlining them
 * lets the compiler fold the constant arguments (the heuristic, the move lengths). */
#if defined(__GNUC__) || defined(__clang__)
#define HOT_INLINE inline __attribute__((always_inline))
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define HOT_INLINE inline
#define PREFETCH(address) ((void)(address))
#endif

#define TIE_SCALE 1073741824.0 /* 2**30, as search.TIE_SCALE */

enum { H_MANHATTAN = 0, H_OCTILE = 1, H_EUCLIDEAN = 2, H_CHEBYSHEV = 3, H_ZERO = 4 };

/* math.sqrt(2.0) and math.sqrt(2.0) - 1.0, computed at import as Python does. */
static double SQRT2;
static double SQRT2_MINUS_1;

/* ---- The heap and the per-cell state (_kernel.c's `search` and `field`, _jps.c) ---- */

/* A frontier entry. Priority and h are non-negative doubles (+inf at worst), and the bit
 * patterns of those sort as the values do: comparing them as integers is the same order and
 * cheaper (no unordered-compare branches). */
typedef struct {
    uint64_t priority_bits;
    uint64_t h_bits;
    int32_t cell;
} Node;

static inline uint64_t bits_of(double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* The order of Python's (priority, h, cell) tuples. Where the compiler has 128-bit integers,
 * (priority, h) is compared as one number, without branches: which of two heap nodes comes
 * first is anyone's guess, so branches there are often mispredicted (a whole search measured
 * about 15 % faster this way). */
static HOT_INLINE int node_less(const Node *a, const Node *b) {
#ifdef __SIZEOF_INT128__
    const unsigned __int128 key_a = ((unsigned __int128)a->priority_bits << 64) | a->h_bits;
    const unsigned __int128 key_b = ((unsigned __int128)b->priority_bits << 64) | b->h_bits;
    return (key_a < key_b) | ((key_a == key_b) & (a->cell < b->cell));
#else
    if (a->priority_bits != b->priority_bits) return a->priority_bits < b->priority_bits;
    if (a->h_bits != b->h_bits) return a->h_bits < b->h_bits;
    return a->cell < b->cell;
#endif
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

/* heuristics.py, same operations in the same order (dx = column difference). */
static HOT_INLINE double heuristic_of(int kind, long dx, long dy) {
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

static inline int format_is(const Py_buffer *view, char code) {
    const char *f = view->format;
    if (f == NULL) return code == 'B';
    if (f[0] == '@' || f[0] == '=' || f[0] == '<' || f[0] == '|') {
        /* '<' is native only on little-endian machines. */
        if (f[0] == '<' && PY_BIG_ENDIAN) return 0;
        f++;
    }
    return f[0] == code && f[1] == '\0';
}

/* The ints a path's coordinates are made of, kept from call to call: a path of thousands of
 * cells (a maze) otherwise allocates two ints a cell, some 5 % of a whole query there. Python
 * caches only -5 to 256; coordinates up to CACHED_INTS - 1 are made once here. */
#define CACHED_INTS 4096
static PyObject *cached_ints[CACHED_INTS];

/* `value` >= 0 as a new reference; NULL with an exception set on failure. */
static inline PyObject *coordinate(Py_ssize_t value) {
    if (value >= CACHED_INTS) return PyLong_FromSsize_t(value);
    PyObject *number = cached_ints[value];
    if (number == NULL) {
        number = PyLong_FromSsize_t(value);
        if (number == NULL) return NULL;
        cached_ints[value] = number;
    }
    Py_INCREF(number);
    return number;
}

/* Let the kept ints go (the module's m_free). */
static inline void cached_ints_free(void) {
    for (Py_ssize_t i = 0; i < CACHED_INTS; i++) Py_CLEAR(cached_ints[i]);
}

/* (row, col) of a flat cell as a new tuple of two ints; NULL with an exception set on failure.
 * Built directly: Py_BuildValue parses its format string for every one of a path's cells. */
static inline PyObject *cell_pair(int32_t cell, Py_ssize_t width) {
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) return NULL;
    PyObject *row = coordinate(cell / width);
    PyTuple_SET_ITEM(pair, 0, row);
    PyObject *col = row == NULL ? NULL : coordinate(cell % width);
    PyTuple_SET_ITEM(pair, 1, col);
    if (col == NULL) {
        Py_DECREF(pair); /* also releases `row`; an empty item is skipped */
        return NULL;
    }
    return pair;
}

#endif /* SIM_GRID_SEARCH_H */
