#!/bin/sh
test_description='hpcrun: the library calls hpcrun makes for its own work on a program'\''s thread (thread start and end, exit, dlopen bookkeeping, allocation and sync sites, the sync wrappers'\'' clocks) are samples-in-hpcrun, not calls of the program'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: the churning and barrier programs, four libraries' '
	cc -O2 -g -pthread -o rt-churn "$TEST_PROGS/rt-churn.c" &&
	cc -O2 -g -pthread -o rt-dlchurn "$TEST_PROGS/rt-dlchurn.c" -ldl &&
	cc -O2 -g -pthread -o rt-sync "$TEST_PROGS/rt-sync.c" &&
	for i in 1 2 3 4
	do
		cc -O2 -shared -fPIC -o lib$i.so "$TEST_PROGS/rt-dso.c" || return 1
	done
'

# measure DIR OPTS PROG ARGS...: PROG under hpcrun -o DIR OPTS at 5 kHz
# of CPU time, then its database DIR.d and its folded stacks DIR.folded.
measure() {
	dir=$1 opts=$2
	shift 2
	hpcrun -q -e cpu-clock@f5000 -o $dir $opts "$@" >$dir.out 2>$dir.err &&
	hpcprof -o $dir.d $dir >/dev/null &&
	hpcviewer-tui --folded - $dir.d >$dir.folded &&
	test -s $dir.folded
}

