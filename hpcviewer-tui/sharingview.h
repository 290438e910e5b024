/*
 * sharingview.h - the sharing detail of the data view: for the
 * selected data object, its sharing label, the threads x lines table
 * (reads/writes of each thread on each 64-byte line) and the page x node
 * matrix, from DBDIR/sharing.tsv (hpcprof-database(5)).  The screen's
 * detail pane (v in the data view) and --stdio --detail draw the same
 * lines, sharingview_detail().
 *
 * Invariants:
 *  1. The file is read only as a regular file of at most
 *     SHARINGVIEW_MAX_BYTES with lines of at most SHARINGVIEW_MAX_LINE
 *     bytes (lib/textrec); every field the view uses is checked; a bad file
 *     is refused with one line naming it and the line.  Rows of kinds it
 *     does not know are skipped.
 *  2. An object named by a "pooled" row has its label followed by
 *     "(pooled from all its lines)" in the summary line.
 *  3. Memory is linear in the file; a detail is built from the rows of its
 *     object only, at most SHARINGVIEW_MAX_ROWS lines and pages shown
 *     ("(N more)" after them), and never a dense line x thread matrix
 *     beyond the object's own distinct threads.
 */
#ifndef HPCVIEWER_SHARINGVIEW_H
#define HPCVIEWER_SHARINGVIEW_H

#include <stdint.h>

#include "strbuf.h"

#define SHARINGVIEW_MAX_BYTES ((uint64_t)256 << 20)
#define SHARINGVIEW_MAX_LINE 65536
#define SHARINGVIEW_MAX_ROWS 64
#define SHARINGVIEW_MAX_THREADS 16

struct sharingview;

/*
 * Reads DBDIR/sharing.tsv.  Returns the view (free with sharingview_free),
 * or NULL: with *missing set when the database has none, else with
 * hpc_lasterr() naming the file and line.
 */
struct sharingview *sharingview_load(const char *dbdir, int *missing);
/* Frees sv (NULL accepted). */
void sharingview_free(struct sharingview *sv);

/*
 * Appends the detail of the object whose experiment.xml i is node, one
 * line per '\n': a summary line, then "threads x lines", then "page x
 * node"; returns 0, or -1 (nothing appended) when the file has no row of
 * that object.
 */
int sharingview_detail(const struct sharingview *sv, uint32_t node,
		       struct strbuf *out);

#endif
