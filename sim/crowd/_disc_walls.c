/* Discs against walls in C: sim/crowd/disc_walls.py's `Walls.hit`, `nearest`, `slide` and
 * `lines_clear`, disc by disc, with the same arithmetic as their numpy forms, so both give the same bits
 * (tests/unit/test_crowd_disc_walls.py checks it). disc_walls.py explains the rules: cell
 * space, the 3 x 3 block a disc of radius <= MAX_RADIUS can reach, the border as a wall, the
 * byte of blocked neighbours kept per cell.
 *
 * The GIL is released while the discs are tested; the buffers stay pinned by their views.
 */
#include "../navigation/_common.h"
#include "_buffers.h"

#define MAX_RADIUS 0.5 /* disc_walls.MAX_RADIUS */

/* disc_walls._OFFSETS: (d_row, d_col) of bit 0 to 7. */
static const int OFFSETS[8][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1},
                                  {0, 1},   {1, -1}, {1, 0},  {1, 1}};

typedef struct {
    const uint8_t *open; /* [row, col] walkable */
    const uint8_t *bits; /* [row, col] which neighbours are blocked */
    Py_ssize_t height, width;
} Mask;

/* The cell holding (x, y) and whether it lies on the grid (else the cell is (0, 0)). */
static inline int locate(const Mask *m, double x, double y, Py_ssize_t *cell) {
    const double col = floor(x), row = floor(y);
    const int inside = col >= 0 && row >= 0 && col < (double)m->width && row < (double)m->height;
    *cell = inside ? (Py_ssize_t)row * m->width + (Py_ssize_t)col : 0;
    return inside;
}

/* Walls.hit for one disc. */
static int disc_hits(const Mask *m, double x, double y, double radius) {
    Py_ssize_t cell;
    if (!locate(m, x, y, &cell) || !m->open[cell]) return 1;
    const uint8_t bits = m->bits[cell];
    if (bits == 0) return 0;
    const double r = radius < MAX_RADIUS ? radius : MAX_RADIUS; /* np.minimum */
    const double reach_sq = r * r;
    const double fx = x - (double)(cell % m->width), fy = y - (double)(cell / m->width);
    const double gap_x[3] = {fx * fx, 0.0, (1.0 - fx) * (1.0 - fx)};
    const double gap_y[3] = {fy * fy, 0.0, (1.0 - fy) * (1.0 - fy)};
    for (int bit = 0; bit < 8; bit++) {
        if (((bits >> bit) & 1) &&
            gap_x[OFFSETS[bit][1] + 1] + gap_y[OFFSETS[bit][0] + 1] < reach_sq)
            return 1;
    }
    return 0;
}

/* Walls._stops for one disc: off the grid it walks in as a point. */
static int disc_stops(const Mask *m, double x, double y, double radius, int on_grid) {
    if (on_grid) return disc_hits(m, x, y, radius);
    Py_ssize_t cell;
    return locate(m, x, y, &cell) && !m->open[cell];
}

static inline double clip(double value, double low, double high) {
    const double raised = value > low ? value : low;
    return raised < high ? raised : high;
}

/* Walls.nearest for one centre: the distance and the unit normal from the wall. */
static void disc_nearest(const Mask *m, double px, double py, double *distance, double *nx,
                         double *ny) {
    Py_ssize_t cell;
    *distance = INFINITY;
    *nx = *ny = 0.0;
    if (!locate(m, px, py, &cell) || !m->open[cell] || m->bits[cell] == 0) return;
    const uint8_t bits = m->bits[cell];
    const Py_ssize_t col = cell % m->width, row = cell / m->width;
    double best = INFINITY, best_x = 0.0, best_y = 0.0;
    for (int bit = 0; bit < 8; bit++) {
        const double left = (double)(col + OFFSETS[bit][1]);
        const double bottom = (double)(row + OFFSETS[bit][0]);
        const double qx = clip(px, left, left + 1.0), qy = clip(py, bottom, bottom + 1.0);
        const double gap = ((bits >> bit) & 1) ? hypot(px - qx, py - qy) : INFINITY;
        if (gap < best) {
            best = gap;
            best_x = qx;
            best_y = qy;
        }
    }
    *distance = best;
    if (isfinite(best)) {
        const double length = best > 0.0 ? best : 1.0;
        *nx = (px - best_x) / length;
        *ny = (py - best_y) / length;
    }
}

