#!/bin/sh
test_description='hpcrun: no frame of its signals on the program'"'"'s alternate signal stack; a handler left by longjmp is said'
. "$(dirname "$0")/test-lib.sh"

# tests/progs/rt-altstack.c: handlers on an alternate signal stack, as a
# runtime's busy handler and a stack-overflow detector set them.

# leaf_share LEAF: percent of the samples of the folded paths in f whose
# innermost function (kernel frames counted to their caller) is LEAF.
leaf_share() {
	awk -v leaf="$1" '{ n = split($1, f, ";"); while (n > 1 && f[n] ~ /^vmlinux\./) n--
		t += $NF; if (f[n] == leaf) s += $NF }
		END { printf "%.1f\n", t ? 100 * s / t : -1 }' f
}

test_expect_success 'setup: the test program, its native output' '
	cc -O2 -g -pthread -Wl,-z,now -o rt-altstack "$TEST_PROGS/rt-altstack.c" &&
	nm -S --defined-only rt-altstack >rt-altstack.nm &&
	build_rt_folded &&
	./rt-altstack busy 2500 >busy.native &&
	echo "handled 2000, read back: SIGUSR2 yes, 0 others" >expect &&
	test_cmp expect busy.native &&
	./rt-altstack overflow >overflow.native &&
	./rt-altstack jump >jump.native &&
	echo "recovered from the overflow" >expect &&
	test_cmp expect overflow.native && test_cmp expect jump.native
'

# 2500 and 4500 bytes of the handler's on an 8 KiB stack leave less room
# than a signal frame takes (2.9-3.4 KiB with AVX-512): a sample there
# was a SIGSEGV that killed the program unwritten.  The samples wait for
# the handler's return; those of a ring buffer keep their place in it.
for n in 2500 4500; do
	test_expect_success "a busy handler using $n bytes of an 8 KiB alternate stack: output, masks and profile as natively" "
		for mode in '' '-e CPUTIME' '--data'; do
			rm -rf b &&
			hpcrun \$mode -o b ./rt-altstack busy $n >out 2>err &&
			test_cmp busy.native out &&
			only_hpcrun_said err &&
			ls b/*.hpcrun >/dev/null || return 1
		done &&
		rm -rf b && hpcrun -o b ./rt-altstack busy $n >out &&
		./rt-folded b/*.hpcrun \"\$TRASH/rt-altstack\" rt-altstack.nm | grep -v '^#' >f &&
		s=\$(leaf_share busy_handler) && echo \"busy_handler \$s%\" &&
		test \"\${s%.*}\" -ge 80
	"
done

test_expect_success 'a stack overflow caught on the alternate stack, left by siglongjmp: the thread sampled after it' '
	rm -rf o && hpcrun -o o ./rt-altstack overflow >out 2>err &&
	test_cmp overflow.native out &&
	only_hpcrun_said err &&
	grep -q "^sampling-blocked: 0$" o/*.log &&
	for p in o/*.hpcrun; do ./rt-folded $p "$TRASH/rt-altstack" rt-altstack.nm; done | grep -v "^#" >f &&
	s=$(leaf_share after_overflow) && echo "after_overflow $s%" &&
	test "${s%.*}" -ge 60
'

# Left by longjmp without SA_NODEFER, the handler's mask stays on the
# thread (SIGSEGV's bit as natively, the sampling signal's with it).
test_expect_success 'the same left by longjmp: output as natively, the stopped sampling said' '
	rm -rf j && hpcrun -o j ./rt-altstack jump >out 2>err &&
	test_cmp jump.native out &&
	grep -q "^sampling-blocked: 1$" j/*.log &&
	grep -q "^hpcrun: 1 thread left a signal handler on the alternate stack by longjmp, keeping its mask: sampling stopped there; see hpcrun(1)$" err
'

# sigaction takes a lock of hpcrun's: a handler of the program's that
# calls it while its thread holds the lock (in main's sigaction) waited
# for itself.
test_expect_success 'a System V handler setting itself again each millisecond while main sets actions: no hang' '
	for mode in "" --data; do
		hpcrun $mode -o r ./rt-altstack rearm 1 >out &&
		echo "rearm: ok" >expect && test_cmp expect out && rm -rf r || return 1
	done
'

# A bad pointer to sigaction faults in the copy of the struct, as in
# glibc's; the program's SIGSEGV handler, leaving by siglongjmp, once left
# hpcrun's lock taken and the thread's signals blocked: the next
# sigaction hung, SIGTERM with it.
cat >badsa.c <<\EOF
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
static sigjmp_buf jb;
static void segv(int s)
{
	(void)s;
	siglongjmp(jb, 1);
}
int main(void)
{
	struct sigaction sa, o;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = segv;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	if (!sigsetjmp(jb, 1))
		sigaction(SIGUSR1, (struct sigaction *)16, NULL);
	printf("faulted, then sigaction %d\n", sigaction(SIGUSR1, NULL, &o));
	return 0;
}
EOF
test_expect_success 'a fault on a bad pointer to sigaction, left by siglongjmp: the next sigaction runs' '
	cc -O1 -o badsa badsa.c &&
	./badsa >expect &&
	echo "faulted, then sigaction 0" >want && test_cmp want expect &&
	timeout -s KILL 20 hpcrun -o bad ./badsa >out &&
	test_cmp expect out
'

test_done
