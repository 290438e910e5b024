#!/bin/sh
test_description='hpcprof puts every partial call path under one root and counts them'
. "$(dirname "$0")/test-lib.sh"

# Half the program's time is in code without unwind information, entered
# through two functions: hpcrun keeps those samples under "^Partial" with
# two different outermost frames (tests/progs/pf-partial.c).
test_expect_success 'measure a program that half runs in code without unwind info' '
	cc -O2 -g -DNOCFI -fomit-frame-pointer -fno-asynchronous-unwind-tables \
		-fno-unwind-tables -c -o nocfi.o "$TEST_PROGS/pf-partial.c" &&
	cc -O2 -g -o partial "$TEST_PROGS/pf-partial.c" nocfi.o &&
	hpcrun -o m ./partial >out &&
	echo done >expect && test_cmp expect out &&
	partial=$(sed -n "s/^samples-partial: //p" m/*.log) &&
	recorded=$(sed -n "s/^samples-recorded: //p" m/*.log) &&
	test "$partial" -gt 20 &&
	test "$((recorded - partial))" -gt 20
'

# roots DB: the top-level scopes of the viewer's top-down tree, but _start.
# A sample in the program's own code before or after main (constructors,
# exit's flush of stdout: its write is a kernel leaf where kernel time is
# counted) has a whole path up to the stack bottom, whose outermost frame
# is _start (as t1010 allows): a root beside main that is no partial path.
roots() {
	hpcviewer-tui --stdio --depth 1 "$1" | sed -n "3,\$s/.*[+-] //p" |
		grep -v "^_start$" | sort
}

for j in 1 2; do
	test_expect_success "-j $j: main and one partial-paths root, nothing beside them" '
		hpcprof -j '$j' -o db'$j' --text report'$j' m 2>err &&
		roots db'$j' >actual &&
		printf "%s\n" "<partial call paths>" main >expect &&
		test_cmp expect actual
	'

	test_expect_success "-j $j: both outer frames are below the one root" '
		hpcviewer-tui --stdio --depth 2 db'$j' >tree &&
		grep -A3 "[+-] <partial call paths>" tree >below &&
		grep -q "partial_outer_a" below &&
		grep -q "partial_outer_b" below
	'

	test_expect_success "-j $j: --text counts the partial paths" '
		partial=$(sed -n "s/^samples-partial: //p" m/*.log) &&
		recorded=$(sed -n "s/^samples-recorded: //p" m/*.log) &&
		pct=$(awk -v p="$partial" -v r="$recorded" \
			"BEGIN { printf \"%.2f\", 100 * p / r }") &&
		grep "^partial call paths: " report'$j' >line &&
		grep -q "^partial call paths: $partial samples ($pct%)" line &&
		test_line_count = 1 line
	'
done

test_expect_success 'a profile without partial paths gets no such root or line' '
	cc -O2 -g -DNOCFI -c -o cfi.o "$TEST_PROGS/pf-partial.c" &&
	cc -O2 -g -o full "$TEST_PROGS/pf-partial.c" cfi.o &&
	hpcrun -o f ./full >/dev/null &&
	grep -q "^samples-partial: 0$" f/*.log &&
	hpcprof -o dbf --text reportf f 2>/dev/null &&
	! grep "partial call paths" reportf &&
	roots dbf >actual &&
	echo main >expect &&
	test_cmp expect actual
'

test_done
