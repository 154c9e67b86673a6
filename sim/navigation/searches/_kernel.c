/* The hot loop of sim/navigation/searches/best_first.py in C: one best-first search on a walkable mask.
 *
 * It mirrors `Search.advance` step for step, so that both return identical paths, costs and
 * expansion counts (tests/unit/test_nav_kernel.py checks it):
 *   - the legal moves of a cell are those of `MoveGraph.build`: the 4 (or 8) neighbours in
 *     `DIRECTIONS` order, inside the grid and walkable, a diagonal only when as many of the
 *     two orthogonal cells it passes between are walkable as the diagonal rule asks (a
 *     DIAG_* code, `DiagonalRule.code`: both for no corner cutting, one, or none);
 *   - a step costs `length * cost[neighbour]` (length 1 or sqrt(2)), added to g exactly as
 *     Python does, and h is `h_weight * heuristic`, the heuristic in the same operation order
 *     as heuristics.py and `h_weight` the one factor Python uses too (PriorityTerms.h_factor:
 *     the weight times the heuristic scale, below 1 when some cells cost less than 1);
 *   - priorities are floor((g_weight * g + h) * TIE_SCALE); ties go to the smaller h, then to
 *     the smaller flat cell index; closed cells are never reopened; a neighbour is relaxed only
 *     on a strictly lower cost.
 * Bit-identical sums need the compiler not to fuse a * b + c into one FMA instruction (which
 * rounds once instead of twice); the pragmas of ../_common.h forbid that on GCC and Clang.
 *
 * `field` (further down) is the distance field of field.py on the same move rules, and
 * `clearance` the exact distance transform of clearance.py.
 *
 * Speed: the frontier and the per-cell records of _grid_search.h (shared with _jps.c).
 * Compared with the binary heap of stale entries and separate arrays they replaced, a search
 * takes 0.5 to 0.8 times as long on the Moving AI maps (timed side by side in one process).
 * The GIL is released during the search; the input buffers stay pinned by their Py_buffer views.
 */
#include "_grid_search.h"
#include "_plain_lane.h"
#include "_plain_call.h"
#include <structmember.h> /* PyMemberDef, T_OBJECT_EX, READONLY */

/* The diagonal rules of sim/navigation/diagonal.py, by `DiagonalRule.code`. */
enum { DIAG_NEVER = 0, DIAG_NO_CORNER_CUTTING = 1, DIAG_ONE_OBSTACLE = 2, DIAG_ALWAYS = 3 };

/* How many of a diagonal step's two corners (orthogonal cells) must be walkable. */
static inline int corners_needed(int rule) {
    return rule == DIAG_NO_CORNER_CUTTING ? 2 : rule == DIAG_ONE_OBSTACLE ? 1 : 0;
}

/* Take the views of `walkable` (`size` bytes, bool or uint8) and, unless `costs` is None, of
 * `costs` (`size` float64 values): 1 with both taken, 0 with walkable's only (no costs), -1
 * with an exception set and none taken. */
