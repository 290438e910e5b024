#!/bin/sh
test_description='Python frames end to end on each pyenv CPython: hpcrun, hpcstruct, hpcprof, the viewer (tolerances: sampled)'
. "$(dirname "$0")/test-lib.sh"

. "$TEST_DIRECTORY/lib/python-lib.sh"

# The programs are tests/progs/py/*.py, copied here and run by each
# pyenv CPython 3.10-3.13 found under PYENV_ROOT (~/.pyenv), by its full
# path; a version not installed skips its tests (prerequisite PYTHON3_N).
# The names expected come from the source (python-lib.sh, pyname), the
# shares from --folded stacks.  Another CPython installed (3.9, 3.8, ...)
# is measured with native frames only, said in one line (UNKNOWN_PYTHON).
# PY_MINORS="12 13" runs the tests of those versions alone.
PY_MINORS=${PY_MINORS:-10 11 12 13}
export PYTHONDONTWRITEBYTECODE=1

for v in $PY_MINORS; do
	test_lazy_prereq PYTHON3_$v "pypath 3.$v"
done
# a CPython of a version hpcrun has no layout for
other_python() {
	for v in 3.9 3.8 3.7 3.6; do pypath $v && return 0; done
	return 1
}
test_lazy_prereq UNKNOWN_PYTHON 'other_python'

# run V PROG CPU_MS [HPCRUN-OPTIONS]: measures pyenv V's interpreter on
# PROG.py for CPU_MS of CPU into m-V-PROG, structures and correlates it
# into db-V-PROG; PROG.out is the program's output, V-PROG.folded its
# folded stacks, V-PROG.err what the tools said
run() {
	py=$(pypath "$1") &&
	rm -rf "m-$1-$2" "db-$1-$2" &&
	hpcrun -q -o "m-$1-$2" $4 "$py" "$2.py" "$3" >"$2.out" 2>"$1-$2.err" &&
	hpcstruct -q "m-$1-$2" 2>>"$1-$2.err" &&
	hpcprof -o "db-$1-$2" "m-$1-$2" 2>>"$1-$2.err" &&
	hpcviewer-tui --folded "$1-$2.folded" "db-$1-$2"
}

# name V PROG QUALNAME: the name of PROG.py's function QUALNAME in a
# profile of Python V
name() {
	pyname "$1" "$2.py" "$3"
}

