#!/bin/sh
# hpcrun-unwind-vs-libunwind.sh - cost of unwinding in a signal handler:
# hpcrun's own .eh_frame unwinder (handler-ns from its log, which includes
# inserting the path in the tree) against libunwind's unw_backtrace() and
# its unw_step() loop, called from a SIGPROF handler of the same program.
#
#   bench/hpcrun-unwind-vs-libunwind.sh [BUILD]    (needs libunwind-dev)
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
W=$(mktemp -d /tmp/hpcrun-unw.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

if ! echo '#include <libunwind.h>' | cc -E - >/dev/null 2>&1; then
	echo "(libunwind-dev not installed: apt-get install libunwind-dev)"
	exit 0
fi

cat >deep.c <<'EOF'
/* argv: depth mode (0 = plain, 1 = unw_backtrace, 2 = unw_step loop) */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
static volatile double sink;
static int mode;
static unsigned long long ns, nsamples, nframes;
static void *buf[4096];
static void on_prof(int sig)
{
	struct timespec a, b;
	int n = 0;
	(void)sig;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (mode == 1) {
		n = unw_backtrace(buf, 4096);
	} else {
		unw_context_t uc;
		unw_cursor_t c;
		unw_getcontext(&uc);
		unw_init_local(&c, &uc);
		while (n < 4096 && unw_step(&c) > 0)
			n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns += (b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec - a.tv_nsec;
	nsamples++;
	nframes += n;
}
__attribute__((noinline)) static long down(int d)
{
	if (d == 0) {
		double s = sink;
		for (long i = 0; i < 1000000000L; i++)
			s += i * 0.5;
		sink = s;
		return 1;
	}
	long r = down(d - 1);
	sink += r;
	return r + 1;
}
int main(int argc, char **argv)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };
	mode = atoi(argv[2]);
	if (mode) {
		signal(SIGPROF, on_prof);
		setitimer(ITIMER_PROF, &it, NULL);
	}
	down(atoi(argv[1]));
	if (mode)
		printf("%llu %llu %llu\n", nsamples, nframes / nsamples, ns / nsamples);
	return 0;
}
EOF
cc -O2 -fomit-frame-pointer -o deep deep.c -lunwind

echo "| depth | hpcrun ns/sample | libunwind unw_backtrace ns/sample (frames) | libunwind unw_step loop ns/sample (frames) |"
echo "|---|---|---|---|"
for d in 10 100 1000; do
	rm -rf m
	"$BUILD/bin/hpcrun" -o m -e cpu-clock@f250 ./deep $d 0
	h=$(awk '/^samples-taken/ { n = $2 } /^handler-ns/ { t = $2 } END { printf "%.0f", t / n }' m/*.log)
	set -- $(./deep $d 1)
	b="$3 ($2)"
	set -- $(./deep $d 2)
	echo "| $d | $h | $b | $3 ($2) |"
done
