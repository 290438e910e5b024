#!/bin/sh
test_description='hpcprof --text shows perf clocks in seconds, by the viewer'"'"'s one rule (lib/units.h)'
. "$(dirname "$0")/test-lib.sh"

# One thread of "units", metrics as hpcrun records them (hpcrun(5)):
# cpu-clock with a period (1234 samples of 1 ms: 1.234 s), task-clock in
# frequency mode (ep 1: 2500000000 ns, 2.5 s), CPUTIME (its name says
# seconds) and page-faults (a count).  Node 3 is called from node 2.
test_expect_success 'a synthetic profile with known samples and periods' '
	build_mkprofile &&
	mkdir m &&
	cat >spec <<-\EOT &&
	header program-name units
	header process-id 10
	header host-id 00001234
	header program-path /nonexistent/units
	lm 1 /nonexistent/units
	metric perf::cpu-clock int 1000000 PERF_COUNT_SW_CPU_CLOCK
	metric perf::task-clock int 1 PERF_COUNT_SW_TASK_CLOCK
	metric "CPUTIME (sec)" real 1 "CPUTIME (sec)"
	metric perf::page-faults int 1 PERF_COUNT_SW_PAGE_FAULTS
	node 2 0 1 1005
	node 3 2 1 1010
	value 2 0 234
	value 2 1 500000000
	value 2 2 0.25
	value 2 3 7
	value 3 0 1000
	value 3 1 2000000000
	value 3 2 1.5
	value 3 3 30
	EOT
	./mkprofile m/units-000000-000-00001234-10-0.hpcrun <spec &&
	hpcprof --text report -o db m 2>err &&
	grep -x "hpcprof: wrote '"'"'db'"'"' (1 process, 1 thread, [0-9]* scopes)" err
'

# The lines of report $1 from "Metric $2:" ($2: the label as shown) to
# the end of its procedures table.
procedures() {
	awk -v m="Metric $2:" 'index($0, m) == 1 { on = 1 } on { print }
		on && /^Top procedures/ { t = 1 } on && t && /^$/ { exit }' "$1"
}

test_expect_success 'cpu-clock: 1234 samples of 1 ms are 1.234 s, the unit in every heading' '
	procedures report "perf::cpu-clock (s)" >actual &&
	cat >expect <<-\EOT &&
	Metric perf::cpu-clock (s): total 1.234

	Top procedures by exclusive perf::cpu-clock (s):
	  excl%  exclusive (s)   incl%  inclusive (s)  procedure [file:line] in module
	 81.04%              1  81.04%              1  <unknown> 0x1010 [units] [units+0x1010] in units
	 18.96%          0.234  18.96%          0.234  <unknown> 0x1005 [units] [units+0x1005] in units
	  0.00%              0  81.04%              1  <unknown> 0x1004 [units] [units+0x1004] in units

	EOT
	test_cmp expect actual &&
	grep -x "Top loops by inclusive perf::cpu-clock (s):" report &&
	grep -x "Top lines by exclusive perf::cpu-clock (s):" report &&
	test $(grep -c "^  excl%  exclusive (s)   incl%  inclusive (s)  " report) = 6
'

test_expect_success 'task-clock in frequency mode: 2500000000 ns are 2.5 s' '
	procedures report "perf::task-clock (s)" >actual &&
	sed -n "1p;5,6p" actual >rows &&
	cat >expect <<-\EOT &&
	Metric perf::task-clock (s): total 2.5
	 80.00%              2  80.00%              2  <unknown> 0x1010 [units] [units+0x1010] in units
	 20.00%            0.5  20.00%            0.5  <unknown> 0x1005 [units] [units+0x1005] in units
	EOT
	test_cmp expect rows
'

test_expect_success 'CPUTIME (sec) and page-faults keep their units and values' '
	procedures report "CPUTIME (sec)" >actual &&
	cat >expect <<-\EOT &&
	Metric CPUTIME (sec): total 1.75

	Top procedures by exclusive CPUTIME (sec):
	  excl%      exclusive   incl%      inclusive  procedure [file:line] in module
	 85.71%            1.5  85.71%            1.5  <unknown> 0x1010 [units] [units+0x1010] in units
	 14.29%           0.25  14.29%           0.25  <unknown> 0x1005 [units] [units+0x1005] in units
	  0.00%              0  85.71%            1.5  <unknown> 0x1004 [units] [units+0x1004] in units

	EOT
	test_cmp expect actual &&
	procedures report perf::page-faults >actual &&
	sed -n "1,4p" actual >rows &&
	cat >expect <<-\EOT &&
	Metric perf::page-faults: total 37

	Top procedures by exclusive perf::page-faults:
	  excl%      exclusive   incl%      inclusive  procedure [file:line] in module
	EOT
	test_cmp expect rows &&
	grep -x " 81.08%             30  81.08%             30  <unknown> 0x1010 \[units\] \[units+0x1010\] in units" report
'

test_expect_success 'the database keeps nanoseconds and samples; the viewer shows the same seconds' '
	test "$(xmllint --xpath "string(//Metric[@n=\"perf::cpu-clock:Sum (I)\"]/@ep)" db/experiment.xml)" = 1000000 &&
	test "$(xmllint --xpath "string(//SecCallPathProfileData/M[@n=0]/@v)" db/experiment.xml)" = 1234 &&
	hpcviewer-tui --csv db >csv &&
	head -n 2 csv | cut -d, -f 6,10,14,18 >actual &&
	cat >expect <<-\EOT &&
	perf::cpu-clock (s):Sum (I),perf::task-clock (s):Sum (I),CPUTIME (sec):Sum (I),perf::page-faults:Sum (I)
	1.234,2.5,1.75,37
	EOT
	test_cmp expect actual
'

test_expect_success 'the programs of a process tree: their shares in seconds' '
	mkdir t &&
	for p in "make 20 300" "cc1 21 1700"; do
		set -- $p &&
		sed -e "s/units/$1/; s/process-id 10/process-id $2/" \
		    -e "/^node 3/d; /^value 3/d; /^value 2 1 /d; /^value 2 2 /d; /^value 2 3 /d" \
		    -e "s/^value 2 0 .*/value 2 0 $3/" spec |
		./mkprofile t/$1-000000-000-00001234-$2-0.hpcrun || exit 1
	done &&
	hpcprof --text report2 -o db2 t 2>err &&
	sed -n "/^Programs by inclusive perf::cpu-clock/,/^\$/p" report2 >actual &&
	cat >expect <<-\EOT &&
	Programs by inclusive perf::cpu-clock (s) (each summed over its processes):
	  incl%  inclusive (s) processes threads  program
	 85.00%            1.7         1       1  cc1
	 15.00%            0.3         1       1  make

	EOT
	test_cmp expect actual
'

test_done
