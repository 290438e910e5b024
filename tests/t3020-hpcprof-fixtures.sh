#!/bin/sh
test_description='hpcprof turns HPCToolkit measurements into a valid database, totals preserved'
. "$(dirname "$0")/test-lib.sh"

PERF=$FIXTURES/loops-perf.m
CPU=$FIXTURES/loops-cputime-t.m

# M values of the first element named $2 in $1 (n=v per line).
values_of() {
	sed -n "/<$2[ >]/,/<\/$2>/p" "$1" | sed -n '/<M /{s/.*n="\([0-9]*\)" v="\([^"]*\)".*/\1=\2/;p}'
}

test_expect_success FIXTURES 'database of the perf run: valid against the DTD' '
	hpcprof -o db "$PERF" 2>err &&
	test -f db/experiment.xml &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml &&
	hpcprof --stats -o dbs "$PERF" 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" dbs/experiment.xml
'

# With --stats, Mean (2, 3), Min (4, 5) and Max (6, 7) of 4 threads.
test_expect_success FIXTURES 'totals preserved: 4 x 79 samples x 12.5 ms, 36 task-clock samples' '
	sed -n "/<SecCallPathProfileData>/,/<PF /p" dbs/experiment.xml |
		sed -n "s/.*<M n=\"\([0-9]*\)\" v=\"\([^\"]*\)\".*/\1=\2/p" >totals &&
	cat >expect <<-EOT &&
	0=3950000000
	1=3950000000
	2=987500000
	3=987500000
	4=987500000
	5=987500000
	6=987500000
	7=987500000
	12=36
	13=36
	14=9
	15=9
	16=9
	17=9
	18=9
	19=9
	EOT
	test_cmp expect totals &&
	sed -n "/<SecFlatProfileData>/,/<LM /p" dbs/experiment.xml |
		sed -n "s/.*<M n=\"\([0-9]*\)\" v=\"\([^\"]*\)\".*/\1=\2/p" >flat &&
	test_cmp expect flat &&
	printf "%s\n" 0=3950000000 1=3950000000 12=36 13=36 >expect &&
	sed -n "/<SecCallPathProfileData>/,/<PF /p" db/experiment.xml |
		sed -n "s/.*<M n=\"\([0-9]*\)\" v=\"\([^\"]*\)\".*/\1=\2/p" >totals &&
	test_cmp expect totals
'

test_expect_success FIXTURES 'only the Sum columns start visible; statistics (--stats) are hidden' '
	test $(grep -c "<Metric .* show=\"1\"" dbs/experiment.xml) = 4 &&
	test $(grep -c "<Metric .*:Sum (.)\".* show=\"1\"" dbs/experiment.xml) = 4 &&
	test $(grep -c "<Metric .* show=\"0\"" dbs/experiment.xml) = 20 &&
	test $(grep -c "<Metric " db/experiment.xml) = 4
'

test_expect_success FIXTURES 'each thread keeps its own values' '
	awk -F"\t" "\$1 == 1 && \$3 == 0 { print \$2, \$4 }" db/thread-values.tsv >per-thread &&
	cat >expect <<-EOT &&
	0 987500000
	1 987500000
	2 987500000
	3 987500000
	EOT
	test_cmp expect per-thread &&
	test_line_count = 5 db/threads.tsv &&
	grep -x "3	testmeas-loops-000000-003-11ac0300-5176-0.hpcrun	NODE=0 CORE=0 THREAD=3	testmeas-loops	5176	0	3" db/threads.tsv
'

test_expect_success FIXTURES 'loops from the structure file appear in their calling context' '
	grep -c "<L " db/experiment.xml >nloops &&
	test $(cat nloops) -ge 10 &&
	grep -q "<Procedure i=\"[0-9]*\" n=\"func2\"" db/experiment.xml &&
	grep -q "<Procedure i=\"[0-9]*\" n=\"test_separated_loops_helper\"" db/experiment.xml &&
	grep -q "<Pr .* a=\"1\"" db/experiment.xml
'

test_expect_success FIXTURES 'an existing database is moved aside, never overwritten' '
	echo keep >db/marker &&
	hpcprof -o db "$PERF" 2>err &&
	grep -x "hpcprof: moved the previous '"'"'db'"'"' to '"'"'db.1'"'"'" err &&
	test "$(cat db.1/marker)" = keep &&
	test_cmp db.1/experiment.xml db/experiment.xml
'

test_expect_success FIXTURES 'a directory that is not a database is refused' '
	mkdir notdb && echo keep >notdb/marker &&
	test_must_fail hpcprof -o notdb "$PERF" 2>err &&
	grep -x "hpcprof: '"'"'notdb'"'"': exists and is not a database (no experiment.xml); not replaced, choose another -o" err &&
	test "$(ls -A notdb)" = marker &&
	test "$(ls -a | grep -c "^\.notdb")" = 0
'

test_expect_success FIXTURES 'default name is hpctoolkit-PROGRAM-database' '
	hpcprof "$CPU" 2>err &&
	test -f hpctoolkit-testmeas-loops-database/experiment.xml &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" hpctoolkit-testmeas-loops-database/experiment.xml
'

test_expect_success FIXTURES 'CPUTIME totals add up over the four threads' '
	sed -n "/<SecCallPathProfileData>/,/<PF /p" hpctoolkit-testmeas-loops-database/experiment.xml |
		sed -n "s/.*<M n=\"0\" v=\"\([^\"]*\)\".*/\1/p" >total &&
	test_within "$(cat total)" 3.973308 0.0000005
'

test_expect_success FIXTURES 'a truncated profile is skipped with a warning, the rest still counted' '
	mkdir meas &&
	cp "$PERF"/*.hpcrun meas/ &&
	f=$(ls meas/*-003-*.hpcrun) &&
	head -c 3500 "$f" >cut && mv cut "$f" &&
	test_must_fail hpcprof -o db2 meas 2>err &&
	grep "warning: .*-003-.*truncated CCT section.*skipping it" err &&
	sed -n "/<SecCallPathProfileData>/,/<PF /p" db2/experiment.xml |
		grep -xE " *<M n=\"0\" v=\"2962500000\"/>"
'

test_expect_success FIXTURES 'profiles of another program join the experiment under its own node' '
	mkdir mixed &&
	cp "$PERF"/*-000-*.hpcrun mixed/a.hpcrun &&
	sed "s/testmeas-loops/xestmeas-loops/" "$PERF"/*-001-*.hpcrun >mixed/b.hpcrun &&
	hpcprof -o db3 mixed 2>err &&
	! grep skipping err &&
	grep -x "hpcprof: wrote '"'"'db3'"'"' (2 programs, 2 processes, 2 threads, [0-9]* scopes)" err &&
	cut -f 1,4 db3/threads.tsv >programs &&
	printf "# thread\tprogram\n0\ttestmeas-loops\n1\txestmeas-loops\n" >expect &&
	test_cmp expect programs &&
	for p in testmeas xestmeas; do
		i=$(xmllint --xpath "string(//Procedure[@n=\"<program $p-loops>\"]/@i)" db3/experiment.xml) &&
		test "$(xmllint --xpath "string(/HPCToolkitExperiment/SecCallPathProfile/SecCallPathProfileData/PF[@n=$i]/M[@n=0]/@v)" db3/experiment.xml)" = 987500000 || exit 1
	done
'

test_expect_success 'a directory without profiles is an error' '
	mkdir empty &&
	test_must_fail hpcprof -o db4 empty 2>err &&
	grep "no .hpcrun profiles" err &&
	! test -d db4
'

test_done
