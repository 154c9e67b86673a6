/* The pushes of parting in C: the passes of sim/crowd/parting.py's `_part_passes`, operation
 * for operation, so both move every disc to the same bit (tests/unit/test_crowd_parting_kernel.py
 * checks it).
 *
 * Each pass measures every pair from the positions the pass starts with, sums each pressed
 * disc's pushes in pair order (as numpy's bincount adds its weights), drops the part of the sum
 * that points into a wall the disc is against, and only then moves the discs: a pass never sees
 * its own pushes. The first `part_passes` passes push every pair closer than its reach, the
 * `settle_passes` after them only the pairs still deeper than `settle_beyond` of their reach;
 * a pass with nothing to push ends them all. Where nothing a disc's push reads moved in the pass
 * before, its push is the one it had: the kernel measures again only the discs near one that
 * moved (see `push_apart`), and ends where the full passes end, to the bit.
 *
 * `pairs` finds the pairs to part, as part_discs did in numpy: each agent's nearest
 * `keep` within the range (the neighbour search of _hash.h, ORCA's, threaded), the driven
 * agents with one (`pressed`), their pairs in row order and nearest first, each marked when
 * its two want opposite ways (`opposed`), and of those the pairs about to touch.
 *
 * Given the lists ORCA found this frame before the agents moved (`seen`: each row's nearest
 * within `seen_range` at the positions `before`), `pairs` searches those instead of hashing
 * again, wherever they surely hold every row now near enough: with every agent moved at most
 * D since, two rows closer than the range r now were closer than r + 2D then, so a list that
 * was short (it held all within `seen_range` > r + 2D) or whose last entry lay farther than
 * r + 2D holds them all. Both searches keep the nearest by (squared distance, index) from the
 * same arithmetic, so they give the same lists; the rows no list vouches for (an inactive
 * agent, or a list that ends too near) are searched in a hash as before.
 *
 * The GIL is released while the passes run; the buffers stay pinned by their views.
 */
#include "../navigation/_common.h"
#include "_buffers.h"
#include "_hash.h"

typedef struct {
    double *pos;            /* (rows, 2) world positions, moved in place */
    const int64_t *pressed; /* (m,) the rows pushed */
    const int64_t *local;   /* (p,) each pair's first row as an index into `pressed` */
    const int64_t *first, *second;
    const double *reach, *share; /* (p,) */
    const double *normal;        /* (m, 2) the nearest wall's unit normal, or 0 */
    const uint8_t *against;      /* (m,) against that wall */
    Py_ssize_t rows, m, p;
} Pairs;

/* The relative margin on squared lengths within which `surely_apart` leaves the answer to
 * hypot: far beyond the rounding of gx * gx + gy * gy (a few ulps), far below any gap that
 * matters. */
#define SQUARED_MARGIN 1e-6

/* Whether hypot(gx, gy) > limit, known from the squared length alone: hypot is about six
 * times the cost of a multiply-add and a pair nearly always stands clearly apart, so only
 * the few near `limit` pay for it. 0 means "not surely" (the caller works it out exactly);
 * limits too small or too large for their square to keep its precision always give 0. */
static inline int surely_apart(double gx, double gy, double limit) {
    if (!(limit > 1e-100 && limit < 1e100)) return 0;
    return gx * gx + gy * gy > limit * limit * (1.0 + SQUARED_MARGIN);
}

/* Whether hypot(gx, gy) < limit, known from the squared length alone (see `surely_apart`). */
static inline int surely_within(double gx, double gy, double limit) {
    if (!(limit > 1e-100 && limit < 1e100)) return 0;
    return gx * gx + gy * gy < limit * limit * (1.0 - SQUARED_MARGIN);
}

/* Measure pair k from the positions the pass starts with and add its push to `sum`; whether it
 * has depth. */
