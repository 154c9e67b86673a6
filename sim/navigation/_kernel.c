/* The hot loop of sim/navigation/search.py in C: one best-first search on a walkable mask.
 *
 * It mirrors `Search.advance` step for step, so that both return identical paths, costs and
 * expansion counts (tests/unit/test_nav_kernel.py checks it):
 *   - the legal moves of a cell are those of `MoveGraph.build`: the 4 (or 8) neighbours in
 *     `DIRECTIONS` order, inside the grid and walkable, a diagonal only when both orthogonal
 *     cells it passes between are walkable (no corner cutting);
 *   - a step costs `length * cost[neighbour]` (length 1 or sqrt(2)), added to g exactly as
 *     Python does, and h is the same formula in the same operation order as heuristics.py;
 *   - priorities are floor((g_weight * g + h) * TIE_SCALE); ties go to the smaller h, then to
 *     the smaller flat cell index; closed cells are never reopened; a neighbour is relaxed only
 *     on a strictly lower cost.
 * Bit-identical sums need the compiler not to fuse a * b + c into one FMA instruction (which
 * rounds once instead of twice); the pragmas below forbid that on GCC and Clang.
 *
 * `field` (further down) is the distance field of field.py on the same move rules.
 *
 * The search state (g, came_from, closed) lives in a workspace reused across calls: only the
 * cells a search touched are reset afterwards. The GIL is released during the search; the
 * input buffers stay pinned by their Py_buffer views.
 */
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

#define TIE_SCALE 1073741824.0 /* 2**30, as search.TIE_SCALE */

enum { H_MANHATTAN = 0, H_OCTILE = 1, H_EUCLIDEAN = 2, H_CHEBYSHEV = 3, H_ZERO = 4 };

/* DIRECTIONS of moves.py: the 4 orthogonal moves first, then the 4 diagonals. */
static const int D_ROW[8] = {-1, 1, 0, 0, -1, -1, 1, 1};
static const int D_COL[8] = {0, 0, -1, 1, -1, 1, -1, 1};

/* math.sqrt(2.0) and math.sqrt(2.0) - 1.0, computed at import as Python does. */
static double SQRT2;
static double SQRT2_MINUS_1;

/* A frontier entry. Priority and h are non-negative doubles (+inf at worst), and the bit
 * patterns of those sort as the values do: comparing them as integers is the same order and
 * cheaper (no unordered-compare branches) - about 25 % off a whole search. */
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

typedef struct {
    Py_ssize_t size;   /* cells the arrays hold; a search may use any grid up to this size */
    double *cost_so_far;  /* INFINITY on untouched cells */
    int32_t *came_from;
    uint8_t *closed;
    int32_t *touched;  /* cells whose cost_so_far is finite, to reset after the search */
    Node *frontier;
    Py_ssize_t frontier_capacity;
} Workspace;

/* One spare workspace; taken and given back under the GIL, so threads never share one. */
static Workspace *spare = NULL;

static void workspace_free(Workspace *ws) {
    if (ws == NULL) return;
    PyMem_RawFree(ws->cost_so_far);
    PyMem_RawFree(ws->came_from);
    PyMem_RawFree(ws->closed);
    PyMem_RawFree(ws->touched);
    PyMem_RawFree(ws->frontier);
    PyMem_RawFree(ws);
}

static Workspace *workspace_take(Py_ssize_t size) {
    if (spare != NULL && spare->size >= size) {
        Workspace *ws = spare;
        spare = NULL;
        return ws;
    }
    Workspace *ws = PyMem_RawCalloc(1, sizeof(Workspace));
    if (ws == NULL) return NULL;
    ws->size = size;
    ws->cost_so_far = PyMem_RawMalloc((size_t)size * sizeof(double));
    ws->came_from = PyMem_RawMalloc((size_t)size * sizeof(int32_t));
    ws->closed = PyMem_RawCalloc((size_t)size, 1);
    ws->touched = PyMem_RawMalloc((size_t)size * sizeof(int32_t));
    ws->frontier_capacity = 1024;
    ws->frontier = PyMem_RawMalloc((size_t)ws->frontier_capacity * sizeof(Node));
    if (!ws->cost_so_far || !ws->came_from || !ws->closed || !ws->touched || !ws->frontier) {
        workspace_free(ws);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < size; i++) ws->cost_so_far[i] = INFINITY;
    return ws;
}

