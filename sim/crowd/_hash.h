/* The crowd's neighbour search, shared by _avoidance.c (ORCA, find_neighbours) and _parting.c
 * (parting's pairs): a uniform spatial hash over the agents and the query for each agent's
 * nearest `keep` within a range, with the agents split over threads. _avoidance.c's opening
 * comment explains the hash and the query; every list is sorted by (squared distance, index),
 * a total order, so neither the scan order nor the split over threads shows in a result.
 * Included after ../navigation/_common.h. */
#ifndef SIM_CROWD_HASH_H
#define SIM_CROWD_HASH_H

#include <pthread.h>
#include <unistd.h>

#define MAX_SPREAD 268435456.0 /* 2**28, avoidance.MAX_SPREAD */
/* Cells per neighbour distance: smaller cells skip more of the far ones a full list needs
 * no more (4 measured fastest of 2 to 8 for 10,000 agents pressing toward one goal). */
#define CELLS_PER_RANGE 4
/* Agents are solved on up to this many threads, each given at least MIN_SHARE of them (fewer
 * are not worth a thread's start). Every agent's answer depends only on the input, so the
 * split never shows in the result. */
#define MAX_THREADS 8
#define MIN_SHARE 1500

typedef struct {
    double dist_sq;
    Py_ssize_t index;
} Neighbour;

/* ---- The spatial hash ---- */

typedef struct {
    double x, y;
    int32_t cx, cy, index;
} Entry;

typedef struct {
    Py_ssize_t n;
    double range, range_sq, cell, inv_cell, slack, min_x, min_y;
    uint64_t width, buckets, mask;
    uint64_t height;       /* rows of cells holding agents */
    int one_cell_a_bucket; /* no two of those cells share a bucket */
    int32_t *start; /* buckets + 1 bucket starts into `entries` */
    Entry *entries; /* agents sorted by bucket, their positions copied for locality */
    Entry *own;     /* each agent's entry, by index */
} Grid;

static inline int32_t cell_of(double value, double min, double inv_cell) {
    return (int32_t)floor((value - min) * inv_cell);
}

/* Row-major cell numbers modulo the table: a row's cells are consecutive buckets. */
static inline uint64_t bucket_of(const Grid *g, int32_t cx, int32_t cy) {
    return ((uint64_t)cy * g->width + (uint64_t)cx) & g->mask;
}

static void grid_free(Grid *g) {
    free(g->start);
    free(g->entries);
    free(g->own);
    g->start = NULL;
    g->entries = g->own = NULL;
}

