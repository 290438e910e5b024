/*
 * error.h - one style of diagnostics for every tool, and a retrievable
 * "last error" for library code.
 *
 * Tools print messages as "PROG: what is wrong" (lowercase, subject quoted),
 * warnings as "PROG: warning: ...".  Library functions never print and never
 * exit: they return NULL or a negative value after hpc_seterr(), and the
 * caller fetches the text with hpc_lasterr().  Only a program's main() exits
 * (hpc_die() is for main and for out-of-memory in x* allocators).
 */
#ifndef HPC_ERROR_H
#define HPC_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define HPC_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Sets the name used as the prefix of every message (basename taken). */
void hpc_set_progname(const char *argv0);
/* Returns the program name set above, or "hpc" if none was set. */
const char *hpc_progname(void);

/* "PROG: MSG\n" on stderr. */
void hpc_error(const char *fmt, ...) HPC_PRINTF(1, 2);
/* "PROG: warning: MSG\n" on stderr. */
void hpc_warn(const char *fmt, ...) HPC_PRINTF(1, 2);
/* hpc_error() then exit(status). */
__attribute__((noreturn)) void hpc_die(int status, const char *fmt, ...)
	HPC_PRINTF(2, 3);

/*
 * Records a message for hpc_lasterr() (thread-local) and returns -1, so a
 * library function can "return hpc_seterr(...)".  An argument may be
 * hpc_lasterr() itself, to add context to the message before.
 */
int hpc_seterr(const char *fmt, ...) HPC_PRINTF(1, 2);
int hpc_vseterr(const char *fmt, va_list ap);
/* The last message recorded on this thread; valid until the next seterr. */
const char *hpc_lasterr(void);

/* Allocators that die with "out of memory" instead of returning NULL. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#endif
