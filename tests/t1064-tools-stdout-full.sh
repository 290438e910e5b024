#!/bin/sh
test_description='every program fails with one line when what it prints cannot be written (>/dev/full)'
. "$(dirname "$0")/test-lib.sh"

PROGRAMS="hpcrun hpcstruct hpcprof hpcviewer-tui"

# full PROG ARGS...: PROG ARGS >/dev/full exits 1 and says why, one line.
full() {
	status=0 && "$@" >/dev/full 2>err || status=$? &&
	test $status = 1 &&
	printf "%s: '%s': cannot write: No space left on device\n" "$1" "standard output" >expect &&
	test_cmp expect err
}

test_expect_success 'setup: /dev/full is there' '
	test -c /dev/full
'

for p in $PROGRAMS; do
	for o in --help -h --version; do
		test_expect_success "$p $o >/dev/full exits 1 with one line" "
			full $p $o
		"
	done
	test_expect_success "$p --help to a working stdout still exits 0" "
		$p --help >out && grep -q '^usage: $p ' out
	"
done

test_expect_success 'hpcrun -L >/dev/full exits 1 with one line' '
	full hpcrun -L
'

test_expect_success 'hpcrun --list-events to a working stdout exits 0' '
	hpcrun --list-events >out && grep -q "^CPUTIME " out
'

test_done
