/*
 * hpctrace.h - the call-path trace of one thread, .hpctrace, format 01.01
 * (HPCToolkit's hpcrun -t trace): a 32-byte header, then 12-byte records
 * (time, calling-context id), the time order of the thread's samples.  The
 * same format holds a measurement's traces (ids: the thread's CCT node
 * ids, hpcrun(5) "Trace files") and a database's (ids: experiment.xml
 * scope ids, hpcprof-database(5) "Traces").
 *
 * Writer (lib/hpctrace-write.c) and reader (lib/hpctrace-read.c) side by
 * side, as lib/hpcrun-fmt-write.c and -read.c are.  Layout, big-endian:
 *     0  18  magic "HPCRUN-trace______"
 *    18   5  version "01.01"
 *    23   1  endian 'b'
 *    24   8  flags (0; HPCToolkit's data-centric and LCA bits are refused)
 *    32  12  records: time (u64 nanoseconds), id (u32), repeated
 *
 * Invariants:
 *  1. A record (t, id) says the thread was in context id from time t until
 *     the next record's time.  id HPCTRACE_ID_NONE (0) says it was doing
 *     nothing measured from t on (no samples: blocked, or ended); the
 *     writer of a trace ends it with one at the thread's end, so the last
 *     sample has its length.  An id with HPCTRACE_ID_WAIT set says the
 *     thread waited (a barrier or a lock) in context id & HPCTRACE_ID_MASK.
 *     These two are extensions of HPCToolkit's format, which has neither.
 *  2. Records are in non-decreasing time order: the writer writes a time
 *     earlier than its last as the last (a sample's clock read before a
 *     wait's end); hpctrace_check keeps the records before the first one
 *     out of order and says so, so a binary search over a checked trace is
 *     always right.  Over an unchecked one it still ends, on a record of
 *     the file: a bad file gives a wrong answer, never a bad access.
 *  3. The writer is async-signal-safe: no malloc, no stdio, no locks; it
 *     fills a caller's buffer and writes whole records with write(2), so a
 *     process killed between two writes leaves a trace that ends on a
 *     record boundary.
 *  4. The reader maps the file read-only (a regular file of at most
 *     HPCTRACE_MAX_BYTES) and reads records in place: memory does not grow
 *     with the trace, and opening it costs the same for any size.  A bad
 *     header refuses the file; a body cut inside a record, and with
 *     hpctrace_check one out of order or naming an unknown context, keeps
 *     the records before the first bad one, with one line naming the file
 *     and what is wrong in hpctrace->problem.
 */
#ifndef HPC_HPCTRACE_H
#define HPC_HPCTRACE_H

#include <stddef.h>
#include <stdint.h>

#define HPCTRACE_SUFFIX ".hpctrace"
#define HPCTRACE_MAGIC "HPCRUN-trace______"
#define HPCTRACE_VERSION "01.01"
#define HPCTRACE_HDR_BYTES 32
#define HPCTRACE_REC_BYTES 12
/* HPCToolkit's header flags: records with a metric id (16 bytes), and
 * records whose ids carry "last common ancestor" bits; neither is ours. */
#define HPCTRACE_FLAG_DATACENTRIC (UINT64_C(1) << 0)
#define HPCTRACE_FLAG_LCA (UINT64_C(1) << 1)
#define HPCTRACE_ID_NONE 0u
#define HPCTRACE_ID_WAIT 0x80000000u
#define HPCTRACE_ID_MASK 0x7fffffffu
/* 64 GiB: about 5.7 billion records, a day of one thread at 64 kHz. */
#define HPCTRACE_MAX_BYTES ((uint64_t)64 << 30)

struct hpctrace_rec {
	uint64_t time;		/* nanoseconds (hpcrun(5): which clock) */
	uint32_t id;		/* context id, HPCTRACE_ID_* (invariant 1) */
};

/* ---- writer (async-signal-safe, invariant 3) ---- */

struct hpctrace_writer {
	int fd;
	int err;		/* first error, negative errno; then no more */
	unsigned char *buf;	/* the caller's */
	size_t cap;		/* whole records that fit in buf, in bytes */
	size_t len;		/* bytes in buf */
	uint64_t last;		/* time of the last record appended */
	uint64_t nrecords;	/* records appended */
};

/*
 * Starts a trace on fd, an empty file open for writing: writes the header
 * at once and records go into buf (size bytes, at least one record; the
 * caller keeps it alive until hpctrace_writer_flush).  Returns 0, or a
 * negative errno (also kept in w->err).
 */
int hpctrace_writer_start(struct hpctrace_writer *w, int fd, void *buf,
			  size_t size);
/*
 * The two halves of hpctrace_writer_start, for a writer whose file is made
 * later, or never when no record comes: hpctrace_writer_init readies w
 * with no file (w->fd -1; records go into buf as above) and returns 0 or
 * -EINVAL (buf holds no record); hpctrace_write_header writes the header
 * to fd, an empty file, and returns 0 or a negative errno.
 */
int hpctrace_writer_init(struct hpctrace_writer *w, void *buf, size_t size);
int hpctrace_write_header(int fd);
/*
 * Appends a record (invariants 1 and 2); the buffer is written out when
 * full.  Returns 0, or the first error (negative errno) of any write.
 */
int hpctrace_append(struct hpctrace_writer *w, uint64_t time, uint32_t id);
/*
 * Stores a record (invariants 1 and 2) in the buffer, which must have room
 * (w->len < w->cap), and writes nothing: the caller takes the buffer away
 * when w->len == w->cap.
 */
void hpctrace_store(struct hpctrace_writer *w, uint64_t time, uint32_t id);
/* Writes what the buffer holds; 0 or the first error.  fd stays open. */
int hpctrace_writer_flush(struct hpctrace_writer *w);

/* ---- reader (hostile input, invariant 4) ---- */

struct hpctrace {
	char *path;
	uint64_t flags;
	uint64_t nrecords;	/* records kept: a prefix of the file's */
	uint64_t tmin, tmax;	/* first and last kept time (tmax >= tmin);
				 * 0 when none */
	char *problem;		/* "'PATH': record 7: ...", or NULL */
	const unsigned char *map;	/* the file, read-only */
	size_t map_len;
};

/*
 * Opens PATH and checks its header and size, not its records: the whole
 * records are kept (invariant 4).  Returns the trace, or NULL with
 * hpc_lasterr() set ("'PATH': not a trace file (bad magic)").  Free with
 * hpctrace_close.
 */
struct hpctrace *hpctrace_open(const char *path);

/*
 * Reads every record of t once: times out of order, a wait in no context,
 * and ids for which valid(id, arg) (when not NULL; HPCTRACE_ID_WAIT taken
 * off, never 0) says the caller knows no such context end the kept
 * records, said in t->problem (invariant 2).  Returns 0, or -1 when
 * records were cut.
 */
int hpctrace_check(struct hpctrace *t, int (*valid)(uint32_t id, void *arg),
		   void *arg);
void hpctrace_close(struct hpctrace *t);

/* Record i (< t->nrecords). */
struct hpctrace_rec hpctrace_get(const struct hpctrace *t, uint64_t i);

/*
 * The index of the last record whose time is at most time, or UINT64_MAX
 * when the first is later (or there is none): a binary search, O(log n).
 */
uint64_t hpctrace_find(const struct hpctrace *t, uint64_t time);

/* The path of thread n's trace in database directory dbdir
 * ("DBDIR/traces/N.hpctrace"); the caller frees it. */
char *hpctrace_db_path(const char *dbdir, size_t n);

#endif
