#!/bin/sh
test_description='hpcrun: glibc'"'"'s System V and BSD signal calls (sigset, sighold, sigpause, ...) act as natively, sampling goes on'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/rt-sigfam.c: each of glibc's calls that reach the kernel
# through its internal sigaction, sigprocmask and sigsuspend, on SIGRTMAX
# (hpcrun's sampling signal as the program starts) and on SIGUSR1 (one of
# hpcrun's fatal signals).  hpcrun makes each anew of its own wrappers
# (signals.c), so that a handler or mask of the sampling signal moves
# sampling away, as sigaction and sigprocmask do.

# same CALL SIG DIR [OPTS...]: rt-sigfam CALL SIG prints the same, exits
# 0 and says nothing on stderr with and without hpcrun -o DIR OPTS, and
# hpcrun took at least 250 samples of its 0.5 s of CPU (1 kHz), most of
# them after CALL.
same() {
	call=$1 sig=$2 dir=$3 &&
	shift 3 &&
	./rt-sigfam $call $sig >plain.out &&
	rm -rf $dir &&
	hpcrun -o $dir "$@" ./rt-sigfam $call $sig >$dir.out 2>$dir.err &&
	test_cmp plain.out $dir.out &&
	only_hpcrun_said $dir.err &&
	taken=$(sed -n "s/^samples-taken: //p" $dir/*.log) &&
	test "$taken" -ge 250 || {
		echo "$call $sig $*: ${taken:-no} samples taken" >&2
		return 1
	}
}

test_expect_success 'setup: test program' '
	cc -O2 -pthread -o rt-sigfam "$TEST_PROGS/rt-sigfam.c"
'

for call in sigset bsd_signal sysv_signal hold ignore sigpause bsdpause bsdmask \
	interrupt; do
	for sig in rtmax usr1; do
		test_expect_success "$call on $sig: as natively, sampled (default, -t)" '
			retry 2 same '$call' '$sig' plain &&
			retry 2 same '$call' '$sig' traced -t
		'
	done
done

test_expect_success 'sigset of a handler for SIGRTMAX moves the sampling signal' '
	same sigset rtmax moved &&
	grep -q "^the program installed an action for signal [0-9]*: hpcrun samples with signal [0-9]* from now on$" moved/*.log &&
	head -n 2 moved.out >got &&
	cat >expect <<-\EOT &&
	sigset h: SIG_DFL, hits 0, action h flags, blocked 0, pending 0
	raised 3: -, hits 3, action h flags, blocked 0, pending 0
	EOT
	test_cmp expect got
'

test_expect_success 'sighold of SIGRTMAX moves it too; nothing said on stderr' '
	same hold rtmax held &&
	grep -q "^the program blocked signal [0-9]*: hpcrun samples with signal [0-9]* from now on$" held/*.log
'

# A success leaves errno as it was: installing an action for the
# sampling signal moves it, and the move's own calls set errno to EINVAL
# (an outside sweep's program read it after a successful sigaction).
test_expect_success 'a sigaction or signal that moves the sampling signal leaves errno as it was' '
	cat >errno.c <<-\EOT &&
	#include <errno.h>
	#include <signal.h>
	#include <stdio.h>
	static void h(int s) { (void)s; }
	int main(void)
	{
		struct sigaction a = { 0 };
		int r;

		a.sa_handler = h;
		errno = 0;
		r = sigaction(SIGRTMAX, &a, NULL);
		printf("sigaction %d, errno %d\n", r, errno);
		errno = 0;
		printf("signal %s, errno %d\n",
		       signal(SIGRTMAX - 1, h) == SIG_ERR ? "SIG_ERR" : "ok", errno);
		return 0;
	}
	EOT
	cc -o errno errno.c &&
	./errno >expect &&
	hpcrun -q -o errno.m ./errno >out &&
	test_cmp expect out &&
	grep -q "hpcrun samples with signal" errno.m/*.log
'

test_done
