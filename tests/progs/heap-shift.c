/*
 * heap-shift.c - a preloaded object that moves the heap blocks a program
 * allocates by HEAP_SHIFT bytes, so a test can run the program with its
 * blocks at each placement within a 64-byte cache line.
 * Build: cc -O2 -shared -fPIC -o heap-shift.so heap-shift.c
 * Run:   HEAP_SHIFT=16 LD_PRELOAD=./heap-shift.so ./prog ...
 *        (hpcrun puts libhpcrun.so first and keeps the user's LD_PRELOAD
 *        after it: HEAP_SHIFT=16 LD_PRELOAD=./heap-shift.so hpcrun ...)
 *
 * Invariants:
 * 1. Its constructor makes exactly one allocation, of HEAP_SHIFT + 56
 *    bytes, and never frees it.  glibc carves a block of N bytes from the
 *    top of the heap as a chunk of (N + 8 + 15) & ~15 bytes, 64 +
 *    HEAP_SHIFT here, so each block the program then carves from the top
 *    starts HEAP_SHIFT bytes (mod 64) further than with HEAP_SHIFT=0
 *    (HEAP_SHIFT=0 allocates 56 bytes: the same start).  A block glibc
 *    reuses from a freed one may move otherwise, so 0, 16, 32 and 48 give
 *    a program's blocks four placements but not always the four; 64 + 16k
 *    gives others.
 * 2. HEAP_SHIFT unset or empty: it does nothing.  Not a multiple of 16
 *    in 0..4096: it does nothing and says so on stderr.  Either way the
 *    program runs as it would.
 * 3. Blocks of other arenas (those threads allocate) and mmap'd blocks
 *    (128 KiB and above) do not move; tests check the placement they got
 *    from the object addresses hpcrun records (hpcrun(5), object START).
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile shift_block;	/* kept, so never optimized away */

__attribute__((constructor)) static void heap_shift(void)
{
	const char *s = getenv("HEAP_SHIFT");
	char *end;
	long n;

	if (!s || !*s)
		return;
	n = strtol(s, &end, 10);
	if (*end || n < 0 || n > 4096 || n % 16) {
		fprintf(stderr, "heap-shift: HEAP_SHIFT '%s': not a multiple of 16 in 0..4096\n", s);
		return;
	}
	shift_block = malloc((size_t)n + 56);
}
