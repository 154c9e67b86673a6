/* The bit-packed copies of a grid that _jps.c's block scans read, built once per array and kept.
 *
 * "Improving Jump Point Search" (Harabor & Grastien, ICAPS 2014) scans 32 or 64 cells per
 * machine word of a bit-packed map: a row from a row-major copy, a column from a transposed
 * one (there a column is a row). Packing a 512 x 512 map takes about half a millisecond, more
 * than most queries, so the copies are kept between calls in a small cache keyed by the
 * array's buffer address and shape, as the landmark fields are kept (landmarks.py).
 *
 * An array edited in place must never be searched from stale bits, and numpy keeps no version
 * of an array's contents. Comparing the whole array with the bytes the copies were made from
 * costs 2 to 4 us for 512 x 512 here, more than the rest of a call, while a short query reads a
 * few lines. So a search checks what it reads, when it first reads it: a chunk of rows of the
 * array against the same rows of the snapshot (one memcmp of about CHUNK_BYTES: 8 rows of a
 * 512-wide map, all 64 rows of a word of a 49-wide one; a row at a time cost more in calls
 * than in bytes) before it reads any of those rows of the row-major copy, and every row a word
 * of the transposed copy covers (64 rows) before it reads that word. Rows that differ have
 * their bits rewritten in both copies and their snapshot brought up to date, then the search
 * goes on: nothing it has read yet held those rows' bits (every read is preceded by the check
 * of every row it covers), so the answer is the array's as it is. The chunks and words a
 * search has checked carry its stamp (a counter bumped for every search, or once for a
 * batch): no reset between searches. A search from start == goal checks nothing; a long one
 * checks at most every row once (the old cost). Rows are checked without the GIL: an array
 * edited by another thread while a search of it runs gets an answer from a mix of the two, as
 * any reader of an array being written would; the copies stay true to their snapshot, chunk by
 * chunk.
 *
 * The address is only a hint of which entry to check against: a new array at a freed one's
 * address is repaired row by row like an edit. Entries are taken and given back under the GIL;
 * one that a search without the GIL is reading is never repaired or freed, and its stamps are
 * that search's: a second search of the same array meanwhile gets a private copy.
 *
 * Frozen arrays: an array no one can write (sim/navigation/frozen.py: read-only, its `.base`
 * chain ending in an immutable bytes object whose memory holds its cells) needs none of this.
 * Its entry holds a reference to that bytes object, so the memory at its key can neither
 * change nor be freed and reused while the entry lives: any array of that address and shape
 * is a view of those very bytes. Such an entry is stamped once, when built, and its stamp
 * never moves, so every check passes at its first comparison (packed_take), and searches may
 * share it without the GIL, since nothing ever rewrites it.
 *
 * Layout: a grid of `count` lines of `length` cells keeps `count + 2` lines of `words` 64-bit
 * words, line -1 first, all 0 (blocked) but the walkable cells; cell i of a line is bit 64 + i,
 * so cells -1 and `length` of every line, and lines -1 and `count`, are blocked: the scans and
 * the diagonal walk stop at the grid's edge as at a wall, with no bounds checks. `words` leaves
 * one spare word after cell `length`, so a 64-bit window starting at any cell from -64 to
 * `length` can be read (bits_at).
 *
 * Stop maps: beside each copy, two more of the same layout hold, for every line and each way
 * along it, the cells that stop a straight scan there: blocked, or open with a forced
 * neighbour (a side cell open whose cell behind is blocked), bit for bit what a scan computed
 * from the three lines' words before (see _jps.c, scan_line). A scan then reads one word of
 * them a step (and the line's own word once, at the stop), where it read three and combined
 * them. They are a function of the bits, kept so: built with them, and recomputed for the
 * lines beside any cells a check rewrites (stops_of_cells).
 */
#ifndef SIM_JPS_BLOCKS_H
#define SIM_JPS_BLOCKS_H

#include "_search_common.h"

enum { PACKED_MAX = 4 }; /* arrays kept at once; the least recently used goes first */
enum { CHUNK_BYTES = 4096 };

/* The checks' rare half (a chunk or word not yet checked by this search) is kept out of the
 * scans' loops, whose code must stay small (see _jps.c). */
#if defined(__GNUC__) || defined(__clang__)
#define COLD __attribute__((noinline, cold))
#else
#define COLD
#endif /* bytes of the array checked at a time, at least one row */

