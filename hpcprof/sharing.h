/*
 * sharing.h - sharing patterns, false sharing and NUMA locality per data
 * object: the .hpcshare file hpcrun --sharing writes beside
 * each thread's profile (hpcrun(5), lib/hpcshare.h) becomes a label per
 * object of the data tree (experiment.xml's DATA:sharing and DATA:remote%
 * columns), the database's sharing.tsv (hpcprof-database(5)) and the
 * "Sharing" and "NUMA" sections of --text.
 *
 * Invariants:
 *  1. An access belongs to the data tree object its file's object names:
 *     the object's NODE is looked up among the data nodes of the thread's
 *     own profile as datatree_classify() made them (datatree_id), so an
 *     object is named exactly as the data tree names it.  An object whose
 *     node is no allocation path or variable of that profile is left out
 *     with one warning naming the file.
 *  2. The accesses of all threads are merged in time order (ties: thread
 *     number, then file order).  A 64-byte line is (process, address &
 *     ~63), a page (process, address & ~(page size - 1)): blocks of one
 *     allocation path in two threads are never one line.
 *  3. The label of a line comes from what threads do to it while they
 *     run concurrently, never from the union of every access over the
 *     run.  An access is concurrent when another thread of its process
 *     is alive at its time (the files' spans; a file without one: alive
 *     throughout) and an access of another thread of the process lies
 *     within SHARE_WINDOW_NS of it (both threads are running); page
 *     faults (first touches) are not accesses here.  So main's initialization before its threads start
 *     and its final read after they end make no line shared.  A line
 *     that meets none of the rules below has "too few samples".  Over a
 *     line's concurrent accesses (size unknown: one byte), with at least
 *     SHARE_MIN_ACCESSES of them, a thread takes part with at least
 *     SHARE_MIN_THREAD:
 *       private            one thread takes part (or none); also a line
 *                          with fewer concurrent accesses, all of one
 *                          thread, and SHARE_MIN_ACCESSES accesses in all
 *                          (used at other times only: main's
 *                          initialization, a program of one thread);
 *       read-shared        several, none writes;
 *       producer-consumer  several, one writes;
 *       false-sharing      several write, no byte written by two;
 *       migratory          several write a common byte, and most of
 *                          the writes are by threads seen reading what
 *                          they write (a read-modify-write: a record
 *                          updated in turn under a lock, a shared
 *                          counter): the line moves whole.  Most, not
 *                          all: a thread with few samples may show its
 *                          writes and not its reads;
 *       write-shared       several write a common byte otherwise.
 *     Its cost is its ownership transfers: a concurrent access of a
 *     thread holding no copy since the line's last write, when that
 *     write was by another thread within the window.  A private or
 *     read-shared line costs nothing: its transfers involve a writer
 *     with too few samples to take part, no evidence for its label (a
 *     producer-consumer line whose writer's stores, cheap beside the
 *     reads that miss, were sampled once).  A page's label is the most
 *     serious of its lines' (false-sharing > write-shared > migratory >
 *     producer-consumer > read-shared > private).  An object's lines'
 *     label is that of its lines with the most transfers in all, then
 *     with the most concurrent accesses (ties: the more serious label).
 *     Its pooled label (sharing_pooled_label) comes from the accesses of
 *     all its lines together, with the same thresholds: a large object's
 *     lines are each seen too seldom for a label (a table every thread
 *     reads, a buffer one thread fills each round for another, a record
 *     handed on under a lock, the records of a work queue, each seen
 *     once or twice), and a queue's lock line is no label for its items.
 *     Concurrent here has SHARE_POOL_WINDOW_NS for its window: an
 *     object's threads work on it at about the same time, not on one
 *     line at the same instant, and on a busy machine a producer's few
 *     sampled stores seldom fall within 10 ms of a consumer's sample
 *     (threads alive still decide, so main's initialization stays
 *     apart).  A thread writes when it has SHARE_MIN_THREAD writes; the
 *     first rule that holds gives the label:
 *       private            one thread takes part;
 *       read-shared        several take part, none writes;
 *       producer-consumer  one writes; or several write, none of them
 *                          reads, and a thread taking part only reads:
 *                          producers fill what consumers read (a work
 *                          queue's records, each seen once, producers
 *                          and consumers each a role of their own),
 *                          data flowing one way, where in migratory each
 *                          thread reads and writes in turn;
 *       private            several write and no line has accesses of
 *                          two threads;
 *       producer-consumer  one makes two thirds of the writes and
 *                          writes more lines than any other writer, or
 *                          writes 4 lines or more and twice as many as
 *                          any other writer (the others' writes are
 *                          indices and locks: one writer, then readers;
 *                          two threads writing one line, one more often
 *                          than the other, are no producer and
 *                          consumer);
 *       migratory          several write, none twice the lines of
 *                          another, and a writer also reads (each reads
 *                          and writes it in turn; sampling skid hides
 *                          most loads of a read-modify-write, so one
 *                          read is evidence enough);
 *       write-shared       the same with no read.
 *     Its transfers are all its lines'.  The object's label is the pooled
 *     one, marked pooled, where the two differ, unless its lines' label
 *     is false-sharing (a line's evidence, kept with its detail) and
 *     its false-sharing lines hold half its pooled accesses or more (the
 *     pooled evidence is then mostly theirs: per-thread counters in one
 *     line, one thread's writes sampled too seldom to take part), or the
 *     pooled label is neither producer-consumer (one thread writes the
 *     object for the others: a queue whose indices share a line) nor
 *     backed by other lines written by two threads, at least 4 and
 *     twice its false-sharing lines (a record handed on under a lock
 *     whose mutex and condition variable words share a line, each
 *     thread waiting on its own word; not the few lines where structs of
 *     one thread each meet); otherwise its lines'.  A producer-consumer
 *     label wins even over false-sharing lines that hold most of the
 *     evidence when its producer writes 4 lines more than them and no
 *     other writer more than 2 beyond them (a queue whose consumer spins
 *     on its control line; not per-thread counters, nor structs of one
 *     thread each, whose writers each write lines of their own).  An
 *     object with neither has too few samples.
 *  4. Latent false sharing of a block: its threads' written byte ranges
 *     (offsets in the block), placed at another alignment (start % 64)
 *     the same allocation could have (a heap block: 0, 16, 32, 48; a
 *     static variable whose start's alignment A is below 64: the
 *     multiples of A), would make a line false-sharing (two threads write
 *     it, no byte written by both) while at the observed alignment no line
 *     is: predicted, never observed.
 *  5. NUMA (hpcshare.h topology): a page's home is the node of the CPU of
 *     its earliest first-touch access (FIRST 1), unknown without one; an
 *     access with a known home is remote when its CPU's node differs.
 *     Remote shares are over the accesses with a known home that are not
 *     first touches: a first touch is local by definition and sampled by
 *     another event than the accesses, so counting them would bias the
 *     share.  An object's NUMA advice needs SHARE_MIN_ACCESSES homed
 *     accesses, not a line label: a big block has too few samples a line
 *     long before it has too few homed accesses.
 *  6. Memory is linear in the accesses read; nothing is written and no
 *     column added when no .hpcshare file was read (every other output
 *     is the same with or without sharing files).
 *  7. An object is watched when any of its blocks' file objects is
 *     ("watched OID", hpcrun --watch).  Watched objects come first in
 *     --text and in sharing.tsv's object rows (then a "watched" row
 *     each), and --text shows every one of them past its top count,
 *     marked "(watched)" ("(watched; pooled)" for a pooled label), or
 *     "(watched; too few samples: N)" with N its sampled accesses when
 *     its lines have too little evidence: the user asked about them by
 *     name.  Their labels follow the same rules.  An object whose label
 *     is pooled (invariant 3) has a "pooled" row in sharing.tsv, after
 *     the watched rows, and "(pooled)" after its name in --text.
 *  8. Measurements with .hpcshare files are correlated on par_correlate's
 *     workers (parallel.h) like any: each worker's experiment has sharing
 *     of its own (e->cap[CAP_SHARING]), and experiment_merge() merges them in
 *     worker order (sharing_merge): processes, blocks and access sources
 *     are found by their keys or made, accesses and spans follow in
 *     order, their sequence numbers after the target's, their objects
 *     the merged data tree's.  So every number is the one of adding the
 *     threads in order on one thread, whatever -j says; across
 *     hpcprof-mpi's ranks too, a worker's sharing travelling with its
 *     tree (sharing_wire_*).
 *  9. An access made by the heap allocator's own code (glibc's malloc.c:
 *     malloc, free and their internals, by procedure or source file) is
 *     no access of the program's data: a freed block's list links and a
 *     reused block's header are the allocator's, and with them every
 *     consumer that frees a producer's record would write it and every
 *     producer that mallocs would read one, a work queue turned
 *     migratory.  Such accesses are left out when the files are read;
 *     their first touches stay (a page's home is whoever touched it).
 */
