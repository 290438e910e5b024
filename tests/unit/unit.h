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

/* 64 pseudo-random bits, the same sequence every run (a test that fails
 * fails again). */
uint64_t unit_random(void);

/* The bytes fill(o, x) writes with a line-record writer (textrec.h),
 * through the file path (left behind for a reader), as a string the
 * caller frees; a failed write is a failed check. */
struct textrec_out;
char *unit_written(const char *path,
		   void (*fill)(struct textrec_out *o, const void *x),
		   const void *x);

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