test_expect_success 'setup: the programs' '
	cp "$TEST_PROGS"/py/*.py . &&
	ls *.py >programs && test_line_count -ge 6 programs
'

# kernels.py: shares 1:2:3 within 6 points, on two threads (each with
# its .hpcpy), through worker -> pipeline -> stage -> kernel_X
kernels() {
	run "$1" kernels "$(retry_budget 2000)" &&
	ka=$(name "$1" kernels kernel_a) && kb=$(name "$1" kernels kernel_b) &&
	kc=$(name "$1" kernels kernel_c) &&
	frame_share "$1-kernels.folded" "$ka" "$kb" "$kc" >"$1-shares" &&
	cat "$1-shares" &&
	test_within "$(awk "NR == 1 { print \$NF }" "$1-shares")" \
		"$(true_share kernel_a kernels.out)" 6 &&
	test_within "$(awk "NR == 2 { print \$NF }" "$1-shares")" \
		"$(true_share kernel_b kernels.out)" 6 &&
	test_within "$(awk "NR == 3 { print \$NF }" "$1-shares")" \
		"$(true_share kernel_c kernels.out)" 6
}

for v in $PY_MINORS; do
	test_expect_success PYTHON3_$v "Python 3.$v: each kernel's share of 1:2:3, under its callers" '
		V=3.$v &&
		retry 3 kernels $V &&
		for k in kernel_a kernel_b kernel_c; do
			in_order $V-kernels.folded "$(name $V kernels worker)" \
				"$(name $V kernels pipeline)" "$(name $V kernels stage)" \
				"$(name $V kernels $k)" || exit 1
		done &&
		! grep -q "native frames only" $V-kernels.err &&
		ls m-$V-kernels/*.hpcpy >hpcpy && test_line_count -ge 2 hpcpy
	'

	test_expect_success PYTHON3_$v "Python 3.$v: the kernels in every view, the .py file in the database" '
		V=3.$v && k=$(name $V kernels kernel_c) &&
		for view in top-down bottom-up flat functions; do
			hpcviewer-tui --stdio --view $view db-$V-kernels >$view.txt &&
			grep -qF "$k" $view.txt || { echo "$view: no $k" >&2; exit 1; }
		done &&
		find db-$V-kernels/src -name kernels.py >src &&
		test_line_count = 1 src && cmp "$(cat src)" kernels.py &&
		hpcviewer-tui --flame-graph kernels.svg db-$V-kernels &&
		grep -qF "$k" kernels.svg
	'

	test_expect_success PYTHON3_$v "Python 3.$v: qualified names of methods, nested functions, dunder methods" '
		V=3.$v &&
		retry 3 run $V classes "$(retry_budget 1000)" &&
		for q in Parser.parse Parser.parse.\<locals\>.step Tokenizer.__iter__ \
			Node.__lt__ JsonParser.parse make_text; do
			n=$(name $V classes $q) &&
			grep -qF "$n" $V-classes.folded || { echo "no $n" >&2; exit 1; }
		done &&
		in_order $V-classes.folded "$(name $V classes main)" \
			"$(name $V classes JsonParser.parse)" "$(name $V classes Parser.parse)" \
			"$(name $V classes Parser.parse.\<locals\>.step)"
	'

	test_expect_success PYTHON3_$v "Python 3.$v: C qsort between Python frames (ctypes callback)" '
		V=3.$v &&
		retry 3 run $V callback "$(retry_budget 1000)" &&
		grep -qx "sorted yes" callback.out &&
		in_order $V-callback.folded "$(name $V callback main)" \
			"$(name $V callback sort_with_qsort)" "~^(__)?(qsort|msort)" \
			"$(name $V callback compare)"
	'

	test_expect_success PYTHON3_$v "Python 3.$v: generators and coroutines under their callers" '
		V=3.$v &&
		retry 3 run $V genasync "$(retry_budget 1000)" &&
		in_order $V-genasync.folded "$(name $V genasync main)" \
			"$(name $V genasync consume)" "$(name $V genasync transform)" \
			"$(name $V genasync produce)" &&
		in_order $V-genasync.folded "$(name $V genasync worker)" \
			"$(name $V genasync crunch)"
	'

	test_expect_success PYTHON3_$v "Python 3.$v: threads that a pool and _thread start" '
		V=3.$v &&
		retry 3 run $V pool "$(retry_budget 1000)" &&
		grep -qF "$(name $V pool crunch)" $V-pool.folded &&
		grep -qF "$(name $V pool spin)" $V-pool.folded &&
		ls m-$V-pool/*.hpcpy >hpcpy && test_line_count -ge 2 hpcpy
	'

	test_expect_success PYTHON3_$v "Python 3.$v: json, re and sorting under the functions that call them" '
		V=3.$v &&
		retry 3 run $V textwork "$(retry_budget 1000)" &&
		for f in make_records encode decode parse_log tally sort_records by_score; do
			grep -qF "$(name $V textwork $f)" $V-textwork.folded ||
				{ echo "no $f" >&2; exit 1; }
		done &&
		in_order $V-textwork.folded "$(name $V textwork sort_records)" \
			"~^(builtin_)?sorted" "$(name $V textwork by_score)"
	'

	test_expect_success PYTHON3_$v "Python 3.$v: --no-python: native frames only, no .hpcpy" '
		V=3.$v &&
		run $V kernels 300 --no-python &&
		no_python $V-kernels.folded &&
		! ls m-$V-kernels/*.hpcpy 2>/dev/null &&
		grep -q "_PyEval_EvalFrameDefault" $V-kernels.folded
	'

	test_expect_success PYTHON3_$v "Python 3.$v: --data names heap objects by allocation paths with Python frames" '
		V=3.$v &&
		run $V textwork 1000 --data &&
		hpcviewer-tui --stdio --view data db-$V-textwork >data.txt &&
		grep -q "textwork\.py" data.txt
	'
done

# xperf V: kernels.py on Python V, as is and under its perf trampolines
# (python -X perf, which PYTHONPERFSUPPORT=1 asks for: each Python call
# through a copy of a template in anonymous memory), for the same CPU
# time: V-plain.folded and V-xperf.folded.  The trampolines' perf map
# (/tmp/perf-PID.map, PID the measured process's, in its files' names)
# says they were on; it is removed.
xperf() {
	b=$(retry_budget 2000) &&
	run "$1" kernels "$b" && mv "$1-kernels.folded" "$1-plain.folded" &&
	(PYTHONPERFSUPPORT=1 && export PYTHONPERFSUPPORT &&
	 run "$1" kernels "$b") &&
	mv "$1-kernels.folded" "$1-xperf.folded" &&
	pid=$(ls "m-$1-kernels"/*.log | sed -n "s/.*-\([0-9]*\)-[0-9]*\.log\$/\1/p") &&
	test -f "/tmp/perf-$pid.map" && rm -f "/tmp/perf-$pid.map" &&
	awk "{ n += \$NF } /^<partial call paths>/ { p += \$NF }
	     END { printf \"%.2f\\n\", n ? 100 * p / n : 100 }" \
		"$1-xperf.folded" >partial &&
	echo "partial: $(cat partial)%" &&
	test_within "$(cat partial)" 0 2 &&
	ka=$(name "$1" kernels kernel_a) && kb=$(name "$1" kernels kernel_b) &&
	kc=$(name "$1" kernels kernel_c) &&
	frame_share "$1-plain.folded" "$ka" "$kb" "$kc" >plain-shares &&
	frame_share "$1-xperf.folded" "$ka" "$kb" "$kc" >xperf-shares &&
	paste plain-shares xperf-shares &&
	for i in 1 2 3; do
		test_within "$(awk "NR == $i { print \$NF }" xperf-shares)" \
			"$(awk "NR == $i { print \$NF }" plain-shares)" 3 || return 1
	done
}

# py_prefixes FOLDED NAME: the chains of Python frames from the root to
# NAME in FOLDED's whole paths, one a line, sorted, each once
py_prefixes() {
	awk -v k="$2" "!/^<partial call paths>/ {
		s = \$0; sub(/ [0-9]+\$/, \"\", s); n = split(s, fr, \";\"); c = \"\"
		for (j = 1; j <= n; j++)
			if (fr[j] ~ /^[^ ;\\[]+\\.py:[0-9]+ /) {
				c = c \";\" fr[j]
				if (fr[j] == k) { print c; break }
			}
	}" "$1" | sort -u
}

# Only the template's copies are new under -X perf: the same Python
# frames above each kernel, each kernel's share as without it, and its
# C calls of the eval function (python-frames.c) still each its own.
for v in $PY_MINORS; do
	test "$v" -ge 12 || continue
	test_expect_success PYTHON3_$v "Python 3.$v -X perf: whole paths, the same shares and callers" '
		V=3.$v &&
		retry 3 xperf $V &&
		for k in kernel_a kernel_b kernel_c; do
			n=$(name $V kernels $k) &&
			py_prefixes $V-plain.folded "$n" >expect &&
			py_prefixes $V-xperf.folded "$n" >actual &&
			test_line_count -ge 1 expect &&
			test_cmp expect actual || return 1
		done &&
		in_order $V-xperf.folded "$(name $V kernels worker)" \
			"$(name $V kernels pipeline)" "$(name $V kernels stage)" \
			"$(name $V kernels kernel_c)"
	'
done

# Two modules of one base name (a/utils.py, b/utils.py; every package
# has its __init__.py): each procedure is named by as much of its path as
# tells it apart, and keeps its own share in the folded stacks.
test_expect_success PYTHON3_12 'files of one base name: named apart, each with its own share' '
	mkdir -p pa/a pa/b && : >pa/a/__init__.py && : >pa/b/__init__.py &&
	printf "def helper(n):\n    s = 0\n    for i in range(n):\n        s += i * i %% 7\n    return s\n" >pa/a/utils.py &&
	cp pa/a/utils.py pa/b/utils.py &&
	printf "import a.utils, b.utils\ndef main():\n    a.utils.helper(1000000)\n    b.utils.helper(3000000)\nmain()\n" >pa/dup.py &&
	(cd pa && hpcrun -q -o m "$(pypath 3.12)" dup.py) &&
	hpcprof -o pa.d pa/m 2>/dev/null &&
	hpcviewer-tui --folded pa.f pa.d &&
	frame_share pa.f "a/utils.py:1 helper" "b/utils.py:1 helper" >shares &&
	cat shares &&
	test_within "$(awk "NR == 1 { print \$NF }" shares)" 25 8 &&
	test_within "$(awk "NR == 2 { print \$NF }" shares)" 75 8 &&
	grep -q ";dup.py:2 main;" pa.f &&
	! grep -q ";utils.py:" pa.f
'

# A script at a path that is not UTF-8 (bytes 0xe9, 0xff), which CPython
# holds as surrogate escapes (os.fsdecode): the .hpcpy has the path's own
# bytes, so hpcprof finds the file; the database spells its bytes that
# XML cannot hold as "?", in the name and in the copy's, as for C files.
for v in $PY_MINORS; do
	test_expect_success PYTHON3_$v "Python 3.$v: a script whose path is not UTF-8 is copied and named" '
		d=$PWD/nonutf-3.$v && rm -rf "$d" && mkdir "$d" &&
		f=$(printf "%s/caf\351_\377.py" "$d") &&
		printf "def hot_latin(n):\n    s = 0\n    for i in range(n):\n        s += i * i\n    return s\nhot_latin(2000000)\n" >"$f" &&
		hpcrun -q -o "$d/m" "$(pypath 3.$v)" "$f" &&
		grep -q " hot_latin [^ ]*/caf%E9_%FF\.py " "$d"/m/*.hpcpy &&
		hpcprof -o "$d/db" "$d/m" 2>/dev/null &&
		test_cmp "$f" "$d/db/src$d/caf?_?.py" &&
		hpcviewer-tui --stdio --width 0 --view functions "$d/db" >"$d/out" &&
		grep -q " caf?_?\.py:1 hot_latin$" "$d/out"
	'
