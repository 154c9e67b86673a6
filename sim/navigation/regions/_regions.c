/* Connected regions of a walkable mask, in C: what sim/navigation/regions/flood.py does, faster.
 *
 * A region is a set of walkable cells joined by 4-connected steps. Under the no-corner-cutting
 * rule a diagonal step needs both orthogonal cells walkable, so it never joins cells that an
 * orthogonal step does not: the same labels serve 4- and 8-connected moves (regions.py says
 * why). Every array is flat, `row * width + col`:
 *   - `label` labels every cell from scratch (-1 on blocked cells) in scan order;
 *   - `diff` lists the cells where a mask differs from the snapshot; `same` tells whether none;
 *   - `update` applies the cells that changed to the snapshot and the labels: a blocked cell
 *     whose walkable orthogonal neighbours stay joined round its 3 x 3 ring cannot split its
 *     region; one that may is settled by breadth-first searches from its neighbours run in
 *     lockstep, stopping as soon as at most one of them is still growing, so a split costs
 *     about the size of the pieces cut off, not of the region (the largest keeps its label);
 *     an opened cell merges its neighbours' regions into the largest one;
 *   - `boundary` lists the cells 4-adjacent to a region and not in it (all blocked);
 *   - `sealed` tells whether every cell of such a list is blocked in a mask now.
 * Labels are never reused between full labellings: a region that changed gets a new number
 * (or keeps the largest part's), so a cache keyed by label can tell what is stale.
 * The GIL is held throughout: the callers keep a lock around a RegionMap anyway, and the work
 * per call is small except `label`, which releases it.
 */
#include "../_common.h"

#define BLOCKED (-1)
#define UNSEEN (-2)      /* `label`: walkable, no label yet */
#define IN_REGION (-2)   /* `boundary`: a cell of the region, visited */
#define ON_BOUNDARY (-3) /* `boundary`: a blocked cell already listed */
#define MARK_BASE (-2)   /* `update`: explorer i marks the cells it reached MARK_BASE - i */
#define MAX_EXPLORERS (1 << 28)
#define CHUNK 4096 /* cells compared per memcmp in `diff` */

typedef struct {
    Py_ssize_t height, width, size;
} Shape;

/* The up to four orthogonal neighbours of `cell`; returns how many. */
static int neighbours(const Shape *g, Py_ssize_t cell, Py_ssize_t out[4]) {
    Py_ssize_t row = cell / g->width, col = cell % g->width;
    int count = 0;
    if (row > 0) out[count++] = cell - g->width;
    if (row + 1 < g->height) out[count++] = cell + g->width;
    if (col > 0) out[count++] = cell - 1;
    if (col + 1 < g->width) out[count++] = cell + 1;
    return count;
}

/* ---- label ---------------------------------------------------------------------------- */

/* Label every cell; returns the number of regions, -1 when `capacity` sizes are too few. */
static int64_t label_all(const Shape *g, const uint8_t *walkable, int32_t *labels,
                         int64_t *sizes, Py_ssize_t capacity, int32_t *queue) {
    for (Py_ssize_t cell = 0; cell < g->size; cell++) labels[cell] = walkable[cell] ? UNSEEN : BLOCKED;
    int64_t count = 0;
    for (Py_ssize_t seed = 0; seed < g->size; seed++) {
        if (labels[seed] != UNSEEN) continue;
        if (count >= capacity) return -1;
        int32_t label = (int32_t)count;
        Py_ssize_t head = 0, tail = 0;
        labels[seed] = label;
        queue[tail++] = (int32_t)seed;
        while (head < tail) {
            Py_ssize_t near[4];
            int k = neighbours(g, queue[head++], near);
            for (int i = 0; i < k; i++) {
                if (labels[near[i]] == UNSEEN) {
                    labels[near[i]] = label;
                    queue[tail++] = (int32_t)near[i];
                }
            }
        }
        sizes[count++] = tail;
    }
    return count;
}

