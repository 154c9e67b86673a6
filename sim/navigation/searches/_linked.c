/* Searches with links (sim/navigation/links.py) in C: the loop of Search.advance with a cell's
 * links relaxed after its grid moves, and the distance field of field.py walking links backwards.
 *
 * Links come as CSR arrays (LinkGraph.csr): cell i's links are first[i] .. first[i + 1] - 1 of
 * `target` (the cell at the other end) and `hop` (the cost). `search` mirrors Search.advance with
 * links step for step (tests/unit/test_nav_links_kernel.py checks it): the grid moves of
 * MoveGraph.build in DIRECTIONS order under the diagonal rule, then each link in CSR order (the
 * order of LinkGraph.out), skipped when its end is closed or blocked, costing `hop` (1 for
 * breadth-first); h is `h_weight * H(cell, goal)` lowered by the link bounds `bound_cells` /
 * `bound_offsets` exactly as searches/linked.py's `bounded` does, in the same operations. The
 * path's cost is that of `path_cost_with_links`: per step the cheaper of its legal grid move
 * and a link, a tie to the move.
 *
 * Kept apart from _kernel.c so that the search without links, the common call, keeps its
 * specialised loops untouched; this one reads the heuristic and rule at run time.
 */
#include "_grid_search.h"

enum { DIAG_NEVER = 0, DIAG_NO_CORNER_CUTTING = 1, DIAG_ONE_OBSTACLE = 2, DIAG_ALWAYS = 3 };

static const int D_ROW[8] = {-1, 1, 0, 0, -1, -1, 1, 1};
static const int D_COL[8] = {0, 0, -1, 1, -1, 1, -1, 1};

typedef struct {
    const uint8_t *walkable;
    const double *costs; /* NULL: 1 everywhere */
    long height, width;
    int32_t start, goal;
    int rule, kind, unit;
    double h_weight, g_weight;
    const int32_t *first, *target;
    const double *hop;
    const int32_t *bound_cells;
    const double *bound_offsets;
    Py_ssize_t bound_count;
    double *h_cache; /* with bounds: each cell's h once computed, -1 before (NULL without) */
} Linked;

/* Whether move `i` of DIRECTIONS is legal from (row, col): MoveGraph.build's rule. */
static inline int legal_move(const Linked *p, long row, long col, int i) {
    const long r = row + D_ROW[i], c = col + D_COL[i];
    if (r < 0 || r >= p->height || c < 0 || c >= p->width || !p->walkable[r * p->width + c])
        return 0;
    if (i < 4) return 1;
    if (p->rule == DIAG_NEVER) return 0;
    const int need = p->rule == DIAG_NO_CORNER_CUTTING ? 2 : p->rule == DIAG_ONE_OBSTACLE ? 1 : 0;
    const int open = p->walkable[r * p->width + col] + p->walkable[row * p->width + c];
    return open >= need;
}

/* searches/linked.py's `bounded` after Search's `h_weight * heuristic`. */
static inline double h_of(const Linked *p, long row, long col) {
    double *cached = p->h_cache ? &p->h_cache[row * p->width + col] : NULL;
    if (cached && *cached >= 0.0) return *cached;
    double h = p->h_weight *
               heuristic_of(p->kind, labs(col - p->goal % p->width), labs(row - p->goal / p->width));
    for (Py_ssize_t i = 0; i < p->bound_count; i++) {
        const long s_row = p->bound_cells[i] / p->width, s_col = p->bound_cells[i] % p->width;
        const double via =
            p->h_weight * heuristic_of(p->kind, labs(col - s_col), labs(row - s_row)) +
            p->bound_offsets[i];
        if (via < h) h = via;
    }
    if (cached) *cached = h;
    return h;
}

static inline void relax(Frontier *f, const Linked *p, int32_t current, double new_cost,
                         int32_t neighbour) {
    CellState *next = &f->state[neighbour];
    if (next->slot == SLOT_CLOSED) return;
    if (!(new_cost < next->cost_so_far)) return;
    next->cost_so_far = new_cost;
    next->came_from = current;
    const double h = h_of(p, neighbour / p->width, neighbour % p->width);
    const double priority = floor((p->g_weight * new_cost + h) * TIE_SCALE);
    frontier_update(f, (Node){bits_of(priority), bits_of(h), neighbour});
}

