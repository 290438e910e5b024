#!/bin/sh
test_description='hpcviewer-tui: the functions view, short metric names, library procedures named NAME [LIB] once'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

DB=$TEST_DIRECTORY/data/viewer/lib-db

test_expect_success XMLLINT 'the test database is valid against the experiment DTD' '
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" "$DB/experiment.xml"
'

# memcpy named both ways is one procedure of libc (40 + 8); strlen, named
# bare, shows its library too; the executable's procedures show theirs.
test_expect_success 'functions: every procedure with its module, by exclusive cost' '
	cat >expect <<-\EOT &&
	  cycles:Sum (I)    cycles:Sum (E)  instructions:Sum (I)  instructions:Sum (E)  Scope (functions)
	 1.08e+02 100.0%   1.08e+02 100.0%       9.50e+01 100.0%       9.50e+01 100.0%  - Experiment Aggregate Metrics
	 4.80e+01  44.4%   4.80e+01  44.4%       6.00e+00   6.3%       6.00e+00   6.3%    + memcpy [libc.so.6]
	 2.50e+01  23.1%   2.50e+01  23.1%       2.00e+00   2.1%       2.00e+00   2.1%    + sqrt [libm-2.31.so]
	 2.00e+01  18.5%   2.00e+01  18.5%       3.00e+01  31.6%       3.00e+01  31.6%    + strlen [libc.so.6]
	 1.08e+02 100.0%   1.00e+01   9.3%       9.50e+01 100.0%       5.00e+01  52.6%      main [app]
	 1.30e+01  12.0%   5.00e+00   4.6%       8.00e+00   8.4%       7.00e+00   7.4%    + work [clone .cold] [app]
	EOT
	hpcviewer-tui --stdio --metrics all --view functions "$DB" >out &&
	test_cmp expect out
'

test_expect_success 'functions --depth 2: the callers of each procedure' '
	hpcviewer-tui --csv --view functions --depth 2 "$DB" | cut -d, -f1,3,8 >out &&
	cat >expect <<-\EOT &&
	depth,scope,cycles:Sum (E)
	0,Experiment Aggregate Metrics,108
	1,memcpy [libc.so.6],48
	2,main [app],40
	2,work [clone .cold] [app],8
	1,sqrt [libm-2.31.so],25
	2,main [app],25
	1,strlen [libc.so.6],20
	2,main [app],20
	1,main [app],10
	1,work [clone .cold] [app],5
	2,main [app],5
	EOT
	test_cmp expect out
'

test_expect_success 'top-down and bottom-up: a library procedure is NAME [LIB] however the database names it' '
	hpcviewer-tui --csv "$DB" | cut -d, -f1,3 | grep -v ",call at \|,app.c" >td &&
	cat >expect <<-\EOT &&
	depth,scope
	0,Experiment Aggregate Metrics
	1,main
	3,memcpy [libc.so.6]
	3,sqrt [libm-2.31.so]
	3,strlen [libc.so.6]
	3,work [clone .cold]
	5,memcpy [libc.so.6]
	EOT
	test_cmp expect td &&
	hpcviewer-tui --csv --view bottom-up --depth 1 "$DB" | cut -d, -f3,8 >bu &&
	cat >expect <<-\EOT &&
	scope,cycles:Sum (E)
	Experiment Aggregate Metrics,108
	main [app],10
	memcpy [libc.so.6],48
	sqrt [libm-2.31.so],25
	strlen [libc.so.6],20
	work [clone .cold] [app],5
	EOT
	test_cmp expect bu
'

test_expect_success 'flat: the module is the row above, the name is bare' '
	hpcviewer-tui --csv --view flat "$DB" | grep ",procedure," | cut -d, -f3 >flat &&
	printf "%s\n" main "work [clone .cold]" memcpy strlen sqrt >expect &&
	test_cmp expect flat
'

# sorted_by ARGS: the functions view's procedures in order, sorted as ARGS
# say (a metric option or none).
sorted_by() {
	hpcviewer-tui --csv --view functions "$@" "$DB" | sed 1,2d | cut -d, -f3
}

test_expect_success '--metric: E, I, a unique substring, any case, a type word' '
	printf "%s\n" "memcpy [libc.so.6]" "sqrt [libm-2.31.so]" "strlen [libc.so.6]" \
		"main [app]" "work [clone .cold] [app]" >by-cycles-e &&
	printf "%s\n" "main [app]" "memcpy [libc.so.6]" "sqrt [libm-2.31.so]" \
		"strlen [libc.so.6]" "work [clone .cold] [app]" >by-cycles-i &&
	printf "%s\n" "main [app]" "strlen [libc.so.6]" "work [clone .cold] [app]" \
		"memcpy [libc.so.6]" "sqrt [libm-2.31.so]" >by-instructions-e &&
	sorted_by >out && test_cmp by-cycles-e out &&
	sorted_by --metric E >out && test_cmp by-cycles-e out &&
	sorted_by --metric e >out && test_cmp by-cycles-e out &&
	sorted_by --metric I >out && test_cmp by-cycles-i out &&
	sorted_by --metric cycles >out && test_cmp by-cycles-i out &&
	sorted_by --metric "CYC (E)" >out && test_cmp by-cycles-e out &&
	sorted_by --metric "instr E" >out && test_cmp by-instructions-e out &&
	sorted_by --metric "Instructions:Sum exclusive" >out &&
	test_cmp by-instructions-e out &&
	sorted_by --metric 5 >out && test_cmp by-instructions-e out &&
	sorted_by --metric "instructions:Sum (E)" >out && test_cmp by-instructions-e out
'

