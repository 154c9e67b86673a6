/* LaCAM*'s search for _mapf.c, step for step as `lacam` in sim/mapf/lacam.py.
 *
 * Configurations live in flat arrays indexed by node (cells, priorities, order: one entry per
 * agent each); constraint trees and the edges between configurations live in pools linked by
 * index, so nothing is freed until the search ends. A hash table maps a configuration to its
 * node. Included by _mapf.c after its grid, stepper and list helpers.
 */

typedef struct {
    int32_t parent, tree_head, tree_tail, edge_head, edge_tail;
    int64_t g, h;
    uint64_t hash;
} Node;

typedef struct {
    int32_t parent, agent, cell, depth, next;
} Constraint;

typedef struct {
    int32_t to, next;
} Edge;

typedef struct {
    /* inputs */
    const Grid *grid;
    const int32_t *tables, *starts, *goals;
    int32_t agents;
    Rng rng;
    double deadline;
    Py_ssize_t max_nodes;
    int first_plan; /* stop once the goals are reached */
    /* the search */
    Node *nodes;
    size_t node_count, node_capacity;
    int32_t *configs, *orders;
    double *priorities;
    size_t configs_capacity, orders_capacity, priorities_capacity;
    Constraint *constraints;
    size_t constraint_count, constraint_capacity;
    Edge *edges;
    size_t edge_count, edge_capacity;
    int32_t *slots;
    size_t slot_count;
    Ints frontier, queue;
    Stepper stepper;
    Ranked *scratch;
    int32_t *fixed_agents, *fixed_cells, *successor;
    /* outputs */
    int exhausted;
    PyObject *plan;
} LacamRun;

#define RESTART_ODDS 100 /* as lacam.py's */
#define CONFIG(run, node) ((run)->configs + (size_t)(node) * (size_t)(run)->agents)
#define F(run, node) ((run)->nodes[node].g + (run)->nodes[node].h)

static uint64_t config_hash(const int32_t *config, int32_t agents) {
    uint64_t hash = 0xCBF29CE484222325ULL;
    for (int32_t agent = 0; agent < agents; agent++)
        hash = (hash ^ (uint32_t)config[agent]) * 0x100000001B3ULL;
    return hash ^ (hash >> 29);
}

static int64_t heuristic(const LacamRun *run, const int32_t *config) {
    int64_t sum = 0;
    for (int32_t agent = 0; agent < run->agents; agent++)
        sum += run->tables[(size_t)agent * (size_t)run->grid->cells + (size_t)config[agent]];
    return sum;
}

static int64_t edge_cost(const LacamRun *run, const int32_t *before, const int32_t *after) {
    int64_t cost = 0;
    for (int32_t agent = 0; agent < run->agents; agent++)
        cost += !(before[agent] == after[agent] && after[agent] == run->goals[agent]);
    return cost;
}

/* The node holding `config`, or NOBODY. */
static int32_t find_node(const LacamRun *run, const int32_t *config, uint64_t hash) {
    size_t mask = run->slot_count - 1;
    for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        int32_t node = run->slots[slot];
        if (node == NOBODY) return NOBODY;
        if (run->nodes[node].hash == hash &&
            memcmp(CONFIG(run, node), config, sizeof(int32_t) * (size_t)run->agents) == 0)
            return node;
    }
}

static void place(LacamRun *run, int32_t node) {
    size_t mask = run->slot_count - 1;
    size_t slot = run->nodes[node].hash & mask;
    while (run->slots[slot] != NOBODY) slot = (slot + 1) & mask;
    run->slots[slot] = node;
}

/* Keep the table at most half full, so probes stay short. */
static int grow_table(LacamRun *run) {
    if (2 * (run->node_count + 1) <= run->slot_count) return 0;
    size_t count = run->slot_count ? 2 * run->slot_count : 1024;
    int32_t *slots = malloc(sizeof(int32_t) * count);
    if (!slots) return -1;
    free(run->slots);
    run->slots = slots;
    run->slot_count = count;
    for (size_t slot = 0; slot < count; slot++) slots[slot] = NOBODY;
    for (size_t node = 0; node < run->node_count; node++) place(run, (int32_t)node);
    return 0;
}

static int32_t new_constraint(LacamRun *run, int32_t parent, int32_t agent, int32_t cell) {
    if (reserve((void **)&run->constraints, &run->constraint_capacity,
                run->constraint_count + 1, sizeof(Constraint)) < 0)
        return -1;
    int32_t index = (int32_t)run->constraint_count++;
    Constraint *made = &run->constraints[index];
    made->parent = parent;
    made->agent = agent;
    made->cell = cell;
    made->depth = parent == NOBODY ? 0 : run->constraints[parent].depth + 1;
    made->next = NOBODY;
    return index;
}

