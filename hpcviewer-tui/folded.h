/*
 * folded.h - folded stacks (Brendan Gregg's format, read by flamegraph.pl,
 * inferno, speedscope and the like) of a flame tree (flame.h).
 *
 * Invariants:
 *  1. One line per flame node other than the root whose self value is not
 *     0 once scaled and rounded: its frames from the outermost, separated
 *     by ';', then one space and the value, a decimal integer.  No two
 *     lines have the same frames (flame.h invariant 2).
 *  2. Values are the node's self value times folded_scale() (time in
 *     integer nanoseconds, other metrics as they are), rounded so that the
 *     values written add up to the rounded sum of the exact ones: each line
 *     is within 1 of its exact value, and the whole file within 1 of the
 *     root's total less what lies outside every frame.
 *  3. Frame names are flame labels (flame.h invariant 4) spelled so that
 *     every tool splits them back as written: ';' becomes ':' (as
 *     stackcollapse-perf.pl does), a control character '_', and a name
 *     ending in white space and a number ("loop at line 12") gets '_'
 *     for that white space, which the tools would read as a second count.
 *     Inlined code is "NAME_[i]", the tools' inline annotation.
 *  4. A path is written once per line, so the output is the sum of the
 *     written contexts' depths: linear in the tree where only leaves have
 *     self values, quadratic in the depth of a path with a value on every
 *     level (the format repeats each prefix).  The walk needs no recursion.
 */
#ifndef HPCVIEWER_FOLDED_H
#define HPCVIEWER_FOLDED_H

#include <stdio.h>

#include "flame.h"
#include "strbuf.h"

/* What folded values are in: 1e9 for metrics of seconds (shown unit "s",
 * or a name that says "(sec)"), with *unit "ns"; else 1, *unit NULL. */
double folded_scale(const struct flame *f, const char **unit);

/* Appends frame name s spelled by invariant 3 (inline: an inlined frame). */
void folded_frame_name(const char *s, int inline_code, struct strbuf *out);

/* Writes f's folded stacks to out.  Returns 0, or -1 with hpc_lasterr()
 * set when writing fails. */
int folded_write(const struct flame *f, FILE *out);

#endif
