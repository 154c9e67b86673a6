/* The pushes of parting in C: the passes of sim/crowd/parting.py's `_part_passes`, operation
 * for operation, so both move every disc to the same bit (tests/unit/test_crowd_parting_kernel.py
 * checks it).
 *
 * Each pass measures every pair from the positions the pass starts with, sums each pressed
 * disc's pushes in pair order (as numpy's bincount adds its weights), drops the part of the sum
 * that points into a wall the disc is against, and only then moves the discs: a pass never sees
 * its own pushes. The first `part_passes` passes push every pair closer than its reach, the
 * `settle_passes` after them only the pairs still deeper than `settle_beyond` of their reach;
 * a pass with nothing to push ends them all.
 *
 * The GIL is released while the passes run; the buffers stay pinned by their views.
 */
#include "../navigation/_common.h"
#include "_buffers.h"

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

/* Run the passes; 0 when the scratch space could not be allocated. */
static int push_apart(const Pairs *s, long part_passes, long settle_passes, double settle_beyond) {
    double *push = malloc(((size_t)s->m + 1) * 2 * sizeof *push);
    if (push == NULL) return 0;
    for (long pass = 0; pass < part_passes + settle_passes; pass++) {
        const int settling = pass >= part_passes;
        int any = 0;
        memset(push, 0, (size_t)s->m * 2 * sizeof *push);
        for (Py_ssize_t k = 0; k < s->p; k++) {
            const double *a = s->pos + 2 * s->first[k], *b = s->pos + 2 * s->second[k];
            const double gx = b[0] - a[0], gy = b[1] - a[1];
            const double apart = hypot(gx, gy);
            const double short_by = s->reach[k] - apart;
            /* np.maximum(x, 0.0): x unless it is below 0 (a NaN stays a NaN). */
            double depth = (short_by >= 0.0 || isnan(short_by)) ? short_by : 0.0;
            if (settling && depth <= settle_beyond * s->reach[k]) depth = 0.0;
            if (depth != 0.0) any = 1;
            const double scale = (apart > 0.0 ? depth / apart : 0.0) * s->share[k];
            double *sum = push + 2 * s->local[k];
            sum[0] += gx * scale;
            sum[1] += gy * scale;
        }
        if (!any) break;
        for (Py_ssize_t i = 0; i < s->m; i++) {
            const double px = -push[2 * i], py = -push[2 * i + 1];
            const double nx = s->normal[2 * i], ny = s->normal[2 * i + 1];
            const double dot = px * nx + py * ny;
            /* np.minimum(dot, 0.0) * against */
            const double into = ((dot <= 0.0 || isnan(dot)) ? dot : 0.0) * (double)s->against[i];
            double *p = s->pos + 2 * s->pressed[i];
            p[0] += px - into * nx;
            p[1] += py - into * ny;
        }
    }
    free(push);
    return 1;
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

static PyMethodDef parting_methods[] = {
    {"push_apart", parting_push_apart, METH_VARARGS, push_apart_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef parting_module = {
    PyModuleDef_HEAD_INIT, "_parting", "Parting's pushes (see parting.py).", -1,
    parting_methods,       NULL,       NULL,                                  NULL, NULL,
};

PyMODINIT_FUNC PyInit__parting(void) { return PyModule_Create(&parting_module); }
