#!/bin/sh
test_description='hpcrun stands aside for the calls the kernel allows only a single-threaded process: unshare(CLONE_NEWUSER), setns into a user namespace'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/rt-single-thread.c spins 0.3 s in work_before, makes the
# call (HOW), prints its result, then spins 0.3 s in work_after.

# after_share DIR: the percentage of DIR's samples whose leaf is
# work_after (kernel frames counted to their caller).
after_share() {
	for f in "$1"/*.hpcrun; do
		./rt-folded "$f" "$TRASH/rt-single-thread" st.nm || return 1
	done | grep -v "^#" |
	awk '{ n = split($1, f, ";"); while (n > 1 && f[n] ~ /^vmlinux\./) n--
		t += $NF; if (f[n] == "work_after") s += $NF }
		END { printf "%d\n", t ? 100 * s / t : -1 }'
}

# measured DIR HOW [OPTION...]: HOW under hpcrun OPTION... into DIR:
# output and exit status as native, nothing on stderr but hpcrun's lines,
# one pause in the log, and work_after, done after the call, measured.
measured() {
	dir=$1 how=$2 && shift 2 &&
	rm -rf "$dir" &&
	s=0 && hpcrun -o "$dir" "$@" ./rt-single-thread "$how" >"$dir.out" 2>"$dir.err" || s=$? &&
	test "$s" = 0 &&
	test_cmp "native.$how" "$dir.out" &&
	only_hpcrun_said "$dir.err" &&
	grep -q "^own-threads-paused: 1\$" "$dir"/*.log &&
	share=$(after_share "$dir") && echo "work_after: $share%" &&
	test "$share" -ge 20
}

test_expect_success 'setup: test program, nm listing, profile reader, native runs' '
	cc -O2 -g -o rt-single-thread "$TEST_PROGS/rt-single-thread.c" -lpthread &&
	nm -S --defined-only rt-single-thread >st.nm &&
	build_rt_folded &&
	for how in unshare flags setns setns0 barrier threads; do
		./rt-single-thread $how >native.$how || return 1
	done &&
	cat native.unshare
'

if grep -q "^unshare: ok\$" native.unshare; then
	test_set_prereq USERNS
fi

test_expect_success USERNS 'unshare(CLONE_NEWUSER): as native, sampled after' '
	retry 2 measured plain unshare
'

test_expect_success USERNS 'unshare(CLONE_NEWUSER) with other namespaces: as native' '
	retry 2 measured flags flags
'

test_expect_success USERNS 'setns(fd, CLONE_NEWUSER) and setns(fd, 0) into a user namespace' '
	grep -q "^setns: ok\$" native.setns &&
	retry 2 measured setns setns &&
	retry 2 measured setns0 setns0
'

test_expect_success USERNS 'with the hang detector running (after a barrier): as native' '
	retry 2 measured barrier barrier
'

test_expect_success USERNS 'with --data, -t, --sharing: as native, sampled after' '
	retry 2 measured data unshare --data &&
	retry 2 measured trace unshare -t &&
	retry 2 measured sharing unshare --sharing
'

test_expect_success USERNS 'a program of two threads: EINVAL, as native; hpcrun does not pause' '
	grep -q "^threads: Invalid argument\$" native.threads &&
	hpcrun -o two ./rt-single-thread threads >two.out 2>two.err &&
	test_cmp native.threads two.out &&
	grep -q "^own-threads-paused: 0\$" two/*.log
'

test_expect_success USERNS 'hpcrun unshare -U sh -c "id -u": as native' '
	unshare -U sh -c "id -u" >native.id &&
	hpcrun -o util unshare -U sh -c "id -u" >util.out 2>util.err &&
	test_cmp native.id util.out &&
	only_hpcrun_said util.err
'

test_done
