/* The buffer handling the crowd's small kernels share (_parting.c, _disc_walls.c): a bundle of
 * Py_buffer views taken from the arguments and released together, each checked for its item
 * format and size, outputs kept apart from inputs, indices checked against what they point
 * into. Included after ../navigation/_common.h (format_is, views_overlap). */
#ifndef SIM_CROWD_BUFFERS_H
#define SIM_CROWD_BUFFERS_H

#define MAX_VIEWS 12

typedef struct {
    Py_buffer views[MAX_VIEWS];
    int count;
} Views;

static inline void release(Views *v) {
    for (int k = 0; k < v->count; k++) PyBuffer_Release(&v->views[k]);
    v->count = 0;
}

/* A C-contiguous buffer of `size`-byte items of format `code` (or `alt`); its item count in
 * `*items`; NULL with an exception set otherwise. */
static inline Py_buffer *take(Views *v, PyObject *obj, const char *name, char code, char alt,
                              Py_ssize_t size, int writable, Py_ssize_t *items) {
    if (v->count == MAX_VIEWS) {
        PyErr_SetString(PyExc_RuntimeError, "too many buffers for one call");
        return NULL;
    }
    Py_buffer *view = &v->views[v->count];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return NULL;
    v->count++;
    if (view->itemsize != size || !(format_is(view, code) || format_is(view, alt))) {
        PyErr_Format(PyExc_ValueError, "%s must be contiguous items of %zd bytes", name, size);
        return NULL;
    }
    *items = view->len / size;
    return view;
}

/* Output buffers must not share memory with the inputs (views[0..inputs)); 0 with an
 * exception set when one does. */
static inline int apart(Views *v, int inputs) {
    for (int out = inputs; out < v->count; out++)
        for (int in = 0; in < inputs; in++)
            if (views_overlap(&v->views[in], &v->views[out])) {
                PyErr_SetString(PyExc_ValueError, "an output shares memory with an input");
                return 0;
            }
    return 1;
}

/* Whether every index lies in [0, limit). */
static inline int indices_in(const int64_t *index, Py_ssize_t count, Py_ssize_t limit) {
    for (Py_ssize_t k = 0; k < count; k++)
        if (index[k] < 0 || index[k] >= limit) return 0;
    return 1;
}

#endif