static inline int add_push(const Pairs *s, Py_ssize_t k, int settling, double clear,
                           double settle_beyond, double *sum) {
    const double *a = s->pos + 2 * s->first[k], *b = s->pos + 2 * s->second[k];
    const double gx = b[0] - a[0], gy = b[1] - a[1];
    /* A pair at least this far apart has no depth this pass: skipped, as adding its zero push
     * would leave every sum as it is. */
    if (surely_apart(gx, gy, s->reach[k] * clear)) return 0;
    const double apart = hypot(gx, gy);
    const double short_by = s->reach[k] - apart;
    /* np.maximum(x, 0.0): x unless it is below 0 (a NaN stays a NaN). */
    double depth = (short_by >= 0.0 || isnan(short_by)) ? short_by : 0.0;
    if (settling && depth <= settle_beyond * s->reach[k]) depth = 0.0;
    const double scale = (apart > 0.0 ? depth / apart : 0.0) * s->share[k];
    sum[0] += gx * scale;
    sum[1] += gy * scale;
    return depth != 0.0;
}

/* The worklist of `push_apart`, built the first time a pass moves few discs: the pairs grouped
 * by their pressed disc and, for each row, the pressed discs whose push reads its position. */
typedef struct {
    Py_ssize_t *start, *order; /* (m + 1,), (p,): local i's pairs are order[start[i]:start[i+1]] */
    Py_ssize_t *row_start, *readers; /* (rows + 1,), (2p + m,): who reads row r */
} Readers;

static void readers_free(Readers *w) {
    free(w->start);
    free(w->order);
    free(w->row_start);
    free(w->readers);
}

/* 0 on no memory. The grouping is stable, so each disc sums its pairs in pair order. */
static int readers_build(const Pairs *s, Readers *w) {
    const Py_ssize_t m = s->m, p = s->p, rows = s->rows;
    w->start = calloc((size_t)m + 1, sizeof *w->start);
    w->order = malloc(((size_t)p + 1) * sizeof *w->order);
    w->row_start = calloc((size_t)rows + 1, sizeof *w->row_start);
    w->readers = malloc(((size_t)(2 * p + m) + 1) * sizeof *w->readers);
    if (!w->start || !w->order || !w->row_start || !w->readers) return 0;
    for (Py_ssize_t k = 0; k < p; k++) w->start[s->local[k] + 1]++;
    for (Py_ssize_t i = 0; i < m; i++) w->start[i + 1] += w->start[i];
    for (Py_ssize_t k = 0; k < p; k++) w->order[w->start[s->local[k]]++] = k;
    for (Py_ssize_t i = m; i > 0; i--) w->start[i] = w->start[i - 1];
    w->start[0] = 0;
    /* Row r's readers: the discs with a pair at either end of r, and the disc moved at r. */
    for (Py_ssize_t k = 0; k < p; k++) {
        w->row_start[s->first[k] + 1]++;
        w->row_start[s->second[k] + 1]++;
    }
    for (Py_ssize_t i = 0; i < m; i++) w->row_start[s->pressed[i] + 1]++;
    for (Py_ssize_t r = 0; r < rows; r++) w->row_start[r + 1] += w->row_start[r];
    for (Py_ssize_t k = 0; k < p; k++) {
        w->readers[w->row_start[s->first[k]]++] = s->local[k];
        w->readers[w->row_start[s->second[k]]++] = s->local[k];
    }
    for (Py_ssize_t i = 0; i < m; i++) w->readers[w->row_start[s->pressed[i]]++] = i;
    for (Py_ssize_t r = rows; r > 0; r--) w->row_start[r] = w->row_start[r - 1];
    w->row_start[0] = 0;
    return 1;
}

/* At most this share of the pressed discs moving, the next pass measures only the discs near
 * one that moved; above it, all (in a packed crowd nearly all move every pass, and finding
 * who must measure again would cost more than it spares). */
#define FEW_MOVED 0.25

/* Run the passes; 0 when the scratch space could not be allocated.
 *
 * A disc's push reads only the positions of its pairs' ends, so after a pass that moved few
 * discs the next measures again only those one of whose ends moved (`stale`); any other
 * disc's push is the one it had, and that one did not move it (a disc it moved reads its own
 * position), so it stands still again. Its pairs' depths are as they were, so `deep` keeps
 * whether a pass has anything to push. Every disc is measured on the first pass, on the first
 * settling pass (whose rule is another) and after a pass that moved many. The positions come
 * out as the full passes leave them, to the bit. */
