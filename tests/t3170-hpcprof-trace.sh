#!/bin/sh
test_description='hpcprof keeps the call-path traces: traces/N.hpctrace with scope ids'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/trace-lib.sh"

# exits_with N CMD...: CMD exits with status N.
exits_with() {
	want=$1; shift
	"$@"; got=$?
	test "$got" = "$want" || { echo "exit status $got, expected $want: $*"; return 1; }
}

P0=meas/phases-000000-000-0-4242-0
P1=meas/phases-000000-001-0-4242-0

# Two threads of "phases" whose truth is known (as trace-lib.sh's):
#   thread 0: main > a 0-1 s, b 1-2 s, c 2-3 s (profile nodes 6, 8, 10)
#   thread 1: worker > x 1-1.6 s, y 1.6-2.2 s (nodes 6, 8), a wait in y
#             2.2-2.4 s
# a sample every 10 ms, from 1000 s.
test_expect_success 'setup: two profiles and their traces' '
	build_mkprofile && build_mktrace &&
	structure_file /nonexistent/phases /src/phases.c >prog.hpcstruct <<-\EOT &&
	<P i="3" n="main" l="30" v="{[0x1000-0x1001)}"><S i="4" l="32" v="{[0x1000-0x1100)}"/></P>
	<P i="5" n="a" l="10" v="{[0x2000-0x2001)}"><S i="6" l="11" v="{[0x2000-0x2100)}"/></P>
	<P i="7" n="b" l="14" v="{[0x3000-0x3001)}"><S i="8" l="15" v="{[0x3000-0x3100)}"/></P>
	<P i="9" n="c" l="18" v="{[0x4000-0x4001)}"><S i="10" l="19" v="{[0x4000-0x4100)}"/></P>
	<P i="11" n="worker" l="40" v="{[0x5000-0x5001)}"><S i="12" l="42" v="{[0x5000-0x5100)}"/></P>
	<P i="13" n="x" l="22" v="{[0x6000-0x6001)}"><S i="14" l="23" v="{[0x6000-0x6100)}"/></P>
	<P i="15" n="y" l="26" v="{[0x7000-0x7001)}"><S i="16" l="27" v="{[0x7000-0x7100)}"/></P>
	EOT
	mkdir meas &&
	./mkprofile $P0.hpcrun <<-\EOT &&
	header program-name phases
	header process-id 4242
	lm 1 /nonexistent/phases
	metric CPUTIME int
	thread 0
	node 2 0 0 ^Primary
	node 4 2 1 1005
	node 6 4 1 2005
	node 8 4 1 3005
	node 10 4 1 4005
	value 6 0 100
	value 8 0 100
	value 10 0 100
	EOT
	./mkprofile $P1.hpcrun <<-\EOT &&
	header program-name phases
	header process-id 4242
	lm 1 /nonexistent/phases
	metric CPUTIME int
	thread 1
	node 2 0 0 ^Primary
	node 4 2 1 5005
	node 6 4 1 6005
	node 8 4 1 7005
	value 6 0 60
	value 8 0 60
	EOT
	{
		trace_samples 0 1000 6 && trace_samples 1000 2000 8 &&
		trace_samples 2000 3000 10 && echo "1003000000000 -"
	} >trace0 &&
	{
		trace_samples 1000 1600 6 && trace_samples 1600 2200 8 &&
		echo "1002200000000 w8" && echo "1002400000000 -"
	} >trace1 &&
	./mktrace $P0.hpctrace <trace0 &&
	./mktrace $P1.hpctrace <trace1
'

# scope_of DB PROCEDURE: the id of the statement of PROCEDURE's frame in
# DB's call-path section (one line per scope, hpcprof-database(5)).
scope_of() {
	awk -v name="$2" '
		$0 ~ "<Procedure i=\"[0-9]+\" n=\"" name "\"" {
			split($0, f, "\""); proc = f[2]
		}
		/<SecCallPathProfileData>/ { data = 1 }
		/<\/SecCallPathProfileData>/ { data = 0 }
		data && $0 ~ "^<PF .* n=\"" proc "\"" { inpf = 1; next }
		data && inpf && /^<S / { split($0, f, "\""); print f[2]; exit }
	' "$1/experiment.xml"
}

# expected DB TRACE NODE=PROC...: the records of TRACE (mktrace text)
# with each profile node mapped to the scope of its procedure in DB.
expected() {
	db=$1 trace=$2 && shift 2 &&
	map= &&
	for m in "$@"; do
		map="$map ${m%%=*}=$(scope_of $db ${m#*=})" || return 1
	done &&
	awk -v map="$map" 'BEGIN {
		n = split(map, m, " ")
		for (i = 1; i <= n; i++) { split(m[i], kv, "="); s[kv[1]] = kv[2] }
	} {
		id = $2; w = ""
		if (id ~ /^w/) { w = "w"; id = substr(id, 2) }
		print $1, id == "-" ? "-" : w s[id]
	}' "$trace"
}

