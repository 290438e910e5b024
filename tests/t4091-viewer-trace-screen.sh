#!/bin/sh
test_description='hpcviewer-tui --view trace on the screen: rows, legend, the call path under the cursor, zoom, pan and depth keys'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"
. "$TEST_DIRECTORY/lib/trace-lib.sh"

test_expect_success TMUX 'setup: the database of trace-lib.sh, on a 71 x 12 screen' '
	build_mktrace &&
	trace_db db &&
	tm new-session -d -s v -x 71 -y 12 "\"$BIN/hpcviewer-tui\" --view trace db; sleep 60" &&
	wait_for "q quit"
'

# 61 columns of 3 s / 61 beside the 8-character names.
test_expect_success TMUX 'rows of letters, the legend, the path of the first cell' '
	grep "^thread 0 |" screen.txt >rows &&
	grep -q "^thread 0 |a\{20\}b\{21\}c\{20\}\$" rows &&
	grep -q "^thread 1 | \{20\}x\{13\}y\{12\}=\{4\}\.\{12\}\$" screen.txt &&
	grep -q "^b b 23.3%  a a 22.2%  c c 22.2%  y y 17.8%  x x 14.4%" screen.txt &&
	grep -q "^thread 0 at 0.0245902 s: main > a (phases.c:10)\$" screen.txt
'

test_expect_success TMUX 'the cursor moves: the worker before its start, in x, waiting in y' '
	keys Down && wait_for "thread 1 at 0.0245902 s: not started" &&
	for i in $(seq 25); do keys Right; done &&
	wait_for "thread 1 at 1.2541 s: worker > x (phases.c:22)" &&
	for i in $(seq 20); do keys Right; done &&
	wait_for "thread 1 at 2.2377 s: worker > y (phases.c:26), waiting" &&
	for i in $(seq 10); do keys Right; done &&
	wait_for "thread 1 at 2.72951 s: no activity"
'

test_expect_success TMUX 'depth keys: [ from the deepest is the longest path, then the outermost' '
	keys "[" && wait_for "call-path depth 2" &&
	keys "[" && wait_for "call-path depth 1" &&
	grep -q "^thread 0 |m\{61\}\$" screen.txt &&
	keys d && wait_for "deepest frames"
'

test_expect_success TMUX 'zoom in around the cursor, pan, back to the whole time' '
	keys + && wait_for "trace: 1.5 s to 3 s" &&
	grep -q "^thread 0 |b\{20\}c\{41\}\$" screen.txt &&
	keys "<" && wait_for "trace: 1.125 s to 2.625 s" &&
	keys 0 && wait_for "trace: 0 s to 3 s" &&
	keys q
'

screen_done
test_done
