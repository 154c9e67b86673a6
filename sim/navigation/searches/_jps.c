/* Jump point search in C: sim/navigation/searches/jps.py (`JumpPointSearch`), step for step.
 *
 * Both return the same cells, the same cost to the last bit and the same expansion count
 * (tests/unit/test_jps.py checks it). See jps.py for the search itself: the pruning rules of
 * Harabor & Grastien under the Moving AI rule (no corner cutting), diagonal jumps that queue
 * the straight jump points found on the way instead of stopping at the first diagonal cell,
 * the frontier ordered as A*'s, a jump costing k * 1.0 or k * SQRT2 added to g as Python adds
 * it, closed cells never reopened, the path laid out cell by cell and its cost summed step by
 * step from the start.
 *
 * Where the time goes, and what is done about it:
 *   - Straight scans read 64 cells per machine word, as the block-based jump point search of
 *     "Improving Jump Point Search" (Harabor & Grastien, ICAPS 2014) does: rows from a
 *     bit-packed copy of the map, columns from a transposed one, both built once per array and
 *     kept, each row checked against the array when a search first reads it (_jps_blocks.h:
 *     a search pays for the rows it reads, not for the whole array). The cells that stop a scan
 *     (a blocked cell: dead end; a cell with a forced neighbour, a side cell open whose cell
 *     behind is blocked) are kept per line and direction in stop maps beside the copies, made
 *     and repaired with them (_jps_blocks.h), so a scan reads one word of 64 cells a step, ORs
 *     in the goal's bit, and takes the first set bit (__builtin_ctzll, the highest when
 *     scanning west or north). Against combining the three lines' words in every scan, as the
 *     first version did, a search takes 0.76-0.88x the time on the open 512 x 512 maps and
 *     0.90x over the 18 Moving AI maps (geomean; benchmarks/RESULTS.md). The copies' blocked
 *     border stops the scans at the grid's edge. The jump points are those the cell-by-cell
 *     scans of jps.py find, so the search is the same step for step.
 *   - The frontier is a binary heap of _grid_search.h's nodes, without decrease-key (see
 *     "The frontier" below), and a byte per cell says whether the search has seen or closed
 *     it, so that the 16-byte records of the workspace (reused across calls) are read only
 *     for cells this search wrote, and only the bytes it touched are reset after it.
 *   - Measured per expansion, the search costs about the same on a 64x64 and a 1024x1024
 *     random map (about 140 ns here): what is left is work and unpredictable branches (on
 *     random maps, short scans and a jump point every few cells), not memory. Compiling one
 *     copy of the expansion per arrival direction cut the branches callgrind counts by a fifth
 *     but not the time (the code no longer fit the instruction cache), so it was left out;
 *     only the diagonal walk, most of the work on open maps, has a copy per direction.
 *   - A diagonal step is about a hundred instructions, two scans among them, and a long query
 *     on an open map walks some hundreds of steps for a few dozen jump points (AR0011SR: 470
 *     steps, 930 scans, 19 expansions a query). So the walk holds what its steps read in
 *     locals (relax writes through pointers, which made the compiler read the fields of the
 *     problem and of the copies again every step), tests for the goal only on the goal's row
 *     and column, and queues its jump points (a scan in thirty finds one) out of line:
 *     0.90x the time on maze512-32-9, 0.93x AR0011SR, 0.975x over the 18 Moving AI maps.
 *   - Once the goal is queued, a diagonal walk stops at its first cell whose g + h passes the
 *     goal's cost (see walk_diagonal): nothing beyond it could leave the frontier before the
 *     goal. On arena (49 x 49), where most queries end after the start's expansion, a search
 *     took 0.82x the time (benchmarks/RESULTS.md, "The cost of a call").
 * `search_landmarks` runs the same search with the octile heuristic raised by landmark distance
 * fields (landmarks.py: h = max(octile, |d_i(goal) - d_i(n)|)), after checking with memcmp that
 * the array still holds the bytes the fields were built from (else it answers None). A cell's
 * distances are one row of the fields (8 doubles: one cache line), read once per queued cell.
 * The GIL is released during the search (on maps above KEEP_GIL_CELLS cells); the input buffer
 * stays pinned by its Py_buffer view.
 */
#include "_grid_search.h"
#include "_jps_blocks.h"
#include "_plain_call.h"

enum { LANDMARKS_MAX = 32 };

typedef struct {
    Packed *grid; /* the walkable cells, bit-packed, checked as read (_jps_blocks.h) */
    long height, width;
    int32_t start, goal;
    long goal_row, goal_col;
    double h_weight;
    int kind; /* the heuristic */
    /* Landmarks (landmarks.py): `fields` holds `stride` distances a cell, cell-major, and
     * goal_d[i] the distance of the goal from landmark i for the `count` landmarks that reach
     * the goal (their index in a cell's row in which[i]). count 0: the plain heuristic. */
    const double *fields;
    long stride;
    int count;
    int which[LANDMARKS_MAX];
    double goal_d[LANDMARKS_MAX];
    /* Integer landmark fields instead (offline.py): `units` [cell][stride] int32 in `unit`
     * cells, INT32_MAX where a landmark does not reach; goal_units[i] the goal's. */
    const int32_t *units;
    double unit;
    int32_t goal_units[LANDMARKS_MAX];
    /* Past the goal (see walk_diagonal): INFINITY until the goal is queued, then its cost so
     * far plus a margin; it stays INFINITY unless `prune`. Written by the search. */
    double *bound;
    int prune;
} Jps;

/* The bound's margin over the goal's cost: far above the rounding of a sum of steps (a few
 * ulps), far below a step, and times TIE_SCALE above 1, so that every node beyond the bound
 * keys after the goal. */
#define BOUND_MARGIN 1e-6

/* Maps of at most this many cells are searched without letting the GIL go: a whole search
 * there (at most some tens of microseconds, a maze of 128 x 128) costs less than another
 * thread's wait would, and a query of a microsecond or two paid about a tenth of a
 * microsecond to let it go and take it back. */
enum { KEEP_GIL_CELLS = 128 * 128 };

enum { NO_JUMP = -1 };

