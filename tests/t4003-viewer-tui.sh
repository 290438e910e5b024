#!/bin/sh
test_description='hpcviewer-tui screen, driven through tmux'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

DB=$TEST_DIRECTORY/data/viewer/small-db

# start_viewer [-x W -y H] ARGS: runs the viewer in a fresh tmux session;
# when it exits the pane shows EXIT=<status> and whether the tty is sane.
start_viewer() {
	w=100 h=30
	if [ "$1" = -x ]; then w=$2 h=$4; shift 4; fi
	tm kill-session -t v 2>/dev/null
	tm new-session -d -s v -x "$w" -y "$h" \
		"trap : INT; '$BIN/hpcviewer-tui' $*; echo EXIT=\$?; stty -a | grep -q ' icanon .* echo ' && echo TTY=sane; sleep 60" &&
	wait_for "(? help, q quit)"
}

row3_is() { screen | sed -n 3p | grep -q "$1"; }
no_zoom() { ! screen | grep -q "zoom 1"; }
not_shown() { ! screen | grep -q "$1"; }
line_is() { test "$(screen | sed -n "$1p" | cut -c"1-${3:-999}")" = "$2"; }
last_line_not() { test "$(screen | sed -n '$p')" != "$1"; }

# status line after keys, once it changed (or after 20 s)
status_after() {
	old=$(screen | sed -n '$p') &&
	keys "$@" &&
	{ eventually last_line_not "$old" 2>/dev/null || :; } &&
	screen | sed -n '$p'
}

# The top-down view opens along the hot path (views.h, invariant 5).
test_expect_success TMUX 'first screen: title, labelled columns, hot path expanded' '
	start_viewer "$DB" &&
	screen >s &&
	sed -n 1,4p s >top &&
	cat >expect <<-\EOT &&
	 hpcviewer-tui: app | top-down view | sort: CPUTIME (sec):Sum (I) desc
	CPUTIME (sec):Sum (I)  CPUTIME (sec):Sum (E)  Scope
	      1.00e+01 100.0%        1.00e+01 100.0%  - Experiment Aggregate Metrics
	      1.00e+01 100.0%        2.00e+00  20.0%    - main
	EOT
	test_cmp expect top &&
	test "$(sed -n 30p s)" = "row 1/13: Experiment Aggregate Metrics  (? help, q quit)"
'

test_expect_success TMUX 'hot path from main ends at the hottest line, rows as --stdio' '
	keys j H && wait_for "row 8/13: vec.h:3" &&
	screen | sed -n 3,10p >rows &&
	hpcviewer-tui --stdio "$DB" | sed -n 2,9p >expect &&
	test_cmp expect rows
'

test_expect_success TMUX 'Enter collapses, Left goes to the parent' '
	keys Left && wait_for "row 7/13: [I] vec_add" &&
	keys Enter && wait_for "row 7/12: [I] vec_add" &&
	screen | grep -q "+ \[I\] vec_add"
'

test_expect_success TMUX 'view switches keep each view state' '
	keys b && wait_for "bottom-up view" && wait_for "row 1/4:" &&
	screen | sed -n 4,6p | sed "s/.*%  *//" >procs &&
	printf "%s\n" "main [app]" "+ compute [app]" "+ helper [app]" >expect &&
	test_cmp expect procs &&
	keys f && wait_for "flat view" &&
	screen | grep -q "+ compute$" &&
	keys t && wait_for "row 7/12: [I] vec_add"
'

test_expect_success TMUX 'sort by the next column, then reversed' '
	keys g j && wait_for "row 2/12: main" &&
	keys s && wait_for "sort: CPUTIME (sec):Sum (E) desc" &&
	screen | sed -n 5p | grep -q "app.c:12$" &&
	keys S && wait_for "sort: CPUTIME (sec):Sum (E) asc" &&
	screen | sed -n 5p | grep -q "call at app.c:13$" &&
	keys s && wait_for "sort: CPUTIME (sec):Sum (I) desc"
'

# helper is called in three contexts: n visits each, then wraps around.
test_expect_success TMUX 'find with a regex, n for the next match, wrapping' '
	keys / "^hel" Enter && wait_for ": helper  (? help" &&
	first=$(screen | sed -n "\$p") &&
	keys n && eventually last_line_not "$first" &&
	second=$(screen | sed -n "\$p") &&
	echo "$second" | grep -q ": helper  (? help" &&
	keys n && eventually last_line_not "$second" &&
	third=$(screen | sed -n "\$p") &&
	test "${third%%/*}" != "${first%%/*}" && test "${third%%/*}" != "${second%%/*}" &&
	keys n && eventually last_line_not "$third" &&
	test "$(screen | sed -n "\$s|/.*||p")" = "${first%%/*}" &&
	keys / "nomatch" Enter && wait_for "not found"
'

test_expect_success TMUX 'zoom into a subtree and back out' '
	keys / "^compute" Enter && wait_for ": compute  (?" &&
	keys z && wait_for "zoom 1" &&
	eventually row3_is "  - compute$" &&
	keys Z && eventually no_zoom && wait_for ": compute  (?"
'

