/*
 * unit.h - a tiny TAP unit-test library for tests/unit/u-*.c.
 *
 * Each u-*.c has a main() that calls unit_run() per test function and
 * returns unit_done().  Inside a test, CHECK* macros record failures with
 * file:line; a test is "ok" when none failed.
 */
#ifndef HPC_UNIT_H
#define HPC_UNIT_H

#include <stdint.h>

void unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void unit_run(const char *name, void (*fn)(void));
/* Prints the plan; returns the exit status (0 when every test passed). */
int unit_done(void);

#define CHECK(c) \
	do { \
		if (!(c)) \
			unit_fail(__FILE__, __LINE__, "%s", #c); \
	} while (0)
#define CHECK_INT(a, b) \
	do { \
		long long a_ = (long long)(a), b_ = (long long)(b); \
		if (a_ != b_) \
			unit_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", \
				  #a, a_, b_); \
	} while (0)
#define CHECK_STR(a, b) \
	do { \
		const char *a_ = (a), *b_ = (b); \
		if (!a_ || !b_ || strcmp(a_, b_)) \
			unit_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", \
				  #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#endif