/* 1 on success, 0 on no memory, -1 when the positions spread too far for `range`. */
static int grid_build(Grid *g, const double *pos, Py_ssize_t n, double range) {
    memset(g, 0, sizeof *g);
    g->n = n;
    g->range = range;
    g->range_sq = range * range;
    if (n == 0 || range == 0.0) return 1;
    double min_x = pos[0], max_x = pos[0], min_y = pos[1], max_y = pos[1];
    for (Py_ssize_t i = 1; i < n; i++) {
        double x = pos[2 * i], y = pos[2 * i + 1];
        if (x < min_x) min_x = x;
        if (x > max_x) max_x = x;
        if (y < min_y) min_y = y;
        if (y > max_y) max_y = y;
    }
    double spread = max_x - min_x > max_y - min_y ? max_x - min_x : max_y - min_y;
    if (!(spread / range < MAX_SPREAD)) return -1;
    g->min_x = min_x;
    g->min_y = min_y;
    /* No smaller than the mean spacing over the bounding box (see the top of the file). */
    const double spacing = sqrt((max_x - min_x) * (max_y - min_y) / (double)n);
    g->cell = range / CELLS_PER_RANGE > spacing ? range / CELLS_PER_RANGE : spacing;
    g->inv_cell = 1.0 / g->cell;
    /* Cell numbers stay below 2**30, so a cell's bounds computed from its number are off by
     * far less than this; cells are skipped only when farther by more. */
    g->slack = g->cell * 1e-5;
    g->width = (uint64_t)cell_of(max_x, min_x, g->inv_cell) + 1;
    g->buckets = 2;
    while (g->buckets < 2 * (uint64_t)n) g->buckets <<= 1;
    g->mask = g->buckets - 1;
    g->height = (uint64_t)cell_of(max_y, min_y, g->inv_cell) + 1;
    g->one_cell_a_bucket = g->height <= g->buckets / g->width;
    g->start = calloc(g->buckets + 1, sizeof *g->start);
    g->entries = malloc((size_t)n * sizeof *g->entries);
    g->own = malloc((size_t)n * sizeof *g->own);
    if (g->start == NULL || g->entries == NULL || g->own == NULL) {
        grid_free(g);
        return 0;
    }
    Entry *own = g->own;
    for (Py_ssize_t i = 0; i < n; i++) {
        own[i].x = pos[2 * i];
        own[i].y = pos[2 * i + 1];
        own[i].cx = cell_of(own[i].x, min_x, g->inv_cell);
        own[i].cy = cell_of(own[i].y, min_y, g->inv_cell);
        own[i].index = (int32_t)i;
        g->start[bucket_of(g, own[i].cx, own[i].cy) + 1]++;
    }
    for (uint64_t b = 0; b < g->buckets; b++) g->start[b + 1] += g->start[b];
    /* start[b] serves as bucket b's write cursor, ending where bucket b + 1 begins; shifting
     * the array one place up then restores the starts. */
    for (Py_ssize_t i = 0; i < n; i++)
        g->entries[g->start[bucket_of(g, own[i].cx, own[i].cy)]++] = own[i];
    memmove(g->start + 1, g->start, g->buckets * sizeof *g->start);
    g->start[0] = 0;
    return 1;
}

static inline int nearer(double dist_sq, Py_ssize_t index, const Neighbour *than) {
    return dist_sq < than->dist_sq || (dist_sq == than->dist_sq && index < than->index);
}

/* Keep list[0..count) sorted by (dist_sq, index) and at most `keep` long; the new count. */
static inline Py_ssize_t keep_nearest(Neighbour *list, Py_ssize_t count, Py_ssize_t keep,
                                      double dist_sq, Py_ssize_t index) {
    Py_ssize_t at;
    if (count == keep) {
        if (!nearer(dist_sq, index, &list[keep - 1])) return count;
        at = keep - 1;
    } else {
        at = count++;
    }
    while (at > 0 && nearer(dist_sq, index, &list[at - 1])) {
        list[at] = list[at - 1];
        at--;
    }
    list[at].dist_sq = dist_sq;
    list[at].index = index;
    return count;
}

/* Agents of cells xa..xb of row cy, from entries [begin, end), into the list. Entries of other
 * cells share these buckets when the world has more cells than the table: skipped, so no
 * agent is counted twice. */
static inline Py_ssize_t scan_entries(const Grid *g, const Entry *me, int32_t cy, int32_t xa,
                                      int32_t xb, int32_t begin, int32_t end, double limit_sq,
                                      Py_ssize_t keep, Neighbour *list, Py_ssize_t count) {
    if (g->one_cell_a_bucket) {
        /* The buckets of cells xa..xb of a row that holds agents hold those cells' agents and
         * no others (a row past the last would share row 0's buckets, and holds no one). */
        if ((uint64_t)cy >= g->height) return count;
        for (const Entry *e = g->entries + begin; e < g->entries + end; e++) {
            if (e->index == me->index) continue;
            const double dx = e->x - me->x, dy = e->y - me->y;
            const double dist_sq = dx * dx + dy * dy;
            if (dist_sq < limit_sq) count = keep_nearest(list, count, keep, dist_sq, e->index);
        }
        return count;
    }
    for (const Entry *e = g->entries + begin; e < g->entries + end; e++) {
        if (e->cy != cy || e->cx < xa || e->cx > xb || e->index == me->index) continue;
        const double dx = e->x - me->x, dy = e->y - me->y;
        const double dist_sq = dx * dx + dy * dy;
        if (dist_sq < limit_sq) count = keep_nearest(list, count, keep, dist_sq, e->index);
    }
    return count;
}