/* ---- update --------------------------------------------------------------------------- */

/* Whether the walkable orthogonal neighbours of `cell` stay joined without it, through the
 * walkable cells of its 3 x 3 ring (consecutive ring cells are 4-adjacent). */
static int ring_joins(const Shape *g, const uint8_t *snapshot, Py_ssize_t cell) {
    static const int ring_dr[8] = {-1, -1, 0, 1, 1, 1, 0, -1}; /* N NE E SE S SW W NW */
    static const int ring_dc[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    Py_ssize_t row = cell / g->width, col = cell % g->width;
    int open[8], orthogonal = 0;
    for (int i = 0; i < 8; i++) {
        Py_ssize_t r = row + ring_dr[i], c = col + ring_dc[i];
        open[i] = r >= 0 && r < g->height && c >= 0 && c < g->width && snapshot[r * g->width + c];
        if (i % 2 == 0) orthogonal += open[i];
    }
    if (orthogonal <= 1) return 1;
    /* Count the runs of open ring cells that hold an open orthogonal cell; start the walk
     * just after a closed cell so that no run wraps round (there is one: two orthogonal
     * neighbours at least are open, and if all eight were the answer is yes anyway). */
    int first = -1;
    for (int i = 0; i < 8; i++) {
        if (!open[i]) {
            first = i;
            break;
        }
    }
    if (first < 0) return 1;
    int runs = 0, in_run = 0, run_has_orthogonal = 0;
    for (int step = 1; step <= 8; step++) {
        int i = (first + step) % 8;
        if (open[i]) {
            in_run = 1;
            if (i % 2 == 0) run_has_orthogonal = 1;
        } else if (in_run) {
            runs += run_has_orthogonal;
            in_run = run_has_orthogonal = 0;
        }
    }
    return runs <= 1;
}

typedef struct {
    int32_t *cells; /* every cell this explorer marked, in the order reached */
    Py_ssize_t head, tail, capacity;
} Explorer;

static int explorer_push(Explorer *e, Py_ssize_t cell) {
    if (e->tail == e->capacity) {
        Py_ssize_t capacity = e->capacity ? 2 * e->capacity : 64;
        int32_t *grown = realloc(e->cells, (size_t)capacity * sizeof(int32_t));
        if (grown == NULL) return 0;
        e->cells = grown;
        e->capacity = capacity;
    }
    e->cells[e->tail++] = (int32_t)cell;
    return 1;
}

static Py_ssize_t group_of(Py_ssize_t *parent, Py_ssize_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* Split region `label` (already without its removed cells) into its components, given every
 * walkable neighbour of a removed cell that still has `label` as `seeds`. Explorers grow
 * from the seeds one cell each in turn; two that meet join one group; when at most one group
 * is still growing, every other group has found a whole component, which takes a new label.
 * The growing group (or, when none grows, the first) keeps `label`. Returns the next free
 * label, or -1 when out of memory. */
typedef struct {
    int32_t label;
    Py_ssize_t cell;
} Seed;

static int seed_order(const void *a, const void *b) {
    const Seed *x = a, *y = b;
    if (x->label != y->label) return x->label < y->label ? -1 : 1;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

static int64_t split_region(const Shape *g, int32_t *labels, int64_t *sizes, int64_t next,
                            int32_t label, const Py_ssize_t *seeds, Py_ssize_t count) {
    if (count <= 1) return next;
    Explorer *explorers = calloc((size_t)count, sizeof(Explorer));
    Py_ssize_t *parent = malloc((size_t)count * sizeof(Py_ssize_t));
    Py_ssize_t *growing = malloc((size_t)count * sizeof(Py_ssize_t));
    int64_t *fresh = malloc((size_t)count * sizeof(int64_t));
    int ok = explorers != NULL && parent != NULL && growing != NULL && fresh != NULL;
    for (Py_ssize_t i = 0; ok && i < count; i++) {
        parent[i] = i;
        fresh[i] = -1;
        int32_t seen = labels[seeds[i]];
        if (seen == label) {
            labels[seeds[i]] = (int32_t)(MARK_BASE - i);
            ok = explorer_push(&explorers[i], seeds[i]);
        } else if (seen <= MARK_BASE) {
            parent[group_of(parent, i)] = group_of(parent, MARK_BASE - seen);
        }
    }
    while (ok) {
        /* How many groups still grow: stop at one or none. */
        Py_ssize_t groups = 0;
        for (Py_ssize_t i = 0; i < count; i++) {
            if (explorers[i].head == explorers[i].tail) continue;
            Py_ssize_t root = group_of(parent, i), known = 0;
            for (Py_ssize_t j = 0; j < groups && !known; j++) known = growing[j] == root;
            if (!known) growing[groups++] = root;
        }
        if (groups <= 1) break;
        for (Py_ssize_t i = 0; ok && i < count; i++) {
            Explorer *e = &explorers[i];
            if (e->head == e->tail) continue;
            Py_ssize_t near[4];
            int k = neighbours(g, e->cells[e->head++], near);
            for (int n = 0; ok && n < k; n++) {
                int32_t seen = labels[near[n]];
                if (seen == label) {
                    labels[near[n]] = (int32_t)(MARK_BASE - i);
                    ok = explorer_push(e, near[n]);
                } else if (seen <= MARK_BASE) {
                    parent[group_of(parent, i)] = group_of(parent, MARK_BASE - seen);
                }
            }
        }
    }
    if (ok) {
        Py_ssize_t kept = -1;
        for (Py_ssize_t i = 0; i < count && kept < 0; i++) {
            if (explorers[i].head < explorers[i].tail) kept = group_of(parent, i);
        }
        if (kept < 0) kept = group_of(parent, 0);
        for (Py_ssize_t i = 0; i < count; i++) {
            Explorer *e = &explorers[i];
            Py_ssize_t root = group_of(parent, i);
            int32_t target = label;
            if (root != kept) {
                if (fresh[root] < 0) {
                    fresh[root] = next++;
                    sizes[fresh[root]] = 0;
                }
                target = (int32_t)fresh[root];
                sizes[target] += e->tail;
                sizes[label] -= e->tail;
            }
            for (Py_ssize_t c = 0; c < e->tail; c++) labels[e->cells[c]] = target;
        }
    } else if (explorers != NULL) {
        /* Out of memory: put the marks back so the caller's labels stay whole. */
        for (Py_ssize_t i = 0; i < count; i++) {
            for (Py_ssize_t c = 0; c < explorers[i].tail; c++) labels[explorers[i].cells[c]] = label;
        }
    }
    if (explorers != NULL) {
        for (Py_ssize_t i = 0; i < count; i++) free(explorers[i].cells);
    }
    free(explorers);
    free(parent);
    free(growing);
    free(fresh);
    return ok ? next : -1;
}

/* Give every cell of region `from` the label `to`, breadth first from `seed`. */
static void relabel_region(const Shape *g, int32_t *labels, Py_ssize_t seed, int32_t from,
                           int32_t to, int32_t *queue) {
    Py_ssize_t head = 0, tail = 0;
    labels[seed] = to;
    queue[tail++] = (int32_t)seed;
    while (head < tail) {
        Py_ssize_t near[4];
        int k = neighbours(g, queue[head++], near);
        for (int i = 0; i < k; i++) {
            if (labels[near[i]] == from) {
                labels[near[i]] = to;
                queue[tail++] = (int32_t)near[i];
            }
        }
    }
}

/* Apply the listed cells where `current` and `snapshot` differ: blocked ones first (regions
 * that may have split are settled once each, after all of them), then opened ones, merging.
 * `sizes` must hold next + 4 * count + 1 labels. Returns the next free label and sets
 * *changed to the number of cells applied; -1 when out of memory (labels then unchanged
 * for the cells not yet applied, and the snapshot with them). */
static int64_t update_cells(const Shape *g, const uint8_t *current, uint8_t *snapshot,
                            int32_t *labels, int64_t *sizes, int64_t next, const int64_t *cells,
                            Py_ssize_t count, Py_ssize_t *changed) {
    *changed = 0;
    Py_ssize_t *removed = malloc((size_t)(count ? count : 1) * sizeof(Py_ssize_t));
    uint8_t *dirty = NULL; /* by label: a region that may have split */
    if (removed == NULL) return -1;
    Py_ssize_t removed_count = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t cell = (Py_ssize_t)cells[i];
        if (!snapshot[cell] || current[cell]) continue;
        int32_t label = labels[cell];
        snapshot[cell] = 0;
        labels[cell] = BLOCKED;
        sizes[label] -= 1;
        removed[removed_count++] = cell;
        if (!ring_joins(g, snapshot, cell)) {
            if (dirty == NULL && (dirty = calloc((size_t)next, 1)) == NULL) {
                free(removed);
                return -1;
            }
            dirty[label] = 1;
        }
    }
    *changed = removed_count;
    int64_t result = next;
    if (dirty != NULL) {
        /* Every walkable neighbour of a removed cell in a region that may have split, sorted
         * by label: each such region is then settled once, from all of its seeds. */
        Seed *seeds = malloc((size_t)(4 * removed_count) * sizeof(Seed));
        Py_ssize_t seed_count = 0;
        if (seeds == NULL) result = -1;
        for (Py_ssize_t i = 0; result >= 0 && i < removed_count; i++) {
            Py_ssize_t near[4];
            int k = neighbours(g, removed[i], near);
            for (int n = 0; n < k; n++) {
                int32_t label = labels[near[n]];
                if (label >= 0 && dirty[label]) seeds[seed_count++] = (Seed){label, near[n]};
            }
        }
        if (result >= 0) qsort(seeds, (size_t)seed_count, sizeof(Seed), seed_order);
        Py_ssize_t *cells_of = result >= 0 ? malloc((size_t)(seed_count + 1) * sizeof(Py_ssize_t))
                                           : NULL;
        if (cells_of == NULL) result = -1;
        for (Py_ssize_t first = 0; result >= 0 && first < seed_count;) {
            Py_ssize_t last = first;
            while (last < seed_count && seeds[last].label == seeds[first].label) {
                cells_of[last - first] = seeds[last].cell;
                last++;
            }
            result = split_region(g, labels, sizes, result, seeds[first].label, cells_of,
                                  last - first);
            first = last;
        }
        free(cells_of);
        free(seeds);
        free(dirty);
    }
    free(removed);
    if (result < 0) return -1;
    int32_t *queue = NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t cell = (Py_ssize_t)cells[i];
        if (snapshot[cell] || !current[cell]) continue;
        Py_ssize_t near[4];
        int k = neighbours(g, cell, near);
        int32_t joined[4];
        int distinct = 0, largest = -1;
        for (int n = 0; n < k; n++) {
            int32_t label = labels[near[n]];
            int known = label < 0;
            for (int j = 0; j < distinct && !known; j++) known = joined[j] == label;
            if (known) continue;
            joined[distinct] = label;
            if (largest < 0 || sizes[label] > sizes[joined[largest]]) largest = distinct;
            distinct++;
        }
        snapshot[cell] = 1;
        *changed += 1;
        if (distinct == 0) {
            labels[cell] = (int32_t)result;
            sizes[result++] = 1;
            continue;
        }
        int32_t target = joined[largest];
        for (int j = 0; j < distinct; j++) {
            if (j == largest) continue;
            if (queue == NULL && (queue = malloc((size_t)g->size * sizeof(int32_t))) == NULL) {
                snapshot[cell] = 0;
                *changed -= 1;
                return -1;
            }
            for (int n = 0; n < k; n++) {
                if (labels[near[n]] == joined[j]) {
                    relabel_region(g, labels, near[n], joined[j], target, queue);
                    break;
                }
            }
            sizes[target] += sizes[joined[j]];
            sizes[joined[j]] = 0;
        }
        labels[cell] = target;
        sizes[target] += 1;
    }
    free(queue);
    return result;
}

/* ---- boundary ------------------------------------------------------------------------- */

/* List in `out` every cell 4-adjacent to the region of `seed` and not in it; returns how
 * many, -1 when the region holds more than `region_capacity` cells or the list more than
 * `out_capacity`, -2 when out of memory. The labels are as they were on return. */
static Py_ssize_t region_boundary(const Shape *g, int32_t *labels, Py_ssize_t seed,
                                  Py_ssize_t region_capacity, int64_t *out,
                                  Py_ssize_t out_capacity) {
    int32_t label = labels[seed];
    int32_t *queue = malloc((size_t)(region_capacity ? region_capacity : 1) * sizeof(int32_t));
    if (queue == NULL) return -2;
    Py_ssize_t head = 0, tail = 0, count = 0, status = 0;
    labels[seed] = IN_REGION;
    queue[tail++] = (int32_t)seed;
    while (head < tail && status == 0) {
        Py_ssize_t near[4];
        int k = neighbours(g, queue[head++], near);
        for (int i = 0; i < k && status == 0; i++) {
            int32_t seen = labels[near[i]];
            if (seen == label) {
                if (tail == region_capacity) {
                    status = -1;
                    break;
                }
                labels[near[i]] = IN_REGION;
                queue[tail++] = (int32_t)near[i];
            } else if (seen != IN_REGION && seen != ON_BOUNDARY) {
                if (count == out_capacity) {
                    status = -1;
                    break;
                }
                if (seen == BLOCKED) labels[near[i]] = ON_BOUNDARY;
                out[count++] = near[i];
            }
        }
    }
    for (Py_ssize_t i = 0; i < tail; i++) labels[queue[i]] = label;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (labels[out[i]] == ON_BOUNDARY) labels[out[i]] = BLOCKED;
    }
    free(queue);
    return status < 0 ? status : count;
}

