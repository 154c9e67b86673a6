/* Plain lanes: the default call's plain queries on an open map, counted in C (call_cache.py).
 *
 * On an array of landmark size (landmarks.py) the default call goes through two Python
 * functions before its search: landmarks.search, which probes whether distance fields pay, and
 * jump_cache.search, which counts the rent the plain queries pay towards an offline index. On
 * an open map, once fields have been judged not to pay and before the rent is paid, both only
 * count: a found query's jump points for the next decision on fields, and every query's rent.
 * That counting cost about 1.5 us a query on AR0011SR (a search of 4-10 us).
 *
 * So once such a query has gone the Python way, `call` asks `offer` (call_cache.offer) for a
 * lane (or how many queries to wait before asking again): how many more found queries landmarks.search would let pass before its next decision
 * (-1: none to come), the rent still to pay before the offline index's build starts, and the
 * rent of a query and of a jump point. Until one of them runs out, `call` answers the array's
 * default queries with the plain search itself and counts as those two would; the query that
 * runs one out (or finds no path) hands the counts to `settle` (call_cache.settle), which adds
 * them to landmarks' and jump_cache's notes and decides exactly as they would have decided on
 * that query. Rent is counted in whole nanoseconds' worth of doubles, as jump_cache counts it,
 * so the build starts at the same query. The answers are the plain search's, as jump_cache's
 * were (it had no table yet).
 *
 * A lane holds its array weakly; it is dropped when the array dies. When the array changes
 * shape in place, or when
 * landmarks' or jump_cache's notes on it are dropped (ArrayCache tells call_cache, which calls
 * `lane_drop`, under that cache's lock) only those notes are gone: the other cache's notes
 * would have kept the lane's counts, so the lane is left as an orphan, answering nothing, and
 * the next `call` settles it (`settle` adds its counts to the notes that remain). A query the
 * Python path is to answer (labels not kept for the array: edited, reshaped) settles the
 * lane's counts first (lane_settle_for), so that Python counts and decides on all of them. Under
 * the GIL throughout; a lane's search runs without it, and a lane dropped or reopened meanwhile
 * (its `generation` moved) takes no count from it.
 */
#ifndef SIM_PLAIN_LANE_H
#define SIM_PLAIN_LANE_H

#include <Python.h>
#include <stdint.h>

/* Lanes at once (open or declined), twice the arrays landmarks.py and jump_cache.py follow. */
enum { LANES = 8 };
/* The most queries of an array a lane was declined for before `offer` is asked again (it
 * names fewer while probing goes on: the queries before the decision that may open one).
 * Asking costs about 1.5 us, and the answer stays no while fields answer or an index is built
 * or building (a lane may open up to this many queries late; Python counts meanwhile). */
enum { LANE_RETRY = 64 };

typedef struct {
    PyObject *array; /* weak reference; NULL: the lane is free */
    Py_ssize_t height, width;
    Py_ssize_t found_left; /* found queries until landmarks' next decision; -1: none to come */
    double rent_left, per_query, per_expansion; /* jump_cache's rent, in ns */
    Py_ssize_t queries;
    double spent;
    int64_t *expanded; /* each found query's jump points, in order */
    Py_ssize_t count, capacity;
    int busy;            /* a search of it runs without the GIL */
    Py_ssize_t declined; /* > 0: no lane was offered; `offer` is asked again after this many */
    uint64_t generation; /* moved whenever the lane is dropped */
    Py_ssize_t seed;     /* the last query's start */
    int orphan;          /* one cache dropped its notes: settled at the next call, never used */
    uint64_t touched;    /* lane_tick at its last query: its array's use, for the caches' LRU */
} Lane;

static Lane lanes[LANES];
static uint64_t lane_generations = 0;
static int lane_orphans = 0; /* some lane may be an orphan: `call` settles them first */
/* One clock for the lanes' queries and ArrayCache's uses (`lane_tick`), so that an array a lane
 * answers stays as recently used as the queries the caches saw would have made it. */
static uint64_t lane_tick = 0;
static PyObject *lane_offer = NULL, *lane_settle = NULL;

static void lane_clear(Lane *lane) {
    Py_CLEAR(lane->array);
    lane->count = 0;
    lane->busy = 0;
    lane->declined = 0;
    lane->orphan = 0;
    lane->touched = 0;
    lane->generation = ++lane_generations;
}

