/* What the three compiled searches share (`_kernel.c`, `_jps.c`, `_incremental.c`): the
 * heuristics, the order of frontier keys, the grid checks at the boundary and the path handed
 * back to Python. Like ../_common.h (which it includes), everything is static: each extension
 * gets its own copy. Each module calls heuristics_init in its init function.
 */
#ifndef SIM_SEARCH_COMMON_H
#define SIM_SEARCH_COMMON_H

#include "../_common.h"
#include "_flat_path.h"

/* The helpers of the hot loops are tiny and called from one or two places each; inlining them
 * lets the compiler fold the constant arguments (the heuristic, the move lengths). */
#if defined(__GNUC__) || defined(__clang__)
#define HOT_INLINE inline __attribute__((always_inline))
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define HOT_INLINE inline
#define PREFETCH(address) ((void)(address))
#endif

#define TIE_SCALE 1073741824.0 /* 2**30, as search.TIE_SCALE */

enum { H_MANHATTAN = 0, H_OCTILE = 1, H_EUCLIDEAN = 2, H_CHEBYSHEV = 3, H_ZERO = 4 };

/* math.sqrt(2.0) and math.sqrt(2.0) - 1.0, computed at import as Python does. */
static double SQRT2;
static double SQRT2_MINUS_1;

static inline void heuristics_init(void) {
    SQRT2 = sqrt(2.0);
    SQRT2_MINUS_1 = SQRT2 - 1.0;
}

/* heuristics.py, same operations in the same order (dx = column difference). */
static HOT_INLINE double heuristic_of(int kind, long dx, long dy) {
    switch (kind) {
        case H_MANHATTAN:
            return (double)(dx + dy);
        case H_OCTILE:
            if (dx < dy) {
                long t = dx;
                dx = dy;
                dy = t;
            }
            return (double)dx + SQRT2_MINUS_1 * (double)dy;
        case H_EUCLIDEAN:
            /* Exact integer squares, one correctly rounded sqrt: what math.hypot returns. */
            return sqrt((double)dx * (double)dx + (double)dy * (double)dy);
        case H_CHEBYSHEV:
            return (double)(dx > dy ? dx : dy);
        default:
            return 0.0;
    }
}

/* A frontier key is two non-negative doubles (+inf at worst), and the bit patterns of those
 * sort as the values do: comparing them as integers is the same order and cheaper (no
 * unordered-compare branches). */