/* ---- the Python boundary ---------------------------------------------------------------- */

/* Take a C-contiguous buffer of `count` items of `kind` ('?' bool, 'i' int32, 'q' int64);
 * count < 0 means any count (returned in *count_out). 0 with an exception on failure. */
static int get_array(PyObject *obj, Py_buffer *view, const char *name, char kind,
                     Py_ssize_t count, int writable, Py_ssize_t *count_out) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return 0;
    Py_ssize_t itemsize = kind == '?' ? 1 : kind == 'i' ? 4 : 8;
    int format_ok = kind == 'q' ? is_int64(view) : format_is(view, kind);
    if (view->itemsize != itemsize || !format_ok || view->len % itemsize != 0 ||
        (count >= 0 && view->len != count * itemsize)) {
        const char *type = kind == '?' ? "bool" : kind == 'i' ? "int32" : "int64";
        if (count >= 0)
            PyErr_Format(PyExc_ValueError, "%s must be %zd contiguous %s values, got %zd bytes",
                         name, count, type, view->len);
        else
            PyErr_Format(PyExc_ValueError, "%s must be contiguous %s values", name, type);
        PyBuffer_Release(view);
        return 0;
    }
    if (count_out != NULL) *count_out = view->len / itemsize;
    return 1;
}

static int check_shape(Shape *g, Py_ssize_t height, Py_ssize_t width) {
    if (height < 0 || width < 0 || (width > 0 && height > (INT32_MAX - 1) / width)) {
        PyErr_Format(PyExc_ValueError, "a %zd x %zd grid is out of range", height, width);
        return 0;
    }
    g->height = height;
    g->width = width;
    g->size = height * width;
    return 1;
}

