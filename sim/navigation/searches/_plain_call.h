/* The plain jump point search as _jps.c hands it to _kernel.c's `call` (capsule `plain`).
 *
 * `call` has checked the array (2-D, C-contiguous bools, a grid whose flat cells fit an int32)
 * and both ends (inside, walkable) and holds the array's buffer view while it asks; so the
 * search takes the view's bytes as they are, with none of search()'s argument parsing, checks
 * or buffer request of its own (numpy's buffer export, some 600 instructions, was a quarter of
 * the fixed cost of a call on a 49 x 49 map). It answers in a PlainOutcome rather than a tuple,
 * which `call` builds the PathResult from without the tuple between; _kernel.c's own
 * best-first search answers `call` in one too. */
#ifndef SIM_PLAIN_CALL_H
#define SIM_PLAIN_CALL_H
#include <Python.h>
#include <stdint.h>

typedef struct {
    int status;         /* SEARCH_FOUND, SEARCH_UNREACHABLE (_grid_search.h) */
    int32_t *path;      /* found: `length` flat cells, start first; free with PyMem_RawFree */
    Py_ssize_t length;
    double cost;        /* as the search sums it; inf when not found */
    Py_ssize_t expanded;
} PlainOutcome;

/* One plain search (h_weight 1, no landmarks) on `cells`, the buffer of `array` (`readonly` as
 * its view says; frozen arrays are told by it), height x width, start and goal walkable. 0 with
 * `out` filled, -1 with an exception set (out of memory). Under the GIL; the view must stay
 * held until it returns. */
typedef int (*PlainSearch)(PyObject *array, int readonly, const uint8_t *cells,
                           Py_ssize_t height, Py_ssize_t width, Py_ssize_t start,
                           Py_ssize_t goal, int heuristic, PlainOutcome *out);

#define PLAIN_CAPSULE "sim.navigation.searches._jps.plain"

#endif /* SIM_PLAIN_CALL_H */