done

# A code object renamed with a newline and a tab in its name and file
# name: every text view prints it on one line, its control characters
# as "?".
test_expect_success PYTHON3_12 'a name with a newline and a tab: one line in every text view' '
	cat >renamed.py <<-\EOF &&
	import types
	def hot(n):
	    s = 0
	    for i in range(n):
	        s += i * i
	    return s
	c = hot.__code__.replace(co_name="one\ntwo\tthree",
	                         co_qualname="one\ntwo\tthree",
	                         co_filename="fi\nle\t.py")
	types.FunctionType(c, {})(2000000)
	EOF
	hpcrun -q -t -o m-renamed "$(pypath 3.12)" renamed.py &&
	hpcprof -o db-renamed m-renamed 2>/dev/null &&
	for view in top-down bottom-up flat functions trace; do
		hpcviewer-tui --stdio --width 0 --view $view db-renamed >$view.out &&
		grep -q "fi?le?\.py:2 one?two?three" $view.out &&
		! grep -q "^two\|^le.\.py" $view.out || return 1
	done
'

test_expect_success UNKNOWN_PYTHON 'a CPython without a layout: one line, native frames, the program unharmed' '
	py=$(other_python) && V=${py##*/python} &&
	"$py" kernels.py 300 >plain.out &&
	hpcrun -o m-other "$py" kernels.py 300 >other.out 2>other.err &&
	sed 1q plain.out >expect && sed 1q other.out >actual &&
	test_cmp expect actual &&
	grep -c "^hpcrun: Python $V: native frames only" other.err >count &&
	echo 1 >expect && test_cmp expect count &&
	! ls m-other/*.hpcpy 2>/dev/null &&
	hpcprof -o db-other m-other 2>/dev/null &&
	hpcviewer-tui --folded other.folded db-other &&
	no_python other.folded && test -s other.folded
'

# Python 2, whose eval function is PyEval_EvalFrameEx: said as well.
test_lazy_prereq PYTHON2 'pypath 2.7'
test_expect_success PYTHON2 'Python 2.7: one line, native frames, the program unharmed' '
	printf "s = 0\nfor i in range(3000000):\n    s += i\nprint(s)\n" >two.py &&
	"$(pypath 2.7)" two.py >expect &&
	hpcrun -o m-two "$(pypath 2.7)" two.py >two.out 2>two.err &&
	test_cmp expect two.out &&
	echo "hpcrun: Python 2.7: native frames only" >expect &&
	test_cmp expect two.err &&
	! ls m-two/*.hpcpy 2>/dev/null
'

test_done