static int cells_in_grid(const int64_t *cells, Py_ssize_t count, Py_ssize_t size) {
    for (Py_ssize_t i = 0; i < count; i++) {
        if (cells[i] < 0 || cells[i] >= size) {
            PyErr_Format(PyExc_ValueError, "cell %lld lies outside the %zd cells of the grid",
                         (long long)cells[i], size);
            return 0;
        }
    }
    return 1;
}

PyDoc_STRVAR(label_doc, "label(walkable, height, width, labels, sizes) -> count\n\n"
                        "Label every cell from scratch; see region_flood.label.");

static PyObject *regions_label(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *labels_obj, *sizes_obj;
    Py_ssize_t height, width, capacity;
    Shape g;
    if (!PyArg_ParseTuple(args, "OnnOO:label", &walkable_obj, &height, &width, &labels_obj,
                          &sizes_obj) ||
        !check_shape(&g, height, width))
        return NULL;
    Py_buffer walkable, labels, sizes;
    if (!get_array(walkable_obj, &walkable, "walkable", '?', g.size, 0, NULL)) return NULL;
    if (!get_array(labels_obj, &labels, "labels", 'i', g.size, 1, NULL)) {
        PyBuffer_Release(&walkable);
        return NULL;
    }
    if (!get_array(sizes_obj, &sizes, "sizes", 'q', -1, 1, &capacity)) {
        PyBuffer_Release(&labels);
        PyBuffer_Release(&walkable);
        return NULL;
    }
    int32_t *queue = malloc((size_t)(g.size ? g.size : 1) * sizeof(int32_t));
    int64_t count = -2;
    if (queue != NULL) {
        Py_BEGIN_ALLOW_THREADS
        count = label_all(&g, walkable.buf, labels.buf, sizes.buf, capacity, queue);
        Py_END_ALLOW_THREADS
    }
    free(queue);
    PyBuffer_Release(&sizes);
    PyBuffer_Release(&labels);
    PyBuffer_Release(&walkable);
    if (count == -2) return PyErr_NoMemory();
    if (count < 0) {
        PyErr_Format(PyExc_ValueError, "sizes holds %zd labels, too few for this grid", capacity);
        return NULL;
    }
    return PyLong_FromLongLong(count);
}

