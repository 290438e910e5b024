#!/bin/sh
test_description='hpcstruct in the pipeline: hpcrun, hpcstruct DIR, hpcprof, viewer show loops'
. "$(dirname "$0")/test-lib.sh"

HPCSTRUCT_CACHE=$TRASH/cache
export HPCSTRUCT_CACHE
# st-nests exits with an unpredictable status: only the measurement matters.
test_lazy_prereq PIPELINE 'cc -o t "$TEST_PROGS/st-nests.c" && { hpcrun -o m ./t 1 || test -d m; } && hpcprof --help >/dev/null && hpcviewer-tui --help >/dev/null'

# nest4's innermost loop runs n times as often as the code of line 35
# around it, yet that code gets 8-10% of the samples, with perf record -e
# cpu-clock alike (the exit of the loop costs more than its iterations):
# about 90% lie in the loop at line 36, not 95 and more.
# n = 200 makes some 550 samples: the floor of 70% is 15 sigma below.
test_expect_success PIPELINE 'loops of nest4 appear nested in the flat view, time in the innermost' '
	cc -O2 -g -o nests "$TEST_PROGS/st-nests.c" &&
	{ hpcrun ./nests 200 || test -d hpctoolkit-nests-measurements; } &&
	hpcstruct -q hpctoolkit-nests-measurements &&
	test -s hpctoolkit-nests-measurements/structs/nests.hpcstruct &&
	hpcprof hpctoolkit-nests-measurements &&
	hpcviewer-tui --stdio --view flat hpctoolkit-nests-database >flat &&
	sed -n "/- nest4$/,/- nest3$/p" flat >nest4 &&
	grep -n "loop at st-nests.c:3[3-6]$" nest4 | sed "s/:.*loop at st-nests.c:/ /" >order &&
	awk "{ print \$2 }" order >lines &&
	printf "33\n34\n35\n36\n" >expect && test_cmp expect lines &&
	pct=$(grep "loop at st-nests.c:36$" nest4 | awk "{ sub(/%/, \"\", \$2); print \$2 }") &&
	awk -v p="$pct" "BEGIN { exit !(p >= 70 && p <= 100) }"
'
test_done
