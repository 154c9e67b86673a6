/* The parallel environment's step and observations in C: the numpy reference
 * (sim/envs/steps.py, collisions.py, rewards.py, observe.py and parallel.py) operation for
 * operation, so both give identical cells, costs, rewards and observations
 * (tests/unit/test_env_kernel.py checks it on random steps).
 *
 * A step: each agent's action is checked against the padded open grid (a diagonal passes its
 * corners as the rule says), the proposals are resolved by the rules of sim/envs/collisions.py
 * (vertex: a stayer keeps its cell, then the lowest index; swap: the later of the two stops;
 * again until nothing changes) with two cell -> agent tables the caller keeps at -1, then
 * costs, rewards and the padded occupancy grid are brought up to date. Python's step then only
 * builds PettingZoo's dicts.
 *
 * Bit-identical sums need the compiler not to fuse a * b + c (../navigation/_common.h).
 */
#include "../navigation/_common.h"

enum { RULE_NEVER = 0, RULE_NO_CORNER_CUTTING = 1, RULE_ONE_OBSTACLE = 2, RULE_ALWAYS = 3 };

#define MAX_VIEWS 16

typedef struct {
    Py_buffer views[MAX_VIEWS];
    int count;
} Views;

static void release(Views *v) {
    for (int k = 0; k < v->count; k++) PyBuffer_Release(&v->views[k]);
    v->count = 0;
}

/* A C-contiguous buffer of `items` items of `size` bytes in format `code` (or `alt`). */
static void *take(Views *v, PyObject *obj, const char *name, Py_ssize_t items, char code,
                  char alt, Py_ssize_t size, int writable) {
    Py_buffer *view = &v->views[v->count];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return NULL;
    v->count++;
    int format_ok = size == 8 && (code == 'q') ? is_int64(view)
                                               : (format_is(view, code) || format_is(view, alt));
    if (view->itemsize != size || view->len != items * size || !format_ok) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd contiguous items of %zd bytes", name,
                     items, size);
        return NULL;
    }
    return view->buf;
}

static inline double octile(int64_t d_row, int64_t d_col, int diagonal) {
    double a = (double)(d_row < 0 ? -d_row : d_row);
    double b = (double)(d_col < 0 ? -d_col : d_col);
    if (!diagonal) return a + b;
    double high = a > b ? a : b, low = a > b ? b : a;
    return high + (sqrt(2.0) - 1.0) * low;
}

PyDoc_STRVAR(step_doc,
             "step(open, entry, height, width, rule, deltas, lengths, here, goals, actions,\n"
             "     occupied, radius, goal_reward, progress_weight, step_cost, diagonal, owner,\n"
             "     at, final, cost, reward, arrived) -> int\n\n"
             "One step of K agents (see sim/envs/parallel.py); returns how many moved.");

