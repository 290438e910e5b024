#!/bin/sh
test_description='hpcprof names Python frames from the .hpcpy files: procedures "prog.py:12 fib" with their lines in every view, the .py sources copied, a missing file said once'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/trace-lib.sh"

# The fixtures: the code objects of tests/progs/py-sample.py as CPython
# 3.10, 3.11, 3.12 and 3.13 made them (tests/data/pyline/, dumped by
# tests/progs/py-codes.py), their file named by its absolute path; a
# thread's .hpcpy written from them by lib/hpcpy-write.c
# (tests/progs/pf-mkhpcpy.c) and a profile (pf-mkprofile.c) whose
# [python] frames are at instructions of known lines.
SAMPLE=$SRC_ROOT/tests/progs/py-sample.py

# dump MINOR: the committed dump of 3.MINOR, its file made absolute.
dump() {
	sed "s|tests/progs/py-sample.py|$SAMPLE|" "$TEST_DATA/pyline/3.$1.txt"
}

# addr DUMP QUALNAME LINE: the node address (hpcpy.h) of the first
# instruction of code QUALNAME on LINE, in hex.
addr() {
	awk -v q="$2" -v l="$3" '
		$1 == "code" { hit = $6 == q; next }
		hit && $1 == "lines" {
			for (i = 2; i <= NF; i++) {
				split($i, r, ":")
				if (r[3] == l) { print r[1]; exit }
			}
		}' "$1" >off &&
	off=$(cat off) && test -n "$off" &&
	id=$(awk -v q="$2" '$2 == q { print $1 }' "${1%.txt}.ids") &&
	printf "%x\n" $(( (id << 24) | (off + 1) ))
}

# profile NAME MINOR THREAD RUN: NAME.hpcrun (and NAME.hpcpy) of a
# thread of python3.MINOR: main -> <module> -> fib (line 11) -> fib
# (line 10), <module> -> RUN (line 22) -> a C function of _ext.so, and a
# leaf in long_body (line 206).  RUN is Kernel.run's name: co_qualname,
# or before 3.11 co_name, run.
profile() {
	dump $2 >$1.txt &&
	./mkhpcpy $1.hpcpy <$1.txt >$1.ids &&
	m=$(addr $1.txt "<module>" 252) &&
	f1=$(addr $1.txt fib 11) && f2=$(addr $1.txt fib 10) &&
	k=$(addr $1.txt $4 22) && lb=$(addr $1.txt long_body 206) &&
	cat >$1.spec <<-EOT &&
	lm 1 /no/such/bin/python3.$2
	lm 2 [python]
	lm 3 /no/such/lib/_ext.so
	metric cpu-clock int
	thread $3
	node 1 0 1 1010
	node 2 1 2 $m
	node 3 2 2 $f1
	node 4 3 2 $f2
	value 4 0 30
	node 5 2 2 $k
	value 5 0 20
	node 6 5 3 2040
	value 6 0 10
	node 7 2 2 $lb
	value 7 0 5
	EOT
	./mkprofile $1.hpcrun <$1.spec
}

X() { xmllint --xpath "$1" "${DBX:-db}/experiment.xml"; }
PROC() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }

test_expect_success XMLLINT 'profiles with Python frames of 3.10 to 3.13' '
	build_mkprofile &&
	cc -I"$SRC_ROOT/lib" -o mkhpcpy "$TEST_PROGS/pf-mkhpcpy.c" "$HPC_BUILD/obj/libhpc.a" 2>/dev/null ||
	cc -fsanitize=address,undefined -I"$SRC_ROOT/lib" -o mkhpcpy "$TEST_PROGS/pf-mkhpcpy.c" "$HPC_BUILD/obj/libhpc.a" &&
	mkdir m &&
	profile m/py-000000-000-a8c00101-100-0 12 0 Kernel.run &&
	profile m/py-000000-001-a8c00101-100-0 12 1 Kernel.run &&
	profile m/py-000000-000-a8c00101-200-0 10 0 run &&
	profile m/py-000000-000-a8c00101-300-0 11 0 Kernel.run &&
	profile m/py-000000-000-a8c00101-400-0 13 0 Kernel.run &&
	hpcprof -o db m 2>err &&
	test_must_fail grep "\[python\]\|Python\|\.hpcpy" err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml
