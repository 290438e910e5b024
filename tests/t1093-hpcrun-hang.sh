#!/bin/sh
test_description='hpcrun: the hang detector (a missing thread, a lock-order deadlock, no alarm on a long serial phase) and --sync-warn'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/sync-lib.sh"

# until_reported SECONDS LINGER FILES CMD...: CMD in the background,
# killed (SIGKILL) LINGER seconds after its report FILES (a glob) has
# ended ("end"), or after SECONDS; st is CMD's exit status.  How soon a
# report comes is the detector's on a loaded machine, not a limit here.
until_reported() {
	secs=$1 linger=$2 files=$3
	shift 3
	"$@" &
	pid=$! i=0
	while [ $i -lt $((secs * 10)) ] && ! grep -qx end $files 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep "$linger"
	kill -KILL $pid 2>/dev/null
	st=0
	wait $pid || st=$?
}

test_expect_success 'setup: the test programs' '
	cc -O2 -g -pthread -o rt-sync "$TEST_PROGS/rt-sync.c" &&
	cc -O2 -g -fopenmp -pthread -o rt-sync-gomp "$TEST_PROGS/rt-sync.c"
'

# rt-sync hang 3: threads 0 and 2 wait at a barrier of 4; thread 1 sleeps
# forever in never_arrives().
test_expect_success 'a thread that never arrives: reported with its path, then aborted (--hang-action=abort)' '
	st=0 && hpcrun -o h1 --hang-timeout 1 --hang-action=abort ./rt-sync hang 3 \
		>out 2>err || st=$? &&
	test $st = 134 &&
	ls h1/*.hang >files && test_line_count = 1 files &&
	grep -c "^hpcrun-hang: 1$" h1/*.hang >n && echo 1 >one && test_cmp one n &&
	grep -q "^hang: barrier$" h1/*.hang &&
	grep -q "^site: [0-9]* barrier 0x[0-9a-f]* hang_thread+0x[0-9a-f]* at rt-sync.c:186 (rt-sync+0x[0-9a-f]*)$" h1/*.hang &&
	grep "^waiting: thread" h1/*.hang >waiting && test_line_count = 2 waiting &&
	grep -q "^missing: thread 1 tid [0-9]* stuck " h1/*.hang &&
	grep -q "^  frame: [0-9]* never_arrives+0x" h1/*.hang &&
	grep -q "^hpcrun: missing: thread 1 tid [0-9]* stuck " err &&
	grep -q "^hpcrun:   frame: [0-9]* never_arrives+0x" err &&
	grep -q "^hang-reports: 1$" h1/*.log &&
	ls h1/*-000-*.hpcrun && ! ls h1/*.hpcrun-live 2>/dev/null
'

test_expect_success 'the report says how long the waiters had waited: the longest the timeout at least' '
	sed -n "s/^waiting: thread [0-9]* tid [0-9]* for \([0-9.]*\) s$/\1/p" h1/*.hang >secs &&
	awk "{ if (\$1 > m) m = \$1 } END { exit !(m >= 1 && m <= 60) }" secs
'

# rt-sync spinhang 2: thread 1 computes forever in spins_forever() instead
# of arriving.
test_expect_success 'a thread spinning in one place: reported late once the timeout passed, still computing' '
	until_reported 60 0 "sp/*.hang" hpcrun -o sp --hang-timeout 3 ./rt-sync spinhang 2 \
		>out 2>err &&
	test $st = 137 &&
	grep -c "^hang: late$" sp/*.hang >n && test_cmp one n &&
	! grep -q "^hang: barrier$" sp/*.hang &&
	grep -q "^missing: thread 1 tid [0-9]* computing cpu [0-9.]* s in the last [0-9.]* s; path unchanged for [0-9.]* s$" sp/*.hang &&
	grep -q "^  frame: 0 spins_forever+0x[0-9a-f]* at rt-sync.c:17[67] (rt-sync+0x[0-9a-f]*)$" sp/*.hang &&
	grep -q "^  frame: 1 hang_thread+0x[0-9a-f]* at rt-sync.c:183 (rt-sync+0x[0-9a-f]*)$" sp/*.hang &&
	grep -q "^note: not arrived after the timeout and still computing in one place" sp/*.hang &&
	t=$(sed -n "s/^time: //p" sp/*.hang) &&
	w=$(sed -n "s/^waiting: thread 0 tid [0-9]* for \([0-9.]*\) s$/\1/p" sp/*.hang) &&
	awk -v t="$t" -v w="$w" "BEGIN { exit !(w >= 3 && w <= 60 && t >= 3 && t <= 60) }"
'

test_expect_success 'a thread computing forever instead (a livelock): late, then a hang once it has used 10 timeouts of CPU' '
	st=0 && hpcrun -o h3 --hang-timeout 0.1 --hang-action=abort ./rt-sync spinhang 2 \
		>out 2>err || st=$? &&
	test $st = 134 &&
	{ grep -q "^hang: late$" h3/*.hang &&
	  grep -q "^missing: thread 1 tid [0-9]* slow cpu " h3/*.hang ||
	  { cat h3/*.hang; false; }; } &&
	cpu=$(sed -n "s/^missing: thread 1 tid [0-9]* slow cpu \([0-9.]*\) s .*/\1/p" h3/*.hang) &&
	awk -v c="$cpu" "BEGIN { exit !(c >= 1) }" &&
	grep -q "^  frame: [0-9]* spins_forever+0x" h3/*.hang
'

# rt-sync hangafter 4 8 20: 8 rounds in which 3 of 4 threads wait about
# 60 ms, then thread 1 never arrives.
test_expect_success 'the timeout scales with the median episode: 100 x about 60 ms, not the 0.2 s asked' '
	st=0 && hpcrun -o h4 --hang-timeout 0.2 --hang-action=abort ./rt-sync hangafter 4 8 20 \
		>out 2>err || st=$? &&
	test $st = 134 &&
	t=$(sed -n "s/^timeout: //p" h4/*.hang) &&
	awk -v t="$t" "BEGIN { exit !(t >= 2 && t <= 21) }" &&
	grep -q "^episode: 8$" h4/*.hang &&
	grep -q "^missing: thread 1 tid [0-9]* stuck " h4/*.hang &&
	grep -q "^  frame: [0-9]* never_arrives+0x" h4/*.hang
'

test_expect_success '--hang-action=report: the program runs on, the hang reported once' '
	until_reported 60 3 "h2/*.hang" hpcrun -o h2 --hang-timeout 1 ./rt-sync hang 2 \
		>out 2>err &&
	test $st = 137 &&
	grep -c "^hpcrun-hang: 1$" h2/*.hang >n && test_cmp one n &&
	grep -c "^hpcrun: hpcrun-hang: 1$" err >n && test_cmp one n
'

# A pool's barrier of 3: main and one worker wait, the other worker blocks
# in a read for good, and a fourth thread (a logger, no party to the
# barrier) sleeps in its loop.  Both not at the barrier are listed; the
# report says the barrier waits for one of them.
test_expect_success 'a barrier of 3 and 4 threads: both threads not at it listed, the note says it waits for one' '
	cat >party.c <<-\EOF &&
	#include <pthread.h>
	#include <unistd.h>
	static pthread_barrier_t b;
	static int fds[2];
	static void *worker(void *a)
	{
		char c;

		if (a && read(fds[0], &c, 1) < 0)
			return NULL;
		pthread_barrier_wait(&b);
		return NULL;
	}
	static void *logger(void *a)
	{
		(void)a;
		for (;;)
			usleep(100000);
		return NULL;
	}
	int main(void)
	{
		pthread_t t[3];

		if (pipe(fds))
			return 1;
		pthread_barrier_init(&b, NULL, 3);
		pthread_create(&t[0], NULL, logger, NULL);
		pthread_create(&t[1], NULL, worker, NULL);
		pthread_create(&t[2], NULL, worker, &b);
		pthread_barrier_wait(&b);
		return 0;
	}
	EOF
	cc -O2 -g -pthread -o party party.c &&
	until_reported 60 0 "pa/*.hang" hpcrun -o pa --hang-timeout 1 ./party >out 2>err &&
	test $st = 137 &&
	grep "^waiting: thread" pa/*.hang >waiting && test_line_count = 2 waiting &&
	grep "^missing: thread [0-9]* tid [0-9]* stuck " pa/*.hang >missing &&
	test_line_count = 2 missing &&
	grep -qx "note: the barrier waits for 1 more of its 3 threads, among the 2 listed" pa/*.hang
'

# first.c MODE: three workers meet once at a barrier of 3 while the main
# thread waits for them in pthread_join.  slow: worker 0 computes 2 s
# first; bystanders: the same beside threads blocked elsewhere (nanosleep,
# poll, select, sem_wait, read, sigwait), which the main thread releases
# or which time out after 3 s; pause: worker 0 waits in pause() for good
# instead; both: worker 0 computes 2 s and worker 1 waits in pause().  On
# the barrier's first episode its participants are not known yet.
test_expect_success 'setup: a slow worker at a barrier first met, beside threads blocked elsewhere' '
	cat >first.c <<-\EOF &&
	#include <poll.h>
	#include <pthread.h>
	#include <semaphore.h>
	#include <signal.h>
	#include <stdio.h>
	#include <string.h>
	#include <sys/select.h>
	#include <time.h>
	#include <unistd.h>
	static pthread_barrier_t b;
	static const char *mode;
	static int quiet[2], fds[2];
	static sem_t sem;
	static volatile double sink;
	static char said[6][64];
	static double now(void)
	{
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		return t.tv_sec + t.tv_nsec * 1e-9;
	}
	__attribute__((noinline)) static double step(double x)
	{
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 1;
		return x;
	}
	__attribute__((noinline)) static void computes(double s)
	{
		double t0 = now(), x = 0;

		while (now() - t0 < s)
			x = step(x);
		sink = x;
	}
	__attribute__((noinline)) static void waits_for_a_signal(void)
	{
		for (;;)
			pause();
	}
	static void *worker(void *a)
	{
		long id = (long)a;

		if (id == 0 && strcmp(mode, "pause"))
			computes(2.0);
		if ((id == 0 && !strcmp(mode, "pause")) ||
		    (id == 1 && !strcmp(mode, "both")))
			waits_for_a_signal();
		pthread_barrier_wait(&b);
		return NULL;
	}
	static void *bystander(void *a)
	{
		long id = (long)a;
		struct timespec ts = { 3, 0 };
		struct timeval tv = { 3, 0 };
		struct pollfd p = { quiet[0], POLLIN, 0 };
		sigset_t set;
		char c = 0;
		int sig = 0;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		if (id == 0)
			sprintf(said[0], "nanosleep %d", nanosleep(&ts, NULL));
		if (id == 1)
			sprintf(said[1], "poll %d", poll(&p, 1, 3000));
		if (id == 2)
			sprintf(said[2], "select %d", select(0, NULL, NULL, NULL, &tv));
		if (id == 3)
			sprintf(said[3], "sem_wait %d", sem_wait(&sem));
		if (id == 4) {
			int r = (int)read(fds[0], &c, 1);

			sprintf(said[4], "read %d %c", r, c);
		}
		if (id == 5) {
			int r = sigwait(&set, &sig);

			sprintf(said[5], "sigwait %d %d", r, sig == SIGUSR1);
		}
		return NULL;
	}
	int main(int argc, char **argv)
	{
		pthread_t w[3], t[6];
		int n, i;
		sigset_t set;

		if (argc != 2)
			return 2;
		mode = argv[1];
		n = strcmp(mode, "bystanders") ? 0 : 6;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		if (pipe(quiet) || pipe(fds) || sem_init(&sem, 0, 0))
			return 1;
		pthread_barrier_init(&b, NULL, 3);
		for (i = 0; i < n; i++)
			pthread_create(&t[i], NULL, bystander, (void *)(long)i);
		for (i = 0; i < 3; i++)
			pthread_create(&w[i], NULL, worker, (void *)(long)i);
		for (i = 0; i < 3; i++)
			pthread_join(w[i], NULL);
		if (n) {
			sem_post(&sem);
			if (write(fds[1], "x", 1) != 1)
				return 1;
			pthread_kill(t[5], SIGUSR1);
		}
		for (i = 0; i < n; i++) {
			pthread_join(t[i], NULL);
			puts(said[i]);
		}
		puts("done");
		return 0;
	}
	EOF
	cc -O2 -g -pthread -o first first.c &&
	./first bystanders >expect-by &&
	printf "%s\n" "nanosleep 0" "poll 0" "select 0" "sem_wait 0" "read 1 x" \
		"sigwait 0 1" done >want && test_cmp want expect-by
'

# No hang report, or a late one: the worker computing is all the barrier
# waits for, whatever the threads blocked elsewhere do.
not_hung() {
	{ ! grep -q "^hang: barrier$" $1/*.hang 2>/dev/null || { cat $1/*.hang; false; }; } &&
	{ ! ls $1/*.hang 2>/dev/null ||
	  grep -qx "note: 1 of the missing threads compute, enough for the 1 more it needs: those stuck may be no party to it" $1/*.hang; }
}

test_expect_success 'a slow worker at a first episode, the main thread in pthread_join: no hang, not aborted' '
	st=0 && hpcrun -o f1 --hang-timeout 1 --hang-action=abort ./first slow \
		>out 2>err || st=$? &&
	test $st = 0 && echo done >expect && test_cmp expect out &&
	not_hung f1 && ! grep -q "^hpcrun: hang: barrier$" err
'

test_expect_success 'the same beside six threads blocked elsewhere: no hang, not aborted, no call cut short' '
	st=0 && hpcrun -o f2 --hang-timeout 1 --hang-action=abort ./first bystanders \
		>out 2>err || st=$? &&
	test $st = 0 && test_cmp expect-by out &&
	not_hung f2 && ! grep -q "^hpcrun: hang: barrier$" err
'

test_expect_success 'a worker in pause() at a first episode, none computing: a hang with its frames, aborted' '
	st=0 && hpcrun -o f3 --hang-timeout 1 --hang-action=abort ./first pause \
		>out 2>err || st=$? &&
	test $st = 134 &&
	grep -q "^hang: barrier$" f3/*.hang &&
	grep "^missing: thread [0-9]* tid [0-9]* stuck " f3/*.hang >missing &&
	test_line_count = 2 missing &&
	grep -q "^  frame: [0-9]* waits_for_a_signal+0x[0-9a-f]* at first.c:$(grep -n "pause();" first.c | cut -d: -f1) (first+0x[0-9a-f]*)$" f3/*.hang
'

test_expect_success 'a worker computing and one in pause(), the barrier needing both: a hang, aborted' '
	st=0 && hpcrun -o f4 --hang-timeout 1 --hang-action=abort ./first both \
		>out 2>err || st=$? &&
	test $st = 134 &&
	grep -q "^hang: barrier$" f4/*.hang &&
	grep -q "^missing: thread [0-9]* tid [0-9]* slow " f4/*.hang &&
	grep -q "^  frame: [0-9]* waits_for_a_signal+0x[0-9a-f]* at first.c:" f4/*.hang &&
	grep -q "^note: the barrier waits for 2 more of its 3 threads, among the 3 listed$" f4/*.hang
'

test_expect_success 'a lock-order deadlock of two threads: the cycle, each thread holding the other one' '
	st=0 && hpcrun -o d1 --hang-timeout 1 --hang-action=abort ./rt-sync deadlock \
		>out 2>err || st=$? &&
	test $st = 134 &&
	grep -q "^hang: deadlock$" d1/*.hang &&
	sed -n "s/^cycle: thread \([01]\) waits for mutex \(0x[0-9a-f]*\) held by thread \([01]\) at .*/\1 \2 \3/p" \
		d1/*.hang >cycle &&
	test_line_count = 2 cycle &&
	set -- $(cat cycle) &&
	test "$1" = "$6" && test "$3" = "$4" && test "$1" != "$3" && test "$2" != "$5" &&
	grep "^  frame: [0-9]* _*pthread_mutex_lock+" d1/*.hang >frames &&
	test_line_count = 2 frames
'

# rt-sync serialsteps 2 MS 100: thread 0 alone computes MS ms in steps of
# 100 ms (of its CPU time, or of wall time on a busy machine) in two
# functions while thread 1 waits at the next barrier.
test_expect_success 'a serial phase of 1 s of CPU whose path moves while the other thread waits: no report' '
	hpcrun -o s1 --hang-timeout 0.5 ./rt-sync serialsteps 2 1000 100 >out 2>err &&
	echo "serial done" >expect && test_cmp expect out &&
	{ ! ls s1/*.hang 2>/dev/null || { cat s1/*.hang; false; }; } &&
	! grep -q hang err &&
	grep -q "^hang-reports: 0$" s1/*.log
'

test_expect_success 'a serial phase in one loop past the timeout: late, not a hang; --hang-action=abort does not act on it' '
	hpcrun -o s3 --hang-timeout 0.5 --hang-action=abort ./rt-sync serial 2 1500 \
		>out 2>err &&
	echo "serial done" >expect && test_cmp expect out &&
	grep -q "^hang: late$" s3/*.hang && ! grep -q "^hang: barrier$" s3/*.hang
'

test_expect_success 'a 30 s serial phase whose path moves (10 timeouts of CPU): no report' '
	hpcrun -o s4 --hang-timeout 3 ./rt-sync serialsteps 2 30000 100 >out 2>err &&
	echo "serial done" >expect && test_cmp expect out &&
	{ ! ls s4/*.hang 2>/dev/null || { cat s4/*.hang; false; }; } &&
	! grep -q hang err &&
	grep -q "^hang-reports: 0$" s4/*.log
'

test_expect_success 'a 3 s serial phase between OpenMP regions (6 timeouts): no report' '
	hpcrun -o s2 --hang-timeout 0.5 ./rt-sync-gomp ompserial 3000 >out 2>err &&
	echo "sum 4" >expect && test_cmp expect out &&
	! ls s2/*.hang 2>/dev/null &&
	grep -q "^hang-reports: 0$" s2/*.log
'

test_expect_success '--hang-timeout 0: no detector' '
	st=0 && timeout -s KILL 3 hpcrun -o h0 --hang-timeout 0 ./rt-sync hang 1 \
		>out 2>err || st=$? &&
	test $st = 137 && ! ls h0/*.hang 2>/dev/null
'

# rt-sync barrier 2 6 sleep 20: the late thread sleeps 80 ms, the other 20.
test_expect_success '--sync-warn 30: one line a second on stderr naming the site, the episode and the late thread; all counted in the log' '
	hpcrun -o w1 --sync-warn 30 ./rt-sync barrier 2 6 sleep 20 >out 2>err &&
	grep "^hpcrun: sync-warn: " err >warned &&
	test_line_count -ge 1 warned &&
	test_line_count -le 2 warned &&
	grep -q "^hpcrun: sync-warn: site [0-9]* (barrier at [a-z_]*+0x[0-9a-f]* (rt-sync+0x[0-9a-f]*)) episode [0-9]*: arrival spread [0-9.]* ms > 30.0 ms; late: thread [01] (+[0-9.]* ms)$" err &&
	n=$(sed -n "s/^sync-warnings: //p" w1/*.log) && test "$n" -ge 5 &&
	grep -q "^sync-warn: site" w1/*.log
'

test_expect_success 'bad values of the options are refused, naming the option' '
	test_must_fail hpcrun --hang-timeout x ./rt-sync many 1 2>err &&
	grep -q "^hpcrun: option .--hang-timeout.: not a number" err &&
	test_must_fail hpcrun --sync-warn -1 ./rt-sync many 1 2>err &&
	grep -q "^hpcrun: option .--sync-warn.: not a number" err &&
	test_must_fail hpcrun --hang-action=stop ./rt-sync many 1 2>err &&
	grep -q "^hpcrun: option .--hang-action.: .report. or .abort., not .stop.$" err
'

test_done
