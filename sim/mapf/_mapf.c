/* The hot loops of sim.mapf: distance tables, PIBT and LaCAM*.
 *
 * Each function mirrors its Python reference step for step (sim/mapf/problem.py,
 * pibt.py, lacam.py), drawing from the same SplitMix64 stream in the same order, so that both
 * return the same plan for the same seed. Cells are flat ints (row * width + col); a
 * configuration is one cell per agent. Inputs arrive as contiguous buffers checked by the
 * Python wrapper (sim/mapf/native.py); plans leave as bytes of int32, one configuration after
 * another.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOBODY (-1)
#define UNREACHABLE (1 << 30)
#define SIGNAL_CHECK_EVERY 4096 /* iterations between looks for Ctrl+C */

/* ---- random stream: SplitMix64, as sim/mapf/rng.py ---- */

typedef struct {
    uint64_t state;
} Rng;

static uint64_t rng_next(Rng *rng) {
    rng->state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = rng->state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void shuffle(Rng *rng, int32_t *items, int count) {
    for (int index = count - 1; index > 0; index--) {
        int other = (int)(rng_next(rng) % (uint64_t)(index + 1));
        int32_t kept = items[index];
        items[index] = items[other];
        items[other] = kept;
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the grid: the moves of MapfProblem.neighbours ---- */

#define MAX_DEGREE 8

typedef struct {
    int32_t width, height, cells;
    int diagonal;     /* 8-connected */
    int32_t *next_to; /* cells * MAX_DEGREE */
    uint8_t *degree;  /* cells */
} Grid;

static int free_at(const uint8_t *walkable, int32_t height, int32_t width, int32_t r, int32_t c) {
    return r >= 0 && r < height && c >= 0 && c < width && walkable[r * width + c];
}

/* Walkable neighbours up, left, right, down; then, 8-connected, up-left, up-right, down-left,
 * down-right, each with both orthogonal cells beside it walkable (no corner cutting). */
static int grid_init(Grid *grid, const uint8_t *walkable, int32_t height, int32_t width,
                     int connectivity) {
    static const int32_t steps[MAX_DEGREE][2] = {{-1, 0}, {0, -1}, {0, 1},  {1, 0},
                                                 {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
    grid->width = width;
    grid->height = height;
    grid->cells = width * height;
    grid->diagonal = connectivity == 8;
    grid->next_to = malloc(sizeof(int32_t) * MAX_DEGREE * (size_t)grid->cells);
    grid->degree = calloc((size_t)grid->cells, 1);
    if (!grid->next_to || !grid->degree) return -1;
    for (int32_t cell = 0; cell < grid->cells; cell++) {
        int32_t row = cell / width, col = cell % width;
        if (!walkable[cell]) continue;
        for (int k = 0; k < (grid->diagonal ? 8 : 4); k++) {
            int32_t r = row + steps[k][0], c = col + steps[k][1];
            if (!free_at(walkable, height, width, r, c)) continue;
            if (k >= 4 && (!free_at(walkable, height, width, r, col) ||
                           !free_at(walkable, height, width, row, c)))
                continue;
            grid->next_to[MAX_DEGREE * cell + grid->degree[cell]++] = r * width + c;
        }
    }
    return 0;
}

static void grid_free(Grid *grid) {
    free(grid->next_to);
    free(grid->degree);
}

/* ---- PIBT's one step, as Stepper in pibt.py ---- */

typedef struct {
    const Grid *grid;
    const int32_t *tables; /* agents * cells */
    const int32_t *goals;  /* agents */
    int32_t agents;
    Rng *rng;
    int32_t *occupied_now, *occupied_next; /* cells, NOBODY when empty */
    const int32_t *came_from;              /* agents */
    int32_t *going_to;                     /* agents */
} Stepper;

static int stepper_init(Stepper *s, const Grid *grid, const int32_t *tables,
                        const int32_t *goals, int32_t agents, Rng *rng) {
    s->grid = grid;
    s->tables = tables;
    s->goals = goals;
    s->agents = agents;
    s->rng = rng;
    s->occupied_now = malloc(sizeof(int32_t) * (size_t)grid->cells);
    s->occupied_next = malloc(sizeof(int32_t) * (size_t)grid->cells);
    s->going_to = malloc(sizeof(int32_t) * (size_t)(agents > 0 ? agents : 1));
    if (!s->occupied_now || !s->occupied_next || !s->going_to) return -1;
    for (int32_t cell = 0; cell < grid->cells; cell++)
        s->occupied_now[cell] = s->occupied_next[cell] = NOBODY;
    return 0;
}

static void stepper_free(Stepper *s) {
    free(s->occupied_now);
    free(s->occupied_next);
    free(s->going_to);
}

/* The cells an agent at `cell` may take: its neighbours, then `cell`; returns the count. */
static int moves(const Grid *grid, int32_t cell, int32_t *out) {
    int count = grid->degree[cell];
    memcpy(out, grid->next_to + MAX_DEGREE * cell, sizeof(int32_t) * (size_t)count);
    out[count] = cell;
    return count + 1;
}

/* The swap of "Engineering LaCAM*" (Okumura 2024), as Stepper._swap_partner and its helpers. */

/* Ways on from `ahead` not back to `behind` nor into a dead end someone rests at. */
static int corridor_step(const Stepper *s, int32_t behind, int32_t ahead, int32_t *onward) {
    int count = 0;
    *onward = NOBODY;
    for (int k = 0; k < s->grid->degree[ahead]; k++) {
        int32_t cell = s->grid->next_to[MAX_DEGREE * ahead + k];
        int32_t resting = s->occupied_now[cell];
        if (cell == behind ||
            (s->grid->degree[cell] == 1 && resting != NOBODY && s->goals[resting] == cell))
            continue;
        count++;
        *onward = cell;
    }
    return count;
}

static int swap_required(const Stepper *s, int32_t pusher, int32_t puller, int32_t at_pusher,
                         int32_t at_puller) {
    size_t cells = (size_t)s->grid->cells;
    const int32_t *pushing = s->tables + (size_t)pusher * cells;
    const int32_t *pulling = s->tables + (size_t)puller * cells;
    while (pushing[at_puller] < pushing[at_pusher]) {
        int32_t onward;
        int count = corridor_step(s, at_pusher, at_puller, &onward);
        if (count >= 2) return 0;
        if (count == 0) break;
        at_pusher = at_puller;
        at_puller = onward;
    }
    return pulling[at_pusher] < pulling[at_puller] &&
           (pushing[at_pusher] == 0 || pushing[at_puller] < pushing[at_pusher]);
}

static int swap_possible(const Stepper *s, int32_t at_pusher, int32_t at_puller) {
    int32_t origin = at_pusher;
    while (at_puller != origin) {
        int32_t onward;
        int count = corridor_step(s, at_pusher, at_puller, &onward);
        if (count >= 2) return 1;
        if (count == 0) return 0;
        at_pusher = at_puller;
        at_puller = onward;
    }
    return 0;
}

static int32_t swap_partner(const Stepper *s, int32_t agent, int32_t here, int32_t best) {
    if (best == here) return NOBODY;
    int32_t other = s->occupied_now[best];
    if (other != NOBODY && s->going_to[other] == NOBODY &&
        swap_required(s, agent, other, here, best) && swap_possible(s, best, here))
        return other;
    for (int k = 0; k < s->grid->degree[here]; k++) { /* one behind, bound through `best` */
        int32_t cell = s->grid->next_to[MAX_DEGREE * here + k];
        int32_t behind = s->occupied_now[cell];
        if (behind != NOBODY && best != cell && swap_required(s, behind, agent, here, best) &&
            swap_possible(s, best, here))
            return behind;
    }
    return NOBODY;
}

/* Whether the step `before` -> `after` crosses a diagonal step already chosen, as
 * Stepper._crosses. */
static int crosses(const Stepper *s, int32_t before, int32_t after) {
    if (!s->grid->diagonal) return 0;
    int32_t width = s->grid->width;
    int32_t row = before / width, col = before % width;
    int32_t to_row = after / width, to_col = after % width;
    if (abs(to_row - row) != 1 || abs(to_col - col) != 1) return 0;
    int32_t first = row * width + to_col, second = to_row * width + col;
    int32_t other = s->occupied_now[first];
    if (other != NOBODY && s->going_to[other] == second) return 1;
    other = s->occupied_now[second];
    return other != NOBODY && s->going_to[other] == first;
}

static int plan(Stepper *s, int32_t agent) {
    int32_t here = s->came_from[agent];
    int32_t candidates[MAX_DEGREE + 1];
    int64_t keys[MAX_DEGREE + 1];
    int count = moves(s->grid, here, candidates);
    shuffle(s->rng, candidates, count);
    const int32_t *table = s->tables + (size_t)agent * (size_t)s->grid->cells;
    for (int k = 0; k < count; k++)
        keys[k] = 2 * (int64_t)table[candidates[k]] + (s->occupied_now[candidates[k]] != NOBODY);
    for (int k = 1; k < count; k++) { /* insertion sort: stable, as Python's sort */
        int32_t cell = candidates[k];
        int64_t key = keys[k];
        int j = k - 1;
        while (j >= 0 && keys[j] > key) {
            candidates[j + 1] = candidates[j];
            keys[j + 1] = keys[j];
            j--;
        }
        candidates[j + 1] = cell;
        keys[j + 1] = key;
    }
    int32_t partner = swap_partner(s, agent, here, candidates[0]);
    if (partner != NOBODY) { /* back away from the partner, pulling it along */
        for (int k = 0; k < count / 2; k++) {
            int32_t kept = candidates[k];
            candidates[k] = candidates[count - 1 - k];
            candidates[count - 1 - k] = kept;
        }
    }
    for (int k = 0; k < count; k++) {
        int32_t cell = candidates[k];
        if (s->occupied_next[cell] != NOBODY) continue;
        int32_t other = s->occupied_now[cell];
        if (other != NOBODY && s->going_to[other] == here) continue;
        if (crosses(s, here, cell)) continue;
        s->occupied_next[cell] = agent;
        s->going_to[agent] = cell;
        if (other != NOBODY && other != agent && s->going_to[other] == NOBODY && !plan(s, other))
            continue;
        if (k == 0 && partner != NOBODY && s->going_to[partner] == NOBODY &&
            s->occupied_next[here] == NOBODY && !crosses(s, s->came_from[partner], here)) {
            s->occupied_next[here] = partner;
            s->going_to[partner] = here;
        }
        return 1;
    }
    s->occupied_next[here] = agent;
    s->going_to[agent] = here;
    return 0;
}

/* One step from `config`; constraints as (agent, cell) pairs. Returns 1, or 0 on a clash. */
static int step(Stepper *s, const int32_t *config, const int32_t *order,
                const int32_t *fixed_agents, const int32_t *fixed_cells, int32_t fixed,
                int strict) {
    int ok = 1;
    s->came_from = config;
    for (int32_t agent = 0; agent < s->agents; agent++) {
        s->going_to[agent] = NOBODY;
        s->occupied_now[config[agent]] = agent;
    }
    for (int32_t k = 0; k < fixed && ok; k++) {
        int32_t agent = fixed_agents[k], cell = fixed_cells[k];
        int32_t mover = s->occupied_next[config[agent]];
        if (s->occupied_next[cell] != NOBODY ||
            (mover != NOBODY && mover == s->occupied_now[cell]) ||
            crosses(s, config[agent], cell)) {
            ok = 0;
            break;
        }
        s->going_to[agent] = cell;
        s->occupied_next[cell] = agent;
    }
    for (int32_t k = 0; k < s->agents && ok; k++) {
        int32_t agent = order[k];
        if (s->going_to[agent] == NOBODY && !plan(s, agent) && strict) ok = 0;
    }
    for (int32_t agent = 0; agent < s->agents; agent++) {
        s->occupied_now[config[agent]] = NOBODY;
        if (s->going_to[agent] != NOBODY) s->occupied_next[s->going_to[agent]] = NOBODY;
    }
    return ok;
}

/* ---- priorities, as pibt.py ---- */

typedef struct {
    double priority;
    int32_t agent;
} Ranked;

static int by_priority(const void *a, const void *b) {
    const Ranked *x = a, *y = b;
    if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
    return (x->agent > y->agent) - (x->agent < y->agent);
}

static void priority_order(const double *priorities, int32_t agents, Ranked *scratch,
                           int32_t *order) {
    for (int32_t agent = 0; agent < agents; agent++) {
        scratch[agent].priority = priorities[agent];
        scratch[agent].agent = agent;
    }
    qsort(scratch, (size_t)agents, sizeof(Ranked), by_priority);
    for (int32_t k = 0; k < agents; k++) order[k] = scratch[k].agent;
}

static void next_priorities(const double *before, const int32_t *config, const int32_t *goals,
                            int32_t agents, double *after) {
    for (int32_t agent = 0; agent < agents; agent++)
        after[agent] = config[agent] != goals[agent] ? before[agent] + 1.0
                                                     : before[agent] - floor(before[agent]);
}

/* ---- a growable int32 array ---- */

typedef struct {
    int32_t *items;
    size_t count, capacity;
} Ints;

static int ints_push(Ints *list, int32_t value) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 64;
        int32_t *items = realloc(list->items, sizeof(int32_t) * capacity);
        if (!items) return -1;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = value;
    return 0;
}

/* Grow `*items` (of `size` bytes each) to hold at least `need`; -1 when memory ran out. */
static int reserve(void **items, size_t *capacity, size_t need, size_t size) {
    if (need <= *capacity) return 0;
    size_t grown = *capacity ? *capacity : 64;
    while (grown < need) grown *= 2;
    void *moved = realloc(*items, grown * size);
    if (!moved) return -1;
    *items = moved;
    *capacity = grown;
    return 0;
}

#include "_lacam.h"

/* ---- Python entry points ---- */

static int check_sizes(Py_buffer *walkable, Py_buffer *starts, Py_buffer *goals,
                       Py_buffer *tables, int32_t height, int32_t width) {
    Py_ssize_t cells = (Py_ssize_t)height * width;
    Py_ssize_t agents = starts->len / 4;
    if (height < 1 || width < 1 || walkable->len != cells || starts->len % 4 ||
        goals->len != starts->len || tables->len != 4 * agents * cells) {
        PyErr_SetString(PyExc_ValueError, "buffer sizes do not match the grid and agents");
        return -1;
    }
    return 0;
}

static PyObject *py_distances(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer walkable, goals;
    int height, width, connectivity;
    if (!PyArg_ParseTuple(args, "y*iiiy*:distances", &walkable, &height, &width, &connectivity,
                          &goals))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t cells = (Py_ssize_t)height * width, agents = goals.len / 4;
    if (height < 1 || width < 1 || walkable.len != cells || goals.len % 4) {
        PyErr_SetString(PyExc_ValueError, "buffer sizes do not match the grid");
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, 4 * agents * cells);
    int32_t *queue = malloc(sizeof(int32_t) * (size_t)cells);
    Grid grid = {0};
    if (!result || !queue || grid_init(&grid, walkable.buf, height, width, connectivity) < 0) {
        Py_XDECREF(result);
        result = PyErr_NoMemory();
    } else {
        int32_t *tables = (int32_t *)PyBytes_AS_STRING(result);
        const int32_t *goal_cells = goals.buf;
        for (Py_ssize_t agent = 0; agent < agents; agent++) {
            int32_t *table = tables + agent * cells;
            for (Py_ssize_t cell = 0; cell < cells; cell++) table[cell] = UNREACHABLE;
            int32_t goal = goal_cells[agent];
            if (goal < 0 || goal >= cells || !((const uint8_t *)walkable.buf)[goal]) continue;
            Py_ssize_t head = 0, tail = 0;
            table[goal] = 0;
            queue[tail++] = goal;
            while (head < tail) {
                int32_t current = queue[head++];
                for (int k = 0; k < grid.degree[current]; k++) {
                    int32_t next = grid.next_to[MAX_DEGREE * current + k];
                    if (table[next] != UNREACHABLE) continue;
                    table[next] = table[current] + 1;
                    queue[tail++] = next;
                }
            }
        }
    }
    free(queue);
    grid_free(&grid);
done:
    PyBuffer_Release(&walkable);
    PyBuffer_Release(&goals);
    return result;
}

static PyObject *py_pibt(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer walkable, starts, goals, tables;
    int height, width, connectivity;
    unsigned long long seed;
    Py_ssize_t max_steps;
    double time_limit_s;
    if (!PyArg_ParseTuple(args, "y*iiiy*y*y*Kdn:pibt", &walkable, &height, &width,
                          &connectivity, &starts, &goals, &tables, &seed, &time_limit_s,
                          &max_steps))
        return NULL;
    PyObject *result = NULL;
    if (check_sizes(&walkable, &starts, &goals, &tables, height, width) == 0) {
        double deadline = now_s() + time_limit_s;
        int32_t agents = (int32_t)(starts.len / 4);
        const int32_t *goal_cells = goals.buf;
        Grid grid = {0};
        Stepper stepper = {0};
        Rng rng = {seed};
        Ints configs = {0};
        double *priorities = malloc(sizeof(double) * (size_t)(agents + 1));
        Ranked *scratch = malloc(sizeof(Ranked) * (size_t)(agents + 1));
        int32_t *order = malloc(sizeof(int32_t) * (size_t)(agents + 1));
        int failed = !priorities || !scratch || !order ||
                     grid_init(&grid, walkable.buf, height, width, connectivity) < 0 ||
                     stepper_init(&stepper, &grid, tables.buf, goal_cells, agents, &rng) < 0;
        for (int32_t agent = 0; agent < agents && !failed; agent++) {
            failed = ints_push(&configs, ((const int32_t *)starts.buf)[agent]) < 0;
            if (!failed)
                priorities[agent] = (double)((const int32_t *)tables.buf)[
                    (size_t)agent * (size_t)grid.cells + (size_t)configs.items[agent]] /
                    (double)agents;
        }
        int solved = 0, interrupted = 0;
        Py_ssize_t steps = 0;
        while (!failed) {
            const int32_t *config = configs.items + (size_t)steps * (size_t)agents;
            if (memcmp(config, goal_cells, sizeof(int32_t) * (size_t)agents) == 0) {
                solved = 1;
                break;
            }
            if (steps + 1 > max_steps || now_s() > deadline) break;
            if (steps % SIGNAL_CHECK_EVERY == 0 && PyErr_CheckSignals() < 0) {
                interrupted = 1;
                break;
            }
            priority_order(priorities, agents, scratch, order);
            step(&stepper, config, order, NULL, NULL, 0, 0);
            for (int32_t agent = 0; agent < agents && !failed; agent++)
                failed = ints_push(&configs, stepper.going_to[agent]) < 0;
            steps++;
            next_priorities(priorities, configs.items + (size_t)steps * (size_t)agents,
                            goal_cells, agents, priorities);
        }
        if (failed) {
            PyErr_NoMemory();
        } else if (!interrupted) {
            result = Py_BuildValue("(Oy#)", solved ? Py_True : Py_False, (char *)configs.items,
                                   (Py_ssize_t)(solved ? 4 * configs.count : 0));
        }
        free(configs.items);
        free(priorities);
        free(scratch);
        free(order);
        stepper_free(&stepper);
        grid_free(&grid);
    }
    PyBuffer_Release(&walkable);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&goals);
    PyBuffer_Release(&tables);
    return result;
}

static PyObject *py_lacam(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer walkable, starts, goals, tables;
    int height, width, connectivity;
    unsigned long long seed;
    Py_ssize_t max_nodes;
    double time_limit_s;
    int first_plan;
    if (!PyArg_ParseTuple(args, "y*iiiy*y*y*Kdnp:lacam", &walkable, &height, &width,
                          &connectivity, &starts, &goals, &tables, &seed, &time_limit_s,
                          &max_nodes, &first_plan))
        return NULL;
    PyObject *result = NULL;
    if (check_sizes(&walkable, &starts, &goals, &tables, height, width) == 0) {
        Grid grid = {0};
        if (grid_init(&grid, walkable.buf, height, width, connectivity) < 0) {
            PyErr_NoMemory();
        } else {
            LacamRun run = {0};
            run.grid = &grid;
            run.tables = tables.buf;
            run.starts = starts.buf;
            run.goals = goals.buf;
            run.agents = (int32_t)(starts.len / 4);
            run.rng.state = seed;
            run.deadline = now_s() + time_limit_s;
            run.max_nodes = max_nodes;
            run.first_plan = first_plan;
            int searched = lacam_search(&run);
            if (searched == -1) {
                PyErr_NoMemory();
            } else if (searched == 0) {
                result = Py_BuildValue("(OnO)", run.exhausted ? Py_True : Py_False,
                                       (Py_ssize_t)run.node_count, run.plan);
            }
            Py_XDECREF(run.plan);
            lacam_free(&run);
        }
        grid_free(&grid);
    }
    PyBuffer_Release(&walkable);
    PyBuffer_Release(&starts);
    PyBuffer_Release(&goals);
    PyBuffer_Release(&tables);
    return result;
}

static PyMethodDef methods[] = {
    {"distances", py_distances, METH_VARARGS,
     "distances(walkable, height, width, connectivity, goals) -> bytes: int32 BFS tables,"
     " agent by agent."},
    {"pibt", py_pibt, METH_VARARGS,
     "pibt(walkable, height, width, connectivity, starts, goals, tables, seed, time_limit_s,"
     " max_steps) -> (solved, configs bytes)."},
    {"lacam", py_lacam, METH_VARARGS,
     "lacam(walkable, height, width, connectivity, starts, goals, tables, seed, time_limit_s,"
     " max_nodes, first_plan) -> (exhausted, nodes, configs bytes)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_mapf", "Compiled MAPF kernels (see sim.mapf.native).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__mapf(void) { return PyModule_Create(&module); }
