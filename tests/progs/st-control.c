/*
 * st-control.c - an irreducible loop made with goto, and a switch compiled
 * to a jump table inside a loop, and a function gcc -O2 splits into a hot
 * part and a .cold part.  Expected structure in // CHECK: comments
 * (tests/lib/check-structure.sh).
 * Build: cc -O2 -g -o st-control st-control.c   (tests use -O0, -O2, -O3)
 */
#include <stdlib.h>

volatile int sink;

__attribute__((noinline)) int irreducible(int n, int k)	// CHECK: loops=1 proc=irreducible
{
	int i = 0;

	if (k & 1)
		goto middle;
top:
	sink += i;					// CHECK: loop depth=1 near=6 proc=irreducible
middle:
	sink ^= i * 3;
	i++;
	if (i < n)
		goto top;
	return sink;
}

__attribute__((noinline)) int dispatch(const int *ops, int n)	// CHECK: loops=1 proc=dispatch
{
	int acc = 1;

	for (int i = 0; i < n; i++) {			// CHECK: loop depth=1 near=30 proc=dispatch
		switch (ops[i]) {
		case 0: acc += 3; sink = acc; break;
		case 1: acc *= 5; sink = 1; break;
		case 2: acc ^= 0x55; sink = 2; break;
		case 3: acc -= i; sink = acc + 3; break;
		case 4: acc <<= 1; sink = 4; break;
		case 5: acc /= 3; sink = 5; break;
		case 6: acc %= 1000; sink = 6; break;
		case 7: acc = -acc; sink = 7; break;
		case 8: acc |= 9; sink = acc * 8; break;
		case 9: acc &= 0xfff; sink = 9; break;
		default: sink = 10; break;
		}
	}
	return acc;
}

__attribute__((noinline)) int split(const int *a, int n)	// CHECK: loops=1 proc=split
{
	int s = 0;

	for (int i = 0; i < n; i++) {			// CHECK: loop depth=1 proc=split
		if (__builtin_expect(a[i] < 0, 0)) {
			if (a[i] == -7)
				abort();
			s -= a[i] * 3;
			continue;
		}
		s += a[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	int ops[16];

	for (int i = 0; i < 16; i++)
		ops[i] = (i * 7 + argc) % 11;
	sink = irreducible(argc * 5, argc);
	sink = dispatch(ops, 16);
	sink = split(ops, 16);
	return 0;
}