static int push_apart(const Pairs *s, long part_passes, long settle_passes, double settle_beyond) {
    const Py_ssize_t m = s->m;
    double *push = malloc(((size_t)m + 1) * 2 * sizeof *push);
    uint8_t *stale = calloc((size_t)m + 1, 1), *deep = calloc((size_t)m + 1, 1);
    Readers w = {0};
    int built = 0, done = push != NULL && stale != NULL && deep != NULL;
    Py_ssize_t deep_count = 0;
    int all = 1;
    for (long pass = 0; done && pass < part_passes + settle_passes; pass++) {
        const int settling = pass >= part_passes;
        const double clear = settling ? 1.0 - settle_beyond : 1.0;
        all = all || pass == part_passes;
        if (all) {
            /* Each disc's pushes summed in pair order, as numpy's bincount adds its weights. */
            memset(push, 0, (size_t)m * 2 * sizeof *push);
            memset(deep, 0, (size_t)m);
            for (Py_ssize_t k = 0; k < s->p; k++)
                deep[s->local[k]] |= (uint8_t)add_push(s, k, settling, clear, settle_beyond,
                                                       push + 2 * s->local[k]);
            deep_count = 0;
            for (Py_ssize_t i = 0; i < m; i++) deep_count += deep[i];
        } else {
            for (Py_ssize_t i = 0; i < m; i++) {
                if (!stale[i]) continue;
                double *sum = push + 2 * i;
                sum[0] = sum[1] = 0.0;
                uint8_t any = 0;
                for (Py_ssize_t at = w.start[i]; at < w.start[i + 1]; at++)
                    any |= (uint8_t)add_push(s, w.order[at], settling, clear, settle_beyond, sum);
                deep_count += any - deep[i];
                deep[i] = any;
            }
        }
        if (deep_count == 0) break;
        Py_ssize_t moved = 0;
        for (Py_ssize_t i = 0; i < m; i++) {
            if (!all && !stale[i]) continue;
            const double px = -push[2 * i], py = -push[2 * i + 1];
            const double nx = s->normal[2 * i], ny = s->normal[2 * i + 1];
            const double dot = px * nx + py * ny;
            /* np.minimum(dot, 0.0) * against */
            const double into = ((dot <= 0.0 || isnan(dot)) ? dot : 0.0) * (double)s->against[i];
            const double dx = px - into * nx, dy = py - into * ny;
            double *at = s->pos + 2 * s->pressed[i];
            at[0] += dx;
            at[1] += dy;
            /* A zero step (or one of -0.0) does what it did last pass again: nothing more. */
            stale[i] = (dx != 0.0 || dy != 0.0) ? 2 : 0;
            moved += stale[i] != 0;
        }
        all = (double)moved > FEW_MOVED * (double)m;
        if (all) continue;
        if (!built) {
            built = 1;
            if (!readers_build(s, &w)) {
                done = 0;
                break;
            }
        }
        /* Mark the readers of every row that moved: they measure again next pass. */
        for (Py_ssize_t i = 0; i < m; i++) {
            if (stale[i] != 2) continue;
            const int64_t row = s->pressed[i];
            for (Py_ssize_t at = w.row_start[row]; at < w.row_start[row + 1]; at++) {
                const Py_ssize_t reader = w.readers[at];
                if (stale[reader] == 0) stale[reader] = 1;
            }
        }
    }
    readers_free(&w);
    free(push);
    free(stale);
    free(deep);
    return done;
}

PyDoc_STRVAR(push_apart_doc,
             "push_apart(positions, pressed, local, first, second, reach, share, normal,\n"
             "           against, part_passes, settle_passes, settle_beyond) -> None\n\n"
             "Push the pairs apart in place; see parting._part_passes for the contract.");

