/*
 * st-nests.c - loop nests of depth 1 to 4, sibling loops, recursion.
 * Expected structure in // CHECK: comments (tests/lib/check-structure.sh).
 * Build: cc -O2 -g -o st-nests st-nests.c   (tests use -O0, -O2, -O3)
 */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) void nest1(int n)
{
	for (int a = 0; a < n; a++)			// CHECK: loop depth=1 proc=nest1
		sink += a;
}

__attribute__((noinline)) void nest2(int n)
{
	for (int a = 0; a < n; a++)			// CHECK: loop depth=1 proc=nest2
		for (int b = 0; b < n; b++)		// CHECK: loop depth=2 proc=nest2
			sink += a ^ b;
}

__attribute__((noinline)) void nest3(int n)
{
	for (int a = 0; a < n; a++)			// CHECK: loop depth=1 proc=nest3
		for (int b = 0; b < n; b++)		// CHECK: loop depth=2 proc=nest3
			for (int c = 0; c < n; c++)	// CHECK: loop depth=3 proc=nest3
				sink += a ^ b ^ c;
}

__attribute__((noinline)) void nest4(int n)
{
	for (int a = 0; a < n; a++)				// CHECK: loop depth=1 proc=nest4
		for (int b = 0; b < n; b++)			// CHECK: loop depth=2 proc=nest4
			for (int c = 0; c < n; c++)		// CHECK: loop depth=3 proc=nest4
				for (int d = 0; d < n; d++)	// CHECK: loop depth=4 proc=nest4
					sink += a ^ b ^ c ^ d;
}

__attribute__((noinline)) void siblings(int n)
{
	for (int a = 0; a < n; a++)			// CHECK: loop depth=1 proc=siblings
		sink += a;
	for (int b = 0; b < n; b++) {			// CHECK: loop depth=1 proc=siblings
		sink -= b;
		for (int c = 0; c < b; c++)		// CHECK: loop depth=2 proc=siblings
			sink ^= c;
	}
}

__attribute__((noinline)) long walk(long n)	// CHECK: proc=walk
{
	if (n <= 1)
		return sink;
	return walk(n / 2) + walk(n / 3) + sink;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	nest1(n);
	nest2(n);
	nest3(n);
	nest4(n);
	siblings(n);
	return (int)walk(n) & 1;
}
