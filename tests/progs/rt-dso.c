/*
 * rt-dso.c - a library for rt-work's dlopen mode: dso_work(n) spins n units.
 *
 * Build: cc -O2 -fomit-frame-pointer -shared -fPIC -o rt-dso.so rt-dso.c
 */
volatile double dso_sink;

__attribute__((noinline)) void dso_work(long n)
{
	double s = dso_sink;
	long i;

	for (i = 0; i < n * 10000000L; i++)
		s += (double)i * 0.5;
	dso_sink = s;
}
