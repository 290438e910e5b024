#!/bin/sh
test_description='hpcviewer-tui shows perf clock metrics in seconds, in headers, cells and CSV'
. "$(dirname "$0")/test-lib.sh"

# Metrics as hpcprof writes them for hpcrun's perf events (hpcrun(5)):
# cpu-clock in frequency mode (ep 1: values are nanoseconds), task-clock
# with a period (ep 1000000: values are samples of 1 ms), cycles (a count)
# and a coefficient of variation (a ratio).
mkdir db
cat >db/experiment.xml <<\EOT
<?xml version="1.0"?>
<HPCToolkitExperiment version="2.2"><Header n="units"/>
<SecCallPathProfile i="0" n="units"><SecHeader><MetricTable>
<Metric i="0" n="perf::cpu-clock:Sum (I)" md="PERF_COUNT_SW_CPU_CLOCK" v="derived-incr" ep="1" t="inclusive" partner="1" show="1" show-percent="1"/>
<Metric i="1" n="perf::cpu-clock:Sum (E)" md="PERF_COUNT_SW_CPU_CLOCK" v="derived-incr" ep="1" t="exclusive" partner="0" show="1" show-percent="1"/>
<Metric i="2" n="perf::cpu-clock:CoefVar (I)" md="PERF_COUNT_SW_CPU_CLOCK" v="final" ep="1" t="inclusive" show="1" show-percent="0"/>
<Metric i="3" n="perf::task-clock:Sum (I)" md="PERF_COUNT_SW_TASK_CLOCK" v="derived-incr" ep="1000000" t="inclusive" show="1" show-percent="1"/>
<Metric i="4" n="perf::cycles:Sum (I)" md="PERF_COUNT_HW_CPU_CYCLES" v="derived-incr" ep="1" t="inclusive" show="1" show-percent="1"/>
</MetricTable><LoadModuleTable><LoadModule i="0" n="/opt/units"/></LoadModuleTable>
<FileTable><File i="0" n="units.c"/></FileTable>
<ProcedureTable><Procedure i="0" n="main"/></ProcedureTable>
</SecHeader><SecCallPathProfileData>
<PF i="2" n="0" lm="0" f="0" l="1"><M n="0" v="62100000000"/><M n="1" v="62100000000"/><M n="2" v="0.5"/><M n="3" v="5"/><M n="4" v="123456789"/>
<S i="3" l="2"><M n="0" v="2000000000"/><M n="1" v="2000000000"/><M n="3" v="5"/></S>
</PF>
</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
EOT

test_expect_success 'text: headings state seconds, cells hold seconds' '
	hpcviewer-tui --stdio --width 0 --metrics all --depth 1 db >out &&
	cat >expect <<-\EOT &&
	perf::cpu-clock (s):Sum (I)  perf::cpu-clock (s):Sum (E)  perf::cpu-clock:CoefVar (I)  perf::task-clock (s):Sum (I)  perf::cycles:Sum (I)  Scope (top-down)
	            6.21e+01 100.0%              6.21e+01 100.0%                     5.00e-01               5.00e-03 100.0%       1.23e+08 100.0%  - Experiment Aggregate Metrics
	            6.21e+01 100.0%              6.21e+01 100.0%                     5.00e-01               5.00e-03 100.0%       1.23e+08 100.0%    + main
	EOT
	test_cmp expect out
'

test_expect_success 'CSV: the same headings, machine-readable seconds' '
	hpcviewer-tui --csv db >out &&
	cat >expect <<-\EOT &&
	depth,kind,scope,file,line,perf::cpu-clock (s):Sum (I),perf::cpu-clock (s):Sum (I) %,perf::cpu-clock (s):Sum (E),perf::cpu-clock (s):Sum (E) %,perf::cpu-clock:CoefVar (I),perf::cpu-clock:CoefVar (I) %,perf::task-clock (s):Sum (I),perf::task-clock (s):Sum (I) %,perf::cycles:Sum (I),perf::cycles:Sum (I) %
	0,root,Experiment Aggregate Metrics,,,62.1,100.00,62.1,100.00,0.5,,0.005,100.00,123456789,100.00
	1,procedure,main,units.c,1,62.1,100.00,62.1,100.00,0.5,,0.005,100.00,123456789,100.00
	2,line,units.c:2,units.c,2,2,3.22,2,3.22,0,,0.005,100.00,0,0.00
	EOT
	test_cmp expect out
'

test_expect_success 'metric names stay as in the database for --metric and derived columns' '
	hpcviewer-tui --stdio --depth 1 --metric "perf::cpu-clock:Sum (E)" db >out &&
	head -n 1 out | grep -q "^perf::cpu-clock (s):Sum (I)  "
'

test_done
