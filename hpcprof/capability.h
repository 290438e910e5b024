/*
 * capability.h - the measurements hpcprof correlates besides the code
 * tree's samples, each one table of hooks over its whole life, called by
 * the hub (run.c, parallel.c, hpcprof-mpi.c, experiment.c,
 * experiment-wire.c, report.c) through prof_capabilities[] and never by
 * name:
 *
 *   mix_capability      instruction-mix metrics (mix.c)
 *   phases_capability   synchronization and phases, .hpcsync (phases.c)
 *   data_capability     the data-centric tree, hpcrun --data (datatree.c)
 *   sharing_capability  sharing between threads, .hpcshare (sharing.c)
 *   trace_capability    call-path traces, .hpctrace (trace.c)
 *   python_capability   Python frames' procedures, .hpcpy (python.c)
 *
 * Lifecycle: where the hub calls each hook.
 *
 *   run.c              new (the run's state), then for each profile, on
 *                      the readers' threads (par_read_heads), read (its
 *                      side file); structures once every side file is
 *                      read, before the profiles' modules are
 *                      registered; metrics once the raw metrics are
 *                      registered; thread_columns for the database;
 *                      then its state given to the experiment
 *                      (invariant 2)
 *   each thread        prof_thread_add (capability.c), the one per-thread
 *                      driver of hpcprof -j 1, its workers and
 *                      hpcprof-mpi's ranks: thread_begin, the profile
 *                      walked (walk, experiment.c), thread_end; then,
 *                      on the calling thread, in profile order,
 *                      prof_thread_say and columns (its row of
 *                      threads.tsv)
 *   experiment.c       new_worker in experiment_new_worker, free in
 *                      experiment_free (a worker's state); merge_begin,
 *                      then merge, in experiment_merge
 *   experiment-wire.c  wire_write and wire_read: a worker's state on the
 *                      wire between hpcprof-mpi's ranks
 *   parallel.c         mergeable (prof_mergeable; hpcprof-mpi.c too,
 *                      across ranks): whether the workers' trees merge
 *                      into the one of adding in order; side_free of
 *                      the side files dropped (prof_thread_say;
 *                      hpcprof-mpi.c drops on rank 0 those another rank
 *                      dropped)
 *   run.c              finish (its tables of the database), then
 *                      report (report.c, its sections of --text), then
 *                      free (the run's state)
 *
 * Invariants:
 *  1. At each point the hub calls the hook of every capability in the
 *     order of prof_capabilities[] (mix, phases, data, sharing, trace,
 *     python), but
 *     thread_end, finish, report and free in the reverse order: the last
 *     capability ends first (sharing's messages, tables and report
 *     sections before the data tree's and the phases').  The order is
 *     the databases' and reports': the metrics mix registers come before
 *     the phases', and a capability reads those before it (sharing's wire
 *     data names the data tree's objects).  A NULL hook is skipped.
 *  2. A capability's state hangs off the run (new, free) and, while
 *     correlating, off each experiment at cap[] by its enum prof_cap
 *     index: the run's own experiment gets the run's state before the
 *     profiles are correlated (for a capability that reads side files,
 *     only when some profile has one, so that workers without have
 *     none), a worker's is new_worker's of it.  A NULL state is a
 *     capability that takes no part, and each hook given one says so by
 *     doing nothing.
 *  3. A side file belongs to its input (run.c) from read to the end of
 *     the run; the workers only read it.  A profile that cannot be read
 *     again, and a hook that fails for a thread, drop it: the calling
 *     thread frees it when it says so (prof_thread_say), and the thread's
 *     row then has the columns of none.
 *  4. What a thread's hooks say is kept (struct prof_said) and said by
 *     the calling thread in profile order, whatever thread added it
 *     (parallel.h, invariant 5), hence in the same words with -j 1, -j N
 *     and hpcprof-mpi.
 *  5. Adding a capability adds a table in its own files and an entry in
 *     prof_capabilities[] and enum prof_cap, never a call by name in the
 *     hub.
 */
#ifndef HPCPROF_CAPABILITY_H
#define HPCPROF_CAPABILITY_H

#include <stddef.h>
#include <stdio.h>

#include "hpcrun-fmt.h"

struct database;
struct experiment;
struct hpcprof_options;
struct metrics;
struct node;
struct profile_hook;
struct strbuf;
struct wire_cursor;

/* Indices of prof_capabilities[], of a run's and an experiment's cap[]
 * and of an input's side[]. */
enum prof_cap {
	CAP_MIX,
	CAP_PHASES,
	CAP_DATA,
	CAP_SHARING,
	CAP_TRACE,
	CAP_PYTHON,
	NCAPS			/* the number of capabilities */
};