PyDoc_STRVAR(diff_doc, "diff(current, snapshot, out) -> count\n\n"
                       "Write the cells where the masks differ into out (-1: more than it\n"
                       "holds); see region_flood.diff.");

static PyObject *regions_diff(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *current_obj, *snapshot_obj, *out_obj;
    Py_ssize_t size, capacity;
    if (!PyArg_ParseTuple(args, "OOO:diff", &current_obj, &snapshot_obj, &out_obj)) return NULL;
    Py_buffer current, snapshot, out;
    if (!get_array(current_obj, &current, "current", '?', -1, 0, &size)) return NULL;
    if (!get_array(snapshot_obj, &snapshot, "snapshot", '?', size, 0, NULL)) {
        PyBuffer_Release(&current);
        return NULL;
    }
    if (!get_array(out_obj, &out, "out", 'q', -1, 1, &capacity)) {
        PyBuffer_Release(&snapshot);
        PyBuffer_Release(&current);
        return NULL;
    }
    const uint8_t *a = current.buf, *b = snapshot.buf;
    int64_t *cells = out.buf;
    Py_ssize_t count = 0;
    /* memcmp by chunks, then a chunk that differs eight cells a word: an unchanged 512 x 512
     * mask costs a few microseconds. */
    for (Py_ssize_t chunk = 0; chunk < size && count >= 0; chunk += CHUNK) {
        Py_ssize_t chunk_end = chunk + CHUNK < size ? chunk + CHUNK : size;
        if (memcmp(a + chunk, b + chunk, (size_t)(chunk_end - chunk)) == 0) continue;
        for (Py_ssize_t word = chunk; word < chunk_end && count >= 0; word += 8) {
            Py_ssize_t end = word + 8 < chunk_end ? word + 8 : chunk_end;
            if (end - word == 8) {
                uint64_t x, y;
                memcpy(&x, a + word, 8);
                memcpy(&y, b + word, 8);
                if (x == y) continue;
            }
            for (Py_ssize_t cell = word; cell < end; cell++) {
                if ((a[cell] != 0) == (b[cell] != 0)) continue;
                if (count == capacity) {
                    count = -1;
                    break;
                }
                cells[count++] = cell;
            }
        }
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&snapshot);
    PyBuffer_Release(&current);
    return PyLong_FromSsize_t(count);
}