/* The first stop after cell `at` of a line going up (`step` 1) or down (-1) it: its first
 * blocked cell or cell with a forced neighbour (one always comes: the copies' border is
 * blocked). A row scan east or west on the row-major copy, a column scan south or north on the
 * transposed one. `stops` is the line's stop map for the direction (_jps_blocks.h: its blocked
 * cells and those with a forced neighbour, the side lines' cells behind taken across word
 * edges); the scan reads it a word at a time (bit k of word w is cell 64 * w + k - 64), the
 * first word masked to the cells ahead. A column scan passes `checked`, the copies, so that the
 * rows each word covers are checked before it is read (_jps_blocks.h); a row scan's caller
 * checks its three rows and passes NULL. A stop word's bits for cells ahead of `at` rest on
 * the cells from `at` on: the first word's bit for the cell after `at` takes the side lines'
 * bits at `at` (checked by the caller) and the rest are masked off. */
static HOT_INLINE long first_stop(const uint64_t *stops, long at, long step, Packed *checked) {
    const long p = 64 + at + step; /* the first cell's bit */
    long w = p >> 6;
    if (step > 0) {
        if (checked != NULL) packed_check_word(checked, w);
        uint64_t stop = stops[w] & (~0ULL << (p & 63));
        while (!stop) {
            w++;
            if (checked != NULL) packed_check_word(checked, w);
            stop = stops[w];
        }
        return 64 * w + __builtin_ctzll(stop) - 64;
    }
    if (checked != NULL) packed_check_word(checked, w);
    uint64_t stop = stops[w] & (~0ULL >> (63 - (p & 63)));
    while (!stop) {
        w--;
        if (checked != NULL) packed_check_word(checked, w);
        stop = stops[w];
    }
    return 64 * w + 63 - __builtin_clzll(stop) - 64;
}

/* The first jump point after cell `at` of line `mid` going up (`step` 1) or down (-1) it, or
 * NO_JUMP: the goal (cell `goal` of this line, or -2 when it lies elsewhere) or a cell with a
 * forced neighbour, whichever comes first before a blocked cell. Cell `at` itself must be
 * walkable. The first stop (first_stop) is a jump point where its cell is open; the goal, open
 * too, is the answer where it lies between `at` and that stop (checked apart, so that the
 * scans of every other line carry no goal test). */
static HOT_INLINE long scan_line(const uint64_t *stops, const uint64_t *mid, long at, long step,
                                 long goal, Packed *checked) {
    const long stop = first_stop(stops, at, step, checked);
    if (goal >= 0 && (step > 0 ? goal > at && goal <= stop : goal < at && goal >= stop))
        return goal;
    return (mid[(64 + stop) >> 6] >> ((64 + stop) & 63)) & 1 ? stop : NO_JUMP;
}

/* The column of the first jump point east (`step` 1) or west (-1) of walkable (row, col), or
 * NO_JUMP. The caller has checked rows row - 1 to row + 1 (see expand). */
static HOT_INLINE long scan_row(const Jps *j, long row, long col, long step) {
    const Packed *grid = j->grid;
    const long words = grid->row_words;
    return scan_line(line_of(step > 0 ? grid->east : grid->west, words, row),
                     line_of(grid->rows, words, row), col, step,
                     row == j->goal_row ? j->goal_col : -2, NULL);
}

/* The row of the first jump point south (`step` 1) or north (-1) of walkable (row, col), or
 * NO_JUMP. The caller has checked row `row`; the scan checks every word it reads from its
 * first on. */
static HOT_INLINE long scan_column(const Jps *j, long row, long col, long step) {
    Packed *grid = j->grid;
    const long words = grid->col_words;
    return scan_line(line_of(step > 0 ? grid->south : grid->north, words, col),
                     line_of(grid->cols, words, col), row, step,
                     col == j->goal_col ? j->goal_row : -2, grid);
}

/* ---- The frontier: a heap with stale entries, and a "hand" ----
 *
 * A* (_kernel.c) keeps one heap entry per cell and moves it up when the cell's cost drops
 * (decrease-key), which keeps every node's heap index in its cell's record: each level a pop
 * or push moves a node through writes one more record. Here the heap leaves the records alone,
 * as Python's heapq does: a cell whose cost drops is pushed again and its older entry is
 * skipped when it comes out (it sorts after the newer one, so its cell is closed by then). Both
 * pop the same cells in the same order. Jump point search seldom lowers a queued cost, so few
 * entries go stale.
 *
 * The hand holds one node outside the heap, as Frontier's does: the node a search pushed last
 * often comes out next, and then never enters the heap.
 *
 * What a search knows of a cell is one byte per cell in ws->closed (all UNSEEN between calls):
 * the byte map of a 512x512 grid fits in a core's L2 cache, where the 16-byte records do not.
 * A record is read only when its byte says this search has written it, so the records need no
 * reset after a search, and reaching a new cell writes its record without reading it. */
enum { UNSEEN = 0, QUEUED = 1, CLOSED = 2 };

/* A binary heap, not _grid_search.h's 4-ary one: the frontier of jump point search stays
 * small (about 130 nodes on random512-40-0, where A*'s holds thousands), and there a pop that
 * takes the hole down to a leaf with one comparison a level, then sifts the last node up from
 * it, runs fewer instructions and fewer mispredicted branches (measured with callgrind: 5 %
 * fewer instructions, 14 % fewer mispredictions over a whole search). */
static HOT_INLINE void bheap_push(Node *heap, Py_ssize_t i, Node node) {
    while (i > 0) {
        const Py_ssize_t parent = (i - 1) >> 1;
        if (!node_less(&node, &heap[parent])) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = node;
}

static HOT_INLINE Node bheap_pop(Node *heap, Py_ssize_t *count) {
    const Node top = heap[0];
    const Node last = heap[--*count];
    const Py_ssize_t n = *count;
    if (n == 0) return top;
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child + 1 < n) {
            child += node_less(&heap[child + 1], &heap[child]);
        } else if (child >= n) {
            break;
        }
        heap[i] = heap[child];
        i = child;
    }
    bheap_push(heap, i, last);
    return top;
}

static HOT_INLINE void open_push(Frontier *f, Node node) {
    if (!f->holding) {
        f->hand = node;
        f->holding = 1;
        return;
    }
    if (node_less(&node, &f->hand)) {
        const Node held = f->hand;
        f->hand = node;
        node = held;
    }
    bheap_push(f->heap, f->count++, node);
}

