# trace-lib.sh - a database with traces, for the trace view's tests
# (sourced by tests/t4*-viewer-trace*.sh after test-lib.sh).
#
# trace_db DIR: a synthetic database (experiment.xml, threads.tsv and
# traces/0.hpctrace, traces/1.hpctrace written by tests/progs/tr-mktrace.c
# through lib/hpctrace-write.c) of program "phases" whose truth is known:
#   thread 0 (main):   a 0-1 s, b 1-2 s, c 2-3 s, ends at 3 s
#   thread 1 (worker, started with b): x 1-1.6 s, y 1.6-2.2 s, waits at a
#                      barrier in y 2.2-2.4 s, ends at 2.4 s
# a sample every 10 ms, times from 1000 s (the traces' clock).  Scope ids:
#   main 2 (line 30) > a 4 (phases.c:10, statement 5), b 7 (14, 8),
#   c 10 (18, 11); worker 12 (40) > x 14 (22, 15), y 17 (26, 18).

build_mktrace() {
	cc -I"$SRC_ROOT/lib" -o mktrace "$TEST_PROGS/tr-mktrace.c" "$HPC_BUILD/obj/libhpc.a" 2>/dev/null ||
	cc -fsanitize=address,undefined -I"$SRC_ROOT/lib" -o mktrace "$TEST_PROGS/tr-mktrace.c" "$HPC_BUILD/obj/libhpc.a"
}

# samples FROM_MS TO_MS ID: a record every 10 ms in [FROM, TO).
trace_samples() {
	awk -v from="$1" -v to="$2" -v id="$3" 'BEGIN {
		for (t = from; t < to; t += 10)
			printf "%.0f %s\n", 1000000000000 + t * 1000000, id
	}'
}

trace_db() {
	mkdir -p "$1/traces" &&
	cat >"$1/experiment.xml" <<-\EOT &&
	<?xml version="1.0"?>
	<HPCToolkitExperiment version="2.2">
	<Header n="phases"><Info/></Header>
	<SecCallPathProfile i="0" n="phases">
	<SecHeader>
	  <MetricTable>
	    <Metric i="0" n="CPUTIME (sec):Sum (I)" v="derived-incr" t="inclusive" partner="1" show="1" show-percent="1"/>
	    <Metric i="1" n="CPUTIME (sec):Sum (E)" v="derived-incr" t="exclusive" partner="0" show="1" show-percent="1"/>
	  </MetricTable>
	  <MetricDBTable/>
	  <LoadModuleTable><LoadModule i="0" n="/opt/app/bin/phases"/></LoadModuleTable>
	  <FileTable><File i="0" n="./src/phases.c"/></FileTable>
	  <ProcedureTable>
	    <Procedure i="0" n="main"/><Procedure i="1" n="a"/><Procedure i="2" n="b"/>
	    <Procedure i="3" n="c"/><Procedure i="4" n="worker"/><Procedure i="5" n="x"/>
	    <Procedure i="6" n="y"/>
	  </ProcedureTable>
	</SecHeader>
	<SecCallPathProfileData>
	<M n="0" v="4.2"/><M n="1" v="4.2"/>
	<PF i="2" s="2" l="30" lm="0" f="0" n="0">
	  <M n="0" v="3"/>
	  <C i="3" s="3" l="32"><M n="0" v="1"/>
	    <PF i="4" s="4" l="10" lm="0" f="0" n="1"><M n="0" v="1"/><M n="1" v="1"/>
	      <S i="5" s="5" l="11"><M n="0" v="1"/><M n="1" v="1"/></S></PF></C>
	  <C i="6" s="6" l="33"><M n="0" v="1"/>
	    <PF i="7" s="7" l="14" lm="0" f="0" n="2"><M n="0" v="1"/><M n="1" v="1"/>
	      <S i="8" s="8" l="15"><M n="0" v="1"/><M n="1" v="1"/></S></PF></C>
	  <C i="9" s="9" l="34"><M n="0" v="1"/>
	    <PF i="10" s="10" l="18" lm="0" f="0" n="3"><M n="0" v="1"/><M n="1" v="1"/>
	      <S i="11" s="11" l="19"><M n="0" v="1"/><M n="1" v="1"/></S></PF></C>
	</PF>
	<PF i="12" s="12" l="40" lm="0" f="0" n="4">
	  <M n="0" v="1.2"/>
	  <C i="13" s="13" l="42"><M n="0" v="0.6"/>
	    <PF i="14" s="14" l="22" lm="0" f="0" n="5"><M n="0" v="0.6"/><M n="1" v="0.6"/>
	      <S i="15" s="15" l="23"><M n="0" v="0.6"/><M n="1" v="0.6"/></S></PF></C>
	  <C i="16" s="16" l="43"><M n="0" v="0.6"/>
	    <PF i="17" s="17" l="26" lm="0" f="0" n="6"><M n="0" v="0.6"/><M n="1" v="0.6"/>
	      <S i="18" s="18" l="27"><M n="0" v="0.6"/><M n="1" v="0.6"/></S></PF></C>
	</PF>
	</SecCallPathProfileData>
	</SecCallPathProfile>
	</HPCToolkitExperiment>
	EOT
	printf "# thread\tprofile\tidentity\tprogram\tprocess\trank\tthread-id\n%s\n%s\n" \
		"0	phases-000000-000-0-4242-0.hpcrun	THREAD=0	phases	4242	0	0" \
		"1	phases-000000-001-0-4242-0.hpcrun	THREAD=1	phases	4242	0	1" \
		>"$1/threads.tsv" &&
	{
		trace_samples 0 1000 5 && trace_samples 1000 2000 8 &&
		trace_samples 2000 3000 11 && echo "1003000000000 -"
	} | ./mktrace "$1/traces/0.hpctrace" &&
	{
		trace_samples 1000 1600 15 && trace_samples 1600 2200 18 &&
		echo "1002200000000 w18" && echo "1002400000000 -"
	} | ./mktrace "$1/traces/1.hpctrace"
}
