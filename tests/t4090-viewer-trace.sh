#!/bin/sh
test_description='hpcviewer-tui --view trace, --perfetto and --firefox: threads over time from a database'"'"'s traces/'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/trace-lib.sh"

test_expect_success 'setup: a database whose traces are known (trace-lib.sh)' '
	build_mktrace &&
	trace_db db
'

# 60 columns of 50 ms over 3 s: main a, b, c in thirds; the worker from
# 1 s: x for 12 columns, y for 12, waits for 4, then no activity.
test_expect_success '--stdio --view trace: a row per thread, phases in order at their columns' '
	hpcviewer-tui --stdio --view trace --width 71 db >actual &&
	cat >expect <<-\EOT &&
	trace: 2 threads, 3 s in 60 columns of 0.05 s, deepest frames
	thread 0 |aaaaaaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbbbbbcccccccccccccccccccc|
	thread 1 |                    xxxxxxxxxxxxyyyyyyyyyyyy====............|
	          0 s                                                      3 s
	legend: share of the 88 cells with a sample; = waiting, . no activity
	  a   22.7%  a  phases.c:10
	  b   22.7%  b  phases.c:14
	  c   22.7%  c  phases.c:18
	  y   18.2%  y  phases.c:26
	  x   13.6%  x  phases.c:22
	EOT
	test_cmp expect actual
'

test_expect_success '--depth 1: the outermost frames' '
	hpcviewer-tui --stdio --view trace --width 31 --depth 1 db >actual &&
	cat >expect <<-\EOT &&
	trace: 2 threads, 3 s in 20 columns of 0.15 s, call-path depth 1
	thread 0 |mmmmmmmmmmmmmmmmmmmm|
	thread 1 |       wwwwwwww=....|
	          0 s              3 s
	legend: share of the 29 cells with a sample; = waiting, . no activity
	  m   69.0%  main  phases.c:30
	  w   31.0%  worker  phases.c:40
	EOT
	test_cmp expect actual
'

# slices FILE: "tid name cat begin-us duration-us src" per slice, by
# thread and begin; then the names of processes and threads.
slices() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
out = []
names = {}
for e in d["traceEvents"]:
    key = (e["pid"], e["tid"])
    if e["ph"] == "M":
        names[(key, e["name"])] = e["args"]["name"]
    else:
        assert e["ph"] == "X" and e["dur"] >= 0
        out.append((e["tid"], e["ts"], -e["dur"], e["name"], e["cat"], e["args"]["src"]))
for tid, ts, dur, name, cat, src in sorted(out):
    print(tid, name, cat, "%.0f" % ts, "%.0f" % -dur, src)
for (key, what), name in sorted(names.items()):
    print(key[0], key[1], what, name)
' "$1"
}

test_expect_success '--perfetto: Chrome trace-event JSON, nested slices at their times' '
	hpcviewer-tui --perfetto p.json db &&
	slices p.json >actual &&
	cat >expect <<-\EOT &&
	0 main cpu 0 3000000 phases.c:30
	0 a cpu 0 1000000 phases.c:10
	0 b cpu 1000000 1000000 phases.c:14
	0 c cpu 2000000 1000000 phases.c:18
	1 worker cpu 1000000 1400000 phases.c:40
	1 x cpu 1000000 600000 phases.c:22
	1 y cpu 1600000 600000 phases.c:26
	1 y wait 2200000 200000 phases.c:26
	4242 0 process_name phases (process 4242)
	4242 0 thread_name thread 0
	4242 1 process_name phases (process 4242)
	4242 1 thread_name thread 1
	EOT
	test_cmp expect actual
'

test_expect_success '--perfetto --depth 1: one level of slices' '
	hpcviewer-tui --perfetto p1.json --depth 1 db &&
	slices p1.json | grep -v _name >actual &&
	cat >expect <<-\EOT &&
	0 main cpu 0 3000000 phases.c:30
	1 worker cpu 1000000 1200000 phases.c:40
	1 worker wait 2200000 200000 phases.c:40
	EOT
	test_cmp expect actual
'

