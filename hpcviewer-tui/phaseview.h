/*
 * phaseview.h - the phases view: the barriers, locks and phase
 * kinds of DBDIR/phases.tsv (hpcprof-database(5)), each with its threads,
 * the code that ran in each phase kind (the subtree of its per-phase
 * profile in experiment.xml), and a thread x episode strip per barrier.
 * The text (--stdio --view phases), CSV and curses screens (P) all draw
 * phaseview_lines(), so they show the same rows.
 *
 * Invariants:
 *  1. The file is read by phasesfile.h, whose invariants hold.  The rows
 *     built are linear in the file and the model: no site x thread or
 *     thread x episode matrix is ever allocated (a strip line is built
 *     from that thread's episodes only).
 *  2. Strip cells: one per kept episode of the thread, in episode order,
 *     shaded by the wait of that episode relative to the site's largest
 *     kept wait: ' ' none, then '.', ':', '=', '#' (quarters); the last
 *     arriver waits least, so a late thread is the light row.
 *  3. In a section (the lines from one heading to the next) with a
 *     line too long for the width, every line keeps its first two number
 *     columns and as much of its label (a site and its location, a thread
 *     and its strip, a phase kind) as fits, the label's start and end
 *     around "...": the columns between them and a site's detail (its
 *     kind and threads) are left out first, so at 80 columns a site shows
 *     its function and its location, and the section's columns stay
 *     aligned.
 *  4. A phase kind's code shows the program's code where it ran: a frame,
 *     loop or call without a source line (a runtime's internals, as
 *     libgomp's thread start or libomp's fork) that has code with a line
 *     below it takes no level, its children taking its place, so an
 *     OpenMP worker's phase opens at the outlined function; code without
 *     a line and nothing with one below (where a runtime spins) is shown,
 *     placed at its module and address as the top-down view places it.
 */
#ifndef HPCVIEWER_PHASEVIEW_H
#define HPCVIEWER_PHASEVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "phasesfile.h"
#include "strbuf.h"

#define PHASEVIEW_SHADES " .:=#"

/* What a line of the view stands for (the screen acts on it). */
enum pv_line_kind { PV_HEADING, PV_SITE, PV_THREAD, PV_PHASE, PV_CODE,
		    PV_STRIP };

struct pv_line {
	enum pv_line_kind kind;
	uint32_t scope;		/* PV_PHASE, PV_CODE: model scope, or
				 * MODEL_NONE */
	uint32_t keep, label;	/* invariant 3: the number columns kept
				 * and where the label starts (0: none) */
	uint32_t detail;	/* where the label's detail starts, which a
				 * label too long drops first (0: none) */
	int compact;		/* invariant 3: at fit_width */
};

struct phaseview {
	struct phases *ph;		/* phases.tsv and threads.tsv */
	/* the lines, built by phaseview_lines() */
	struct strbuf *text;	struct pv_line *lines;
	size_t nlines, lines_alloc;
	size_t fit_width;	/* the width lines[].compact is for, 0:
				 * none yet */
};

/*
 * Loads DBDIR/phases.tsv of m's database.  Returns the view (free with
 * phaseview_free), or NULL: with *missing set when the database has no
 * such file (hpcprof found no synchronization data), else with
 * hpc_lasterr() naming the file and what is wrong.
 */
struct phaseview *phaseview_load(const struct model *m, int *missing);
void phaseview_free(struct phaseview *pv);

/*
 * Builds the lines of the view: each site (barriers by wait, then locks),
 * its threads and, for barriers, its strip; each phase kind, its threads
 * and its code down to depth levels of the per-phase profile (value of
 * model metric met, or none when met < 0).  Linear in the rows.
 */
void phaseview_lines(struct phaseview *pv, const struct model *m, int met,
		     size_t depth);

/* Appends line i as it fits in width characters (invariant 3; 0: no
 * limit). */
void phaseview_fit(struct phaseview *pv, size_t i, size_t width,
		   struct strbuf *out);
/* Prints the lines, each as phaseview_fit() fits it in width. */
int phaseview_print(struct phaseview *pv, size_t width, FILE *out);
/* Prints CSV: site,kind,thread,episodes,wait_s,work_s,last_arrivals,...;
 * thread is the thread's number, or its name in an MPI measurement
 * ("rank 1 thread 3", threadname.h). */
int phaseview_print_csv(const struct phaseview *pv, FILE *out);

#endif
