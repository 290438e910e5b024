#!/bin/sh
test_description='hpcrun writes everything before each way of exec: execv, fexecve, execveat, syscall()'
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: test program; natively four generations' '
	cc -O2 -I"$TEST_PROGS" -o rt-reexec "$TEST_PROGS/rt-reexec.c" &&
	./rt-reexec execv >native &&
	printf "gen %d how execv\n" 0 1 2 3 >expect && echo done >>expect &&
	test_cmp expect native
'

# fexecve and execveat make their system call inside glibc, and
# syscall(SYS_execveat) bypasses every exec function: the images before
# the last left only their live files, no log, and hpcprof "recovered"
# them as killed.
for how in execv fexecve execveat sys-execveat sys-execve; do
	test_expect_success "$how: each image written before the next, its log ending in exec" '
		./rt-reexec '$how' >native &&
		hpcrun -o '$how' ./rt-reexec '$how' >out 2>err &&
		test_cmp native out &&
		test_cmp /dev/null err &&
		ls '$how'/*.hpcrun >files && test_line_count = 4 files &&
		ls '$how'/*.log >logs && test_line_count = 4 logs &&
		grep -l "^end: exec$" '$how'/*.log >l && test_line_count = 3 l &&
		grep -q "^end: exit$" '$how'/*-3.log &&
		! ls '$how'/*.hpcrun-live '$how'/*.hpcrun-proc 2>/dev/null &&
		hpcprof -o '$how'.db '$how' 2>perr &&
		! grep -i "recovered" perr
	'
done

test_expect_success 'fexecve and execveat on a closed fd fail (EBADF): measured on in new files' '
	./rt-reexec fail >native &&
	printf "%s\n" "fexecve: Bad file descriptor" "execveat: Bad file descriptor" \
		"went on" >expect &&
	test_cmp expect native &&
	hpcrun -o fail ./rt-reexec fail >out 2>err &&
	test_cmp expect out &&
	test_cmp /dev/null err &&
	ls fail/*.hpcrun >files && test_line_count = 3 files &&
	grep -q "^end: exec$" fail/*-0.log &&
	grep -q "^end: exec$" fail/*-1.log &&
	grep -q "^end: exit$" fail/*-2.log &&
	grep -q "^exec failed (Bad file descriptor)" fail/*-1.log &&
	grep -q "^exec failed (Bad file descriptor)" fail/*-2.log &&
	hpcprof -o fail.db fail 2>perr &&
	! grep -i "recovered" perr
'

test_done