test_expect_success '--time-range: the text and both exports hold that window only' '
	hpcviewer-tui --stdio --view trace --width 71 --time-range 2: db >actual &&
	cat >expect <<-\EOT &&
	trace: 2 threads, 2 s to 3 s, 1 s in 60 columns of 0.0166667 s, deepest frames
	thread 0 |cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc|
	thread 1 |yyyyyyyyyyyy============....................................|
	          2 s                                                      3 s
	legend: share of the 84 cells with a sample; = waiting, . no activity
	  c   71.4%  c  phases.c:18
	  y   28.6%  y  phases.c:26
	EOT
	test_cmp expect actual &&
	hpcviewer-tui --perfetto pw.json --firefox fw.json --time-range 0.5:2.5 db &&
	slices pw.json | grep -v _name >actual &&
	cat >expect <<-\EOT &&
	0 main cpu 500000 2000000 phases.c:30
	0 a cpu 500000 500000 phases.c:10
	0 b cpu 1000000 1000000 phases.c:14
	0 c cpu 2000000 500000 phases.c:18
	1 worker cpu 1000000 1400000 phases.c:40
	1 x cpu 1000000 600000 phases.c:22
	1 y cpu 1600000 600000 phases.c:26
	1 y wait 2200000 200000 phases.c:26
	EOT
	test_cmp expect actual &&
	python3 -c "