static PyObject *parting_push_apart(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *obj[9];
    long part_passes, settle_passes;
    double settle_beyond;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOlld:push_apart", &obj[0], &obj[1], &obj[2], &obj[3],
                          &obj[4], &obj[5], &obj[6], &obj[7], &obj[8], &part_passes,
                          &settle_passes, &settle_beyond))
        return NULL;
    Views v = {.count = 0};
    Py_ssize_t n[9];
    static const char *names[9] = {"positions", "pressed", "local",  "first",  "second",
                                   "reach",     "share",   "normal", "against"};
    static const char codes[9] = {'d', 'q', 'q', 'q', 'q', 'd', 'd', 'd', '?'};
    static const char alts[9] = {'d', 'l', 'l', 'l', 'l', 'd', 'd', 'd', 'B'};
    for (int k = 0; k < 9; k++) {
        if (take(&v, obj[k], names[k], codes[k], alts[k], codes[k] == '?' ? 1 : 8, k == 0,
                 &n[k]) == NULL)
            goto fail;
    }
    Pairs s = {v.views[0].buf, v.views[1].buf, v.views[2].buf, v.views[3].buf, v.views[4].buf,
               v.views[5].buf, v.views[6].buf, v.views[7].buf, v.views[8].buf, n[0] / 2,
               n[1],           n[2]};
    if (n[0] % 2 != 0 || n[3] != s.p || n[4] != s.p || n[5] != s.p || n[6] != s.p ||
        n[7] != 2 * s.m || n[8] != s.m || part_passes < 0 || settle_passes < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "positions (rows, 2), pressed (m,), normal (m, 2), against (m,), and "
                        "local, first, second, reach, share (p,); passes >= 0");
        goto fail;
    }
    if (!indices_in(s.pressed, s.m, s.rows) || !indices_in(s.local, s.p, s.m) ||
        !indices_in(s.first, s.p, s.rows) || !indices_in(s.second, s.p, s.rows)) {
        PyErr_SetString(PyExc_ValueError, "an index lies outside the rows it points into");
        goto fail;
    }
    for (int k = 1; k < 9; k++) {
        if (views_overlap(&v.views[k], &v.views[0])) {
            PyErr_SetString(PyExc_ValueError, "positions must not share memory with the input");
            goto fail;
        }
    }
    int done;
    Py_BEGIN_ALLOW_THREADS
    done = push_apart(&s, part_passes, settle_passes, settle_beyond);
    Py_END_ALLOW_THREADS
    if (!done) {
        PyErr_NoMemory();
        goto fail;
    }
    release(&v);
    Py_RETURN_NONE;
fail:
    release(&v);
    return NULL;
}

/* The inputs and outputs of `pairs` (see parting._pairs_numpy for the contract). */
typedef struct {
    const double *pos, *radii, *preferred;
    const uint8_t *driven;
    double allow, slack;
    Py_ssize_t rows, keep;
    int64_t *near; /* (rows, keep) each row's neighbours, -1 padded */
    int64_t *pressed, *local, *first, *second;
    double *reach;
    uint8_t *opposed;
} PairSearch;

/* Fill the pairs from the neighbour lists; the counts of pressed rows and of pairs kept. */
static void find_pairs(const PairSearch *q, Py_ssize_t *m, Py_ssize_t *p) {
    Py_ssize_t pressed = 0, kept = 0;
    for (Py_ssize_t i = 0; i < q->rows; i++) {
        const int64_t *row = q->near + i * q->keep;
        if (!q->driven[i] || q->keep == 0 || row[0] < 0) continue;
        const Py_ssize_t at = pressed++;
        q->pressed[at] = i;
        for (Py_ssize_t slot = 0; slot < q->keep && row[slot] >= 0; slot++) {
            const int64_t j = row[slot];
            const double reach = (q->radii[i] + q->radii[j]) * (1.0 - q->allow);
            const double *wi = q->preferred + 2 * i, *wj = q->preferred + 2 * j;
            if (wi[0] * wj[0] + wi[1] * wj[1] < 0.0) q->opposed[i] = 1;
            const double gx = q->pos[2 * j] - q->pos[2 * i], gy = q->pos[2 * j + 1] - q->pos[2 * i + 1];
            const double within = reach * (1.0 + q->slack);
            if (surely_apart(gx, gy, within)) continue;
            /* Most pairs kept stand clearly within: only those near the limit pay for hypot. */
            if (!surely_within(gx, gy, within) && !(hypot(gx, gy) < within)) continue;
            q->local[kept] = at;
            q->first[kept] = i;
            q->second[kept] = j;
            q->reach[kept] = reach;
            kept++;
        }
    }
    *m = pressed;
    *p = kept;
}