'

# Each CPython at hand: its own co_lines() of the sample's code objects
# and lib/pyline agree (u-pyline on a fresh dump).
for v in 10 11 12 13; do
	test_lazy_prereq PY3$v "ls -d \${PYENV_ROOT:-\$HOME/.pyenv}/versions/3.$v.*/bin/python3.$v"
	test_expect_success PY3$v "CPython 3.$v: lib/pyline gives co_lines()' lines" '
		py=$(ls -d ${PYENV_ROOT:-$HOME/.pyenv}/versions/3.'$v'.*/bin/python3.'$v' | tail -1) &&
		"$py" "$TEST_PROGS/py-codes.py" "$SAMPLE" >live-3.'$v'.txt &&
		"$HPC_BUILD/tests/u-pyline" live-3.'$v'.txt
	'
done

test_expect_success XMLLINT 'a Python procedure is "FILE:LINE QUALNAME" with its file and line' '
	X "string(//LoadModule[@n=\"[python]\"]/@i)" >lm && test -s lm &&
	for p in "py-sample.py:1 <module>" "py-sample.py:8 fib" \
		 "py-sample.py:18 Kernel.run" "py-sample.py:18 run" \
		 "py-sample.py:202 long_body"; do
		test "$(X "count(//Procedure[@n=\"$p\"])")" = 1 || return 1
	done &&
	f=$(X "string($(PROC "py-sample.py:8 fib")/@f)") &&
	test "$(X "string(//File[@i=$f]/@n)")" = "$SAMPLE" &&
	test "$(X "string($(PROC "py-sample.py:8 fib")/@l)")" = 8 &&
	test "$(X "string($(PROC "py-sample.py:8 fib")/@lm)")" = "$(cat lm)"
'

test_expect_success XMLLINT 'samples at their lines, calls at theirs, 3.10 to 3.13 alike' '
	# fib calls fib at line 11; the callee samples line 10, 2 threads
	# of 3.12 and one of each other: 5 x 30
	test "$(X "sum($(PROC "py-sample.py:8 fib")/C[@l=11]/PF/S[@l=10]/M[@n=0]/@v)")" = 150 &&
	test "$(X "sum($(PROC "py-sample.py:18 Kernel.run")/S[@l=22]/M[@n=0]/@v)")" = 80 &&
	test "$(X "sum($(PROC "py-sample.py:18 run")/S[@l=22]/M[@n=0]/@v)")" = 20 &&
	test "$(X "sum($(PROC "py-sample.py:202 long_body")/S[@l=206]/M[@n=0]/@v)")" = 25 &&
	test "$(X "sum($(PROC "py-sample.py:1 <module>")/C[@l=252]/M[@n=0]/@v)")" = 325
'

test_expect_success XMLLINT 'a C function called from Python is under the Python caller' '
	test "$(X "sum($(PROC "py-sample.py:18 Kernel.run")/C[@l=22]/PF/S/M[@n=0]/@v)")" = 40 &&
	test "$(X "sum($(PROC "py-sample.py:18 run")/C[@l=22]/PF/S/M[@n=0]/@v)")" = 10
'

test_expect_success 'the .py source is copied into the database' '
	test_cmp "$SAMPLE" "db/src$SAMPLE"
'

test_expect_success '--text names the Python procedures' '
	hpcprof -o db2 --text report.txt m 2>/dev/null &&
	grep "py-sample.py:8 fib" report.txt &&
	grep "py-sample.py:18 Kernel.run" report.txt
'

test_expect_success 'every view names them and adds up' '
	hpcviewer-tui --check-views db &&
	for v in top-down bottom-up flat functions; do
		hpcviewer-tui --stdio --view $v db >view-$v &&
		grep "py-sample.py:8 fib" view-$v || return 1
	done &&
	grep "py-sample.py:18 Kernel.run" view-functions &&
	# the name says the file: no " [[python]]" after it
	grep "py-sample.py:8 fib\$" view-bottom-up &&
	test_must_fail grep "\[\[python\]\]" view-bottom-up view-functions
'

test_expect_success 'folded stacks and the flame graph name them' '
	hpcviewer-tui --folded folded db &&
	grep "py-sample.py:1 <module>;py-sample.py:8 fib;py-sample.py:8 fib " folded &&
	hpcviewer-tui --flame-graph flame.svg db &&
	grep "py-sample.py:8 fib" flame.svg
'

test_expect_success 'the trace view and its exports name them' '
	build_mktrace &&
	cp -r m t &&
	printf "1000000000 4\n2000000000 5\n3000000000 6\n4000000000 -\n" |
	./mktrace t/py-000000-000-a8c00101-100-0.hpctrace &&
	hpcprof -o dbt t 2>/dev/null &&
	hpcviewer-tui --perfetto p.json --firefox f.json dbt &&
	grep "py-sample.py:8 fib" p.json && grep "py-sample.py:18 Kernel.run" p.json &&
	grep "py-sample.py:8 fib" f.json &&
	hpcviewer-tui --stdio --view trace dbt >trace-view &&
	grep "py-sample.py" trace-view
'

test_expect_success XMLLINT '-j 2 writes the database -j 1 writes' '
	hpcprof -j 1 -o dbj1 m 2>/dev/null && hpcprof -j 2 -o dbj2 m 2>/dev/null &&
	test_cmp dbj1/experiment.xml dbj2/experiment.xml
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi on 2 ranks writes the database hpcprof writes' '
	mkdir np2 && (cd np2 && $MPIRUN 2 hpcprof-mpi -j 1 -o db ../m 2>err) &&
	test_cmp dbj1/experiment.xml np2/db/experiment.xml
'

test_expect_success XMLLINT 'a missing .hpcpy: <python code 0xID>, said in one line' '
	cp -r m k &&
	rm k/py-000000-000-a8c00101-200-0.hpcpy &&
	hpcprof -o dbk k 2>err &&
	grep -c "no Python code file" err >n && test "$(cat n)" = 1 &&
	grep "1 thread with Python frames and no Python code file" err &&
	id=$(awk "\$2 == \"fib\" { print \$1 }" m/py-000000-000-a8c00101-200-0.ids) &&
	DBX=dbk X "count(//Procedure[@n=\"<python code $id>\"])" >n &&
	test "$(cat n)" = 1 &&
	hpcviewer-tui --check-views dbk
'

test_expect_success XMLLINT 'a thread with no Python frame needs no .hpcpy: nothing said' '
	cp -r m e &&
	cat >e.spec <<-EOT &&
	lm 1 /no/such/bin/python3.12
	lm 2 [python]
	metric cpu-clock int
	thread 2
	node 1 0 1 1010
	value 1 0 3
	EOT
	./mkprofile e/py-000000-002-a8c00101-100-0.hpcrun <e.spec &&
	hpcprof -o dbe e 2>err &&
	test_must_fail grep "Python code file" err
'

test_expect_success 'a bad .hpcpy is named with its line and set aside' '
	cp -r m b &&
	printf "hpcpy 01.00\npython 3 12\ncode 0x0 1 2 a b -\n" >b/py-000000-001-a8c00101-100-0.hpcpy &&
	test_must_fail hpcprof -o dbb b 2>err &&
	grep "py-000000-001-a8c00101-100-0.hpcpy.: line 3: code id 0" err &&
	grep "Python code file ignored" err
'

test_expect_success 'hpcprof --dump prints a .hpcpy with its lines decoded' '
	hpcprof --dump m/py-000000-000-a8c00101-200-0.hpcpy >dump &&
	head -1 dump >head &&
	echo "hpcpy 01.00 python 3.10 codes 16" >expect &&
	test_cmp expect head &&
	id=$(awk "\$2 == \"fib\" { print \$1 }" m/py-000000-000-a8c00101-200-0.ids) &&
	grep "^code $id py-sample.py:8 fib ncode [0-9]* file $SAMPLE\$" dump &&
	sed -n "/^code $id /,/^code/p" dump | awk "NF == 2 { print \$2 }" | sort -un >lines &&
	printf "9\n10\n11\n" >expect &&
	test_cmp expect lines
'

test_expect_success 'hpcstruct DIR skips the [python] pseudo module without a word' '
	hpcstruct m 2>err;
	test_must_fail grep "python\]" err
'

test_done
