/* Reciprocal collision avoidance (ORCA) in C: the Python reference (sim/crowd/avoidance.py
 * and orca.py) operation for operation, so both return bit-identical velocities
 * (tests/unit/test_nav_avoidance.py checks it).
 *
 * The algorithm is van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision avoidance"
 * (2011), as their RVO2 library solves it (an ORCA half-plane per neighbour, a 2-D incremental
 * linear program, a 3-D one when the 2-D one is infeasible); the code is our own, and
 * avoidance.py and orca.py explain the rules (shares, inactive agents, parting, sidestep).
 *
 * Neighbours come from a uniform spatial hash: cells a quarter of `neighbour_dist` wide, or
 * the agents' mean spacing over their bounding box when that is wider (a short range would
 * scan rows of empty cells), numbered row by row and taken modulo a table of at least 2n
 * buckets (so a sparse world costs no memory, and a crowd's cells, fewer than the buckets,
 * never collide); agents are counting-sorted by bucket with their positions copied alongside,
 * so the cells of a row are one run of memory. An agent scans the 3 x 3 cells round its own
 * first (most of its nearest neighbours), then the rows that cover [y - d, y + d], from its
 * own outward, over the cells that cover [x - d, x + d] (computed with the same monotone
 * arithmetic as every agent's own cell, so no agent closer than d is ever missed); once it
 * holds k neighbours it narrows each row to the cells nearer than its k-th, and stops at the
 * first row beyond it. In a dense crowd it first looks only as far as its block's density
 * says `max_neighbours` stand (and again over the whole range when that finds fewer): each
 * agent sorted into the list costs more than finding it.
 * It keeps the nearest `max_neighbours` by (squared distance, index), a total order, so the
 * scan order never shows in the result.
 *
 * Bit-identical sums need the compiler not to fuse a * b + c into one FMA instruction (which
 * rounds once instead of twice); the pragmas of ../navigation/_common.h forbid that on GCC and
 * Clang.
 * The GIL is released while agents are solved; the buffers stay pinned by their views.
 */
#include "../navigation/_common.h"
#include "_hash.h"

#define EPSILON 1e-5        /* orca.EPSILON */

typedef struct {
    double px, py, dx, dy;
} Line;

/* orca.PARTING, the same literals. */
static const double PARTING[8][2] = {
    {1.0, 0.0},  {0.6, 0.8},   {0.0, 1.0},  {-0.8, 0.6},
    {-1.0, 0.0}, {-0.6, -0.8}, {0.0, -1.0}, {0.8, -0.6},
};

/* ---- ORCA half-planes and the linear programs (orca.orca_line, linear_program_*) ---- */

