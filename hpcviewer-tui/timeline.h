/*
 * timeline.h - the per-thread timeline of barrier episodes, from the
 * database's phases.tsv (hpcprof from .hpcsync files), drawn
 * under the flame graph (flamegraph.h): one lane per thread, each episode
 * its work (CPU time since the previous departure) then its wait (arrival
 * to the last arrival), the thread that arrived last marked.
 *
 * Invariants:
 *  1. The file is read by phasesfile.h, whose invariants hold; the
 *     timeline draws its episode rows, titled by their site's location
 *     (the user's file:line and procedure; else its function).
 *  2. The file holds durations, not times, and sorts episodes by site, so
 *     the timeline is laid out in columns: one per (episode number n,
 *     site), in that order, as wide as the longest work + wait of the
 *     threads in it.  Every thread's lane leaves a barrier at the same x,
 *     as the threads do; a program whose sites interleave otherwise than
 *     by episode number is drawn in that order all the same.
 *  3. Memory and output are linear in the episodes (hpcrun keeps at most
 *     4096 a thread).
 */
#ifndef HPCVIEWER_TIMELINE_H
#define HPCVIEWER_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "phasesfile.h"
#include "xmlw.h"

struct timeline_episode {
	uint32_t site, thread;
	uint64_t n;
	double wait, work;		/* seconds */
	int last;			/* this thread arrived last */
	uint32_t column, lane;		/* invariant 2 */
};

struct timeline {
	struct timeline_episode *ep;
	size_t nep;
	double *col_x, *col_width;	/* [ncols], seconds */
	size_t ncols;
	uint32_t *lane_thread;		/* [nlanes], increasing */
	size_t nlanes;
	struct phases *ph;		/* its sites, and the threads' names
					 * as every view names threads */
	double label_width;		/* pixels left of the lanes */
	double span;			/* seconds, all columns */
};

/*
 * Reads DBDIR/phases.tsv.  Returns 0 with *out NULL when there is no such
 * file or it has no episodes, 0 with *out set (free with timeline_free),
 * or -1 with hpc_lasterr() set (phasesfile.h, invariant 1).
 */
int timeline_load(const char *dbdir, struct timeline **out);
void timeline_free(struct timeline *tl);

/* The height in pixels timeline_write draws. */
double timeline_height(const struct timeline *tl);
/* Draws tl from y (pixels) down, width pixels wide, into w. */
void timeline_write(const struct timeline *tl, struct xmlw *w, double y,
		    double width);

#endif
