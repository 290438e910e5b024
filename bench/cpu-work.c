/* CPU-bound work; prints the process CPU time of the work in ms.
 * argv: depth units */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static volatile double sink;
__attribute__((noinline)) static void leaf(long n)
{
	double s = sink;
	for (long i = 0; i < n * 1000000L; i++)
		s += (double)i * 0.5;
	sink = s;
}
__attribute__((noinline)) static long down(int d, long n)
{
	if (d == 0) {
		leaf(n);
		return 1;
	}
	long r = down(d - 1, n);
	sink += r;
	return r + 1;
}
int main(int argc, char **argv)
{
	int depth = atoi(argv[1]);
	long units = atol(argv[2]), k;
	struct timespec a, b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (k = 0; k < units; k++)
		down(depth, 10);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	printf("%.1f\n", (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	return 0;
}
