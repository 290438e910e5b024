# viewer-screen.sh - drives hpcviewer-tui in tmux for the screen tests
# (t4010-t4014); sourced after test-lib.sh.  Tests using it need TMUX and
# end with screen_done.

SOCK=hpcviewer-test-$$
tm() { tmux -L "$SOCK" "$@"; }
# an idle session keeps the server up between the viewer sessions
test_have_prereq TMUX && tm new-session -d -s keep "sleep 600"

# open_viewer W H ARGS...: the viewer on a fresh W x H screen, once it
# shows its status line.
open_viewer() {
	_w=$1 _h=$2
	shift 2
	tm kill-session -t v 2>/dev/null
	tm new-session -d -s v -x "$_w" -y "$_h" "'$BIN/hpcviewer-tui' $*; sleep 60" &&
	wait_for "(? help, q quit)"
}

screen() { tm capture-pane -p -t v; }
keys() { tm send-keys -t v "$@"; }

# wait_for STRING: the screen shows STRING within 20 s (then in
# screen.txt); the sanitizer build on a loaded machine is slow to draw.
# The screen must also be the same 0.1 s later: a capture can fall between
# the redraw of the heading and that of the rows below it.
wait_for() {
	_i=0
	while [ $_i -lt 200 ]; do
		screen >screen.txt
		if grep -qF -- "$1" screen.txt; then
			sleep 0.1
			screen >screen.again
			cmp -s screen.txt screen.again && return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "timed out waiting for: $1" >&2
	cat screen.txt >&2
	return 1
}

screen_done() { tm kill-server 2>/dev/null; }