static int linked_loop(const Linked *p, Frontier *f, Py_ssize_t *expanded_out) {
    const int count = p->rule == DIAG_NEVER ? 4 : 8;
    Py_ssize_t expanded = 0;
    int status = SEARCH_UNREACHABLE;
    const double h = h_of(p, p->start / p->width, p->start % p->width);
    f->state[p->start].cost_so_far = 0.0;
    frontier_update(f, (Node){bits_of(floor(h * TIE_SCALE)), bits_of(h), p->start});
    while (!frontier_empty(f)) {
        const int32_t current = frontier_pop(f).cell;
        expanded++;
        if (current == p->goal) {
            status = SEARCH_FOUND;
            break;
        }
        const int32_t links_from = p->first[current], links_to = p->first[current + 1];
        if (!frontier_reserve(f, 8 + (links_to - links_from))) {
            status = SEARCH_NO_MEMORY;
            break;
        }
        const double g = f->state[current].cost_so_far;
        const long row = current / p->width, col = current % p->width;
        for (int i = 0; i < count; i++) {
            if (!legal_move(p, row, col, i)) continue;
            const int32_t neighbour = (int32_t)((row + D_ROW[i]) * p->width + col + D_COL[i]);
            const double length = (i < 4 || p->unit) ? 1.0 : SQRT2;
            const double enter = (p->unit || !p->costs) ? 1.0 : p->costs[neighbour];
            relax(f, p, current, g + length * enter, neighbour);
        }
        for (int32_t k = links_from; k < links_to; k++) {
            const int32_t end = p->target[k];
            if (!p->walkable[end]) continue;
            relax(f, p, current, g + (p->unit ? 1.0 : p->hop[k]), end);
        }
    }
    *expanded_out = expanded;
    return status;
}

/* path_cost_with_links: per step the cheaper of the legal grid move and a link. */
static double linked_path_cost(const Linked *p, const int32_t *path, Py_ssize_t length) {
    double total = 0.0;
    const int count = p->rule == DIAG_NEVER ? 4 : 8;
    for (Py_ssize_t n = 1; n < length; n++) {
        const int32_t here = path[n - 1], there = path[n];
        const long row = here / p->width, col = here % p->width;
        double step = INFINITY;
        for (int i = 0; i < count; i++) {
            if (!legal_move(p, row, col, i)) continue;
            if ((row + D_ROW[i]) * p->width + col + D_COL[i] == there)
                step = (i < 4 ? 1.0 : SQRT2) * (p->costs ? p->costs[there] : 1.0);
        }
        for (int32_t k = p->first[here]; k < p->first[here + 1]; k++)
            if (p->target[k] == there && p->hop[k] < step) step = p->hop[k];
        total += step;
    }
    return total;
}

/* A read-only contiguous buffer of `count` items of `format`; 1, or 0 with ValueError set. */
static int take_array(PyObject *obj, Py_buffer *view, char format, Py_ssize_t itemsize,
                      Py_ssize_t count, const char *name) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    if (view->itemsize != itemsize || !format_is(view, format) ||
        (count >= 0 && view->len != count * itemsize)) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd contiguous '%c' items", name, count,
                     format);
        PyBuffer_Release(view);
        return 0;
    }
    return 1;
}

/* The link arrays of a call: first (size + 1 int32), target and hop (first[size] each). */
typedef struct {
    Py_buffer first, target, hop;
} LinkViews;

static int take_links(PyObject *first, PyObject *target, PyObject *hop, Py_ssize_t size,
                      LinkViews *v) {
    if (!take_array(first, &v->first, 'i', 4, size + 1, "first")) return 0;
    const int32_t *starts = v->first.buf;
    const Py_ssize_t edges = starts[size];
    int ok = starts[0] == 0;
    for (Py_ssize_t i = 0; ok && i < size; i++) ok = starts[i] <= starts[i + 1];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "first must rise from 0");
        PyBuffer_Release(&v->first);
        return 0;
    }
    if (!take_array(target, &v->target, 'i', 4, edges, "target")) {
        PyBuffer_Release(&v->first);
        return 0;
    }
    const int32_t *ends = v->target.buf;
    for (Py_ssize_t k = 0; k < edges; k++) {
        if (ends[k] < 0 || ends[k] >= size) {
            PyErr_Format(PyExc_ValueError, "link target %d outside the %zd cells", ends[k], size);
            PyBuffer_Release(&v->target);
            PyBuffer_Release(&v->first);
            return 0;
        }
    }
    if (!take_array(hop, &v->hop, 'd', 8, edges, "hop")) {
        PyBuffer_Release(&v->target);
        PyBuffer_Release(&v->first);
        return 0;
    }
    return 1;
}

