/*
 * st-outlier.c - loops of callees inlined into loops of main.  gcc -O2
 * gives an instruction of func2's inlined outer loop a line of main, which
 * must not pull the loop out of func2's alien (hpcstruct(5), rule 2).
 * Expected structure in // CHECK: comments (tests/lib/check-structure.sh).
 * Build: gcc -O2 -g -o st-outlier st-outlier.c   (the checks hold at gcc
 * -O2 only: inlining differs at other levels and with clang)
 */
#include <stdio.h>
static inline int sq(int x) { int s = 0; for (int k = 0; k < x; k++) s += k; return s; }	// CHECK: loop depth=2 in=sq proc=main
int func2(int n) {
	int s = 0;
	for (int i = 0; i < n; i++)		// CHECK: loop depth=1 in=func2 proc=main
		for (int j = 0; j < i; j++)	// CHECK: loop depth=2 in=func2 proc=main
			s += i * j;
	return s;
}
int main(int argc, char **argv) {
	int t = 0;
	for (int i = 0; i < argc * 100; i++)	// CHECK: loop depth=1 in=- proc=main
		t += sq(i);
	printf("%d %d\n", t, func2(argc * 10));
	return 0;
}
