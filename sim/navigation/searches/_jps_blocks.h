/* The bit-packed copies of a grid that _jps.c's block scans read, built once per array and kept.
 *
 * "Improving Jump Point Search" (Harabor & Grastien, ICAPS 2014) scans 32 or 64 cells per
 * machine word of a bit-packed map: a row from a row-major copy, a column from a transposed
 * one (there a column is a row). Packing a 512 x 512 map takes about half a millisecond, more
 * than most queries, so the copies are kept between calls in a small cache keyed by the
 * array's buffer address and shape, as the landmark fields are kept (landmarks.py).
 *
 * An array edited in place must never be searched from stale bits, and numpy keeps no version
 * of an array's contents. So every call compares the array with the bytes its copies were made
 * from (memcmp: about 2 us for 512 x 512 here, against a query of 10 to 1000 us; a hash would
 * read as many bytes), and when they differ repairs the bits of the cells that changed (a
 * pass over the array in 8-byte words, then a few bit writes per changed cell). The address is
 * only a hint of which entry to compare with: a new array at a freed one's address is repaired
 * like an edit. Entries are taken and given back under the GIL; one that a search without the
 * GIL is reading is never repaired or freed (a second search of a changed array gets a private
 * copy instead).
 *
 * Layout: a grid of `count` lines of `length` cells keeps `count + 2` lines of `words` 64-bit
 * words, line -1 first, all 0 (blocked) but the walkable cells; cell i of a line is bit 64 + i,
 * so cells -1 and `length` of every line, and lines -1 and `count`, are blocked: the scans and
 * the diagonal walk stop at the grid's edge as at a wall, with no bounds checks. `words` leaves
 * one spare word after cell `length`, so a 64-bit window starting at any cell from -64 to
 * `length` can be read (bits_at).
 */
#ifndef SIM_JPS_BLOCKS_H
#define SIM_JPS_BLOCKS_H

#include "_search_common.h"

enum { PACKED_MAX = 4 }; /* arrays kept at once; the least recently used goes first */

typedef struct {
    const void *key; /* the array's buffer address: a hint only (see above) */
    long height, width;
    uint8_t *snapshot;    /* the bytes the bits hold, height * width of 0 or 1 */
    uint64_t *rows;       /* row-major: height + 2 lines of row_words */
    uint64_t *cols;       /* transposed: width + 2 lines of col_words */
    long row_words, col_words;
    int users;            /* searches reading it now */
    int cached;           /* in packed_cache, else freed when given back */
    uint64_t used;        /* packed_clock when last taken */
} Packed;

static Packed *packed_cache[PACKED_MAX];
static uint64_t packed_clock = 0;

static inline long words_for(long length) { return ((64 + length) >> 6) + 2; }

/* The 64 bits of `line` from bit `p` on (bit 0 of the result is bit p). */
static HOT_INLINE uint64_t bits_at(const uint64_t *line, long p) {
    const long w = p >> 6;
    const unsigned s = (unsigned)(p & 63);
    /* Shifted in two steps so that s == 0 shifts by 64 without undefined behaviour. */
    return (line[w] >> s) | ((line[w + 1] << 1) << (63 - s));
}

/* Line `line` (-1 to count) of lines of `words` words. */
static HOT_INLINE const uint64_t *line_of(const uint64_t *lines, long words, long line) {
    return lines + (line + 1) * words;
}

static HOT_INLINE int packed_open(const Packed *p, long row, long col) {
    const long bit = 64 + col;
    return (int)((line_of(p->rows, p->row_words, row)[bit >> 6] >> (bit & 63)) & 1);
}

/* Write cell (row, col)'s bit in both copies. */
static inline void packed_set(Packed *p, long row, long col, int open) {
    uint64_t *row_word = p->rows + (row + 1) * p->row_words + ((64 + col) >> 6);
    uint64_t *col_word = p->cols + (col + 1) * p->col_words + ((64 + row) >> 6);
    const uint64_t row_bit = 1ULL << ((64 + col) & 63), col_bit = 1ULL << ((64 + row) & 63);
    if (open) {
        *row_word |= row_bit;
        *col_word |= col_bit;
    } else {
        *row_word &= ~row_bit;
        *col_word &= ~col_bit;
    }
}