static Line orca_line(const double *pos_i, const double *vel_i, double radius_i,
                      const double *pos_j, const double *vel_j, double radius_j, double share,
                      double margin, double inv_tau, double inv_dt, double parting_x,
                      double parting_y) {
    const double rel_px = pos_j[0] - pos_i[0], rel_py = pos_j[1] - pos_i[1];
    const double rel_vx = vel_i[0] - vel_j[0], rel_vy = vel_i[1] - vel_j[1];
    const double dist_sq = rel_px * rel_px + rel_py * rel_py;
    const double combined = radius_i + radius_j;
    const double combined_sq = combined * combined;
    double dir_x, dir_y, ux, uy;
    if (dist_sq > combined_sq) {
        const double wx = rel_vx - inv_tau * rel_px, wy = rel_vy - inv_tau * rel_py;
        const double w_sq = wx * wx + wy * wy;
        const double dot = wx * rel_px + wy * rel_py;
        if (dot < 0.0 && dot * dot > combined_sq * w_sq && w_sq > 0.0) {
            const double w_len = sqrt(w_sq);
            const double unit_x = wx / w_len, unit_y = wy / w_len;
            dir_x = unit_y;
            dir_y = -unit_x;
            const double scale = combined * inv_tau - w_len;
            ux = scale * unit_x;
            uy = scale * unit_y;
        } else {
            const double leg = sqrt(dist_sq - combined_sq);
            if (rel_px * wy - rel_py * wx > 0.0) {
                dir_x = (rel_px * leg - rel_py * combined) / dist_sq;
                dir_y = (rel_px * combined + rel_py * leg) / dist_sq;
            } else {
                dir_x = -(rel_px * leg + rel_py * combined) / dist_sq;
                dir_y = -(rel_py * leg - rel_px * combined) / dist_sq;
            }
            const double along = rel_vx * dir_x + rel_vy * dir_y;
            ux = along * dir_x - rel_vx;
            uy = along * dir_y - rel_vy;
        }
    } else {
        const double wx = rel_vx - inv_dt * rel_px, wy = rel_vy - inv_dt * rel_py;
        const double w_sq = wx * wx + wy * wy;
        double w_len, unit_x, unit_y;
        if (w_sq > 0.0) {
            w_len = sqrt(w_sq);
            unit_x = wx / w_len;
            unit_y = wy / w_len;
        } else {
            w_len = 0.0;
            unit_x = parting_x;
            unit_y = parting_y;
        }
        dir_x = unit_y;
        dir_y = -unit_x;
        const double scale = combined * inv_dt - w_len;
        ux = scale * unit_x;
        uy = scale * unit_y;
    }
    const double part = dir_x * uy - dir_y * ux > 0.0 ? share : margin;
    Line line = {vel_i[0] + part * ux, vel_i[1] + part * uy, dir_x, dir_y};
    return line;
}

static int linear_program_1(const Line *lines, Py_ssize_t index, double radius, double opt_x,
                            double opt_y, int on_rim, double *rx, double *ry) {
    const double px = lines[index].px, py = lines[index].py;
    const double dx = lines[index].dx, dy = lines[index].dy;
    const double dot = px * dx + py * dy;
    const double discriminant = dot * dot + radius * radius - (px * px + py * py);
    if (discriminant < 0.0) return 0;
    const double root = sqrt(discriminant);
    double t_left = -dot - root, t_right = -dot + root;
    for (Py_ssize_t k = 0; k < index; k++) {
        const double qx = lines[k].px, qy = lines[k].py, ex = lines[k].dx, ey = lines[k].dy;
        const double denominator = dx * ey - dy * ex;
        const double numerator = ex * (py - qy) - ey * (px - qx);
        if (fabs(denominator) <= EPSILON) {
            if (numerator < 0.0) return 0;
            continue;
        }
        const double t = numerator / denominator;
        if (denominator >= 0.0) {
            if (t < t_right) t_right = t;
        } else if (t > t_left) {
            t_left = t;
        }
        if (t_left > t_right) return 0;
    }
    double t;
    if (on_rim) {
        t = opt_x * dx + opt_y * dy > 0.0 ? t_right : t_left;
    } else {
        t = dx * (opt_x - px) + dy * (opt_y - py);
        if (t < t_left)
            t = t_left;
        else if (t > t_right)
            t = t_right;
    }
    *rx = px + t * dx;
    *ry = py + t * dy;
    return 1;
}

static inline void clip_speed(double x, double y, double max_speed, double *rx, double *ry) {
    if (x * x + y * y > max_speed * max_speed) {
        const double length = sqrt(x * x + y * y);
        *rx = x / length * max_speed;
        *ry = y / length * max_speed;
    } else {
        *rx = x;
        *ry = y;
    }
}

static Py_ssize_t linear_program_2(const Line *lines, Py_ssize_t count, double radius,
                                   double opt_x, double opt_y, int on_rim, double *rx,
                                   double *ry) {
    if (on_rim) {
        *rx = opt_x * radius;
        *ry = opt_y * radius;
    } else {
        clip_speed(opt_x, opt_y, radius, rx, ry);
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        const Line *l = &lines[k];
        if (l->dx * (l->py - *ry) - l->dy * (l->px - *rx) > 0.0) {
            double mx, my;
            if (!linear_program_1(lines, k, radius, opt_x, opt_y, on_rim, &mx, &my)) return k;
            *rx = mx;
            *ry = my;
        }
    }
    return count;
}