typedef struct {
    const void *key; /* the array's buffer address: a hint only (see above) */
    long height, width;
    const uint8_t *cells; /* the array searched now: the one taken with this entry */
    uint8_t *snapshot;    /* the bytes the bits hold, height * width of 0 or 1 */
    uint64_t *rows;       /* row-major: height + 2 lines of row_words */
    uint64_t *cols;       /* transposed: width + 2 lines of col_words */
    uint64_t *east, *west; /* the rows' stop maps (see above), laid out as `rows` */
    uint64_t *south, *north; /* the columns' stop maps, laid out as `cols` */
    long row_words, col_words;
    uint32_t stamp;       /* the search (or batch) taking it now */
    int shift;            /* rows are checked 1 << shift at a time (a chunk; see above) */
    long chunks;          /* chunk_stamp's length */
    uint32_t *chunk_stamp; /* row r (-1 to height) checked by that stamp: chunk_of(r) */
    uint32_t *word_stamp; /* col_words: the rows word w of a column covers, checked, at [w] */
    int users;            /* searches reading it now */
    int cached;           /* in packed_cache, else freed when given back */
    PyObject *owner;      /* frozen (see above): the bytes object holding the cells, else NULL */
    uint64_t used;        /* packed_clock when last taken */
} Packed;

static Packed *packed_cache[PACKED_MAX];
static uint64_t packed_clock = 0;
/* Chunks of rows compared with their snapshot since the module was loaded (tests read it:
 * `_jps.checked_chunks`); counted in the checks' cold path, so free. */
static uint64_t packed_chunks_checked = 0;

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

/* Words `first` to `last` of line `line` (0 to count - 1) of the stop maps `up` (scans going
 * up the line) and `down`, from `lines` (lines of `words` words): a word's stops are its
 * blocked cells and, from each side line, the open cells whose cell behind (the next word's or
 * the word before's edge bit across a word's edge; beyond the line, blocked) is blocked. */
static void stops_of_line(const uint64_t *lines, long words, long line, long first, long last,
                          uint64_t *up, uint64_t *down) {
    const uint64_t *mid = line_of(lines, words, line);
    const uint64_t *a = mid - words, *b = mid + words;
    uint64_t *u = up + (line + 1) * words, *d = down + (line + 1) * words;
    for (long w = first; w <= last; w++) {
        const uint64_t a_before = w > 0 ? a[w - 1] : 0, b_before = w > 0 ? b[w - 1] : 0;
        const uint64_t a_after = w + 1 < words ? a[w + 1] : 0;
        const uint64_t b_after = w + 1 < words ? b[w + 1] : 0;
        u[w] = ~mid[w] | (a[w] & ~((a[w] << 1) | (a_before >> 63))) |
               (b[w] & ~((b[w] << 1) | (b_before >> 63)));
        d[w] = ~mid[w] | (a[w] & ~((a[w] >> 1) | (a_after << 63))) |
               (b[w] & ~((b[w] >> 1) | (b_after << 63)));
    }
}

/* The stop maps after cells of rows `first` to `last` and columns `left` to `right` (inside
 * the grid) changed: the lines beside the rows, and the words of the lines beside the columns
 * around the rows (a stop depends on its word's edge neighbours too). */
static void stops_of_cells(Packed *p, long first, long last, long left, long right) {
    const long top = first - 1 > 0 ? first - 1 : 0;
    const long bottom = last + 1 < p->height - 1 ? last + 1 : p->height - 1;
    for (long row = top; row <= bottom; row++)
        stops_of_line(p->rows, p->row_words, row, 0, p->row_words - 1, p->east, p->west);
    const long w0 = ((64 + first) >> 6) - 1 > 0 ? ((64 + first) >> 6) - 1 : 0;
    const long w1 = ((64 + last) >> 6) + 1 < p->col_words - 1 ? ((64 + last) >> 6) + 1
                                                               : p->col_words - 1;
    const long from = left - 1 > 0 ? left - 1 : 0;
    const long to = right + 1 < p->width - 1 ? right + 1 : p->width - 1;
    for (long col = from; col <= to; col++)
        stops_of_line(p->cols, p->col_words, col, w0, w1, p->south, p->north);
}

static void packed_free(Packed *p) {
    if (p == NULL) return;
    Py_XDECREF(p->owner); /* under the GIL, as every caller is */
    PyMem_RawFree(p->snapshot);
    PyMem_RawFree(p->rows);
    PyMem_RawFree(p->cols);
    PyMem_RawFree(p->east);
    PyMem_RawFree(p->west);
    PyMem_RawFree(p->south);
    PyMem_RawFree(p->north);
    PyMem_RawFree(p->chunk_stamp);
    PyMem_RawFree(p->word_stamp);
    PyMem_RawFree(p);
}

