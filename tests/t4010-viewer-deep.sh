#!/bin/sh
test_description='hpcviewer-tui on a deep call path: depth markers, elided names, --width, --percent-limit'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

# One call path 40 frames deep: the_work_done_at_level_01 calls ..._02 and
# so on.  Level k has inclusive cost 140 - k; each level costs 1 on its own
# line (100 + k), except the last, which costs 100; the total is 139.
mkdir db
awk -v D=40 'BEGIN {
	print "<?xml version=\"1.0\"?>"
	print "<HPCToolkitExperiment version=\"2.2\"><Header n=\"deep\"/>"
	print "<SecCallPathProfile i=\"0\" n=\"deep\"><SecHeader><MetricTable>"
	print "<Metric i=\"0\" n=\"CPUTIME (sec):Sum (I)\" v=\"derived-incr\" t=\"inclusive\" partner=\"1\" show=\"1\" show-percent=\"1\"/>"
	print "<Metric i=\"1\" n=\"CPUTIME (sec):Sum (E)\" v=\"derived-incr\" t=\"exclusive\" partner=\"0\" show=\"1\" show-percent=\"1\"/>"
	print "</MetricTable><LoadModuleTable><LoadModule i=\"0\" n=\"/opt/deep\"/></LoadModuleTable>"
	print "<FileTable><File i=\"0\" n=\"deep.c\"/></FileTable><ProcedureTable>"
	for (k = 1; k <= D; k++)
		printf "<Procedure i=\"%d\" n=\"the_work_done_at_level_%02d\"/>\n", k, k
	print "</ProcedureTable></SecHeader><SecCallPathProfileData>"
	for (k = 1; k <= D; k++) {
		incl = D - k + 100
		excl = k < D ? 1 : 100
		if (k > 1)
			printf "<C l=\"%d\"><M n=\"0\" v=\"%d\"/>\n", k, incl
		printf "<PF n=\"%d\" lm=\"0\" f=\"0\" l=\"%d\"><M n=\"0\" v=\"%d\"/><M n=\"1\" v=\"%d\"/>\n", k, k, incl, excl
		printf "<S l=\"%d\"><M n=\"0\" v=\"%d\"/><M n=\"1\" v=\"%d\"/></S>\n", 100 + k, excl, excl
	}
	for (k = D; k >= 1; k--)
		printf "</PF>%s\n", (k > 1 ? "</C>" : "")
	print "</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>"
}' >db/experiment.xml

# With --width 0 every row and every name is printed in full, indented as
# in a 160-column scope column (so text stays linear however deep, t4026):
# 40 levels in full, then "[+D] " ending at column 80.
test_expect_success '--width 0: the whole path is printed, the indentation stopping at 80 columns' '
	hpcviewer-tui --stdio --width 0 db >out &&
	test_line_count = 121 out &&
	sed -n 42p out >row &&
	printf "%21s  %21s  %80s- call at deep.c:21\n" "1.19e+02  85.6%" "" "" >expect &&
	test_cmp expect row &&
	grep "deep.c:140$" out >row &&
	echo "      1.00e+02  71.9%        1.00e+02  71.9%  $(printf "%74s" "")[+80]   deep.c:140" >expect &&
	test_cmp expect row
'

# 46 characters of cells leave 54 for the scope: indentation up to 27,
# then "[+D] " in its place.
test_expect_success '--width 100: no line is longer, deep rows keep their names' '
	hpcviewer-tui --stdio --width 100 db >out &&
	test_line_count = 121 out &&
	test "$(awk "length > 100" out | wc -l)" = 0 &&
	test "$(awk "length == 100" out | wc -l)" = 33 &&
	sed -n 29p out >row &&
	echo "      1.26e+02  90.6%        1.00e+00   0.7%                       [+27] - the_work_done_at_level_14" >expect &&
	test_cmp expect row &&
	sed -n 16p out >row &&
	echo "      1.32e+02  95.0%                                              [+14] - call at deep.c:8" >expect &&
	test_cmp expect row &&
	grep "deep.c:140$" out >row &&
	echo "      1.00e+02  71.9%        1.00e+02  71.9%                       [+80]   deep.c:140" >expect &&
	test_cmp expect row