#ifndef HPCPROF_SHARING_H
#define HPCPROF_SHARING_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "database.h"
#include "experiment.h"
#include "hpcshare.h"
#include "strbuf.h"

struct wire_cursor;

/* Labels, least serious first (invariant 3), after the two states of a
 * line, page or object that has none. */
enum share_label {
	SHARE_NO_ACCESS = -2,	/* an object none of whose lines was
				 * accessed */
	SHARE_TOO_FEW = -1,	/* too few samples for a label */
	SHARE_PRIVATE, SHARE_READ, SHARE_PRODCONS, SHARE_MIGRATORY,
	SHARE_WRITE, SHARE_FALSE,
	SHARE_NLABELS		/* the number of labels */
};

/* "private", "read-shared", "producer-consumer", "migratory",
 * "write-shared", "false-sharing". */
const char *sharing_label_name(enum share_label l);

/* One access of a line (sharing_line_label). */
struct share_access {
	uint64_t time, addr;
	uint32_t thread;
	uint8_t size, rw;	/* 0: unknown (1 byte); enum hpcshare_rw */
};

/* Concurrency windows of a line's and a pooled label, evidence
 * thresholds (invariant 3). */
#define SHARE_WINDOW_NS 10000000ull
#define SHARE_POOL_WINDOW_NS 100000000ull
#define SHARE_MIN_ACCESSES 8
#define SHARE_MIN_THREAD 2

