/* unit.c - the TAP unit-test library; see unit.h. */
#include "unit.h"

#include <stdarg.h>
#include <stdio.h>

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