static int take_grid(PyObject *walkable, PyObject *costs, Py_ssize_t size,
                     Py_buffer *walkable_view, Py_buffer *costs_view) {
    if (PyObject_GetBuffer(walkable, walkable_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    if (walkable_view->itemsize != 1 || walkable_view->len != size ||
        !(format_is(walkable_view, '?') || format_is(walkable_view, 'B'))) {
        PyErr_Format(PyExc_ValueError,
                     "walkable must be %zd contiguous bytes (bool or uint8), got %zd items of "
                     "%zd bytes",
                     size, walkable_view->len / (walkable_view->itemsize ? walkable_view->itemsize : 1),
                     walkable_view->itemsize);
        PyBuffer_Release(walkable_view);
        return -1;
    }
    if (costs == Py_None) return 0;
    if (PyObject_GetBuffer(costs, costs_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(walkable_view);
        return -1;
    }
    if (costs_view->itemsize != 8 || costs_view->len != size * 8 || !format_is(costs_view, 'd')) {
        PyErr_Format(PyExc_ValueError, "costs must be %zd contiguous float64 values, got %zd bytes",
                     size, costs_view->len);
        PyBuffer_Release(costs_view);
        PyBuffer_Release(walkable_view);
        return -1;
    }
    return 1;
}

/* ---- search: Search.advance in C ---- */

typedef struct {
    const uint8_t *walkable;
    const double *costs; /* NULL: every cell costs 1 */
    Py_ssize_t height, width;
    int32_t start, goal;
    int diagonal, heuristic, unit;
    double h_weight, g_weight;
} Problem;

/* Start loading the cache lines the next expansion will probably read: the rows above and
 * below the heap's top cell. In a maze the next cell to expand is often far from the current
 * one, and the search would otherwise wait on memory there (about 15 % of a search on
 * maze512-1-0). A guess: it costs little when the hand, a neighbour already in cache, comes
 * out first instead. */
static HOT_INLINE void prefetch_next(const Frontier *f, const uint8_t *walkable, long width,
                                     long size) {
    if (f->count == 0) return;
    const long cell = f->heap[0].cell;
    const long above = cell >= width ? cell - width : cell;
    const long below = cell + width < size ? cell + width : cell;
    PREFETCH(&f->state[above]);
    PREFETCH(&f->state[below]);
    PREFETCH(&walkable[above]);
    PREFETCH(&walkable[below]);
}

/* What a relaxation needs besides the frontier: set once per search in a local variable, so
 * that once inlined the compiler keeps it in registers. */
typedef struct {
    const double *costs; /* NULL: every step costs its length (always so for breadth-first) */
    double h_weight, g_weight;
    long goal_row, goal_col;
    int kind; /* the heuristic, a constant in each copy of search_loop */
} Scoring;

/* Relax the move current -> neighbour at (n_row, n_col) of the given length, as
 * Search.advance: skip a closed neighbour, keep only a strictly lower cost. */
static HOT_INLINE void relax(Frontier *f, const Scoring *s, int32_t current, double g,
                             int32_t neighbour, long n_row, long n_col, double length) {
    CellState *next = &f->state[neighbour];
    if (next->slot == SLOT_CLOSED) return;
    const double new_cost = g + length * (s->costs ? s->costs[neighbour] : 1.0);
    if (!(new_cost < next->cost_so_far)) return;
    next->cost_so_far = new_cost;
    next->came_from = current;
    const double h = s->h_weight * heuristic_of(s->kind, labs(n_col - s->goal_col),
                                                labs(n_row - s->goal_row));
    const double priority = floor((s->g_weight * new_cost + h) * TIE_SCALE);
    frontier_update(f, (Node){bits_of(priority), bits_of(h), neighbour});
}

/* The loop of Search.advance for the heuristic `kind` (a constant in each of the copies
 * run_search makes, so the switch in heuristic_of folds away). `corner_rules` (a constant
 * too) is 1 for the rules that pass blocked corners (one-obstacle, always), 0 for never and
 * no corner cutting, whose copies keep to the four tests of old (sharing the general test,
 * they measured 2 to 7 % slower on the Moving AI maps). Runs without the GIL. */
static HOT_INLINE int search_loop(const Problem *p, Frontier *f, int kind, int corner_rules,
                                  Py_ssize_t *expanded_out) {
    const uint8_t *walkable = p->walkable;
    const long width = (long)p->width, height = (long)p->height;
    const int32_t goal = p->goal;
    const int diagonal = p->diagonal;
    const int need = corner_rules ? corners_needed(diagonal) : 2;
    const double diagonal_length = p->unit ? 1.0 : SQRT2;
    const Scoring s = {p->unit ? NULL : p->costs, p->h_weight, p->g_weight, goal / width,
                       goal % width, kind};
    Py_ssize_t expanded = 0;
    int status = SEARCH_UNREACHABLE;
    const double h = s.h_weight * heuristic_of(kind, labs(p->start % width - s.goal_col),
                                               labs(p->start / width - s.goal_row));
    f->state[p->start].cost_so_far = 0.0;
    frontier_update(f, (Node){bits_of(floor(h * TIE_SCALE)), bits_of(h), p->start});
    while (!frontier_empty(f)) {
        const int32_t current = frontier_pop(f).cell;
        expanded++;
        if (current == goal) {
            status = SEARCH_FOUND;
            break;
        }
        if (!frontier_reserve(f, 8)) {
            status = SEARCH_NO_MEMORY;
            break;
        }
        prefetch_next(f, walkable, width, width * height);
        const double g = f->state[current].cost_so_far;
        const long row = current / width, col = current % width;
        /* The moves of MoveGraph.build in DIRECTIONS order: up, down, left, right, then the
         * diagonals, each only between two open orthogonal neighbours (no corner cutting). */
        const int up = row > 0 && walkable[current - width];
        const int down = row + 1 < height && walkable[current + width];
        const int left = col > 0 && walkable[current - 1];
        const int right = col + 1 < width && walkable[current + 1];
        if (up) relax(f, &s, current, g, current - width, row - 1, col, 1.0);
        if (down) relax(f, &s, current, g, current + width, row + 1, col, 1.0);
        if (left) relax(f, &s, current, g, current - 1, row, col - 1, 1.0);
        if (right) relax(f, &s, current, g, current + 1, row, col + 1, 1.0);
        if (diagonal == DIAG_NEVER) continue;
        if (!corner_rules) { /* no corner cutting: both corners open */
            if (up && left && walkable[current - width - 1])
                relax(f, &s, current, g, current - width - 1, row - 1, col - 1, diagonal_length);
            if (up && right && walkable[current - width + 1])
                relax(f, &s, current, g, current - width + 1, row - 1, col + 1, diagonal_length);
            if (down && left && walkable[current + width - 1])
                relax(f, &s, current, g, current + width - 1, row + 1, col - 1, diagonal_length);
            if (down && right && walkable[current + width + 1])
                relax(f, &s, current, g, current + width + 1, row + 1, col + 1, diagonal_length);
            continue;
        }
        /* one-obstacle / always: the diagonal cell inside the grid, walkable, with enough
         * open corners (the same moves, in the same order, as MoveGraph.build). */
        const int top = row > 0, bottom = row + 1 < height, west = col > 0, east = col + 1 < width;
        if (top && west && up + left >= need && walkable[current - width - 1])
            relax(f, &s, current, g, current - width - 1, row - 1, col - 1, diagonal_length);
        if (top && east && up + right >= need && walkable[current - width + 1])
            relax(f, &s, current, g, current - width + 1, row - 1, col + 1, diagonal_length);
        if (bottom && west && down + left >= need && walkable[current + width - 1])
            relax(f, &s, current, g, current + width - 1, row + 1, col - 1, diagonal_length);
        if (bottom && east && down + right >= need && walkable[current + width + 1])
            relax(f, &s, current, g, current + width + 1, row + 1, col + 1, diagonal_length);
    }
    *expanded_out = expanded;
    return status;
}

/* Runs without the GIL: touches only the problem's buffers and the workspace, and leaves the
 * search tree in ws->state (came_from) until frontier_reset. */
/* The rules that pass blocked corners share one copy, the heuristic read at run time; kept
 * out of line so that run_search's copies compile as they did before these rules. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int run_corner_rules(const Problem *p, Frontier *f, Py_ssize_t *expanded_out) {
    return search_loop(p, f, p->heuristic, 1, expanded_out);
}

static int run_search(const Problem *p, Frontier *f, Py_ssize_t *expanded_out) {
    if (p->diagonal == DIAG_ONE_OBSTACLE || p->diagonal == DIAG_ALWAYS)
        return run_corner_rules(p, f, expanded_out);
    switch (p->heuristic) {
        case H_MANHATTAN:
            return search_loop(p, f, H_MANHATTAN, 0, expanded_out);
        case H_OCTILE:
            return search_loop(p, f, H_OCTILE, 0, expanded_out);
        case H_EUCLIDEAN:
            return search_loop(p, f, H_EUCLIDEAN, 0, expanded_out);
        case H_CHEBYSHEV:
            return search_loop(p, f, H_CHEBYSHEV, 0, expanded_out);
        default:
            return search_loop(p, f, H_ZERO, 0, expanded_out);
    }
}

PyDoc_STRVAR(search_doc,
             "search(walkable, costs, height, width, start, goal, diagonal, heuristic, h_weight,\n"
             "       g_weight, unit) -> (found, cells, cost, expanded)\n\n"
             "One best-first search; see sim/navigation/searches/kernel.py for the contract.");

/* One search on `walkable` (and `costs`, NULL for none), checked by the caller as search_grid
 * checks them, their views held until it returns: 0 with `out` filled, -1 with an exception
 * set (out of memory). The GIL is released during the search. */
static int search_bytes(const uint8_t *walkable, const double *costs, Py_ssize_t height,
                        Py_ssize_t width, Py_ssize_t start, Py_ssize_t goal, int diagonal,
                        int heuristic, double h_weight, double g_weight, int unit,
                        PlainOutcome *out) {
    const Py_ssize_t size = height * width;
    Problem problem = {walkable,       costs,          height,    width,   (int32_t)start,
                       (int32_t)goal,  diagonal,       heuristic, unit,    h_weight,
                       g_weight};
    Workspace *ws = workspace_take(size);
    if (ws == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t expanded = 0, path_length = 0;
    int32_t *path = NULL;
    double cost = INFINITY;
    int status;
    Frontier frontier = frontier_start(ws);
    Py_BEGIN_ALLOW_THREADS
    status = run_search(&problem, &frontier, &expanded);
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
            cost = path_cost(path, path_length, width, problem.costs);
        }
    }
    frontier_reset(&frontier);
    Py_END_ALLOW_THREADS
    workspace_give_back(ws);
    if (status == SEARCH_NO_MEMORY) {
        PyErr_NoMemory();
        return -1;
    }
    *out = (PlainOutcome){status, path, path_length, cost, expanded};
    return 0;
}

/* One search, as search() runs it once its arguments are parsed: shared with `call`. */
static PyObject *search_grid(PyObject *walkable_obj, PyObject *costs_obj, Py_ssize_t height,
                             Py_ssize_t width, Py_ssize_t start, Py_ssize_t goal, int diagonal,
                             int heuristic, double h_weight, double g_weight, int unit) {
    if (diagonal < DIAG_NEVER || diagonal > DIAG_ALWAYS) {
        PyErr_Format(PyExc_ValueError, "diagonal rule code %d: need 0 to 3", diagonal);
        return NULL;
    }
    if (!check_grid(height, width)) return NULL;
    const Py_ssize_t size = height * width;
    if (!check_ends(start, goal, size)) return NULL;
    if (heuristic < H_MANHATTAN || heuristic > H_ZERO) {
        PyErr_Format(PyExc_ValueError, "unknown heuristic code %d", heuristic);
        return NULL;
    }
    if (!(isfinite(h_weight) && h_weight >= 0.0 && isfinite(g_weight) && g_weight >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "h_weight and g_weight must be finite and >= 0");
        return NULL;
    }

    Py_buffer walkable_view, costs_view;
    const int have_costs = take_grid(walkable_obj, costs_obj, size, &walkable_view, &costs_view);
    if (have_costs < 0) return NULL;
    const uint8_t *walkable = walkable_view.buf;
    if (!walkable[start] || !walkable[goal]) {
        PyErr_SetString(PyExc_ValueError, "start and goal must be walkable cells");
        if (have_costs) PyBuffer_Release(&costs_view);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }

    PlainOutcome out;
    const int ok = search_bytes(walkable, have_costs ? costs_view.buf : NULL, height, width, start,
                                goal, diagonal, heuristic, h_weight, g_weight, unit, &out);
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    if (ok < 0) return NULL;
    return search_answer(out.status, out.path, out.length, width, out.cost, out.expanded);
}

static PyObject *kernel_search(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *costs_obj;
    Py_ssize_t height, width, start, goal;
    int diagonal, heuristic, unit;
    double h_weight, g_weight;
    if (!PyArg_ParseTuple(args, "OOnnnniiddp:search", &walkable_obj, &costs_obj, &height, &width,
                          &start, &goal, &diagonal, &heuristic, &h_weight, &g_weight, &unit))
        return NULL;
    return search_grid(walkable_obj, costs_obj, height, width, start, goal, diagonal, heuristic,
                       h_weight, g_weight, unit);
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

/* Relax the move neighbour -> current (toward the goal), as `_reverse_dijkstra_python`: skip a
 * closed neighbour, keep only a strictly lower cost. */
static HOT_INLINE void field_relax(const FieldProblem *p, Workspace *ws, Py_ssize_t *count,
                                   int32_t neighbour, double new_cost) {
    if (ws->closed[neighbour] || !(new_cost < p->out[neighbour])) return;
    p->out[neighbour] = new_cost;
    /* Node.priority_bits holds the cost, h_bits is 0: node_less is (cost, cell) order. */
    heap_sift_up(ws->heap, NULL, (*count)++, (Node){bits_of(new_cost), 0, neighbour});
}

/* Runs without the GIL: touches only the problem's buffers and the workspace's heap and closed
 * bytes (which it leaves all 0 again). Returns 0 when out of memory.
 *
 * Unlike `search`, it keeps Python's stale entries (a plain heap) and one closed byte per cell:
 * it visits the whole grid, and there 16-byte CellState records, and the slot updates of
 * decrease-key, cost more memory traffic than they save (measured 0.8 times the speed on
 * maze512-32-9). */
static HOT_INLINE int field_loop(const FieldProblem *p, Workspace *ws, int corner_rules) {
    const uint8_t *walkable = p->walkable;
    const long width = (long)p->width, height = (long)p->height;
    const Py_ssize_t size = p->height * p->width;
    uint8_t *closed = ws->closed;
    Py_ssize_t count = 0;
    int ok = 1;
    for (Py_ssize_t i = 0; i < size; i++) p->out[i] = INFINITY;
    if (!walkable[p->goal]) return 1;
    p->out[p->goal] = 0.0;
    heap_sift_up(ws->heap, NULL, count++, (Node){bits_of(0.0), 0, p->goal});
    while (count > 0) {
        const Node node = heap_pop(ws->heap, NULL, &count);
        const int32_t current = node.cell;
        if (closed[current]) continue; /* a stale entry: pushed again with a lower cost */
        closed[current] = 1;
        if (!heap_reserve(ws, count, 8)) {
            ok = 0;
            break;
        }
        double g;
        memcpy(&g, &node.priority_bits, sizeof g);
        const double enter = p->costs ? p->costs[current] : 1.0;
        const double straight = g + 1.0 * enter, diagonal = g + SQRT2 * enter;
        const long row = current / width, col = current % width;
        /* The moves of MoveGraph.build from `current`: they are symmetric, so these are also
         * the cells that can step onto it. */
        const int up = row > 0 && walkable[current - width];
        const int down = row + 1 < height && walkable[current + width];
        const int left = col > 0 && walkable[current - 1];
        const int right = col + 1 < width && walkable[current + 1];
        if (up) field_relax(p, ws, &count, current - width, straight);
        if (down) field_relax(p, ws, &count, current + width, straight);
        if (left) field_relax(p, ws, &count, current - 1, straight);
        if (right) field_relax(p, ws, &count, current + 1, straight);
        if (p->diagonal == DIAG_NEVER) continue;
        if (!corner_rules) { /* no corner cutting: both corners open */
            if (up && left && walkable[current - width - 1])
                field_relax(p, ws, &count, current - width - 1, diagonal);
            if (up && right && walkable[current - width + 1])
                field_relax(p, ws, &count, current - width + 1, diagonal);
            if (down && left && walkable[current + width - 1])
                field_relax(p, ws, &count, current + width - 1, diagonal);
            if (down && right && walkable[current + width + 1])
                field_relax(p, ws, &count, current + width + 1, diagonal);
            continue;
        }
        /* one-obstacle / always: inside the grid, walkable, with enough open corners. */
        const int need = corners_needed(p->diagonal);
        const int top = row > 0, bottom = row + 1 < height, west = col > 0, east = col + 1 < width;
        if (top && west && up + left >= need && walkable[current - width - 1])
            field_relax(p, ws, &count, current - width - 1, diagonal);
        if (top && east && up + right >= need && walkable[current - width + 1])
            field_relax(p, ws, &count, current - width + 1, diagonal);
        if (bottom && west && down + left >= need && walkable[current + width - 1])
            field_relax(p, ws, &count, current + width - 1, diagonal);
        if (bottom && east && down + right >= need && walkable[current + width + 1])
            field_relax(p, ws, &count, current + width + 1, diagonal);
    }
    memset(closed, 0, (size_t)size);
    return ok;
}

/* One copy for never and no corner cutting, as before the other rules; one for those. */
static int run_field(const FieldProblem *p, Workspace *ws) {
    if (p->diagonal == DIAG_ONE_OBSTACLE || p->diagonal == DIAG_ALWAYS)
        return field_loop(p, ws, 1);
    return field_loop(p, ws, 0);
}

PyDoc_STRVAR(field_doc,
             "field(walkable, costs, height, width, goal, diagonal, out) -> None\n\n"
             "Fill `out` (height * width float64) with every cell's cost to flat `goal`;\n"
             "see sim/navigation/searches/kernel.py (field_flat) for the contract.");

static PyObject *kernel_field(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *costs_obj, *out_obj;
    Py_ssize_t height, width, goal;
    int diagonal;
    if (!PyArg_ParseTuple(args, "OOnnniO:field", &walkable_obj, &costs_obj, &height, &width,
                          &goal, &diagonal, &out_obj))
        return NULL;
    if (diagonal < DIAG_NEVER || diagonal > DIAG_ALWAYS) {
        PyErr_Format(PyExc_ValueError, "diagonal rule code %d: need 0 to 3", diagonal);
        return NULL;
    }
    if (!check_grid(height, width)) return NULL;
    const Py_ssize_t size = height * width;
    if (goal < 0 || goal >= size) {
        PyErr_Format(PyExc_ValueError, "goal %zd outside the %zd cells", goal, size);
        return NULL;
    }

    Py_buffer out_view;
    Py_buffer walkable_view, costs_view;
    const int have_costs = take_grid(walkable_obj, costs_obj, size, &walkable_view, &costs_view);
    if (have_costs < 0) return NULL;
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
    if (views_overlap(&out_view, &walkable_view) ||
        (have_costs && views_overlap(&out_view, &costs_view))) {
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

/* ---- The clearance map of sim/navigation/clearance.py (`_column_gaps`, `_row_envelope`) ----
 *
 * `out[row * width + col]` receives the squared distance, in half cells, from the centre of
 * cell (row, col) to the nearest point of the half-cell lattice that lies on a blocked cell's
 * closed square or on the grid's border: the integers of the numpy reference, computed the
 * same way. First, per lattice column, the vertical gap to the nearest such point (a running
 * index of the last blocked row, down and then up; rows -1 and `height` are the border), then
 * along each row the lower envelope of the parabolas (X - X')^2 + gap(X')^2 (Felzenszwalb and
 * Huttenlocher), whose breakpoints are ratios of integers below 2**53: the double division
 * and comparisons order them exactly as the reference does. */
static int run_clearance(const uint8_t *walkable, Py_ssize_t height, Py_ssize_t width,
                         int64_t *out) {
    const Py_ssize_t size = 2 * width + 1; /* lattice columns: 2 * col + 1 are cell centres */
    int64_t *f = PyMem_RawMalloc((size_t)size * sizeof(int64_t));
    int64_t *apex = PyMem_RawMalloc((size_t)size * sizeof(int64_t));
    double *start = PyMem_RawMalloc((size_t)(size + 1) * sizeof(double));
    if (f == NULL || apex == NULL || start == NULL) {
        PyMem_RawFree(f);
        PyMem_RawFree(apex);
        PyMem_RawFree(start);
        return 0;
    }
    /* Rows away from the nearest blocked row in the same column, above (apex holds the last
     * blocked row of each column) and then below (f holds the next one). */
    for (Py_ssize_t col = 0; col < width; col++) apex[col] = -1;
    for (Py_ssize_t row = 0; row < height; row++) {
        for (Py_ssize_t col = 0; col < width; col++) {
            const Py_ssize_t i = row * width + col;
            if (!walkable[i]) apex[col] = row;
            out[i] = row - apex[col];
        }
    }
    for (Py_ssize_t col = 0; col < width; col++) f[col] = height;
    for (Py_ssize_t row = height - 1; row >= 0; row--) {
        for (Py_ssize_t col = 0; col < width; col++) {
            const Py_ssize_t i = row * width + col;
            if (!walkable[i]) f[col] = row;
            const int64_t below = f[col] - row;
            const int64_t away = out[i] < below ? out[i] : below;
            /* A blocked square's nearest lattice point is on its side: 2 * away - 1. */
            out[i] = away > 0 ? 2 * away - 1 : 0;
        }
    }
    for (Py_ssize_t row = 0; row < height; row++) {
        int64_t *gaps = out + row * width; /* read into f, then overwritten with the result */
        f[0] = 0;
        f[size - 1] = 0;
        for (Py_ssize_t col = 0; col < width; col++) f[2 * col + 1] = gaps[col] * gaps[col];
        for (Py_ssize_t col = 1; col < width; col++) {
            const int64_t gap = gaps[col - 1] < gaps[col] ? gaps[col - 1] : gaps[col];
            f[2 * col] = gap * gap;
        }
        Py_ssize_t top = 0;
        apex[0] = 0;
        start[0] = -INFINITY;
        start[1] = INFINITY;
        for (int64_t q = 1; q < size; q++) {
            double cross;
            for (;;) {
                const int64_t v = apex[top];
                cross = (double)((f[q] + q * q) - (f[v] + v * v)) / (2.0 * (double)(q - v));
                if (cross > start[top]) break;
                top--;
            }
            top++;
            apex[top] = q;
            start[top] = cross;
            start[top + 1] = INFINITY;
        }
        top = 0;
        for (Py_ssize_t col = 0; col < width; col++) {
            const int64_t x = 2 * col + 1;
            while (start[top + 1] < (double)x) top++;
            const int64_t v = apex[top];
            gaps[col] = (x - v) * (x - v) + f[v];
        }
    }
    PyMem_RawFree(f);
    PyMem_RawFree(apex);
    PyMem_RawFree(start);
    return 1;
}

PyDoc_STRVAR(clearance_doc,
             "clearance(walkable, height, width, out) -> None\n\n"
             "Fill `out` (height * width int64) with every cell centre's squared distance to\n"
             "the nearest wall, in half cells; see sim/navigation/searches/kernel.py (clearance_flat).");

static PyObject *kernel_clearance(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *out_obj;
    Py_ssize_t height, width;
    if (!PyArg_ParseTuple(args, "OnnO:clearance", &walkable_obj, &height, &width, &out_obj))
        return NULL;
    /* Squares of lattice coordinates up to 2 * 2**25 + 1 stay far below 2**53. */
    if (height <= 0 || width <= 0 || height > ((Py_ssize_t)1 << 25) ||
        width > ((Py_ssize_t)1 << 25) || height > PY_SSIZE_T_MAX / 8 / width) {
        PyErr_Format(PyExc_ValueError, "grid of %zd x %zd cells: need 1 to 2**25 a side",
                     height, width);
        return NULL;
    }
    const Py_ssize_t size = height * width;
    Py_buffer walkable_view, out_view;
    if (PyObject_GetBuffer(walkable_obj, &walkable_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (walkable_view.itemsize != 1 || walkable_view.len != size ||
        !(format_is(&walkable_view, '?') || format_is(&walkable_view, 'B'))) {
        PyErr_Format(PyExc_ValueError, "walkable must be %zd contiguous bytes (bool or uint8)",
                     size);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    if (PyObject_GetBuffer(out_obj, &out_view,
                           PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    if (!is_int64(&out_view) || out_view.len != size * 8) {
        PyErr_Format(PyExc_ValueError, "out must be %zd contiguous int64 values, got %zd bytes",
                     size, out_view.len);
        PyBuffer_Release(&out_view);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    if (views_overlap(&out_view, &walkable_view)) {
        PyErr_SetString(PyExc_ValueError, "out must not share memory with walkable");
        PyBuffer_Release(&out_view);
        PyBuffer_Release(&walkable_view);
        return NULL;
    }
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = run_clearance(walkable_view.buf, height, width, out_view.buf);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out_view);
    PyBuffer_Release(&walkable_view);
    if (!ok) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

/* ---- The cheap call: checks and results without Python's per-call cost (kernel.py) ----
 *
 * `configure` is told once (when kernel.py is imported) the numpy array type, the result class
 * and its two reasons; `flat_ends` then makes the checks of prepared.py and hot_path.py in one C
 * call, `result` builds a PathResult from a search's answer, and `batch` runs many searches on
 * one mask in one call, the GIL released. */

static PyTypeObject *array_type = NULL;
static PyTypeObject *result_type = NULL;
static PyObject *reason_found = NULL, *reason_unreachable = NULL;
/* The slot descriptors of found, cells, cost, expanded and reason: setting a frozen
 * dataclass's fields through them is what its generated __init__ does, without the calls. */
#define RESULT_FIELDS 5
static PyObject *result_fields[RESULT_FIELDS];
/* Where each field's slot lies in a PathResult, or -1 (set through its descriptor): a slot's
 * member descriptor (LazyCells' own slot for `cells`) stores the value at an offset, which a
 * new result's fields are written to directly, five descriptor calls fewer a call. */
static Py_ssize_t result_offsets[RESULT_FIELDS];
static PyTypeObject LazyCellsType;
static PyObject *lazy_cells_slot(PyObject *self);
static const char *const RESULT_NAMES[RESULT_FIELDS] = {"found", "cells", "cost", "expanded",
                                                        "reason"};

static void cheap_call_free(void) {
    Py_CLEAR(array_type);
    Py_CLEAR(result_type);
    Py_CLEAR(reason_found);
    Py_CLEAR(reason_unreachable);
    for (int i = 0; i < RESULT_FIELDS; i++) Py_CLEAR(result_fields[i]);
}

/* The offset a writable object slot's descriptor `field` stores at (through a LazyCells, its
 * slot's), else -1. */
static Py_ssize_t slot_offset(PyObject *field) {
    if (Py_TYPE(field) == &LazyCellsType) field = lazy_cells_slot(field);
    if (Py_TYPE(field) != &PyMemberDescr_Type) return -1;
    const PyMemberDef *member = ((PyMemberDescrObject *)field)->d_member;
    return member->type == T_OBJECT_EX && !(member->flags & READONLY) ? member->offset : -1;
}

/* Field `i` of a new `result` set to `value` (not stolen), as the field's descriptor sets it:
 * 0, or -1 with an exception set. */
static inline int result_store(PyObject *result, int i, PyObject *value) {
    if (result_offsets[i] < 0)
        return Py_TYPE(result_fields[i])->tp_descr_set(result_fields[i], result, value);
    PyObject **slot = (PyObject **)((char *)result + result_offsets[i]);
    Py_XSETREF(*slot, Py_NewRef(value));
    return 0;
}

PyDoc_STRVAR(configure_doc,
             "configure(array_type, result_type, found, unreachable) -> None\n\n"
             "The types flat_ends and result use; see sim/navigation/searches/kernel.py.");

static PyObject *kernel_configure(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *arrays, *results, *found, *unreachable;
    if (!PyArg_ParseTuple(args, "O!O!OO:configure", &PyType_Type, &arrays, &PyType_Type, &results,
                          &found, &unreachable))
        return NULL;
    PyObject *fields[RESULT_FIELDS] = {NULL};
    for (int i = 0; i < RESULT_FIELDS; i++) {
        fields[i] = PyObject_GetAttrString(results, RESULT_NAMES[i]);
        if (fields[i] == NULL || Py_TYPE(fields[i])->tp_descr_set == NULL) {
            if (fields[i] != NULL)
                PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", ((PyTypeObject *)results)->tp_name,
                             RESULT_NAMES[i]);
            for (int j = 0; j <= i; j++) Py_XDECREF(fields[j]);
            return NULL;
        }
    }
    cheap_call_free();
    for (int i = 0; i < RESULT_FIELDS; i++) {
        result_fields[i] = fields[i];
        result_offsets[i] = slot_offset(fields[i]);
    }
    Py_INCREF(arrays);
    array_type = (PyTypeObject *)arrays;
    Py_INCREF(results);
    result_type = (PyTypeObject *)results;
    Py_INCREF(found);
    reason_found = found;
    Py_INCREF(unreachable);
    reason_unreachable = unreachable;
    Py_RETURN_NONE;
}

/* A new PathResult(found, cells, cost, expanded, FOUND or UNREACHABLE); steals `cells`. NULL
 * with an exception set on failure. */
static PyObject *new_result(int found, PyObject *cells, double cost, Py_ssize_t expanded) {
    if (result_type == NULL) {
        Py_DECREF(cells);
        PyErr_SetString(PyExc_RuntimeError, "_kernel.configure was not called");
        return NULL;
    }
    PyObject *values[RESULT_FIELDS] = {found ? Py_True : Py_False, cells,
                                       PyFloat_FromDouble(cost), PyLong_FromSsize_t(expanded),
                                       found ? reason_found : reason_unreachable};
    Py_INCREF(values[0]);
    Py_INCREF(values[4]);
    PyObject *result = NULL;
    if (values[2] != NULL && values[3] != NULL)
        result = result_type->tp_alloc(result_type, 0);
    for (int i = 0; i < RESULT_FIELDS; i++) {
        if (result != NULL && result_store(result, i, values[i]) < 0) Py_CLEAR(result);
        Py_XDECREF(values[i]);
    }
    return result;
}

PyDoc_STRVAR(result_doc,
             "result(answer) -> PathResult\n\n"
             "A search's (found, cells, cost, expanded) as a PathResult, FOUND or UNREACHABLE.");

static PyObject *kernel_result(PyObject *module, PyObject *answer) {
    (void)module;
    if (!PyTuple_CheckExact(answer) || PyTuple_GET_SIZE(answer) != 4) {
        PyErr_SetString(PyExc_TypeError, "answer must be a tuple (found, cells, cost, expanded)");
        return NULL;
    }
    const int found = PyObject_IsTrue(PyTuple_GET_ITEM(answer, 0));
    const double cost = PyFloat_AsDouble(PyTuple_GET_ITEM(answer, 2));
    const Py_ssize_t expanded = PyLong_AsSsize_t(PyTuple_GET_ITEM(answer, 3));
    if (found < 0 || PyErr_Occurred()) return NULL;
    PyObject *cells = PyTuple_GET_ITEM(answer, 1);
    Py_INCREF(cells);
    return new_result(found, cells, cost, expanded);
}

PyDoc_STRVAR(found_results_doc,
             "found_results(answers) -> list[PathResult] | None\n\n"
             "result() of every answer of a list, or None when some answer found no path.");

static PyObject *kernel_found_results(PyObject *module, PyObject *answers) {
    (void)module;
    if (!PyList_CheckExact(answers)) {
        PyErr_SetString(PyExc_TypeError, "found_results takes a list of answers");
        return NULL;
    }
    const Py_ssize_t count = PyList_GET_SIZE(answers);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *answer = PyList_GET_ITEM(answers, i);
        if (!PyTuple_CheckExact(answer) || PyTuple_GET_SIZE(answer) != 4 ||
            PyTuple_GET_ITEM(answer, 0) != Py_True)
            Py_RETURN_NONE;
    }
    if (result_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_kernel.configure was not called");
        return NULL;
    }
    PyObject *results = PyList_New(count);
    for (Py_ssize_t i = 0; results != NULL && i < count; i++) {
        /* The answer's own cells, cost and expanded objects, not new ones: two allocations
         * a pair fewer than result(). */
        PyObject *answer = PyList_GET_ITEM(answers, i);
        PyObject *values[RESULT_FIELDS] = {Py_True, PyTuple_GET_ITEM(answer, 1),
                                           PyTuple_GET_ITEM(answer, 2),
                                           PyTuple_GET_ITEM(answer, 3), reason_found};
        PyObject *result = result_type->tp_alloc(result_type, 0);
        for (int f = 0; result != NULL && f < RESULT_FIELDS; f++)
            if (result_store(result, f, values[f]) < 0) Py_CLEAR(result);
        if (result == NULL) Py_CLEAR(results);
        else PyList_SET_ITEM(results, i, result);
    }
    return results;
}

/* The int of an exact int inside [0, bound), else -1 (any error cleared). */
static Py_ssize_t index_below(PyObject *value, Py_ssize_t bound) {
    if (!PyLong_CheckExact(value)) return -1;
    const Py_ssize_t index = PyLong_AsSsize_t(value);
    if (index == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return index < bound ? index : -1;
}

/* The flat cell of an exact (row, col) tuple of exact ints inside the grid, else -1. */
static Py_ssize_t flat_cell(PyObject *cell, Py_ssize_t height, Py_ssize_t width) {
    if (!PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 2) return -1;
    const Py_ssize_t row = index_below(PyTuple_GET_ITEM(cell, 0), height);
    const Py_ssize_t col = index_below(PyTuple_GET_ITEM(cell, 1), width);
    return row < 0 || col < 0 ? -1 : row * width + col;
}

PyDoc_STRVAR(flat_ends_doc,
             "flat_ends(walkable, start, goal) -> (height, width, start, goal) | None\n\n"
             "The common query's checks in one call; see sim/navigation/hot_path.py.");

static PyObject *kernel_flat_ends(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "flat_ends takes walkable, start and goal");
        return NULL;
    }
    if (array_type == NULL || Py_TYPE(args[0]) != array_type) Py_RETURN_NONE;
    Py_buffer view;
    /* A buffer that is not C-contiguous is refused by its exporter: the general path then. */
    if (PyObject_GetBuffer(args[0], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    Py_ssize_t start = -1, goal = -1, height = 0, width = 0;
    if (view.ndim == 2 && view.itemsize == 1 && format_is(&view, '?')) {
        height = view.shape[0];
        width = view.shape[1];
        if (height > 0 && width > 0 && height <= INT32_MAX / width) {
            const uint8_t *walkable = view.buf;
            start = flat_cell(args[1], height, width);
            goal = flat_cell(args[2], height, width);
            if (start >= 0 && !walkable[start]) start = -1;
            if (goal >= 0 && !walkable[goal]) goal = -1;
        }
    }
    PyBuffer_Release(&view);
    if (start < 0 || goal < 0) Py_RETURN_NONE;
    PyObject *ends = PyTuple_New(4);
    if (ends == NULL) return NULL;
    const Py_ssize_t values[4] = {height, width, start, goal};
    for (Py_ssize_t i = 0; i < 4; i++) {
        PyObject *number = PyLong_FromSsize_t(values[i]);
        if (number == NULL) {
            Py_DECREF(ends);
            return NULL;
        }
        PyTuple_SET_ITEM(ends, i, number);
    }
    return ends;
}

/* What one search of a batch leaves: its path lies in the batch's path buffer from `offset`. */
typedef struct {
    int status;
    Py_ssize_t expanded, offset, length;
    double cost;
} Outcome;

/* Run every pair of `problem`'s grid, one after another, without the GIL: the outcomes and one
 * buffer of all the paths, grown as needed. Returns 0 when out of memory. */
static int run_batch(Problem *problem, const int64_t *starts, const int64_t *goals,
                     Py_ssize_t count, Outcome *outcomes, int32_t **paths, Py_ssize_t *capacity,
                     Workspace *ws) {
    const Py_ssize_t size = problem->height * problem->width;
    Py_ssize_t used = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        problem->start = (int32_t)starts[i];
        problem->goal = (int32_t)goals[i];
        Outcome *out = &outcomes[i];
        *out = (Outcome){SEARCH_UNREACHABLE, 0, used, 0, INFINITY};
        Frontier frontier = frontier_start(ws);
        out->status = run_search(problem, &frontier, &out->expanded);
        if (out->status == SEARCH_FOUND) {
            for (int32_t cell = problem->goal;; cell = ws->state[cell].came_from) {
                out->length++;
                if (cell == problem->start || out->length > size) break;
            }
            if (used + out->length > *capacity) {
                Py_ssize_t grown = *capacity * 2 > used + out->length ? *capacity * 2
                                                                       : used + out->length;
                int32_t *bigger = PyMem_RawRealloc(*paths, (size_t)grown * sizeof(int32_t));
                if (bigger == NULL) {
                    frontier_reset(&frontier);
                    return 0;
                }
                *paths = bigger;
                *capacity = grown;
            }
            int32_t cell = problem->goal;
            for (Py_ssize_t k = out->length - 1; k >= 0; k--) {
                (*paths)[used + k] = cell;
                cell = ws->state[cell].came_from;
            }
            out->cost = path_cost(*paths + used, out->length, problem->width, problem->costs);
            used += out->length;
        }
        frontier_reset(&frontier);
        if (out->status == SEARCH_NO_MEMORY) return 0;
    }
    return 1;
}

/* The outcomes of a batch as a list of PathResult; NULL with an exception set on failure. */
static PyObject *batch_results(const Outcome *outcomes, Py_ssize_t count, const int32_t *paths,
                               Py_ssize_t width) {
    PyObject *results = PyList_New(count);
    if (results == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        const Outcome *out = &outcomes[i];
        const int found = out->status == SEARCH_FOUND;
        PyObject *cells = found ? flat_path(paths + out->offset, out->length, width)
                                : PyTuple_New(0);
        PyObject *result = cells == NULL ? NULL : new_result(found, cells, out->cost, out->expanded);
        if (result == NULL) {
            Py_DECREF(results);
            return NULL;
        }
        PyList_SET_ITEM(results, i, result);
    }
    return results;
}

PyDoc_STRVAR(batch_doc,
             "batch(walkable, costs, height, width, starts, goals, diagonal, heuristic, h_weight,\n"
             "      g_weight, unit) -> list[PathResult]\n\n"
             "search() for every pair of flat cells starts[i], goals[i] (int64 arrays), in one\n"
             "call; see sim/navigation/searches/kernel.py for the contract.");

/* The outcomes of a batch as `flat_batch_new`'s arrays; NULL with an exception set on
 * failure. */
static PyObject *batch_arrays_of(const Outcome *outcomes, Py_ssize_t count,
                                 const int32_t *paths) {
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++)
        if (outcomes[i].status == SEARCH_FOUND) total += outcomes[i].length;
    FlatBatch out = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *arrays = flat_batch_new(count, total, &out);
    if (arrays == NULL) return NULL;
    /* The found paths lie back to back in `paths` already, in pair order. */
    if (total > 0) memcpy(out.cells, paths, (size_t)total * sizeof(int32_t));
    for (Py_ssize_t i = 0; i < count; i++) {
        const Outcome *o = &outcomes[i];
        flat_batch_set(&out, i, o->status == SEARCH_FOUND, o->cost, o->expanded, NULL,
                       o->length);
    }
    return arrays;
}

/* `batch` (a list of PathResult), or with `arrays` `batch_arrays` (`batch_arrays_of`). */
static PyObject *batch_call(PyObject *args, int arrays) {
    PyObject *walkable_obj, *costs_obj, *starts_obj, *goals_obj;
    Py_ssize_t height, width;
    int diagonal, heuristic, unit;
    double h_weight, g_weight;
    if (!PyArg_ParseTuple(args, "OOnnOOiiddp:batch", &walkable_obj, &costs_obj, &height, &width,
                          &starts_obj, &goals_obj, &diagonal, &heuristic, &h_weight, &g_weight,
                          &unit))
        return NULL;
    if (diagonal < DIAG_NEVER || diagonal > DIAG_ALWAYS) {
        PyErr_Format(PyExc_ValueError, "diagonal rule code %d: need 0 to 3", diagonal);
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
    if (!check_grid(height, width)) return NULL;
    const Py_ssize_t size = height * width;
    Py_buffer walkable_view, costs_view, starts_view, goals_view;
    const int have_costs = take_grid(walkable_obj, costs_obj, size, &walkable_view, &costs_view);
    if (have_costs < 0) return NULL;
    PyObject *results = NULL;
    if (PyObject_GetBuffer(starts_obj, &starts_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        goto release_grid;
    if (PyObject_GetBuffer(goals_obj, &goals_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        goto release_starts;
    const Py_ssize_t count = starts_view.len / 8;
    if (!is_int64(&starts_view) || !is_int64(&goals_view) || goals_view.len != starts_view.len) {
        PyErr_SetString(PyExc_ValueError, "starts and goals must be int64 arrays of one length");
        goto release_goals;
    }
    const int64_t *starts = starts_view.buf, *goals = goals_view.buf;
    const uint8_t *walkable = walkable_view.buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (starts[i] < 0 || starts[i] >= size || goals[i] < 0 || goals[i] >= size ||
            !walkable[starts[i]] || !walkable[goals[i]]) {
            PyErr_Format(PyExc_ValueError, "pair %zd: start and goal must be walkable cells", i);
            goto release_goals;
        }
    }
    Outcome *outcomes = PyMem_RawMalloc((size_t)(count > 0 ? count : 1) * sizeof(Outcome));
    Py_ssize_t capacity = 1024;
    int32_t *paths = PyMem_RawMalloc((size_t)capacity * sizeof(int32_t));
    Workspace *ws = workspace_take(size);
    if (outcomes == NULL || paths == NULL || ws == NULL) {
        PyErr_NoMemory();
    } else {
        Problem problem = {walkable, have_costs ? costs_view.buf : NULL, height, width, 0, 0,
                           diagonal, heuristic, unit, h_weight, g_weight};
        int ok;
        Py_BEGIN_ALLOW_THREADS
        ok = run_batch(&problem, starts, goals, count, outcomes, &paths, &capacity, ws);
        Py_END_ALLOW_THREADS
        if (!ok)
            results = PyErr_NoMemory();
        else if (arrays)
            results = batch_arrays_of(outcomes, count, paths);
        else
            results = batch_results(outcomes, count, paths, width);
    }
    if (ws != NULL) workspace_give_back(ws);
    PyMem_RawFree(paths);
    PyMem_RawFree(outcomes);
release_goals:
    PyBuffer_Release(&goals_view);
release_starts:
    PyBuffer_Release(&starts_view);
release_grid:
    if (have_costs) PyBuffer_Release(&costs_view);
    PyBuffer_Release(&walkable_view);
    return results;
}

static PyObject *kernel_batch(PyObject *module, PyObject *args) {
    (void)module;
    return batch_call(args, 0);
}

PyDoc_STRVAR(batch_arrays_doc,
             "batch_arrays(walkable, costs, height, width, starts, goals, diagonal, heuristic,\n"
             "             h_weight, g_weight, unit)\n"
             "    -> (found, cost, expanded, reason, lengths, offsets, cells)\n\n"
             "batch() with the answers as seven bytes objects (see _flat_path.h, FlatBatch);\n"
             "see kernel_batch.py (batch_arrays).");

static PyObject *kernel_batch_arrays(PyObject *module, PyObject *args) {
    (void)module;
    return batch_call(args, 1);
}

PyDoc_STRVAR(apart_doc,
             "apart(labels, starts_flat, goals_flat, searchable) -> list[int]\n\n"
             "The searchable pairs whose ends lie in two regions (labels: int32 a cell), cleared\n"
             "in searchable; see sim/navigation/batch.py (_apart).");

static PyObject *kernel_apart(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[4];
    if (!PyArg_ParseTuple(args, "OOOO:apart", &objects[0], &objects[1], &objects[2],
                          &objects[3]))
        return NULL;
    Py_buffer views[4];
    int taken = 0;
    PyObject *answer = NULL;
    for (; taken < 4; taken++) {
        const int flags = taken == 3 ? PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE
                                     : PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
        if (PyObject_GetBuffer(objects[taken], &views[taken], flags) < 0) goto done;
    }
    const Py_ssize_t cells = views[0].len / 4, count = views[3].len;
    if (views[0].itemsize != 4 || !format_is(&views[0], 'i') || !is_int64(&views[1]) ||
        !is_int64(&views[2]) || views[1].len != count * 8 || views[2].len != count * 8 ||
        views[3].itemsize != 1) {
        PyErr_SetString(PyExc_ValueError,
                        "apart takes int32 labels, N int64 starts and goals and N bytes");
        goto done;
    }
    const int32_t *labels = views[0].buf;
    const int64_t *starts = views[1].buf, *goals = views[2].buf;
    uint8_t *searchable = views[3].buf;
    answer = PyList_New(0);
    for (Py_ssize_t i = 0; answer != NULL && i < count; i++) {
        if (!searchable[i]) continue;
        if (starts[i] < 0 || starts[i] >= cells || goals[i] < 0 || goals[i] >= cells) {
            Py_CLEAR(answer);
            PyErr_Format(PyExc_ValueError, "pair %zd: a cell outside the labels", i);
            break;
        }
        if (labels[starts[i]] == labels[goals[i]]) continue;
        searchable[i] = 0;
        PyObject *index = PyLong_FromSsize_t(i);
        if (index == NULL || PyList_Append(answer, index) < 0) Py_CLEAR(answer);
        Py_XDECREF(index);
    }
done:
    for (int i = 0; i < taken; i++) PyBuffer_Release(&views[i]);
    return answer;
}

PyDoc_STRVAR(pairs_doc,
             "pairs(walkable, starts, goals, starts_flat, goals_flat, searchable) -> int\n\n"
             "Flat cells and whether each pair is searchable, for find_paths; the index of the\n"
             "first start outside the grid, or -1. See sim/navigation/searches/kernel.py.");

static PyObject *kernel_pairs(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[6];
    if (!PyArg_ParseTuple(args, "OOOOOO:pairs", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5]))
        return NULL;
    Py_buffer views[6];
    int taken = 0;
    Py_ssize_t first_outside = -1;
    PyObject *answer = NULL;
    for (; taken < 6; taken++) {
        const int flags = taken >= 3 ? PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE
                                     : PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
        if (PyObject_GetBuffer(objects[taken], &views[taken], flags) < 0) goto done;
    }
    const Py_buffer *grid = &views[0];
    const Py_ssize_t count = views[1].len / 16;
    if (grid->ndim != 2 || grid->itemsize != 1 || !(format_is(grid, '?') || format_is(grid, 'B'))) {
        PyErr_SetString(PyExc_ValueError, "walkable must be a C-contiguous 2-D bool array");
        goto done;
    }
    if (views[1].ndim != 2 || views[1].shape[1] != 2 || views[2].ndim != 2 ||
        views[2].shape[1] != 2 || !is_int64(&views[1]) || !is_int64(&views[2]) ||
        views[2].len != views[1].len ||
        !is_int64(&views[3]) || !is_int64(&views[4]) || views[3].len != count * 8 ||
        views[4].len != count * 8 || views[5].itemsize != 1 || views[5].len != count) {
        PyErr_SetString(PyExc_ValueError,
                        "starts and goals must be (N, 2) int64 arrays, the outputs N int64, N int64 "
                        "and N bytes");
        goto done;
    }
    const Py_ssize_t height = grid->shape[0], width = grid->shape[1];
    const uint8_t *walkable = grid->buf;
    const int64_t *starts = views[1].buf, *goals = views[2].buf;
    int64_t *starts_flat = views[3].buf, *goals_flat = views[4].buf;
    uint8_t *searchable = views[5].buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        const int64_t start_row = starts[2 * i], start_col = starts[2 * i + 1];
        const int64_t goal_row = goals[2 * i], goal_col = goals[2 * i + 1];
        const int start_in = start_row >= 0 && start_row < height && start_col >= 0 &&
                             start_col < width;
        const int goal_in = goal_row >= 0 && goal_row < height && goal_col >= 0 &&
                            goal_col < width;
        if (!start_in && first_outside < 0) first_outside = i;
        starts_flat[i] = start_in ? start_row * width + start_col : 0;
        goals_flat[i] = goal_in ? goal_row * width + goal_col : 0;
        searchable[i] = start_in && goal_in && walkable[starts_flat[i]] && walkable[goals_flat[i]];
    }
    answer = PyLong_FromSsize_t(first_outside);
done:
    for (int i = 0; i < taken; i++) PyBuffer_Release(&views[i]);
    return answer;
}

PyDoc_STRVAR(pairs_in_region_doc,
             "pairs_in_region(walkable, starts, goals, labels, starts_flat, goals_flat) -> bool\n\n"
             "pairs() for a batch run_plan may search whole: True when every pair's ends lie\n"
             "inside the grid, walkable, and (labels not None) in one region >= 0; see\n"
             "kernel_batch.py (run_plan).");

static PyObject *kernel_pairs_in_region(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *objects[6];
    if (!PyArg_ParseTuple(args, "OOOOOO:pairs_in_region", &objects[0], &objects[1], &objects[2],
                          &objects[3], &objects[4], &objects[5]))
        return NULL;
    Py_buffer views[6];
    int taken = 0;
    PyObject *answer = NULL;
    for (; taken < 6; taken++) {
        if (taken == 3 && objects[3] == Py_None) continue; /* no labels: not read */
        const int flags = taken >= 4 ? PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE
                                     : PyBUF_C_CONTIGUOUS | PyBUF_FORMAT;
        if (PyObject_GetBuffer(objects[taken], &views[taken], flags) < 0) goto done;
    }
    const Py_buffer *grid = &views[0];
    const Py_ssize_t count = views[1].len / 16;
    const int labelled = objects[3] != Py_None;
    if (grid->ndim != 2 || grid->itemsize != 1 || !format_is(grid, '?') ||
        views[1].ndim != 2 || views[1].shape[1] != 2 || views[2].ndim != 2 ||
        views[2].shape[1] != 2 || !is_int64(&views[1]) || !is_int64(&views[2]) ||
        views[2].len != views[1].len || !is_int64(&views[4]) || !is_int64(&views[5]) ||
        views[4].len != count * 8 || views[5].len != count * 8 ||
        (labelled && (views[3].itemsize != 4 || !format_is(&views[3], 'i') ||
                      views[3].len != grid->len * 4))) {
        PyErr_SetString(PyExc_ValueError,
                        "pairs_in_region: a 2-D bool array, (N, 2) int64 starts and goals, int32 "
                        "labels a cell or None, N int64 outputs");
        goto done;
    }
    const Py_ssize_t height = grid->shape[0], width = grid->shape[1];
    const uint8_t *walkable = grid->buf;
    const int32_t *labels = labelled ? views[3].buf : NULL;
    const int64_t *starts = views[1].buf, *goals = views[2].buf;
    int64_t *starts_flat = views[4].buf, *goals_flat = views[5].buf;
    int whole = 1;
    for (Py_ssize_t i = 0; i < count && whole; i++) {
        const int64_t start_row = starts[2 * i], start_col = starts[2 * i + 1];
        const int64_t goal_row = goals[2 * i], goal_col = goals[2 * i + 1];
        whole = start_row >= 0 && start_row < height && start_col >= 0 && start_col < width &&
                goal_row >= 0 && goal_row < height && goal_col >= 0 && goal_col < width;
        if (!whole) break;
        starts_flat[i] = start_row * width + start_col;
        goals_flat[i] = goal_row * width + goal_col;
        whole = walkable[starts_flat[i]] && walkable[goals_flat[i]] &&
                (labels == NULL || (labels[starts_flat[i]] == labels[goals_flat[i]] &&
                                    labels[starts_flat[i]] >= 0));
    }
    answer = PyBool_FromLong(whole);
done:
    for (int i = 0; i < taken; i++)
        if (!(i == 3 && objects[3] == Py_None)) PyBuffer_Release(&views[i]);
    return answer;
}

/* ---- PathResult.cells laid out on first read (_search_common.h's flat paths) ----
 *
 * A data descriptor that stands in for the `cells` slot of the frozen dataclass: it reads and
 * writes the slot through the slot's own descriptor, and a bytes object found there (a
 * `flat_path`) is laid out as the tuple of (row, col) pairs and put back in its place, once.
 * See lazy_cells.py, which installs it. */

typedef struct {
    PyObject_HEAD PyObject *slot; /* the member descriptor of the `cells` slot */
} LazyCells;

static void lazy_cells_dealloc(PyObject *self) {
    Py_XDECREF(((LazyCells *)self)->slot);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *lazy_cells_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *slot;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyErr_SetString(PyExc_TypeError, "LazyCells takes the slot's descriptor only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O:LazyCells", &slot)) return NULL;
    if (Py_TYPE(slot)->tp_descr_get == NULL || Py_TYPE(slot)->tp_descr_set == NULL) {
        PyErr_SetString(PyExc_TypeError, "LazyCells wraps a slot's data descriptor");
        return NULL;
    }
    LazyCells *self = (LazyCells *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    Py_INCREF(slot);
    self->slot = slot;
    return (PyObject *)self;
}

static PyObject *lazy_cells_get(PyObject *self, PyObject *instance, PyObject *owner) {
    if (instance == NULL) {
        Py_INCREF(self);
        return self;
    }
    PyObject *slot = ((LazyCells *)self)->slot;
    PyObject *value = Py_TYPE(slot)->tp_descr_get(slot, instance, owner);
    if (value == NULL || !PyBytes_CheckExact(value)) return value;
    PyObject *cells = flat_path_cells(value);
    Py_DECREF(value);
    if (cells != NULL && Py_TYPE(slot)->tp_descr_set(slot, instance, cells) < 0) Py_CLEAR(cells);
    return cells;
}

static int lazy_cells_set(PyObject *self, PyObject *instance, PyObject *value) {
    PyObject *slot = ((LazyCells *)self)->slot;
    return Py_TYPE(slot)->tp_descr_set(slot, instance, value);
}

/* The slot descriptor a LazyCells reads and writes through (borrowed). */
static PyObject *lazy_cells_slot(PyObject *self) { return ((LazyCells *)self)->slot; }

static PyMemberDef lazy_cells_members[] = {
    {"slot", T_OBJECT_EX, offsetof(LazyCells, slot), READONLY, "The slot's own descriptor."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject LazyCellsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sim.navigation.searches._kernel.LazyCells",
    .tp_basicsize = sizeof(LazyCells),
    .tp_dealloc = lazy_cells_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = PyDoc_STR("LazyCells(slot)\n\n"
                        "The cells slot of PathResult, a path's (row, col) pairs laid out on first "
                        "read; see sim/navigation/searches/lazy_cells.py."),
    .tp_new = lazy_cells_new,
    .tp_members = lazy_cells_members,
    .tp_descr_get = lazy_cells_get,
    .tp_descr_set = lazy_cells_set,
};

PyDoc_STRVAR(cells_of_doc,
             "cells_of(flat) -> tuple[tuple[int, int], ...]\n\n"
             "A flat path (bytes: int32 width, then int32 flat cells) as (row, col) pairs.");

static PyObject *kernel_cells_of(PyObject *module, PyObject *flat) {
    (void)module;
    if (!PyBytes_CheckExact(flat)) {
        PyErr_SetString(PyExc_TypeError, "cells_of takes the bytes of a flat path");
        return NULL;
    }
    return flat_path_cells(flat);
}

/* The call of find_path in one C function (`call`; call_cache.py in Python): the options
 * matched against the sets checked before, the array and the two cells checked as
 * `flat_ends` checks them, the region labels read, the search run and its PathResult built,
 * without a line of Python between. What it cannot answer exactly as the Python path would,
 * it leaves to that path (None), or asks to be taught after it (NotImplemented):
 *   - options: up to CALL_ENTRIES sets, each kept as the five objects first seen (algorithm,
 *     diagonal, heuristic, weight, implementation) with what call_cache.learn settled for
 *     them: jump point search (a heuristic code), the compiled best-first loop (its priority
 *     terms), or every option at its default (jump point search unless the array is one
 *     landmarks.py may serve: that one stays Python's). A given option matches a kept one
 *     that is the same object, or of the very same type (str, int or float) and equal: True
 *     never matches 1, nor 1 matches 1.0 (parse_diagonal and check_weight tell them apart).
 *   - regions: under the rules region_cache labels, a query whose start and goal carry the
 *     same region label (>= 0) in the array's labelling is searched here; any other goes the
 *     Python way (it may be proven unreachable there at once). The labels are read from a
 *     memo (`remember_labels`, up to LABEL_MEMOS arrays) that holds the array and its
 *     RegionMap weakly and is used only while the map's `version` is the one remembered and
 *     the array keeps its shape. Labels behind the array cannot make an answer wrong: a
 *     same-region query is searched, on the array as it is now (jump point search checks its
 *     packed copies row by row against it, `_jps_blocks.h`); a search that then finds no path
 *     is left to the Python path, which learns from it (region_cache.learn).
 * The GIL is held throughout but in the search, and nothing kept here is read after it. */

static PlainSearch plain_jps = NULL;
/* landmarks.search, which the default call on an array landmarks.py may serve is handed to
 * (NULL: that call goes the Python way), and call_cache.missed, which answers its not-found
 * answers as hot_path.plan does (learning from them). */
static PyObject *landmark_search = NULL, *landmark_missed = NULL;

enum { KIND_DEFAULTS = 0, KIND_JPS = 1, KIND_KERNEL = 2, KIND_PYTHON = 3 };
#define CALL_OPTIONS 5
#define CALL_ENTRIES 16
typedef struct {
    PyObject *options[CALL_OPTIONS];
    int kind, labelled, rule, heuristic, unit_steps;
    double h_factor, g_weight;
} CallEntry;
static CallEntry call_entries[CALL_ENTRIES];
static int call_count = 0;
/* landmarks.py's MIN_CELLS, MAX_CELLS and NEAR_CELLS: where the default call is plain. */
static Py_ssize_t landmark_min = 0, landmark_max = -1, near_cells = 0;

#define LABEL_MEMOS 8
typedef struct {
    PyObject *array;   /* weak reference, NULL when the slot is free */
    PyObject *regions; /* weak reference to the array's RegionMap */
    Py_buffer labels;  /* int32, one per cell */
    long long version;
    Py_ssize_t height, width;
} LabelMemo;
static LabelMemo label_memos[LABEL_MEMOS];
static int label_next = 0;
static PyObject *version_key = NULL; /* "version", interned */

static void call_entries_clear(void) {
    for (int i = 0; i < call_count; i++)
        for (int j = 0; j < CALL_OPTIONS; j++) Py_CLEAR(call_entries[i].options[j]);
    call_count = 0;
}

static void label_memo_clear(LabelMemo *memo) {
    if (memo->array == NULL) return;
    Py_CLEAR(memo->array);
    Py_CLEAR(memo->regions);
    PyBuffer_Release(&memo->labels);
}

static void call_free(void) {
    call_entries_clear();
    Py_CLEAR(landmark_search);
    Py_CLEAR(landmark_missed);
    for (int i = 0; i < LABEL_MEMOS; i++) label_memo_clear(&label_memos[i]);
    Py_CLEAR(version_key);
}

PyDoc_STRVAR(call_setup_doc,
             "call_setup(jps_api, min_cells, max_cells, near_cells, landmark_search=None,\n"
             "           landmark_missed=None) -> None\n\n"
             "The jump point search `call` runs (_jps's capsule), landmarks.py's bounds and\n"
             "search, and what answers its misses; see sim/navigation/searches/call_cache.py.");

static PyObject *kernel_call_setup(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *capsule, *landmarks = Py_None, *missed = Py_None;
    Py_ssize_t low, high, near;
    if (!PyArg_ParseTuple(args, "Onnn|OO:call_setup", &capsule, &low, &high, &near, &landmarks,
                          &missed))
        return NULL;
    if ((landmarks == Py_None) != (missed == Py_None) ||
        (landmarks != Py_None && !(PyCallable_Check(landmarks) && PyCallable_Check(missed)))) {
        PyErr_SetString(PyExc_TypeError,
                        "call_setup: landmark_search and landmark_missed: both callables or None");
        return NULL;
    }
    PlainSearch search = PyCapsule_GetPointer(capsule, PLAIN_CAPSULE);
    if (search == NULL) return NULL;
    if (version_key == NULL && (version_key = PyUnicode_InternFromString("version")) == NULL)
        return NULL;
    plain_jps = search;
    landmark_min = low;
    landmark_max = high;
    near_cells = near;
    Py_XSETREF(landmark_search, landmarks == Py_None ? NULL : Py_NewRef(landmarks));
    Py_XSETREF(landmark_missed, missed == Py_None ? NULL : Py_NewRef(missed));
    Py_RETURN_NONE;
}

static int same_option(PyObject *given, PyObject *kept) {
    if (given == kept) return 1;
    if (Py_TYPE(given) != Py_TYPE(kept) ||
        !(PyUnicode_CheckExact(given) || PyFloat_CheckExact(given) || PyLong_CheckExact(given)))
        return 0;
    /* Floats compared as doubles (as float.__eq__ does), without the rich comparison. */
    if (PyFloat_CheckExact(given)) return PyFloat_AS_DOUBLE(given) == PyFloat_AS_DOUBLE(kept);
    const int equal = PyObject_RichCompareBool(given, kept, Py_EQ);
    if (equal < 0) PyErr_Clear();
    return equal > 0;
}

PyDoc_STRVAR(call_learn_doc,
             "call_learn(options, kind, labelled, rule, heuristic, h_factor, g_weight,\n"
             "           unit_steps) -> None\n\n"
             "Keep a checked set of find_path options (a 5-tuple) for `call`.");

static PyObject *kernel_call_learn(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *options;
    CallEntry entry = {{NULL}, 0, 0, 0, 0, 0, 0.0, 0.0};
    if (!PyArg_ParseTuple(args, "O!iiiiddp:call_learn", &PyTuple_Type, &options, &entry.kind,
                          &entry.labelled, &entry.rule, &entry.heuristic, &entry.h_factor,
                          &entry.g_weight, &entry.unit_steps))
        return NULL;
    if (PyTuple_GET_SIZE(options) != CALL_OPTIONS || entry.kind < KIND_DEFAULTS ||
        entry.kind > KIND_PYTHON || entry.rule < DIAG_NEVER || entry.rule > DIAG_ALWAYS ||
        entry.heuristic < H_MANHATTAN || entry.heuristic > H_ZERO ||
        (entry.kind != KIND_KERNEL && entry.heuristic == H_MANHATTAN) ||
        !(isfinite(entry.h_factor) && entry.h_factor >= 0.0 && isfinite(entry.g_weight) &&
          entry.g_weight >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "call_learn: options must be 5 values, the codes valid");
        return NULL;
    }
    for (int i = 0; i < call_count; i++) {
        int same = 1;
        for (int j = 0; j < CALL_OPTIONS && same; j++)
            same = same_option(PyTuple_GET_ITEM(options, j), call_entries[i].options[j]);
        if (same) Py_RETURN_NONE; /* kept already: the first settles it */
    }
    if (call_count == CALL_ENTRIES) call_entries_clear(); /* option sets are few in practice */
    for (int j = 0; j < CALL_OPTIONS; j++) {
        entry.options[j] = PyTuple_GET_ITEM(options, j);
        Py_INCREF(entry.options[j]);
    }
    call_entries[call_count++] = entry;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(remember_labels_doc,
             "remember_labels(walkable, regions, labels, version) -> None\n\n"
             "Keep the flat int32 labels of RegionMap `regions` of `walkable` at `version`.");

static PyObject *kernel_remember_labels(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable, *regions, *labels_obj;
    long long version;
    if (!PyArg_ParseTuple(args, "OOOL:remember_labels", &walkable, &regions, &labels_obj,
                          &version))
        return NULL;
    Py_buffer view, labels;
    if (PyObject_GetBuffer(walkable, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    const int shaped = view.ndim == 2;
    const Py_ssize_t height = shaped ? view.shape[0] : 0, width = shaped ? view.shape[1] : 0;
    PyBuffer_Release(&view);
    if (PyObject_GetBuffer(labels_obj, &labels, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (!shaped || labels.itemsize != 4 || !format_is(&labels, 'i') ||
        labels.len != height * width * 4) {
        PyBuffer_Release(&labels);
        PyErr_SetString(PyExc_ValueError, "remember_labels: int32 labels, one a cell of a 2-D array");
        return NULL;
    }
    PyObject *array_ref = PyWeakref_NewRef(walkable, NULL);
    PyObject *regions_ref = array_ref == NULL ? NULL : PyWeakref_NewRef(regions, NULL);
    if (regions_ref == NULL) {
        Py_XDECREF(array_ref);
        PyBuffer_Release(&labels);
        return NULL;
    }
    LabelMemo *memo = NULL;
    for (int i = 0; i < LABEL_MEMOS && memo == NULL; i++)
        if (label_memos[i].array != NULL && PyWeakref_GetObject(label_memos[i].array) == walkable)
            memo = &label_memos[i];
    if (memo == NULL) {
        memo = &label_memos[label_next];
        label_next = (label_next + 1) % LABEL_MEMOS;
    }
    label_memo_clear(memo);
    *memo = (LabelMemo){array_ref, regions_ref, labels, version, height, width};
    Py_RETURN_NONE;
}


/* The labels of `walkable` (height x width) at its map's current version, or NULL. */
static const int32_t *labels_of(PyObject *walkable, Py_ssize_t height, Py_ssize_t width) {
    for (int i = 0; i < LABEL_MEMOS; i++) {
        LabelMemo *memo = &label_memos[i];
        if (memo->array == NULL) continue;
        PyObject *array = PyWeakref_GetObject(memo->array); /* borrowed; None once dead */
        if (array == Py_None) label_memo_clear(memo); /* its labels are kept alive no longer */
        if (array != walkable) continue;
        PyObject *regions = PyWeakref_GetObject(memo->regions);
        PyObject *version = regions == NULL || regions == Py_None
                                ? NULL
                                : PyObject_GetAttr(regions, version_key);
        const long long now = version == NULL ? -1 : PyLong_AsLongLong(version);
        Py_XDECREF(version);
        if (PyErr_Occurred()) PyErr_Clear();
        if (now != memo->version || memo->height != height || memo->width != width) {
            label_memo_clear(memo);
            return NULL;
        }
        return memo->labels.buf;
    }
    return NULL;
}

#define NOT_KNOWN() return Py_NewRef(Py_NotImplemented)

/* The PathResult of a found plain search's `out` (its path taken) on a grid `width` wide. */
static PyObject *found_result(PlainOutcome *out, Py_ssize_t width) {
    PyObject *cells = flat_path(out->path, out->length, width);
    PyMem_RawFree(out->path);
    out->path = NULL;
    if (cells == NULL) return NULL;
    return new_result(1, cells, out->cost, out->expanded);
}

/* The default call on `lane`'s array (_plain_lane.h), `walkable` its checked bytes: the plain
 * search, counted in the lane, its counts settled when due; answered as the landmark path
 * answers (missed when not found). */
static PyObject *lane_call(Lane *lane, PyObject *walkable_obj, int readonly,
                           const uint8_t *walkable, PyObject *start_obj, PyObject *goal_obj,
                           Py_ssize_t height, Py_ssize_t width, Py_ssize_t start,
                           Py_ssize_t goal) {
    const uint64_t generation = lane->generation;
    lane->busy = 1;
    PlainOutcome out;
    const int ok = plain_jps(walkable_obj, readonly, walkable, height, width, start, goal,
                             H_OCTILE, &out);
    const int same = lane->generation == generation; /* not dropped while the GIL was gone */
    if (same) lane->busy = 0;
    if (ok < 0) return NULL;
    const int found = out.status == SEARCH_FOUND;
    if (same) {
        lane->seed = start;
        lane->touched = ++lane_tick;
    }
    if (same && lane_count(lane, found, out.expanded) < 0) {
        PyMem_RawFree(out.path);
        return PyErr_NoMemory();
    }
    if (same && lane_due(lane, found) && lane_close(lane, start) < 0) {
        PyMem_RawFree(out.path);
        return NULL;
    }
    if (found) return found_result(&out, width);
    PyObject *answer = flat_answer(0, NULL, 0, width, out.cost, out.expanded);
    if (answer == NULL) return NULL;
    PyObject *argv[4] = {walkable_obj, start_obj, goal_obj, answer};
    PyObject *result = PyObject_Vectorcall(landmark_missed, argv, 4, NULL);
    Py_DECREF(answer);
    return result;
}

PyDoc_STRVAR(lane_setup_doc,
             "lane_setup(offer, settle) -> None\n\n"
             "The callables that open plain lanes and take their counts; see _plain_lane.h and\n"
             "call_cache.py.");

static PyObject *kernel_lane_setup(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *offer, *settle;
    if (!PyArg_ParseTuple(args, "OO:lane_setup", &offer, &settle)) return NULL;
    if (!PyCallable_Check(offer) || !PyCallable_Check(settle)) {
        PyErr_SetString(PyExc_TypeError, "lane_setup takes two callables");
        return NULL;
    }
    Py_XSETREF(lane_offer, Py_NewRef(offer));
    Py_XSETREF(lane_settle, Py_NewRef(settle));
    Py_RETURN_NONE;
}

PyDoc_STRVAR(lane_drop_doc,
             "lane_drop(key) -> None\n\n"
             "Drop the plain lane of the array whose id() is `key`, or every lane for None.");

static PyObject *kernel_lane_drop(PyObject *module, PyObject *key) {
    (void)module;
    lane_drop(key);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(lane_tick_doc,
             "lane_tick() -> int\n\n"
             "The next tick of the clock that plain lanes stamp their queries with; ArrayCache\n"
             "stamps its entries' uses with it.");

static PyObject *kernel_lane_tick(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromUnsignedLongLong(++lane_tick);
}

PyDoc_STRVAR(lanes_touched_doc,
             "lanes_touched() -> dict[int, int]\n\n"
             "{id(array): the lane_tick of its lane's last query} for the live arrays plain lanes\n"
             "answered: ArrayCache counts them as used then.");

static PyObject *kernel_lanes_touched(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return lanes_touched();
}

PyDoc_STRVAR(call_doc,
             "call(walkable, start, goal, algorithm, diagonal, heuristic, weight, implementation)\n"
             "    -> PathResult | None | NotImplemented\n\n"
             "find_path's answer, or None (the Python path answers), or NotImplemented (the\n"
             "Python path answers, then call_cache.learn); see call_cache.py.");

/* `call` once the options matched `entry` and `view` holds the array's buffer (kept by the
 * caller until this returns, so that the plain search reads the bytes checked here). */
static PyObject *call_on_view(const CallEntry *entry, PyObject *const *args, const Py_buffer *view) {
    PyObject *walkable_obj = args[0];
    Py_ssize_t start = -1, goal = -1, height = 0, width = 0;
    const uint8_t *walkable = view->buf;
    if (view->ndim == 2 && view->itemsize == 1 && format_is(view, '?')) {
        height = view->shape[0];
        width = view->shape[1];
        if (height > 0 && width > 0 && height <= INT32_MAX / width) {
            start = flat_cell(args[1], height, width);
            goal = flat_cell(args[2], height, width);
            if (start >= 0 && !walkable[start]) start = -1;
            if (goal >= 0 && !walkable[goal]) goal = -1;
        }
    }
    if (start < 0 || goal < 0) Py_RETURN_NONE;
    int landmark_sized = 0;
    if (entry->kind == KIND_DEFAULTS) {
        const Py_ssize_t size = height * width;
        const Py_ssize_t rows = start / width - goal / width, cols = start % width - goal % width;
        const int near = rows >= -near_cells && rows <= near_cells && cols >= -near_cells &&
                         cols <= near_cells;
        landmark_sized = size >= landmark_min && size <= landmark_max && !near;
        if (landmark_sized && landmark_search == NULL) Py_RETURN_NONE;
    }
    if (entry->labelled) {
        const int32_t *labels = labels_of(walkable_obj, height, width);
        if (labels == NULL) {
            /* The Python path answers and counts this query (an edited or reshaped array):
             * the counts of its lane go first, so that it decides as without lanes. */
            if (landmark_sized && lane_settle_for(walkable_obj) < 0) return NULL;
            NOT_KNOWN();
        }
        if (labels[start] != labels[goal] || labels[start] < 0) Py_RETURN_NONE;
    }
    Lane *lane = landmark_sized ? lane_of(walkable_obj, height, width) : NULL;
    if (lane == NULL && lane_orphans && lanes_settle_orphans() < 0) return NULL; /* lane_of */
    if (lane != NULL)
        return lane_call(lane, walkable_obj, view->readonly, walkable, args[1], args[2], height,
                         width, start, goal);
    if (landmark_sized) {
        /* landmarks.search, as hot_path.plan calls it once its checks pass (they have: the
         * same array, cells and region labels): its probing, fields and jump tables are its
         * own, so the answer, the cells among paths of that cost and what it learns are the
         * Python path's. Only its answer's tuple is read here, through kernel_result. */
        PyObject *numbers[4] = {PyLong_FromSsize_t(height), PyLong_FromSsize_t(width),
                                PyLong_FromSsize_t(start), PyLong_FromSsize_t(goal)};
        PyObject *answer = NULL;
        if (numbers[0] != NULL && numbers[1] != NULL && numbers[2] != NULL && numbers[3] != NULL) {
            PyObject *argv[5] = {walkable_obj, numbers[0], numbers[1], numbers[2], numbers[3]};
            answer = PyObject_Vectorcall(landmark_search, argv, 5, NULL);
        }
        for (int i = 0; i < 4; i++) Py_XDECREF(numbers[i]);
        if (answer == NULL) return NULL;
        if (!PyTuple_CheckExact(answer) || PyTuple_GET_SIZE(answer) != 4) {
            Py_DECREF(answer);
            PyErr_SetString(PyExc_TypeError, "landmark_search must answer a 4-tuple");
            return NULL;
        }
        const int found = PyObject_IsTrue(PyTuple_GET_ITEM(answer, 0));
        PyObject *result = NULL;
        if (found > 0) {
            result = kernel_result(NULL, answer);
        } else if (found == 0) {
            /* Not found though the labels say one region (labels behind the array): answered
             * and learnt from in Python, without searching again (the search's own notes,
             * such as jump_cache's rent, count it once, as on the Python path). */
            PyObject *argv[4] = {walkable_obj, args[1], args[2], answer};
            result = PyObject_Vectorcall(landmark_missed, argv, 4, NULL);
        }
        Py_DECREF(answer);
        if (result != NULL && lane_open(walkable_obj, height, width) < 0) Py_CLEAR(result);
        return result;
    }
    PlainOutcome out;
    const int ok = entry->kind == KIND_KERNEL
                       ? search_bytes(walkable, NULL, height, width, start, goal, entry->rule,
                                      entry->heuristic, entry->h_factor, entry->g_weight,
                                      entry->unit_steps, &out)
                       : plain_jps(walkable_obj, view->readonly, walkable, height, width, start,
                                   goal, entry->heuristic, &out);
    if (ok < 0) return NULL;
    if (out.status == SEARCH_FOUND) return found_result(&out, width);
    /* Not found though the labels say one region: labels behind the array, so the Python
     * path searches and learns. */
    if (entry->labelled) Py_RETURN_NONE;
    PyObject *none = PyTuple_New(0);
    return none == NULL ? NULL : new_result(0, none, out.cost, out.expanded);
}

static PyObject *kernel_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 + CALL_OPTIONS) {
        PyErr_SetString(PyExc_TypeError, "call takes walkable, start, goal and five options");
        return NULL;
    }
    if (plain_jps == NULL) Py_RETURN_NONE;
    if (lane_orphans && lanes_settle_orphans() < 0) return NULL; /* before anything counts */
    for (int j = 0; j < CALL_OPTIONS; j++) {
        /* Options of other types (numpy numbers, enums) are left to the Python path. */
        PyTypeObject *type = Py_TYPE(args[3 + j]);
        if (type != &PyUnicode_Type && type != &PyBool_Type && type != &PyLong_Type &&
            type != &PyFloat_Type)
            Py_RETURN_NONE;
    }
    const CallEntry *found_entry = NULL;
    for (int i = 0; i < call_count && found_entry == NULL; i++) {
        const CallEntry *entry = &call_entries[i];
        int same = 1;
        for (int j = 0; j < CALL_OPTIONS && same; j++)
            same = same_option(args[3 + j], entry->options[j]);
        if (same) found_entry = entry;
    }
    if (found_entry == NULL) NOT_KNOWN();
    const CallEntry entry = *found_entry; /* the table may change while the GIL is released */
    if (entry.kind == KIND_PYTHON) Py_RETURN_NONE;
    if (array_type == NULL || Py_TYPE(args[0]) != array_type) Py_RETURN_NONE;
    /* One buffer request a call: held until the answer is built, so that the search reads
     * the very bytes checked here and nothing resizes the array meanwhile. */
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    PyObject *result = call_on_view(&entry, args, &view);
    PyBuffer_Release(&view);
    return result;
}

static void kernel_free(void *module) {
    grid_search_free(module);
    cheap_call_free();
    call_free();
    lanes_free();
}

static PyMethodDef kernel_methods[] = {
    {"search", kernel_search, METH_VARARGS, search_doc},
    {"field", kernel_field, METH_VARARGS, field_doc},
    {"clearance", kernel_clearance, METH_VARARGS, clearance_doc},
    {"configure", kernel_configure, METH_VARARGS, configure_doc},
    {"result", kernel_result, METH_O, result_doc},
    {"found_results", kernel_found_results, METH_O, found_results_doc},
    {"flat_ends", (PyCFunction)(void (*)(void))kernel_flat_ends, METH_FASTCALL, flat_ends_doc},
    {"batch", kernel_batch, METH_VARARGS, batch_doc},
    {"batch_arrays", kernel_batch_arrays, METH_VARARGS, batch_arrays_doc},
    {"apart", kernel_apart, METH_VARARGS, apart_doc},
    {"pairs", kernel_pairs, METH_VARARGS, pairs_doc},
    {"pairs_in_region", kernel_pairs_in_region, METH_VARARGS, pairs_in_region_doc},
    {"cells_of", kernel_cells_of, METH_O, cells_of_doc},
    {"call", (PyCFunction)(void (*)(void))kernel_call, METH_FASTCALL, call_doc},
    {"call_setup", kernel_call_setup, METH_VARARGS, call_setup_doc},
    {"call_learn", kernel_call_learn, METH_VARARGS, call_learn_doc},
    {"remember_labels", kernel_remember_labels, METH_VARARGS, remember_labels_doc},
    {"lane_setup", kernel_lane_setup, METH_VARARGS, lane_setup_doc},
    {"lane_drop", kernel_lane_drop, METH_O, lane_drop_doc},
    {"lane_tick", kernel_lane_tick, METH_NOARGS, lane_tick_doc},
    {"lanes_touched", kernel_lanes_touched, METH_NOARGS, lanes_touched_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT, "_kernel", "Compiled best-first grid search (see kernel.py).", -1,
    kernel_methods,        NULL,      NULL,
    NULL,                  kernel_free,
};

PyMODINIT_FUNC PyInit__kernel(void) {
    heuristics_init();
    if (PyType_Ready(&LazyCellsType) < 0) return NULL;
    PyObject *module = PyModule_Create(&kernel_module);
    if (module == NULL) return NULL;
    Py_INCREF(&LazyCellsType);
    if (PyModule_AddObject(module, "LazyCells", (PyObject *)&LazyCellsType) < 0) {
        Py_DECREF(&LazyCellsType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