test_expect_success 'traces/N.hpctrace: every record, its id the scope of its procedure' '
	hpcprof -S prog.hpcstruct -o db meas 2>err &&
	test_must_fail grep -v "^hpcprof: wrote" err &&
	for p in a b c x y; do
		test -n "$(scope_of db $p)" || return 1
	done &&
	{ echo "trace 01.01 records 301" && expected db trace0 6=a 8=b 10=c; } >want0 &&
	hpcprof --dump db/traces/0.hpctrace >got0 &&
	test_cmp want0 got0 &&
	{ echo "trace 01.01 records 122" && expected db trace1 6=x 8=y; } >want1 &&
	hpcprof --dump db/traces/1.hpctrace >got1 &&
	test_cmp want1 got1 &&
	grep " w$(scope_of db y)$" got1
'

test_expect_success '-j 1 and -j 3 write the same database' '
	hpcprof -j 1 -S prog.hpcstruct -o db1 meas 2>err1 &&
	hpcprof -j 3 -S prog.hpcstruct -o db3 meas 2>err3 &&
	diff -r db1 db3 && diff -r db db1 &&
	sed s/db1/DB/ err1 >e1 && sed s/db3/DB/ err3 >e3 && test_cmp e1 e3
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi, one profile a rank: the same database' '
	mpi_as_hpcprof -S prog.hpcstruct meas &&
	test -f dbm/traces/1.hpctrace
'

test_expect_success 'the viewer shows main: a, b, c and the worker: x, y, its wait' '
	hpcviewer-tui --stdio --view trace db >view &&
	sed -n "s/^thread 0 |\(.*\)|$/\1/p" view | tr -s "abc" >row0 &&
	echo abc >want && test_cmp want row0 &&
	sed -n "s/^thread 1 |\(.*\)|$/\1/p" view | tr -s " xy=." >row1 &&
	echo " xy=." >want && test_cmp want row1
'

