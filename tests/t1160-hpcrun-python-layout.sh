#!/bin/sh
test_description='hpcrun: the CPython layouts agree with the DWARF of each CPython build present, hpcrun finds each interpreter, and one of an unknown version gets one line and native frames'
. "$(dirname "$0")/test-lib.sh"

PYENV_VERSIONS=${PYENV_ROOT:-$HOME/.pyenv}/versions
LAYOUT=$HPC_BUILD/tests/u-python-layout

# python_dir X.Y: the newest pyenv build of CPython X.Y.
python_dir() {
	ls -d "$PYENV_VERSIONS/$1".* 2>/dev/null | sort -t. -k3 -n | tail -n 1 | grep .
}

# python_lib X.Y: the file of that build holding the interpreter: its
# libpython, else its executable (libpython linked in).
python_lib() {
	d=$(python_dir "$1") || return 1
	for f in "$d/lib/libpython$1.so.1.0" "$d/bin/python$1"; do
		if nm -D "$f" 2>/dev/null | grep -q " D _PyRuntime$"; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

for v in 3.10 3.11 3.12 3.13; do
	p=PY$(echo $v | tr -d .)
	test_lazy_prereq $p "python_lib $v >/dev/null"
	# DWARF of its structs, for gdb.
	test_lazy_prereq ${p}DWARF "command -v gdb >/dev/null &&
		readelf -S \"\$(python_lib $v)\" | grep -q debug_info"
done

# dwarf_layout X.Y LIB: the fields u-python-layout prints, as gdb reads
# them from the DWARF of LIB, for CPython X.Y.
dwarf_layout() {
	minor=${1#3.}
	co='((PyCodeObject *)0)'
	frame='((struct _PyInterpreterFrame *)0)'
	ts='((struct _ts *)0)'
	if [ $minor = 10 ]; then
		threads=tstate_head native=-1 tsframe="&$ts->frame" indirect=-1
		cfprev=-1
		frame='((struct _frame *)0)'
		previous=f_back code=f_code instr=f_lasti entry=-1
		qualname=-1 cocode="&$co->co_code" adaptive=-1 size=-1
		framesize=-1 chunk=-1 top=-1
		kinds='lasti none'
	else
		threads=threads.head native="&$ts->native_thread_id"
		qualname="&$co->co_qualname" cocode=-1
		adaptive="&$co->co_code_adaptive" size="&$co->ob_base.ob_size"
		previous=previous framesize="&$co->co_framesize"
		chunk="&$ts->datastack_chunk" top="&$ts->datastack_top"
		case $minor in
		11|12)	tsframe="&$ts->cframe"
			indirect='&((struct _PyCFrame *)0)->current_frame'
			code=f_code instr=prev_instr ;;
		*)	tsframe="&$ts->current_frame" indirect=-1
			code=f_executable instr=instr_ptr ;;
		esac
		cfprev=-1
		[ $minor = 11 ] && cfprev='&((struct _PyCFrame *)0)->previous'
		case $minor in
		11)	entry="&$frame->is_entry" kinds='prev is_entry'
			framesize=-1 ;;
		12)	entry="&$frame->owner" kinds='prev owner' ;;
		*)	entry="&$frame->owner" kinds='next owner' ;;
		esac
	fi
	a='((PyASCIIObject *)0)' c='((PyCompactUnicodeObject *)0)'
	b='((PyBytesObject *)0)'
	while read -r name expr; do
		printf 'printf "%s %%d\\n", (int)(long)(%s)\n' "$name" "$expr"
	done >gdb-cmds <<-EOF
	runtime.interpreters_head &((struct pyruntimestate *)0)->interpreters.head
	interp.threads_head &((struct _is *)0)->$threads
	interp.next &((struct _is *)0)->next
	tstate.next &$ts->next
	tstate.thread_id &$ts->thread_id
	tstate.native_thread_id $native
	tstate.frame $tsframe
	tstate.frame_indirect $indirect
	tstate.cframe_previous $cfprev
	tstate.datastack_chunk $chunk
	tstate.datastack_top $top
	frame.previous &$frame->$previous
	frame.code &$frame->$code
	frame.instr &$frame->$instr
	frame.entry $entry
	code.filename &$co->co_filename
	code.name &$co->co_name
	code.qualname $qualname
	code.firstlineno &$co->co_firstlineno
	code.linetable &$co->co_linetable
	code.code $cocode
	code.code_adaptive $adaptive
	code.size $size
	code.framesize $framesize
	bytes.ob_size &$b->ob_base.ob_size
	bytes.ob_sval &$b->ob_sval
	unicode.length &$a->length
	unicode.state &$a->state
	EOF
	cat >>gdb-cmds <<-EOF
	ptype/o PyASCIIObject
	printf "unicode.ascii_data %d\\n", (int)sizeof(PyASCIIObject)
	printf "unicode.compact_data %d\\n", (int)sizeof(PyCompactUnicodeObject)
	printf "unicode.utf8_length %d\\n", (int)(long)&$c->utf8_length
	printf "unicode.utf8 %d\\n", (int)(long)&$c->utf8
	EOF
	echo "version $1"
	# The state's bit-fields from ptype/o: "/*  32: 2  |  4 */  ... kind : 3;"
	gdb -nx -batch -x gdb-cmds "$2" 2>gdb-err | awk '
		/ kind : 3;/ { bits["kind_shift"] = $3 }
		/ compact : 1;/ { bits["compact_bit"] = $3 }
		/ ascii : 1;/ { bits["ascii_bit"] = $3 }
		/^(runtime|interp|tstate|frame|code|bytes|unicode)\./ { print }
		END {
			print "unicode.kind_shift " bits["kind_shift"]
			print "unicode.compact_bit " bits["compact_bit"]
			print "unicode.ascii_bit " bits["ascii_bit"]
		}' | sort -s -k1,1 &&
	echo "frame.instr_kind ${kinds% *}" &&
	echo "frame.entry_kind ${kinds#* }" &&
	! test -s gdb-err
}