# calls DIR: DIR.calls, each call the program's code makes into a library
# as the stacks show it (the callee's name, without its version or
# leading underscores and __GI_), and each stack's root.  A frame with
# no module (inlined, or the kernel's) is of the code it is in; the
# partial paths' root is no caller.
calls() {
	awk '{
		$NF = ""
		n = split($0, f, ";")
		sub(/ +$/, "", f[n])
		print "root " f[1]
		prog = f[1] ~ / \[rt-/ || f[1] !~ /^<| \[/
		for (i = 2; i <= n; i++) {
			if (f[i] !~ / \[/)
				continue
			if (f[i] ~ / \[rt-/) {
				prog = 1
				continue
			}
			if (prog) {
				c = f[i]
				sub(/ \[.*/, "", c)
				sub(/@.*/, "", c)
				sub(/^_+(GI_+)?/, "", c)
				print "call " c
			}
			prog = 0
		}
	}' $1.folded | sort -u >$1.calls
}

# only_calls DIR ERE: every call into a library in DIR.calls matches
# ERE (the functions the program calls) or is the call the exit code the
# compiler puts in every program makes (crtstuff's __do_global_dtors_aux
# calls __cxa_finalize); every root is the program's start, a thread's
# start or its function, or the partial paths.
only_calls() {
	calls $1 &&
	sed -n "s/^call //p" $1.calls >$1.callees &&
	test -s $1.callees &&
	! grep -v -E "^($2|cxa_finalize)$" $1.callees &&
	sed -n "s/^root //p" $1.calls >$1.roots &&
	! grep " \[" $1.roots | grep -v -e "^__clone3 \[libc" -e " \[rt-"
}

# none_of_ours DIR: no stack goes on below hpcrun's key destructor
# (glibc's __nptl_deallocate_tsd, for a program with no keys of its own)
# or its destructor at exit into a library.  A library's own destructor
# that the program's dlclose runs (__do_global_dtors_aux of lib3.so) is
# the program's.
none_of_ours() {
	! grep -e "deallocate_tsd_\[i\];" $1.folded &&
	! grep -v ";dlclose[@A-Z_.0-9]* \[" $1.folded |
		grep -e "_dl_call_fini \[[^;]*;[^;]* \[lib"
}

# adds_up DIR: the log's samples add up, and the profiles hold what the
# log says was recorded (200000 ns a sample).
adds_up() {
	taken=$(sed -n "s/^samples-taken: //p" $1/*.log) &&
	recorded=$(sed -n "s/^samples-recorded: //p" $1/*.log) &&
	own=$(sed -n "s/^samples-in-hpcrun: //p" $1/*.log) &&
	dropped=$(sed -n "s/^samples-dropped: //p" $1/*.log) &&
	test "$own" -gt 0 &&
	test "$((recorded + own + dropped))" -eq "$taken" &&
	sum=$(awk "{ s += \$NF } END { printf \"%d\", s / 200000 }" $1.folded) &&
	test "$sum" -eq "$recorded"
}

# glibc's calloc ends in a tail call of memset (through its PLT): a sample
# there has no calloc frame and reads as the program's call of memset, as
# it does natively (perf record); a run of the suite met one.  strcmp is
# an IFUNC: its samples are named for the variant the CPU chose
# (__strcmp_avx2, __strcmp_evex).
CHURN_CALLS='memset(_[a-z0-9_]+)?|dl_runtime_resolve[a-z_]*|pthread_(create|join|clockjoin_ex|attr_[a-z]*)|(pthread_)?mutex_(lock|unlock)(_usercnt)?|pthread_cond_[a-z0-9]*|(libc_)?(calloc|malloc|free)|f?printf|(clock_)?nanosleep|clock_gettime|strcmp[a-z0-9_]*|ato[lf]|strto[a-z_]*|libc_start_main'

for prog in "rounds 10 200 100" "pool 10 64 100"
do
	for opts in "" --data --sharing -t
	do
		name=${prog%% *}${opts#--}
		test_expect_success PERF_EVENTS "rt-churn $prog ${opts:-(sync)}: the program calls only what it calls" "
			measure $name '$opts' ./rt-churn $prog &&
			only_calls $name '$CHURN_CALLS' &&
			none_of_ours $name &&
			adds_up $name
		"
	done
done

# hpcrun reads each library's modules after the program's dlopen and
# dlclose (open, realpath, dl_iterate_phdr, qsort_r...): its work.
test_expect_success PERF_EVENTS 'dlopen and dlclose in a loop: only the program'\''s calls' '
	measure dl "" ./rt-dlchurn 150 "$TRASH"/lib1.so "$TRASH"/lib2.so \
		"$TRASH"/lib3.so "$TRASH"/lib4.so &&
	only_calls dl "dlopen|dlclose|$CHURN_CALLS" &&
	grep -q "^call dlopen$" dl.calls &&
	none_of_ours dl &&
	adds_up dl
'

# 20000 barrier episodes: the wrappers' clocks, locks and maps for each
# are hpcrun's; the barrier waits, forwarded, stay the program's.  Its
# main also reads its arguments (strcmp, atoi's strtol), makes the
# barrier and prints "many done" with puts (_IO_puts, stdout's first
# write: its buffer's malloc and fstat, a kernel leaf as root): a sample
# can land in any of them once in a while.
test_expect_success PERF_EVENTS 'barrier episodes: the sync wrappers'\'' own calls are not the program'\''s' '
	measure many "" ./rt-sync many 20000 &&
	only_calls many "dl_runtime_resolve[a-z_]*|pthread_(barrier_wait|barrier_init|create|join|clockjoin_ex)|f?printf|(IO_)?puts|strcmp[a-z0-9_]*|strto[a-z_]*|libc_start_main" &&
	grep -q "^call pthread_barrier_wait$" many.calls &&
	none_of_ours many &&
	adds_up many
'

# Barrier rounds of spinning threads under -t --sharing: at each wait's
# trace record the thread drains its rings first, decoding each data
# sample's instruction (Capstone, called through a pointer); that drain,
# and what it samples, is hpcrun's work too.
test_expect_success PERF_EVENTS 'barrier episodes with -t --sharing: the drains at trace records are hpcrun'"'"'s' '
	measure manyts "-t --sharing" ./rt-sync barrier 3 60 spin 4 &&
	only_calls manyts "clock_gettime|dl_runtime_resolve[a-z_]*|pthread_(barrier_wait|barrier_init|create|join|clockjoin_ex)|f?printf|(IO_)?puts|strcmp[a-z0-9_]*|strto[a-z_]*|libc_start_main" &&
	none_of_ours manyts &&
	adds_up manyts
'

test_done