/* The lists ORCA found before the agents moved (see the opening comment). */
typedef struct {
    const double *before; /* (rows, 2) the positions they were found at */
    const int64_t *near;  /* (rows, width) each row's nearest then, -1 padded; -2 first: none */
    Py_ssize_t width;
    double range; /* they hold nobody this far or farther */
} Seen;

/* A relative margin on the bounds of the opening comment: far beyond the rounding of a few
 * operations, far below the gaps between a crowd's neighbours. */
#define SEEN_MARGIN 1e-9
#define NOT_SEARCHED (-2) /* _avoidance.c's mark of a row it did not search */

/* Fill `near` (rows, keep) for the driven rows from `seen` where it vouches for them; mark the
 * others in `unsure` and return their count, or -1 when the positions spread too far for
 * `range` (grid_build's refusal, which the search would otherwise have raised). */
static Py_ssize_t lists_from_seen(const PairSearch *q, const Seen *seen, double range,
                                  uint8_t *unsure, Neighbour *list) {
    const Py_ssize_t rows = q->rows, keep = q->keep;
    double moved = 0.0;
    double min_x = rows ? q->pos[0] : 0.0, max_x = min_x, min_y = rows ? q->pos[1] : 0.0,
           max_y = min_y;
    for (Py_ssize_t i = 0; i < rows; i++) {
        const double x = q->pos[2 * i], y = q->pos[2 * i + 1];
        const double dx = x - seen->before[2 * i], dy = y - seen->before[2 * i + 1];
        const double d = sqrt(dx * dx + dy * dy);
        if (!(d <= moved)) moved = d; /* a NaN stays, and vouches for nobody below */
        if (x < min_x) min_x = x;
        if (x > max_x) max_x = x;
        if (y < min_y) min_y = y;
        if (y > max_y) max_y = y;
    }
    const double spread = max_x - min_x > max_y - min_y ? max_x - min_x : max_y - min_y;
    if (rows > 0 && range != 0.0 && !(spread / range < MAX_SPREAD)) return -1;
    const double reach = (range + 2.0 * moved) * (1.0 + SEEN_MARGIN);
    const double reach_sq = reach * reach * (1.0 + SEEN_MARGIN);
    const int short_holds_all = reach * (1.0 + SEEN_MARGIN) < seen->range;
    const double range_sq = range * range;
    Py_ssize_t count_unsure = 0;
    for (Py_ssize_t i = 0; i < rows; i++) {
        int64_t *out = q->near + i * keep;
        unsure[i] = 0;
        if (!q->driven[i]) {
            for (Py_ssize_t k = 0; k < keep; k++) out[k] = -1;
            continue;
        }
        const int64_t *row = seen->near + i * seen->width;
        Py_ssize_t listed = 0;
        while (listed < seen->width && row[listed] >= 0) listed++;
        int sure;
        if (seen->width == 0 || row[0] == NOT_SEARCHED || !(moved == moved)) {
            sure = 0;
        } else if (listed < seen->width) {
            sure = short_holds_all;
        } else {
            const int64_t last = row[seen->width - 1];
            const double dx = seen->before[2 * last] - seen->before[2 * i];
            const double dy = seen->before[2 * last + 1] - seen->before[2 * i + 1];
            sure = dx * dx + dy * dy > reach_sq;
        }
        if (!sure) {
            unsure[i] = 1;
            count_unsure++;
            continue;
        }
        Py_ssize_t count = 0;
        for (Py_ssize_t k = 0; k < listed; k++) {
            const int64_t j = row[k];
            /* grid_query's arithmetic: the hash's entries hold these same positions. */
            const double dx = q->pos[2 * j] - q->pos[2 * i], dy = q->pos[2 * j + 1] - q->pos[2 * i + 1];
            const double dist_sq = dx * dx + dy * dy;
            if (dist_sq < range_sq) count = keep_nearest(list, count, keep, dist_sq, j);
        }
        for (Py_ssize_t k = 0; k < keep; k++) out[k] = k < count ? (int64_t)list[k].index : -1;
    }
    return count_unsure;
}

