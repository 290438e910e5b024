#!/bin/sh
test_description='hpcrun follows fork, exec, dlopen, fatal signals; keeps the program'\''s SIGPROF'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: test program, library, profile reader' '
	cc -O2 -fomit-frame-pointer -pthread -o rt-work "$TEST_PROGS/rt-work.c" &&
	cc -O2 -fomit-frame-pointer -shared -fPIC -o rt-dso.so "$TEST_PROGS/rt-dso.c" &&
	nm -S --defined-only rt-work >rt-work.nm &&
	build_rt_folded
'

test_expect_success 'fork: parent and child each get their own profile and log' '
	hpcrun -o fork ./rt-work fork 10 >out &&
	echo "child 0" >expect && test_cmp expect out &&
	ls fork/*.hpcrun >files && test_line_count = 2 files &&
	ls fork/*.log >logs && test_line_count = 2 logs &&
	sed "s/.*-\([0-9]*\)-0.hpcrun/\1/" files | sort -u >pids &&
	test_line_count = 2 pids &&
	for f in fork/*.hpcrun; do ./rt-folded "$f" "$TRASH/rt-work" rt-work.nm || exit 1; done >ff &&
	grep -q "^^Primary;|Main;main;heavy " ff &&
	grep -q "^^Primary;|Main;main;light " ff &&
	test $(grep -c "^^Primary;|Main;main;heavy " ff) -ge 1
'

test_expect_success 'fork: the child profile holds only the child'\''s work' '
	for f in fork/*.hpcrun; do
		./rt-folded "$f" "$TRASH/rt-work" rt-work.nm >one &&
		if grep -q "main;light " one; then ! grep -q "main;heavy " one || exit 1; fi
	done
'

# A fork by the clone or clone3 system call (through syscall(3), as
# runtimes that bypass glibc's fork make theirs) had no fork handler run:
# its child went unmeasured, without a word.
test_expect_success 'a fork by clone and clone3: the child measured as after fork' '
	for how in clonefork clone3fork; do
		rm -rf $how &&
		hpcrun -o $how ./rt-work $how 10 >out &&
		echo "child 0" >expect && test_cmp expect out &&
		ls $how/*.hpcrun >files && test_line_count = 2 files &&
		for f in $how/*.hpcrun; do
			./rt-folded "$f" "$TRASH/rt-work" rt-work.nm || exit 1
		done >ff &&
		grep -q "^^Primary;|Main;main;heavy " ff &&
		grep -q "^^Primary;|Main;main;light " ff || return 1
	done
'

# wait_for FILE: until FILE is written (10 s at most).
wait_for() {
	n=0
	while ! test -s "$1" && test $n -lt 100; do
		sleep 0.1
		n=$((n + 1))
	done
	test -s "$1"
}

# glibc's daemon() leaves its parent by an _exit inside libc.
test_expect_success 'daemon(): the parent written at its end, the daemon measured apart' '
	./rt-work daemon 10 "$TRASH/native.d" && wait_for native.d &&
	echo "cwd /, stdin /dev/null" >expect && test_cmp expect native.d &&
	hpcrun -o dm ./rt-work daemon 10 "$TRASH/dm.d" >out 2>err &&
	wait_for dm.d && test_cmp expect dm.d &&
	test_cmp /dev/null out && only_hpcrun_said err &&
	n=0 && while test "$(ls dm/*.log | wc -l)" -lt 2 && test $n -lt 100; do
		sleep 0.1; n=$((n + 1))
	done &&
	ls dm/*.log >logs && test_line_count = 2 logs &&
	grep -l "^end: _exit$" dm/*.log >parent && test_line_count = 1 parent &&
	! ls dm/*.hpcrun-live 2>/dev/null &&
	for f in dm/*.hpcrun; do ./rt-folded "$f" "$TRASH/rt-work" rt-work.nm || return 1; done >ff &&
	grep -q "^^Primary;|Main;main;heavy " ff &&
	grep -q "^^Primary;|Main;main;light " ff
'

test_expect_success 'exec: the old image is written first, the new one measured too' '
	hpcrun -o exec ./rt-work exec 5 &&
	ls exec/*.hpcrun >files && test_line_count = 2 files &&
	ls exec/*-0.hpcrun exec/*-1.hpcrun &&
	grep -l "^end: exec$" exec/*.log >l1 && test_line_count = 1 l1 &&
	grep -l "^end: exit$" exec/*.log >l2 && test_line_count = 1 l2 &&
	./rt-folded exec/*-1.hpcrun "$TRASH/rt-work" rt-work.nm >new &&
	grep -q "main;light " new
'

test_expect_success 'a failed exec: written, then measured on in new files' '
	hpcrun -o execfail ./rt-work execfail 5 2>err &&
	grep -q "^exec: No such file or directory$" err &&
	ls execfail/*-0.hpcrun execfail/*-1.hpcrun &&
	grep -l "^end: exec$" execfail/*-0.log &&
	grep -q "^end: exit$" execfail/*-1.log &&
	grep -q "^exec failed (No such file or directory)" execfail/*-1.log &&
	./rt-folded execfail/*-0.hpcrun "$TRASH/rt-work" rt-work.nm >f0 &&
	./rt-folded execfail/*-1.hpcrun "$TRASH/rt-work" rt-work.nm >f1 &&
	grep -q "main;heavy " f0 && ! grep -q "main;light " f0 &&
	grep -q "main;light " f1 && ! grep -q "main;heavy " f1
'

test_expect_success 'SIGSEGV: the profile is written and the program dies of SIGSEGV' '
	status=0 && hpcrun -o crash ./rt-work crash 10 || status=$? &&
	test $status = 139 &&
	grep -q "^end: signal 11$" crash/*.log &&
	./rt-folded crash/*.hpcrun "$TRASH/rt-work" rt-work.nm >cf &&
	grep -q "^^Primary;|Main;main;heavy " cf
'

test_expect_success 'abort: written, then dies of SIGABRT' '
	status=0 && hpcrun -o abrt ./rt-work abort 3 || status=$? &&
	test $status = 134 &&
	grep -q "^end: signal 6$" abrt/*.log &&
	ls abrt/*.hpcrun
'

test_expect_success 'posix_spawn and vfork+exec: parent and child measured apart' '
	for m in spawn vfork; do
		hpcrun -o $m ./rt-work $m 5 >out &&
		grep "^heavy [0-9.]* light [0-9.]*$" out &&
		grep -v "^heavy" out >parent &&
		echo "child 0" >expect && test_cmp expect parent &&
		ls $m/*.hpcrun >files && test_line_count = 2 files &&
		ls $m/*.log >logs && test_line_count = 2 logs &&
		grep -l "^end: exit$" $m/*.log >ends && test_line_count = 2 ends || exit 1
	done
'

test_expect_success 'SIGTERM with the default action: written, then dies of SIGTERM' '
	status=0 && hpcrun -o term ./rt-work term 5 || status=$? &&
	test $status = 143 &&
	grep -q "^end: signal 15$" term/*.log &&
	ls term/*.hpcrun
'

test_expect_success 'the program'\''s own SIGPROF handler and output are unchanged' '
	./rt-work sigprof >plain &&
	hpcrun -o prof ./rt-work sigprof >measured &&
	test_cmp plain measured &&
	echo "sigprof handler kept, at least 20 ticks" >expect &&
	test_cmp expect measured &&
	grep -q "^samples-recorded: [1-9]" prof/*.log
'

test_expect_success 'a program that blocks every signal is still sampled, and the log says it tried' '
	hpcrun -o block ./rt-work blockall 1 &&
	grep -q "^blocked-signal-attempts: 1$" block/*.log &&
	recorded=$(sed -n "s/^samples-recorded: //p" block/*.log) &&
	test "$recorded" -gt 100
'

test_expect_success 'dlopen/dlclose: samples in a closed library still resolve to it' '
	hpcrun -o dl ./rt-work dlopen "$TRASH/rt-dso.so" 10 &&
	./rt-folded dl/*.hpcrun "$TRASH/rt-work" rt-work.nm >df &&
	id=$(sed -n "s|^# lm \([0-9]*\) 1 $TRASH/rt-dso.so\$|\1|p" df) &&
	test -n "$id" &&
	grep -q "^^Primary;|Main;main;rt-dso.so+0x" df &&
	grep -q "^^Primary;|Main;main;light " df
'

# Another thread's samples taken just before the dlclose are still in its
# ring buffer then (drained at its end): they resolve to the library too.
test_expect_success PERF_EVENTS 'dlclose while another thread has samples of the library waiting' '
	hpcrun -o dlt -e cpu-clock@f5000 ./rt-work dlthread "$TRASH/rt-dso.so" 10 &&
	grep -q "^dropped-outside-modules: 0$" dlt/*.log &&
	./rt-folded dlt/*-001-*.hpcrun "$TRASH/rt-work" rt-work.nm >dtf &&
	grep -q "^# lm [0-9]* 1 $TRASH/rt-dso.so\$" dtf &&
	grep -q "^^Primary;|Thread;dl_worker;rt-dso.so+0x" dtf
'

# A library dlopened right after the dlclose may be mapped where the closed
# one was: the samples still waiting resolve in the load map of their own
# time, to the closed library.
test_expect_success PERF_EVENTS 'dlclose, then a dlopen: samples waiting in another thread keep their library' '
	cp rt-dso.so rt-dso2.so &&
	hpcrun -o dlr -e cpu-clock@f5000 ./rt-work dlthread "$TRASH/rt-dso.so" 10 "$TRASH/rt-dso2.so" &&
	grep -q "^dropped-outside-modules: 0$" dlr/*.log &&
	./rt-folded dlr/*-001-*.hpcrun "$TRASH/rt-work" rt-work.nm >drf &&
	grep -q "^# lm [0-9]* 1 $TRASH/rt-dso.so\$" drf &&
	! grep "rt-dso2.so+" drf
'

test_expect_success '_exit writes the profile and keeps the status' '
	status=0 && hpcrun -o ex ./rt-work _exit 5 || status=$? &&
	test $status = 5 &&
	grep -q "^end: _exit$" ex/*.log &&
	ls ex/*.hpcrun
'

test_expect_success 'a shell script and its commands are measured, one directory' '
	cat >script.sh <<-EOS &&
	#!/bin/sh
	"$TRASH/rt-work" split 2
	"$TRASH/rt-work" split 2
	EOS
	chmod +x script.sh &&
	hpcrun -o sh ./script.sh &&
	ls sh/rt-work-*.hpcrun >files && test_line_count = 2 files
'

test_done