static inline uint64_t bits_of(double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* The order of Python's (key, key, cell) tuples, on keys given by bits_of. Where the compiler
 * has 128-bit integers, the two keys are compared as one number, without branches: which of
 * two heap entries comes first is anyone's guess, and ties of the first key are common
 * (floored priorities), so branches there are often mispredicted (a whole search measured
 * about 15 % faster this way). */
static HOT_INLINE int key_less(uint64_t a_first, uint64_t a_second, int32_t a_cell,
                               uint64_t b_first, uint64_t b_second, int32_t b_cell) {
#ifdef __SIZEOF_INT128__
    const unsigned __int128 key_a = ((unsigned __int128)a_first << 64) | a_second;
    const unsigned __int128 key_b = ((unsigned __int128)b_first << 64) | b_second;
    return (key_a < key_b) | ((key_a == key_b) & (a_cell < b_cell));
#else
    if (a_first != b_first) return a_first < b_first;
    if (a_second != b_second) return a_second < b_second;
    return a_cell < b_cell;
#endif
}

/* A grid of `height` x `width` cells whose flat indices fit an int32: 1 if so, else 0 with a
 * ValueError set. */
static inline int check_grid(Py_ssize_t height, Py_ssize_t width) {
    if (height <= 0 || width <= 0 || height > INT32_MAX / width) {
        PyErr_Format(PyExc_ValueError, "grid of %zd x %zd cells: need 1 to 2**31 - 1 cells",
                     height, width);
        return 0;
    }
    return 1;
}

/* The ints a path's coordinates are made of, kept from call to call: a path of thousands of
 * cells (a maze) otherwise allocates two ints a cell, some 5 % of a whole query there. Python
 * caches only -5 to 256; coordinates up to CACHED_INTS - 1 are made once here. */
#define CACHED_INTS 4096
static PyObject *cached_ints[CACHED_INTS];

/* `value` >= 0 as a new reference; NULL with an exception set on failure. */
static inline PyObject *coordinate(Py_ssize_t value) {
    if (value >= CACHED_INTS) return PyLong_FromSsize_t(value);
    PyObject *number = cached_ints[value];
    if (number == NULL) {
        number = PyLong_FromSsize_t(value);
        if (number == NULL) return NULL;
        cached_ints[value] = number;
    }
    Py_INCREF(number);
    return number;
}

/* Let the kept ints go (the module's m_free). */
static inline void cached_ints_free(void) {
    for (Py_ssize_t i = 0; i < CACHED_INTS; i++) Py_CLEAR(cached_ints[i]);
}

/* (row, col) of a flat cell as a new tuple of two ints; NULL with an exception set on failure.
 * Built directly: Py_BuildValue parses its format string for every one of a path's cells. */
static inline PyObject *cell_pair(int32_t cell, Py_ssize_t width) {
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) return NULL;
    PyObject *row = coordinate(cell / width);
    PyTuple_SET_ITEM(pair, 0, row);
    PyObject *col = row == NULL ? NULL : coordinate(cell % width);
    PyTuple_SET_ITEM(pair, 1, col);
    if (col == NULL) {
        Py_DECREF(pair); /* also releases `row`; an empty item is skipped */
        return NULL;
    }
    /* Two ints make no cycle: untracked now, as the collector would untrack it when it first
     * met it. A long path's pairs trigger a young collection every 700 of them, which walked
     * every pair laid out so far: a third of the layout's time on a 1,500-cell path. */
    PyObject_GC_UnTrack(pair);
    return pair;
}

/* The `length` flat cells of `path` as a new tuple of (row, col) pairs; NULL with an exception
 * set on failure. */
static inline PyObject *path_cells(const int32_t *path, Py_ssize_t length, Py_ssize_t width) {
    PyObject *cells = PyTuple_New(length);
    if (cells == NULL) return NULL;
    for (Py_ssize_t i = 0; i < length; i++) {
        PyObject *pair = cell_pair(path[i], width);
        if (pair == NULL) {
            Py_DECREF(cells);
            return NULL;
        }
        PyTuple_SET_ITEM(cells, i, pair);
    }
    return cells;
}

/* The cells of a `flat_path` (_flat_path.h) bytes object as a new tuple of (row, col) pairs; NULL
 * with an exception set on failure (a ValueError for bytes that hold no width). */
static inline PyObject *flat_path_cells(PyObject *flat) {
    const Py_ssize_t size = PyBytes_GET_SIZE(flat);
    int32_t width;
    if (size < (Py_ssize_t)sizeof width || size % (Py_ssize_t)sizeof width != 0) {
        PyErr_SetString(PyExc_ValueError, "a flat path holds a width and int32 cells");
        return NULL;
    }
    const char *data = PyBytes_AS_STRING(flat);
    memcpy(&width, data, sizeof width);
    if (width < 1) {
        PyErr_SetString(PyExc_ValueError, "a flat path's width must be at least 1");
        return NULL;
    }
    const Py_ssize_t length = size / (Py_ssize_t)sizeof width - 1;
    int32_t *path = PyMem_Malloc(length > 0 ? (size_t)length * sizeof(int32_t) : 1);
    if (path == NULL) return PyErr_NoMemory();
    memcpy(path, data + sizeof width, (size_t)length * sizeof(int32_t)); /* aligned reads */
    PyObject *cells = path_cells(path, length, width);
    PyMem_Free(path);
    return cells;
}

#endif /* SIM_SEARCH_COMMON_H */
