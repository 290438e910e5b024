#!/bin/sh
test_description='hpcrun -t: per-thread call-path traces with the phases of a known program in order and at their times, through SIGKILL and fork'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq PYTHON3 'command -v python3'

# rt-trace (tests/progs/rt-trace.c): main a 0.4 s, b 0.6 s, barrier,
# c 0.4 s; a worker started with b: x 0.2 s, y 0.2 s, barrier.  Its stdout
# is the truth, "PHASE THREAD BEGIN END" in CLOCK_MONOTONIC ns.

test_expect_success 'setup: the test program' '
	cc -O0 -g -pthread -I"$TEST_PROGS" -o rt-trace "$TEST_PROGS/rt-trace.c" &&
	nm -S --defined-only rt-trace |
	awk "\$4 ~ /^(a|b|c|x|y)\$/ { print \$1, \$2, \$4 }" >syms &&
	test_line_count = 5 syms
'

# labels STEM: "TIME LABEL" per record of STEM.hpctrace, LABEL the phase
# function (a b c x y) first on the path from the record's node up, wait,
# none, or other; fails unless every id is a node of STEM.hpcrun.
labels() {
	hpcprof --dump "$1.hpcrun" >prof.txt &&
	hpcprof --dump "$1.hpctrace" >trace.txt &&
	awk -v exe="$PWD/rt-trace" '
		function hex(s,  i, v) {
			sub(/^0x/, "", s); v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		FILENAME == "syms" { lo[$3] = hex($1); hi[$3] = lo[$3] + hex($2); next }
		FILENAME == "prof.txt" && $1 == "lm" && $NF == "\"" exe "\"" { mod = $2; next }
		FILENAME == "prof.txt" && $1 == "node" {
			parent[$2] = $4; lm[$2] = $6; addr[$2] = $8; node[$2] = 1; next
		}
		FILENAME == "trace.txt" && FNR == 1 { next }
		FILENAME == "trace.txt" && $2 == "-" { print $1, "none"; next }
		FILENAME == "trace.txt" {
			id = $2; sub(/^w/, "", id)
			if (!(id in node)) { print "unknown node " id > "/dev/stderr"; bad = 1 }
			if ($2 ~ /^w/) { print $1, "wait"; next }
			l = "other"
			for (n = id; n != 0 && l == "other"; n = parent[n])
				if (lm[n] == mod && addr[n] ~ /^0x/)
					for (f in lo)
						if (hex(addr[n]) >= lo[f] && hex(addr[n]) < hi[f])
							l = f
			print $1, l
		}
		END { exit bad }' syms prof.txt trace.txt
}

# runs: from "TIME LABEL" lines, "LABEL BEGIN END" per run of one phase
# (none and other left out), END the time of the record after its last.
runs() {
	awk '
		cur != "" && $2 != cur && last { end = $1; last = 0 }
		cur != "" && $2 != cur && $2 != "none" && $2 != "other" {
			print cur, begin, end; cur = ""
		}
		cur == "" && $2 != "none" && $2 != "other" { cur = $2; begin = $1 }
		$2 == cur { last = 1 }
		END { if (cur != "") print cur, begin, (last ? "open" : end) }'
}

trace_of() {
	ls "$1"/rt-trace-*-"$2"-*.hpctrace | sed "s/\.hpctrace$//"
}

test_expect_success 'a trace per thread beside its profile, a known event said in the log' '
	hpcrun -t -o m ./rt-trace phases >truth &&
	test_line_count = 7 truth &&
	ls m/*.hpctrace >traces && test_line_count = 2 traces &&
	for t in $(cat traces); do
		test -f "${t%.hpctrace}.hpcrun" || return 1
	done &&
	grep -q "^trace: event perf::cpu-clock" m/*.log &&
	grep -q "^trace-threads: 2$" m/*.log
'

test_expect_success 'each trace parses, times never go back, it ends with no activity' '
	for t in $(cat traces); do
		hpcprof --dump "$t" >d || return 1
		awk "NR == 1 { print \$4 }" d >n &&
		test "$(cat n)" -gt 100 &&
		tail -n 1 d | grep -q " -$" &&
		awk "NR > 1 { if (\$1 < prev) exit 1; prev = \$1 }" d || return 1
	done
'

test_expect_success 'every id is a node of the thread profile' '
	labels "$(trace_of m 000)" >main.l &&
	labels "$(trace_of m 001)" >worker.l
'

test_expect_success 'main runs a, b, the barrier, c in that order; the worker x, y, then waits' '
	runs <main.l >main.runs && runs <worker.l >worker.runs &&
	cut -d" " -f1 main.runs | tr "\n" " " >seq && echo >>seq &&
	echo "a b wait c " >expect && test_cmp expect seq &&
	cut -d" " -f1 worker.runs | tr "\n" " " >seq &&  echo >>seq &&
	echo "x y wait " >expect && test_cmp expect seq
'

# phases_within: the runs of the traces (main.runs, worker.runs) begin
# and last as the program's truth says, within max(80 ms, 15%).  A thread
# kept off its CPU at a phase's edge for longer than that moves the edge
# in the trace (the first sample comes after 1 ms of its CPU time): on a
# busy machine the program is measured again, into its own files.
phases_within() {
	t=truth mr=main.runs wr=worker.runs
	if [ "$retry_run" -gt 1 ]; then
		t=truth$retry_run mr=main$retry_run.runs wr=worker$retry_run.runs
		rm -rf m$retry_run &&
		hpcrun -t -o m$retry_run ./rt-trace phases >$t &&
		labels "$(trace_of m$retry_run 000)" | runs >$mr &&
		labels "$(trace_of m$retry_run 001)" | runs >$wr || return 1
	fi
	awk "
		FILENAME == \"$t\" { th = \$2 == 0 ? \"m\" : \"w\"; b[th \$1] = \$3; e[th \$1] = \$4; next }
		FILENAME == \"$mr\" { k = \"m\" \$1 }
		FILENAME == \"$wr\" { k = \"w\" \$1 }
		{
			if (\$3 == \"open\") { print k, \"never ends\"; bad = 1; next }
			d = \$3 - \$2; t = e[k] - b[k]
			tol = t * 0.15 > 80e6 ? t * 0.15 : 80e6
			printf \"%s: trace %.0f ms at %.0f ms, truth %.0f ms at %.0f ms\\n\", k, d / 1e6, (\$2 - b[\"ma\"]) / 1e6, t / 1e6, (b[k] - b[\"ma\"]) / 1e6
			if (d - t > tol || t - d > tol || \$2 - b[k] > tol || b[k] - \$2 > tol) bad = 1
		}
		END { exit bad }" $t $mr $wr
}

test_expect_success 'each phase begins and lasts as it did, within max(80 ms, 15%)' '
	retry 3 phases_within
'

# The whole pipeline: hpcprof keeps the traces (traces/N.hpctrace, ids
# mapped to experiment.xml's scopes) and the trace view at the phases'
# depth (main > phase > a) shows each thread's phases in their order, and
# the one that waited at the barrier waiting: the worker, or main when a
# loaded machine slows the worker.
test_expect_success 'hpcprof and the trace view: main a, b, c; the worker x, y, then waits' '
	hpcprof -o db m 2>err &&
	ls db/traces >files && printf "0.hpctrace\n1.hpctrace\n" >expect &&
	test_cmp expect files &&
	hpcviewer-tui --stdio --view trace --depth 3 --width 0 db >view &&
	for th in 0 1; do
		sed -n "s/^thread $th |\(.*\)|$/\1/p" view |
		sed "s/[^abcxy=]//g; s/\(.\)\1*/\1/g" >row.$th || return 1
	done &&
	grep -qx "ab=\{0,1\}c" row.0 && grep -qx "xy=\{0,1\}" row.1 &&
	cat row.0 row.1 | grep -q "="
'

# The Perfetto export of the same database: each phase's slices, from the
# first one's begin to the last one's end, begin (after a's) and last as
# the program's truth says, within max(80 ms, 15%).
test_expect_success PYTHON3 'the Perfetto export: each phase begins and lasts as it did' '
	hpcviewer-tui --perfetto p.json db &&
	python3 -c "
import json, sys
truth = {}
for line in open(\"truth\"):
    k, th, b, e = line.split()
    truth[k] = (int(b) / 1e3, int(e) / 1e3)
span = {}
for ev in json.load(open(\"p.json\"))[\"traceEvents\"]:
    if ev[\"ph\"] == \"X\" and ev[\"name\"] in (\"a\", \"b\", \"c\", \"x\", \"y\"):
        b, e = ev[\"ts\"], ev[\"ts\"] + ev[\"dur\"]
        lo, hi = span.get(ev[\"name\"], (b, e))
        span[ev[\"name\"]] = (min(lo, b), max(hi, e))
bad = 0
for k in \"abcxy\":
    d, t = span[k][1] - span[k][0], truth[k][1] - truth[k][0]
    at, tat = span[k][0] - span[\"a\"][0], truth[k][0] - truth[\"a\"][0]
    tol = max(80e3, 0.15 * t)
    print(\"%s: export %.0f ms at %.0f ms, truth %.0f ms at %.0f ms\" % (k, d / 1e3, at / 1e3, t / 1e3, tat / 1e3))
    bad |= abs(d - t) > tol or abs(at - tat) > tol
sys.exit(bad)
"
'

# A SIGKILL while a buffer is being written stops the write at a page
# of the file (the kernel copies a page at a time and checks for a fatal
# signal before each): a trace ends on a record boundary or a page's.
# Killed, the thread writes no end record: a last record of no context
# is a gap's, one period after the sample before it (a thread preempted
# on a busy machine; its next sample went to the buffer the kill lost).
test_expect_success 'SIGKILL: the traces end on a record or page boundary, ids in the recovered profile' '
	{ hpcrun -t -o k ./rt-trace kill >/dev/null; test $? = 137; } &&
	ls k/*.hpctrace >traces && test_line_count = 2 traces &&
	for t in $(cat traces); do
		s=$(wc -c <"$t") &&
		{ test $(( (s - 32) % 12 )) = 0 || test $((s % 4096)) = 0; } ||
			return 1
	done &&
	hpcprof -o kdb k 2>err &&
	t=$(trace_of k 000) &&
	hpcprof --dump "$t.hpctrace" >d &&
	test "$(awk "NR == 1 { print \$4 }" d)" -ge 682 &&
	tail -n 2 d >last2 &&
	awk "NR == 1 { t = \$1 } NR == 2 && \$2 == \"-\" && \$1 != t + 1000000 { exit 1 }" last2 &&
	labels "$t" >k.l &&
	grep -q " a$" k.l
'

test_expect_success 'fork: the child writes its own trace under its own pid' '
	hpcrun -t -o f ./rt-trace fork >/dev/null &&
	ls f/*-000-*.hpctrace >traces && test_line_count = 2 traces &&
	for t in $(cat traces); do
		test -f "${t%.hpctrace}.hpcrun" &&
		hpcprof --dump "$t" >d || return 1
	done &&
	sed "s/.*-\([0-9]*\)-[0-9]*\.hpctrace$/\1/" traces | sort -u >pids &&
	test_line_count = 2 pids
'

test_expect_success 'exec: the trace of the old image is closed whole, the new image starts its own' '
	hpcrun -t -o ex /bin/sh -c "exec ./rt-trace phases" >/dev/null &&
	ls ex/*.hpctrace >traces && test_line_count = 3 traces &&
	ls ex/rt-trace-*.hpctrace >new && test_line_count = 2 new &&
	for t in $(cat traces); do
		test -f "${t%.hpctrace}.hpcrun" &&
		hpcprof --dump "$t" >d &&
		tail -n 1 d | grep -q " -$" || return 1
	done
'

# phases_of DIR THREAD GEN: the phases (a b c x y) of that trace in their
# order, one line; fails unless every id is a node of its profile and the
# trace ends with no activity (closed whole).
phases_of() {
	t=$(ls "$1"/rt-trace-*-"$2"-*-"$3".hpctrace) &&
	test -f "${t%.hpctrace}.hpcrun" &&
	hpcprof --dump "$t" >d && tail -n 1 d | grep -q " -$" &&
	labels "${t%.hpctrace}" >l &&
	runs <l | cut -d" " -f1 | tr "\n" " " && echo
}

# hpcprof's warnings but for the missing structure files and kernel
# lines, which every database of these tests has.
other_warnings() {
	grep warning "$1" |
	{ grep -v -e "no structure file" -e "without a structure file" \
		-e "kernel symbols only" || :; }
}

# rows VIEW: the phases of each row of the trace view, in its order, then
# "ordered" when each row of a thread ends before the next one of it
# begins (a generation's rows in the order the process ran them).
rows() {
	sed -n "s/^thread \([0-9]*\) |\(.*\)|$/\1 \2/p" "$1" | awk '
		{
			r = substr($0, length($1) + 2); s = ""
			for (i = 1; i <= length(r); i++) {
				ch = substr(r, i, 1)
				if (ch ~ /[abcxy]/ && ch != substr(s, length(s)))
					s = s ch
			}
			if (s == "") next
			print $1, s
			match(r, /[abcxy]/); first = RSTART
			match(r, /[abcxy][^abcxy]*$/); last = RSTART
			if ($1 in end && first <= end[$1]) bad = 1
			end[$1] = last
		}
		END { if (!bad) print "ordered" }'
}

test_expect_success 'a failed exec: the trace before it kept whole, the one after new' '
	hpcrun -t -o xf ./rt-trace execfail >/dev/null &&
	ls xf/*.hpctrace >traces && test_line_count = 2 traces &&
	phases_of xf 000 0 >seq &&
	echo "a " >expect && test_cmp expect seq &&
	phases_of xf 000 1 >seq &&
	echo "c " >expect && test_cmp expect seq &&
	grep -q "^trace-threads: 1$" xf/*-0.log &&
	grep -q "^trace-threads: 1$" xf/*-1.log
'

test_expect_success 'a failed exec: hpcprof keeps both traces, the view shows a, then c' '
	hpcprof -o xfdb xf 2>err &&
	other_warnings err >warn && test_line_count = 0 warn &&
	ls xfdb/traces >files && test_line_count = 2 files &&
	hpcviewer-tui --stdio --view trace --depth 3 --width 0 xfdb >view &&
	rows view >actual &&
	printf "0 a\n0 c\nordered\n" >expect && test_cmp expect actual
'

test_expect_success 'a failed exec in a thread: every generation of each thread traced apart' '
	hpcrun -t -o xt ./rt-trace execfail-thread >/dev/null &&
	ls xt/rt-trace-*.hpctrace >traces && test_line_count = 4 traces &&
	phases_of xt 000 0 >seq &&
	echo "a b " >expect && test_cmp expect seq &&
	phases_of xt 000 1 >seq &&
	echo "b " >expect && test_cmp expect seq &&
	phases_of xt 001 0 >seq &&
	echo "x " >expect && test_cmp expect seq &&
	phases_of xt 001 1 >seq &&
	echo "y " >expect && test_cmp expect seq
'

# The database holds two programs (rt-trace, then true): a program's
# level comes first, the phases one deeper.
test_expect_success 'a failed exec in a thread: hpcprof says nothing of the traces' '
	hpcprof -o xtdb xt 2>err &&
	other_warnings err >warn && test_line_count = 0 warn &&
	hpcviewer-tui --stdio --view trace --depth 4 --width 0 xtdb >view &&
	rows view >actual &&
	printf "0 ab\n0 b\n1 x\n1 y\nordered\n" >expect && test_cmp expect actual
'

test_expect_success 'a count event is not traced, and says so in one line' '
	hpcrun -t -e page-faults -o pf ./rt-trace phases >/dev/null 2>err &&
	grep "no time-based event" err >line && test_line_count = 1 line &&
	! ls pf/*.hpctrace 2>/dev/null &&
	hpcrun -t -e cpu-clock -e page-faults -o pf2 ./rt-trace phases >/dev/null 2>err &&
	grep "is not time-based" err >line && test_line_count = 1 line &&
	ls pf2/*.hpctrace >traces && test_line_count = 2 traces
'

# A worker of rt-nofile that works takes a sample or more; one that ends
# at once, none: it has no trace (hpcrun(5), "Trace files").
test_expect_success 'threads under RLIMIT_NOFILE 4: a trace each with records, no fd of the program taken' '
	cc -O2 -pthread -o rt-nofile "$TEST_PROGS/rt-nofile.c" &&
	echo "fd 3 in 300 of 300 opens" >expect &&
	hpcrun -t -o nf ./rt-nofile 300 >out &&
	test_cmp expect out &&
	ls nf/*.hpctrace >traces &&
	test $(wc -l <traces) -gt 1 &&
	test $(wc -l <traces) -lt 301 &&
	grep -q "^trace-cut: 0$" nf/*.log &&
	grep "^trace-threads: " nf/*.log >n &&
	echo "trace-threads: $(wc -l <traces)" >expect &&
	test_cmp expect n &&
	sed -n "s/^trace-records: //p" nf/*.log >expect &&
	stat -c %s $(cat traces) | awk "{ n += (\$1 - 32) / 12 } END { print n }" >actual &&
	test_cmp expect actual
'

test_expect_success 'a soft RLIMIT_FSIZE of 1 KiB neither cuts the traces nor signals the program' '
	(ulimit -S -f 1 && hpcrun -t -o lim ./rt-trace phases >out) &&
	test_line_count = 7 out &&
	t=$(trace_of lim 000) &&
	hpcprof --dump "$t.hpctrace" >d &&
	test "$(awk "NR == 1 { print \$4 }" d)" -gt 682 &&
	tail -n 1 d | grep -q " -$" &&
	grep -q "^trace-cut: 0$" lim/*.log
'

test_expect_success 'without -t no trace is written' '
	hpcrun -o plain ./rt-trace phases >/dev/null &&
	! ls plain/*.hpctrace 2>/dev/null
'

test_done