PyDoc_STRVAR(same_doc, "same(current, snapshot) -> bool\n\n"
                       "Whether the masks hold the same bytes; see region_flood.same.");

static PyObject *regions_same(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *current_obj, *snapshot_obj;
    Py_ssize_t size;
    if (!PyArg_ParseTuple(args, "OO:same", &current_obj, &snapshot_obj)) return NULL;
    Py_buffer current, snapshot;
    if (!get_array(current_obj, &current, "current", '?', -1, 0, &size)) return NULL;
    if (!get_array(snapshot_obj, &snapshot, "snapshot", '?', size, 0, NULL)) {
        PyBuffer_Release(&current);
        return NULL;
    }
    int same = memcmp(current.buf, snapshot.buf, (size_t)size) == 0;
    PyBuffer_Release(&snapshot);
    PyBuffer_Release(&current);
    return PyBool_FromLong(same);
}

PyDoc_STRVAR(update_doc,
             "update(current, snapshot, labels, sizes, height, width, next_label, cells)\n"
             "    -> (next_label, changed)\n\n"
             "Apply the listed cells that changed; see region_flood.update.");

static PyObject *regions_update(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *current_obj, *snapshot_obj, *labels_obj, *sizes_obj, *cells_obj;
    Py_ssize_t height, width, capacity, count;
    long long next;
    Shape g;
    if (!PyArg_ParseTuple(args, "OOOOnnLO:update", &current_obj, &snapshot_obj, &labels_obj,
                          &sizes_obj, &height, &width, &next, &cells_obj) ||
        !check_shape(&g, height, width))
        return NULL;
    Py_buffer current, snapshot, labels, sizes, cells;
    PyObject *result = NULL;
    if (!get_array(current_obj, &current, "current", '?', g.size, 0, NULL)) return NULL;
    if (!get_array(snapshot_obj, &snapshot, "snapshot", '?', g.size, 1, NULL)) goto current_done;
    if (!get_array(labels_obj, &labels, "labels", 'i', g.size, 1, NULL)) goto snapshot_done;
    if (!get_array(sizes_obj, &sizes, "sizes", 'q', -1, 1, &capacity)) goto labels_done;
    if (!get_array(cells_obj, &cells, "cells", 'q', -1, 0, &count)) goto sizes_done;
    if (count > MAX_EXPLORERS / 4) {
        PyErr_Format(PyExc_ValueError, "at most %d cells an update, got %zd", MAX_EXPLORERS / 4,
                     count);
    } else if (next < 0 || next > INT32_MAX || next + 4 * (long long)count + 1 > capacity ||
               next + 4 * (long long)count + 1 > INT32_MAX) {
        PyErr_Format(PyExc_ValueError,
                     "sizes must hold next_label + 4 * cells + 1 labels: %lld + 4 * %zd + 1, "
                     "got %zd",
                     next, count, capacity);
    } else if (cells_in_grid(cells.buf, count, g.size)) {
        Py_ssize_t changed;
        int64_t after = update_cells(&g, current.buf, snapshot.buf, labels.buf, sizes.buf, next,
                                     cells.buf, count, &changed);
        if (after < 0)
            PyErr_NoMemory();
        else
            result = Py_BuildValue("Ln", (long long)after, changed);
    }
    PyBuffer_Release(&cells);
sizes_done:
    PyBuffer_Release(&sizes);
labels_done:
    PyBuffer_Release(&labels);
snapshot_done:
    PyBuffer_Release(&snapshot);
current_done:
    PyBuffer_Release(&current);
    return PyErr_Occurred() ? NULL : result;
}