static void workspace_give_back(Workspace *ws) {
    if (spare == NULL) {
        spare = ws;
    } else if (spare->size < ws->size) {
        workspace_free(spare);
        spare = ws;
    } else {
        workspace_free(ws);
    }
}

static inline int node_less(const Node *a, const Node *b) {
    if (a->priority_bits != b->priority_bits) return a->priority_bits < b->priority_bits;
    if (a->h_bits != b->h_bits) return a->h_bits < b->h_bits;
    return a->cell < b->cell;
}

/* Binary min-heap push; returns 0 when out of memory. */
static int frontier_push(Workspace *ws, Py_ssize_t *count, Node node) {
    if (*count == ws->frontier_capacity) {
        Py_ssize_t capacity = ws->frontier_capacity * 2;
        Node *grown = PyMem_RawRealloc(ws->frontier, (size_t)capacity * sizeof(Node));
        if (grown == NULL) return 0;
        ws->frontier = grown;
        ws->frontier_capacity = capacity;
    }
    Node *heap = ws->frontier;
    Py_ssize_t i = (*count)++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (!node_less(&node, &heap[parent])) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = node;
    return 1;
}

static Node frontier_pop(Node *heap, Py_ssize_t *count) {
    Node top = heap[0];
    Node last = heap[--(*count)];
    Py_ssize_t n = *count, i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && node_less(&heap[child + 1], &heap[child])) child++;
        if (!node_less(&heap[child], &last)) break;
        heap[i] = heap[child];
        i = child;
    }
    if (n > 0) heap[i] = last;
    return top;
}