# ours X.Y: u-python-layout's fields, ordered as dwarf_layout's.
ours() {
	{
		sed -n 1p "$1" &&
		sed -e 1d -e '/_kind /d' "$1" | sort -s -k1,1 &&
		grep "_kind " "$1"
	}
}

test_expect_success 'setup: u-python-layout is built (make build/tests/u-python-layout)' '
	test -x "$LAYOUT" &&
	"$LAYOUT"
'

for v in 3.10 3.11 3.12; do
	p=PY$(echo $v | tr -d .)DWARF
	test_expect_success $p "hpcrun's table of CPython $v is its DWARF's offsets" '
		lib=$(python_lib '$v') &&
		"$LAYOUT" --print '$v' >table.'$v' &&
		ours table.'$v' >ours.'$v' &&
		dwarf_layout '$v' "$lib" >dwarf.'$v' &&
		test_cmp dwarf.'$v' ours.'$v'
	'
done

test_expect_success PY313DWARF "CPython 3.13's _Py_DebugOffsets give its DWARF's offsets" '
	lib=$(python_lib 3.13) &&
	gdb -nx -batch -ex "dump binary memory debug.313 (char*)&_PyRuntime.debug_offsets (char*)&_PyRuntime.debug_offsets+sizeof(_PyRuntime.debug_offsets)" "$lib" &&
	"$LAYOUT" --print-debug debug.313 >table.3.13 &&
	ours table.3.13 >ours.3.13 &&
	dwarf_layout 3.13 "$lib" >dwarf.3.13 &&
	test_cmp dwarf.3.13 ours.3.13
'