/* Every row and word checked by `p->stamp`: the copies were just made from the array. */
static void packed_stamp_all(Packed *p) {
    for (long i = 0; i < p->chunks; i++) p->chunk_stamp[i] = p->stamp;
    for (long i = 0; i < p->col_words; i++) p->word_stamp[i] = p->stamp;
}

/* A new copy of `cells` (height x width bytes of 0 or 1), not in the cache, every row checked
 * for the search taking it; NULL when out of memory. */
static Packed *packed_build(const uint8_t *cells, long height, long width) {
    Packed *p = PyMem_RawCalloc(1, sizeof(Packed));
    if (p == NULL) return NULL;
    const size_t size = (size_t)height * (size_t)width;
    p->key = cells;
    p->cells = cells;
    p->height = height;
    p->width = width;
    p->row_words = words_for(width);
    p->col_words = words_for(height);
    p->snapshot = PyMem_RawMalloc(size);
    p->rows = PyMem_RawCalloc((size_t)(height + 2) * (size_t)p->row_words, sizeof(uint64_t));
    p->cols = PyMem_RawCalloc((size_t)(width + 2) * (size_t)p->col_words, sizeof(uint64_t));
    const size_t row_map = (size_t)(height + 2) * (size_t)p->row_words * sizeof(uint64_t);
    const size_t col_map = (size_t)(width + 2) * (size_t)p->col_words * sizeof(uint64_t);
    p->east = PyMem_RawCalloc(1, row_map);
    p->west = PyMem_RawCalloc(1, row_map);
    p->south = PyMem_RawCalloc(1, col_map);
    p->north = PyMem_RawCalloc(1, col_map);
    while (p->shift < 6 && (width << p->shift) < CHUNK_BYTES) p->shift++;
    p->chunks = ((height + (1L << p->shift)) >> p->shift) + 1;
    p->chunk_stamp = PyMem_RawMalloc((size_t)p->chunks * sizeof(uint32_t));
    p->word_stamp = PyMem_RawMalloc((size_t)p->col_words * sizeof(uint32_t));
    if (p->snapshot == NULL || p->rows == NULL || p->cols == NULL || p->chunk_stamp == NULL ||
        p->word_stamp == NULL || p->east == NULL || p->west == NULL || p->south == NULL ||
        p->north == NULL) {
        packed_free(p);
        return NULL;
    }
    memcpy(p->snapshot, cells, size);
    for (long row = 0; row < height; row++) {
        const uint8_t *line = cells + row * width;
        for (long col = 0; col < width; col++)
            if (line[col]) packed_set(p, row, col, 1);
    }
    for (long row = 0; row < height; row++)
        stops_of_line(p->rows, p->row_words, row, 0, p->row_words - 1, p->east, p->west);
    for (long col = 0; col < width; col++)
        stops_of_line(p->cols, p->col_words, col, 0, p->col_words - 1, p->south, p->north);
    p->stamp = 1;
    packed_stamp_all(p);
    return p;
}

/* The chunk of row `row` (-1 to height): 0 for row -1, then k for rows (k - 1) << shift to
 * (k << shift) - 1. */
static HOT_INLINE long chunk_of(const Packed *p, long row) {
    return (row + (1L << p->shift)) >> p->shift;
}

/* Check chunk `chunk`'s rows of the array against the snapshot for this search, rewriting the
 * bits of the rows that differ in both copies. Only its rows in the grid are compared: the
 * border rows -1 and height are never written. */
static COLD void packed_check_chunk_slow(Packed *p, long chunk) {
    p->chunk_stamp[chunk] = p->stamp;
    if (chunk == 0) return; /* the border row -1 alone: never written */
    const long width = p->width;
    const long first = (chunk - 1) << p->shift;
    const long end = (chunk << p->shift) < p->height ? chunk << p->shift : p->height;
    if (first < 0 || first >= end) return;
    const uint8_t *now = p->cells + first * width;
    uint8_t *was = p->snapshot + first * width;
    const size_t size = (size_t)(end - first) * (size_t)width;
    packed_chunks_checked++;
    if (memcmp(now, was, size) == 0) return;
    long top = end, bottom = first, left = width, right = 0;
    for (size_t i = 0; i < size; i++) {
        if (now[i] == was[i]) continue;
        const long row = first + (long)(i / (size_t)width), col = (long)(i % (size_t)width);
        packed_set(p, row, col, now[i]);
        top = row < top ? row : top;
        bottom = row > bottom ? row : bottom;
        left = col < left ? col : left;
        right = col > right ? col : right;
    }
    memcpy(was, now, size);
    stops_of_cells(p, top, bottom, left, right);
}

