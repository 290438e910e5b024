/*
 * threadname.h - the name users read for a thread of an experiment, the
 * same in hpcprof's text report and in hpcviewer-tui (hpcprof-database(5),
 * threads.tsv): "thread N", N the thread's line of threads.tsv; in an MPI
 * measurement "rank R thread T" (T its thread-id, its number in its
 * process), or "rank R" when rank R has one thread.
 *
 * Invariants:
 *  1. A measurement is an MPI measurement when some thread has a rank
 *     other than 0, or a RANK element in its identity tuple (HPCToolkit's
 *     MPI profiles): a program that is not an MPI program has rank 0
 *     everywhere.  A one-rank MPI run without RANK elements is therefore
 *     named by threads, which is what it has.
 *  2. A thread whose rank or thread-id is unknown ("-" in threads.tsv) is
 *     "thread N" (or "rank R thread N" when only the thread-id is), and
 *     so is a thread number no line names.
 */
#ifndef HPC_THREADNAME_H
#define HPC_THREADNAME_H

#include <stddef.h>

struct strbuf;
struct hmap;

struct thread_names {
	struct thread_rank_tid {
		long rank, tid;	/* -1: unknown */
	} *th;			/* [n] */
	size_t n, alloc;
	int tuple_rank;		/* some identity had a RANK element */
	struct hmap *per_rank;	/* rank -> its threads + 1 */
};

#define THREAD_NAMES_INIT { 0 }

/*
 * Records thread t (0..): its rank and thread-id as threads.tsv writes them
 * (decimal, or "-" / NULL when unknown), and whether its identity tuple had
 * a RANK element.
 */
void thread_names_set(struct thread_names *tn, size_t t, const char *rank,
		      const char *tid, int tuple_rank);

/*
 * Reads the threads of PATH, a threads.tsv.  Returns 0; -1 with
 * hpc_lasterr() naming the file when it cannot be read (a missing file
 * leaves tn empty and is not an error: threads are then "thread N").
 */
int thread_names_read(struct thread_names *tn, const char *path);

/* Is this an MPI measurement (invariant 1)? */
int thread_names_mpi(const struct thread_names *tn);

/* Appends thread t's name to out: "thread 3", "rank 1 thread 3",
 * "rank 1". */
void thread_names_label(const struct thread_names *tn, size_t t,
			struct strbuf *out);

/* Resets out to thread t in a table whose column says "thread": its
 * number, or in an MPI measurement its name; returns out->buf. */
const char *thread_names_field(const struct thread_names *tn, size_t t,
			       struct strbuf *out);

/* Frees what tn holds and empties it (NULL fields accepted). */
void thread_names_release(struct thread_names *tn);

#endif