/* heuristics.py, same operations in the same order (dx = column difference). */
static inline double heuristic_of(int kind, long dx, long dy) {
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

typedef struct {
    const uint8_t *walkable;
    const double *costs; /* NULL: every cell costs 1 */
    Py_ssize_t height, width;
    int32_t start, goal;
    int diagonal, heuristic, unit;
    double h_weight, g_weight;
} Problem;

enum { SEARCH_UNREACHABLE = 0, SEARCH_FOUND = 1, SEARCH_NO_MEMORY = -1 };

/* Runs without the GIL: touches only the problem's buffers and the workspace. */
static int run_search(const Problem *p, Workspace *ws, Py_ssize_t *expanded_out,
                      Py_ssize_t *touched_out) {
    const uint8_t *walkable = p->walkable;
    const double *costs = p->unit ? NULL : p->costs;
    const long width = (long)p->width, height = (long)p->height;
    const long goal_row = p->goal / width, goal_col = p->goal % width;
    const int move_count = p->diagonal ? 8 : 4;
    double *cost_so_far = ws->cost_so_far;
    int32_t *came_from = ws->came_from;
    uint8_t *closed = ws->closed;
    int32_t *touched = ws->touched;
    Py_ssize_t touched_count = 0, frontier_count = 0, expanded = 0;
    int status = SEARCH_UNREACHABLE;
    double length_of[8];
    long offset_of[8];
    for (int i = 0; i < 8; i++) {
        length_of[i] = (p->unit || !(D_ROW[i] && D_COL[i])) ? 1.0 : SQRT2;
        offset_of[i] = D_ROW[i] * width + D_COL[i];
    }

    double h = p->h_weight *
               heuristic_of(p->heuristic, labs(p->start % width - goal_col),
                            labs(p->start / width - goal_row));
    cost_so_far[p->start] = 0.0;
    came_from[p->start] = -1;
    touched[touched_count++] = p->start;
    Node first = {bits_of(floor(h * TIE_SCALE)), bits_of(h), p->start};
    if (!frontier_push(ws, &frontier_count, first)) {
        status = SEARCH_NO_MEMORY;
        goto done;
    }
    while (frontier_count > 0) {
        Node node = frontier_pop(ws->frontier, &frontier_count);
        int32_t current = node.cell;
        if (closed[current]) continue; /* a stale entry: pushed again with a lower cost */
        closed[current] = 1;
        expanded++;
        if (current == p->goal) {
            status = SEARCH_FOUND;
            break;
        }
        const double g = cost_so_far[current];
        const long row = current / width, col = current % width;
        for (int i = 0; i < move_count; i++) {
            const long n_row = row + D_ROW[i], n_col = col + D_COL[i];
            if (n_row < 0 || n_row >= height || n_col < 0 || n_col >= width) continue;
            const int32_t neighbour = (int32_t)(current + offset_of[i]);
            if (!walkable[neighbour]) continue;
            if (i >= 4 && !(walkable[n_row * width + col] && walkable[row * width + n_col]))
                continue;
            if (closed[neighbour]) continue;
            const double new_cost = g + length_of[i] * (costs ? costs[neighbour] : 1.0);
            if (new_cost < cost_so_far[neighbour]) {
                if (cost_so_far[neighbour] == INFINITY) touched[touched_count++] = neighbour;
                cost_so_far[neighbour] = new_cost;
                came_from[neighbour] = current;
                double nh = p->h_weight * heuristic_of(p->heuristic, labs(n_col - goal_col),
                                                        labs(n_row - goal_row));
                double priority = floor((p->g_weight * new_cost + nh) * TIE_SCALE);
                Node next = {bits_of(priority), bits_of(nh), neighbour};
                if (!frontier_push(ws, &frontier_count, next)) {
                    status = SEARCH_NO_MEMORY;
                    goto done;
                }
            }
        }
    }
done:
    *expanded_out = expanded;
    *touched_out = touched_count;
    return status;
}

static void reset_touched(Workspace *ws, Py_ssize_t touched_count) {
    for (Py_ssize_t i = 0; i < touched_count; i++) {
        int32_t cell = ws->touched[i];
        ws->cost_so_far[cell] = INFINITY;
        ws->closed[cell] = 0;
    }
}

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

PyDoc_STRVAR(search_doc,
             "search(walkable, costs, height, width, start, goal, diagonal, heuristic, h_weight,\n"
             "       g_weight, unit) -> (found, cells, cost, expanded)\n\n"
             "One best-first search; see sim/navigation/kernel.py for the contract.");

static PyObject *kernel_search(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *costs_obj;
    Py_ssize_t height, width, start, goal;
    int diagonal, heuristic, unit;
    double h_weight, g_weight;
    if (!PyArg_ParseTuple(args, "OOnnnnpiddp:search", &walkable_obj, &costs_obj, &height, &width,
                          &start, &goal, &diagonal, &heuristic, &h_weight, &g_weight, &unit))
        return NULL;
    if (height <= 0 || width <= 0 || height > INT32_MAX / width) {
        PyErr_Format(PyExc_ValueError, "grid of %zd x %zd cells: need 1 to 2**31 - 1 cells",
                     height, width);
        return NULL;
    }
    const Py_ssize_t size = height * width;
    if (start < 0 || start >= size || goal < 0 || goal >= size) {
        PyErr_Format(PyExc_ValueError, "start %zd or goal %zd outside the %zd cells", start, goal,
                     size);
        return NULL;
    }
    if (heuristic < H_MANHATTAN || heuristic > H_ZERO) {
        PyErr_Format(PyExc_ValueError, "unknown heuristic code %d", heuristic);
        return NULL;
    }
    if (!(isfinite(h_weight) && h_weight >= 0.0 && isfinite(g_weight) && g_weight >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "h_weight and g_weight must be finite and >= 0");
        return NULL;
    }

    Py_buffer walkable_view, costs_view;
    int have_costs = costs_obj != Py_None;
    if (PyObject_GetBuffer(walkable_obj, &walkable_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (walkable_view.itemsize != 1 || walkable_view.len != size ||
        !(format_is(&walkable_view, '?') || format_is(&walkable_view, 'B'))) {
        PyErr_Format(PyExc_ValueError,
                     "walkable must be %zd contiguous bytes (bool or uint8), got %zd items of "
                     "%zd bytes",
                     size, walkable_view.len / (walkable_view.itemsize ? walkable_view.itemsize : 1),
                     walkable_view.itemsize);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    if (have_costs) {
        if (PyObject_GetBuffer(costs_obj, &costs_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyBuffer_Release(&walkable_view);
            return NULL;
        }
        if (costs_view.itemsize != 8 || costs_view.len != size * 8 || !format_is(&costs_view, 'd')) {
            PyErr_Format(PyExc_ValueError,
                         "costs must be %zd contiguous float64 values, got %zd bytes", size,
                         costs_view.len);
            PyBuffer_Release(&costs_view);
            PyBuffer_Release(&walkable_view);
            return NULL;
        }
    }
    const uint8_t *walkable = walkable_view.buf;
    if (!walkable[start] || !walkable[goal]) {
        PyErr_SetString(PyExc_ValueError, "start and goal must be walkable cells");
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }

    Problem problem = {walkable,       have_costs ? costs_view.buf : NULL,
                       height,         width,
                       (int32_t)start, (int32_t)goal,
                       diagonal,       heuristic,
                       unit,           h_weight,
                       g_weight};
    Workspace *ws = workspace_take(size);
    if (ws == NULL) {
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return PyErr_NoMemory();
    }
    Py_ssize_t expanded = 0, touched_count = 0, path_length = 0;
    int32_t *path = NULL;
    double cost = INFINITY;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run_search(&problem, ws, &expanded, &touched_count);
    if (status == SEARCH_FOUND) {
        for (int32_t cell = problem.goal;; cell = ws->came_from[cell]) {
            path_length++;
            if (cell == problem.start || path_length > size) break;
        }
        path = PyMem_RawMalloc((size_t)path_length * sizeof(int32_t));
        if (path == NULL) {
            status = SEARCH_NO_MEMORY;
        } else {
            int32_t cell = problem.goal;
            for (Py_ssize_t i = path_length - 1; i >= 0; i--) {
                path[i] = cell;
                cell = ws->came_from[cell];
            }
            /* Search._path_cost: true step costs summed in path order, from 0.0. */
            cost = 0.0;
            for (Py_ssize_t i = 1; i < path_length; i++) {
                int32_t here = path[i - 1], there = path[i];
                int diagonal_step = (here % width != there % width) && (here / width != there / width);
                cost += (diagonal_step ? SQRT2 : 1.0) * (problem.costs ? problem.costs[there] : 1.0);
            }
        }
    }
    reset_touched(ws, touched_count);
    Py_END_ALLOW_THREADS
    workspace_give_back(ws);
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);

    if (status == SEARCH_NO_MEMORY) {
        PyMem_RawFree(path);
        return PyErr_NoMemory();
    }
    PyObject *cells = PyTuple_New(path_length);
    if (cells == NULL) {
        PyMem_RawFree(path);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < path_length; i++) {
        PyObject *pair = Py_BuildValue("(nn)", (Py_ssize_t)(path[i] / width),
                                       (Py_ssize_t)(path[i] % width));
        if (pair == NULL) {
            Py_DECREF(cells);
            PyMem_RawFree(path);
            return NULL;
        }
        PyTuple_SET_ITEM(cells, i, pair);
    }
    PyMem_RawFree(path);
    return Py_BuildValue("(ONdn)", status == SEARCH_FOUND ? Py_True : Py_False, cells, cost,
                         expanded);
}

/* ---- The distance field of sim/navigation/field.py (`_reverse_dijkstra`) ----
 *
 * One Dijkstra outward from `goal` over the legal moves above; the step `neighbour -> current`
 * costs `length * cost[current]` (the cell entered on the way to the goal), added to the
 * popped cost exactly as Python does: `g + length * enter`. The frontier orders by
 * (cost, cell) as Python's heap of `(cost, cell)` tuples; closed cells are never relaxed and a
 * neighbour is relaxed only on a strictly lower cost. `out` receives every cell's cost, INFINITY
 * where the goal cannot be reached (everywhere when the goal is blocked). */
typedef struct {
    const uint8_t *walkable;
    const double *costs; /* NULL: every cell costs 1 */
    Py_ssize_t height, width;
    int32_t goal;
    int diagonal;
    double *out;
} FieldProblem;

/* Runs without the GIL: touches only the problem's buffers and the workspace's frontier and
 * closed bytes (which it leaves all zero again). Returns 0 when out of memory. */
static int run_field(const FieldProblem *p, Workspace *ws) {
    const uint8_t *walkable = p->walkable;
    const double *costs = p->costs;
    const long width = (long)p->width, height = (long)p->height;
    const Py_ssize_t size = p->height * p->width;
    const int move_count = p->diagonal ? 8 : 4;
    double *cost_so_far = p->out;
    uint8_t *closed = ws->closed;
    Py_ssize_t frontier_count = 0;
    int ok = 1;
    double length_of[8];
    long offset_of[8];
    for (int i = 0; i < 8; i++) {
        length_of[i] = (D_ROW[i] && D_COL[i]) ? SQRT2 : 1.0;
        offset_of[i] = D_ROW[i] * width + D_COL[i];
    }
    for (Py_ssize_t i = 0; i < size; i++) cost_so_far[i] = INFINITY;
    if (!walkable[p->goal]) return 1;
    cost_so_far[p->goal] = 0.0;
    /* Node.priority_bits holds the cost, h_bits is 0: node_less is (cost, cell) order. */
    Node first = {bits_of(0.0), 0, p->goal};
    if (!frontier_push(ws, &frontier_count, first)) return 0;
    while (frontier_count > 0) {
        Node node = frontier_pop(ws->frontier, &frontier_count);
        int32_t current = node.cell;
        if (closed[current]) continue; /* a stale entry: pushed again with a lower cost */
        closed[current] = 1;
        double g;
        memcpy(&g, &node.priority_bits, sizeof g);
        const double enter = costs ? costs[current] : 1.0;
        const long row = current / width, col = current % width;
        for (int i = 0; i < move_count; i++) {
            const long n_row = row + D_ROW[i], n_col = col + D_COL[i];
            if (n_row < 0 || n_row >= height || n_col < 0 || n_col >= width) continue;
            const int32_t neighbour = (int32_t)(current + offset_of[i]);
            if (!walkable[neighbour]) continue;
            if (i >= 4 && !(walkable[n_row * width + col] && walkable[row * width + n_col]))
                continue;
            if (closed[neighbour]) continue;
            const double new_cost = g + length_of[i] * enter;
            if (new_cost < cost_so_far[neighbour]) {
                cost_so_far[neighbour] = new_cost;
                Node next = {bits_of(new_cost), 0, neighbour};
                if (!frontier_push(ws, &frontier_count, next)) {
                    ok = 0;
                    goto done;
                }
            }
        }
    }
done:
    memset(closed, 0, (size_t)size);
    return ok;
}

PyDoc_STRVAR(field_doc,
             "field(walkable, costs, height, width, goal, diagonal, out) -> None\n\n"
             "Fill `out` (height * width float64) with every cell's cost to flat `goal`;\n"
             "see sim/navigation/kernel.py (field_flat) for the contract.");

static PyObject *kernel_field(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *costs_obj, *out_obj;
    Py_ssize_t height, width, goal;
    int diagonal;
    if (!PyArg_ParseTuple(args, "OOnnnpO:field", &walkable_obj, &costs_obj, &height, &width,
                          &goal, &diagonal, &out_obj))
        return NULL;
    if (height <= 0 || width <= 0 || height > INT32_MAX / width) {
        PyErr_Format(PyExc_ValueError, "grid of %zd x %zd cells: need 1 to 2**31 - 1 cells",
                     height, width);
        return NULL;
    }
    const Py_ssize_t size = height * width;
    if (goal < 0 || goal >= size) {
        PyErr_Format(PyExc_ValueError, "goal %zd outside the %zd cells", goal, size);
        return NULL;
    }

    Py_buffer walkable_view, costs_view, out_view;
    int have_costs = costs_obj != Py_None;
    if (PyObject_GetBuffer(walkable_obj, &walkable_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (walkable_view.itemsize != 1 || walkable_view.len != size ||
        !(format_is(&walkable_view, '?') || format_is(&walkable_view, 'B'))) {
        PyErr_Format(PyExc_ValueError,
                     "walkable must be %zd contiguous bytes (bool or uint8), got %zd items of "
                     "%zd bytes",
                     size, walkable_view.len / (walkable_view.itemsize ? walkable_view.itemsize : 1),
                     walkable_view.itemsize);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    if (have_costs) {
        if (PyObject_GetBuffer(costs_obj, &costs_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
            PyBuffer_Release(&walkable_view);
            return NULL;
        }
        if (costs_view.itemsize != 8 || costs_view.len != size * 8 || !format_is(&costs_view, 'd')) {
            PyErr_Format(PyExc_ValueError,
                         "costs must be %zd contiguous float64 values, got %zd bytes", size,
                         costs_view.len);
            PyBuffer_Release(&costs_view);
            PyBuffer_Release(&walkable_view);
            return NULL;
        }
    }
    if (PyObject_GetBuffer(out_obj, &out_view,
                           PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    if (out_view.itemsize != 8 || out_view.len != size * 8 || !format_is(&out_view, 'd')) {
        PyErr_Format(PyExc_ValueError, "out must be %zd contiguous float64 values, got %zd bytes",
                     size, out_view.len);
        PyBuffer_Release(&out_view);
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    /* `out` is written while walkable and costs are read: they must not share memory. */
    const char *out_begin = out_view.buf, *out_end = out_begin + out_view.len;
    const char *w_begin = walkable_view.buf, *w_end = w_begin + walkable_view.len;
    int overlap = out_begin < w_end && w_begin < out_end;
    if (have_costs) {
        const char *c_begin = costs_view.buf, *c_end = c_begin + costs_view.len;
        overlap = overlap || (out_begin < c_end && c_begin < out_end);
    }
    if (overlap) {
        PyErr_SetString(PyExc_ValueError, "out must not share memory with walkable or costs");
        PyBuffer_Release(&out_view);
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }

    FieldProblem problem = {walkable_view.buf, have_costs ? costs_view.buf : NULL,
                            height,            width,
                            (int32_t)goal,     diagonal,
                            out_view.buf};
    Workspace *ws = workspace_take(size);
    if (ws == NULL) {
        PyBuffer_Release(&out_view);
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return PyErr_NoMemory();
    }
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = run_field(&problem, ws);
    Py_END_ALLOW_THREADS
    workspace_give_back(ws);
    PyBuffer_Release(&out_view);
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    if (!ok) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef kernel_methods[] = {
    {"search", kernel_search, METH_VARARGS, search_doc},
    {"field", kernel_field, METH_VARARGS, field_doc},
    {NULL, NULL, 0, NULL},
};

static void kernel_free(void *module) {
    (void)module;
    workspace_free(spare);
    spare = NULL;
}

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel", "Compiled best-first grid search (see kernel.py).", -1,
    kernel_methods,        NULL,      NULL,
    NULL,                  kernel_free,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    SQRT2 = sqrt(2.0);
    SQRT2_MINUS_1 = SQRT2 - 1.0;
    return PyModule_Create(&kernel_module);
}
