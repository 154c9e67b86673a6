/* find_path's unreachable answer in C: the region proof of `RegionMap.apart_flat`, without
 * a line of Python between the caller and the answer.
 *
 * A query whose start and goal lie in different regions is proven unreachable by the smaller
 * region's boundary: while every boundary cell is blocked, nothing leaves that region (see
 * regions.py). `region_cache` answers that in Python in about 3 microseconds, most of it
 * the Python around a check that takes well under one. Here the same proof runs for the
 * common call of find_path in a fraction of that:
 *   - `remember(walkable, regions, labels, sizes, boundaries, version)` is called by
 *     region_cache, under its lock, right after it proved a query on `walkable` unreachable
 *     with the RegionMap `regions`: it keeps the map's flat labels, region sizes, its dict of
 *     boundaries (region -> flat int64 cells) and the map's `version` then. The array and
 *     the map are held weakly (a dead one ends the memo), the buffers by their views.
 *   - `apart(walkable, start, goal)` answers True only when that proof holds for this query
 *     now: `walkable` is the remembered array (identity), its map still exists at the same
 *     version (RegionMap increments `version` before it changes its labels, sizes or
 *     boundaries, so a memo never mixes two labellings), the array is still a C-contiguous
 *     2-D bool array of the remembered shape, start and goal are tuples of two ints inside
 *     it, both walkable now, labelled in different regions, the boundary of the smaller one
 *     is in the dict and every cell of it is blocked now. Anything else is False: "not
 *     proven here", and find_path goes on as it would have (the Python path decides).
 * So `apart` is True exactly where `RegionMap.apart_flat` would prove it from the same map,
 * and never on a stale map: labels that are behind the array still prove nothing wrong, as
 * the proof rests only on the boundary as it is now (regions.py). The GIL is held throughout:
 * a labelling that releases it has already moved `version` on.
 */
#include "../_common.h"

typedef struct {
    PyObject *array;   /* weak reference to the walkable array, or NULL when empty */
    PyObject *regions; /* weak reference to its RegionMap */
    PyObject *boundaries;
    Py_buffer labels; /* int32, one per cell */
    Py_buffer sizes;  /* int64, one per region number */
    long long version;
    Py_ssize_t height, width;
} Memo;

static Memo memo;
static PyObject *version_name; /* "version", interned */

static void memo_clear(void) {
    if (memo.array == NULL) return;
    Py_CLEAR(memo.array);
    Py_CLEAR(memo.regions);
    Py_CLEAR(memo.boundaries);
    PyBuffer_Release(&memo.labels);
    PyBuffer_Release(&memo.sizes);
}

/* The walkable array's bytes, if it is still a C-contiguous height x width bool array: 1 with
 * the view taken, else 0 with no exception. */