static void tree_append(LacamRun *run, int32_t node, int32_t constraint) {
    Node *owner = &run->nodes[node];
    if (owner->tree_tail == NOBODY)
        owner->tree_head = constraint;
    else
        run->constraints[owner->tree_tail].next = constraint;
    owner->tree_tail = constraint;
}

static int add_edge(LacamRun *run, int32_t from, int32_t to) {
    for (int32_t e = run->nodes[from].edge_head; e != NOBODY; e = run->edges[e].next)
        if (run->edges[e].to == to) return 0;
    if (reserve((void **)&run->edges, &run->edge_capacity, run->edge_count + 1, sizeof(Edge)) < 0)
        return -1;
    int32_t index = (int32_t)run->edge_count++;
    run->edges[index].to = to;
    run->edges[index].next = NOBODY;
    Node *owner = &run->nodes[from];
    if (owner->edge_tail == NOBODY)
        owner->edge_head = index;
    else
        run->edges[owner->edge_tail].next = index;
    owner->edge_tail = index;
    return 0;
}

/* Add a node for `config` (copied): priorities `start_priorities`, or else the parent's
 * moved on by one step. Returns its index, or -1 when memory ran out. */
static int32_t new_node(LacamRun *run, const int32_t *config, int32_t parent, int64_t g,
                        const double *start_priorities) {
    size_t k = (size_t)run->agents, index = run->node_count;
    if (grow_table(run) < 0 ||
        reserve((void **)&run->nodes, &run->node_capacity, index + 1, sizeof(Node)) < 0 ||
        reserve((void **)&run->configs, &run->configs_capacity, (index + 1) * k + 1,
                sizeof(int32_t)) < 0 ||
        reserve((void **)&run->orders, &run->orders_capacity, (index + 1) * k + 1,
                sizeof(int32_t)) < 0 ||
        reserve((void **)&run->priorities, &run->priorities_capacity, (index + 1) * k + 1,
                sizeof(double)) < 0)
        return -1;
    memcpy(run->configs + index * k, config, sizeof(int32_t) * k);
    double *priorities = run->priorities + index * k;
    if (start_priorities)
        memcpy(priorities, start_priorities, sizeof(double) * k);
    else /* read only now: the reserve above may have moved the array */
        next_priorities(run->priorities + (size_t)parent * k, config, run->goals, run->agents,
                        priorities);
    priority_order(priorities, run->agents, run->scratch, run->orders + index * k);
    run->node_count++;
    Node *made = &run->nodes[index];
    made->parent = parent;
    made->g = g;
    made->h = heuristic(run, config);
    made->hash = config_hash(config, run->agents);
    made->tree_head = made->tree_tail = made->edge_head = made->edge_tail = NOBODY;
    int32_t root = new_constraint(run, NOBODY, NOBODY, NOBODY);
    if (root < 0) return -1;
    tree_append(run, (int32_t)index, root);
    place(run, (int32_t)index);
    return (int32_t)index;
}

/* Lower the costs reachable from `source` after it gained an edge (Dijkstra's relaxation). */
static int repair_costs(LacamRun *run, int32_t source, int32_t best) {
    run->queue.count = 0;
    if (ints_push(&run->queue, source) < 0) return -1;
    for (size_t head = 0; head < run->queue.count; head++) {
        int32_t node = run->queue.items[head];
        for (int32_t e = run->nodes[node].edge_head; e != NOBODY; e = run->edges[e].next) {
            int32_t to = run->edges[e].to;
            int64_t g = run->nodes[node].g + edge_cost(run, CONFIG(run, node), CONFIG(run, to));
            if (g >= run->nodes[to].g) continue;
            run->nodes[to].g = g;
            run->nodes[to].parent = node;
            if (ints_push(&run->queue, to) < 0) return -1;
            if (best != NOBODY && F(run, to) < run->nodes[best].g &&
                ints_push(&run->frontier, to) < 0)
                return -1;
        }
    }
    return 0;
}

static int make_plan(LacamRun *run, int32_t best) {
    size_t length = 0, k = (size_t)run->agents;
    for (int32_t node = best; node != NOBODY; node = run->nodes[node].parent) length++;
    run->plan = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(4 * length * k));
    if (!run->plan) return -1;
    int32_t *out = (int32_t *)PyBytes_AS_STRING(run->plan);
    for (int32_t node = best; node != NOBODY; node = run->nodes[node].parent)
        memcpy(out + --length * k, CONFIG(run, node), sizeof(int32_t) * k);
    return 0;
}

