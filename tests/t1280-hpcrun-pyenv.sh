#!/bin/sh
test_description='hpcrun launches what a pyenv shim would run, and names a Python measurement by its script'
. "$(dirname "$0")/test-lib.sh"

# A pyenv tree of our own, so that the tests run on any machine: a shim
# as `pyenv rehash` writes it, a pyenv that answers version-name, which
# and exec through short processes as the real one does, and two
# versions whose python3 is fake-python.c.
test_lazy_prereq BASH 'command -v bash'
test_lazy_prereq PYENV 'command -v pyenv && test -x "$(pyenv root)/shims/python3" &&
	pyenv which python3'

ROOT=$TRASH/pyenv-root

test_expect_success BASH 'setup: a fake pyenv tree with two versions' '
	mkdir -p "$ROOT/shims" "$ROOT/libexec" "$ROOT/versions/3.99.0/bin" \
		"$ROOT/versions/3.98.0/bin" &&
	cc -O2 -o "$ROOT/versions/3.99.0/bin/python3" "$TEST_PROGS/py/fake-python.c" &&
	cp "$ROOT/versions/3.99.0/bin/python3" "$ROOT/versions/3.98.0/bin/python3" &&
	echo 3.99.0 >"$ROOT/version" &&
	cat >"$ROOT/libexec/pyenv" <<-\EOF &&
	#!/bin/sh
	# version-name [-f] | which NAME | exec NAME ARGS: as pyenv, each step
	# a few short processes
	cmd=$1; shift
	version() {
		if [ -n "$PYENV_VERSION" ]; then echo "$PYENV_VERSION"
		elif [ -f .python-version ]; then cat .python-version
		else cat "$PYENV_ROOT/version"; fi
	}
	case $cmd in
	version-name) basename "$(version)" ;;
	which)	p=$PYENV_ROOT/versions/$(version)/bin/$1
		if [ -x "$p" ]; then echo "$p"
		else echo "pyenv: $1: command not found" >&2; exit 127; fi ;;
	exec)	v=$("$0" version-name -f)
		p=$("$0" which "$1") || exit 127
		shift
		PYENV_VERSION=$v PATH=${p%/*}:$PATH exec "$p" "$@" ;;
	esac
	EOF
	chmod +x "$ROOT/libexec/pyenv" &&
	cat >"$ROOT/shims/python3" <<-EOF &&
	#!/usr/bin/env bash
	set -e
	[ -n "\$PYENV_DEBUG" ] && set -x

	program="\${0##*/}"

	export PYENV_ROOT="$ROOT"
	SHIM_PATH=\${0%/*}
	if [[ \$SHIM_PATH != "$ROOT/shims" ]]; then
	  export _PYENV_SHIM_PATH="\$SHIM_PATH"
	fi
	exec "$ROOT/libexec/pyenv" exec "\$program" "\$@"
	EOF
	chmod +x "$ROOT/shims/python3" &&
	cp "$ROOT/shims/python3" "$ROOT/shims/pip" &&
	echo "print(1)" >prog.py &&
	PATH=$ROOT/shims:$PATH python3 prog.py >out &&
	grep -qx "argv0 $ROOT/versions/3.99.0/bin/python3" out
'

# the programs the measurement holds, one a line, sorted
programs() {
	ls "$1" | sed -n "s/-[0-9]*-[0-9]*-[0-9a-f]*-[0-9]*-[0-9]*\.hpcrun$//p" | sort -u
}

test_expect_success BASH 'a shim: only the interpreter is measured, as pyenv exec runs it' '
	PATH=$ROOT/shims:$PATH hpcrun python3 prog.py arg >out 2>err &&
	programs hpctoolkit-prog.py-measurements >progs &&
	echo prog.py >expect && test_cmp expect progs &&
	ls hpctoolkit-prog.py-measurements/*.hpcrun >files &&
	test_line_count = 1 files &&
	grep -qx "argv0 $ROOT/versions/3.99.0/bin/python3" out &&
	grep -qx "argv1 prog.py" out &&
	grep -qx "version 3.99.0" out &&
	grep -qx "path0 $ROOT/versions/3.99.0/bin" out &&
	grep -qx "program prog.py" hpctoolkit-prog.py-measurements/.hpcrun-launch
'

test_expect_success BASH 'the version comes from PYENV_VERSION, else .python-version' '
	PYENV_VERSION=3.98.0 PATH=$ROOT/shims:$PATH hpcrun -o env-v python3 prog.py >out &&
	grep -qx "argv0 $ROOT/versions/3.98.0/bin/python3" out &&
	grep -qx "version 3.98.0" out &&
	mkdir local && echo 3.98.0 >local/.python-version &&
	(cd local && PATH=$ROOT/shims:$PATH hpcrun -o ../file-v python3 ../prog.py >../out) &&
	grep -qx "argv0 $ROOT/versions/3.98.0/bin/python3" out &&
	programs file-v >progs && echo prog.py >expect && test_cmp expect progs
'

test_expect_success BASH '-v says what the shim runs' '
	PATH=$ROOT/shims:$PATH hpcrun -v -o verbose python3 prog.py >out 2>err &&
	grep -qx "hpcrun: pyenv shim '\''$ROOT/shims/python3'\'' runs '\''$ROOT/versions/3.99.0/bin/python3'\''" err &&
	grep -qx "hpcrun: PYENV_VERSION=3.99.0" err
'

test_expect_success BASH 'a command pyenv cannot resolve runs the shim as it is: its message, its status' '
	status=0 &&
	PATH=$ROOT/shims:$PATH hpcrun -o unresolved pip install x >out 2>err ||
		status=$? &&
	test $status = 127 &&
	grep -q "^pyenv: pip: command not found" err
'

test_expect_success BASH 'a script run by "#!/usr/bin/env python3" through a shim: the interpreter on the script' '
	printf "#!/usr/bin/env python3\nprint(1)\n" >tool.py && chmod +x tool.py &&
	PATH=$ROOT/shims:$PATH hpcrun ./tool.py a b >out &&
	grep -qx "argv0 $ROOT/versions/3.99.0/bin/python3" out &&
	grep -qx "argv1 ./tool.py" out &&
	programs hpctoolkit-tool.py-measurements >progs &&
	echo tool.py >expect && test_cmp expect progs
'

test_expect_success BASH 'a bash script that is no pyenv shim is measured as it is, the interpreter it execs by its script' '
	printf "#!/usr/bin/env bash\nexec \"%s\" \"\$@\"\n" \
		"$ROOT/versions/3.99.0/bin/python3" >wrapper && chmod +x wrapper &&
	hpcrun ./wrapper prog.py >out &&
	programs hpctoolkit-wrapper-measurements >progs &&
	grep -qx bash progs && grep -qx prog.py progs
'

test_expect_success BASH 'an interpreter is named by its script or module, else keeps its name' '
	py=$ROOT/versions/3.99.0/bin/python3 &&
	for args in "prog.py:dir/prog.py" "prog.py:-u -W ignore -X dev dir/prog.py x" \
		"prog.py:-- prog.py" "json.tool:-m json.tool" "json.tool:-OOmjson.tool" \
		"python3:-c pass" "python3:-" "python3:" "app:-I app/"; do
		name=${args%%:*} &&
		rm -rf "hpctoolkit-$name-measurements" &&
		hpcrun -q "$py" ${args#*:} >/dev/null &&
		grep -qx "program $name" "hpctoolkit-$name-measurements/.hpcrun-launch" ||
		{ echo "not named $name: python3 ${args#*:}" >&2; exit 1; }
	done
'

# rt-work's spawn runs itself again as "split N": an interpreter the
# program runs on another script is named by that script.
test_expect_success 'the interpreter'\''s profiles and its forks'\'' are named by the script, an interpreter it runs by its own script' '
	mkdir interp &&
	cc -O2 -fomit-frame-pointer -pthread -o interp/python3 "$TEST_PROGS/rt-work.c" &&
	hpcrun -q -o forked ./interp/python3 fork 5 >/dev/null &&
	ls forked/*.hpcrun >files && test_line_count = 2 files &&
	programs forked >progs && echo fork >expect && test_cmp expect progs &&
	hpcrun -q -o spawned ./interp/python3 spawn 5 &&
	programs spawned >progs &&
	printf "spawn\nsplit\n" >expect && test_cmp expect progs &&
	HPCRUN_PROGRAM="1 other" hpcrun -q -o plain ./interp/python3 -c x >/dev/null 2>&1 || : &&
	programs plain >progs && echo python3 >expect && test_cmp expect progs
'

# A real CPython whose script runs others through subprocess, as build
# and test drivers do: each interpreter named by the script it runs.
REALPY=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[0-3].*/bin/python3 2>/dev/null | tail -n 1)
test_lazy_prereq CPYTHON 'test -x "$REALPY"'
test_expect_success CPYTHON 'a real interpreter'\''s subprocesses: one named by each script or module, -c by the interpreter' '
	mkdir drv && cd drv &&
	cat >driver.py <<-\EOF &&
	import subprocess, sys
	subprocess.run([sys.executable, "tool.py"], check=True)
	subprocess.run([sys.executable, "-m", "json.tool", "in.json"], check=True,
	               stdout=subprocess.DEVNULL)
	subprocess.run([sys.executable, "-c", "pass"], check=True)
	EOF
	echo "print(sum(range(1000)))" >tool.py &&
	echo "{}" >in.json &&
	hpcrun -q -o m "$REALPY" driver.py >out &&
	echo 499500 >expect && test_cmp expect out &&
	programs m >progs &&
	printf "%s\n" driver.py json.tool "$(basename "$(readlink -f "$REALPY")")" tool.py |
		sort >expect &&
	test_cmp expect progs
'

test_expect_success 'a program that is no interpreter keeps its name whatever its arguments' '
	cc -O2 -o pythonic "$TEST_PROGS/py/fake-python.c" &&
	hpcrun -q ./pythonic prog.py >/dev/null &&
	grep -qx "program pythonic" hpctoolkit-pythonic-measurements/.hpcrun-launch
'

test_expect_success BASH 'hpcprof names the database by the script' '
	hpcprof hpctoolkit-prog.py-measurements >/dev/null 2>&1 &&
	test -f hpctoolkit-prog.py-database/experiment.xml
'

test_expect_success PYENV 'the real pyenv: only the interpreter pyenv selects is measured' '
	want=$(pyenv which python3) &&
	hpcrun -o real python3 -c "import sys; print(sys.executable)" >out &&
	programs real >progs &&
	test_line_count = 1 progs &&
	grep -q "^python3" progs &&
	test "$(cat out)" = "$want"
'

test_done