/* ---- Buffers ---- */

/* The mask's two byte grids, `height` x `width`; 0 with an exception set otherwise. */
static int take_mask(Views *v, PyObject *open, PyObject *bits, Py_ssize_t height,
                     Py_ssize_t width, Mask *m) {
    Py_ssize_t n_open, n_bits;
    Py_buffer *a = take(v, open, "open", '?', 'B', 1, 0, &n_open);
    if (a == NULL) return 0;
    Py_buffer *b = take(v, bits, "bits", 'B', '?', 1, 0, &n_bits);
    if (b == NULL) return 0;
    if (height < 0 || width < 0 || n_open != height * width || n_bits != height * width) {
        PyErr_SetString(PyExc_ValueError, "open and bits must hold height x width cells");
        return 0;
    }
    *m = (Mask){a->buf, b->buf, height, width};
    return 1;
}

PyDoc_STRVAR(hit_doc, "hit(open, bits, height, width, centres, radii, out) -> None\n\n"
                      "Write Walls.hit of each disc into `out` (m bools).");

static PyObject *walls_hit(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *open, *bits, *centres_obj, *radii_obj, *out_obj;
    Py_ssize_t height, width, n_centres, n_radii, n_out;
    if (!PyArg_ParseTuple(args, "OOnnOOO:hit", &open, &bits, &height, &width, &centres_obj,
                          &radii_obj, &out_obj))
        return NULL;
    Views v = {.count = 0};
    Mask m;
    Py_buffer *centres, *radii, *out;
    if (!take_mask(&v, open, bits, height, width, &m) ||
        (centres = take(&v, centres_obj, "centres", 'd', 'd', 8, 0, &n_centres)) == NULL ||
        (radii = take(&v, radii_obj, "radii", 'd', 'd', 8, 0, &n_radii)) == NULL ||
        (out = take(&v, out_obj, "out", '?', 'B', 1, 1, &n_out)) == NULL || !apart(&v, 4))
        goto fail;
    const Py_ssize_t count = n_radii;
    if (n_centres != 2 * count || n_out != count) {
        PyErr_SetString(PyExc_ValueError, "centres (m, 2), radii (m,) and out (m,)");
        goto fail;
    }
    const double *c = centres->buf, *r = radii->buf;
    uint8_t *hit = out->buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) hit[i] = (uint8_t)disc_hits(&m, c[2 * i], c[2 * i + 1], r[i]);
    Py_END_ALLOW_THREADS
    release(&v);
    Py_RETURN_NONE;
fail:
    release(&v);
    return NULL;
}

PyDoc_STRVAR(nearest_doc, "nearest(open, bits, height, width, centres, distance, normal) -> None\n\n"
                          "Write Walls.nearest of each centre into `distance` (m,) and `normal`\n"
                          "(m, 2).");

static PyObject *walls_nearest(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *open, *bits, *centres_obj, *distance_obj, *normal_obj;
    Py_ssize_t height, width, n_centres, n_distance, n_normal;
    if (!PyArg_ParseTuple(args, "OOnnOOO:nearest", &open, &bits, &height, &width, &centres_obj,
                          &distance_obj, &normal_obj))
        return NULL;
    Views v = {.count = 0};
    Mask m;
    Py_buffer *centres, *distance, *normal;
    if (!take_mask(&v, open, bits, height, width, &m) ||
        (centres = take(&v, centres_obj, "centres", 'd', 'd', 8, 0, &n_centres)) == NULL ||
        (distance = take(&v, distance_obj, "distance", 'd', 'd', 8, 1, &n_distance)) == NULL ||
        (normal = take(&v, normal_obj, "normal", 'd', 'd', 8, 1, &n_normal)) == NULL ||
        !apart(&v, 3))
        goto fail;
    const Py_ssize_t count = n_distance;
    if (n_centres != 2 * count || n_normal != 2 * count) {
        PyErr_SetString(PyExc_ValueError, "centres (m, 2), distance (m,) and normal (m, 2)");
        goto fail;
    }
    const double *c = centres->buf;
    double *d = distance->buf, *nrm = normal->buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++)
        disc_nearest(&m, c[2 * i], c[2 * i + 1], &d[i], &nrm[2 * i], &nrm[2 * i + 1]);
    Py_END_ALLOW_THREADS
    release(&v);
    Py_RETURN_NONE;
