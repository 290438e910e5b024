#!/bin/sh
test_description='hpcrun: pthread barrier episodes with known truth (last arrivers, waits, per-phase work), lock waits, --no-sync'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/sync-lib.sh"

# rt-sync barrier T R MODE MS: in round r thread r % T works 4 MS, the
# others MS, then all meet (tests/progs/rt-sync.c).

test_expect_success 'setup: the test program' '
	cc -O2 -g -pthread -o rt-sync "$TEST_PROGS/rt-sync.c"
'

for t in 2 4; do
test_expect_success "$t threads, sleeping: a .hpcsync per thread, the late thread last in every episode" '
	hpcrun -o s$t ./rt-sync barrier '$t' 24 sleep 10 >out &&
	ls s'$t'/*.hpcsync >files && test_line_count = '$t' files &&
	site=$(site_of s'$t' barrier) && test -n "$site" &&
	grep -q "^site $site barrier 0x[0-9a-f]* [1-9][0-9]* '$t'$" s'$t'/*-000-*.hpcsync &&
	set -- $(lasts_right s'$t' $site '$t' out) &&
	test "$2" = 24 && test "$1" -ge 23 &&
	last_counts_right s'$t' $site '$t' out &&
	for i in $(seq 0 $(('$t' - 1))); do
		set -- $(sync_line s'$t' $i $site) && test "$1" = 24 || exit 1
	done &&
	grep -q "^episodes: 24 24$" s'$t'/*-001-*.hpcsync &&
	consistent s'$t' $site
'

test_expect_success "$t threads, sleeping: each thread waits about as long as the others (a symmetric program)" '
	site=$(site_of s'$t' barrier) &&
	for i in $(seq 0 $(('$t' - 1))); do sync_line s'$t' $i $site; done >waits &&
	awk "{ if (!n || \$2 < lo) lo = \$2; if (\$2 > hi) hi = \$2; n++ }
		END { exit !(lo > 0 && hi <= 2 * lo + 0.05) }" waits
'
done

test_expect_success '2 threads spinning on their CPU time: per-phase work per thread within max(1 ms, 5%) of the truth' '
	hpcrun -o sp ./rt-sync barrier 2 10 spin 20 >out &&
	site=$(site_of sp barrier) &&
	# rounds 1-9 (round 0 is in the first phase): thread 0 works 80 ms in
	# 4 of them and 20 ms in 5, thread 1 80 ms in 5 and 20 ms in 4
	test_within "$(work_of sp 0 $site)" 0.42 0.021 &&
	test_within "$(work_of sp 1 $site)" 0.48 0.024 &&
	set -- $(lasts_right sp $site 2 out) && test "$1" -ge 9 && test "$2" = 10
'

test_expect_success 'a sample in a phase is also under ^Phases, below the start site of its phase' '
	hpcprof --dump sp/*-001-*.hpcrun >dump &&
	grep -q "addr \"^Phases \"" dump &&
	site=$(site_of sp barrier) &&
	grep -q "addr \"S$(printf %07d $site)\"" dump
'

test_expect_success 'the log counts sites and episodes' '
	grep -q "^sync: on$" sp/*.log &&
	grep -q "^sync-sites: 1$" sp/*.log &&
	grep -q "^sync-episodes: 20$" sp/*.log &&
	grep -q "^hang-reports: 0$" sp/*.log
'

test_expect_success 'a contended mutex: lock waits at its site, as many blocked calls as calls' '
	hpcrun -o lk ./rt-sync contend 50 >out &&
	echo "contend done" >expect && test_cmp expect out &&
	cat lk/*.hpcsync | awk "\$1 == \"site\" && \$3 == \"mutex\" { m = \$2 }
		\$1 == \"lock\" && \$2 == m { n++; if (\$3 != \$4 || \$3 < 1 || \$5 <= 0) bad++ }
		END { exit !(n >= 1 && !bad) }"
'

test_expect_success '--no-sync: no .hpcsync, no ^Phases, and the log says sync: off' '
	hpcrun --no-sync -o ns ./rt-sync barrier 2 4 sleep 1 >out &&
	! ls ns/*.hpcsync 2>/dev/null &&
	grep -q "^sync: off$" ns/*.log &&
	hpcprof --dump ns/*-001-*.hpcrun >dump &&
	! grep -q Phases dump
'

# A failed exec between rounds: the process measures on in new files, and
# each generation's .hpcsync holds its own episodes (before the fix the
# new one held the old one's again, its aggregates on the old tree's
# nodes).  A thread's wait that spans the exec belongs to neither: the
# worker's at the next barrier, and on a busy machine the one it had not
# yet left when main went on to exec.
cat >efs.c <<\EOF
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_barrier_t b;
static volatile double sink;
static void work(long n)
{
	double x = 0;

	for (long i = 0; i < n; i++)
		x += i;
	sink = x;
}
static void *th(void *a)
{
	(void)a;
	for (int r = 0; r < 40; r++) {
		work(300000);
		pthread_barrier_wait(&b);
	}
	return 0;
}
int main(void)
{
	pthread_t t;

	pthread_barrier_init(&b, 0, 2);
	pthread_create(&t, 0, th, 0);
	for (int r = 0; r < 40; r++) {
		work(600000);
		pthread_barrier_wait(&b);
		if (r == 20)
			execl("/nonexistent", "x", (char *)0);
	}
	pthread_join(t, 0);
	puts("ok");
	return 0;
}
EOF

test_expect_success 'a failed exec: each generation keeps its own episodes' '
	cc -O2 -pthread -o efs efs.c &&
	hpcrun -o ef ./efs >out &&
	echo ok >expect && test_cmp expect out &&
	for th in 000 001; do
		a=$(sed -n "s/^episodes: \([0-9]*\) .*/\1/p" ef/*-$th-*-0.hpcsync) &&
		b=$(sed -n "s/^episodes: \([0-9]*\) .*/\1/p" ef/*-$th-*-1.hpcsync) &&
		echo "thread $th: $a before the exec, $b after" &&
		test "$a" -ge 20 && test "$a" -le 22 &&
		test $((a + b)) -ge 38 && test $((a + b)) -le 40 || return 1
	done &&
	grep -q "^sync-episodes: 4[0-4]$" ef/*-0.log
'

test_done