static void linear_program_3(const Line *lines, Py_ssize_t count, Py_ssize_t begin,
                             double radius, Line *projected, double *rx, double *ry) {
    double worst = 0.0;
    for (Py_ssize_t k = begin; k < count; k++) {
        const double qx = lines[k].px, qy = lines[k].py, ex = lines[k].dx, ey = lines[k].dy;
        if (ex * (qy - *ry) - ey * (qx - *rx) <= worst) continue;
        Py_ssize_t used = 0;
        for (Py_ssize_t m = 0; m < k; m++) {
            const double sx = lines[m].px, sy = lines[m].py, fx = lines[m].dx, fy = lines[m].dy;
            const double determinant = ex * fy - ey * fx;
            double point_x, point_y;
            if (fabs(determinant) <= EPSILON) {
                if (ex * fx + ey * fy > 0.0) continue;
                point_x = 0.5 * (qx + sx);
                point_y = 0.5 * (qy + sy);
            } else {
                const double t = (fx * (qy - sy) - fy * (qx - sx)) / determinant;
                point_x = qx + t * ex;
                point_y = qy + t * ey;
            }
            const double bx = fx - ex, by = fy - ey;
            const double length = sqrt(bx * bx + by * by);
            Line p = {point_x, point_y, bx / length, by / length};
            projected[used++] = p;
        }
        double mx, my;
        if (linear_program_2(projected, used, radius, -ey, ex, 1, &mx, &my) == used) {
            *rx = mx;
            *ry = my;
        }
        worst = ex * (qy - *ry) - ey * (qx - *rx);
    }
}

static void best_velocity(const Line *lines, Py_ssize_t count, double max_speed, double opt_x,
                          double opt_y, Line *projected, double *rx, double *ry) {
    const Py_ssize_t failed = linear_program_2(lines, count, max_speed, opt_x, opt_y, 0, rx, ry);
    if (failed < count) linear_program_3(lines, count, failed, max_speed, projected, rx, ry);
}

/* orca.solve_velocity: the best velocity, turned right in proportion to lost progress. */
static void solve_velocity(const Line *lines, Py_ssize_t count, double max_speed, double pref_x,
                           double pref_y, int sidestep, Line *projected, double *rx,
                           double *ry) {
    double opt_x, opt_y;
    clip_speed(pref_x, pref_y, max_speed, &opt_x, &opt_y);
    best_velocity(lines, count, max_speed, opt_x, opt_y, projected, rx, ry);
    const double opt_sq = opt_x * opt_x + opt_y * opt_y;
    if (!sidestep || opt_sq <= 0.0) return;
    const double progress = (*rx * opt_x + *ry * opt_y) / opt_sq;
    if (progress >= 1.0) return;
    const double blocked = progress > 0.0 ? 1.0 - progress : 1.0;
    const double keep = 1.0 - blocked;
    const double qx = keep * opt_x + blocked * opt_y, qy = keep * opt_y - blocked * opt_x;
    const double q_sq = qx * qx + qy * qy;
    if (q_sq <= 0.0) return;
    const double scale = sqrt(opt_sq) / sqrt(q_sq);
    best_velocity(lines, count, max_speed, qx * scale, qy * scale, projected, rx, ry);
}

/* ---- One step for every agent ---- */

typedef struct {
    const double *pos, *vel, *pref, *radii, *speeds, *priority; /* priority may be NULL */
    const uint8_t *active, *sidestep;                             /* may be NULL */
    Py_ssize_t n, keep;
    double inv_tau, inv_dt;
    double *out;
    int64_t *seen; /* (n, keep) each agent's neighbours, -1 padded, NOT_SEARCHED; may be NULL */
} Step;

/* The first slot of `seen` for an inactive agent: no search ran for it. */
#define NOT_SEARCHED (-2)

