/*
 * st-static.c - static functions, so local symbols that no .dynsym lists,
 * each with a loop and a part gcc -O2 moves to NAME.cold (DWARF then gives
 * DW_AT_ranges, no DW_AT_low_pc); one is known by a global alias, as glibc's
 * are (its .cold part is named after the internal name).  t2000 strips it
 * to a separate debug file.  Expected structure in // CHECK: comments.
 * Build: cc -O2 -g -o st-static st-static.c
 */
#include <stdlib.h>

volatile int sink;

static __attribute__((noinline, noclone)) long scale_all(const int *a, int n)	// CHECK: loops=1 proc=scale_all decl
{
	long s = 0;

	for (int i = 0; i < n; i++) {			// CHECK: loop depth=1 proc=scale_all
		if (__builtin_expect(a[i] < -100, 0))
			abort();
		s += (long)a[i] * 5;
	}
	return s;
}

static __attribute__((noinline, noclone)) int clip_all(const int *a, int n)	// CHECK: loops=1 proc=clip decl
{
	int top = 0;

	for (const int *p = a; p != a + n; p++) {	// CHECK: loop depth=1 proc=clip
		if (__builtin_expect(*p == 1007, 0))
			abort();
		top += *p > 1000 ? 1000 : *p;
	}
	return top;
}

int clip(const int *a, int n) __attribute__((alias("clip_all")));

int main(int argc, char **argv)					// CHECK: proc=main decl
{
	int v[16];

	(void)argv;
	for (int i = 0; i < 16; i++)
		v[i] = i - argc;
	sink = scale_all(v, 16);
	sink = clip(v, 16);
	return 0;
}