/* Before reading row `row` (-1 to height) of the row-major copy. */
static HOT_INLINE void packed_check_row(Packed *p, long row) {
    const long chunk = chunk_of(p, row);
    if (p->chunk_stamp[chunk] != p->stamp) packed_check_chunk_slow(p, chunk);
}

/* Check the rows word `w` of every column covers (64 w - 64 to 64 w - 1, those in the grid). */
static COLD void packed_check_word_slow(Packed *p, long w) {
    p->word_stamp[w] = p->stamp;
    const long first = w * 64 - 64 > 0 ? w * 64 - 64 : 0;
    const long end = w * 64 < p->height ? w * 64 : p->height;
    for (long row = first; row < end; row += 1L << p->shift) packed_check_row(p, row);
}

/* Before reading word `w` (0 to col_words - 1) of any line of the transposed copy. */
static HOT_INLINE void packed_check_word(Packed *p, long w) {
    if (p->word_stamp[w] != p->stamp) packed_check_word_slow(p, w);
}

/* The bytes object `array`'s `height` x `width` cells at `cells` lie in, when `array` is
 * frozen (see above: its buffer `readonly`, `.base` after `.base` down to that exact bytes
 * object), as a new reference; else NULL, with no exception set. Under the GIL. A writeable
 * array costs nothing here; a read-only one that is not frozen, a few attribute reads. */
static PyObject *frozen_owner(PyObject *array, int readonly, const uint8_t *cells, long height,
                              long width) {
    if (!readonly) return NULL;
    PyObject *obj = array;
    Py_INCREF(obj);
    /* numpy collapses a view's chain to the array owning the memory: a frozen one is 2 deep. */
    for (int depth = 0; depth < 8 && obj != Py_None; depth++) {
        if (PyBytes_CheckExact(obj)) {
            const uint8_t *first = (const uint8_t *)PyBytes_AS_STRING(obj);
            const size_t size = (size_t)height * (size_t)width;
            if (cells >= first && size <= (size_t)PyBytes_GET_SIZE(obj) &&
                (size_t)(cells - first) <= (size_t)PyBytes_GET_SIZE(obj) - size)
                return obj;
            break;
        }
        PyObject *base = PyObject_GetAttrString(obj, "base");
        Py_DECREF(obj);
        if (base == NULL) {
            PyErr_Clear();
            return NULL;
        }
        obj = base;
    }
    Py_DECREF(obj);
    return NULL;
}

/* The packed copies of `cells` (height x width bytes of 0 or 1, the buffer of `array`,
 * `readonly` as its view says) for one search or batch, to be checked row by row as it reads them (above) unless frozen; NULL
 * when out of memory. Under the GIL; give it back with packed_give_back. */
static Packed *packed_take(PyObject *array, int readonly, const uint8_t *cells, long height,
                           long width) {
    packed_clock++;
    for (int i = 0; i < PACKED_MAX; i++) {
        Packed *p = packed_cache[i];
        if (p == NULL || p->key != cells || p->height != height || p->width != width) continue;
        if (p->owner != NULL) { /* frozen: never rewritten, so shared, its stamp left alone */
            p->users++;
            p->used = packed_clock;
            return p;
        }
        if (p->users > 0) return packed_build(cells, height, width); /* see above */
        PyObject *owner = frozen_owner(array, readonly, cells, height, width);
        if (owner != NULL) {
            /* A frozen array where an array that was not sat: its copies built afresh. */
            Packed *fresh = packed_build(cells, height, width);
            if (fresh == NULL) {
                Py_DECREF(owner);
                return NULL;
            }
            fresh->owner = owner;
            fresh->cached = 1;
            fresh->users = 1;
            fresh->used = packed_clock;
            packed_free(p);
            packed_cache[i] = fresh;
            return fresh;
        }
        p->cells = cells;
        if (++p->stamp == 0) {
            /* Wrapped: no row may look checked by a search 2**32 searches ago. */
            p->stamp = 1;
            for (long c = 0; c < p->chunks; c++) p->chunk_stamp[c] = 0;
            for (long w = 0; w < p->col_words; w++) p->word_stamp[w] = 0;
        }
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
    if (p == NULL) return NULL;
    p->owner = frozen_owner(array, readonly, cells, height, width);
    if (slot < 0) return p;
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
