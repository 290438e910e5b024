/*
 * st-inline.c - loops inside inlined callees and loops around inlined calls.
 * Expected structure in // CHECK: comments (tests/lib/check-structure.sh).
 * Build: cc -O2 -g -o st-inline st-inline.c   (tests use -O0, -O2, -O3)
 */
#include <stdlib.h>

volatile long sink;

static inline __attribute__((always_inline)) long dot(const long *a,
						      const long *b, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {		// CHECK: loop depth=2 in=dot proc=rows
		s += a[i] * b[i];
		sink = s;
	}
	return s;
}

__attribute__((noinline)) long rows(const long *m, const long *v, int r, int n)
{
	long t = 0;

	for (int k = 0; k < r; k++)		// CHECK: loop depth=1 in=- proc=rows
		t += dot(m + (long)k * n, v, n);
	return t;
}

static inline __attribute__((always_inline)) void bump(int n)
{
	for (int i = 0; i < n; i++)		// CHECK: loop depth=1 in=bump proc=caller
		sink += i;
}

__attribute__((noinline)) void caller(int n)
{
	bump(n);
	sink = 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	long *m = calloc((size_t)n * n, sizeof(long));
	long *v = calloc((size_t)n, sizeof(long));

	caller(n);
	sink = rows(m, v, n, n);
	free(m);
	free(v);
	return 0;
}
