/* unit.c - the TAP unit-test library; see unit.h. */
#include "unit.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "textrec.h"

static int count, failed_tests, current_failures;

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	current_failures++;
	printf("# %s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void unit_run(const char *name, void (*fn)(void))
{
	current_failures = 0;
	fn();
	count++;
	if (current_failures)
		failed_tests++;
	printf("%sok %d - %s\n", current_failures ? "not " : "", count, name);
	fflush(stdout);
}

int unit_done(void)
{
	printf("1..%d\n", count);
	return failed_tests ? 1 : 0;
}

char *unit_written(const char *path,
		   void (*fill)(struct textrec_out *o, const void *x),
		   const void *x)
{
	static struct textrec_out o;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *buf;
	off_t n;

	if (fd < 0) {
		unit_fail(__FILE__, __LINE__, "cannot create '%s'", path);
		return NULL;
	}
	textrec_out_init(&o, fd);
	fill(&o, x);
	if (textrec_flush(&o))
		unit_fail(__FILE__, __LINE__, "'%s': write failed", path);
	n = lseek(fd, 0, SEEK_END);
	buf = calloc(1, n > 0 ? (size_t)n + 1 : 1);
	if (n > 0 && pread(fd, buf, (size_t)n, 0) != n)
		unit_fail(__FILE__, __LINE__, "'%s': read back failed", path);
	close(fd);
	return buf;
}

uint64_t unit_random(void)
{
	static uint64_t s = 0x9e3779b97f4a7c15ull;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}
