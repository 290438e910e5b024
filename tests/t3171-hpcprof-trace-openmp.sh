#!/bin/sh
test_description='hpcrun -t of an OpenMP program (clang, libomp through OMPT; gcc, libgomp): every thread in the database'"'"'s traces, views and exports, the waits at the regions'"'"' calls or in their outlined functions'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq LIBOMP 'echo "int main(void){return 0;}" >omp.c && clang -fopenmp=libomp -o omp omp.c'
test_lazy_prereq GOMP 'echo "int main(void){return 0;}" >gomp.c && cc -fopenmp -o gomp gomp.c'
test_lazy_prereq PYTHON3 'command -v python3'

# rt-omp-trace (tests/progs/rt-omp-trace.c): main initializes, then 40
# sweeps of a static and a dynamic parallel loop, each followed by main
# reading the result alone; 2 threads, so the worker waits in libomp
# from each join to the next region.
test_expect_success LIBOMP 'setup: measured with -t on 2 threads, the output as without hpcrun' '
	clang -O2 -g -fopenmp=libomp -o rt-omp-trace "$TEST_PROGS/rt-omp-trace.c" &&
	OMP_NUM_THREADS=2 ./rt-omp-trace >truth &&
	OMP_NUM_THREADS=2 hpcrun -t --no-kernel -o m ./rt-omp-trace >out 2>/dev/null &&
	test_cmp truth out &&
	ls m/*.hpctrace >traces && test_line_count = 2 traces &&
	hpcstruct m 2>/dev/null
'

test_expect_success LIBOMP 'hpcprof says only what it wrote; -j 1 and -j 2 write the same' '
	hpcprof -j 1 -o db m 2>err &&
	test_must_fail grep -v "^hpcprof: wrote" err &&
	test -f db/traces/0.hpctrace && test -f db/traces/1.hpctrace &&
	hpcprof -j 2 -o db2 m 2>/dev/null &&
	diff -r db db2
'

test_expect_success LIBOMP,HPCPROF_MPI 'hpcprof-mpi writes the same' '
	mpi_as_hpcprof m
'

test_expect_success LIBOMP 'the trace view: both threads, the worker waiting, nothing said' '
	hpcviewer-tui --stdio --view trace db >view 2>err &&
	! test -s err &&
	grep "^trace: 2 threads, " view &&
	sed -n "s/^thread 0 |\(.*\)|$/\1/p" view >row0 &&
	sed -n "s/^thread 1 |\(.*\)|$/\1/p" view >row1 &&
	grep "[a-zA-Z]" row0 &&
	grep "=" row1
'

# wait_scopes DB THREAD: "KIND PROCEDURE LINE" of each scope the wait
# records of THREAD's trace name in DB's call-path section.
wait_scopes() {
	hpcprof --dump "$1/traces/$2.hpctrace" | sed -n "s/^[0-9]* w//p" | sort -u >ids &&
	python3 - "$1/experiment.xml" ids <<-\EOT
	import sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	procs = {p.get("i"): p.get("n") for p in root.iter("Procedure")}
	where = {}
	def walk(n, pf):
	    for c in n:
	        if c.tag == "PF":
	            where[c.get("i")] = ("PF", procs[c.get("n")], c.get("l"))
	            walk(c, procs[c.get("n")])
	        elif c.tag in ("C", "S", "L", "A"):
	            where[c.get("i")] = (c.tag, pf, c.get("l"))
	            walk(c, pf)
	walk(root.find(".//SecCallPathProfileData"), None)
	for i in open(sys.argv[2]).read().split():
	    print(*where.get(i, ("unknown", i, "-")))
	EOT
}

test_expect_success LIBOMP,PYTHON3 'the worker waits at the calls of the regions in main, as the master does' '
	grep -n "^#pragma omp parallel for" "$TEST_PROGS/rt-omp-trace.c" |
		sed "s/^\([0-9]*\):.*/C main \1/" | sort >want &&
	test_line_count = 2 want &&
	wait_scopes db 1 | sort >got1 &&
	test_cmp want got1 &&
	wait_scopes db 0 | sort >got0 &&
	test_cmp want got0
'

# The wait hpcprof adds below a region's call (phases.c) is at that call,
# the instruction before its return address, as the trace's records are.
test_expect_success LIBOMP,PYTHON3 'each wait below main is at the call of a region, not the next line' '
	grep -n "^#pragma omp parallel for" "$TEST_PROGS/rt-omp-trace.c" |
		sed "s/^\([0-9]*\):.*/\1/" >lines &&
	python3 - db/experiment.xml lines <<-\EOT
	import sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	procs = {p.get("i"): p.get("n") for p in root.iter("Procedure")}
	want = set(open(sys.argv[2]).read().split())
	found = []
	def walk(n, pf, call):
	    for c in n:
	        if c.tag == "PF":
	            name = procs[c.get("n")]
	            if name.startswith("<wait in") and pf == "main":
	                found.append(call)
	            walk(c, name, None)
	        else:
	            walk(c, pf, c.get("l") if c.tag == "C" else call)
	walk(root.find(".//SecCallPathProfileData"), None, None)
	assert found and set(found) <= want, (found, want)
	EOT
'

test_expect_success LIBOMP,PYTHON3 'the Perfetto and Firefox exports hold both threads, the worker waiting' '
	hpcviewer-tui --perfetto p.json --firefox f.json db 2>err &&
	! test -s err &&
	python3 - <<-\EOT
	import json
	p = json.load(open("p.json"))
	slices = [e for e in p["traceEvents"] if e["ph"] == "X"]
	assert {e["tid"] for e in slices} == {0, 1}, "perfetto threads"
	assert any(e["tid"] == 1 and e["cat"] == "wait" and e["name"] == "main"
	           for e in slices), "no wait of the worker in main"
	f = json.load(open("f.json"))
	assert [t["name"] for t in f["threads"]] == ["thread 0", "thread 1"]
	for t in f["threads"]:
	    assert any(s[0] is not None for s in t["samples"]["data"]), t["name"]
	EOT
'

# libgomp has no OMPT: its joins are measured around GOMP_parallel
# (sync-interpose.c), each thread's wait with the outlined function as
# its leaf, below the master's call (sync-region.c).
test_expect_success GOMP,PYTHON3 'gcc, libgomp: both threads, every wait in the outlined function at its #pragma line' '
	cc -O2 -g -fopenmp -o rt-omp-trace-g "$TEST_PROGS/rt-omp-trace.c" &&
	OMP_NUM_THREADS=2 ./rt-omp-trace-g >truth-g &&
	OMP_NUM_THREADS=2 hpcrun -t --no-kernel -o mg ./rt-omp-trace-g >out 2>/dev/null &&
	test_cmp truth-g out &&
	hpcstruct mg 2>/dev/null &&
	hpcprof -o dbg mg 2>err &&
	test_must_fail grep -v "^hpcprof: wrote" err &&
	hpcviewer-tui --stdio --view trace dbg >view 2>err &&
	! test -s err &&
	grep "^trace: 2 threads, " view &&
	grep -n "^#pragma omp parallel for" "$TEST_PROGS/rt-omp-trace.c" |
		sed "s/^\([0-9]*\):.*/\1/" >lines &&
	for t in 0 1; do
		wait_scopes dbg $t | sort -k3 >got &&
		awk "{ print \$1, (\$2 ~ /^main\\._omp_fn\\./), \$3 }" got >kinds &&
		sed "s/.*/C 1 &/" lines >want-kinds &&
		test_cmp want-kinds kinds || return 1
	done
'

test_done