/* Each row's nearest `keep` within `range` into q->near: from `seen` where it vouches for them
 * (may be NULL), the rest from a hash, threaded when they are many. 1 on success, 0 on no
 * memory, -1 when the positions spread too far. */
static int search_lists(const PairSearch *q, const Seen *seen, double range) {
    const Py_ssize_t rows = q->rows, keep = q->keep;
    uint8_t *unsure = NULL;
    Neighbour *list = NULL;
    Py_ssize_t count_unsure = rows;
    if (seen != NULL && keep > 0) {
        unsure = malloc((size_t)rows + 1);
        list = malloc(((size_t)keep + 1) * sizeof *list);
        if (unsure == NULL || list == NULL) {
            free(unsure);
            free(list);
            return 0;
        }
        count_unsure = lists_from_seen(q, seen, range, unsure, list);
        if (count_unsure < 0) {
            free(unsure);
            free(list);
            return -1;
        }
    }
    int result = 1;
    if (count_unsure > 0) {
        Grid grid;
        result = grid_build(&grid, q->pos, rows, keep > 0 ? range : 0.0);
        if (result == 1) {
            /* A few rows are searched here; many are worth the threads of a full search. */
            if (unsure != NULL && count_unsure * 8 < rows) {
                for (Py_ssize_t i = 0; i < rows; i++) {
                    if (!unsure[i]) continue;
                    const Py_ssize_t count = grid_query(&grid, i, keep, list);
                    for (Py_ssize_t k = 0; k < keep; k++)
                        q->near[i * keep + k] = k < count ? (int64_t)list[k].index : -1;
                }
            } else {
                Share share = {
                    .task = neighbours_share, .grid = &grid, .rows = q->near, .keep = keep};
                result = run_shares(&share, rows);
            }
            grid_free(&grid);
        }
    }
    free(unsure);
    free(list);
    return result;
}

PyDoc_STRVAR(pairs_doc,
             "pairs(positions, radii, driven, preferred, neighbour_dist, keep, allow, slack,\n"
             "      pressed, local, first, second, reach, opposed, before=None, seen=None,\n"
             "      seen_range=0.0) -> (m, p)\n\n"
             "Find the pairs to part into the outputs; see parting._pairs_numpy. `before`\n"
             "(rows x 2) and `seen` (rows x width int64, -1 padded, -2 first: none) are the\n"
             "neighbour lists ORCA found within `seen_range` before the agents moved.");