'

test_expect_success '--width 80: names too long for the rest keep their start and end' '
	hpcviewer-tui --stdio --width 80 db >out &&
	test "$(awk "length > 80" out | wc -l)" = 0 &&
	grep "\[+79\]" out >row &&
	echo "      1.00e+02  71.9%        1.00e+02  71.9%             [+79] - the_wo...vel_40" >expect &&
	test_cmp expect row &&
	hpcviewer-tui --stdio --width 30 db >out &&
	test "$(awk "length != 30" out | wc -l)" = 0
'

# 1% of 139 leaves out the lines costing 1 (and nothing else); 95% keeps
# the levels costing at least 132.05: levels 1-7 and the six calls between.
test_expect_success 'text to a pipe: lines of COLUMNS characters, else 120' '
	hpcviewer-tui --stdio db >out &&
	test_line_count = 121 out &&
	test "$(awk "length > 120" out | wc -l)" = 0 &&
	grep -q "the_work_done_at_level_40$" out &&
	COLUMNS=90 hpcviewer-tui --stdio db >out &&
	test "$(awk "length > 90" out | wc -l)" = 0 &&
	COLUMNS=90 hpcviewer-tui --stdio --width 0 db >out &&
	test "$(awk "length > 120" out | wc -l)" -gt 0 &&
	COLUMNS=90 hpcviewer-tui --csv db >out &&
	grep -q ",the_work_done_at_level_40," out
'

test_expect_success '--percent-limit leaves out the rows under the limit and what is under them' '
	hpcviewer-tui --stdio --percent-limit 1 db >out &&
	test_line_count = 82 out &&
	! grep -q "deep.c:10[0-9]$" out &&
	grep -q "deep.c:140$" out &&
	hpcviewer-tui --stdio --percent-limit 95 db >out &&
	test_line_count = 15 out &&
	tail -n 1 out | grep -q "the_work_done_at_level_07$" &&
	hpcviewer-tui --csv --percent-limit 95 db >csv &&
	test_line_count = 15 csv &&
	hpcviewer-tui --stdio --percent-limit 100 db >out &&
	test_line_count = 3 out &&
	hpcviewer-tui --stdio --percent-limit 0 db >out &&
	test_line_count = 121 out
'

test_expect_success 'bad --width and --percent-limit are usage errors' '
	test_must_fail hpcviewer-tui --stdio --percent-limit lots db 2>err &&
	grep -qx "hpcviewer-tui: '"'"'lots'"'"': --percent-limit wants a percentage (0-100)" err &&
	test_must_fail hpcviewer-tui --stdio --width -3 db 2>err &&
	grep -qx "hpcviewer-tui: '"'"'-3'"'"': --width wants a number of characters (0: no limit)" err &&
	test_must_fail hpcviewer-tui --csv --width 80 db 2>err &&
	test_line_count = 1 err
'

test_expect_success TMUX 'screen at 100 columns: the hot path ends on a row whose name shows' '
	open_viewer 100 30 db &&
	keys H && wait_for "row 81/120: deep.c:140" &&
	screen >s &&
	grep -q "^      1.00e+02  71.9%        1.00e+02  71.9%                       \[+79\] - the_work_done_at_level_40$" s &&
	test "$(awk "length > 100" s | wc -l)" = 0
'

# level 40 is 79 deep: 158 columns of indentation; 19 steps of 8 leave 6.
test_expect_success TMUX 'screen: ] scrolls the scope column to show whole rows, [ back' '
	keys ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] ] &&
	wait_for "Scope (scrolled 152: [ ])" &&
	grep -qx "      1.00e+02  71.9%        1.00e+02  71.9%        - the_work_done_at_level_40" screen.txt &&
	keys [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ [ &&
	wait_for "[+79] - the_work_done_at_level_40" &&
	! grep -q "scrolled" screen.txt
'

screen_done
test_done
