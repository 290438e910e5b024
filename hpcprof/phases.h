/*
 * phases.h - synchronization and phases in hpcprof: the
 * .hpcsync file hpcrun writes beside each thread's profile (hpcrun(5))
 * becomes metrics at the waiting sites of the calling context tree, columns
 * of threads.tsv, the database's phases.tsv (hpcprof-database(5)) and the
 * "Barriers and phases" table of --text.
 *
 * Invariants:
 *  1. A site of the experiment is one (kind, load module, call address) of
 *     the profiles: the same call in every thread and process is one site,
 *     whatever hpcrun's process-wide ids were; a site without a call path
 *     (node 0) is one per (process, hpcrun id).  Site 0 is thread start.
 *     A call reached through Python frames (HPCPY_MODULE nodes above it)
 *     is one site per Python path, its label the innermost Python call of
 *     the program's own code (not the interpreter's library, under a
 *     ".../lib/pythonX.Y/" directory), or else the innermost; a call the
 *     interpreter's take_gil or drop_gil makes (a libpython or python
 *     module's) is a wait for the GIL, its label ending in " (GIL wait)".
 *  2. The waiting-site metrics (PHASES_METRICS below) are raw metrics
 *     registered before any profile is added, and enter the tree as values
 *     of the thread whose file measured them, below the call site in a
 *     frame "<wait in FUNCTION>": inclusive up the call path, exclusive in
 *     that frame; per thread in thread-values.tsv like any metric.
 *  3. Everything kept is linear in the files read: per-(site, thread),
 *     per-(phase kind, thread) and per-episode records, never a dense
 *     site x thread matrix.  Episodes are what hpcrun kept (its bound).
 *  4. Phase kinds are (start site, end site) pairs; their per-phase
 *     profile is the PHASE node of the pair (experiment.h invariant 4),
 *     from hpcrun's "E" placeholders below a start's "S" (hpcrun(5));
 *     code right below an "S" is the PHASE node of the start alone, the
 *     phases whose end is not known, which is every kind's of that start
 *     where the profiles have no "E" of it (an older hpcrun's).
 *  5. Measurements with .hpcsync files are correlated on par_correlate's
 *     workers (parallel.h) like any: each worker's experiment has phases
 *     of its own (phases_new_worker), numbering the sites it meets in
 *     its threads' order, and experiment_merge() merges them in worker
 *     order: a worker's sites are found by their key or made in the
 *     target (so global site numbers are those of adding every thread
 *     in order), its rows, phase kinds and episodes follow with their
 *     sites renumbered, and its PHASE nodes (keyed by site) merge like
 *     code nodes.  A worker without synchronization data leaves
 *     "^Phases " alone.  hpcprof-mpi's ranks are workers too: a
 *     worker's phases travel with its tree (experiment-wire.h,
 *     invariant 5) and merge the same way, in rank order.
 *  6. MPI_Barrier episodes are aligned across ranks: episode N of each
 *     rank at a communicator of one size is one episode (ranks number
 *     their episodes per communicator); arrivals are put on rank 0's
 *     clock by the file's clock offset (0 for ranks of rank 0's host), and
 *     each rank's wait is its arrival to the last rank's, which arrived
 *     last.  Two communicators of one size in one rank are not told
 *     apart.
 *  7. A lock site is the MPI runtime's, and left out of phases.tsv and
 *     --text (one line says how many and their wait) unless all_locks,
 *     when the innermost frame of its call path, from the call up, that
 *     is in an MPI runtime library (libmpi*, Open MPI's libopen-* and
 *     mca_*, PMIx, PRRTE, libevent, hwloc, UCX, libfabric: by name,
 *     wherever installed) or in the program's own code (the executable,
 *     or a library outside /lib* and /usr/lib*) is the runtime's, or
 *     there is neither (its progress threads).  System libraries and
 *     hpcrun's are passed over; a site without a call path is kept.  The
 *     waiting-site metrics of the tree keep every site.
 *
 * Definitions (phases.tsv and --text): wait = arrival to last arrival
 * (Scalasca); completion = last arrival to departure; load-balance
 * efficiency of a site = mean / max over its threads of the work of the
 * phases ending there (POP); imbalance gain = summed wait / threads
 * (VTune).
 */
#ifndef HPCPROF_PHASES_H
#define HPCPROF_PHASES_H

#include <stddef.h>
#include <stdio.h>

#include "database.h"
#include "experiment.h"
#include "hpcsync.h"
#include "strbuf.h"

