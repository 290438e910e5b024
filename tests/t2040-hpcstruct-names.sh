#!/bin/sh
test_description='hpcstruct: procedure names as HPCToolkit writes them (NAME [LIBNAME] in shared libraries, C++ and @plt demangled)'
. "$(dirname "$0")/test-lib.sh"

DTD=$DTD_DIR/hpc-structure.dtd

# The n and ln of every P of structure file $1, one "n|ln" a line.
names() {
	sed -n 's/.*<P i="[0-9]*" n="\([^"]*\)"\( ln="\([^"]*\)"\)\{0,1\} l=.*/\1|\3/p' "$1"
}

test_expect_success 'setup: a C library reached through a symlink, and a program using it' '
	printf "int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\nint twice(int n) { return 2 * work(n); }\n" >lib.c &&
	cc -O2 -g -shared -fPIC -Wl,-soname,libw.so.1 -o libw.so.1.2.3 lib.c &&
	ln -s libw.so.1.2.3 libw.so &&
	printf "int twice(int);\nint main(int argc, char **argv) { (void)argv; return twice(argc) & 1; }\n" >prog.c &&
	cc -O2 -g -o prog prog.c -L. -lw &&
	cc -O2 -g -no-pie -o prog-nopie prog.c -L. -lw
'

test_expect_success 'a shared library: each P is "NAME [LIBNAME]" with ln="NAME", LIBNAME the real file'"'"'s basename' '
	hpcstruct -o lib.xml libw.so &&
	grep -x "<LM i=\"2\" n=\"$PWD/libw.so.1.2.3\" has-calls=\"0\" v=\"{}\">" lib.xml &&
	names lib.xml >got &&
	grep -x "work \[libw.so.1.2.3\]|work" got &&
	grep -x "twice \[libw.so.1.2.3\]|twice" got &&
	grep -x "_init \[libw.so.1.2.3\]|_init" got &&
	grep -x "__cxa_finalize@plt \[libw.so.1.2.3\]|__cxa_finalize@plt" got &&
	! grep -v " \[libw.so.1.2.3\]|" got &&
	grep -q "<F i=\"[0-9]*\" n=\"\[libw.so.1.2.3\]\">" lib.xml
'

test_expect_success 'executables, PIE or not, keep bare names and no ln' '
	for p in prog prog-nopie; do
		hpcstruct -o $p.xml $p &&
		names $p.xml >got &&
		grep -x "main|" got &&
		grep -x "twice@plt|" got &&
		! grep " \[" got || exit 1
	done &&
	readelf -d prog | grep -q "Flags: .*PIE" &&
	test "$(readelf -h prog-nopie | sed -n "s/ *Type: *\([A-Z]*\).*/\1/p")" = EXEC
'

test_expect_success XMLLINT 'the library'"'"'s structure is valid' '
	test_valid_xml "$DTD" lib.xml
'

test_expect_success FIXTURES 'the vDSO of HPCToolkit'"'"'s fixture: its named procedures as HPCToolkit'"'"'s hpcstruct named them' '
	vdso=7efc21c89566f551ba9bac284645e9d6.vdso &&
	cp "$FIXTURES/loops-perf.m/vdso/$vdso" . &&
	hpcstruct -o vdso.xml $vdso &&
	names "$FIXTURES/loops-perf.m/structs/$vdso.hpcstruct" | grep -v "^&lt;unknown" >expect &&
	test_line_count = 5 expect &&
	names vdso.xml >got &&
	grep -x -F -f expect got >found &&
	test_cmp expect found
'

test_lazy_prereq GXX 'command -v g++'

test_expect_success GXX 'C++ in a shared library: n demangled with [LIBNAME], ln mangled; @plt stubs demangled too' '
	printf "#include <vector>\nnamespace ns { int f(int n) { std::vector<int> v; for (int i = 0; i < n; i++) v.push_back(i); return (int)v.size(); } }\n" >v.cc &&
	g++ -O0 -g -shared -fPIC -o libv.so v.cc &&
	hpcstruct -o v.xml libv.so &&
	names v.xml >got &&
	grep -x "ns::f(int) \[libv.so\]|_ZN2ns1fEi" got &&
	grep -x "std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back(int const&amp;)@plt \[libv.so\]|_ZNSt6vectorIiSaIiEE9push_backERKi@plt" got &&
	! grep "|_Z" got | grep "^_Z"
'

test_expect_success GXX 'C++ executable: a mangled @plt stub is demangled, ln keeps the mangled name' '
	printf "namespace ns { int f(int n); }\nint main(int argc, char **) { return ns::f(argc) & 1; }\n" >main.cc &&
	g++ -O2 -g -o cxxprog main.cc -L. -lv &&
	hpcstruct -o cxxprog.xml cxxprog &&
	names cxxprog.xml >got &&
	grep -x "ns::f(int)@plt|_ZN2ns1fEi@plt" got &&
	! grep "^_Z" got
'

test_expect_success GXX,XMLLINT 'the C++ structures are valid' '
	test_valid_xml "$DTD" v.xml &&
	test_valid_xml "$DTD" cxxprog.xml
'

test_expect_success GXX 'std::terminate'"'"'s stub: demangled, its link name (which the noreturn list matches) kept' '
	printf "#include <exception>\nvolatile int sink;\nvoid fail(int n) { if (n > 3) std::terminate(); sink = n; }\n" >t.cc &&
	g++ -O2 -g -shared -fPIC -o libt.so t.cc &&
	hpcstruct -o t.xml libt.so &&
	names t.xml >got &&
	grep -x "std::terminate()@plt \[libt.so\]|_ZSt9terminatev@plt" got
'
test_done