static void solve_agent(const Step *s, Py_ssize_t i, const Neighbour *near, Py_ssize_t count,
                        Line *lines, Line *projected) {
    for (Py_ssize_t k = 0; k < count; k++) {
        const Py_ssize_t j = near[k].index;
        double share, margin;
        if (s->active != NULL && !s->active[j]) {
            share = margin = 1.0;
        } else if (s->priority != NULL) {
            const double both = s->priority[i] + s->priority[j];
            share = both > 0.0 ? s->priority[j] / both : 0.5;
            margin = both > 0.0 ? s->priority[i] / both : 0.5;
        } else {
            /* The reference divides 1.0 by 1.0 + 1.0: exactly 0.5. */
            share = margin = 0.5;
        }
        const Py_ssize_t low = i < j ? i : j, high = i < j ? j : i;
        const double *parting = PARTING[(low * 7 + high * 3) % 8];
        const double sign = i == low ? -1.0 : 1.0;
        lines[k] = orca_line(&s->pos[2 * i], &s->vel[2 * i], s->radii[i], &s->pos[2 * j],
                             &s->vel[2 * j], s->radii[j], share, margin, s->inv_tau, s->inv_dt,
                             sign * parting[0], sign * parting[1]);
    }
    double rx, ry;
    solve_velocity(lines, count, s->speeds[i], s->pref[2 * i], s->pref[2 * i + 1],
                   s->sidestep == NULL || s->sidestep[i], projected, &rx, &ry);
    s->out[2 * i] = rx;
    s->out[2 * i + 1] = ry;
}

static void avoid_share(const Share *sh) {
    const Step *s = sh->context;
    Neighbour *near = malloc(((size_t)s->keep + 1) * sizeof *near);
    Line *lines = malloc(((size_t)s->keep + 1) * sizeof *lines);
    Line *projected = malloc(((size_t)s->keep + 1) * sizeof *projected);
    if (near == NULL || lines == NULL || projected == NULL) {
        ((Share *)sh)->failed = 1;
    } else {
        for (Py_ssize_t slot = sh->begin; slot < sh->end; slot++) {
            const Py_ssize_t i = agent_at(sh->grid, slot);
            if (s->active != NULL && !s->active[i]) {
                s->out[2 * i] = s->pref[2 * i];
                s->out[2 * i + 1] = s->pref[2 * i + 1];
                for (Py_ssize_t k = 0; s->seen != NULL && k < s->keep; k++)
                    s->seen[i * s->keep + k] = k == 0 ? NOT_SEARCHED : -1;
                continue;
            }
            Py_ssize_t count = query_slot(sh->grid, slot, s->keep, near);
            if (s->seen != NULL) {
                for (Py_ssize_t k = 0; k < s->keep; k++)
                    s->seen[i * s->keep + k] = k < count ? (int64_t)near[k].index : -1;
            }
            solve_agent(s, i, near, count, lines, projected);
        }
    }
    free(near);
    free(lines);
    free(projected);
}

/* ---- Buffers ---- */

/* Views are released by the caller through `release` on every path. */
typedef struct {
    Py_buffer views[10];
    int count;
} Views;

static void release(Views *v) {
    for (int k = 0; k < v->count; k++) PyBuffer_Release(&v->views[k]);
    v->count = 0;
}

/* A C-contiguous buffer of `items` elements of format code `code` (or `alt`) and `size`
 * bytes; NULL with an exception set otherwise. */
static Py_buffer *take(Views *v, PyObject *obj, const char *name, Py_ssize_t items, char code,
                       char alt, Py_ssize_t size, int writable) {
    Py_buffer *view = &v->views[v->count];
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return NULL;
    v->count++;
    if (view->itemsize != size || view->len != items * size ||
        !(format_is(view, code) || format_is(view, alt))) {
        PyErr_Format(PyExc_ValueError, "%s must be %zd contiguous items of %zd bytes", name,
                     items, size);
        return NULL;
    }
    return view;
}