static void give_links(LinkViews *v) {
    PyBuffer_Release(&v->hop);
    PyBuffer_Release(&v->target);
    PyBuffer_Release(&v->first);
}

/* Walkable bytes and optional float64 costs of `size` cells: 1 with costs, 0 without, -1 on
 * error (nothing held). */
static int take_grid(PyObject *walkable, PyObject *costs, Py_ssize_t size, Py_buffer *w,
                     Py_buffer *c) {
    if (PyObject_GetBuffer(walkable, w, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (w->itemsize != 1 || w->len != size || !(format_is(w, '?') || format_is(w, 'B'))) {
        PyErr_Format(PyExc_ValueError, "walkable must be %zd contiguous bytes", size);
        PyBuffer_Release(w);
        return -1;
    }
    if (costs == Py_None) return 0;
    if (!take_array(costs, c, 'd', 8, size, "costs")) {
        PyBuffer_Release(w);
        return -1;
    }
    return 1;
}

PyDoc_STRVAR(search_doc,
             "search(walkable, costs, height, width, start, goal, diagonal, heuristic, h_weight,\n"
             "       g_weight, unit, first, target, hop, bound_cells, bound_offsets)\n"
             "-> (found, cells, cost, expanded)\n\n"
             "One best-first search with links; see sim/navigation/searches/kernel.py.");

static PyObject *linked_search(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *costs_obj, *first_obj, *target_obj, *hop_obj, *cells_obj,
        *offsets_obj;
    Py_ssize_t height, width, start, goal;
    int rule, kind, unit;
    double h_weight, g_weight;
    if (!PyArg_ParseTuple(args, "OOnnnniiddpOOOOO:search", &walkable_obj, &costs_obj, &height,
                          &width, &start, &goal, &rule, &kind, &h_weight, &g_weight, &unit,
                          &first_obj, &target_obj, &hop_obj, &cells_obj, &offsets_obj))
        return NULL;
    if (rule < DIAG_NEVER || rule > DIAG_ALWAYS || kind < H_MANHATTAN || kind > H_ZERO) {
        PyErr_SetString(PyExc_ValueError, "unknown diagonal rule or heuristic code");
        return NULL;
    }
    if (!check_grid(height, width)) return NULL;
    const Py_ssize_t size = height * width;
    if (!check_ends(start, goal, size)) return NULL;
    Py_buffer walkable_view, costs_view, cells_view, offsets_view;
    LinkViews links;
    const int have_costs = take_grid(walkable_obj, costs_obj, size, &walkable_view, &costs_view);
    if (have_costs < 0) return NULL;
    if (!take_links(first_obj, target_obj, hop_obj, size, &links)) goto fail_grid;
    if (!take_array(cells_obj, &cells_view, 'i', 4, -1, "bound_cells")) goto fail_links;
    const Py_ssize_t bound_count = cells_view.len / 4;
    if (!take_array(offsets_obj, &offsets_view, 'd', 8, bound_count, "bound_offsets")) {
        PyBuffer_Release(&cells_view);
        goto fail_links;
    }
    const uint8_t *walkable = walkable_view.buf;
    const int32_t *bound_cells = cells_view.buf;
    int ok = walkable[start] && walkable[goal];
    for (Py_ssize_t i = 0; ok && i < bound_count; i++)
        ok = bound_cells[i] >= 0 && bound_cells[i] < size;
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "start, goal and bound cells must be walkable cells");
        PyBuffer_Release(&offsets_view);
        PyBuffer_Release(&cells_view);
        goto fail_links;
    }
    Linked problem = {walkable,
                      have_costs ? costs_view.buf : NULL,
                      (long)height,
                      (long)width,
                      (int32_t)start,
                      (int32_t)goal,
                      rule,
                      kind,
                      unit,
                      h_weight,
                      g_weight,
                      links.first.buf,
                      links.target.buf,
                      links.hop.buf,
                      bound_cells,
                      offsets_view.buf,
                      bound_count,
                      NULL};
    /* Each bound costs a heuristic per h: with bounds, h is worth keeping per cell, as the
     * Python loop keeps it (the same values: the same operations). */
    if (bound_count > 0) {
        problem.h_cache = PyMem_RawMalloc((size_t)size * sizeof(double));
        if (problem.h_cache == NULL) {
            PyBuffer_Release(&offsets_view);
            PyBuffer_Release(&cells_view);
            give_links(&links);
            if (have_costs) PyBuffer_Release(&costs_view);
            PyBuffer_Release(&walkable_view);
            return PyErr_NoMemory();
        }
        for (Py_ssize_t i = 0; i < size; i++) problem.h_cache[i] = -1.0;
    }
    Workspace *ws = workspace_take(size);
    if (ws == NULL) {
        PyMem_RawFree(problem.h_cache);
        PyBuffer_Release(&offsets_view);
        PyBuffer_Release(&cells_view);
        give_links(&links);
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return PyErr_NoMemory();
    }
    Py_ssize_t expanded = 0, path_length = 0;
    int32_t *path = NULL;
    double cost = INFINITY;
    int status;
    Frontier frontier = frontier_start(ws);
    Py_BEGIN_ALLOW_THREADS
    status = linked_loop(&problem, &frontier, &expanded);
    if (status == SEARCH_FOUND) {
        for (int32_t cell = problem.goal;; cell = ws->state[cell].came_from) {
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
                cell = ws->state[cell].came_from;
            }
            cost = linked_path_cost(&problem, path, path_length);
        }
    }
    frontier_reset(&frontier);
    Py_END_ALLOW_THREADS
    workspace_give_back(ws);
    PyMem_RawFree(problem.h_cache);
    PyBuffer_Release(&offsets_view);
    PyBuffer_Release(&cells_view);
    give_links(&links);
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    return search_answer(status, path, path_length, width, cost, expanded);
fail_links:
    give_links(&links);
