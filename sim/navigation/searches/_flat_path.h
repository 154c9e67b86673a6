/* A found path as it crosses to Python: flat, laid out as (row, col) pairs when it is read.
 *
 * PathResult.cells is a tuple of (row, col) pairs: a tuple and two ints a cell, which on a long
 * path cost more than the search that found it. So a found path crosses to Python as a bytes
 * object of int32: the grid's width, then the path's flat cells (`flat_path`). The field
 * `cells` of PathResult is a descriptor (`_kernel.LazyCells`, lazy_cells.py) that lays them out
 * as pairs (`flat_path_cells`) on the first read and keeps the tuple, so every reader sees the
 * same tuple of pairs as before. */

#ifndef SIM_FLAT_PATH_H
#define SIM_FLAT_PATH_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The `length` flat cells of `path` (a grid `width` cells wide) as a new bytes object; NULL
 * with an exception set on failure. */
static inline PyObject *flat_path(const int32_t *path, Py_ssize_t length, Py_ssize_t width) {
    PyObject *flat = PyBytes_FromStringAndSize(NULL, (length + 1) * (Py_ssize_t)sizeof(int32_t));
    if (flat == NULL) return NULL;
    char *out = PyBytes_AS_STRING(flat);
    const int32_t header = (int32_t)width;
    memcpy(out, &header, sizeof header);
    memcpy(out + sizeof header, path, (size_t)length * sizeof(int32_t));
    return flat;
}

/* A search's answer to Python, (found, cells, cost, expanded): `cells` the `flat_path` of the
 * `length` cells of `path` when `found`, else an empty tuple. NULL with an exception set on
 * failure. Built directly: Py_BuildValue parses its format string on every call. */
static inline PyObject *flat_answer(int found, const int32_t *path, Py_ssize_t length,
                                    Py_ssize_t width, double cost, Py_ssize_t expanded) {
    PyObject *answer = PyTuple_New(4);
    if (answer == NULL) return NULL;
    PyObject *flag = found ? Py_True : Py_False;
    Py_INCREF(flag);
    PyTuple_SET_ITEM(answer, 0, flag);
    PyObject *items[3] = {found ? flat_path(path, length, width) : PyTuple_New(0),
                          PyFloat_FromDouble(cost), PyLong_FromSsize_t(expanded)};
    int ok = 1;
    for (int i = 0; i < 3; i++) {
        ok = ok && items[i] != NULL;
        PyTuple_SET_ITEM(answer, i + 1, items[i]); /* an empty item is skipped on release */
    }
    if (!ok) Py_CLEAR(answer);
    return answer;
}

/* A batch's answers as arrays (`batch_arrays` of _jps and _kernel, PathBatch in batch.py): one
 * tuple of seven bytes objects whatever the count: found (uint8), cost (float64), expanded
 * (int64), reason (int8: REASON_FOUND or REASON_UNREACHABLE) and length (int64) a pair, the
 * paths' offsets (int64, count + 1: 0, then each path's end) and the found paths' flat cells
 * (int32), `total` of them, path after path in order. Allocated here; `flat_batch_set` fills
 * pair by pair, in order, and `flat_batch_new` sets offsets[0]. */
typedef struct {
    uint8_t *found;
    double *cost;
    int64_t *expanded;
    int8_t *reason;
    int64_t *lengths, *offsets;
    int32_t *cells;
} FlatBatch;

/* The codes of Reason.FOUND and Reason.UNREACHABLE: their places in the enum's order
 * (batch.REASONS; a test holds them to it). */
enum { REASON_FOUND = 0, REASON_UNREACHABLE = 4 };

/* A new tuple of the seven bytes objects and `out` pointing into them; NULL with an exception
 * set on failure. */
static inline PyObject *flat_batch_new(Py_ssize_t count, Py_ssize_t total, FlatBatch *out) {
    const Py_ssize_t wide = (Py_ssize_t)sizeof(int64_t);
    const Py_ssize_t sizes[7] = {count,        count * wide, count * wide,
                                 count,        count * wide, (count + 1) * wide,
                                 total * (Py_ssize_t)sizeof(int32_t)};
    PyObject *arrays = PyTuple_New(7);
    if (arrays == NULL) return NULL;
    char *starts[7];
    for (int i = 0; i < 7; i++) {
        PyObject *bytes = PyBytes_FromStringAndSize(NULL, sizes[i]);
        if (bytes == NULL) {
            Py_DECREF(arrays);
            return NULL;
        }
        PyTuple_SET_ITEM(arrays, i, bytes);
        starts[i] = PyBytes_AS_STRING(bytes);
    }
    *out = (FlatBatch){(uint8_t *)starts[0],          (double *)(void *)starts[1],
                       (int64_t *)(void *)starts[2],  (int8_t *)starts[3],
                       (int64_t *)(void *)starts[4],  (int64_t *)(void *)starts[5],
                       (int32_t *)(void *)starts[6]};
    out->offsets[0] = 0;
    return arrays;
}

/* Pair `i`'s answer into `out` (pairs 0 to i - 1 set already); its path's cells, `path`
 * (`length` of them, when found), copied to their place unless `path` is NULL (already there). */
static inline void flat_batch_set(FlatBatch *out, Py_ssize_t i, int found, double cost,
                                  Py_ssize_t expanded, const int32_t *path, Py_ssize_t length) {
    const int64_t at = out->offsets[i], cells = found ? (int64_t)length : 0;
    out->found[i] = (uint8_t)found;
    out->cost[i] = cost;
    out->expanded[i] = (int64_t)expanded;
    out->reason[i] = (int8_t)(found ? REASON_FOUND : REASON_UNREACHABLE);
    out->lengths[i] = cells;
    out->offsets[i + 1] = at + cells;
    if (found && path != NULL) memcpy(out->cells + at, path, (size_t)cells * sizeof(int32_t));
}

#endif /* SIM_FLAT_PATH_H */