test_expect_success TMUX 'flatten the flat view: files, then procedures, then back' '
	keys f g && wait_for "flat view" &&
	keys F && wait_for "flatten 1" &&
	screen | sed -n 4,7p | sed "s/.*%  *//" >tops &&
	printf "%s\n" "- ./src/app.c" "+ main" "+ compute" "+ ./src/util.c" >expect &&
	test_cmp expect tops &&
	keys F && wait_for "flatten 2" &&
	screen | sed -n 4,6p | sed "s/.*%  *//" >tops &&
	printf "%s\n" "+ main" "+ compute" "+ helper" >expect &&
	test_cmp expect tops &&
	keys U U && eventually not_shown flatten &&
	keys t && wait_for "top-down view" &&
	status_after F | grep -q "flatten works in the flat view"
'

test_expect_success TMUX 'source pane: the file from DBDIR/src with a per-line gutter' '
	keys / "vec.h" Enter && wait_for ": vec.h:3  (?" &&
	keys v && wait_for "src/vec.h (CPUTIME (sec):Sum (E) per line)" &&
	screen | grep -q "^ 3.00e+00     3 		a\[k\] += b\[k\];\$\|^ 3.00e+00     3         a\[k\] += b\[k\];\$" &&
	keys g && wait_for "no source file for this row" &&
	keys v && eventually not_shown "no source file"
'

test_expect_success TMUX 'a note when the database has no copy of the source' '
	mkdir nosrc && cp "$DB/experiment.xml" nosrc/ &&
	start_viewer nosrc &&
	keys j H v && wait_for "source not in the database: nosrc/src/vec.h --" &&
	status_after T | grep -q "no per-thread data in this database"
'

test_expect_success TMUX 'a long source path loses its middle, not the file name or metric' '
	long=$(printf "d%.0s" $(seq 1 120)) &&
	cp -r "$DB" "$long" &&
	start_viewer -x 80 -y 30 "$long" &&
	keys / "vec.h" Enter && wait_for ": vec.h:3  (?" &&
	keys v && wait_for ".../src/vec.h (CPUTIME (sec):Sum (E) per line) --" &&
	screen | grep -q "^-- d\{28\}\.\.\./src/vec\.h (CPUTIME (sec):Sum (E) per line) --\$"
'

test_expect_success TMUX 'help screen and back' '
	keys "?" && wait_for "hpcviewer-tui keys" &&
	screen | grep -q "hot path: expand while a child holds >= 50%" &&
	keys x && wait_for "(? help, q quit)"
'

# The derived column I - E is 0 at the root, so it shows no percentage.
test_expect_success TMUX 'metric columns: hide one, add a derived one' '
	start_viewer "$DB" &&
	keys m 2 Enter && eventually line_is 2 "CPUTIME (sec):Sum (I)  Scope" &&
	keys m 2 Enter && eventually not_shown "^CPUTIME (sec):Sum (I)  Scope$" &&
	keys d "\$1 - \$2" Enter && wait_for "added column 3" &&
	screen | sed -n 4p | grep -q "^      1.00e+01 100.0%        2.00e+00  20.0%          8.00e+00    - main$" &&
	keys d "\$1 +" Enter && wait_for "at offset 4" &&
	keys d "{CPUTIME (sec):Sum (E)} / 0" Enter && wait_for "added column 4" &&
	screen | sed -n 2p | grep -q "Scope (+1 columns: m)$"
'

# small-db/thread-values.tsv: main ran 4 s on thread 0 and 6 s on thread 1.
test_expect_success TMUX 'T: per-thread distribution of the selected row' '
	keys g j T && wait_for "at main: 2 threads" &&
	screen >s &&
	grep -q "^Per-thread distribution of CPUTIME (sec):Sum (I)$" s &&
	grep -q "^min 4  mean 5  max 6$" s &&
	test $(grep -c "^ .* 1 #" s) = 2 &&
	keys x && wait_for "row 2/" &&
	keys b g && wait_for "row 1/4" &&
	keys T && wait_for "at Experiment Aggregate Metrics: 2 threads" &&
	keys x && wait_for "row 1/4" &&
	keys t
'

test_expect_success TMUX 'works at 80x24 and follows a resize' '
	start_viewer -x 80 -y 24 "$DB" &&
	keys j H && wait_for "row 8/13" &&
	test "$(screen | wc -l)" = 24 &&
	tm resize-window -t v -x 100 -y 40 &&
	eventually line_is 40 "row 8/13:" 9 &&
	tm resize-window -t v -x 60 -y 12 &&
	eventually line_is 12 "row 8/13:" 9 &&
	screen | grep -q "vec.h:3"
'

test_expect_success TMUX 'q quits and restores the terminal' '
	keys q && wait_for "EXIT=0" && wait_for "TTY=sane"
'

test_expect_success TMUX 'Ctrl-C restores the terminal too' '
	start_viewer "$DB" &&
	keys C-c && wait_for "EXIT=130" && wait_for "TTY=sane"
'

test_expect_success TMUX 'without a terminal the screen refuses clearly' '
	test_must_fail hpcviewer-tui "$DB" </dev/null >out 2>err &&
	grep -qx "hpcviewer-tui: not a terminal (use --stdio for text output)" err
'

screen_done
test_done
