/*
 * rt-jit.c - code made at run time, as a JIT makes it: a counting loop
 * copied into an anonymous executable mapping and called, beside the same
 * loop compiled in (c_loop).  No file maps the copy, so no module names a
 * sample taken in it.
 *
 * Build: cc -O2 -g -o rt-jit rt-jit.c
 *
 *   rt-jit JIT C   runs the copy for JIT hundred-million iterations, then
 *                  c_loop for C; prints on stdout "jit PCT", the copy's
 *                  share (percent) of the CPU time the two took, by the
 *                  program's own clock
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef long (*loop_fn)(long);

/* mov %rdi,%rax; 1: dec %rax; jnz 1b; ret */
static const unsigned char loop_code[] = {
	0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3
};

__attribute__((noinline)) static long c_loop(long n)
{
	while (n)
		__asm__ volatile("dec %0" : "+r"(n));
	return n;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long jit, c, i, r = 0;
	double t0, t1, t2;
	void *p;

	if (argc != 3 || (jit = atol(argv[1])) < 0 || (c = atol(argv[2])) < 0) {
		fprintf(stderr, "usage: rt-jit JIT C\n");
		return 2;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, loop_code, sizeof(loop_code));
	t0 = cpu_s();
	for (i = 0; i < jit; i++)
		r += ((loop_fn)p)(100000000L);
	t1 = cpu_s();
	for (i = 0; i < c; i++)
		r += c_loop(100000000L);
	t2 = cpu_s();
	printf("jit %.0f\n", t2 > t0 ? 100 * (t1 - t0) / (t2 - t0) : 0.0);
	return (int)r;
}
