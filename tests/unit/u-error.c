/* u-error.c - unit tests for lib/error.c (message style, last error, x*). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "unit.h"

/* Runs fn with stderr sent to a temporary file; returns what it printed. */
static char *capture_stderr(void (*fn)(void))
{
	static char out[4096];
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	if (!tmp || saved < 0)
		return strcpy(out, "(no capture)");
	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = 0;
	fclose(tmp);
	return out;
}

static void say_error(void)
{
	hpc_error("'%s': not an ELF file", "a.out");
}

static void say_warning(void)
{
	hpc_warn("'%s': no debug information", "lib.so");
}

static void messages_carry_the_program_name(void)
{
	CHECK_STR(hpc_progname(), "hpc");
	hpc_set_progname("/usr/local/bin/hpcstruct");
	CHECK_STR(hpc_progname(), "hpcstruct");
	CHECK_STR(capture_stderr(say_error), "hpcstruct: 'a.out': not an ELF file\n");
	CHECK_STR(capture_stderr(say_warning),
		  "hpcstruct: warning: 'lib.so': no debug information\n");
	hpc_set_progname("hpcprof");
	CHECK_STR(hpc_progname(), "hpcprof");
}

static void *set_in_thread(void *arg)
{
	(void)arg;
	hpc_seterr("thread's own");
	return NULL;
}

static void last_error_is_per_thread(void)
{
	char long_msg[2000];
	pthread_t t;

	CHECK_INT(hpc_seterr("'%s': truncated at %d", "f.hpcrun", 12), -1);
	CHECK_STR(hpc_lasterr(), "'f.hpcrun': truncated at 12");
	CHECK(pthread_create(&t, NULL, set_in_thread, NULL) == 0);
	pthread_join(t, NULL);
	CHECK_STR(hpc_lasterr(), "'f.hpcrun': truncated at 12");
	memset(long_msg, 'x', sizeof(long_msg) - 1);
	long_msg[sizeof(long_msg) - 1] = 0;
	hpc_seterr("%s", long_msg);
	CHECK_INT(strlen(hpc_lasterr()), 511);	/* cut, never overrun */
}

static void last_error_takes_itself_as_context(void)
{
	hpc_seterr("No space left on device");
	hpc_seterr("'%s': write error: %s", "/dev/full", hpc_lasterr());
	CHECK_STR(hpc_lasterr(), "'/dev/full': write error: No space left on device");
}

static void allocators(void)
{
	char *s = xstrndup("profile", 4), *t = xstrdup("x");
	int *z = xcalloc(16, sizeof(int));
	int i, sum = 0;

	CHECK_STR(s, "prof");
	CHECK_STR(t, "x");
	for (i = 0; i < 16; i++)
		sum += z[i];
	CHECK_INT(sum, 0);
	z = xrealloc(z, 1000 * sizeof(int));
	z[999] = 7;
	CHECK_INT(z[999], 7);
	free(s);
	free(t);
	free(z);
}

int main(void)
{
	unit_run("messages carry the program name", messages_carry_the_program_name);
	unit_run("the last error is per thread and bounded", last_error_is_per_thread);
	unit_run("the last error may be an argument of the next",
		 last_error_takes_itself_as_context);
	unit_run("x* allocators", allocators);
	return unit_done();
}