test_expect_success '--metric shows the column it sorts by, even one the database hides' '
	hpcviewer-tui --stdio --depth 0 --metric "max e" "$DB" | sed -n 1p >head &&
	echo "  cycles:Sum (I)    cycles:Sum (E)    cycles:Max (E)  Scope (top-down)" >expect &&
	test_cmp expect head &&
	hpcviewer-tui --stdio --width 0 --depth 0 --metrics all --metric "max e" "$DB" | sed -n 1p >head &&
	echo "  cycles:Sum (I)    cycles:Sum (E)    cycles:Max (E)  instructions:Sum (I)  instructions:Sum (E)  Scope (top-down)" >expect &&
	test_cmp expect head
'

test_expect_success '--metric: no match or several metrics is one line naming the metrics' '
	test_must_fail hpcviewer-tui --stdio --metric bogus "$DB" >out 2>err &&
	echo "hpcviewer-tui: '"'"'bogus'"'"': no such metric (cycles:Sum (I), cycles:Sum (E), cycles:Max (I), cycles:Max (E), instructions:Sum (I), instructions:Sum (E))" >expect &&
	test_cmp expect err &&
	test ! -s out &&
	test_must_fail hpcviewer-tui --stdio --metric "sum e" "$DB" 2>err &&
	echo "hpcviewer-tui: '"'"'sum e'"'"': ambiguous metric (cycles:Sum (E), instructions:Sum (E))" >expect &&
	test_cmp expect err
'

# The flat view opens down to the procedures of the hottest module's
# hottest file (by the sort column, here inclusive: the program's).
test_expect_success TMUX 'screen: f shows procedures, p the functions by exclusive cost' '
	open_viewer 110 20 "$DB" &&
	keys f && wait_for "flat view" &&
	screen | sed -n 4,8p | sed "s/.*%  *//" >flat &&
	printf "%s\n" "- app" "- ./src/app.c" "+ main" "+ work [clone .cold]" \
		"+ libc.so.6" >expect &&
	test_cmp expect flat &&
	keys p && wait_for "functions view | sort: cycles:Sum (E) desc" &&
	screen | sed -n 4,5p | sed "s/.*%  *//" >procs &&
	printf "%s\n" "+ memcpy [libc.so.6]" "+ sqrt [libm-2.31.so]" >expect &&
	test_cmp expect procs &&
	keys "?" && wait_for "functions: procedures and modules, by exclusive cost"
'

screen_done
# hpcprof names code without a symbol "<unknown> 0xADDR [MODULE]", the
# executable's too: such a name marks no library, so the executable's
# procedures stay bare in the top-down view (the folded stacks' frames).
test_expect_success 'an unknown address of the executable does not make it a library' '
	mkdir unk-db &&
	sed -e "s|^<Procedure i=\"6\" n=\"memcpy\"/>|&<Procedure i=\"7\" n=\"\&lt;unknown\&gt; 0x1026 [app]\"/>|" \
		-e "/^<PF i=\"1\" /{n;s/<M n=\"1\" v=\"10\"\/>/<M n=\"1\" v=\"6\"\/>/;}" \
		-e "s|^<S i=\"2\" l=\"4\"><M n=\"0\" v=\"10\"/><M n=\"1\" v=\"10\"/>|<PF i=\"13\" n=\"7\" lm=\"1\" f=\"1\" l=\"0\"><M n=\"0\" v=\"4\"/><M n=\"1\" v=\"4\"/></PF>\n<S i=\"2\" l=\"4\"><M n=\"0\" v=\"6\"/><M n=\"1\" v=\"6\"/>|" \
		"$DB/experiment.xml" >unk-db/experiment.xml &&
	grep -q "0x1026" unk-db/experiment.xml &&
	hpcviewer-tui --csv --depth 2 unk-db | cut -d, -f1,3 >td &&
	grep -q "^1,main\$" td &&
	grep -q "^2,<unknown> 0x1026 \[app\]\$" td &&
	hpcviewer-tui --folded unk.folded unk-db &&
	grep -q "^main;<unknown> 0x1026 \[app\] 4\$" unk.folded
'

# In a library (a module named as a shared object), such a name's suffix
# is the module's label: shown once, not twice.
test_expect_success 'an unknown address of a library is labelled with it once' '
	mkdir unk-lib-db &&
	sed -e "s|^<Procedure i=\"6\" n=\"memcpy\"/>|&<Procedure i=\"7\" n=\"\&lt;unknown\&gt; 0x2a [libc.so.6]\"/>|" \
		-e "/^<PF i=\"1\" /{n;s/<M n=\"1\" v=\"10\"\/>/<M n=\"1\" v=\"6\"\/>/;}" \
		-e "s|^<S i=\"2\" l=\"4\"><M n=\"0\" v=\"10\"/><M n=\"1\" v=\"10\"/>|<PF i=\"13\" n=\"7\" lm=\"2\" f=\"1\" l=\"0\"><M n=\"0\" v=\"4\"/><M n=\"1\" v=\"4\"/></PF>\n<S i=\"2\" l=\"4\"><M n=\"0\" v=\"6\"/><M n=\"1\" v=\"6\"/>|" \
		"$DB/experiment.xml" >unk-lib-db/experiment.xml &&
	grep -q "0x2a" unk-lib-db/experiment.xml &&
	hpcviewer-tui --csv --depth 2 unk-lib-db | cut -d, -f1,3 >td &&
	grep -q "^1,main\$" td &&
	grep -q "^2,<unknown> 0x2a \[libc.so.6\]\$" td &&
	hpcviewer-tui --folded unk-lib.folded unk-lib-db &&
	grep -q "^main;<unknown> 0x2a \[libc.so.6\] 4\$" unk-lib.folded
'

test_done
