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

#endif /* SIM_FLAT_PATH_H */