/* Take the least node whose cell is not closed, and close it; -1 when none is left. */
static HOT_INLINE int32_t open_pop(Frontier *f) {
    for (;;) {
        Node top;
        if (f->holding && (f->count == 0 || node_less(&f->hand, &f->heap[0]))) {
            f->holding = 0;
            top = f->hand;
        } else if (f->count > 0) {
            top = bheap_pop(f->heap, &f->count);
        } else {
            return -1;
        }
        uint8_t *mark = &f->ws->closed[top.cell];
        if (*mark != CLOSED) {
            *mark = CLOSED;
            return top.cell;
        }
    }
}

/* floor(x) for x >= 0, without the call or the rounding-mode dance of floor() where SSE4.1 is
 * not assumed: below 2**53 truncation is the floor, above it every double is an integer. */
static HOT_INLINE double floor_of(double x) {
    return x < 9007199254740992.0 ? (double)(int64_t)x : x;
}

/* A jump point's arrival direction (d_row, d_col), kept in its record's `slot` (the byte map
 * does the slot's work here): it prunes the jump point's successors. */
static HOT_INLINE int32_t direction_code(long d_row, long d_col) {
    return (int32_t)((d_row + 1) * 4 + (d_col + 1));
}

enum { START_CODE = 5 }; /* direction_code(0, 0): the start, reached from nowhere */

/* The heuristic of `cell` at (row, col): the plain one, or with landmarks the largest of it and
 * |d_i(goal) - d_i(cell)| over the landmarks that reach both (JumpPointSearch._h_of, the same
 * operations in the same order). */
static HOT_INLINE double h_of(const Jps *j, long cell, long row, long col, int kind) {
    double h = j->h_weight * heuristic_of(kind, labs(col - j->goal_col), labs(row - j->goal_row));
    if (j->count && j->units != NULL) {
        const int32_t *here = j->units + cell * j->stride;
        for (int i = 0; i < j->count; i++) {
            const int32_t v = here[j->which[i]];
            if (v == INT32_MAX) continue;
            const double d = (double)llabs((long long)j->goal_units[i] - (long long)v) * j->unit;
            if (d > h) h = d;
        }
    } else if (j->count) {
        const double *here = j->fields + cell * j->stride;
        for (int i = 0; i < j->count; i++) {
            const double d = fabs(j->goal_d[i] - here[j->which[i]]);
            if (d < INFINITY && d > h) h = d;
        }
    }
    return h;
}

/* Queue jump point `cell` at (row, col), reached from `current` at cost `new_cost` by a last
 * step in direction `code`, as JumpPointSearch.advance: skip it when closed, keep only a lower
 * cost. Returns 0 when out of memory. */
static HOT_INLINE int relax(Frontier *f, const Jps *j, int32_t current, long cell, long row,
                            long col, double new_cost, int32_t code, int kind) {
    uint8_t *mark = &f->ws->closed[cell];
    if (*mark == CLOSED) return 1;
    CellState *next = &f->state[cell];
    if (*mark == QUEUED) {
        if (!(new_cost < next->cost_so_far)) return 1;
    } else {
        f->ws->touched[f->touched_count++] = (int32_t)cell;
        *mark = QUEUED;
    }
    if (!frontier_reserve(f, 1)) return 0;
    next->cost_so_far = new_cost;
    next->came_from = current;
    next->slot = code;
    if (cell == j->goal && j->prune) *j->bound = new_cost + BOUND_MARGIN * (1.0 + new_cost);
    const double h = h_of(j, cell, row, col, kind);
    const double priority = floor_of((new_cost + h) * TIE_SCALE);
    open_push(f, (Node){bits_of(priority), bits_of(h), (int32_t)cell});
    return 1;
}

/* relax, kept out of the diagonal walk's loop: most of a walk's scans find nothing, and
 * the loop's registers then hold the walk rather than the frontier's work. */
static __attribute__((noinline)) int relax_far(Frontier *f, const Jps *j, int32_t current,
                                               long cell, long row, long col, double new_cost,
                                               int32_t code, int kind) {
    return relax(f, j, current, cell, row, col, new_cost, code, kind);
}

/* Scan straight from `current` at (row, col), cost so far `g`, and queue the jump point found
 * (JumpPointSearch._successors). Returns 0 when out of memory. */
static HOT_INLINE int go_straight(Frontier *f, const Jps *j, int32_t current, double g, long row,
                                  long col, long d_row, long d_col, int kind) {
    if (d_row == 0) {
        const long found = scan_row(j, row, col, d_col);
        if (found == NO_JUMP) return 1;
        return relax(f, j, current, current + (found - col), row, found,
                     g + (double)labs(found - col) * 1.0, direction_code(0, d_col), kind);
    }
    const long found = scan_column(j, row, col, d_row);
    if (found == NO_JUMP) return 1;
    return relax(f, j, current, current + (found - row) * j->width, found, col,
                 g + (double)labs(found - row) * 1.0, direction_code(d_row, 0), kind);
}

/* Walk the diagonal (d_row, d_col) from `current` while each step is legal (both orthogonal
 * cells it passes between open), queueing at each cell the jump points its two straight scans
 * find, until the goal (JumpPointSearch._successors). Returns 0 when out of memory.
 *
 * Past the goal, the walk stops early: once the goal is queued at cost C, a walk cell whose
 * g + h exceeds C (by BOUND_MARGIN) can queue nothing that leaves the frontier before the goal.
 * Under a consistent heuristic (octile, Euclidean, Chebyshev, zero; weight 1, no landmarks:
 * `prune`) every later cell of the walk, and every jump point its scans find, has g + h at
 * least that cell's, so it keys after the goal (ties go to the smaller h, the goal's 0), and
 * none could lower the goal's cost. The frontier pops in the total order of its keys (priority,
 * h, cell), whatever else it holds, so the cells expanded before the goal, the goal's parent,
 * the path, its cost and the expansion count are those of the full walk, jps.py's, to the bit
 * (tests/unit/test_jps.py). On a small open map, where most queries are answered from the
 * start's expansion, the walks after the one that queued the goal end within a step or two. */