static Py_ssize_t scan_row(const Grid *g, const Entry *me, int32_t cy, int32_t xa, int32_t xb,
                           double limit_sq, Py_ssize_t keep, Neighbour *list, Py_ssize_t count) {
    const uint64_t cells = (uint64_t)(xb - xa) + 1;
    if (cells >= g->buckets)
        return scan_entries(g, me, cy, xa, xb, 0, (int32_t)g->n, limit_sq, keep, list, count);
    const uint64_t first = bucket_of(g, xa, cy), last = first + cells; /* exclusive */
    if (last <= g->buckets)
        return scan_entries(g, me, cy, xa, xb, g->start[first], g->start[last], limit_sq, keep,
                            list, count);
    /* The row wraps around the end of the table. */
    count = scan_entries(g, me, cy, xa, xb, g->start[first], g->start[g->buckets], limit_sq,
                         keep, list, count);
    return scan_entries(g, me, cy, xa, xb, 0, g->start[last - g->buckets], limit_sq, keep, list,
                        count);
}

/* The gap from `value` to cell `c` along one axis, in world units, a little short. */
static inline double axis_gap(const Grid *g, double value, double min, int32_t c) {
    const double low = min + (double)c * g->cell - g->slack;
    const double high = min + (double)(c + 1) * g->cell + g->slack;
    return value < low ? low - value : (value > high ? value - high : 0.0);
}

/* Row cy's cells xa..xb, less the block's columns bx..bz when the row is one of the block's
 * (those were scanned first). */
static Py_ssize_t scan_row_around(const Grid *g, const Entry *me, int32_t cy, int32_t xa,
                                  int32_t xb, int in_block, int32_t bx, int32_t bz,
                                  double limit_sq, Py_ssize_t keep, Neighbour *list,
                                  Py_ssize_t count) {
    if (!in_block || bz < bx) {
        return xa <= xb ? scan_row(g, me, cy, xa, xb, limit_sq, keep, list, count) : count;
    }
    const int32_t left_end = xb < bx - 1 ? xb : bx - 1;
    const int32_t right_start = xa > bz + 1 ? xa : bz + 1;
    if (xa <= left_end) count = scan_row(g, me, cy, xa, left_end, limit_sq, keep, list, count);
    if (right_start <= xb)
        count = scan_row(g, me, cy, right_start, xb, limit_sq, keep, list, count);
    return count;
}

/* The nearest `keep` agents closer than `limit` (at most the range; `limit_sq` its square) to
 * agent i, into `list`; their count.
 * The 3 x 3 cells around the agent's own go first, so the list fills with near agents at
 * once; then rows are visited from the agent's own outward, and once the list is full, rows
 * and the ends of rows farther than its last entry are skipped. */
