/* error.c - diagnostics and last-error storage; see error.h. */
#include "error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *progname = "hpc";
static __thread char lasterr[512];

void hpc_set_progname(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	progname = slash ? slash + 1 : argv0;
}

const char *hpc_progname(void)
{
	return progname;
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", progname, prefix, msg);
}

void hpc_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void hpc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void hpc_die(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	exit(status);
}

/* Formatted apart first: an argument may be hpc_lasterr() itself (a caller
 * adding its context to the message below), and vsnprintf into the buffer
 * it reads is undefined. */
int hpc_vseterr(const char *fmt, va_list ap)
{
	char msg[sizeof(lasterr)];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	memcpy(lasterr, msg, sizeof(lasterr));
	return -1;
}

int hpc_seterr(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hpc_vseterr(fmt, ap);
	va_end(ap);
	return -1;
}

const char *hpc_lasterr(void)
{
	return lasterr[0] ? lasterr : "unknown error";
}

static void *check(void *p)
{
	if (!p)
		hpc_die(1, "out of memory");
	return p;
}

void *xmalloc(size_t n)
{
	return check(malloc(n ? n : 1));
}

void *xcalloc(size_t n, size_t size)
{
	return check(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n)
{
	return check(realloc(p, n ? n : 1));
}

char *xstrdup(const char *s)
{
	return check(strdup(s));
}

char *xstrndup(const char *s, size_t n)
{
	return check(strndup(s, n));
}
