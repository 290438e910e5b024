#!/bin/sh
test_description='hpcviewer-tui on a database made by hpcprof from real measurements'
. "$(dirname "$0")/test-lib.sh"

SOCK=hpcviewer-test-$$
tm() { tmux -L "$SOCK" "$@"; }
# shows SESSION [SED-ADDRESS] REGEX: the screen (or its line) matches.
shows() {
	if [ $# = 3 ]; then
		tm capture-pane -p -t "$1" | sed -n "$2p" | grep -q "$3"
	else
		tm capture-pane -p -t "$1" | grep -q "$2"
	fi
}

test_lazy_prereq PROF_DB '
	cp -r "$FIXTURES/loops-perf.m" "$TRASH/m" &&
	hpcprof -o "$TRASH/db" -S "$FIXTURES/loops-perf.m/structs/testmeas-loops.hpcstruct" \
		"$TRASH/m" &&
	test -f "$TRASH/db/experiment.xml"
'

test_expect_success FIXTURES,PROF_DB 'the three views agree on the totals' '
	hpcviewer-tui --csv --depth 1 db >td &&
	sed -n 2p td | cut -d, -f2,7 >root &&
	echo "root,100.00" >expect &&
	test_cmp expect root &&
	total=$(sed -n 2p td | cut -d, -f6) &&
	top=$(awk -F, "NR > 2 { s += \$6 } END { print s }" td) &&
	test_within "$top" "$total" 1 &&
	hpcviewer-tui --csv --view flat db >flat &&
	excl=$(awk -F, "\$2 == \"procedure\" { s += \$8 } END { print s }" flat) &&
	test_within "$excl" "$total" 1 &&
	hpcviewer-tui --csv --view bottom-up --depth 1 db >bu &&
	bu_excl=$(awk -F, "NR > 2 { s += \$8 } END { print s }" bu) &&
	test_within "$bu_excl" "$total" 1
'

test_expect_success FIXTURES,PROF_DB,TMUX 'screen: columns fit, hot path, per-thread values' '
	tm new-session -d -s v -x 100 -y 30 "$BIN/hpcviewer-tui --metrics all db; sleep 60" &&
	eventually shows v 3 "100.0%  *- Experiment Aggregate Metrics$" &&
	shows v 2 "Scope (+[0-9]* columns: m)$" &&
	tm send-keys -t v H &&
	eventually shows v "\$" "^row [0-9]*/[0-9]*: loop at loops.c:[0-9]*  (? help" &&
	tm send-keys -t v T &&
	eventually shows v "^at loop at loops.c:[0-9]*: 4 threads$"
'

# The whole pipeline on a program whose hot spot is known: three()'s loop
# at line 25 holds three quarters of the time (its samples fall on lines 25
# and 26 as the CPU skids, so either may be the hot path's last row).
test_lazy_prereq SPLIT_DB '
	cc -O2 -g -o "$TRASH/split" "$TEST_PROGS/pf-split.c" &&
	(cd "$TRASH" && hpcrun -o sm ./split 4000000 >/dev/null &&
	 hpcstruct -q sm && hpcprof -o sdb sm 2>/dev/null) &&
	test -f "$TRASH/sdb/experiment.xml"
'

test_expect_success SPLIT_DB,TMUX 'screen on hpcrun+hpcstruct+hpcprof: hot path to the loop, its source' '
	tm new-session -d -s s -x 100 -y 30 "$BIN/hpcviewer-tui sdb; sleep 60" &&
	eventually shows s 3 "Experiment Aggregate Metrics$" &&
	tm send-keys -t s H &&
	eventually shows s "\$" "^row [0-9]*/[0-9]*: pf-split.c:2[56]  (? help" &&
	tm capture-pane -p -t s >hot &&
	grep -q "^ .*%  *- main$" hot &&
	grep -q "^ .*%  *- three$" hot &&
	grep -q "^ .*%  *- loop at pf-split.c:25$" hot &&
	tm send-keys -t s v &&
	eventually shows s "^-- sdb/.*/pf-split.c (perf::cpu-clock (s):Sum (E) per line) --$" &&
	eventually shows s "^ [0-9.e+-]*  *25  *for (long i = 0; i < 3 \\* n; i++)"
'

tm kill-server 2>/dev/null
test_done
