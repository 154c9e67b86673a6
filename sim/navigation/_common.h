/* What every C extension of the project shares (searches/, regions/ and sim/crowd/): the Python
 * and C headers, arithmetic that matches Python's to the bit, and the checks of the buffers
 * Python hands in. Everything here is static inline: each extension gets its own copy, and a
 * helper a file does not use raises no warning.
 *
 * Bit-identical sums need the compiler not to fuse a * b + c into one FMA instruction (which
 * rounds once instead of twice); the pragmas below forbid that on GCC and Clang, in every file
 * that includes this one.
 */
#ifndef SIM_COMMON_H
#define SIM_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* Whether a buffer holds native items of struct format `code` (a buffer without a format is
 * bytes, 'B'). */
static inline int format_is(const Py_buffer *view, char code) {
    const char *f = view->format;
    if (f == NULL) return code == 'B';
    if (f[0] == '@' || f[0] == '=' || f[0] == '<' || f[0] == '|') {
        /* '<' is native only on little-endian machines. */
        if (f[0] == '<' && PY_BIG_ENDIAN) return 0;
        f++;
    }
    return f[0] == code && f[1] == '\0';
}

/* Whether a buffer holds 8-byte integers: numpy's int64 is 'l' where a long has 8 bytes, 'q'
 * elsewhere. */
static inline int is_int64(const Py_buffer *view) {
    return view->itemsize == 8 && (format_is(view, 'q') || format_is(view, 'l'));
}

/* Whether two buffers share memory; an empty one shares none. An output written while its
 * inputs are read must share none with them. */
static inline int views_overlap(const Py_buffer *a, const Py_buffer *b) {
    const char *a0 = a->buf, *b0 = b->buf;
    return a->len > 0 && b->len > 0 && a0 < b0 + b->len && b0 < a0 + a->len;
}

#endif /* SIM_COMMON_H */
