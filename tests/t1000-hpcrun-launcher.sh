#!/bin/sh
test_description='hpcrun launcher: options, events, measurement directory, exit status'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: compile the test program' '
	cc -O2 -fomit-frame-pointer -pthread -o rt-work "$TEST_PROGS/rt-work.c"
'

test_expect_success 'the default directory is hpctoolkit-PROG-measurements' '
	hpcrun ./rt-work split 1 &&
	test -d hpctoolkit-rt-work-measurements &&
	ls hpctoolkit-rt-work-measurements/rt-work-000000-000-*-0.hpcrun >files &&
	test_line_count = 1 files &&
	ls hpctoolkit-rt-work-measurements/*.log >logs &&
	test_line_count = 1 logs
'

test_expect_success 'a second run takes the plain name; the first is moved to -2 whole, then -3' '
	ls -a hpctoolkit-rt-work-measurements >first &&
	hpcrun ./rt-work split 1 &&
	ls -a hpctoolkit-rt-work-measurements >second &&
	hpcrun ./rt-work split 1 &&
	ls -a hpctoolkit-rt-work-measurements-2 >after2 &&
	test_cmp first after2 &&
	ls -a hpctoolkit-rt-work-measurements-3 >after3 &&
	test_cmp second after3 &&
	! test_cmp first second 2>/dev/null
'

test_expect_success 'an explicit non-empty -o DIR is refused, nothing runs' '
	mkdir full && echo x >full/keep &&
	test_must_fail hpcrun -o full ./rt-work exit 0 2>err &&
	grep -q "^hpcrun: '\''full'\'': exists and is not empty" err &&
	ls full >content && echo keep >expect && test_cmp expect content
'

test_expect_success 'an explicit empty or new -o DIR is used' '
	mkdir empty &&
	hpcrun -o empty ./rt-work split 1 &&
	ls empty/*.hpcrun &&
	hpcrun -o new ./rt-work split 1 &&
	ls new/*.hpcrun
'

test_expect_success '-o under a missing parent says why' '
	test_must_fail hpcrun -o no/such/dir ./rt-work exit 0 2>err &&
	grep -q "^hpcrun: '\''no/such/dir'\'': cannot create: No such file or directory" err
'

test_expect_success 'the exit status is the program'\''s' '
	status=0 && hpcrun -o ex1 ./rt-work exit 7 || status=$? &&
	test $status = 7 &&
	status=0 && hpcrun -o ex2 ./rt-work _exit 9 || status=$? &&
	test $status = 9 &&
	hpcrun -o ex3 ./rt-work exit 0
'

test_expect_success 'a missing program: message and 127, no directory left' '
	status=0 && hpcrun -o gone ./no-such-program 2>err || status=$? &&
	test $status = 127 &&
	grep -q "^hpcrun: '\''./no-such-program'\'': No such file or directory" err &&
	test ! -e gone &&
	status=0 && hpcrun no-such-command-anywhere 2>err || status=$? &&
	test $status = 127 &&
	grep -q "^hpcrun: '\''no-such-command-anywhere'\'': command not found" err
'

test_expect_success 'a program that cannot be run: message and 126' '
	echo "not a program" >notexec && chmod 644 notexec &&
	status=0 && hpcrun -o ne ./notexec 2>err || status=$? &&
	test $status = 126 &&
	grep -q "^hpcrun: '\''./notexec'\'': cannot run" err
'

test_expect_success 'no program is a usage error' '
	status=0 && hpcrun 2>err || status=$? &&
	test $status = 2 &&
	grep -q "^hpcrun: no program given" err
'

test_expect_success 'unknown events and bad periods are refused up front' '
	status=0 && hpcrun -o bad1 -e no-such-event ./rt-work exit 0 2>err || status=$? &&
	test $status = 2 && test ! -e bad1 &&
	grep -q "^hpcrun: '\''no-such-event'\'': unknown event" err &&
	status=0 && hpcrun -e cpu-clock@0 ./rt-work exit 0 2>err || status=$? &&
	test $status = 2 && grep -q "bad period" err &&
	status=0 && hpcrun -e cpu-clock@fx ./rt-work exit 0 2>err || status=$? &&
	test $status = 2 && grep -q "bad frequency" err &&
	status=0 && hpcrun -e CPUTIME@f100 ./rt-work exit 0 2>err || status=$? &&
	test $status = 2 && grep -q "timer events take a period" err
'

test_expect_success '--stack-copy takes a multiple of 8 from 64 to 65528 bytes' '
	for bad in 100 56 65536 8k ""; do
		status=0 && hpcrun -o sc --stack-copy="$bad" ./rt-work exit 0 2>err || status=$? &&
		test $status = 2 && test ! -e sc &&
		grep -q "^hpcrun: option '\''--stack-copy'\'': want a multiple of 8 from 64 to 65528 bytes, not '\''$bad'\''\$" err ||
		exit 1
	done &&
	status=0 && hpcrun -o sc --stack-copy 4096 --no-stack-copy ./rt-work exit 0 2>err || status=$? &&
	test $status = 2 && test ! -e sc &&
	grep -q "^hpcrun: --stack-copy and --no-stack-copy exclude each other$" err &&
	hpcrun -v -o sc --stack-copy 64 ./rt-work exit 0 2>err &&
	grep -q "^hpcrun: HPCRUN_STACK_COPY=64$" err
'

test_expect_success PERF_EVENTS 'the runtime: the copy asked for; a bad one set by hand, a warning' '
	grep -q "^stack-copy: 64$" sc/*.log &&
	mkdir byhand &&
	HPCRUN_OUT_PATH="$TRASH/byhand" HPCRUN_STACK_COPY=13 \
		LD_PRELOAD="$HPC_BUILD/lib/hpcrun/libhpcrun.so" ./rt-work split 1 >/dev/null 2>err &&
	grep -q "^hpcrun: warning: HPCRUN_STACK_COPY=.13.: want a multiple of 8 from 64 to 65528 bytes; copying 8192 bytes$" err &&
	grep -q "^stack-copy: 8192$" byhand/*.log
'

test_expect_success '--list-events lists software events as available here' '
	hpcrun --list-events >list &&
	grep -q "^cpu-clock  *perf software  *available" list &&
	grep -q "^page-faults  *perf software  *available" list &&
	grep -q "^CPUTIME  *POSIX timer  *available" list &&
	grep -q "^cycles .*falls back to cpu-clock" list
'

test_expect_success '-v shows the environment handed to the runtime' '
	hpcrun -v -o verb -e task-clock --no-unwind ./rt-work exit 0 2>err &&
	grep -q "^hpcrun: HPCRUN_OUT_PATH=$TRASH/verb\$" err &&
	grep -q "^hpcrun: HPCRUN_EVENT_LIST=task-clock\$" err &&
	grep -q "^hpcrun: HPCRUN_NO_UNWIND=1\$" err &&
	grep -q "^hpcrun: LD_PRELOAD=.*/lib/hpcrun/libhpcrun.so\$" err
