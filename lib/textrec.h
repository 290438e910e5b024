/*
 * textrec.h - the line-record text files hpcrun writes beside a thread's
 * profile (.hpcsync, .hpcshare; hpcrun(5)): one record a line, fields
 * separated by single spaces, and how their readers walk them.
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

/* The side file beside a profile: ("d/p-0.hpcrun", ".hpcsync") ->
 * "d/p-0.hpcsync".  Caller frees. */
char *textrec_path_for(const char *profile, const char *suffix);

#endif
