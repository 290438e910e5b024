#!/bin/sh
test_description='hpcrun: of two fatal signals sent back to back, the process dies of the first'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/rt-twosig.c: a supervisor sends its worker S1, then S2.
# Natively S1, whose default action ends the process as it is sent,
# ends it; under hpcrun S1 is handled first (every profile written)
# while S2 waits, blocked, until the process is gone (signals.c, THE
# FATAL SIGNALS, 5).  The pairs:
# fatal signals hpcrun handles, and hpcrun's sampling signal (SIGRTMAX,
# a real-time signal), which it shares with the program.  Each S2 is
# numbered above S1: of two pending at once the kernel delivers the
# lower first.  Not here, being races (hpcrun(1)): an S2 that hpcrun
# leaves to the program (SIGIO, another real-time signal), which ends
# the process by itself when it comes before S1's handler starts (1
# run of some 280); SIGKILL, which always does.

test_expect_success 'setup: test program' '
	cc -O2 -o rt-twosig "$TEST_PROGS/rt-twosig.c"
'

for pair in "10 12" "14 15" "15 64" "2 64"; do
	s1=${pair% *}
	test_expect_success "signals $pair: the worker dies of $s1 and says so in its log, in every mode" '
		./rt-twosig '"$pair"' >plain.out &&
		echo "worker killed by signal '$s1'" >expect &&
		test_cmp expect plain.out &&
		for opts in "" "-t" "--data"; do
			for i in 1 2 3; do
				rm -rf two &&
				hpcrun -o two $opts ./rt-twosig '"$pair"' >two.out &&
				test_cmp plain.out two.out &&
				grep -l "^end: signal '$s1'$" two/*.log >ends &&
				test_line_count = 1 ends || return 1
			done
		done
	'
done

test_done