struct prof_capability {
	const char *name;
	/* The run's state (NULL: none) from the options; freed by free. */
	void *(*new)(const struct hpcprof_options *o);
	void (*free)(void *state);
	/*
	 * The side file beside profile (p its header), or NULL when there is
	 * none; NULL with *bad set and hpc_lasterr() the message when it is
	 * malformed.  Any thread.  ignored ends the message said then.
	 */
	void *(*read)(const char *profile, const struct hpcrun_profile *p,
		      int *bad);
	void (*side_free)(void *side);
	const char *ignored;
	/*
	 * The structures of the pseudo load modules it knows (a module
	 * that is no binary), from the side files of the n profiles read
	 * (profiles[i] without its nodes, NULL: unreadable; sides[i]: its
	 * side file, NULL: none), given to e with experiment_add_structure
	 * before the profiles' modules are registered.  Says its own
	 * warnings.
	 */
	void (*structures)(void *state, struct experiment *e,
			   const struct hpcrun_profile *const *profiles,
			   void *const *sides, size_t n);
	/* 1 when a profile's metric name is an attribute of this
	 * capability's (the data tree's DATA:*), not a sample metric: no raw
	 * metric is registered for it. */
	int (*attribute)(const char *metric);
	/* Registers its metrics in e->metrics; any: some profile has its
	 * side file. */
	void (*metrics)(void *state, struct experiment *e, int any);
	/* Its columns' heading in threads.tsv, or NULL; then a thread's
	 * columns, side its side file (NULL: none). */
	const char *(*thread_columns)(const void *state);
	void (*columns)(const void *state, const void *side,
			struct strbuf *cols);
	/* A worker's state for e's (NULL: none). */
	void *(*new_worker)(const void *state);
	/*
	 * Thread t of w (w->cap[] its states) before and after its profile
	 * p is walked; side is its side file (NULL: none), proc its process
	 * key ("host:pid").  thread_begin returns -1 with hpc_lasterr() when
	 * side does not fit p: it is dropped then (invariant 3).
	 * thread_end puts what it has to say into *said (a message to free;
	 * NULL: nothing) and returns 1 when that makes the exit status 1.
	 */
	int (*thread_begin)(struct experiment *w, size_t t, const void *side,
			    const struct hpcrun_profile *p, const char *proc);
	int (*thread_end)(struct experiment *w, size_t t, const void *side,
			  const char *path, const char *proc, char **said);
	/* Its part in walking a profile (experiment.h), or NULL. */
	const struct profile_hook *walk;
	/* 0 when the n workers' trees cannot be merged into the one of
	 * adding their profiles in order (parallel.h: PAR_ONE_THREAD). */
	int (*mergeable)(struct experiment *const *ws, size_t n);
	/* Worker w into e: merge_begin before its nodes, merge after them,
	 * map[w's id] = e's node. */
	void (*merge_begin)(struct experiment *e, const struct experiment *w);
	void (*merge)(struct experiment *e, const struct experiment *w,
		      struct node **map);
	/* w's state on the wire (experiment-wire.h); ids_only: the tree of
	 * ids rank 0 sends back.  wire_read returns 0, or -1 when
	 * malformed. */
	void (*wire_write)(const struct experiment *w, struct strbuf *sb,
			   int ids_only);
	int (*wire_read)(struct experiment *w, struct wire_cursor *c);
	/* Its tables in the database; 0 or -1 with hpc_lasterr(). */
	int (*finish)(void *state, struct experiment *e, struct database *db,
		      unsigned jobs);
	/* In --text: 1 when metric m, with a total of 0, is left out;
	 * its table of metric m (label, scale: as the metric is shown),
	 * after the code's; its sections after the metrics'. */
	int (*report_hides)(const void *state, size_t m);
	void (*report_metric)(FILE *f, const struct experiment *e, size_t m,
			      const char *label, double scale, size_t top);
	void (*report)(const void *state, const struct experiment *e, FILE *f,
		       size_t top);
};

extern const struct prof_capability mix_capability;
extern const struct prof_capability phases_capability;
extern const struct prof_capability data_capability;
extern const struct prof_capability sharing_capability;
extern const struct prof_capability trace_capability;
extern const struct prof_capability python_capability;

/* The table, in the hub's order (invariant 1), by enum prof_cap. */
extern const struct prof_capability *const prof_capabilities[NCAPS];

/* 1 when the n workers' trees merge into the one of adding their
 * profiles in order: every capability's mergeable says so. */
int prof_mergeable(struct experiment *const *ws, size_t n);

/* One profile to add (prof_thread_add; parallel.h): its path and metric
 * map (experiment_add_profile), its side files (by enum prof_cap, NULL
 * each: none) and its process key proc ("host:pid"). */
struct prof_input {
	const char *path;
	const int *map;
	void **side;
	const char *proc;
};

/* What adding a thread said (invariant 4): err when its profile could
 * not be read (and nothing else), else the capabilities' messages in the
 * order their hooks gave them. */
struct prof_said {
	char *err;
	char *said[2 * NCAPS];	size_t nsaid;
	unsigned drop;		/* bit c: side[c] dropped (invariant 3) */
	int failed;		/* makes the exit status 1 */
};

/*
 * Reads in's profile and adds it to w as thread t, with every
 * capability's part; into s (zeroed) what is to be said.  The profile
 * read is freed.
 */
void prof_thread_add(struct experiment *w, size_t t,
		     const struct prof_input *in, struct prof_said *s);
/*
 * Says s, frees side[c] for every side file dropped and sets it NULL
 * (side NULL: none to free), releases s; returns 1 when the exit status
 * is 1 because of it.
 */
int prof_thread_say(struct prof_said *s, void **side);
/* Frees what s holds and zeroes it. */
void prof_said_release(struct prof_said *s);

#endif