# found X.Y: hpcrun on CPython X.Y finds its interpreter (the log says
# where), and says nothing of it on stderr.
found() {
	d=$(python_dir $1) &&
	lib=$(python_lib $1) &&
	hpcrun -o found.$1 "$d/bin/python$1" -c "print(6 * 7)" >out 2>err &&
	echo 42 >expect &&
	test_cmp expect out &&
	! grep -i python err &&
	grep "^python: $1 (0x[0-9a-f]*) in '$lib'" found.$1/*.log
}

for v in 3.10 3.11 3.12 3.13; do
	p=PY$(echo $v | tr -d .)
	test_expect_success $p "hpcrun finds the interpreter of CPython $v" "
		found $v
	"
done

test_lazy_prereq SYSTEM_PYTHON 'test -x /usr/bin/python3 &&
	/usr/bin/python3 -c "import sys; sys.exit(not (3, 10) <= sys.version_info < (3, 14))"'
test_expect_success SYSTEM_PYTHON 'hpcrun finds the interpreter linked into /usr/bin/python3' '
	hpcrun -o sys /usr/bin/python3 -c "pass" &&
	v=$(/usr/bin/python3 -c "import sys; print(\"%d.%d\" % sys.version_info[:2])") &&
	grep "^python: $v (0x" sys/*.log
'

test_expect_success 'a program without Python: nothing is said of Python' '
	hpcrun -o none sh -c "exit 0" 2>err &&
	! grep -i python err none/*.log
'

# The interpreters of unknown version: fake libpython modules with the
# symbols of one, loaded by dlopen.
test_expect_success 'setup: fake libpython 3.99, 3.14 and 3.12 (Py_TRACE_REFS), and a program loading them' '
	cat >fake.c <<-\EOF &&
	/* cc -shared -fPIC -DVERSION=0x036300f0 -o libpython3.99.so fake.c */
	#ifdef VERSION
	const unsigned long Py_Version = VERSION;
	#endif
	/* 3.13 on: _Py_DebugOffsets at its start, the version at 8. */
	struct { char cookie[8]; unsigned long version; char rest[1024]; }
		_PyRuntime = { "xdebugpy", DEBUG_VERSION, { 0 } };
	int _PyEval_EvalFrameDefault(int x) { return x + 1; }
	EOF
	cc -shared -fPIC -DVERSION=0x036300f0 -DDEBUG_VERSION=0 \
		-o libpython3.99.so fake.c &&
	cc -shared -fPIC -DDEBUG_VERSION=0x030e00f0 -o libpython3.14.so fake.c &&
	echo "void _Py_PrintReferences(void *f) { (void)f; }" >trace-refs.c &&
	cc -shared -fPIC -DVERSION=0x030c01f0 -DDEBUG_VERSION=0 \
		-o libpython3.12.so fake.c trace-refs.c &&
	cat >load.c <<-\EOF &&
	/* cc -o load load.c -ldl: dlopen(argv[1]), ..., then exit 3. */
	#include <dlfcn.h>
	#include <stdio.h>
	#include <stdlib.h>
	int main(int argc, char **argv)
	{
		volatile double x = 0;
		long i;
		int a;

		for (a = 1; a < argc; a++) {
			if (!dlopen(argv[a], RTLD_NOW | RTLD_LOCAL))
				return 1;
			printf("loaded %s\n", argv[a]);
		}
		for (i = 0; i < 30000000; i++)
			x += i * 0.5;
		return 3;
	}
	EOF
	cc -O1 -o load load.c -ldl
'

# unknown X.Y LIB: the program loading LIB runs as without hpcrun; one
# line on stderr and in the log says the version; samples are recorded.
unknown() {
	{ ./load "$PWD/$2" >expect; test $? = 3; } &&
	{ hpcrun -o unknown.$1 ./load "$PWD/$2" >out 2>err; test $? = 3; } &&
	test_cmp expect out &&
	echo "hpcrun: Python $1: native frames only" >expect.err &&
	grep -i python err >err.python &&
	test_cmp expect.err err.python &&
	grep "^python: Python $1: native frames only$" unknown.$1/*.log &&
	recorded=$(sed -n "s/^samples-recorded: //p" unknown.$1/*.log) &&
	test "$recorded" -gt 0
}

test_expect_success 'an interpreter whose Py_Version has no layout (3.99): one line, native frames' '
	unknown 3.99 libpython3.99.so
'

test_expect_success 'an interpreter whose _Py_DebugOffsets are of an unknown version (3.14): one line, native frames' '
	unknown 3.14 libpython3.14.so
'

test_expect_success 'a 3.12 of another object layout (Py_TRACE_REFS): one line, native frames' '
	unknown 3.12 libpython3.12.so
'

test_expect_success PY312,PY311 'a program embedding libpython by dlopen: its interpreter found, a second one named' '
	lib312=$(python_lib 3.12) &&
	lib311=$(python_lib 3.11) &&
	{ hpcrun -o embed ./load "$lib312" "$lib311" >out 2>err; test $? = 3; } &&
	! grep -i python err &&
	grep "^python: 3.12 (0x030c[0-9a-f]*) in '\''$lib312'\''" embed/*.log &&
	grep "^python-ignored: '\''$lib311'\''" embed/*.log
'

test_lazy_prereq PY39 'python_dir 3.9 >/dev/null'
test_expect_success PY39 'CPython 3.9 (no layout): one line, native frames, the same output' '
	d=$(python_dir 3.9) &&
	hpcrun -o py39 "$d/bin/python3.9" -c "print(sum(range(10 ** 6)))" >out 2>err &&
	echo 499999500000 >expect &&
	test_cmp expect out &&
	echo "hpcrun: Python 3.9: native frames only" >expect.err &&
	grep -i python err >err.python &&
	test_cmp expect.err err.python &&
	hpcprof -o py39.d py39 >/dev/null
'

test_done