static void packed_free(Packed *p) {
    if (p == NULL) return;
    PyMem_RawFree(p->snapshot);
    PyMem_RawFree(p->rows);
    PyMem_RawFree(p->cols);
    PyMem_RawFree(p);
}

/* A new copy of `cells` (height x width bytes of 0 or 1), not in the cache; NULL when out of
 * memory. */
static Packed *packed_build(const uint8_t *cells, long height, long width) {
    Packed *p = PyMem_RawCalloc(1, sizeof(Packed));
    if (p == NULL) return NULL;
    const size_t size = (size_t)height * (size_t)width;
    p->key = cells;
    p->height = height;
    p->width = width;
    p->row_words = words_for(width);
    p->col_words = words_for(height);
    p->snapshot = PyMem_RawMalloc(size);
    p->rows = PyMem_RawCalloc((size_t)(height + 2) * (size_t)p->row_words, sizeof(uint64_t));
    p->cols = PyMem_RawCalloc((size_t)(width + 2) * (size_t)p->col_words, sizeof(uint64_t));
    if (p->snapshot == NULL || p->rows == NULL || p->cols == NULL) {
        packed_free(p);
        return NULL;
    }
    memcpy(p->snapshot, cells, size);
    for (long row = 0; row < height; row++) {
        const uint8_t *line = cells + row * width;
        for (long col = 0; col < width; col++)
            if (line[col]) packed_set(p, row, col, 1);
    }
    return p;
}

/* Bring `p` up to `cells` (same shape), rewriting the bits of the cells that differ. */
static void packed_repair(Packed *p, const uint8_t *cells) {
    const size_t size = (size_t)p->height * (size_t)p->width;
    size_t at = 0;
    for (; at + 8 <= size; at += 8) {
        uint64_t now, was;
        memcpy(&now, cells + at, 8);
        memcpy(&was, p->snapshot + at, 8);
        if (now == was) continue;
        for (size_t i = at; i < at + 8; i++)
            if (cells[i] != p->snapshot[i])
                packed_set(p, (long)(i / (size_t)p->width), (long)(i % (size_t)p->width), cells[i]);
    }
    for (; at < size; at++)
        if (cells[at] != p->snapshot[at])
            packed_set(p, (long)(at / (size_t)p->width), (long)(at % (size_t)p->width), cells[at]);
    memcpy(p->snapshot, cells, size);
}

/* The packed copies of `cells` (height x width bytes of 0 or 1) for one search, up to date;
 * NULL when out of memory. Under the GIL; give it back with packed_give_back. */
static Packed *packed_take(const uint8_t *cells, long height, long width) {
    packed_clock++;
    for (int i = 0; i < PACKED_MAX; i++) {
        Packed *p = packed_cache[i];
        if (p == NULL || p->key != cells || p->height != height || p->width != width) continue;
        const int same = memcmp(p->snapshot, cells, (size_t)height * (size_t)width) == 0;
        if (!same && p->users > 0) return packed_build(cells, height, width); /* see above */
        if (!same) packed_repair(p, cells);
        p->users++;
        p->used = packed_clock;
        return p;
    }
    /* A new array: a free place, else the least recently used entry no search reads. */
    int slot = -1;
    for (int i = 0; i < PACKED_MAX && (slot < 0 || packed_cache[slot] != NULL); i++) {
        const Packed *p = packed_cache[i];
        if (p == NULL || (p->users == 0 && (slot < 0 || p->used < packed_cache[slot]->used)))
            slot = i;
    }
    Packed *p = packed_build(cells, height, width);
    if (p == NULL || slot < 0) return p;
    packed_free(packed_cache[slot]);
    packed_cache[slot] = p;
    p->cached = 1;
    p->users = 1;
    p->used = packed_clock;
    return p;
}

/* End a search's use of `p` (under the GIL). */
static void packed_give_back(Packed *p) {
    if (p->cached) {
        p->users--;
    } else {
        packed_free(p);
    }
}

static void packed_forget_all(void) {
    for (int i = 0; i < PACKED_MAX; i++) {
        packed_free(packed_cache[i]);
        packed_cache[i] = NULL;
    }
}

#endif /* SIM_JPS_BLOCKS_H */