test_expect_success 'a profile without a trace has no file; one of another host is on rank 0 clock' '
	rm -rf db meas2 && cp -r meas meas2 &&
	rm meas2/${P0#meas/}.hpctrace &&
	printf "hpcsync: 1\nthread: 1\nrank: 1\nclock: 500000000000 1000 other-host\nepisodes: 0 0\n" \
		>meas2/${P1#meas/}.hpcsync &&
	hpcprof -S prog.hpcstruct -o db meas2 2>err &&
	! test -e db/traces/0.hpctrace &&
	hpcprof --dump db/traces/1.hpctrace >got &&
	sed -n 2p got >first && echo "501000000000 $(scope_of db x)" >want &&
	test_cmp want first &&
	test_line_count = 123 got
'

# bad_meas: meas3 of thread 0's profile with a trace cut inside its 3rd
# record, thread 1's naming node 99 at its 2nd, a copy of thread 0 whose
# 3rd record goes back in time, a trace without a profile, and a copy of
# thread 0 whose trace is no trace.
bad_meas() {
	rm -rf meas3 && mkdir meas3 &&
	cp $P0.hpcrun $P1.hpcrun meas3/ &&
	for n in 002 004; do
		cp $P0.hpcrun meas3/phases-000000-$n-0-4242-0.hpcrun || return 1
	done &&
	printf "1000 6\n2000 8\n3000 10\n4000 -\n" | ./mktrace full &&
	head -c 61 full >meas3/${P0#meas/}.hpctrace &&
	printf "1000 6\n2000 99\n3000 8\n4000 -\n" | ./mktrace meas3/${P1#meas/}.hpctrace &&
	printf "5000 6\n6000 8\n" | ./mktrace later &&
	printf "1000 6\n" | ./mktrace earlier &&
	{ cat later && tail -c +33 earlier; } >meas3/phases-000000-002-0-4242-0.hpctrace &&
	printf "1000 6\n" | ./mktrace meas3/phases-000000-003-0-4242-0.hpctrace &&
	echo junk >meas3/phases-000000-004-0-4242-0.hpctrace
}

test_expect_success 'bad traces: one line each naming the file, the records before kept' '
	bad_meas &&
	exits_with 1 hpcprof -S prog.hpcstruct -o db3b meas3 2>err &&
	Q="'\''" &&
	cat >want <<-EOF &&
	hpcprof: warning: ${Q}meas3/phases-000000-004-0-4242-0.hpctrace${Q}: not a trace file (5 bytes, shorter than its header); trace of this thread ignored
	hpcprof: warning: ${Q}meas3/phases-000000-000-0-4242-0.hpctrace${Q}: record 3: cut short (5 of 12 bytes); the 2 records before it are kept
	hpcprof: warning: ${Q}meas3/phases-000000-001-0-4242-0.hpctrace${Q}: record 2: unknown context id 99; the 1 records before it are kept
	hpcprof: warning: ${Q}meas3/phases-000000-002-0-4242-0.hpctrace${Q}: record 3: time 1000 before the previous record${Q}s 6000; the 2 records before it are kept
	hpcprof: warning: ${Q}meas3/phases-000000-003-0-4242-0.hpctrace${Q}: no profile ${Q}phases-000000-003-0-4242-0.hpcrun${Q} beside it; trace ignored
	hpcprof: wrote ${Q}db3b${Q} (1 process, 4 threads, 32 scopes)
	EOF
	test_cmp want err &&
	printf "trace 01.01 records 2\n1000 %s\n2000 %s\n" $(scope_of db3b a) $(scope_of db3b b) >want &&
	hpcprof --dump db3b/traces/0.hpctrace >got && test_cmp want got &&
	printf "trace 01.01 records 1\n1000 %s\n" $(scope_of db3b x) >want &&
	hpcprof --dump db3b/traces/1.hpctrace >got && test_cmp want got &&
	printf "trace 01.01 records 2\n5000 %s\n6000 %s\n" $(scope_of db3b a) $(scope_of db3b b) >want &&
	hpcprof --dump db3b/traces/2.hpctrace >got && test_cmp want got &&
	! test -e db3b/traces/3.hpctrace
'

test_expect_success 'bad traces with -j 3: the same lines, the same database' '
	exits_with 1 hpcprof -j 3 -S prog.hpcstruct -o db3c meas3 2>err3 &&
	sed s/db3b/DB/ err >e1 && sed s/db3c/DB/ err3 >e3 && test_cmp e1 e3 &&
	diff -r db3b db3c
'

test_expect_success HPCPROF_MPI 'bad traces with hpcprof-mpi: the same lines, the same database' '
	mpi_as_hpcprof -S prog.hpcstruct meas3
'

test_expect_success 'hpcprof --dump of a cut trace: the records kept, then what is wrong' '
	exits_with 1 hpcprof --dump meas3/${P0#meas/}.hpctrace >got 2>err &&
	printf "trace 01.01 records 2\n1000 6\n2000 8\n" >want &&
	test_cmp want got &&
	grep "^hpcprof: .*record 3: cut short" err
'

# An OpenMP worker's join wait (libomp through OMPT): its path is the
# master's call of the region, alone below the worker's root, and no
# sample of the worker passed through it (node 4).  A lock wait in y,
# which no sample was in, called by the worker (node 12).
test_expect_success 'a wait at a call no sample passed: the call site, in every trace' '
	rm -rf lone && mkdir lone &&
	cp $P0.hpcrun $P0.hpctrace lone/ &&
	./mkprofile lone/${P1#meas/}.hpcrun <<-\EOT &&
	header program-name phases
	header process-id 4242
	lm 1 /nonexistent/phases
	metric CPUTIME int
	thread 1
	node 2 0 0 ^Primary
	node 3 2 0 |_Thread
	node 4 3 1 1005
	node 6 3 1 5005
	node 8 6 1 6005
	node 12 6 1 7011
	value 8 0 50
	EOT
	{
		echo "1001000000000 w4" && trace_samples 1010 1500 8 &&
		echo "1001500000000 w12" && echo "1001550000000 w4" &&
		echo "1001600000000 -"
	} >tracew &&
	./mktrace lone/${P1#meas/}.hpctrace <tracew &&
	hpcprof -S prog.hpcstruct -o dbw lone 2>err &&
	test_must_fail grep -v "^hpcprof: wrote" err &&
	call_at() {
		sed -n "/<SecCallPathProfileData>/,\$s/^<C i=\"\([0-9]*\)\" s=\"[0-9]*\" l=\"$1\".*/\1/p" dbw/experiment.xml
	} &&
	main_call=$(call_at 32) && y_call=$(call_at 27) &&
	test $(echo $main_call $y_call | wc -w) = 2 &&
	hpcprof --dump dbw/traces/1.hpctrace >got &&
	{
		echo "trace 01.01 records 53" &&
		expected dbw tracew 8=x | sed "s/ w$/ w$main_call/; 51s/ w.*/ w$y_call/"
	} >want &&
	test_cmp want got &&
	hpcprof -j 2 -S prog.hpcstruct -o dbw2 lone 2>/dev/null &&
	diff -r dbw dbw2 &&
	hpcviewer-tui --stdio --view trace dbw >view 2>err &&
	! test -s err &&
	sed -n "s/^thread 1 |\(.*\)|$/\1/p" view | tr -s " =x." >row1 &&
	echo " =x=." >want && test_cmp want row1
'

test_expect_success HPCPROF_MPI 'a wait at a call no sample passed, with hpcprof-mpi: the same database' '
	mpi_as_hpcprof -S prog.hpcstruct lone
'

test_done