static int take_walkable(PyObject *walkable, Py_buffer *view) {
    if (PyObject_GetBuffer(walkable, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (view->ndim == 2 && view->shape[0] == memo.height && view->shape[1] == memo.width &&
        view->itemsize == 1 && format_is(view, '?'))
        return 1;
    PyBuffer_Release(view);
    return 0;
}

/* One end of the query as a flat cell inside the grid, or -1. */
static Py_ssize_t flat_cell(PyObject *cell) {
    if (!PyTuple_CheckExact(cell) || PyTuple_GET_SIZE(cell) != 2) return -1;
    PyObject *row_obj = PyTuple_GET_ITEM(cell, 0), *col_obj = PyTuple_GET_ITEM(cell, 1);
    if (!PyLong_CheckExact(row_obj) || !PyLong_CheckExact(col_obj)) return -1;
    const Py_ssize_t row = PyLong_AsSsize_t(row_obj), col = PyLong_AsSsize_t(col_obj);
    if ((row == -1 || col == -1) && PyErr_Occurred()) {
        PyErr_Clear(); /* too large for a cell: not ours to answer */
        return -1;
    }
    if (row < 0 || row >= memo.height || col < 0 || col >= memo.width) return -1;
    return row * memo.width + col;
}

/* Whether the map the memo came from (alive) is still at the remembered version. */
static int map_unchanged(PyObject *regions) {
    PyObject *version = PyObject_GetAttr(regions, version_name);
    if (version == NULL) {
        PyErr_Clear();
        return 0;
    }
    const long long now = PyLong_AsLongLong(version);
    Py_DECREF(version);
    if (now == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return now == memo.version;
}

/* The proof for flat cells start and goal, both walkable in `open`: 1 proven apart, else 0. */
static int proven(const uint8_t *open, Py_ssize_t size, Py_ssize_t start, Py_ssize_t goal) {
    const int32_t *labels = memo.labels.buf;
    const int32_t start_region = labels[start], goal_region = labels[goal];
    if (start_region < 0 || goal_region < 0 || start_region == goal_region) return 0;
    const Py_ssize_t regions = memo.sizes.len / 8;
    if (start_region >= regions || goal_region >= regions) return 0;
    const int64_t *sizes = memo.sizes.buf;
    /* The smaller region, the start's on a tie: as RegionMap.apart_flat picks it. */
    const int32_t smaller =
        sizes[start_region] <= sizes[goal_region] ? start_region : goal_region;
    PyObject *key = PyLong_FromLong(smaller);
    if (key == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *cells_obj = PyDict_GetItemWithError(memo.boundaries, key); /* borrowed */
    Py_DECREF(key);
    if (cells_obj == NULL) {
        PyErr_Clear(); /* not built yet: the Python path builds it */
        return 0;
    }
    Py_buffer cells;
    if (PyObject_GetBuffer(cells_obj, &cells, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    int sealed = is_int64(&cells);
    const int64_t *list = cells.buf;
    const Py_ssize_t count = sealed ? cells.len / 8 : 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (list[i] < 0 || list[i] >= size || open[list[i]]) {
            sealed = 0;
            break;
        }
    }
    PyBuffer_Release(&cells);
    return sealed;
}

PyDoc_STRVAR(apart_doc,
             "apart(walkable, start, goal) -> bool\n\n"
             "True when the remembered region proof shows `goal` out of reach of `start` in\n"
             "`walkable` now; False when it does not apply (not proven, not an error).");

static PyObject *apart(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "apart() takes 3 arguments, got %zd", nargs);
        return NULL;
    }
    if (memo.array == NULL) Py_RETURN_FALSE;
    /* Borrowed references. A dead array or map (dropped by region_cache) ends the memo, so
     * that its labels are not kept alive here. */
    PyObject *array = PyWeakref_GetObject(memo.array);
    PyObject *regions = PyWeakref_GetObject(memo.regions);
    if (array == NULL || regions == NULL || array == Py_None || regions == Py_None) {
        PyErr_Clear();
        memo_clear();
        Py_RETURN_FALSE;
    }
    if (array != args[0]) Py_RETURN_FALSE;
    const Py_ssize_t start = flat_cell(args[1]), goal = flat_cell(args[2]);
    if (start < 0 || goal < 0 || !map_unchanged(regions)) Py_RETURN_FALSE;
    Py_buffer view;
    if (!take_walkable(args[0], &view)) Py_RETURN_FALSE;
    const uint8_t *open = view.buf;
    const int answer = open[start] && open[goal] && proven(open, view.len, start, goal);
    PyBuffer_Release(&view);
    return PyBool_FromLong(answer);
}

PyDoc_STRVAR(remember_doc,
             "remember(walkable, regions, labels, sizes, boundaries, version) -> None\n\n"
             "Keep the proof parts of RegionMap `regions` of `walkable` for `apart`: flat int32\n"
             "labels, int64 sizes, the dict of boundaries, the map's version now.");

static PyObject *remember(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 6) {
        PyErr_Format(PyExc_TypeError, "remember() takes 6 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *walkable = args[0], *regions = args[1], *boundaries = args[4];
    if (!PyDict_CheckExact(boundaries)) {
        PyErr_SetString(PyExc_TypeError, "boundaries must be a dict");
        return NULL;
    }
    const long long version = PyLong_AsLongLong(args[5]);
    if (version == -1 && PyErr_Occurred()) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(walkable, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    const int shaped = view.ndim == 2 && view.itemsize == 1 && format_is(&view, '?');
    const Py_ssize_t height = shaped ? view.shape[0] : 0, width = shaped ? view.shape[1] : 0;
    PyBuffer_Release(&view);
    if (!shaped) {
        PyErr_SetString(PyExc_ValueError, "walkable must be a C-contiguous 2-D bool array");
        return NULL;
    }
    Py_buffer labels, sizes;
    if (PyObject_GetBuffer(args[2], &labels, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return NULL;
    if (labels.itemsize != 4 || !format_is(&labels, 'i') || labels.len != 4 * height * width) {
        PyBuffer_Release(&labels);
        PyErr_SetString(PyExc_ValueError, "labels must be one contiguous int32 per cell");
        return NULL;
    }
    if (PyObject_GetBuffer(args[3], &sizes, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&labels);
        return NULL;
    }
    if (!is_int64(&sizes)) {
        PyBuffer_Release(&labels);
        PyBuffer_Release(&sizes);
        PyErr_SetString(PyExc_ValueError, "sizes must be contiguous int64 values");
        return NULL;
    }
    PyObject *array_ref = PyWeakref_NewRef(walkable, NULL);
    PyObject *regions_ref = array_ref == NULL ? NULL : PyWeakref_NewRef(regions, NULL);
    if (regions_ref == NULL) {
        Py_XDECREF(array_ref);
        PyBuffer_Release(&labels);
        PyBuffer_Release(&sizes);
        return NULL;
    }
    memo_clear();
    memo.array = array_ref;
    memo.regions = regions_ref;
    Py_INCREF(boundaries);
    memo.boundaries = boundaries;
    memo.labels = labels;
    memo.sizes = sizes;
    memo.version = version;
    memo.height = height;
    memo.width = width;
    Py_RETURN_NONE;
}

PyDoc_STRVAR(forget_doc, "forget() -> None\n\nDrop the memo (tests start from none).");

static PyObject *forget(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    memo_clear();
    Py_RETURN_NONE;
}

static PyMethodDef apart_methods[] = {
    {"apart", (PyCFunction)(void (*)(void))apart, METH_FASTCALL, apart_doc},
    {"remember", (PyCFunction)(void (*)(void))remember, METH_FASTCALL, remember_doc},
    {"forget", forget, METH_NOARGS, forget_doc},
    {NULL, NULL, 0, NULL},
};

static void apart_free(void *module) {
    (void)module;
    memo_clear();
}

static struct PyModuleDef apart_module = {
    PyModuleDef_HEAD_INIT, "_apart", "find_path's unreachable answer in C (see region_cache.py).",
    -1, apart_methods, NULL, NULL, NULL, apart_free,
};

PyMODINIT_FUNC PyInit__apart(void) {
    version_name = PyUnicode_InternFromString("version");
    if (version_name == NULL) return NULL;
    return PyModule_Create(&apart_module);
}