import json
for t in json.load(open(\"fw.json\"))[\"threads\"]:
    s = t[\"samples\"][\"data\"]
    print(len(s), s[0][1], s[-1][1])
" >actual &&
	printf "201 500.0 2500.0\n122 1000.0 2400.0\n" >expect &&
	test_cmp expect actual
'

test_expect_success '--time-range: windows without time and other views refused' '
	{ hpcviewer-tui --stdio --view trace --time-range 5:6 db 2>err; echo $? >rc; } && test $(cat rc) = 1 &&
	grep -q "from 5 s: the traces hold 3 s" err &&
	{ hpcviewer-tui --stdio --view trace --time-range 2:1 db 2>err; echo $? >rc; } && test $(cat rc) = 1 &&
	{ hpcviewer-tui --stdio --view trace --time-range 1 db 2>err; echo $? >rc; } && test $(cat rc) = 1 &&
	grep -q "wants FROM:TO" err &&
	{ hpcviewer-tui --stdio --time-range 1:2 db 2>err; echo $? >rc; } && test $(cat rc) = 2
'

test_expect_success '--firefox: a Gecko profile, samples with stacks, functions with file and line' '
	hpcviewer-tui --firefox f.json db &&
	python3 -c "
import json
d = json.load(open(\"f.json\"))
for t in d[\"threads\"]:
    s = t[\"samples\"][\"data\"]
    st, fr, strs = t[\"stackTable\"][\"data\"], t[\"frameTable\"][\"data\"], t[\"stringTable\"]
    def path(i):
        return \"\" if i is None else (path(st[i][0]) + \">\" if st[i][0] is not None else \"\") + strs[fr[st[i][1]][0]]
    print(t[\"name\"], t[\"pid\"], len(s))
    for i in (0, 1, len(s) // 2, len(s) - 2, len(s) - 1):
        print(\"%.1f\" % s[i][1], path(s[i][0]))
" >actual &&
	cat >expect <<-\EOT &&
	thread 0 4242 301
	0.0 main (phases.c:30)>a (phases.c:10)
	10.0 main (phases.c:30)>a (phases.c:10)
	1500.0 main (phases.c:30)>b (phases.c:14)
	2990.0 main (phases.c:30)>c (phases.c:18)
	3000.0 
	thread 1 4242 122
	1000.0 worker (phases.c:40)>x (phases.c:22)
	1010.0 worker (phases.c:40)>x (phases.c:22)
	1610.0 worker (phases.c:40)>y (phases.c:26)
	2200.0 worker (phases.c:40)>y (phases.c:26)
	2400.0 
	EOT
	test_cmp expect actual
'

test_expect_success 'past a million slices the Perfetto export says so in one line' '
	mkdir -p many/traces &&
	cp db/experiment.xml db/threads.tsv many/ &&
	awk "BEGIN { for (i = 0; i < 1000002; i++) print 1000 + i * 1000, i % 2 ? 8 : 5 }" |
		./mktrace many/traces/0.hpctrace &&
	hpcviewer-tui --perfetto - --depth 2 many >/dev/null 2>err &&
	echo "hpcviewer-tui: warning: standard output: 1000002 slices; chrome://tracing slows past about 1000000 (ui.perfetto.dev takes more): --depth or --time-range write fewer" >expect &&
	test_cmp expect err &&
	hpcviewer-tui --perfetto many.json --depth 2 many 2>err &&
	grep -q "^hpcviewer-tui: warning: .many.json.: 1000002 slices;" err &&
	hpcviewer-tui --perfetto - --depth 1 many >/dev/null 2>err &&
	! test -s err
'

test_expect_success 'names with quotes, backslashes and tabs are JSON strings in both exports' '
	mkdir names &&
	cp -r db/threads.tsv db/traces names/ &&
	cat >rename.py <<-\EOT &&
	xml = open("db/experiment.xml", encoding="utf-8").read()
	# b becomes: b, a quote, a backslash, a tab, "<", e acute
	xml = xml.replace("n=\"b\"/>", "n=\"b&quot;\\&#9;&lt;\u00e9\"/>")
	open("names/experiment.xml", "w", encoding="utf-8").write(xml)
	EOT
	python3 rename.py &&
	hpcviewer-tui --perfetto pn.json --firefox fn.json names &&
	cat >check.py <<-\EOT &&
	import json
	want = "b\"\\\t<\u00e9"
	p = json.load(open("pn.json", encoding="utf-8"))
	got = [e["name"] for e in p["traceEvents"]
	       if e["ph"] == "X" and e["tid"] == 0 and e["ts"] == 1000000]
	assert got == [want], got
	f = json.load(open("fn.json", encoding="utf-8"))
	assert want + " (phases.c:14)" in f["threads"][0]["stringTable"]
	EOT
	python3 check.py
'

test_expect_success 'a bad trace is named in one line, the rest is shown, exit 1' '
	cp -r db bad &&
	head -c 100 db/traces/1.hpctrace >bad/traces/1.hpctrace &&
	{ hpcviewer-tui --stdio --view trace --width 71 bad >out 2>err; echo $? >rc; } && test $(cat rc) = 1 &&
	grep -q "^hpcviewer-tui: .*bad/traces/1.hpctrace.: record 6: cut short (8 of 12 bytes); the 5 records before it are kept\$" err &&
	test $(wc -l <err) = 1 &&
	grep -q "^thread 0 |aaaa" out &&
	grep -q "^thread 1 |                    xx" out
'

test_expect_success 'unknown context ids, times out of order and a file that is no trace' '
	cp -r db bad2 &&
	{ echo "1000000000000 5" && echo "1000500000000 99" && echo "1000600000000 2147483647" &&
	  echo "1001000000000 8" && echo "1001500000000 -"; } | ./mktrace bad2/traces/0.hpctrace &&
	{ echo "1000000000000 15" && echo "999000000000 18"; } | ./mktrace bad2/traces/1.hpctrace &&
	echo "not a trace" >bad2/traces/2.hpctrace &&
	{ hpcviewer-tui --stdio --view trace --width 41 bad2 >out 2>err; echo $? >rc; } && test $(cat rc) = 1 &&
	grep -q "0.hpctrace.: 2 records name no scope of the database (the first: id 99), shown as no activity\$" err &&
	grep -q "2.hpctrace.: not a trace file (12 bytes, shorter than its header)" err &&
	test $(wc -l <err) = 2 &&
	grep -x "thread 0 |aaaaaaaaaa..........bbbbbbbbbb|" out
'

test_expect_success 'no traces: said, exit 1; --csv and other views refused' '
	{ hpcviewer-tui --stdio --view trace "$TEST_DATA/viewer/small-db" 2>err; echo $? >rc; } && test $(cat rc) = 1 &&
	grep -q "no traces in this database" err &&
	{ hpcviewer-tui --csv --view trace db 2>err; echo $? >rc; } && test $(cat rc) = 2 &&
	{ hpcviewer-tui --perfetto x.json --view flat db 2>err; echo $? >rc; } && test $(cat rc) = 2 &&
	{ hpcviewer-tui --perfetto - --firefox - db 2>err; echo $? >rc; } && test $(cat rc) = 2
'

test_done