static int parse_positions(Views *v, PyObject *obj, Py_ssize_t *n) {
    Py_buffer *view = &v->views[v->count];
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return 0;
    v->count++;
    if (view->itemsize != 8 || !format_is(view, 'd') || view->len % 16 != 0 ||
        view->len / 16 > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError,
                        "positions must be (n, 2) contiguous float64 values, n < 2**31");
        return 0;
    }
    *n = view->len / 16;
    return 1;
}

/* The exception for a grid_build that returned `built` (not 1), or that never ran (0: the
 * lists it needs could not be allocated). */
static void grid_build_failed(int built) {
    if (built == -1)
        PyErr_SetString(PyExc_ValueError,
                        "positions spread over more than 2**28 neighbour distances");
    else
        PyErr_NoMemory();
}

PyDoc_STRVAR(avoid_doc,
             "avoid(positions, velocities, preferred, radii, max_speeds, priority, active,\n"
             "      sidestep, dt, time_horizon, neighbour_dist, max_neighbours, out,\n"
             "      seen=None) -> None\n\n"
             "Write every agent's new velocity into `out` (n x 2 float64) and, when `seen`\n"
             "(n x keep int64) is given, the neighbours each avoided (-1 padded; -2 first\n"
             "for an inactive agent); see sim/crowd/avoidance.py for the contract.");

static PyObject *avoidance_avoid(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *pos_obj, *vel_obj, *pref_obj, *radii_obj, *speeds_obj, *priority_obj, *active_obj,
        *sidestep_obj, *out_obj, *seen_obj = Py_None;
    double dt, time_horizon, range;
    Py_ssize_t max_neighbours, n;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddnO|O:avoid", &pos_obj, &vel_obj, &pref_obj,
                          &radii_obj, &speeds_obj, &priority_obj, &active_obj, &sidestep_obj, &dt,
                          &time_horizon, &range, &max_neighbours, &out_obj, &seen_obj))
        return NULL;
    if (!(isfinite(dt) && dt > 0.0 && isfinite(time_horizon) && time_horizon > 0.0 &&
          isfinite(range) && range >= 0.0 && max_neighbours >= 0)) {
        PyErr_SetString(PyExc_ValueError,
                        "dt and time_horizon must be finite and > 0, neighbour_dist and "
                        "max_neighbours >= 0");
        return NULL;
    }
    Views v = {.count = 0};
    Py_buffer *pos, *vel, *pref, *radii, *speeds, *priority = NULL, *active = NULL,
                                                  *sidestep = NULL, *out;
    if (!parse_positions(&v, pos_obj, &n)) goto fail;
    pos = &v.views[0];
    if ((vel = take(&v, vel_obj, "velocities", 2 * n, 'd', 'd', 8, 0)) == NULL ||
        (pref = take(&v, pref_obj, "preferred", 2 * n, 'd', 'd', 8, 0)) == NULL ||
        (radii = take(&v, radii_obj, "radii", n, 'd', 'd', 8, 0)) == NULL ||
        (speeds = take(&v, speeds_obj, "max_speeds", n, 'd', 'd', 8, 0)) == NULL)
        goto fail;
    if (priority_obj != Py_None &&
        (priority = take(&v, priority_obj, "priority", n, 'd', 'd', 8, 0)) == NULL)
        goto fail;
    if (active_obj != Py_None &&
        (active = take(&v, active_obj, "active", n, '?', 'B', 1, 0)) == NULL)
        goto fail;
    if (sidestep_obj != Py_None &&
        (sidestep = take(&v, sidestep_obj, "sidestep", n, '?', 'B', 1, 0)) == NULL)
        goto fail;
    if ((out = take(&v, out_obj, "out", 2 * n, 'd', 'd', 8, 1)) == NULL) goto fail;
    for (int k = 0; k < v.count; k++) {
        if (&v.views[k] != out && views_overlap(&v.views[k], out)) {
            PyErr_SetString(PyExc_ValueError, "out must not share memory with the input");
            goto fail;
        }
    }

    const Py_ssize_t keep = max_neighbours < n - 1 ? max_neighbours : (n > 0 ? n - 1 : 0);
    Py_buffer *seen = NULL;
    if (seen_obj != Py_None &&
        (seen = take(&v, seen_obj, "seen", n * keep, 'q', 'l', 8, 1)) == NULL)
        goto fail;
    for (int k = 0; seen != NULL && k < v.count; k++) {
        if (&v.views[k] != seen && views_overlap(&v.views[k], seen)) {
            PyErr_SetString(PyExc_ValueError, "seen must not share memory with the input");
            goto fail;
        }
    }
    Step step = {pos->buf,
                 vel->buf,
                 pref->buf,
                 radii->buf,
                 speeds->buf,
                 priority ? priority->buf : NULL,
                 active ? active->buf : NULL,
                 sidestep ? sidestep->buf : NULL,
                 n,
                 keep,
                 1.0 / time_horizon,
                 1.0 / dt,
                 out->buf,
                 seen ? seen->buf : NULL};
    Grid grid;
    int built, solved = 0;
    Py_BEGIN_ALLOW_THREADS
    built = grid_build(&grid, step.pos, n, keep > 0 ? range : 0.0);
    if (built == 1) {
        Share share = {.task = avoid_share, .grid = &grid, .context = &step, .keep = keep};
        solved = run_shares(&share, n);
        grid_free(&grid);
    }
    Py_END_ALLOW_THREADS
    if (built == 1 && !solved) built = 0;
    if (built != 1) {
        grid_build_failed(built);
        goto fail;
    }
    release(&v);
    Py_RETURN_NONE;
