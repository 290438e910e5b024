#!/bin/sh
test_description='hpcrun --data changes nothing the program does: signal handlers, own allocators, fork'
. "$(dirname "$0")/test-lib.sh"

# An ASan build of the launcher cannot start with another malloc preloaded
# (its allocator must come first): the jemalloc run is for plain builds.
test_lazy_prereq JEMALLOC 'test -f /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 &&
	! nm "$HPC_BUILD/bin/hpcrun" 2>/dev/null | grep -q __asan_init'

test_expect_success 'setup: test programs' '
	cc -O2 -g -pthread -o rt-data "$TEST_PROGS/rt-data.c" &&
	cc -O2 -g -pthread -DOWN_MALLOC -o rt-data-own "$TEST_PROGS/rt-data.c"
'

# malloc in a signal handler that interrupts hpcrun tracking mmap, a block
# from a constructor, fork without exec (the child allocates), free(NULL),
# realloc(NULL, n), a custom allocator never given to free, aligned forms;
# dlsym resolving the real malloc (it calls calloc) at every start.
test_expect_success 'the safety program prints the same with and without --data' '
	./rt-data safety >plain &&
	grep "handler: ran" plain &&
	hpcrun -q --data -o m ./rt-data safety >out &&
	test_cmp plain out &&
	ls m/*.hpcrun >profiles &&
	test_line_count = 2 profiles &&
	for f in m/*.hpcrun; do hpcprof --dump "$f" >/dev/null || return 1; done
'

test_expect_success 'the parent tracked the constructor block and the mappings' '
	hpcprof --dump m/*-000-*.hpcrun >dump &&
	grep "data-centric = \"1\"" dump &&
	grep "addr \"^Heap   \"" dump
'

test_expect_success 'a program replacing malloc: the same output, nothing tracked from it' '
	./rt-data-own safety >plain-own &&
	hpcrun -q --data -o own ./rt-data-own safety >out-own &&
	test_cmp plain-own out-own
'

test_expect_success JEMALLOC 'jemalloc preloaded: the same output, its blocks tracked' '
	LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 ./rt-data safety >plain-je &&
	LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 \
		hpcrun -q --data -o je ./rt-data safety >out-je &&
	test_cmp plain-je out-je &&
	hpcprof --dump je/*-000-*.hpcrun | grep "addr \"^Heap   \""
'

test_expect_success 'a churn of a million small blocks: the same output' '
	./rt-data churn 1000000 >plain-churn &&
	hpcrun -q --data -o churn ./rt-data churn 1000000 >out-churn &&
	test_cmp plain-churn out-churn &&
	hpcprof --dump churn/*.hpcrun >cdump &&
	grep "addr \"^Small  \"" cdump
'

# A memory-capped service (RLIMIT_AS its size + 96 MiB) whose threads
# begin while main takes all the memory there is: a thread that finds none
# for its instruction decoder goes without data addresses, said once, and
# the program runs as natively.  Capstone writes through the NULL of an
# allocation it does not check (its instruction-id cache, at a handle's
# first decode); before it was given the decoder's own memory
# (datacentric-memop.c, invariant 6) one run in four to five in six died of
# SIGSEGV: twenty runs of each mode, 0.2 s each.
test_expect_success 'RLIMIT_AS tight, memory gone as threads begin: runs as natively' '
	./rt-data aslimit 20 >plain-as &&
	echo "threads 20/20" >expect-as &&
	test_cmp expect-as plain-as &&
	for mode in --data --sharing; do
		for i in $(seq 20); do
			rm -rf as &&
			hpcrun -q $mode -o as ./rt-data aslimit 20 >out-as 2>err-as &&
			test_cmp plain-as out-as &&
			test "$(grep -c "warning: --data: thread" err-as)" -le 1 ||
			return 1
		done
	done
'

# Capstone decodes the sampled instruction under --data only; dlopened
# then, it is never in the address space of a process measured without.
test_expect_success 'Capstone is loaded by --data alone' '
	hpcrun -q -o nomaps sh -c "cat /proc/\$\$/maps" >maps &&
	grep -q libhpcrun maps &&
	! grep libcapstone maps &&
	hpcrun -q --data -o datamaps sh -c "cat /proc/\$\$/maps" >maps &&
	grep -q libcapstone maps
'

# Where the library cannot be loaded (hidden here by an empty file mounted
# over it, in a mount namespace of the test's own), --data says so in one
# line and measures on: the program's output is the same, the profile
# whole (its samples have no data address: datacentric-memop.c).
test_lazy_prereq MOUNT_NS 'test "$(id -u)" = 0 &&
	unshare -m sh -c "mount --bind /dev/null /dev/null" 2>/dev/null'
test_expect_success MOUNT_NS 'without Capstone: one line says so, the program runs the same' '
	lib=$(ldd "$HPC_BUILD/bin/hpcstruct" | sed -n "s/.*libcapstone[^ ]* => \([^ ]*\) .*/\1/p") &&
	test -f "$lib" &&
	unshare -m sh -c "mount --bind /dev/null $lib &&
		hpcrun --data -o nocs ./rt-data safety" >out-nocs 2>err-nocs &&
	test_cmp plain out-nocs &&
	grep "capstone" err-nocs >line &&
	grep -q "^hpcrun: warning: --data: no libcapstone.so.[0-9]* to decode instructions with" line &&
	test_line_count = 1 line &&
	grep -q "^warning: --data: no libcapstone" nocs/*-000-*.log &&
	hpcprof --dump nocs/*-000-*.hpcrun >nodump
'

test_done
