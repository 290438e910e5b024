#!/bin/sh
test_description='hpcprof: a measurement directory of several programs (a process tree) is one experiment'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" "$DB/experiment.xml"; }
# The top-level program node of program $1.
PROG() { echo "/HPCToolkitExperiment/SecCallPathProfile/SecCallPathProfileData/PF[@n=//Procedure[@n=\"<program $1>\"]/@i]"; }
# incl% of program $2 in the Programs table of report $1.
prog_share() {
	awk -v p="$2" '/^Programs by/ { on = 1; next } on && /^$/ { exit }
		on && $NF == p { sub("%", "", $1); print $1; exit }' "$1"
}
# 100 * (seconds of $1) / (sum of the seconds) in truth file $2.
true_pct() {
	awk -v k="$1" '{ s += $2; if ($1 == k) v = $2 } END { printf "%.2f\n", 100 * v / s }' "$2"
}

# measured: spawn-main and the two programs it runs measured, the CPU
# seconds each had in truth, and each program's share of the profiles
# (hpcprof --text) within 3 points of its share of those seconds; so a
# timer stalled on a VM (retry, test-lib.sh) fails neither the
# measurement nor the tests of it below.
measured() {
	rm -rf hpctoolkit-spawn-main-measurements check &&
	hpcrun -o hpctoolkit-spawn-main-measurements ./spawn-main 200000000 >truth &&
	test_line_count = 3 truth &&
	hpcprof -o check --text check.txt hpctoolkit-spawn-main-measurements 2>/dev/null &&
	for p in spawn-main spawn-a spawn-b; do
		test_within "$(prog_share check.txt $p)" "$(true_pct $p truth)" 3 || return 1
	done
}

test_expect_success 'a program that runs two others through system() and fork+exec' '
	for p in spawn-main spawn-a spawn-b; do
		cc -O2 -g -o $p "$TEST_PROGS/pf-spawn.c" || exit 1
	done &&
	retry 2 measured &&
	ls hpctoolkit-spawn-main-measurements/spawn-a-*.hpcrun &&
	ls hpctoolkit-spawn-main-measurements/spawn-b-*.hpcrun
'

test_expect_success 'all programs go into one database, named for the one launched' '
	hpcprof --text report hpctoolkit-spawn-main-measurements 2>err &&
	! grep -i skipping err &&
	grep -E "^hpcprof: wrote .hpctoolkit-spawn-main-database. \([0-9]+ programs, [0-9]+ processes, [0-9]+ threads, [0-9]+ scopes\)$" err &&
	DB=hpctoolkit-spawn-main-database &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" $DB/experiment.xml &&
	test "$(X "string(/HPCToolkitExperiment/Header/@n)")" = spawn-main &&
	head -n 1 report >title &&
	grep -E "^hpcprof report: spawn-main, [0-9]+ programs, " title &&
	cut -f 4 $DB/threads.tsv | sort -u >programs &&
	grep -x spawn-main programs && grep -x spawn-a programs &&
	grep -x spawn-b programs
'

test_expect_success 'each program has its share: the Programs table, within 3 points of the truth' '
	for p in spawn-main spawn-a spawn-b; do
		test_within "$(prog_share report $p)" "$(true_pct $p truth)" 3 || exit 1
	done
'

test_expect_success 'each program has its calling contexts below its own node, main > run > work' '
	DB=hpctoolkit-spawn-main-database &&
	total=$(X "string(/HPCToolkitExperiment/SecCallPathProfile/SecCallPathProfileData/M[@n=0]/@v)") &&
	for p in spawn-main spawn-a spawn-b; do
		v=$(X "string($(PROG $p)/M[@n=0]/@v)") &&
		test_within "$(awk -v v=$v -v t=$total "BEGIN { print 100 * v / t }")" "$(true_pct $p truth)" 3 &&
		test "$(X "count($(PROG $p)/M[@n=1])")" = 0 &&
		test "$(X "count($(PROG $p)/PF[@n=//Procedure[@n=\"main\"]/@i]//PF[@n=//Procedure[@n=\"work\"]/@i])")" = 1 || exit 1
	done
'

# Exact values: prog-a ran two threads (300 + 100), prog-b one (550), and a
# third profile of prog-a is another process: the same pid on another host.
test_expect_success 'synthetic: shares, processes and threads exact' '
	build_mkprofile &&
	M=hpctoolkit-prog-a-measurements-3 && mkdir $M &&
	spec() { printf "header program-name %s\nheader process-id %s\nheader host-id %s\nheader program-path /nonexistent/%s\nlm 1 /nonexistent/%s\nmetric cyc int\nnode 2 0 1 1005\nvalue 2 0 %s\n" $1 $2 ${4:-00001234} $1 $1 $3; } &&
	spec prog-a 10 300 | ./mkprofile $M/prog-a-000000-000-00001234-10-0.hpcrun &&
	spec prog-a 10 100 | ./mkprofile $M/prog-a-000000-001-00001234-10-0.hpcrun &&
	spec prog-a 10 50 00005678 | ./mkprofile $M/prog-a-000000-000-00005678-10-0.hpcrun &&
	spec prog-b 11 550 | ./mkprofile $M/prog-b-000000-000-00001234-11-0.hpcrun &&
	hpcprof --text report2 $M 2>err &&
	grep -x "hpcprof: wrote '"'"'hpctoolkit-prog-a-database-3'"'"' (2 programs, 3 processes, 4 threads, [0-9]* scopes)" err &&
	sed -n "/^Programs by/,/^\$/p" report2 >programs2 &&
	cat >expect <<-\EOT &&
	Programs by inclusive cyc (each summed over its processes):
	  incl%      inclusive processes threads  program
	 55.00%            550         1       1  prog-b
	 45.00%            450         2       3  prog-a

	EOT
	test_cmp expect programs2 &&
	DB=hpctoolkit-prog-a-database-3 &&
	test "$(X "string(/HPCToolkitExperiment/Header/@n)")" = prog-a &&
	test "$(X "string($(PROG prog-a)/M[@n=0]/@v)")" = 450 &&
	test "$(X "string($(PROG prog-b)/M[@n=0]/@v)")" = 550 &&
	test "$(X "count($(PROG prog-a)/M[@n=1])")" = 0 &&
	test "$(X "string($(PROG prog-b)/@lm)")" = "$(X "string(//LoadModule[@n=\"/nonexistent/prog-b\"]/@i)")" &&
	test "$(X "count($(PROG prog-b)/@s)")" = 0 &&
	test "$(X "count(//SecFlatProfileData//P)")" = 2 &&
	test "$(X "string(//SecFlatProfileData/M[@n=0]/@v)")" = 1000
'

test_expect_success FIXTURES 'one program: no program node, as before' '
	hpcprof -o one "$FIXTURES/loops-perf.m" 2>err &&
	! grep "&lt;program" one/experiment.xml &&
	grep -x "hpcprof: wrote '"'"'one'"'"' (1 process, 4 threads, [0-9]* scopes)" err
'

test_done