/* Expand `node` once; returns -1 when memory ran out. */
static int expand(LacamRun *run, int32_t node, int32_t *best) {
    size_t k = (size_t)run->agents;
    int32_t constraint = run->nodes[node].tree_head;
    run->nodes[node].tree_head = run->constraints[constraint].next;
    if (run->nodes[node].tree_head == NOBODY) run->nodes[node].tree_tail = NOBODY;
    int32_t depth = run->constraints[constraint].depth;
    if (depth < run->agents) {
        int32_t agent = run->orders[(size_t)node * k + (size_t)depth];
        int32_t cells[MAX_DEGREE + 1];
        int count = moves(run->grid, CONFIG(run, node)[agent], cells);
        shuffle(&run->rng, cells, count);
        for (int m = 0; m < count; m++) {
            int32_t child = new_constraint(run, constraint, agent, cells[m]);
            if (child < 0) return -1;
            tree_append(run, node, child);
        }
    }
    int32_t fixed = 0;
    for (int32_t c = constraint; c != NOBODY && run->constraints[c].depth > 0;
         c = run->constraints[c].parent) {
        run->fixed_agents[fixed] = run->constraints[c].agent;
        run->fixed_cells[fixed++] = run->constraints[c].cell;
    }
    if (!step(&run->stepper, CONFIG(run, node), run->orders + (size_t)node * k,
              run->fixed_agents, run->fixed_cells, fixed, 1))
        return 0;
    memcpy(run->successor, run->stepper.going_to, sizeof(int32_t) * k);
    int32_t known = find_node(run, run->successor, config_hash(run->successor, run->agents));
    if (known != NOBODY) {
        if (add_edge(run, node, known) < 0) return -1;
        if ((*best == NOBODY || F(run, known) < run->nodes[*best].g) &&
            ints_push(&run->frontier, known) < 0)
            return -1;
        return repair_costs(run, node, *best);
    }
    int64_t g = run->nodes[node].g + edge_cost(run, CONFIG(run, node), run->successor);
    int32_t made = new_node(run, run->successor, node, g, NULL);
    if (made < 0 || add_edge(run, node, made) < 0 || ints_push(&run->frontier, made) < 0)
        return -1;
    return 0;
}

/* Search; 0 when done, -1 when memory ran out, -2 when a signal's handler raised. */
static int lacam_search(LacamRun *run) {
    size_t k = (size_t)run->agents;
    double *start_priorities = malloc(sizeof(double) * (k + 1));
    run->scratch = malloc(sizeof(Ranked) * (k + 1));
    run->fixed_agents = malloc(sizeof(int32_t) * (k + 1));
    run->fixed_cells = malloc(sizeof(int32_t) * (k + 1));
    run->successor = malloc(sizeof(int32_t) * (k + 1));
    if (!start_priorities || !run->scratch || !run->fixed_agents || !run->fixed_cells ||
        !run->successor || stepper_init(&run->stepper, run->grid, run->tables, run->goals,
                                        run->agents, &run->rng) < 0) {
        free(start_priorities);
        return -1;
    }
    for (size_t agent = 0; agent < k; agent++)
        start_priorities[agent] =
            (double)run->tables[agent * (size_t)run->grid->cells + (size_t)run->starts[agent]] /
            (double)run->agents;
    int32_t start = new_node(run, run->starts, NOBODY, 0, start_priorities);
    free(start_priorities);
    if (start < 0 || ints_push(&run->frontier, start) < 0) return -1;
    int32_t best = NOBODY;
    run->exhausted = 1;
    for (size_t iteration = 1; run->frontier.count; iteration++) {
        /* Ctrl+C: the pending KeyboardInterrupt goes up once the search is left */
        if (iteration % SIGNAL_CHECK_EVERY == 0 && PyErr_CheckSignals() < 0) return -2;
        if (now_s() > run->deadline || (Py_ssize_t)run->node_count >= run->max_nodes) {
            run->exhausted = 0;
            break;
        }
        if (best != NOBODY && rng_next(&run->rng) % RESTART_ODDS == 0 &&
            ints_push(&run->frontier, start) < 0)
            return -1;
        int32_t node = run->frontier.items[run->frontier.count - 1];
        if (best == NOBODY &&
            memcmp(CONFIG(run, node), run->goals, sizeof(int32_t) * k) == 0) {
            best = node;
            if (run->first_plan) {
                run->exhausted = 0;
                break;
            }
        }
        if ((best != NOBODY && run->nodes[best].g <= F(run, node)) ||
            run->nodes[node].tree_head == NOBODY) {
            run->frontier.count--;
            continue;
        }
        if (expand(run, node, &best) < 0) return -1;
    }
    if (best == NOBODY) {
        run->plan = PyBytes_FromStringAndSize(NULL, 0);
        return run->plan ? 0 : -1;
    }
    return make_plan(run, best);
}

static void lacam_free(LacamRun *run) {
    free(run->nodes);
    free(run->configs);
    free(run->orders);
    free(run->priorities);
    free(run->constraints);
    free(run->edges);
    free(run->slots);
    free(run->frontier.items);
    free(run->queue.items);
    free(run->scratch);
    free(run->fixed_agents);
    free(run->fixed_cells);
    free(run->successor);
    stepper_free(&run->stepper);
}