static HOT_INLINE int walk_diagonal(Frontier *f, const Jps *j, int32_t current, double g,
                                    long row, long col, long d_row, long d_col, int kind) {
    /* Everything the steps read is held here, each line as a pointer moved a line a step:
     * relax writes through pointers, so the compiler would otherwise read the fields of `j`
     * and of the copies again at every step. */
    Packed *grid = j->grid;
    const long row_words = grid->row_words;
    const uint64_t *here = line_of(grid->rows, row_words, row);
    /* The first step's test before anything is held: on the 1- and 2-wide mazes most walks
     * end there, and holding the lines cost more than their steps. */
    {
        const uint64_t *next = here + d_row * row_words;
        const long ahead = 64 + col, beside = ahead + d_col;
        if (!((next[ahead >> 6] >> (ahead & 63)) & (here[beside >> 6] >> (beside & 63)) &
              (next[beside >> 6] >> (beside & 63)) & 1))
            return 1;
    }
    const long width = j->width, col_words = grid->col_words;
    const long goal_row = j->goal_row, goal_col = j->goal_col, goal = j->goal;
    const long vertical = d_row * width, line_step = d_row * row_words;
    const long column_step = d_col * col_words;
    const uint32_t stamp = grid->stamp;
    const uint32_t *chunk_stamp = grid->chunk_stamp, *word_stamp = grid->word_stamp;
    const int shift = grid->shift;
    const long chunk_base = 1L << shift;
    const uint64_t *row_stops = line_of(d_col > 0 ? grid->east : grid->west, row_words, row);
    const uint64_t *column = line_of(grid->cols, col_words, col);
    const uint64_t *column_stops = line_of(d_row > 0 ? grid->south : grid->north, col_words, col);
    const double *bound = j->bound;
    long cell = current;
    /* The copies' blocked border ends the walk at the grid's edge. Rows row - 1 to row + 1
     * are checked on entry (see expand); each step checks the one row it brings in reach, and
     * a column scan every word it reads (as packed_check_row and packed_check_word do). */
    for (long steps = 1;; steps++) {
        if (steps > 1) {
            const uint64_t *next = here + line_step;
            const long ahead = 64 + col, beside = ahead + d_col;
            if (!((next[ahead >> 6] >> (ahead & 63)) & (here[beside >> 6] >> (beside & 63)) &
                  (next[beside >> 6] >> (beside & 63)) & 1))
                return 1;
        }
        here += line_step;
        row_stops += line_step;
        column += column_step;
        column_stops += column_step;
        cell += vertical + d_col;
        row += d_row;
        col += d_col;
        const long chunk = (row + d_row + chunk_base) >> shift;
        if (chunk_stamp[chunk] != stamp) packed_check_chunk_slow(grid, chunk);
        const double cost = g + (double)steps * SQRT2;
        if (*bound < INFINITY && cost + h_of(j, cell, row, col, kind) > *bound) return 1;
        if (cell == goal)
            return relax_far(f, j, current, cell, row, col, cost, direction_code(d_row, d_col),
                             kind);
        /* The column scan (first_stop with its checks, the words' stamps read here). */
        long found_row;
        {
            const long p = 64 + row + d_row;
            long w = p >> 6;
            if (word_stamp[w] != stamp) packed_check_word_slow(grid, w);
            uint64_t stop = column_stops[w] & (d_row > 0 ? ~0ULL << (p & 63)
                                                         : ~0ULL >> (63 - (p & 63)));
            while (!stop) {
                w += d_row;
                if (word_stamp[w] != stamp) packed_check_word_slow(grid, w);
                stop = column_stops[w];
            }
            found_row = 64 * w - 64 + (d_row > 0 ? __builtin_ctzll(stop)
                                                 : 63 - __builtin_clzll(stop));
        }
        if (col == goal_col &&
            (d_row > 0 ? goal_row > row && goal_row <= found_row
                       : goal_row < row && goal_row >= found_row))
            found_row = goal_row;
        if (((column[(64 + found_row) >> 6] >> ((64 + found_row) & 63)) & 1) &&
            !relax_far(f, j, current, cell + (found_row - row) * width, found_row, col,
                       cost + (double)labs(found_row - row) * 1.0, direction_code(d_row, 0),
                       kind))
            return 0;
        long found_col = first_stop(row_stops, col, d_col, NULL);
        if (row == goal_row &&
            (d_col > 0 ? goal_col > col && goal_col <= found_col
                       : goal_col < col && goal_col >= found_col))
            found_col = goal_col;
        if (((here[(64 + found_col) >> 6] >> ((64 + found_col) & 63)) & 1) &&
            !relax_far(f, j, current, cell + (found_col - col), row, found_col,
                       cost + (double)labs(found_col - col) * 1.0, direction_code(0, d_col),
                       kind))
            return 0;
    }
    return 1;
}

/* walk_diagonal with the direction a constant in each of four copies, so that its scans are
 * compiled for their direction (their setup is most of a short scan's work). */
static int go_diagonal(Frontier *f, const Jps *j, int32_t current, double g, long row, long col,
                       long d_row, long d_col, int kind) {
    if (d_row > 0) {
        return d_col > 0 ? walk_diagonal(f, j, current, g, row, col, 1, 1, kind)
                         : walk_diagonal(f, j, current, g, row, col, 1, -1, kind);
    }
    return d_col > 0 ? walk_diagonal(f, j, current, g, row, col, -1, 1, kind)
                     : walk_diagonal(f, j, current, g, row, col, -1, -1, kind);
}

/* Queue everything found from `current` in direction (d_row, d_col); 0 when out of memory. */
static HOT_INLINE int go(Frontier *f, const Jps *j, int32_t current, double g, long row, long col,
                         long d_row, long d_col, int kind) {
    if (d_row && d_col) return go_diagonal(f, j, current, g, row, col, d_row, d_col, kind);
    return go_straight(f, j, current, g, row, col, d_row, d_col, kind);
}

static inline long sign_of(long value) { return (value > 0) - (value < 0); }

/* Expand `current`: jump in the directions its arrival direction leaves (JumpPointSearch.
 * _directions). Returns 0 when out of memory. */
