#!/bin/sh
test_description='hpcrun: libraries dlopened and dlclosed in some threads while others allocate (--data) and start threads; the load map grows under its readers and every profile lists each module once'
. "$(dirname "$0")/test-lib.sh"

# Freed memory is filled with 0xa5 and never cached per thread, so a
# reader left holding a load-map array that was freed crashes on it.
MALLOC_PERTURB_=165 GLIBC_TUNABLES=glibc.malloc.tcache_count=0
export MALLOC_PERTURB_ GLIBC_TUNABLES

test_expect_success 'setup: churning program, four libraries, profile reader' '
	cc -O2 -g -pthread -o rt-dlchurn "$TEST_PROGS/rt-dlchurn.c" -ldl &&
	for i in 1 2 3 4
	do
		cc -O2 -shared -fPIC -o lib$i.so "$TEST_PROGS/rt-dso.c" || return 1
	done &&
	build_rt_folded
'

# dlchurn DIR OPTS: rt-dlchurn 150 rounds of the four libraries, plain and
# under hpcrun -o DIR OPTS: the same stdout, exit status 0, every thread
# measured, no write failed.
dlchurn() {
	./rt-dlchurn 150 "$TRASH"/lib1.so "$TRASH"/lib2.so "$TRASH"/lib3.so \
		"$TRASH"/lib4.so >$1.plain &&
	hpcrun -o $1 $2 ./rt-dlchurn 150 "$TRASH"/lib1.so "$TRASH"/lib2.so \
		"$TRASH"/lib3.so "$TRASH"/lib4.so >$1.out 2>$1.err &&
	test_cmp $1.plain $1.out &&
	made=$(sed -n "s/^threads //p" $1.err) &&
	grep -q "^threads: $((made + 1))$" $1/*.log &&
	grep -q "^threads-unmeasured: 0$" $1/*.log &&
	grep -q "^write-errors: 0$" $1/*.log
}

# ids_once DIR: the main thread's profile (written last) lists modules 1
# to N, each once, and more than 128 of them (the table grew twice).
ids_once() {
	./rt-folded $1/*-000-*.hpcrun >$1.folded &&
	sed -n "s/^# lm \([0-9]*\) .*/\1/p" $1.folded >$1.ids &&
	n=$(wc -l <$1.ids) &&
	test "$n" -gt 128 &&
	seq 1 $n >$1.expect &&
	sort -n $1.ids >$1.sorted &&
	test_cmp $1.expect $1.sorted
}

test_expect_success 'dlopen churn: output the same, every thread measured, modules listed once' '
	dlchurn plain "" &&
	ids_once plain
'

test_expect_success 'dlopen churn under --data: the same' '
	dlchurn data --data &&
	ids_once data
'

test_done