static PyObject *env_step(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *open_o, *entry_o, *deltas_o, *lengths_o, *here_o, *goals_o, *actions_o, *occ_o,
        *owner_o, *at_o, *final_o, *cost_o, *reward_o, *arrived_o;
    Py_ssize_t height, width, radius;
    int rule, diagonal;
    double goal_reward, progress_weight, step_cost;
    if (!PyArg_ParseTuple(args, "OOnniOOOOOOndddiOOOOOO:step", &open_o, &entry_o, &height,
                          &width, &rule, &deltas_o, &lengths_o, &here_o, &goals_o, &actions_o,
                          &occ_o, &radius, &goal_reward, &progress_weight, &step_cost,
                          &diagonal, &owner_o, &at_o, &final_o, &cost_o, &reward_o, &arrived_o))
        return NULL;
    if (height < 1 || width < 1 || radius < 1 || rule < RULE_NEVER || rule > RULE_ALWAYS) {
        PyErr_SetString(PyExc_ValueError, "bad grid size, radius or rule");
        return NULL;
    }
    Views v = {.count = 0};
    const Py_ssize_t padded = (height + 2) * (width + 2);
    const Py_ssize_t wide = width + 2 * radius;
    const Py_ssize_t cells = height * width;
    Py_ssize_t actions_count, k_count;
    {
        Py_buffer probe;
        if (PyObject_GetBuffer(lengths_o, &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        actions_count = probe.len / 8;
        PyBuffer_Release(&probe);
        if (PyObject_GetBuffer(here_o, &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        k_count = probe.len / 8;
        PyBuffer_Release(&probe);
    }
    const uint8_t *open = take(&v, open_o, "open", padded, '?', 'B', 1, 0);
    const double *entry = open ? take(&v, entry_o, "entry", padded, 'd', 'd', 8, 0) : NULL;
    const int64_t *deltas =
        entry ? take(&v, deltas_o, "deltas", 2 * actions_count, 'q', 'q', 8, 0) : NULL;
    const double *lengths =
        deltas ? take(&v, lengths_o, "lengths", actions_count, 'd', 'd', 8, 0) : NULL;
    const int64_t *here = lengths ? take(&v, here_o, "here", k_count, 'q', 'q', 8, 0) : NULL;
    const int64_t *goals = here ? take(&v, goals_o, "goals", k_count, 'q', 'q', 8, 0) : NULL;
    const int64_t *actions =
        goals ? take(&v, actions_o, "actions", k_count, 'q', 'q', 8, 0) : NULL;
    float *occupied =
        actions ? take(&v, occ_o, "occupied", (height + 2 * radius) * wide, 'f', 'f', 4, 1)
                : NULL;
    int32_t *owner = occupied ? take(&v, owner_o, "owner", cells, 'i', 'i', 4, 1) : NULL;
    int32_t *at = owner ? take(&v, at_o, "at", cells, 'i', 'i', 4, 1) : NULL;
    int64_t *final = at ? take(&v, final_o, "final", k_count, 'q', 'q', 8, 1) : NULL;
    double *cost = final ? take(&v, cost_o, "cost", k_count, 'd', 'd', 8, 1) : NULL;
    double *reward = cost ? take(&v, reward_o, "reward", k_count, 'd', 'd', 8, 1) : NULL;
    uint8_t *arrived = reward ? take(&v, arrived_o, "arrived", k_count, '?', 'B', 1, 1) : NULL;
    if (arrived == NULL) {
        release(&v);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < k_count; k++) {
        if (here[k] < 0 || here[k] >= cells || goals[k] < 0 || goals[k] >= cells ||
            actions[k] < 0 || actions[k] >= actions_count) {
            release(&v);
            PyErr_SetString(PyExc_ValueError, "a cell or an action is out of range");
            return NULL;
        }
    }
    uint8_t *loser = calloc((size_t)(k_count > 0 ? k_count : 1), 1);
    if (loser == NULL) {
        release(&v);
        return PyErr_NoMemory();
    }
    const Py_ssize_t stride = width + 2;
    Py_ssize_t moved = 0;
    Py_BEGIN_ALLOW_THREADS
    /* Proposals: an action the cell does not allow stays put (steps.StepTable.apply). */
    for (Py_ssize_t k = 0; k < k_count; k++) {
        const int64_t row = here[k] / width, col = here[k] % width;
        const int64_t d_row = deltas[2 * actions[k]], d_col = deltas[2 * actions[k] + 1];
        int legal = open[(row + 1 + d_row) * stride + col + 1 + d_col] != 0;
        if (d_row != 0 && d_col != 0 && rule != RULE_ALWAYS) {
            const int a = open[(row + 1 + d_row) * stride + col + 1] != 0;
            const int b = open[(row + 1) * stride + col + 1 + d_col] != 0;
            legal = legal && (rule == RULE_NO_CORNER_CUTTING ? (a && b) : (a || b));
        }
        final[k] = legal ? (row + d_row) * width + col + d_col : here[k];
        at[here[k]] = (int32_t)k;
    }
    /* collisions.resolve: both rules read one snapshot of the proposals, then refuse. */
    for (;;) {
        for (Py_ssize_t k = 0; k < k_count; k++)
            if (final[k] == here[k]) owner[final[k]] = (int32_t)k;
        for (Py_ssize_t k = 0; k < k_count; k++) {
            if (final[k] == here[k]) continue;
            if (owner[final[k]] < 0)
                owner[final[k]] = (int32_t)k;
            else
                loser[k] = 1;
        }
        for (Py_ssize_t k = 0; k < k_count; k++) {
            if (final[k] == here[k]) continue;
            const int32_t j = at[final[k]];
            if (j >= 0 && j != k && final[j] == here[k]) loser[j > k ? j : k] = 1;
        }
        int changed = 0;
        for (Py_ssize_t k = 0; k < k_count; k++) owner[final[k]] = -1;
        for (Py_ssize_t k = 0; k < k_count; k++) {
            if (loser[k] && final[k] != here[k]) {
                final[k] = here[k];
                changed = 1;
            }
            loser[k] = 0;
        }
        if (!changed) break;
    }
    for (Py_ssize_t k = 0; k < k_count; k++) at[here[k]] = -1;
    /* Costs, rewards (rewards.Rewards.pay) and the occupancy the windows read. */
    for (Py_ssize_t k = 0; k < k_count; k++) {
        const int64_t row = here[k] / width, col = here[k] % width;
        const int64_t end_row = final[k] / width, end_col = final[k] % width;
        const int64_t goal_row = goals[k] / width, goal_col = goals[k] % width;
        const int went = final[k] != here[k];
        moved += went;
        cost[k] = went ? lengths[actions[k]] * entry[(end_row + 1) * stride + end_col + 1] : 0.0;
        arrived[k] = final[k] == goals[k];
        const double before = octile(goal_row - row, goal_col - col, diagonal);
        const double after = octile(goal_row - end_row, goal_col - end_col, diagonal);
        const double paid_time = cost[k] > 0.0 ? cost[k] : 1.0;
        reward[k] = (arrived[k] ? goal_reward : 0.0) + progress_weight * (before - after) -
                    step_cost * paid_time;
        occupied[(row + radius) * wide + col + radius] = 0.0f;
    }
    for (Py_ssize_t k = 0; k < k_count; k++) {
        if (arrived[k]) continue;
        const int64_t end_row = final[k] / width, end_col = final[k] % width;
        occupied[(end_row + radius) * wide + end_col + radius] = 1.0f;
    }
    Py_END_ALLOW_THREADS
    free(loser);
    release(&v);
    return PyLong_FromSsize_t(moved);
}

PyDoc_STRVAR(observe_doc,
             "observe(blocked, occupied, height, width, radius, cells, goals, out) -> None\n\n"
             "Write each agent's (3, 2R+1, 2R+1) observation into `out` (sim/envs/parallel.py).");

static PyObject *env_observe(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *blocked_o, *occ_o, *cells_o, *goals_o, *out_o;
    Py_ssize_t height, width, radius;
    if (!PyArg_ParseTuple(args, "OOnnnOOO:observe", &blocked_o, &occ_o, &height, &width, &radius,
                          &cells_o, &goals_o, &out_o))
        return NULL;
    if (height < 1 || width < 1 || radius < 1) {
        PyErr_SetString(PyExc_ValueError, "bad grid size or radius");
        return NULL;
    }
    Views v = {.count = 0};
    const Py_ssize_t wide = width + 2 * radius, size = 2 * radius + 1;
    const Py_ssize_t padded = (height + 2 * radius) * wide;
    Py_ssize_t k_count;
    {
        Py_buffer probe;
        if (PyObject_GetBuffer(cells_o, &probe, PyBUF_C_CONTIGUOUS) < 0) return NULL;
        k_count = probe.len / 8;
        PyBuffer_Release(&probe);
    }
    const float *blocked = take(&v, blocked_o, "blocked", padded, 'f', 'f', 4, 0);
    const float *occupied = blocked ? take(&v, occ_o, "occupied", padded, 'f', 'f', 4, 0) : NULL;
    const int64_t *cells = occupied ? take(&v, cells_o, "cells", k_count, 'q', 'q', 8, 0) : NULL;
    const int64_t *goals = cells ? take(&v, goals_o, "goals", k_count, 'q', 'q', 8, 0) : NULL;
    float *out = goals ? take(&v, out_o, "out", k_count * 3 * size * size, 'f', 'f', 4, 1) : NULL;
    if (out == NULL) {
        release(&v);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < k_count; k++) {
        if (cells[k] < 0 || cells[k] >= height * width || goals[k] < 0 ||
            goals[k] >= height * width) {
            release(&v);
            PyErr_SetString(PyExc_ValueError, "a cell is out of range");
            return NULL;
        }
    }
    const Py_ssize_t plane = size * size;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < k_count; k++) {
        const int64_t row = cells[k] / width, col = cells[k] % width;
        float *o = out + k * 3 * plane;
        /* The window's top-left in the padded grids is the agent's own cell. */
        for (Py_ssize_t r = 0; r < size; r++) {
            const Py_ssize_t from = (row + r) * wide + col;
            memcpy(o + r * size, blocked + from, (size_t)size * sizeof *o);
            memcpy(o + plane + r * size, occupied + from, (size_t)size * sizeof *o);
        }
        o[plane + radius * size + radius] = 0.0f;
        float *target = o + 2 * plane;
        memset(target, 0, (size_t)plane * sizeof *target);
        int64_t d_row = goals[k] / width - row + radius, d_col = goals[k] % width - col + radius;
        d_row = d_row < 0 ? 0 : (d_row > 2 * radius ? 2 * radius : d_row);
        d_col = d_col < 0 ? 0 : (d_col > 2 * radius ? 2 * radius : d_col);
        target[d_row * size + d_col] = 1.0f;
    }
    Py_END_ALLOW_THREADS
    release(&v);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"step", env_step, METH_VARARGS, step_doc},
    {"observe", env_observe, METH_VARARGS, observe_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_env_kernel",
    "The parallel environment's step and observations in C (see the source's header).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__env_kernel(void) { return PyModule_Create(&module); }