/* The label of one line from its concurrent accesses a[0..n) in time
 * order, SHARE_TOO_FEW for too few samples; its ownership transfers in
 * *ntransfers (invariant 3). */
enum share_label sharing_line_label(const struct share_access *a, size_t n,
				    uint64_t *ntransfers);

/* The pooled label of an object from its concurrent accesses a[0..n)
 * (within SHARE_POOL_WINDOW_NS), all its lines together, in time order:
 * SHARE_TOO_FEW for too few samples, and the evidence behind it in *ev
 * (invariant 3). */
struct share_pooled {
	uint64_t transfers;	/* its lines' ownership transfers */
	size_t shared;		/* lines two threads or more write */
	size_t top_lines;	/* lines of the writer that writes the most */
	size_t second_lines;	/* and of the next one */
};
enum share_label sharing_pooled_label(const struct share_access *a, size_t n,
				      struct share_pooled *ev);

/* A write of a block: its offset, size (0: 1 byte) and thread. */
struct share_write {
	uint64_t offset;
	uint32_t thread;
	uint8_t size;
};

/*
 * The alignments (start % 64) at which the writes w[0..n) of a block
 * that starts at start make a false-sharing line: bit a of the result for
 * alignment a.  heap: the candidates are 0, 16, 32, 48; else the
 * multiples of start's alignment when it is below 64 (invariant 4); the
 * observed alignment is always a candidate.
 */
uint64_t sharing_false_alignments(const struct share_write *w, size_t n,
				  uint64_t start, int heap);

struct sharing;

struct sharing *sharing_new(void);
/* Frees sh (NULL accepted). */
void sharing_free(struct sharing *sh);

/*
 * Reads the .hpcshare file beside profile (if there is one).  Returns it,
 * NULL when there is none, or NULL with *bad set and hpc_lasterr()
 * naming the file when it is malformed (the caller warns).
 */
struct hpcshare *sharing_read(const char *profile, int *bad);

/* Before a profile whose file is s (NULL: none) is added to e. */
void sharing_before(struct sharing *sh, struct experiment *e,
		    const struct hpcshare *s);

/*
 * After experiment_add_profile(): takes the accesses of s (NULL: none) as
 * thread t's, of process proc ("host:pid").  Returns 0, or -1 with
 * hpc_lasterr() naming the file when some of its objects name no data
 * object (the rest is used).
 */
int sharing_thread(struct sharing *sh, struct experiment *e, size_t t,
		   const struct hpcshare *s, const char *proc);

/*
 * Merging worker w's experiment into one whose sharing is into
 * (experiment_merge, invariant 8): from (w's) follows into's; map takes
 * w's node ids to the target's nodes (its data objects).
 */
void sharing_merge(struct sharing *into, const struct sharing *from,
		   const struct experiment *w, struct node **map);

/*
 * A worker's sharing as bytes, after its data tree (experiment-wire.h,
 * invariant 6): processes, access sources, blocks (their objects as
 * indices of the data tree), spans and accesses in order.
 * sharing_wire_read fills sh, the empty sharing of w, the worker
 * experiment whose nodes and data tree were read: 0, or -1 when the
 * bytes are malformed.
 */
void sharing_wire_write(const struct sharing *sh, struct strbuf *sb);
int sharing_wire_read(struct sharing *sh, const struct experiment *w,
		      struct wire_cursor *c);

/*
 * Classifies, sets each object's label and remote share in e's data tree
 * and writes sharing.tsv into db (db NULL: no file) when any file was
 * read; on nthreads threads at most (hpcprof -j: from 2 on, the accesses
 * are put in line order on a second).  0, or -1 with hpc_lasterr() naming
 * the file.
 */
int sharing_finish(struct sharing *sh, struct experiment *e,
		   struct database *db, unsigned nthreads);

/* The "Sharing" and "NUMA" sections of --text (nothing without files). */
void sharing_report(const struct sharing *sh, const struct experiment *e,
		    FILE *f, size_t top);

#endif