static PyObject *parting_pairs(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *obj[10], *before_obj = Py_None, *seen_obj = Py_None;
    double range, allow, slack, seen_range = 0.0;
    Py_ssize_t keep;
    if (!PyArg_ParseTuple(args, "OOOOdnddOOOOOO|OOd:pairs", &obj[0], &obj[1], &obj[2], &obj[3],
                          &range, &keep, &allow, &slack, &obj[4], &obj[5], &obj[6], &obj[7],
                          &obj[8], &obj[9], &before_obj, &seen_obj, &seen_range))
        return NULL;
    Views v = {.count = 0};
    Py_ssize_t n[10];
    static const char *names[10] = {"positions", "radii", "driven", "preferred", "pressed",
                                    "local",     "first", "second", "reach",     "opposed"};
    static const char codes[10] = {'d', 'd', '?', 'd', 'q', 'q', 'q', 'q', 'd', '?'};
    static const char alts[10] = {'d', 'd', 'B', 'd', 'l', 'l', 'l', 'l', 'd', 'B'};
    for (int k = 0; k < 10; k++) {
        const Py_ssize_t size = codes[k] == '?' ? 1 : 8;
        if (take(&v, obj[k], names[k], codes[k], alts[k], size, k >= 4, &n[k]) == NULL)
            goto fail;
    }
    if (!apart(&v, 4)) goto fail;
    const Py_ssize_t rows = n[1];
    if (n[0] != 2 * rows || n[2] != rows || n[3] != 2 * rows || n[4] != rows ||
        n[9] != rows || keep < 0 || keep > (rows > 0 ? rows - 1 : 0) || n[5] != rows * keep ||
        n[6] != rows * keep || n[7] != rows * keep || n[8] != rows * keep ||
        !(isfinite(range) && range >= 0.0)) {
        PyErr_SetString(PyExc_ValueError,
                        "positions, preferred (rows, 2); radii, driven, pressed, opposed "
                        "(rows,); local, first, second, reach (rows * keep,); keep 0 to "
                        "rows - 1; neighbour_dist finite and >= 0");
        goto fail;
    }
    Seen seen = {NULL, NULL, 0, seen_range};
    if ((before_obj == Py_None) != (seen_obj == Py_None)) {
        PyErr_SetString(PyExc_ValueError, "before and seen go together");
        goto fail;
    }
    if (before_obj != Py_None) {
        Py_ssize_t n_before, n_seen;
        Py_buffer *b = take(&v, before_obj, "before", 'd', 'd', 8, 0, &n_before);
        Py_buffer *l = b ? take(&v, seen_obj, "seen", 'q', 'l', 8, 0, &n_seen) : NULL;
        if (l == NULL) goto fail;
        if (n_before != 2 * rows || (rows > 0 && n_seen % rows != 0) ||
            (rows == 0 && n_seen != 0) || !(isfinite(seen_range) && seen_range >= 0.0)) {
            PyErr_SetString(PyExc_ValueError,
                            "before (rows, 2), seen (rows, width), seen_range finite and >= 0");
            goto fail;
        }
        seen.before = b->buf;
        seen.near = l->buf;
        seen.width = rows > 0 ? n_seen / rows : 0;
        for (Py_ssize_t k = 0; k < n_seen; k++) {
            if (seen.near[k] < NOT_SEARCHED || seen.near[k] >= rows) {
                PyErr_SetString(PyExc_ValueError, "seen lists a row outside the rows");
                goto fail;
            }
        }
        /* The outputs (views 4 to 9) must not share memory with these inputs either. */
        for (int out = 4; out < 10; out++) {
            if (views_overlap(&v.views[10], &v.views[out]) ||
                views_overlap(&v.views[11], &v.views[out])) {
                PyErr_SetString(PyExc_ValueError, "an output shares memory with an input");
                goto fail;
            }
        }
    }
    int64_t *near = malloc(((size_t)rows * (size_t)keep + 1) * sizeof *near);
    if (near == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    PairSearch q = {v.views[0].buf, v.views[1].buf, v.views[3].buf, v.views[2].buf,
                    allow,          slack,          rows,           keep,
                    near,           v.views[4].buf, v.views[5].buf, v.views[6].buf,
                    v.views[7].buf, v.views[8].buf, v.views[9].buf};
    int built;
    Py_ssize_t m = 0, p = 0;
    Py_BEGIN_ALLOW_THREADS
    built = search_lists(&q, seen.near != NULL ? &seen : NULL, range);
    if (built == 1) {
        memset(q.opposed, 0, (size_t)rows);
        find_pairs(&q, &m, &p);
    }
    Py_END_ALLOW_THREADS
    free(near);
    if (built == -1) {
        PyErr_SetString(PyExc_ValueError,
                        "positions spread over more than 2**28 neighbour distances");
        goto fail;
    }
    if (built != 1) {
        PyErr_NoMemory();
        goto fail;
    }
    release(&v);
    return Py_BuildValue("(nn)", m, p);
fail:
    release(&v);
    return NULL;
}

static PyMethodDef parting_methods[] = {
    {"pairs", parting_pairs, METH_VARARGS, pairs_doc},
    {"push_apart", parting_push_apart, METH_VARARGS, push_apart_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef parting_module = {
    PyModuleDef_HEAD_INIT, "_parting", "Parting's pushes (see parting.py).", -1,
    parting_methods,       NULL,       NULL,                                  NULL, NULL,
};

PyMODINIT_FUNC PyInit__parting(void) { return PyModule_Create(&parting_module); }