fail:
    release(&v);
    return NULL;
}

PyDoc_STRVAR(slide_doc, "slide(open, bits, height, width, centres, moves, radii, new, held) -> None\n\n"
                        "Write Walls.slide of each disc into `new` (m, 2) and `held` (m,).");

static PyObject *walls_slide(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *open, *bits, *centres_obj, *moves_obj, *radii_obj, *new_obj, *held_obj;
    Py_ssize_t height, width, n_centres, n_moves, n_radii, n_new, n_held;
    if (!PyArg_ParseTuple(args, "OOnnOOOOO:slide", &open, &bits, &height, &width, &centres_obj,
                          &moves_obj, &radii_obj, &new_obj, &held_obj))
        return NULL;
    Views v = {.count = 0};
    Mask m;
    Py_buffer *centres, *moves, *radii, *new_view, *held_view;
    if (!take_mask(&v, open, bits, height, width, &m) ||
        (centres = take(&v, centres_obj, "centres", 'd', 'd', 8, 0, &n_centres)) == NULL ||
        (moves = take(&v, moves_obj, "moves", 'd', 'd', 8, 0, &n_moves)) == NULL ||
        (radii = take(&v, radii_obj, "radii", 'd', 'd', 8, 0, &n_radii)) == NULL ||
        (new_view = take(&v, new_obj, "new", 'd', 'd', 8, 1, &n_new)) == NULL ||
        (held_view = take(&v, held_obj, "held", '?', 'B', 1, 1, &n_held)) == NULL ||
        !apart(&v, 5))
        goto fail;
    const Py_ssize_t count = n_radii;
    if (n_centres != 2 * count || n_moves != 2 * count || n_new != 2 * count ||
        n_held != count) {
        PyErr_SetString(PyExc_ValueError, "centres, moves, new (m, 2); radii, held (m,)");
        goto fail;
    }
    const double *c = centres->buf, *mv = moves->buf, *r = radii->buf;
    double *out = new_view->buf;
    uint8_t *held = held_view->buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) {
        const double x = c[2 * i], y = c[2 * i + 1], dx = mv[2 * i], dy = mv[2 * i + 1];
        const int on_grid = x >= 0.0 && y >= 0.0 && x < (double)m.width && y < (double)m.height;
        const double reach = on_grid ? r[i] : 0.0; /* walking in from off the grid: a point */
        double nx = x + dx, ny = y + dy;
        int pending = disc_stops(&m, nx, ny, reach, on_grid);
        if (pending && !disc_stops(&m, x + dx, y, reach, on_grid)) {
            nx = x + dx;
            ny = y;
            pending = 0;
        } else if (pending && !disc_stops(&m, x, y + dy, reach, on_grid)) {
            nx = x;
            ny = y + dy;
            pending = 0;
        }
        if (pending) {
            nx = x;
            ny = y;
        }
        out[2 * i] = nx;
        out[2 * i + 1] = ny;
        held[i] = (uint8_t)(pending && (dx != 0.0 || dy != 0.0));
    }
    Py_END_ALLOW_THREADS
    release(&v);
    Py_RETURN_NONE;
fail:
    release(&v);
    return NULL;
}

/* Walls.lines_clear for one line: the cell centres of flat cells `from` and `to`, `samples`
 * points (>= 2) from one to the other. */