/* The open lane of `array` (height x width), NULL when none or its search is running; a lane
 * of another shape becomes an orphan, which the caller settles at once (lanes_settle_orphans). */
static Lane *lane_of(PyObject *array, Py_ssize_t height, Py_ssize_t width) {
    for (int i = 0; i < LANES; i++) {
        Lane *lane = &lanes[i];
        if (lane->array == NULL) continue;
        PyObject *held = PyWeakref_GetObject(lane->array); /* borrowed; None once dead */
        if (held == Py_None) {
            lane_clear(lane);
            continue;
        }
        if (held != array) continue;
        if (lane->orphan) return NULL;
        if (lane->height != height || lane->width != width) {
            /* Reshaped in place: the same array, whose notes kept counting as it changed
             * shape; the caller settles the orphan before this query counts. */
            if (lane->declined > 0 || lane->queries == 0) {
                lane_clear(lane);
            } else {
                lane->orphan = 1;
                lane_orphans = 1;
            }
            return NULL;
        }
        if (lane->declined > 0) {
            if (--lane->declined == 0) lane_clear(lane); /* `offer` is asked after this query */
            return NULL;
        }
        return lane->busy ? NULL : lane;
    }
    return NULL;
}

/* Whether some lane, open, busy or declined, follows `array`. */
static int lane_follows(PyObject *array) {
    for (int i = 0; i < LANES; i++)
        if (lanes[i].array != NULL && PyWeakref_GetObject(lanes[i].array) == array) return 1;
    return 0;
}

/* Ask `offer` for a lane on `array` and open it if one is given. -1 with an exception set. */
static int lane_open(PyObject *array, Py_ssize_t height, Py_ssize_t width) {
    if (lane_offer == NULL || lane_follows(array)) return 0;
    PyObject *offered = PyObject_CallOneArg(lane_offer, array);
    if (offered == NULL) return -1;
    Py_ssize_t found_left = 0, wait = 0;
    double rent_left = 0.0, per_query = 0.0, per_expansion = 0.0;
    const int given = PyTuple_Check(offered);
    const int ok = given ? PyArg_ParseTuple(offered, "nddd:offer", &found_left, &rent_left,
                                            &per_query, &per_expansion)
                         : (wait = PyLong_AsSsize_t(offered)) > 0 || !PyErr_Occurred();
    Py_DECREF(offered);
    if (!ok) return -1;
    const int declined = !given || found_left == 0 || !(rent_left > 0.0);
    if (declined) wait = wait > 0 && wait < LANE_RETRY ? wait : LANE_RETRY;
    Lane *lane = NULL;
    for (int i = 0; i < LANES && lane == NULL; i++)
        if (lanes[i].array == NULL) lane = &lanes[i];
    if (lane == NULL) return 0; /* every lane taken: this array's queries go the Python way */
    PyObject *ref = PyWeakref_NewRef(array, NULL);
    if (ref == NULL) return -1;
    lane_clear(lane);
    lane->array = ref;
    lane->declined = declined ? wait : 0;
    lane->height = height;
    lane->width = width;
    lane->found_left = found_left;
    lane->rent_left = rent_left;
    lane->per_query = per_query;
    lane->per_expansion = per_expansion;
    lane->queries = 0;
    lane->spent = 0.0;
    return 0;
}

/* Count one query of `lane` that expanded `expanded` jump points. -1 when out of memory. */
static int lane_count(Lane *lane, int found, Py_ssize_t expanded) {
    lane->queries++;
    lane->spent += lane->per_query + lane->per_expansion * (double)expanded;
    if (!found || lane->found_left < 0) return 0; /* no decision on fields to come: not kept */
    if (lane->count == lane->capacity) {
        const Py_ssize_t capacity = lane->capacity > 0 ? 2 * lane->capacity : 64;
        int64_t *grown = PyMem_Realloc(lane->expanded, (size_t)capacity * sizeof(int64_t));
        if (grown == NULL) return -1;
        lane->expanded = grown;
        lane->capacity = capacity;
    }
    lane->expanded[lane->count++] = (int64_t)expanded;
    if (lane->found_left > 0) lane->found_left--;
    return 0;
}

/* Whether `lane`'s counts are due to `settle` after its last query (found or not). */
static int lane_due(const Lane *lane, int found) {
    return !found || lane->found_left == 0 || lane->spent >= lane->rent_left;
}