fail_grid:
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    return NULL;
}

/* ---- The distance field of field.py with links (`_reverse_dijkstra_python`) ----
 *
 * Dijkstra outward from the goal: a grid step neighbour -> current costs `length *
 * cost[current]`, then each link into `current` (the CSR arrays of LinkGraph.into) costs its
 * hop, skipped when its start is closed or blocked. Python's heap of (cost, cell) tuples with
 * stale entries, in the same order; `out` gets every cell's cost, INFINITY where unreachable. */
static int linked_field_loop(const Linked *p, Workspace *ws, double *out) {
    const Py_ssize_t size = (Py_ssize_t)p->height * p->width;
    const int count_moves = p->rule == DIAG_NEVER ? 4 : 8;
    uint8_t *closed = ws->closed;
    Py_ssize_t count = 0;
    int ok = 1;
    for (Py_ssize_t i = 0; i < size; i++) out[i] = INFINITY;
    if (!p->walkable[p->goal]) return 1;
    out[p->goal] = 0.0;
    heap_sift_up(ws->heap, NULL, count++, (Node){bits_of(0.0), 0, p->goal});
    while (count > 0) {
        const Node node = heap_pop(ws->heap, NULL, &count);
        const int32_t current = node.cell;
        if (closed[current]) continue;
        closed[current] = 1;
        const int32_t links_from = p->first[current], links_to = p->first[current + 1];
        if (!heap_reserve(ws, count, 8 + (links_to - links_from))) {
            ok = 0;
            break;
        }
        double g;
        memcpy(&g, &node.priority_bits, sizeof g);
        const double enter = p->costs ? p->costs[current] : 1.0;
        const long row = current / p->width, col = current % p->width;
        for (int i = 0; i < count_moves; i++) {
            if (!legal_move(p, row, col, i)) continue;
            const int32_t neighbour = (int32_t)((row + D_ROW[i]) * p->width + col + D_COL[i]);
            if (closed[neighbour]) continue;
            const double new_cost = g + (i < 4 ? 1.0 : SQRT2) * enter;
            if (!(new_cost < out[neighbour])) continue;
            out[neighbour] = new_cost;
            heap_sift_up(ws->heap, NULL, count++, (Node){bits_of(new_cost), 0, neighbour});
        }
        for (int32_t k = links_from; k < links_to; k++) {
            const int32_t start = p->target[k];
            if (closed[start] || !p->walkable[start]) continue;
            const double new_cost = g + p->hop[k];
            if (!(new_cost < out[start])) continue;
            out[start] = new_cost;
            heap_sift_up(ws->heap, NULL, count++, (Node){bits_of(new_cost), 0, start});
        }
    }
    memset(closed, 0, (size_t)size);
    return ok;
}