PyDoc_STRVAR(boundary_doc, "boundary(labels, height, width, seed, region_size, out) -> count\n\n"
                           "List the cells round seed's region; see region_flood.boundary.");

static PyObject *regions_boundary(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *labels_obj, *out_obj;
    Py_ssize_t height, width, seed, region_size, capacity;
    Shape g;
    if (!PyArg_ParseTuple(args, "OnnnnO:boundary", &labels_obj, &height, &width, &seed,
                          &region_size, &out_obj) ||
        !check_shape(&g, height, width))
        return NULL;
    if (seed < 0 || seed >= g.size || region_size < 1 || region_size > g.size) {
        PyErr_Format(PyExc_ValueError, "seed %zd or region size %zd out of range", seed,
                     region_size);
        return NULL;
    }
    Py_buffer labels, out;
    if (!get_array(labels_obj, &labels, "labels", 'i', g.size, 1, NULL)) return NULL;
    if (!get_array(out_obj, &out, "out", 'q', -1, 1, &capacity)) {
        PyBuffer_Release(&labels);
        return NULL;
    }
    Py_ssize_t count = -3;
    if (((int32_t *)labels.buf)[seed] < 0)
        PyErr_Format(PyExc_ValueError, "seed %zd is not a walkable cell", seed);
    else
        count = region_boundary(&g, labels.buf, seed, region_size, out.buf, capacity);
    PyBuffer_Release(&out);
    PyBuffer_Release(&labels);
    if (count == -3) return NULL;
    if (count == -2) return PyErr_NoMemory();
    if (count == -1) {
        PyErr_SetString(PyExc_ValueError, "the region or its boundary outgrew the given room");
        return NULL;
    }
    return PyLong_FromSsize_t(count);
}