static Py_ssize_t query_within(const Grid *g, const Entry *me, double limit, double limit_sq,
                               Py_ssize_t keep, Neighbour *list) {
    /* The cells that cover [x - limit, x + limit]: the same arithmetic as every agent's own
     * cell, and monotone, so an agent closer than the limit never falls outside. */
    int32_t x0 = cell_of(me->x - limit, g->min_x, g->inv_cell);
    int32_t x1 = cell_of(me->x + limit, g->min_x, g->inv_cell);
    const int32_t y0 = cell_of(me->y - limit, g->min_y, g->inv_cell);
    const int32_t y1 = cell_of(me->y + limit, g->min_y, g->inv_cell);
    if (x0 < 0) x0 = 0;
    if ((uint64_t)x1 >= g->width) x1 = (int32_t)(g->width - 1);
    /* The block: the own cell's column and its neighbours within [x0, x1]. */
    const int32_t bx = me->cx - 1 > x0 ? me->cx - 1 : x0;
    const int32_t bz = me->cx + 1 < x1 ? me->cx + 1 : x1;
    Py_ssize_t count = 0;
    for (int32_t cy = me->cy - 1; cy <= me->cy + 1; cy++) {
        if (cy < y0 || cy > y1 || cy < 0 || bz < bx) continue;
        count = scan_row(g, me, cy, bx, bz, limit_sq, keep, list, count);
    }
    const int32_t rings = me->cy - y0 > y1 - me->cy ? me->cy - y0 : y1 - me->cy;
    for (int32_t r = 0; r <= rings; r++) {
        /* Rows r away are at least r - 1 whole cells away. */
        const double near = (double)(r - 1) * g->cell - g->slack;
        if (count == keep && near > 0.0 && near * near > list[keep - 1].dist_sq) break;
        for (int side = 0; side < (r == 0 ? 1 : 2); side++) {
            const int32_t cy = side ? me->cy + r : me->cy - r;
            if (cy < y0 || cy > y1 || cy < 0) continue; /* rows past the last hold no one */
            int32_t xa = x0, xb = x1;
            if (count == keep) {
                const double gy = axis_gap(g, me->y, g->min_y, cy);
                const double room = list[keep - 1].dist_sq - gy * gy;
                if (room < 0.0) continue;
                const double half = sqrt(room) + g->slack;
                const int32_t a = cell_of(me->x - half, g->min_x, g->inv_cell);
                const int32_t b = cell_of(me->x + half, g->min_x, g->inv_cell);
                if (a > xa) xa = a;
                if (b < xb) xb = b;
            }
            count = scan_row_around(g, me, cy, xa, xb, r <= 1, bx, bz, limit_sq, keep, list,
                                    count);
        }
    }
    return count;
}

/* A guess at a limit within which agent i has `keep` neighbours: GUESS_MARGIN times the
 * radius of a disc holding `keep` agents at the density of its 3 x 3 block; the range where
 * the block holds fewer than GUESS_CROWD times `keep` (a sparse crowd has few to sort anyway)
 * or its cells share buckets. A guess too short costs a second search, never a wrong list
 * (1.1 measured fastest of 1.1 to 1.5 for 10,000 agents packed round one goal: about one
 * agent in twelve searches again). */
#define GUESS_CROWD 2
#define GUESS_MARGIN 1.1
static double guess_limit(const Grid *g, const Entry *me, Py_ssize_t keep) {
    if (!g->one_cell_a_bucket) return g->range;
    const int32_t bx = me->cx > 0 ? me->cx - 1 : 0;
    const int32_t bz = (uint64_t)me->cx + 1 < g->width ? me->cx + 1 : (int32_t)g->width - 1;
    int64_t held = 0, cells = 0;
    for (int32_t cy = me->cy - 1; cy <= me->cy + 1; cy++) {
        if (cy < 0 || (uint64_t)cy >= g->height) continue;
        const uint64_t first = bucket_of(g, bx, cy), last = first + (uint64_t)(bz - bx) + 1;
        if (last > g->buckets) return g->range; /* the row wraps round the table */
        held += g->start[last] - g->start[first];
        cells += bz - bx + 1;
    }
    if (held < GUESS_CROWD * keep) return g->range;
    const double area = (double)cells * g->cell * g->cell;
    const double limit = GUESS_MARGIN * sqrt((double)keep * area / (M_PI * (double)held));
    return limit < g->range ? limit : g->range;
}

/* The nearest `keep` agents closer than the range to the agent of entry `me` (`grid_query`:
 * to agent i), into `list`; their count.
 *
 * In a dense crowd the range holds many more agents than `keep`, and sorting each into the
 * list costs more than finding it: the search first goes only as far as `guess_limit`. When
 * that finds `keep` agents, the keep-th lies within the limit, so no agent beyond it could
 * be among the nearest and the list is the one the whole range gives; when it finds fewer,
 * the search runs again over the whole range. */
static Py_ssize_t grid_query_at(const Grid *g, const Entry *me, Py_ssize_t keep,
                                Neighbour *list) {
    if (keep == 0 || g->range == 0.0) return 0;
    const double limit = guess_limit(g, me, keep);
    if (limit < g->range) {
        const Py_ssize_t count = query_within(g, me, limit, limit * limit, keep, list);
        if (count == keep) return count;
    }
    return query_within(g, me, g->range, g->range_sq, keep, list);
}