static HOT_INLINE int expand(Frontier *f, const Jps *j, int32_t current, int kind) {
    const CellState here = f->state[current];
    const long width = j->width;
    const long row = (long)((uint32_t)current / (uint32_t)width), col = current - row * width;
    const double g = here.cost_so_far;
    /* Every scan and walk from here reads rows row - 1 to row + 1 (and the words of columns it
     * checks itself), and a walk checks each row it adds: checked here, before any of them. */
    Packed *grid = j->grid;
    packed_check_row(grid, row - 1);
    packed_check_row(grid, row);
    packed_check_row(grid, row + 1);
    if (here.slot == START_CODE) {
        /* Every direction (the order does not change the result: no two directions find the
         * same cell): the straight ones, then the diagonal toward the goal first and the one
         * away from it last, so that the walks after the goal is queued stop early (see
         * walk_diagonal). */
        static const long STRAIGHT[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
        for (int d = 0; d < 4; d++)
            if (!go_straight(f, j, current, g, row, col, STRAIGHT[d][0], STRAIGHT[d][1], kind))
                return 0;
        const long toward_row = j->goal_row < row ? -1 : 1;
        const long toward_col = j->goal_col < col ? -1 : 1;
        const long diagonals[4][2] = {{toward_row, toward_col},
                                      {toward_row, -toward_col},
                                      {-toward_row, toward_col},
                                      {-toward_row, -toward_col}};
        for (int d = 0; d < 4; d++)
            if (!go_diagonal(f, j, current, g, row, col, diagonals[d][0], diagonals[d][1], kind))
                return 0;
        return 1;
    }
    const long d_row = (here.slot >> 2) - 1, d_col = (here.slot & 3) - 1;
    if (d_row && d_col) {
        return go_straight(f, j, current, g, row, col, d_row, 0, kind) &&
               go_straight(f, j, current, g, row, col, 0, d_col, kind) &&
               go_diagonal(f, j, current, g, row, col, d_row, d_col, kind);
    }
    /* Straight: ahead, then each forced side (open, with its cell behind blocked) and the
     * diagonal toward it. A side beyond the grid's edge is blocked in the copies, so never
     * forced. */
    if (!go_straight(f, j, current, g, row, col, d_row, d_col, kind)) return 0;
    for (long sign = -1; sign <= 1; sign += 2) {
        const long side_row = d_row ? 0 : sign, side_col = d_row ? sign : 0;
        if (packed_open(grid, row + side_row, col + side_col) &&
            !packed_open(grid, row + side_row - d_row, col + side_col - d_col)) {
            if (!go_straight(f, j, current, g, row, col, side_row, side_col, kind) ||
                !go_diagonal(f, j, current, g, row, col, d_row + side_row, d_col + side_col,
                             kind))
                return 0;
        }
    }
    return 1;
}

/* JumpPointSearch.advance for the heuristic `kind` (a constant in each copy run_jps makes).
 * Runs without the GIL. */
static HOT_INLINE int jps_loop(const Jps *j, Frontier *f, int kind, Py_ssize_t *expanded_out) {
    const long width = j->width;
    Py_ssize_t expanded = 0;
    int status = SEARCH_UNREACHABLE;
    const long start_row = j->start / width, start_col = j->start % width;
    const double h = h_of(j, j->start, start_row, start_col, kind);
    *j->bound = INFINITY;
    f->state[j->start] = (CellState){0.0, -1, START_CODE};
    f->ws->closed[j->start] = QUEUED;
    f->ws->touched[f->touched_count++] = j->start;
    open_push(f, (Node){bits_of(floor(h * TIE_SCALE)), bits_of(h), j->start});
    for (;;) {
        const int32_t current = open_pop(f);
        if (current < 0) break;
        expanded++;
        if (current == j->goal) {
            status = SEARCH_FOUND;
            break;
        }
        if (!expand(f, j, current, kind)) {
            status = SEARCH_NO_MEMORY;
            break;
        }
    }
    *expanded_out = expanded;
    return status;
}

static int run_jps(const Jps *j, Frontier *f, Py_ssize_t *expanded_out) {
    switch (j->kind) {
        case H_OCTILE:
            return jps_loop(j, f, H_OCTILE, expanded_out);
        case H_EUCLIDEAN:
            return jps_loop(j, f, H_EUCLIDEAN, expanded_out);
        case H_CHEBYSHEV:
            return jps_loop(j, f, H_CHEBYSHEV, expanded_out);
        default:
            return jps_loop(j, f, H_ZERO, expanded_out);
    }
}

/* The path from the start to the goal in a finished search's records: every cell of every
 * jump (diagonally while both coordinates differ, then straight, as the search went), in a new
 * array of *length_out cells (NULL when out of memory), and its cost in *cost_out: each step's
 * 1.0 or SQRT2 added in path order from 0.0, as path_cost (and jps.py) sums it, to the bit.
 * Laid out forward from the start, so that the cost is summed in the same pass, each step's
 * kind known from its jump rather than found again with two divisions a cell. */
static int32_t *lay_out_path(const Jps *j, const CellState *state, Py_ssize_t *length_out,
                             double *cost_out) {
    const long width = j->width;
    Py_ssize_t length = 1, points = 1;
    for (int32_t cell = j->goal; cell != j->start; cell = state[cell].came_from) {
        const int32_t parent = state[cell].came_from;
        const long rows = labs(cell / width - parent / width);
        const long cols = labs(cell % width - parent % width);
        length += rows > cols ? rows : cols;
        points++;
    }
    /* The cells, then the jump points start first in the `points` slots after them. */
    int32_t *path = PyMem_RawMalloc((size_t)(length + points) * sizeof(int32_t));
    if (path == NULL) return NULL;
    int32_t *jumps = path + length;
    Py_ssize_t k = points;
    for (int32_t cell = j->goal;; cell = state[cell].came_from) {
        jumps[--k] = cell;
        if (cell == j->start) break;
    }
    Py_ssize_t i = 0;
    double cost = 0.0;
    path[i++] = j->start;
    for (k = 1; k < points; k++) {
        const long parent = jumps[k - 1], cell = jumps[k];
        const long d_row = cell / width - parent / width, d_col = cell % width - parent % width;
        const long rows = labs(d_row), cols = labs(d_col);
        const long diagonal = rows < cols ? rows : cols;
        const long straight_step = rows > cols ? sign_of(d_row) * width : sign_of(d_col);
        const long diagonal_step = sign_of(d_row) * width + sign_of(d_col);
        long at = parent;
        for (long n = diagonal; n > 0; n--) {
            at += diagonal_step;
            path[i++] = (int32_t)at;
            cost += SQRT2;
        }
        for (long n = (rows > cols ? rows : cols) - diagonal; n > 0; n--) {
            at += straight_step;
            path[i++] = (int32_t)at;
            cost += 1.0;
        }
    }
    *length_out = length;
    *cost_out = cost;
    return path;
}

PyDoc_STRVAR(search_doc,
             "search(walkable, height, width, start, goal, heuristic, h_weight)\n"
             "    -> (found, cells, cost, expanded)\n\n"
             "One jump point search; see sim/navigation/searches/kernel.py (jps_flat) for the contract.");

/* One search on `cells`, the buffer of `array` (`readonly` as its view says), checked by the
 * caller as run_search checks it, with the landmark distances `fields` or `units` (count a cell,
 * NULL for none): 0 with `out` filled, -1 with an exception set. Under the GIL, the view held. */
static int search_cells(PyObject *array, int readonly, const uint8_t *walkable, Py_ssize_t height,
                        Py_ssize_t width, Py_ssize_t start, Py_ssize_t goal, int heuristic,
                        double h_weight, const double *fields, Py_ssize_t landmarks,
                        const int32_t *units, double unit, PlainOutcome *out) {
    const Py_ssize_t size = height * width;
    Packed *grid = packed_take(array, readonly, walkable, (long)height, (long)width);
    if (grid == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    /* Field by field: the landmark arrays (some 500 bytes) are read below `count` only, and
     * zeroing them took a tenth of a small query's fixed cost. */
    Jps problem;
    problem.grid = grid;
    problem.height = (long)height;
    problem.width = (long)width;
    problem.start = (int32_t)start;
    problem.goal = (int32_t)goal;
    problem.goal_row = (long)(goal / width);
    problem.goal_col = (long)(goal % width);
    problem.h_weight = h_weight;
    problem.kind = heuristic;
    problem.fields = fields;
    problem.stride = (long)landmarks;
    problem.count = 0;
    for (Py_ssize_t i = 0; fields != NULL && i < landmarks; i++) {
        const double d = fields[goal * landmarks + i];
        if (d < INFINITY) {
            problem.which[problem.count] = (int)i;
            problem.goal_d[problem.count++] = d;
        }
    }
    for (Py_ssize_t i = 0; units != NULL && i < landmarks; i++) {
        const int32_t v = units[goal * landmarks + i];
        if (v != INT32_MAX) {
            problem.which[problem.count] = (int)i;
            problem.goal_units[problem.count++] = v;
        }
    }
    problem.units = units;
    problem.unit = unit;
    double bound = INFINITY;
    problem.bound = &bound;
    problem.prune = problem.count == 0 && h_weight == 1.0;
    Workspace *ws = workspace_take(size);
    if (ws == NULL) {
        packed_give_back(grid);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t expanded = 0, path_length = 0;
    int32_t *path = NULL;
    double cost = INFINITY;
    int status;
    Frontier frontier = frontier_start(ws);
    /* The GIL is let go for the search but on small maps, whose searches are shorter than
     * letting it go and taking it back (see KEEP_GIL_CELLS). */
    PyThreadState *saved = size > KEEP_GIL_CELLS ? PyEval_SaveThread() : NULL;
    status = run_jps(&problem, &frontier, &expanded);
    if (status == SEARCH_FOUND) {
        path = lay_out_path(&problem, ws->state, &path_length, &cost);
        if (path == NULL) status = SEARCH_NO_MEMORY;
    }
    for (Py_ssize_t i = 0; i < frontier.touched_count; i++) ws->closed[ws->touched[i]] = UNSEEN;
    if (saved != NULL) PyEval_RestoreThread(saved);
    workspace_give_back(ws);
    packed_give_back(grid);
    if (status == SEARCH_NO_MEMORY) {
        PyErr_NoMemory();
        return -1;
    }
    *out = (PlainOutcome){status, path, path_length, cost, expanded};
    return 0;
}

/* One search on `walkable_obj` (checked here), with the landmark distances `fields` (count
 * a cell, NULL for none) when given; `snapshot` (NULL for none) must then hold the bytes the
 * fields were built from, or the answer is None: the caller rebuilds or searches without. */
static PyObject *run_search(PyObject *walkable_obj, Py_ssize_t height, Py_ssize_t width,
                            Py_ssize_t start, Py_ssize_t goal, int heuristic, double h_weight,
                            const double *fields, Py_ssize_t landmarks, const uint8_t *snapshot,
                            const int32_t *units, double unit) {
    if (!check_grid(height, width)) return NULL;
    const Py_ssize_t size = height * width;
    if (!check_ends(start, goal, size)) return NULL;
    if (heuristic < H_OCTILE || heuristic > H_ZERO) {
        PyErr_Format(PyExc_ValueError, "jps takes heuristic codes 1 to 4, got %d", heuristic);
        return NULL;
    }
    if (!(isfinite(h_weight) && h_weight >= 0.0)) {
        PyErr_SetString(PyExc_ValueError, "h_weight must be finite and >= 0");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(walkable_obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    /* Bool only: a cell is open where its byte is 1, and the packed copies' check compares
     * bytes. */
    if (view.itemsize != 1 || view.len != size || !format_is(&view, '?')) {
        PyErr_Format(PyExc_ValueError, "walkable must be %zd contiguous bools, got %zd bytes",
                     size, view.len);
        PyBuffer_Release(&view);
        return NULL;
    }
    const uint8_t *walkable = view.buf;
    if (!walkable[start] || !walkable[goal]) {
        PyErr_SetString(PyExc_ValueError, "start and goal must be walkable cells");
        PyBuffer_Release(&view);
        return NULL;
    }
    /* The fields hold for the bytes they were built from only: an opened cell can make them
     * overestimate. Compared on every call (about 10 us for 512 x 512), unless the search runs
     * on the snapshot itself (offline.py's index). */
    if (snapshot != NULL && snapshot != walkable &&
        memcmp(snapshot, walkable, (size_t)size) != 0) {
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    PlainOutcome out;
    const int ok = search_cells(walkable_obj, view.readonly, walkable, height, width, start, goal,
                                heuristic, h_weight, fields, landmarks, units, unit, &out);
    PyBuffer_Release(&view);
    if (ok < 0) return NULL;
    return search_answer(out.status, out.path, out.length, width, out.cost, out.expanded);
}

static PyObject *jps_search(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj;
    Py_ssize_t height, width, start, goal;
    int heuristic;
    double h_weight;
    if (!PyArg_ParseTuple(args, "Onnnnid:search", &walkable_obj, &height, &width, &start, &goal,
                          &heuristic, &h_weight))
        return NULL;
    return run_search(walkable_obj, height, width, start, goal, heuristic, h_weight, NULL, 0,
                      NULL, NULL, 0.0);
}

PyDoc_STRVAR(search_landmarks_doc,
             "search_landmarks(walkable, height, width, start, goal, fields, snapshot,\n"
             "                 unit=1.0)\n"
             "    -> (found, cells, cost, expanded) or None\n\n"
             "search() with the octile heuristic raised by landmark distances; None when\n"
             "walkable's bytes differ from snapshot's. fields: float64 distances, or int32 in\n"
             "`unit` cells. See sim/navigation/searches/landmarks.py and offline.py.");

static PyObject *jps_search_landmarks(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *walkable_obj, *fields_obj, *snapshot_obj;
    Py_ssize_t height, width, start, goal;
    double unit = 1.0;
    if (!PyArg_ParseTuple(args, "OnnnnOO|d:search_landmarks", &walkable_obj, &height, &width,
                          &start, &goal, &fields_obj, &snapshot_obj, &unit))
        return NULL;
    Py_buffer fields, snapshot;
    if (PyObject_GetBuffer(fields_obj, &fields, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(snapshot_obj, &snapshot, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&fields);
        return NULL;
    }
    PyObject *result = NULL;
    const Py_ssize_t size = height > 0 && width > 0 && height <= INT32_MAX / width
                                ? height * width
                                : -1;
    /* fields: [cell, landmark], so its shape says how many landmarks a cell has. */
    const Py_ssize_t landmarks = fields.ndim == 2 ? fields.shape[1] : 0;
    /* float64 distances (landmarks.py), or int32 in `unit` cells (offline.py). */
    const int integer = format_is(&fields, 'i') && fields.itemsize == 4;
    if (size < 0 || snapshot.len != size ||
        !(integer || (fields.itemsize == (Py_ssize_t)sizeof(double) && format_is(&fields, 'd'))) ||
        landmarks < 1 || fields.shape[0] != size || landmarks > LANDMARKS_MAX ||
        !(unit > 0.0)) {
        PyErr_Format(PyExc_ValueError,
                     "search_landmarks needs %zd snapshot bytes and a [%zd, 1 to %d] float64 "
                     "(or int32, unit > 0) array of distances, got %zd bytes and %zd-D",
                     size, size, (int)LANDMARKS_MAX, snapshot.len, (Py_ssize_t)fields.ndim);
    } else if (integer) {
        result = run_search(walkable_obj, height, width, start, goal, H_OCTILE, 1.0, NULL,
                            landmarks, snapshot.buf, fields.buf, unit);
    } else {
        result = run_search(walkable_obj, height, width, start, goal, H_OCTILE, 1.0, fields.buf,
                            landmarks, snapshot.buf, NULL, 0.0);
    }
    PyBuffer_Release(&snapshot);
    PyBuffer_Release(&fields);
    return result;
}

/* What one search of a batch leaves: its answer, the path (NULL when none) still to convert. */
typedef struct {
    int status;
    int32_t *path;
    Py_ssize_t length, expanded;
    double cost;
} Outcome;

PyDoc_STRVAR(batch_doc,
             "batch(walkable, height, width, starts, goals, heuristic)\n"
             "    -> [(found, cells, cost, expanded), ...]\n\n"
             "search() for every pair of flat cells starts[i] -> goals[i] (int64 arrays), back to\n"
             "back in one call with the GIL released; see kernel_batch.py (jps_batch).");

/* A batch's outcomes as `flat_batch_new`'s arrays; every path freed. NULL with an exception
 * set on failure (out of memory in a search included). */
static PyObject *batch_arrays_of(Outcome *outcomes, Py_ssize_t count) {
    Py_ssize_t total = 0;
    int ok = 1;
    for (Py_ssize_t i = 0; i < count; i++) {
        ok = ok && outcomes[i].status != SEARCH_NO_MEMORY;
        if (outcomes[i].status == SEARCH_FOUND) total += outcomes[i].length;
    }
    FlatBatch out = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    PyObject *arrays = ok ? flat_batch_new(count, total, &out) : PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < count; i++) {
        Outcome *o = &outcomes[i];
        if (arrays != NULL)
            flat_batch_set(&out, i, o->status == SEARCH_FOUND, o->cost, o->expanded, o->path,
                           o->length);
        PyMem_RawFree(o->path);
        o->path = NULL;
    }
    return arrays;
}

/* Many searches on one array: the array, the ends and the heuristic are checked once, the
 * packed copies taken once (a row checked against the array by the first search to read it
 * serves the rest), and the workspace kept from one search to the next; every answer is
 * search()'s for the same ends: a list of answers, or with `arrays` `batch_arrays_of`'s. */
static PyObject *run_batch(PyObject *args, int arrays) {
    PyObject *walkable_obj, *starts_obj, *goals_obj;
    Py_ssize_t height, width;
    int heuristic;
    if (!PyArg_ParseTuple(args, "OnnOOi:batch", &walkable_obj, &height, &width, &starts_obj,
                          &goals_obj, &heuristic))
        return NULL;
    if (!check_grid(height, width)) return NULL;
    if (heuristic < H_OCTILE || heuristic > H_ZERO) {
        PyErr_Format(PyExc_ValueError, "jps takes heuristic codes 1 to 4, got %d", heuristic);
        return NULL;
    }
    const Py_ssize_t size = height * width;
    Py_buffer view, starts_view, goals_view;
    if (PyObject_GetBuffer(walkable_obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    if (PyObject_GetBuffer(starts_obj, &starts_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    if (PyObject_GetBuffer(goals_obj, &goals_view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&starts_view);
        PyBuffer_Release(&view);
        return NULL;
    }
    PyObject *results = NULL;
    Outcome *outcomes = NULL;
    Packed *grid = NULL;
    Workspace *ws = NULL;
    const Py_ssize_t count = starts_view.len / (Py_ssize_t)sizeof(int64_t);
    if (view.itemsize != 1 || view.len != size || !format_is(&view, '?')) {
        PyErr_Format(PyExc_ValueError, "walkable must be %zd contiguous bools, got %zd bytes",
                     size, view.len);
        goto done;
    }
    if (!is_int64(&starts_view) || !is_int64(&goals_view) || goals_view.len != starts_view.len) {
        PyErr_SetString(PyExc_ValueError, "starts and goals must be int64 arrays of one length");
        goto done;
    }
    const uint8_t *walkable = view.buf;
    const int64_t *starts = starts_view.buf, *goals = goals_view.buf;
    /* Every pair checked before any search: a bad one is an error, never half an answer. */
    for (Py_ssize_t i = 0; i < count; i++) {
        if (starts[i] < 0 || starts[i] >= size || goals[i] < 0 || goals[i] >= size ||
            !walkable[starts[i]] || !walkable[goals[i]]) {
            PyErr_Format(PyExc_ValueError, "pair %zd: start and goal must be walkable cells", i);
            goto done;
        }
    }
    outcomes = PyMem_RawCalloc(count > 0 ? (size_t)count : 1, sizeof(Outcome));
    grid = outcomes == NULL ? NULL
                            : packed_take(walkable_obj, view.readonly, walkable, (long)height,
                                          (long)width);
    ws = grid == NULL ? NULL : workspace_take(size);
    if (ws == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) {
        const int32_t start = (int32_t)starts[i], goal = (int32_t)goals[i];
        double bound = INFINITY;
        const Jps problem = {grid,  (long)height, (long)width, start, goal, (long)(goal / width),
                             (long)(goal % width), 1.0, heuristic, NULL, 0, 0, {0}, {0}, NULL,
                             0.0,   {0},          &bound,      1};
        Outcome *out = &outcomes[i];
        Frontier frontier = frontier_start(ws);
        out->cost = INFINITY;
        out->status = run_jps(&problem, &frontier, &out->expanded);
        if (out->status == SEARCH_FOUND) {
            out->path = lay_out_path(&problem, ws->state, &out->length, &out->cost);
            if (out->path == NULL) out->status = SEARCH_NO_MEMORY;
        }
        for (Py_ssize_t t = 0; t < frontier.touched_count; t++) ws->closed[ws->touched[t]] = UNSEEN;
    }
    Py_END_ALLOW_THREADS
    if (arrays) {
        results = batch_arrays_of(outcomes, count);
        goto done;
    }
    results = PyList_New(count);
    for (Py_ssize_t i = 0; i < count; i++) {
        Outcome *out = &outcomes[i];
        PyObject *answer = results == NULL ? NULL
                                           : search_answer(out->status, out->path, out->length,
                                                           width, out->cost, out->expanded);
        if (results == NULL) PyMem_RawFree(out->path);
        out->path = NULL; /* search_answer frees it */
        if (results != NULL && answer == NULL) Py_CLEAR(results);
        if (results != NULL) PyList_SET_ITEM(results, i, answer);
    }
done:
    if (ws != NULL) workspace_give_back(ws);
    if (grid != NULL) packed_give_back(grid);
    PyMem_RawFree(outcomes);
    PyBuffer_Release(&goals_view);
    PyBuffer_Release(&starts_view);
    PyBuffer_Release(&view);
    return results;
}

static PyObject *jps_batch(PyObject *module, PyObject *args) {
    (void)module;
    return run_batch(args, 0);
}

PyDoc_STRVAR(batch_arrays_doc,
             "batch_arrays(walkable, height, width, starts, goals, heuristic)\n"
             "    -> (found, cost, expanded, reason, lengths, offsets, cells)\n\n"
             "batch() with the answers as seven bytes objects (see _flat_path.h, FlatBatch);\n"
             "see kernel_batch.py (jps_batch_arrays).");

static PyObject *jps_batch_arrays(PyObject *module, PyObject *args) {
    (void)module;
    return run_batch(args, 1);
}

PyDoc_STRVAR(checked_chunks_doc,
             "checked_chunks() -> int\n\n"
             "Chunks of rows the searches have compared with their packed copies' snapshot since\n"
             "the module was loaded (_jps_blocks.h); a frozen array's searches add none.");

static PyObject *jps_checked_chunks(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyLong_FromUnsignedLongLong(packed_chunks_checked);
}

static PyMethodDef jps_methods[] = {
    {"checked_chunks", jps_checked_chunks, METH_NOARGS, checked_chunks_doc},
    {"search", jps_search, METH_VARARGS, search_doc},
    {"batch", jps_batch, METH_VARARGS, batch_doc},
    {"batch_arrays", jps_batch_arrays, METH_VARARGS, batch_arrays_doc},
    {"search_landmarks", jps_search_landmarks, METH_VARARGS, search_landmarks_doc},
    {NULL, NULL, 0, NULL},
};

static void jps_free(void *module) {
    grid_search_free(module);
    packed_forget_all();
}

static struct PyModuleDef jps_module = {
    PyModuleDef_HEAD_INIT, "_jps", "Compiled jump point search (see jps.py, kernel.py).", -1,
    jps_methods,           NULL,   NULL,
    NULL,                  jps_free,
};

/* The plain search behind _kernel's `call` (find_path in one C call, call_cache.py), handed
 * over in the capsule `plain` (_plain_call.h): search() on bytes `call` has checked and holds. */
static int plain_search(PyObject *array, int readonly, const uint8_t *cells, Py_ssize_t height,
                        Py_ssize_t width, Py_ssize_t start, Py_ssize_t goal, int heuristic,
                        PlainOutcome *out) {
    return search_cells(array, readonly, cells, height, width, start, goal, heuristic, 1.0, NULL,
                        0, NULL, 0.0, out);
}

PyMODINIT_FUNC PyInit__jps(void) {
    heuristics_init();
    PyObject *module = PyModule_Create(&jps_module);
    if (module == NULL) return NULL;
    PyObject *plain = PyCapsule_New((void *)plain_search, PLAIN_CAPSULE, NULL);
    if (plain == NULL || PyModule_AddObject(module, "plain", plain) < 0) {
        Py_XDECREF(plain);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