'

test_expect_success '-v: the runtime says what it samples' '
	grep -q "^hpcrun: pid [0-9]* samples perf::task-clock (perf) frequency 1000 on signal [0-9]*\$" err
'

test_expect_success 'a statically linked program is run with a warning' '
	printf "int main(void) { return 3; }\n" >st.c &&
	if cc -static -o st st.c 2>/dev/null; then
		status=0 && hpcrun -o static ./st 2>err || status=$? &&
		test $status = 3 &&
		grep -q "^hpcrun: warning: '\''./st'\'': statically linked" err
	fi
'

test_expect_success 'an existing LD_PRELOAD is kept after the runtime' '
	cat >showenv.sh <<-\EOS &&
	#!/bin/sh
	echo "$LD_PRELOAD"
	EOS
	chmod +x showenv.sh &&
	LD_PRELOAD=/nonexistent-but-harmless.so hpcrun -o env ./showenv.sh >out 2>/dev/null &&
	grep -q "/lib/hpcrun/libhpcrun.so:/nonexistent-but-harmless.so\$" out
'

test_expect_success 'hpcrun moved to PREFIX/bin finds PREFIX/lib/hpcrun/libhpcrun.so' '
	mkdir -p inst/bin inst/lib/hpcrun &&
	cp "$HPC_BUILD/bin/hpcrun" inst/bin/ &&
	cp "$HPC_BUILD/lib/hpcrun/libhpcrun.so" inst/lib/hpcrun/ &&
	inst/bin/hpcrun -v -o inst-meas ./rt-work split 1 2>err &&
	grep -q "^hpcrun: LD_PRELOAD=$TRASH/inst/lib/hpcrun/libhpcrun.so\$" err &&
	ls inst-meas/*.hpcrun &&
	rm inst/lib/hpcrun/libhpcrun.so &&
	test_must_fail inst/bin/hpcrun -o none ./rt-work exit 0 2>err &&
	grep -q "^hpcrun: '\''$TRASH/inst/lib/hpcrun/libhpcrun.so'\'': runtime not found" err
'

test_done