PyDoc_STRVAR(sealed_doc, "sealed(current, cells) -> bool\n\n"
                         "Whether every listed cell is blocked; see region_flood.sealed.");

/* On every find_path of a labelled array: METH_FASTCALL, no argument tuple to build. */
static PyObject *regions_sealed(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    Py_ssize_t size, count;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "sealed() takes 2 arguments, got %zd", nargs);
        return NULL;
    }
    Py_buffer current, cells;
    if (!get_array(args[0], &current, "current", '?', -1, 0, &size)) return NULL;
    if (!get_array(args[1], &cells, "cells", 'q', -1, 0, &count)) {
        PyBuffer_Release(&current);
        return NULL;
    }
    const uint8_t *open = current.buf;
    const int64_t *list = cells.buf;
    int sealed = 1, inside = 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (list[i] < 0 || list[i] >= size) {
            inside = 0;
            break;
        }
        if (open[list[i]]) {
            sealed = 0;
            break;
        }
    }
    PyBuffer_Release(&cells);
    PyBuffer_Release(&current);
    if (!inside) {
        PyErr_SetString(PyExc_ValueError, "a cell lies outside the grid");
        return NULL;
    }
    return PyBool_FromLong(sealed);
}

static PyMethodDef regions_methods[] = {
    {"label", regions_label, METH_VARARGS, label_doc},
    {"diff", regions_diff, METH_VARARGS, diff_doc},
    {"same", regions_same, METH_VARARGS, same_doc},
    {"update", regions_update, METH_VARARGS, update_doc},
    {"boundary", regions_boundary, METH_VARARGS, boundary_doc},
    {"sealed", (PyCFunction)(void (*)(void))regions_sealed, METH_FASTCALL, sealed_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef regions_module = {
    PyModuleDef_HEAD_INIT, "_regions", "Connected regions of a walkable mask (see regions.py).",
    -1, regions_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__regions(void) { return PyModule_Create(&regions_module); }
