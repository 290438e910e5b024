/*
 * textrec.h - the line-record text files hpcrun writes beside a thread's
 * profile (.hpcsync, .hpcshare; hpcrun(5)): one record a line, fields
 * separated by single spaces; how their readers walk them (textrec.c)
 * and how their writers put them (textrec-write.c, async-signal-safe,
 * linked into libhpcrun.so too).
 *
 * A format FMT built on them keeps three things side by side in lib/:
 * FMT.h (its vocabulary -- keywords, kinds and their names --, the
 * in-memory model its reader returns, and both APIs), FMT-write.c (one
 * writer function per record, taking the model's struct for it, and
 * FMT_write() putting a whole model; the runtime calls the record
 * writers from its own tables) and FMT-read.c (the reader).  The record
 * writers are the only code that knows how a record is spelled, and
 * read(write(x)) = x for every model x the reader can return (a unit
 * test per format checks it and pins the exact bytes).
 *
 * Invariants of textrec_read():
 *  1. The file is a regular file of at most max_bytes (lib/infile), read
 *     whole; no line is longer than max_line; the file ends with a
 *     newline; it holds no NUL byte.  Memory used is linear in its size.
 *  2. Each line is split at single spaces (tabs: textrec_read_tsv) into at most TEXTREC_MAX_FIELDS
 *     fields and handed to the reader's callback with its number (comment
 *     lines too: the format says what a comment is).  An empty line is
 *     refused.
 *  3. Every error is one line naming the file and the line:
 *     "'t.hpcshare': line 4: expected a number".
 *  4. textrec_next() reads a file too large to hold whole a line at a
 *     time, by the rules of 1 and 2, in memory bounded by its buffer.
 */
#ifndef HPC_TEXTREC_H
#define HPC_TEXTREC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct hmap;

#define TEXTREC_MAX_FIELDS 32

/* One line being read: where errors point and its fields. */
struct textrec {
	const char *path;
	size_t lineno;
	char *f[TEXTREC_MAX_FIELDS];
	int nf;
};

/*
 * Reads path (what: the kind of file with its article, "a sharing file")
 * and calls line(r, arg) for each record line; line returns 0, or -1 after
 * setting the error (textrec_bad).  Returns the number of lines read (0:
 * an empty file, which the caller judges), or -1 with hpc_lasterr() set.
 */
long textrec_read(const char *path, uint64_t max_bytes, size_t max_line,
		 const char *what, int (*line)(struct textrec *r, void *arg),
		 void *arg);

/* The same for a tab-separated file (fields may hold spaces). */
long textrec_read_tsv(const char *path, uint64_t max_bytes, size_t max_line,
		      const char *what,
		      int (*line)(struct textrec *r, void *arg), void *arg);

/*
 * Reads the next line of f (opened by the caller, who sets r->path and
 * zeroes r->lineno) into buf, cap bytes: lines of at most cap - 1 bytes,
 * and splits it at sep into r (invariant 4).  Returns 1 for a line, 0 at
 * the end of the file, or -1 with hpc_lasterr() set (a line too long or
 * without its newline, binary data, a read error).
 */
int textrec_next(FILE *f, char *buf, size_t cap, int sep, struct textrec *r);

/*
 * Splits line in place at each sep into f[0..max) as the readers do (a
 * trailing empty field is no field); returns the number of fields, or -1
 * when there are more than max.  For a reader that takes lines from
 * elsewhere.
 */
int textrec_split(char *line, int sep, char **f, int max);

/* Sets hpc_lasterr() to "'PATH': line N: what"; returns -1. */
int textrec_bad(const struct textrec *r, const char *what);

/* Field i as an unsigned number (decimal, or hex with 0x); 0, or -1
 * after textrec_bad. */
int textrec_u64(const struct textrec *r, int i, uint64_t *out);
/* The same, at most UINT32_MAX. */
int textrec_u32(const struct textrec *r, int i, uint32_t *out);
/* Field i as a signed decimal number from lo to hi. */
int textrec_long(const struct textrec *r, int i, long lo, long hi, long *out);

/*
 * Files whose records define numbered things (sites, objects): index maps
 * an id to its position + 1.  textrec_define() refuses id 0 (zero, the
 * message for it) and an id index has already (what: "site defined
 * twice"); else it maps id to n - 1 (n: the count after the caller
 * appended it) and returns 0.
 */
int textrec_define(const struct textrec *r, struct hmap *index, uint32_t id,
		   size_t n, const char *zero, const char *what);

/*
 * Writing.  Invariants of a struct textrec_out:
 *  W1. Async-signal-safe: no malloc, no stdio, no locks; the bytes go
 *      through buf and out with write(2) (retried on EINTR), so the
 *      runtime may write while a thread or the process ends, even from
 *      a fatal signal's handler.
 *  W2. err keeps the first failed write's negative errno (-EIO for a
 *      write of 0 bytes); after it nothing more is written, so a caller
 *      checks once, at textrec_flush().
 *  W3. Numbers are spelled as printf's "%llu", "%lld", "0x%llx" and, for
 *      seconds, "%.9f" (rounded to nearest, ties to even): the bytes do
 *      not depend on the locale.
 */
struct textrec_out {
	int fd;
	int err;		/* W2 */
	size_t len;		/* bytes waiting in buf */
	char buf[8192];
};

/* Starts writing to the open file descriptor fd. */
void textrec_out_init(struct textrec_out *o, int fd);
/* Writes what waits in o's buffer; 0, or o's first error (W2). */
int textrec_flush(struct textrec_out *o);
/* s as it is: a record's keyword, a separator, "\n" at its end. */
void textrec_put(struct textrec_out *o, const char *s);
/* v in decimal, without a space before it. */
void textrec_put_u64(struct textrec_out *o, uint64_t v);
/* The next field of a record: a space, then s or v (W3). */
void textrec_field(struct textrec_out *o, const char *s);
void textrec_field_u64(struct textrec_out *o, uint64_t v);
void textrec_field_i64(struct textrec_out *o, int64_t v);
void textrec_field_hex(struct textrec_out *o, uint64_t v);
/* seconds as "%.9f" does; NaN, negative values and 2^63 or more, which
 * no measurement has, as 0.000000000. */
void textrec_field_seconds(struct textrec_out *o, double seconds);

/* The side file beside a profile: ("d/p-0.hpcrun", ".hpcsync") ->
 * "d/p-0.hpcsync".  Caller frees. */
char *textrec_path_for(const char *profile, const char *suffix);

#endif