struct phases;
struct wire_cursor;

/* all_locks: keep the lock sites of the MPI runtime (invariant 7) in
 * phases.tsv and --text. */
struct phases *phases_new(int all_locks);
/* Frees ph and the files it took (NULL accepted). */
void phases_free(struct phases *ph);

/* What to subtract from a time of s's process to put it on rank 0's
 * clock (invariant 6): its clock offset, 0 on rank 0's host. */
int64_t phases_clock_offset(const struct hpcsync *s);

/*
 * Reads the .hpcsync file beside profile (if there is one), whose header
 * and identity are p.  Returns it (the caller passes it to phases_check
 * and phases_thread), NULL when there is none, or NULL with *bad set and
 * hpc_lasterr() naming the file when it is malformed or says another
 * thread than p (the caller warns; the profile is used without it).
 */
struct hpcsync *phases_read(const char *profile,
			    const struct hpcrun_profile *p, int *bad);

/*
 * Checks s (NULL accepted) against its thread's whole profile p: every
 * site's node is 0 or one of p's (else the site would be taken for
 * another).  0, or -1 with hpc_lasterr() naming the file (the caller
 * warns and passes phases_thread NULL instead of s).
 */
int phases_check(const struct hpcsync *s, const struct hpcrun_profile *p);

/* Registers the metrics at the waiting sites in m (before any profile is
 * added) when any file was read (any is 1). */
void phases_register(struct phases *ph, struct metrics *m, int any);

/* The threads.tsv columns ("\tNAME...") when any file was read, else
 * NULL; valid while ph lives. */
const char *phases_thread_columns(const struct phases *ph);
/* Appends to cols a thread's values of those columns, from its file s
 * (NULL: it had none, or it was ignored); nothing when no file was
 * read. */
void phases_columns(const struct phases *ph, const struct hpcsync *s,
		    struct strbuf *cols);

/*
 * Takes s (NULL: the thread had none) as the file of thread t, whose
 * profile is p and process key proc ("host:pid"), and sets
 * e->cap[CAP_PHASES] to ph, so that experiment_add_profile() adds the values s measured at
 * calls with p and keys p's PHASE nodes by this thread's sites
 * (phases_profile_hook).
 */
void phases_thread(struct phases *ph, struct experiment *e, size_t t,
		   const struct hpcsync *s, const struct hpcrun_profile *p,
		   const char *proc);
/*
 * Adding a profile (experiment.h, struct profile_hook): its "^Phases "
 * subtree to PHASE nodes, then the values the thread's file measured at
 * calls (e->cap[CAP_PHASES], set by phases_thread), each site noting its
 * call.
 */
extern const struct profile_hook phases_profile_hook;

/* A worker's phases (experiment_new_worker): ph's metrics, no sites. */
struct phases *phases_new_worker(const struct phases *ph);
/*
 * Merging worker from's experiment into one with phases into
 * (experiment_merge, invariant 5): phases_merge_sites finds or makes
 * from's sites in into, in from's order; phases_merge_key is into's key
 * of from's PHASE node key k (k itself when from is NULL);
 * phases_merge_end moves from's rows into into, its sites' call nodes
 * through map (from's node ids -> into's nodes).
 */
void phases_merge_sites(struct phases *into, struct phases *from);
uint32_t phases_merge_key(const struct phases *from, uint32_t k);
void phases_merge_end(struct phases *into, const struct phases *from,
		      struct node **map);

/* A worker's phases as bytes, after its tree's nodes (experiment-wire.h,
 * invariant 5); and back into ph, the empty phases of w, the worker
 * experiment whose nodes were read: 0, or -1 when the bytes are
 * malformed. */
void phases_wire_write(const struct phases *ph, struct strbuf *sb);
int phases_wire_read(struct phases *ph, const struct experiment *w,
		     struct wire_cursor *c);

/* Names the PHASE nodes of e for their sites; when any file was read,
 * gives the waiting-site metrics the number of threads that had one
 * (their means) and writes phases.tsv into db.  0, or -1 with
 * hpc_lasterr() naming the file. */
int phases_finish(struct phases *ph, struct experiment *e,
		  struct database *db);

/* Is raw metric m one of the waiting-site metrics (invariant 2)? */
int phases_metric(const struct phases *ph, size_t m);

/* The "Barriers and phases" table of --text (nothing without files). */
void phases_report(const struct phases *ph, const struct experiment *e,
		   FILE *f, size_t top);

#endif
