/*
 * traceview.h - the trace view: when each thread was in which calling
 * context, from the database's traces (DBDIR/traces/N.hpctrace,
 * hpcprof-database(5)) mapped onto the model's scopes.  The data below
 * the screens: the curses trace screen (tracetui.c), the text of
 * --stdio --view trace (traceview_print) and the exports
 * (export-perfetto.c, export-firefox.c) all read it.
 *
 * Invariants:
 *  1. Rows are the threads that have a trace, in thread order, each named
 *     as every view names it (lib/threadname.h); a trace the reader
 *     refuses or cuts short (hpctrace.h, invariant 4) is said in
 *     tv->problems, one line a file, and what it kept is shown.
 *  2. Traces are checked when they load (hpctrace_check, one pass: order,
 *     and each id against tv's table of ids) while the checked ones add
 *     up to at most TRACEVIEW_CHECK_BYTES; the rest open at once,
 *     unchecked (hpcprof checks the traces it writes), so that loading
 *     takes a bounded time however large the traces are.  A
 *     record whose id names no code scope is shown as no activity
 *     (traceview_record): a lookup never fails, and such a record ends
 *     nothing, so a row keeps its records after it; a checked trace
 *     that has any is said in one line (how many, the first id).
 *  3. A picture costs one binary search per cell (rows x columns x log of
 *     the records, Tallent et al., ICS'11), whatever the traces' length;
 *     the cell shows the sample at or before the middle of its column.
 *  4. A cell shows a procedure frame of its sample's call path at the
 *     picture's depth: depth 1 is the outermost frame, 2 the one it
 *     called, and so on; a path with fewer frames, and depth 0, show its
 *     deepest.  Procedures are told apart by name: one letter a name.
 *  5. Times are nanoseconds of the database's clock; tv->t0 and tv->t1
 *     are the earliest and latest record of any row, and every time shown
 *     or exported counts from t0.  tv->from and tv->to, the window that
 *     --stdio and the exports show and the screen opens on, are t0 and t1
 *     unless traceview_window narrowed them.
 */
#ifndef HPCVIEWER_TRACEVIEW_H
#define HPCVIEWER_TRACEVIEW_H

#include <stdint.h>
#include <stdio.h>

#include "hpctrace.h"
#include "strbuf.h"
#include "threadname.h"

struct model;

/* 256 MiB: about 22 million records, checked in a quarter of a second. */
#define TRACEVIEW_CHECK_BYTES ((uint64_t)256 << 20)

struct trace_row {
	size_t thread;		/* its line of threads.tsv */
	char *name;		/* "thread 3", "rank 1 thread 0", ... */
	long process;		/* from threads.tsv, -1 unknown */
	struct hpctrace *trace;
};

struct trace_id {		/* an experiment.xml id and its scope */
	uint32_t id, scope;
};

struct traceview {
	const struct model *m;
	struct trace_row *rows;
	size_t nrows;
	uint64_t t0, t1;		/* invariant 5 */
	uint64_t from, to;		/* the window: t0 <= from < to <= t1 */
	struct trace_id *ids;		/* sorted by id */
	size_t nids;
	size_t max_frames;		/* the longest call path, in frames */
	struct thread_names names;
	struct strbuf problems;		/* invariant 1 */
};

/*
 * The traces of m's database.  NULL with *missing set when it has no
 * traces/ directory (or no trace in it), or with hpc_lasterr() set when
 * threads.tsv is malformed.  Free with traceview_free; m must outlive it.
 */
struct traceview *traceview_load(const struct model *m, int *missing);
void traceview_free(struct traceview *tv);

/*
 * Narrows the window to seconds [from_s, to_s] after t0 (to_s < 0: to
 * t1), clamped to [t0, t1].  0, or -1 with hpc_lasterr() set when what is
 * left holds no time.
 */
int traceview_window(struct traceview *tv, double from_s, double to_s);

/* Records [*first, *end) of row r hold the window: the last at or
 * before from, and those up to to. */
void traceview_span(const struct traceview *tv, size_t r, uint64_t *first,
		    uint64_t *end);

/* The model scope of an experiment.xml id, or MODEL_NONE. */
uint32_t traceview_scope(const struct traceview *tv, uint32_t id);

/*
 * The frames of scope s's call path, outermost first, into out (room
 * for tv->max_frames); returns their number.
 */
size_t traceview_frames(const struct traceview *tv, uint32_t s,
			uint32_t *out);

/* What a row was doing at one time. */
enum trace_state { TRACE_BEFORE, TRACE_IDLE, TRACE_RUN, TRACE_WAIT };

/* What record r says (invariant 2): its state, and in *scope the leaf
 * scope of its context (RUN, WAIT) or MODEL_NONE (IDLE). */
enum trace_state traceview_record(const struct traceview *tv,
				  struct hpctrace_rec r, uint32_t *scope);

/* Row r's record at or before time: its state, and in *scope the leaf
 * scope of its context (RUN, WAIT) or MODEL_NONE. */
enum trace_state traceview_at(const struct traceview *tv, size_t r,
			      uint64_t time, uint32_t *scope);

/* One procedure of a picture's legend. */
struct trace_proc {
	uint32_t name;		/* interned name (model_str) */
	uint32_t frame;		/* a frame of it seen, for file and line */
	size_t cells;		/* cells showing it, waits included */
	char letter;
};

/* Cell values besides an index into procs[] (with TRACE_CELL_WAIT). */
#define TRACE_CELL_BEFORE UINT32_MAX	/* before the row's first record */
#define TRACE_CELL_IDLE (UINT32_MAX - 1)	/* no activity */
#define TRACE_CELL_WAIT 0x80000000u

/*
 * The window [from, to) of rows [row0, row0 + nrows) in ncols columns at
 * depth (invariant 4): cells[r * ncols + c] for the picture's row r,
 * procs sorted by cells (most first; then by name), each procedure's
 * letter the first of its name when no procedure before it has that one,
 * else the first free one of a-z, A-Z, 0-9, else '*'.
 */
struct trace_picture {
	uint64_t from, to;
	size_t row0, nrows, ncols, depth;
	uint32_t *cells;
	struct trace_proc *procs;
	size_t nprocs;
	size_t busy;		/* cells with a sample (RUN or WAIT) */
};

void trace_picture_make(const struct traceview *tv, uint64_t from,
			uint64_t to, size_t row0, size_t nrows, size_t ncols,
			size_t depth, struct trace_picture *p);
void trace_picture_release(struct trace_picture *p);
/* The time column c of p shows: the middle of its span. */
uint64_t trace_picture_time(const struct trace_picture *p, size_t c);
/* The character of a cell: its letter, '=' a wait, '.' no activity,
 * ' ' before the row's first record. */
char trace_picture_char(const struct trace_picture *p, uint32_t cell);

/* Appends "file:line" of frame scope s (nothing when unknown). */
void traceview_where(const struct traceview *tv, uint32_t s,
		     struct strbuf *out);

/*
 * --stdio --view trace: the picture of the window as text, width
 * characters a line (row names, then the columns), and its legend.
 * Returns 0, or -1 with hpc_lasterr() set when writing fails.
 */
int traceview_print(const struct traceview *tv, size_t depth, size_t width,
		    FILE *out);

#endif