/* Hand `lane`'s counts to `settle` (the last query's start as `seed`) and free it; -1 with an
 * exception set. */
static int lane_close(Lane *lane, Py_ssize_t seed) {
    PyObject *array = Py_XNewRef(PyWeakref_GetObject(lane->array));
    PyObject *expanded =
        PyBytes_FromStringAndSize((const char *)lane->expanded, lane->count * 8);
    const Py_ssize_t queries = lane->queries;
    const double spent = lane->spent;
    const unsigned long long touched = lane->touched;
    lane_clear(lane); /* before settle, which may open lanes or drop them */
    PyObject *done = NULL;
    if (array != NULL && expanded != NULL && array != Py_None && lane_settle != NULL)
        done = PyObject_CallFunction(lane_settle, "OOndnK", array, expanded, queries, spent, seed,
                                     touched);
    else if (expanded != NULL)
        done = Py_NewRef(Py_None);
    Py_XDECREF(array);
    Py_XDECREF(expanded);
    if (done == NULL) return -1;
    Py_DECREF(done);
    return 0;
}

/* Drop the lane of the array whose id is `key` (every lane when `key` is None): one cache
 * dropped its notes, so a lane with counts becomes an orphan (see the top). No Python call:
 * the dropping cache holds its lock. */
static void lane_drop(PyObject *key) {
    void *address = key == Py_None ? NULL : PyLong_AsVoidPtr(key);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return;
    }
    for (int i = 0; i < LANES; i++) {
        Lane *lane = &lanes[i];
        if (lane->array == NULL) continue;
        PyObject *held = PyWeakref_GetObject(lane->array);
        if (held != Py_None && key != Py_None && (void *)held != address) continue;
        if (held == Py_None || lane->declined > 0 || lane->queries == 0) {
            lane_clear(lane);
            continue;
        }
        lane->orphan = 1;
        lane->busy = 0; /* a search running now counts nowhere: its generation is gone */
        lane->generation = ++lane_generations;
        lane_orphans = 1;
    }
}

/* Settle the counts of `array`'s lane, if it has any, before the Python path answers and
 * counts a query of it (labels not kept: edited or reshaped); -1 with an exception set. */
static int lane_settle_for(PyObject *array) {
    for (int i = 0; i < LANES; i++) {
        Lane *lane = &lanes[i];
        if (lane->array == NULL || lane->busy || lane->declined > 0) continue;
        if (PyWeakref_GetObject(lane->array) != array) continue;
        return lane->queries > 0 ? lane_close(lane, lane->seed) : 0;
    }
    return 0;
}

/* Settle every orphan's counts (lane_drop); -1 with an exception set. */
static int lanes_settle_orphans(void) {
    lane_orphans = 0;
    for (int i = 0; i < LANES; i++) {
        if (lanes[i].array != NULL && lanes[i].orphan && lane_close(&lanes[i], lanes[i].seed) < 0) {
            lane_orphans = 1; /* the others still wait: settled at the next call */
            return -1;
        }
    }
    return 0;
}

/* {id(array): lane_tick of its lane's last query} for the live arrays lanes answered; NULL
 * with an exception set. */
static PyObject *lanes_touched(void) {
    PyObject *touched = PyDict_New();
    for (int i = 0; i < LANES && touched != NULL; i++) {
        const Lane *lane = &lanes[i];
        if (lane->array == NULL || lane->touched == 0) continue;
        PyObject *held = PyWeakref_GetObject(lane->array);
        if (held == Py_None) continue;
        PyObject *key = PyLong_FromVoidPtr(held);
        PyObject *when = PyLong_FromUnsignedLongLong(lane->touched);
        if (key == NULL || when == NULL || PyDict_SetItem(touched, key, when) < 0)
            Py_CLEAR(touched);
        Py_XDECREF(key);
        Py_XDECREF(when);
    }
    return touched;
}

static void lanes_free(void) {
    for (int i = 0; i < LANES; i++) {
        lane_clear(&lanes[i]);
        PyMem_Free(lanes[i].expanded);
        lanes[i].expanded = NULL;
        lanes[i].capacity = 0;
    }
    Py_CLEAR(lane_offer);
    Py_CLEAR(lane_settle);
}

#endif /* SIM_PLAIN_LANE_H */
