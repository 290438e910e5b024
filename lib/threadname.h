/*
 * threadname.h - the name users read for a thread of an experiment, the
 * same in hpcprof's text report and in hpcviewer-tui (hpcprof-database(5),
 * threads.tsv): "thread T", T its thread-id (the THREAD of its profile's
 * name, its number in its process); "process P thread T" when the
 * measurement holds several processes of one rank (a program that forks,
 * a process tree), P the process id; in an MPI measurement "rank R" before
 * that, and "rank R" alone when rank R has one thread.
 *
 * Invariants:
 *  1. A measurement is an MPI measurement when some thread has a rank
 *     other than 0, or a RANK element in its identity tuple (HPCToolkit's
 *     MPI profiles): a program that is not an MPI program has rank 0
 *     everywhere.  A one-rank MPI run without RANK elements is therefore
 *     named by threads, which is what it has.
 *  2. A thread whose thread-id is unknown ("-" in threads.tsv) is named
 *     by N, its line of threads.tsv, and so is a thread number no line
 *     names: "thread N" (or "rank R thread N" when only the thread-id is
 *     unknown).  No two lines of one measurement get the same name while
 *     their identities differ.
 *  3. threads.tsv is read (threads_tsv_read) only as a regular file of at
 *     most THREADS_TSV_MAX_BYTES with lines of at most
 *     THREADS_TSV_MAX_LINE bytes, its rows numbered 0, 1, ... in order,
 *     so that what a reader keeps is linear in the file whatever numbers
 *     it holds; anything else is refused in one line naming the file and
 *     the line.
 */
#ifndef HPC_THREADNAME_H
#define HPC_THREADNAME_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;
struct hmap;

#define THREADS_TSV_MAX_BYTES ((uint64_t)1 << 30)
#define THREADS_TSV_MAX_LINE 8192

/* A row of threads.tsv (hpcprof-database(5)): its thread, profile and
 * identity; program, process, rank and thread-id are NULL in a file of
 * fewer than seven columns. */
struct threads_tsv_row {
	size_t thread;
	const char *profile, *identity;
	const char *program, *process, *rank, *tid;
};

/*
 * Reads PATH, a threads.tsv (invariant 3), calling row(r, arg) for each
 * row; row returns 0, or -1 to stop (hpc_lasterr() set).  The strings of
 * r are valid during the call only.  Returns the number of rows, 0 with
 * *missing set when there is no such file, or -1 with hpc_lasterr() set
 * ("'DB/threads.tsv': line 3: ...").
 */
long threads_tsv_read(const char *path, int *missing,
		      int (*row)(const struct threads_tsv_row *r, void *arg),
		      void *arg);

struct thread_names {
	struct thread_rank_tid {
		long rank, tid, process;	/* -1: unknown */
	} *th;			/* [n] */
	size_t n, alloc;
	int tuple_rank;		/* some identity had a RANK element */
	int processes;		/* some rank has threads of two processes */
	struct hmap *rank_process;	/* rank -> a process of it + 1 */
	struct hmap *per_rank;	/* rank -> its threads + 1 */
};

#define THREAD_NAMES_INIT { 0 }

/*
 * Records thread t (0..): its process, rank and thread-id as threads.tsv
 * writes them (decimal, or "-" / NULL when unknown), and whether its
 * identity tuple had a RANK element.
 */
void thread_names_set(struct thread_names *tn, size_t t, const char *process,
		      const char *rank, const char *tid, int tuple_rank);

/*
 * Reads the threads of PATH, a threads.tsv (threads_tsv_read).  Returns
 * 0; -1 with hpc_lasterr() naming the file when it cannot be read or is
 * malformed (a missing file leaves tn empty and is not an error: threads
 * are then "thread N").
 */
int thread_names_read(struct thread_names *tn, const char *path);

/* Is this an MPI measurement (invariant 1)? */
int thread_names_mpi(const struct thread_names *tn);

/* Appends thread t's name to out: "thread 3", "process 4242 thread 0",
 * "rank 1 thread 3", "rank 1". */
void thread_names_label(const struct thread_names *tn, size_t t,
			struct strbuf *out);

/* Resets out to thread t in a table whose column says "thread": its
 * number, or in an MPI measurement its name; returns out->buf. */
const char *thread_names_field(const struct thread_names *tn, size_t t,
			       struct strbuf *out);

/* Frees what tn holds and empties it (NULL fields accepted). */
void thread_names_release(struct thread_names *tn);

#endif