static int line_clear(const Mask *m, const double *room, Py_ssize_t from, Py_ssize_t to,
                      Py_ssize_t samples, double radius) {
    const double ax = (double)(from % m->width) + 0.5, ay = (double)(from / m->width) + 0.5;
    const double bx = (double)(to % m->width) + 0.5, by = (double)(to / m->width) + 0.5;
    const double dx = bx - ax, dy = by - ay;
    /* np.linspace(0.0, 1.0, samples): k * step, the last exactly 1. */
    const double step = 1.0 / (double)(samples - 1);
    const double reach = radius + hypot(dx, dy) / (double)(samples - 1) / 2.0;
    int bound = 1;
    for (Py_ssize_t k = 0; k < samples && bound; k++) {
        const double t = k == samples - 1 ? 1.0 : (double)k * step;
        const double x = ax + t * dx, y = ay + t * dy;
        Py_ssize_t cell;
        if (!locate(m, x, y, &cell)) return 0;
        const double away = hypot(x - (floor(x) + 0.5), y - (floor(y) + 0.5));
        bound = room[cell] - away >= reach;
    }
    if (bound) return 1;
    for (Py_ssize_t k = 0; k < samples; k++) {
        const double t = k == samples - 1 ? 1.0 : (double)k * step;
        if (disc_hits(m, ax + t * dx, ay + t * dy, reach)) return 0;
    }
    return 1;
}

PyDoc_STRVAR(lines_clear_doc,
             "lines_clear(open, bits, height, width, room, starts, ends, samples, radius, out)"
             " -> None\n\nWrite Walls.lines_clear of each line into `out` (m bools).");

static PyObject *walls_lines_clear(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *open, *bits, *room_obj, *starts_obj, *ends_obj, *out_obj;
    Py_ssize_t height, width, samples, n_room, n_starts, n_ends, n_out;
    double radius;
    if (!PyArg_ParseTuple(args, "OOnnOOOndO:lines_clear", &open, &bits, &height, &width,
                          &room_obj, &starts_obj, &ends_obj, &samples, &radius, &out_obj))
        return NULL;
    Views v = {.count = 0};
    Mask m;
    Py_buffer *room, *starts, *ends, *out;
    if (!take_mask(&v, open, bits, height, width, &m) ||
        (room = take(&v, room_obj, "room", 'd', 'd', 8, 0, &n_room)) == NULL ||
        (starts = take(&v, starts_obj, "starts", 'q', 'l', 8, 0, &n_starts)) == NULL ||
        (ends = take(&v, ends_obj, "ends", 'q', 'l', 8, 0, &n_ends)) == NULL ||
        (out = take(&v, out_obj, "out", '?', 'B', 1, 1, &n_out)) == NULL || !apart(&v, 5))
        goto fail;
    if (n_room != height * width || n_ends != n_starts || n_out != n_starts || samples < 2) {
        PyErr_SetString(PyExc_ValueError,
                        "room (height, width); starts, ends, out (m,); samples >= 2");
        goto fail;
    }
    const int64_t *a = starts->buf, *b = ends->buf;
    if (!indices_in(a, n_starts, n_room) || !indices_in(b, n_starts, n_room)) {
        PyErr_SetString(PyExc_ValueError, "a line's cell lies off the grid");
        goto fail;
    }
    uint8_t *clear = out->buf;
    const double *r = room->buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n_starts; i++)
        clear[i] = (uint8_t)line_clear(&m, r, (Py_ssize_t)a[i], (Py_ssize_t)b[i], samples, radius);
    Py_END_ALLOW_THREADS
    release(&v);
    Py_RETURN_NONE;
fail:
    release(&v);
    return NULL;
}

static PyMethodDef walls_methods[] = {
    {"lines_clear", walls_lines_clear, METH_VARARGS, lines_clear_doc},
    {"hit", walls_hit, METH_VARARGS, hit_doc},
    {"nearest", walls_nearest, METH_VARARGS, nearest_doc},
    {"slide", walls_slide, METH_VARARGS, slide_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef walls_module = {
    PyModuleDef_HEAD_INIT, "_disc_walls", "Discs against walls (see disc_walls.py).", -1,
    walls_methods,         NULL,          NULL,                                       NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__disc_walls(void) { return PyModule_Create(&walls_module); }
