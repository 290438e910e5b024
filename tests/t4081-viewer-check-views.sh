#!/bin/sh
test_description='hpcviewer-tui --check-views: the views add up to the totals, and a database where they do not is named'
. "$(dirname "$0")/test-lib.sh"

DATA=$TEST_DIRECTORY/data/viewer

# The hand-made database with its root total, or one value of a scope,
# replaced: edit DB 'FROM' 'TO' (the first line holding FROM).  The tests
# remove such databases, which the end of every test script would
# otherwise check.
edit() {
	mkdir "$1" &&
	awk -v from="$2" -v to="$3" '!done && index($0, from) {
			sub(from, to); done = 1
		}
		{ print }' "$DATA/small-db/experiment.xml" >"$1/experiment.xml"
}

test_expect_success 'every hand-made database of the viewer tests adds up' '
	for db in "$DATA"/*/; do
		hpcviewer-tui --check-views "$db" >out &&
		! test -s out || exit 1
	done
'

test_expect_success 'a root total below its children: exit 3, each view that shows it named' '
	edit low "<M n=\"0\" v=\"10\"/><M n=\"1\" v=\"10\"/>" \
		"<M n=\"0\" v=\"5\"/><M n=\"1\" v=\"5\"/>" &&
	status=0 && hpcviewer-tui --check-views low >out || status=$? &&
	test $status = 3 &&
	grep -q "^.low.: top-down view: the root.s children add up to CPUTIME (sec):Sum (I) 10, not the total 5$" out &&
	grep -q "flat view: .app.: CPUTIME (sec):Sum (I) 10 is above the total 5$" out &&
	grep -q "bottom-up view: .main \[app\].: CPUTIME (sec):Sum (I) 10 is above the total 5$" out &&
	grep -q "functions view: CPUTIME (sec):Sum (E) adds up to 10, not the total 5$" out &&
	rm -r low
'

test_expect_success 'an exclusive value above its inclusive one: the row and the procedure named' '
	edit hot "<M n=\"0\" v=\"7\"/><M n=\"1\" v=\"5\"/>" \
		"<M n=\"0\" v=\"7\"/><M n=\"1\" v=\"9\"/>" &&
	status=0 && hpcviewer-tui --check-views hot >out || status=$? &&
	test $status = 3 &&
	grep -q "top-down view: .compute.: CPUTIME (sec):Sum (I) 7 is below CPUTIME (sec):Sum (E) 9$" out &&
	grep -q "flat view: .compute.: CPUTIME (sec):Sum (I) 7 is below CPUTIME (sec):Sum (E) 9$" out &&
	rm -r hot
'

# A per-phase profile (hpcprof-database(5)): main again, below a frame of
# the module <phases>.
test_expect_success 'a per-phase profile changes no code view and adds up' '
	mkdir phased &&
	awk "/<LoadModule i=\"0\"/ { print; print \"    <LoadModule i=\\\"1\\\" n=\\\"&lt;phases&gt;\\\"/>\"; next }
		/<Procedure i=\"3\"/ { print; print \"    <Procedure i=\\\"4\\\" n=\\\"&lt;phase from thread start&gt;\\\"/>\"; next }
		/^<PF i=\"2\"/ { main = 1 }
		main { copy = copy \$0 \"\\n\" }
		/^<\\/PF>/ { main = 0 }
		/^<\\/SecCallPathProfileData>/ {
			print \"<PF i=\\\"90\\\" s=\\\"90\\\" l=\\\"0\\\" lm=\\\"1\\\" f=\\\"0\\\" n=\\\"4\\\">\"
			print \"<M n=\\\"0\\\" v=\\\"10\\\"/>\"
			printf \"%s\", copy
			print \"</PF>\"
		}
		{ print }" "$DATA/small-db/experiment.xml" >phased/experiment.xml &&
	hpcviewer-tui --csv --depth 2 phased >top &&
	grep -q "^2,procedure,<phase from thread start>,[^,]*,,10,100.00," top &&
	grep -q "^1,phases,<per-phase profiles ([^,]*)>,,,0,,0,$" top &&
	test "$(tail -n 1 top | cut -d, -f1-3)" = "2,procedure,<phase from thread start>" &&
	awk -F, "\$1 == 0 { root = \$6 } \$1 == 1 { sum += \$6 }
		END { exit !(root == 10 && sum == root) }" top &&
	hpcviewer-tui --check-views phased >out &&
	! test -s out &&
	for view in flat functions bottom-up; do
		hpcviewer-tui --csv --view $view "$DATA/small-db" >expect &&
		hpcviewer-tui --csv --view $view phased >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success 'a database the viewer refuses: exit 1, one line' '
	mkdir broken && echo "<HPCToolkitExperiment" >broken/experiment.xml &&
	status=0 && hpcviewer-tui --check-views broken >out 2>err || status=$? &&
	test $status = 1 &&
	! test -s out &&
	test_line_count = 1 err
'

test_done