fail:
    release(&v);
    return NULL;
}

PyDoc_STRVAR(neighbours_doc,
             "neighbours(positions, neighbour_dist, max_neighbours, out) -> None\n\n"
             "Fill `out` (n x max_neighbours int64) with each agent's nearest neighbours, -1\n"
             "padded; max_neighbours at most n - 1. See avoidance.find_neighbours.");

static PyObject *avoidance_neighbours(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *pos_obj, *out_obj;
    double range;
    Py_ssize_t keep, n;
    if (!PyArg_ParseTuple(args, "OdnO:neighbours", &pos_obj, &range, &keep, &out_obj))
        return NULL;
    Views v = {.count = 0};
    if (!parse_positions(&v, pos_obj, &n)) goto fail;
    if (!(isfinite(range) && range >= 0.0 && keep >= 0 && keep <= (n > 0 ? n - 1 : 0))) {
        PyErr_SetString(PyExc_ValueError,
                        "neighbour_dist must be finite and >= 0, max_neighbours 0 to n - 1");
        goto fail;
    }
    Py_buffer *out = take(&v, out_obj, "out", n * keep, 'q', 'l', 8, 1);
    if (out == NULL) goto fail;
    if (views_overlap(&v.views[0], out)) {
        PyErr_SetString(PyExc_ValueError, "out must not share memory with positions");
        goto fail;
    }
    Grid grid;
    int built, found = 0;
    int64_t *rows = out->buf;
    Py_BEGIN_ALLOW_THREADS
    built = grid_build(&grid, v.views[0].buf, n, keep > 0 ? range : 0.0);
    if (built == 1) {
        Share share = {.task = neighbours_share, .grid = &grid, .rows = rows, .keep = keep};
        found = run_shares(&share, n);
        grid_free(&grid);
    }
    Py_END_ALLOW_THREADS
    if (built == 1 && !found) built = 0;
    if (built != 1) {
        grid_build_failed(built);
        goto fail;
    }
    release(&v);
    Py_RETURN_NONE;
fail:
    release(&v);
    return NULL;
}

static PyMethodDef avoidance_methods[] = {
    {"avoid", avoidance_avoid, METH_VARARGS, avoid_doc},
    {"neighbours", avoidance_neighbours, METH_VARARGS, neighbours_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef avoidance_module = {
    PyModuleDef_HEAD_INIT, "_avoidance", "Reciprocal collision avoidance (see avoidance.py).", -1,
    avoidance_methods,     NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__avoidance(void) { return PyModule_Create(&avoidance_module); }
