/*
 * check.h - the invariants by which every number of the views adds up
 * (hpcviewer-tui --check-views), checked on the very trees the screen and
 * --stdio show.  For each additive inclusive metric I with an additive
 * exclusive partner E (model.h; statistics over threads are no sums):
 *
 *  1. Totals: the top-down view's level 1 as shown adds up to the total
 *     of I; its row over the per-phase profiles (model.h invariant 8,
 *     views.h invariant 3) holds no value and its children add up to at
 *     most the total; the data tree's root (model.h, invariant 7) holds at
 *     most the total; the totals of I and E are equal.
 *  2. Every row of the top-down, flat, bottom-up and functions views has
 *     I >= E.
 *  3. Flat view: each module's I is at most the total, and the modules'
 *     (the root's children's) E add up to the total.
 *  4. Bottom-up and functions views: the procedures' E add up to the total,
 *     each procedure's I is at most the total, and a caller row has at
 *     most its callee row's I and E.
 *  5. Each procedure's E is the same in the functions and flat views and
 *     summed over its frames in the top-down view.
 *  6. hpcrun's own frames and objects are not the program's: the flat
 *     view's row of module libhpcrun.so, and each data object whose label
 *     names [libhpcrun.so], hold at most 0.5% of the total of I (hpcrun
 *     leaves its frames out of every path: hpcrun/rt/unwind.c,
 *     invariant 4).
 *
 * "At most" and "the same" are within rounding: a millionth of the total.
 * The bottom-up view is checked below level 1 only while the instances
 * built stay under a bound linear in the scopes, so the check of any
 * database takes time linear in its size.
 */
#ifndef HPCVIEWER_CHECK_H
#define HPCVIEWER_CHECK_H

#include <stdio.h>

#include "views.h"

/*
 * Checks the invariants above on b's model, building the views it needs.
 * Writes one line per broken invariant to out ("'DBDIR': flat view:
 * 'libc.so.6': cpu (I) 1.97 is above the total 1"), at most the first
 * ten, then their number.  Returns the number of broken invariants (0:
 * everything adds up).
 */
size_t check_views(struct browser *b, FILE *out);

#endif