PyDoc_STRVAR(field_doc,
             "field(walkable, costs, height, width, goal, diagonal, first, target, hop, out)\n"
             "-> None\n\n"
             "Fill `out` with every cell's cost to flat `goal` over moves and the links given\n"
             "reversed (LinkGraph.csr(reverse=True)); see sim/navigation/field.py.");

static PyObject *linked_field(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *costs_obj, *first_obj, *target_obj, *hop_obj, *out_obj;
    Py_ssize_t height, width, goal;
    int rule;
    if (!PyArg_ParseTuple(args, "OOnnniOOOO:field", &walkable_obj, &costs_obj, &height, &width,
                          &goal, &rule, &first_obj, &target_obj, &hop_obj, &out_obj))
        return NULL;
    if (rule < DIAG_NEVER || rule > DIAG_ALWAYS) {
        PyErr_SetString(PyExc_ValueError, "unknown diagonal rule code");
        return NULL;
    }
    if (!check_grid(height, width)) return NULL;
    const Py_ssize_t size = height * width;
    if (goal < 0 || goal >= size) {
        PyErr_Format(PyExc_ValueError, "goal %zd outside the %zd cells", goal, size);
        return NULL;
    }
    Py_buffer walkable_view, costs_view, out_view;
    LinkViews links;
    const int have_costs = take_grid(walkable_obj, costs_obj, size, &walkable_view, &costs_view);
    if (have_costs < 0) return NULL;
    if (!take_links(first_obj, target_obj, hop_obj, size, &links)) goto fail_grid;
    if (PyObject_GetBuffer(out_obj, &out_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) <
        0)
        goto fail_links;
    if (out_view.itemsize != 8 || out_view.len != size * 8 || !format_is(&out_view, 'd')) {
        PyErr_Format(PyExc_ValueError, "out must be %zd writable contiguous float64 values", size);
        PyBuffer_Release(&out_view);
        goto fail_links;
    }
    Linked problem = {walkable_view.buf,
                      have_costs ? costs_view.buf : NULL,
                      (long)height,
                      (long)width,
                      0,
                      (int32_t)goal,
                      rule,
                      H_ZERO,
                      0,
                      0.0,
                      0.0,
                      links.first.buf,
                      links.target.buf,
                      links.hop.buf,
                      NULL,
                      NULL,
                      0,
                      NULL};
    Workspace *ws = workspace_take(size);
    int ok = ws != NULL;
    if (ok) {
        Py_BEGIN_ALLOW_THREADS
        ok = linked_field_loop(&problem, ws, out_view.buf);
        Py_END_ALLOW_THREADS
        workspace_give_back(ws);
    }
    PyBuffer_Release(&out_view);
    give_links(&links);
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    if (!ok) return PyErr_NoMemory();
    Py_RETURN_NONE;
fail_links:
    give_links(&links);
fail_grid:
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    return NULL;
}

static PyMethodDef linked_methods[] = {
    {"search", linked_search, METH_VARARGS, search_doc},
    {"field", linked_field, METH_VARARGS, field_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef linked_module = {
    PyModuleDef_HEAD_INIT, "_linked", "Compiled searches with links (see kernel.py).", -1,
    linked_methods,        NULL,      NULL,
    NULL,                  grid_search_free,
};

PyMODINIT_FUNC PyInit__linked(void) {
    heuristics_init();
    return PyModule_Create(&linked_module);
}
