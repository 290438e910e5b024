/*
 * rt-rows.c - a leaf function whose time is split between two rows of its
 * CFA table that lie in one 256-byte block: rows_leaf spins with nothing
 * pushed (the CFA at rsp + 8), then with the address of rows_decoy pushed
 * (rsp + 16), and again.  Every sample's unwind must take the rules of
 * the row its pc is in, not of the other one seen there before (unwind.c:
 * the leaves' table holds rows, indexed by block): the first row's rules
 * in the second take rows_decoy for the caller, a path that misses
 * rows_caller.  Runs about a second of CPU time, or the seconds given as
 * its argument.
 *
 * Build: cc -O2 -o rt-rows rt-rows.c
 */
#include <stdlib.h>
#include <time.h>

void rows_leaf(long n);

/* Never called: its address is what a wrong rule takes for a caller. */
__attribute__((noinline, used)) void rows_decoy(void)
{
	__asm__ volatile("");
}

/* n rounds of two spins of 100 steps, the second with rows_decoy's
 * address pushed. */
__asm__(".text\n"
	".globl rows_leaf\n"
	".type rows_leaf, @function\n"
	"rows_leaf:\n"
	".cfi_startproc\n"
	"1:	mov $100, %eax\n"
	"2:	dec %eax\n"
	"	jnz 2b\n"
	"	lea rows_decoy(%rip), %rcx\n"
	"	push %rcx\n"
	".cfi_adjust_cfa_offset 8\n"
	"	mov $100, %eax\n"
	"3:	dec %eax\n"
	"	jnz 3b\n"
	"	pop %rcx\n"
	".cfi_adjust_cfa_offset -8\n"
	"	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	".cfi_endproc\n"
	".size rows_leaf, .-rows_leaf\n");

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void rows_caller(double seconds)
{
	double end = cpu_seconds() + seconds;

	while (cpu_seconds() < end)
		rows_leaf(10000);
}

int main(int argc, char **argv)
{
	rows_caller(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
