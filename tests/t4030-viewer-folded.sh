#!/bin/sh
test_description='hpcviewer-tui --folded: folded stacks of the calling contexts, exact values, names the tools split back as written'
. "$(dirname "$0")/test-lib.sh"

DB=$TEST_DATA/viewer/small-db
NAMES=$TEST_DATA/viewer/names-db

# The rules of flamegraph.pl (its own regular expressions, run by perl,
# which every Debian system has): each line is a stack and an integer
# count; the stack does not itself end in white space and a number (read
# as a second, differential count); no frame is empty.  Prints the frames
# of each line, one per line, "|"-separated, so a test can compare them.
tool_split() {
	perl -ne '
		chomp;
		my ($stack, $n) = /^(.*)\s+?(\d+(?:\.\d*)?)$/
			or die "not a folded line: $_\n";
		$n =~ /^\d+$/ or die "not an integer count: $_\n";
		$stack =~ /^(.*)\s+?(\d+(?:\.\d*)?)$/
			and die "read as two counts: $_\n";
		grep { $_ eq "" } split(/;/, $stack, -1)
			and die "an empty frame: $_\n";
		print join("|", split(/;/, $stack)), " = $n\n";
	' "$1"
}

test_expect_success 'small-db: one line per frame with a self value, in nanoseconds' '
	cat >expect <<-\EOT &&
	main 1000000000
	main;helper 500000000
	main;helper;helper 500000000
	main;loop at app.c:8 1000000000
	main;loop at app.c:8;compute;helper 2000000000
	main;loop at app.c:8;compute;loop at app.c:22 2000000000
	main;loop at app.c:8;compute;loop at app.c:22;vec_add_[i] 3000000000
	EOT
	hpcviewer-tui --folded - "$DB" >out &&
	test_cmp expect out
'

test_expect_success 'the values add up to the root total (10 s)' '
	hpcviewer-tui --folded - "$DB" >out &&
	awk "{ s += \$NF } END { printf \"%.0f\\n\", s }" out >sum &&
	echo 10000000000 >expect &&
	test_cmp expect sum
'

test_expect_success 'an exclusive metric draws its inclusive partner; the file is the same' '
	hpcviewer-tui --folded - "$DB" >by-default &&
	hpcviewer-tui --folded - --metric E "$DB" >by-e &&
	hpcviewer-tui --folded by-file --metric "CPUTIME (sec):Sum (I)" "$DB" >stdout &&
	test_cmp by-default by-e &&
	test_cmp by-default by-file &&
	test ! -s stdout
'

test_expect_success 'names: ; becomes :, a tab _, a trailing number keeps apart, inlined code NAME_[i]' '
	cat >expect <<-\EOT &&
	main 10
	main;a<b>&"q";loop at app.c:7 10
	main;a<b>&"q";loop at app.c:7;inl_[i] 20
	main;odd:name 40
	main;step_12 15
	main;tab_bed 5
	EOT
	hpcviewer-tui --folded - "$NAMES" >out &&
	test_cmp expect out
'

test_expect_success 'the tools split every line back into the frames written' '
	hpcviewer-tui --folded - "$NAMES" >out &&
	tool_split out >split &&
	cat >expect <<-\EOT &&
	main = 10
	main|a<b>&"q"|loop at app.c:7 = 10
	main|a<b>&"q"|loop at app.c:7|inl_[i] = 20
	main|odd:name = 40
	main|step_12 = 15
	main|tab_bed = 5
	EOT
	test_cmp expect split &&
	hpcviewer-tui --folded - "$DB" >small &&
	tool_split small >/dev/null
'

test_expect_success 'a statistic over threads is refused, naming the Sum to draw' '
	test_must_fail hpcviewer-tui --folded - --metric Min "$NAMES" >out 2>err &&
	test ! -s out &&
	test_line_count = 1 err &&
	grep -qx "hpcviewer-tui: '"'"'cycles:Min (I)'"'"': a statistic over threads is not a sum of its parts; draw '"'"'cycles:Sum (I)'"'"'" err
'

test_expect_success 'an exclusive metric without an inclusive partner is refused' '
	test_must_fail hpcviewer-tui --folded - --metric lonely "$NAMES" 2>err &&
	test_line_count = 1 err &&
	grep -q "an exclusive metric without an inclusive partner cannot be drawn" err
'

test_expect_success 'usage errors: with --stdio, --csv, another view; both on stdout' '
	for o in --stdio --csv "--view flat"; do
		status=0 &&
		hpcviewer-tui --folded - $o "$DB" >out 2>err || status=$? &&
		test $status = 2 && test ! -s out && test_line_count = 1 err || exit 1
	done &&
	status=0 &&
	hpcviewer-tui --folded - --flame-graph - "$DB" 2>err || status=$? &&
	test $status = 2 &&
	grep -q "cannot both write to standard output" err &&
	hpcviewer-tui --folded - --view top-down "$DB" >out &&
	test_line_count = 7 out
'

test_expect_success 'an output that cannot be written: one line naming it, status 1' '
	test_must_fail hpcviewer-tui --folded no-such-dir/out "$DB" 2>err &&
	test_line_count = 1 err &&
	grep -q "^hpcviewer-tui: '"'"'no-such-dir/out'"'"': No such file or directory$" err &&
	if test -w /dev/full; then
		test_must_fail hpcviewer-tui --folded /dev/full "$DB" 2>err &&
		test_line_count = 1 err &&
		grep -q "^hpcviewer-tui: '"'"'/dev/full'"'"': " err
	fi
'

test_expect_success '--folded and --flame-graph refuse a symbolic link, dangling or not' '
	echo kept >target &&
	ln -s target link &&
	ln -s missing dangling &&
	for opt in --folded --flame-graph; do
		for out in link dangling; do
			test_must_fail hpcviewer-tui $opt $out "$DB" 2>err &&
			echo "hpcviewer-tui: '"'"'$out'"'"': is a symbolic link; not written through" >expect &&
			test_cmp expect err || return 1
		done
	done &&
	echo kept >expect && test_cmp expect target &&
	test ! -e missing
'

# hpcprof on HPCToolkit's own measurement of an OpenMP program: every
# sample is one folded line's worth, so the file adds up to the exact total
# of each clock (the database holds nanoseconds).
test_lazy_prereq PROF_DB '
	cp -r "$FIXTURES/loops-perf.m" "$TRASH/m" &&
	hpcprof -o "$TRASH/db" -S "$FIXTURES/loops-perf.m/structs/testmeas-loops.hpcstruct" \
		"$TRASH/m" 2>/dev/null &&
	test -f "$TRASH/db/experiment.xml"
'

test_expect_success FIXTURES,PROF_DB 'hpcprof database: every clock adds up to its total, loops and inlined code are frames' '
	for m in cpu-clock task-clock; do
		hpcviewer-tui --folded - --metric $m db >out &&
		tool_split out >/dev/null &&
		total=$(hpcviewer-tui --csv --depth 0 --metric $m db |
			awk -F, -v m="perf::$m (s):Sum (I)" "
				NR == 1 { for (i = 1; i <= NF; i++) if (\$i == m) c = i }
				NR == 2 { printf \"%.0f\\n\", \$c * 1e9 }") &&
		awk "{ s += \$NF } END { printf \"%.0f\\n\", s }" out >sum &&
		echo $total >expect &&
		test_cmp expect sum || exit 1
	done &&
	grep -q ";loop at loops.c:1010;" out &&
	grep -q ";test_separated_loops_helper_\[i\] [0-9]*\$" out &&
	sed "s/ [0-9]*\$//" out | sort | uniq -d >repeated &&
	test ! -s repeated
'

test_done
