/*
 * strbuf.h - growable byte strings, and the array-growth helper.
 *
 * Invariant: buf is never NULL and is always NUL-terminated at buf[len]
 * (an empty strbuf points at a shared static ""), so buf can be passed to
 * any C string function.  strbuf_release() frees and re-initializes.
 */
#ifndef HPC_STRBUF_H
#define HPC_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "error.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

extern char strbuf_empty[];
#define STRBUF_INIT { strbuf_empty, 0, 0 }

void strbuf_init(struct strbuf *sb);
/* Frees the buffer and leaves sb empty and reusable. Accepts NULL. */
void strbuf_release(struct strbuf *sb);
/* Ensures room for extra more bytes (plus the NUL). */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) HPC_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Returns the malloc'ed string (caller frees) and leaves sb empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
/* Reading a file into a strbuf: infile_read() (infile.h). */

/*
 * Grows an array so that it holds at least need elements; alloc tracks the
 * allocated count.  Returns the (possibly moved) array.  Use via HPC_GROW.
 */
void *hpc_grow(void *array, size_t elsize, size_t need, size_t *alloc);
#define HPC_GROW(array, need, alloc) \
	do { \
		if ((size_t)(need) > (alloc)) \
			(array) = hpc_grow((array), sizeof(*(array)), \
					   (need), &(alloc)); \
	} while (0)

#endif
