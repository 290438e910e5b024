#!/bin/sh
test_description='hpcrun --sharing: a thread with nothing to tell writes no .hpcshare; main and every thread with records do, and hpcprof reads the measurement as a whole'
. "$(dirname "$0")/test-lib.sh"

# rt-churn (tests/progs/rt-churn.c) makes 2 rounds of 50 threads of 0.1 ms
# each: at --sharing's 5 kHz most take no sample in a data object, and
# those write no file (hpcrun(5), "Sharing files").

test_expect_success 'setup: churning program, its native output' '
	cc -O2 -g -pthread -o rt-churn "$TEST_PROGS/rt-churn.c" &&
	./rt-churn rounds 2 50 100 >plain 2>/dev/null
'

test_expect_success PERF_EVENTS 'quiet threads write no .hpcshare; main and each thread with something to tell do' '
	hpcrun -q --sharing -o m ./rt-churn rounds 2 50 100 >out 2>err &&
	test_cmp plain out &&
	ls m/*.hpcrun >profiles &&
	test_line_count = 101 profiles &&
	ls m/*.hpcshare >files &&
	test $(wc -l <files) -lt 101 &&
	grep -l "^thread 0$" $(cat files) >main &&
	test_line_count = 1 main &&
	for f in $(cat files); do
		grep -q -e "^thread 0$" -e "^access " -e "^dropped [1-9]" \
			-e "^untracked [1-9]" "$f" || { echo "$f: nothing to tell" >&2; return 1; }
	done &&
	for f in $(cat files); do
		test -f "${f%.hpcshare}.hpcrun" || return 1
	done
'

test_expect_success PERF_EVENTS 'the files hold every record the log counts' '
	n=$(sed -n "s/^sharing-records: //p" m/*.log) &&
	test -n "$n" &&
	echo $n >expect &&
	echo $(awk "\$1 == \"access\"" m/*.hpcshare | wc -l) >actual &&
	test_cmp expect actual
'

test_expect_success PERF_EVENTS 'hpcprof: profiles without a .hpcshare beside them are fine; its sharing section has every record' '
	hpcprof -o db --text report m >/dev/null 2>err &&
	! grep -e "\.hpcshare" -e "\.hpcrun" err &&
	grep -q "(1 process, 101 threads," err &&
	test -f db/sharing.tsv &&
	n=$(cat expect) &&
	grep -q "^Sharing (hpcrun --sharing: $n sampled accesses in $(wc -l <files) threads" report
'

test_done
