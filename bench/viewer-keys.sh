#!/bin/sh
# viewer-keys.sh [DBDIR] - time every key of hpcviewer-tui on a big database.
# Runs the viewer in a detached 100x30 tmux session with
# HPCVIEWER_TUI_TIMING=1, sends one key at a time and reads the handling +
# redraw time the viewer prints on its status line ("[12.34 ms]").
# Default database: a fresh viewer-gen-db.sh one (depth 10, ~1M scopes).
set -e
here=$(cd "$(dirname "$0")" && pwd)
bin=${HPC_BUILD:-$here/../build}/bin
db=$1
if [ -z "$db" ]; then
	db=${TMPDIR:-/tmp}/hpcviewer-bench-db
	[ -f "$db/experiment.xml" ] || "$here/viewer-gen-db.sh" "$db" 10
fi
sock=viewer-bench-$$
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null' EXIT
tm new-session -d -s v -x 100 -y 30 \
	"HPCVIEWER_TUI_TIMING=1 '$bin/hpcviewer-tui' '$db'; sleep 60"
wait_status() {	# waits until the status line changes from $1
	i=0
	while [ $i -lt 600 ]; do
		s=$(tm capture-pane -p -t v | sed -n '$p')
		case "$s" in *"ms]"*) [ "$s" != "$1" ] && { echo "$s"; return; } ;; esac
		sleep 0.05
		i=$((i + 1))
	done
	echo "timeout"
}
prev=$(wait_status "")
printf '%-28s %10s\n' "key" "ms"
run() {	# run DESCRIPTION KEYS...
	desc=$1
	shift
	tm send-keys -t v "$@"
	prev=$(wait_status "$prev")
	printf '%-28s %10s\n' "$desc" "$(echo "$prev" | sed -n 's/.*\[\([0-9.]*\) ms\].*/\1/p')"
}
run "j (down)" j
run "Enter (expand main)" Enter
run "H (hot path from main)" H
run "k (up)" k
run "PgDn" NPage
run "s (sort by next column)" s
run "S (reverse sort)" S
run "s (back to first column)" s
run "z (zoom)" z
run "Z (unzoom)" Z
run "v (source pane on)" v
run "v (source pane off)" v
run "b (bottom-up, first time)" b
run "Enter (expand)" Enter
run "j" j
run "f (flat, first time)" f
run "j" j
run "F (flatten)" F
run "U (unflatten)" U
run "t (back to top-down)" t
run "b (bottom-up again)" b
run "/ find proc_4999" / "proc_4999$" Enter
run "n (next match)" n
run "/ find, no match (whole tree)" / "no_such_scope" Enter