static Py_ssize_t grid_query(const Grid *g, Py_ssize_t i, Py_ssize_t keep, Neighbour *list) {
    if (keep == 0 || g->range == 0.0) return 0;
    return grid_query_at(g, &g->own[i], keep, list);
}

/* ---- Agents split over threads ---- */

/* Threads take agents CHUNK at a time from a shared counter, in the hash's bucket order: a
 * thread that the machine's other work slows takes fewer chunks, not an equal half, and the
 * agents of one chunk stand near each other, so their neighbours' entries stay in cache. */
#define CHUNK 256

/* One thread's share: agents [begin, end) of the scan order of a query (`task`) over the
 * built grid (`agent_at` gives each slot's agent). */
typedef struct Share Share;
struct Share {
    void (*task)(const Share *);
    const Grid *grid;
    const void *context; /* the task's own input (avoid's Step) */
    int64_t *rows;     /* neighbours' */
    Py_ssize_t keep, begin, end, n;
    Py_ssize_t *next;  /* the first slot no thread has taken yet, shared */
    int failed;        /* its scratch space could not be allocated */
};

/* The agent at `slot` of the scan order: bucket order, or index order with no hash built. */
static inline Py_ssize_t agent_at(const Grid *g, Py_ssize_t slot) {
    return g->entries != NULL ? (Py_ssize_t)g->entries[slot].index : slot;
}

/* The neighbours of the agent at `slot` (see `grid_query`). Its entry is read where the scan
 * order keeps it, beside its neighbours', not from `own`, which the scan visits at random. */
static inline Py_ssize_t query_slot(const Grid *g, Py_ssize_t slot, Py_ssize_t keep,
                                    Neighbour *list) {
    if (g->entries == NULL) return grid_query(g, slot, keep, list);
    return grid_query_at(g, &g->entries[slot], keep, list);
}

static void neighbours_share(const Share *sh) {
    const Py_ssize_t keep = sh->keep;
    Neighbour *near = malloc(((size_t)keep + 1) * sizeof *near);
    if (near == NULL) {
        ((Share *)sh)->failed = 1;
        return;
    }
    for (Py_ssize_t slot = sh->begin; slot < sh->end; slot++) {
        const Py_ssize_t i = agent_at(sh->grid, slot);
        Py_ssize_t count = query_slot(sh->grid, slot, keep, near);
        for (Py_ssize_t k = 0; k < keep; k++)
            sh->rows[i * keep + k] = k < count ? (int64_t)near[k].index : -1;
    }
    free(near);
}

static void *run_share(void *arg) {
    Share *sh = arg;
    for (;;) {
        const Py_ssize_t begin = __atomic_fetch_add(sh->next, CHUNK, __ATOMIC_RELAXED);
        if (begin >= sh->n || sh->failed) break;
        sh->begin = begin;
        sh->end = begin + CHUNK < sh->n ? begin + CHUNK : sh->n;
        sh->task(sh);
    }
    return NULL;
}

/* Run `base`'s task over agents [0, n) on threads; 0 if a share failed. A thread that
 * cannot be started leaves its chunks to the others. */
static int run_shares(const Share *base, Py_ssize_t n) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    Py_ssize_t threads = n / MIN_SHARE;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if (cores > 0 && threads > cores) threads = cores;
    if (threads < 1) threads = 1;
    Share shares[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    Py_ssize_t next = 0;
    for (Py_ssize_t t = 0; t < threads; t++) {
        shares[t] = *base;
        shares[t].n = n;
        shares[t].next = &next;
        shares[t].failed = 0;
    }
    for (Py_ssize_t t = 1; t < threads; t++)
        started[t] = pthread_create(&ids[t], NULL, run_share, &shares[t]) == 0;
    run_share(&shares[0]);
    int ok = !shares[0].failed;
    for (Py_ssize_t t = 1; t < threads; t++) {
        if (started[t]) pthread_join(ids[t], NULL);
        ok = ok && !shares[t].failed;
    }
    return ok;
}

#endif
