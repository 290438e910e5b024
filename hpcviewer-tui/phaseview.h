/*
 * phaseview.h - the phases view: the barriers, locks and phase
 * kinds of DBDIR/phases.tsv (hpcprof-database(5)), each with its threads,
 * the code that ran in each phase kind (the subtree of its per-phase
 * profile in experiment.xml), and a thread x episode strip per barrier.
 * The text (--stdio --view phases), CSV and curses screens (P) all draw
 * phaseview_lines(), so they show the same rows.
 *
 * Invariants:
 *  1. The file is read only as a regular file of at most
 *     PHASEVIEW_MAX_BYTES with lines of at most PHASEVIEW_MAX_LINE bytes;
 *     every number is checked, every thread and episode row names a site
 *     of an earlier site row; a bad file is refused with one line naming
 *     it and the line.  Memory and the rows built are linear in the file
 *     and the model: no site x thread or thread x episode matrix is ever
 *     allocated (a strip line is built from that thread's episodes only).
 *  2. Sites keep the file's order; a site's threads, a phase kind's
 *     threads and a thread's episodes are in the file's order (hpcprof
 *     sorts them by site, thread, episode number).
 *  3. Strip cells: one per kept episode of the thread, in episode order,
 *     shaded by the wait of that episode relative to the site's largest
 *     kept wait: ' ' none, then '.', ':', '=', '#' (quarters); the last
 *     arriver waits least, so a late thread is the light row.
 */
#ifndef HPCVIEWER_PHASEVIEW_H
#define HPCVIEWER_PHASEVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hmap;

#include "model.h"
#include "strbuf.h"
#include "threadname.h"

#define PHASEVIEW_MAX_BYTES ((uint64_t)256 << 20)
#define PHASEVIEW_MAX_LINE 65536
#define PHASEVIEW_SHADES " .:=#"

struct phase_site {
	uint32_t id;
	char *kind, *function, *location;
	uint32_t node, participants, threads;
	uint64_t episodes, last, lock_calls, lock_blocked;
	double wait, completion, work, lb, gain, lock_wait;
	size_t first_thread, nthreads;		/* into pv->threads */
	size_t first_episode, nepisodes;	/* into pv->episodes */
	double max_wait;			/* over its kept episodes */
};

struct phase_thread {
	uint32_t site, thread;
	uint64_t episodes, last, lock_calls, lock_blocked;
	double wait, completion, work, lock_wait;
};

struct phase_kind {
	uint32_t start, end, node, threads;
	uint64_t count;
	double work, wall, lb;
	size_t first_thread, nthreads;		/* into pv->kthreads */
};

struct phase_kthread {
	uint32_t thread;
	uint64_t count;
	double work, wall;
};

struct phase_episode {
	uint32_t site, thread;
	uint64_t n;
	double wait, work;
	int32_t order;
	int last;
};

/* What a line of the view stands for (the screen acts on it). */
enum pv_line_kind { PV_HEADING, PV_SITE, PV_THREAD, PV_PHASE, PV_CODE,
		    PV_STRIP };

struct pv_line {
	enum pv_line_kind kind;
	uint32_t scope;		/* PV_PHASE, PV_CODE: model scope, or
				 * MODEL_NONE */
};

struct phaseview {
	struct phase_site *sites;	size_t nsites;
	struct hmap *ids;		/* site id -> index + 1 */
	struct phase_thread *threads;	size_t nthreads;
	struct phase_kind *kinds;	size_t nkinds;
	struct phase_kthread *kthreads;	size_t nkthreads;
	struct phase_episode *episodes;	size_t nepisodes;
	/* the MPI runtime's lock sites hpcprof left out, and their wait */
	uint64_t hidden_locks;		double hidden_wait;
	/* DBDIR/threads.tsv: "thread 3", or "rank 1 thread 3" for MPI
	 * (threadname.h); empty when the file is missing or unreadable */
	struct thread_names names;
	/* the lines, built by phaseview_lines() */
	struct strbuf *text;	struct pv_line *lines;
	size_t nlines, lines_alloc;
};

/*
 * Loads DBDIR/phases.tsv of m's database.  Returns the view (free with
 * phaseview_free), or NULL: with *missing set when the database has no
 * such file (hpcprof found no synchronization data), else with
 * hpc_lasterr() naming the file and what is wrong.
 */
struct phaseview *phaseview_load(const struct model *m, int *missing);
void phaseview_free(struct phaseview *pv);

/* The site of id, or NULL. */
const struct phase_site *phaseview_site(const struct phaseview *pv,
					uint32_t id);

/*
 * Builds the lines of the view: each site (barriers by wait, then locks),
 * its threads and, for barriers, its strip; each phase kind, its threads
 * and its code down to depth levels of the per-phase profile (value of
 * model metric met, or none when met < 0).  Linear in the rows.
 */
void phaseview_lines(struct phaseview *pv, const struct model *m, int met,
		     size_t depth);

/* Prints the lines (at most width characters each; 0 no limit). */
int phaseview_print(struct phaseview *pv, size_t width, FILE *out);
/* Prints CSV: site,kind,thread,episodes,wait_s,work_s,last_arrivals,...;
 * thread is the thread's number, or its name in an MPI measurement
 * ("rank 1 thread 3", threadname.h). */
int phaseview_print_csv(const struct phaseview *pv, FILE *out);

#endif
