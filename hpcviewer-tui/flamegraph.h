/*
 * flamegraph.h - a flame tree (flame.h) drawn as a self-contained SVG
 * flame graph: no network, no external file; a browser opens it as it is.
 * Where the database has barrier episodes, their per-thread timeline
 * (timeline.h) is drawn under it.
 *
 * Invariants:
 *  1. Each frame drawn is one <g class="frame KIND"> (KIND: root, proc,
 *     inline, loop) holding a <title> (the label, then a line with the
 *     value, its percentage of the root's and the same for its self
 *     value), a <rect> and a <text> (the label, cut to fit with ".."); the
 *     groups are siblings, never nested, so the document's nesting is
 *     bounded however deep the tree.
 *  2. Geometry: the root spans FLAMEGRAPH_WIDTH - 2 * FLAMEGRAPH_PAD
 *     pixels at the bottom; a frame's width is that times its total over
 *     the root's, its children stand on it, left to right in label order
 *     from its left edge (its self value is the gap on the right); each
 *     level is FLAMEGRAPH_FRAME_HEIGHT pixels high.
 *  3. Frames narrower than FLAMEGRAPH_MIN_WIDTH pixels are left out, with
 *     every frame above them: at most (width / min width) frames a level,
 *     and the file is linear in the frames drawn.
 *  4. Procedures are drawn in warm colours, inlined code in aqua, loops in
 *     blue, the root in grey; colours follow the label (a hash), so the
 *     same input gives the same file.
 *  5. Text is escaped by xmlw (xmlw.h): the file is well-formed UTF-8 XML
 *     whatever the names hold.  A short script (no network) shows the
 *     hovered frame at the bottom and zooms into a clicked frame.
 */
#ifndef HPCVIEWER_FLAMEGRAPH_H
#define HPCVIEWER_FLAMEGRAPH_H

#include <stdio.h>

#include "flame.h"
#include "timeline.h"

#define FLAMEGRAPH_WIDTH 1200
#define FLAMEGRAPH_PAD 10
#define FLAMEGRAPH_FRAME_HEIGHT 16
#define FLAMEGRAPH_MIN_WIDTH 0.1

/* Writes f as an SVG document to out, titled with title (the database's
 * name; NULL: none) and the metric's heading, with the timeline tl under
 * it (NULL: none).  Returns 0, or -1 with hpc_lasterr() set when writing
 * fails. */
int flamegraph_write(const struct flame *f, const char *title,
		     const struct timeline *tl, FILE *out);

#endif
