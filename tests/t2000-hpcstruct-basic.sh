#!/bin/sh
test_description='hpcstruct: procedures, statements, output file, DTD, stripped and no-debug binaries'
. "$(dirname "$0")/test-lib.sh"

DTD=$DTD_DIR/hpc-structure.dtd

# "name addr" of every defined function symbol of $1 (hex without 0x).
func_syms() {
	nm --defined-only "$1" | awk '$2 ~ /^[tT]$/ { print $3, $1 }' | sort
}

test_expect_success 'setup: st-nests built with gcc -O2 -g' '
	cc -O2 -g -o st-nests "$TEST_PROGS/st-nests.c"
'

test_expect_success 'default output is BINARY.hpcstruct in the current directory' '
	mkdir sub && (cd sub && hpcstruct ../st-nests) &&
	test -s sub/st-nests.hpcstruct && ! test -e st-nests.hpcstruct
'

test_expect_success 'an output that is not a regular file (a FIFO) is written, not replaced' '
	mkfifo out.fifo &&
	{ timeout 20 cat out.fifo >from-fifo & } &&
	hpcstruct -o out.fifo st-nests &&
	wait &&
	test -p out.fifo &&
	grep -q "<HPCToolkitStructure" from-fifo &&
	! ls out.fifo.tmp* 2>/dev/null
'

test_expect_success XMLLINT 'output is valid against the structure DTD' '
	test_valid_xml "$DTD" sub/st-nests.hpcstruct
'

test_expect_success 'LM names the binary by absolute path' '
	grep -q "<LM i=\"2\" n=\"$PWD/st-nests\" has-calls=\"0\" v=\"{}\">" sub/st-nests.hpcstruct
'

test_expect_success 'every function symbol is a P whose v is its entry address' '
	hpcstruct -o s.xml st-nests &&
	func_syms st-nests >syms &&
	test_line_count -gt 10 syms &&
	while read name addr; do
		a=$(printf "%x" 0x$addr) &&
		grep -q "<P i=\"[0-9]*\" n=\"$name\" .*v=\"{\[0x$a-0x$(printf "%x" $((0x$addr + 1))))}\"" s.xml ||
		{ echo "missing P $name at 0x$a"; exit 1; }
	done <syms
'

test_expect_success 'procedures with debug info are filed under their source file with their line' '
	grep -A1 "<F i=\"[0-9]*\" n=\"$TEST_PROGS/st-nests.c\">" s.xml >f &&
	test -s f &&
	grep -q "<P i=\"[0-9]*\" n=\"nest2\" l=\"16\"" s.xml &&
	grep -q "<P i=\"[0-9]*\" n=\"main\" l=\"58\"" s.xml
'

test_expect_success 'procedures without debug info go to the [binary] file with line 0' '
	grep -q "<F i=\"[0-9]*\" n=\"\[st-nests\]\">" s.xml &&
	grep -q "<P i=\"[0-9]*\" n=\"_start\" l=\"0\"" s.xml
'

test_expect_success 'statements carry the address ranges of their lines (as addr2line says)' '
	sed -n "/n=\"nest1\"/,/<\/P>/p" s.xml >nest1 &&
	grep "<S " nest1 | sed "s/.*l=\"\([0-9]*\)\" v=\"{\[\(0x[0-9a-f]*\)-.*/\1 \2/" >pairs &&
	test_line_count -ge 2 pairs &&
	while read line addr; do
		addr2line -e st-nests $addr | sed "s/.*://; s/ .*//" >got &&
		echo $line >want && test_cmp want got
	done <pairs
'

test_expect_success 'PLT stubs are procedures named NAME@plt (atoi is strtol at -O2), .plt.got too' '
	grep -q "n=\"strtol@plt\"" s.xml &&
	got=$(objdump -d -j .plt.got st-nests | sed -n "s/^0*\([0-9a-f]*\) <__cxa_finalize@plt>:/\1/p") &&
	test -n "$got" &&
	grep -q "<P i=\"[0-9]*\" n=\"__cxa_finalize@plt\" l=\"0\" v=\"{\[0x$got-" s.xml
'

test_expect_success '-o writes FILE; -j 2 writes the same structure as -j 1' '
	hpcstruct -j 2 -o s2.xml st-nests &&
	test_cmp s.xml s2.xml
'

test_expect_success 'a binary without -g still gets procedures and loops, no lines' '
	cc -O2 -o nodebug "$TEST_PROGS/st-nests.c" &&
	hpcstruct -o nd.xml nodebug &&
	grep -c "<L " nd.xml >nloops &&
	echo 13 >expect && test_cmp expect nloops &&
	! grep -q "<S [^>]*l=\"[1-9]" nd.xml
'

test_expect_success XMLLINT 'no-debug output is valid too' '
	test_valid_xml "$DTD" nd.xml
'

test_expect_success 'a stripped binary: procedures from .eh_frame, loops kept' '
	strip -o stripped st-nests &&
	hpcstruct -o st.xml stripped &&
	func_syms st-nests | grep -E "^(nest[1-4]|siblings|walk|main) " >syms &&
	test_line_count = 7 syms &&
	while read name addr; do
		a=$(printf "%x" 0x$addr) &&
		grep -q "<P i=\"[0-9]*\" n=\"[^\"]*\" l=\"0\" v=\"{\[0x$a-" st.xml ||
		{ echo "no P at 0x$a ($name)"; exit 1; }
	done <syms &&
	grep -c "<L " st.xml >n1 && grep -c "<L " s.xml >n2 && test_cmp n2 n1
'

test_expect_success XMLLINT 'stripped output is valid' '
	test_valid_xml "$DTD" st.xml
'

test_expect_success 'a gcc .cold part is part of its procedure, not a procedure' '
	cc -O2 -g -o control "$TEST_PROGS/st-control.c" &&
	cold=$(nm control | sed -n "s/^0*\([0-9a-f]*\) t split.cold$/\1/p") &&
	test -n "$cold" &&
	hpcstruct -o control.xml control &&
	! grep -q "n=\"split.cold\"" control.xml &&
	sed -n "/<P [^>]*n=\"split\"/,/<\/P>/p" control.xml >split &&
	grep -q "<S [^>]*v=\"{.*\[0x$cold-" split
'

test_expect_success 'debug info in a separate file found by .gnu_debuglink' '
	objcopy --only-keep-debug st-nests st-nests.debug &&
	objcopy --strip-debug --add-gnu-debuglink=st-nests.debug st-nests split &&
	! readelf -S split | grep -q debug_info &&
	hpcstruct -o split.xml split &&
	grep -c "<L " split.xml >n1 && grep -c "<L " s.xml >n2 && test_cmp n2 n1 &&
	grep -q "<P i=\"[0-9]*\" n=\"nest2\" l=\"16\"" split.xml
'

test_expect_success 'a stripped binary names its static function from the debug file'"'"'s .symtab' '
	cc -O2 -g -o static "$TEST_PROGS/st-static.c" &&
	hot=$(nm static | sed -n "s/^0*\([0-9a-f]*\) t scale_all$/\1/p") &&
	cold=$(nm static | sed -n "s/^0*\([0-9a-f]*\) t scale_all.cold$/\1/p") &&
	test -n "$hot" && test -n "$cold" &&
	objcopy --only-keep-debug static static.debug &&
	strip static &&
	! readelf -S static | grep -q "\.symtab" &&
	mkdir nodebugfile && cp static nodebugfile/ &&
	hpcstruct -o nodebugfile.xml nodebugfile/static &&
	grep -q "<P i=\"[0-9]*\" n=\"targ$hot\" " nodebugfile.xml &&
	objcopy --add-gnu-debuglink=static.debug static &&
	hpcstruct -o static.xml static &&
	grep -q "<P i=\"[0-9]*\" n=\"scale_all\" l=\"[0-9]*\" v=\"{\[0x$hot-" static.xml &&
	grep -q "<P i=\"[0-9]*\" n=\"main\" " static.xml &&
	grep -q "<P i=\"[0-9]*\" n=\"clip\" " static.xml &&
	! grep -q "n=\"targ\($hot\|$cold\)\"" static.xml &&
	sh "$TEST_DIRECTORY/lib/check-structure.sh" "$TEST_PROGS/st-static.c" static.xml
'

test_expect_success 'the .cold parts are parts of their procedures, clip_all.cold of its alias clip' '
	for f in scale_all:scale_all clip_all:clip; do
		cold=$(nm static.debug | sed -n "s/^0*\([0-9a-f]*\) t ${f%:*}.cold$/\1/p") &&
		test -n "$cold" &&
		! grep -q "n=\"${f%:*}.cold\"" static.xml &&
		sed -n "/<P [^>]*n=\"${f#*:}\"/,/<\/P>/p" static.xml >proc &&
		grep -q "<S [^>]*v=\"{.*\[0x$cold-" proc || exit 1
	done
'

# The attributes of the subprogram DIE named $2 in readelf's dump $1.
die_attrs() {
	sed -n "/DW_AT_name .*: $2\$/,/^ <[0-9]*><[0-9a-f]*>:/p" "$1"
}

test_expect_success 'a procedure split into NAME and NAME.cold (DW_AT_ranges, no low_pc) has its declaration line' '
	cc -O2 -g -o split "$TEST_PROGS/st-static.c" &&
	readelf --debug-dump=info split >info &&
	for f in scale_all clip_all; do
		die_attrs info $f >attrs &&
		grep -q DW_AT_ranges attrs && ! grep -q DW_AT_low_pc attrs || exit 1
	done &&
	hpcstruct -o split.xml split &&
	grep -q "<P i=\"[0-9]*\" n=\"scale_all\" l=\"13\" " split.xml &&
	grep -q "<P i=\"[0-9]*\" n=\"clip\" l=\"25\" " split.xml &&
	sh "$TEST_DIRECTORY/lib/check-structure.sh" "$TEST_PROGS/st-static.c" split.xml
'

test_expect_success XMLLINT 'output named from a debug file is valid' '
	test_valid_xml "$DTD" static.xml
'

test_expect_success 'a GNU symbol version (foo@V1, foo@@V2 in .symtab) is not part of the name' '
	printf "int foo_v1(int x) { return x + 1; }\nint foo_v2(int x) { return x + 2; }\n" >ver.c &&
	printf "__asm__(\".symver foo_v1, foo@V1\");\n__asm__(\".symver foo_v2, foo@@V2\");\n" >>ver.c &&
	printf "V1 { global: foo; local: *; };\nV2 { global: foo; } V1;\n" >ver.map &&
	cc -O2 -shared -fPIC -Wl,--version-script=ver.map -o libver.so ver.c &&
	nm libver.so | grep -q " T foo@@V2$" &&
	hpcstruct -o ver.xml libver.so &&
	grep -c "<P i=\"[0-9]*\" n=\"foo \\[libver.so\\]\" ln=\"foo\" " ver.xml >n &&
	echo 2 >expect && test_cmp expect n
'

test_lazy_prereq LIBC_DBG 'test -d /usr/lib/debug/.build-id && dpkg -s libc6-dbg'

test_expect_success LIBC_DBG 'libc with Debian libc6-dbg: source files and inlined code by build ID' '
	libc=$(readlink -f /lib/x86_64-linux-gnu/libc.so.6) &&
	hpcstruct -j 2 -o libc.xml "$libc" &&
	grep -q "<F i=\"[0-9]*\" n=\"[^\"]*malloc.c\">" libc.xml &&
	grep -q "<A i=\"[0-9]*\" l=\"[1-9]" libc.xml &&
	test $(grep -c "<L " libc.xml) -gt 1000
'

test_lazy_prereq SCRIPT 'command -v script'

test_expect_success SCRIPT 'a progress line on a terminal, erased at the end; none with -q or off a terminal' '
	script -qc "hpcstruct -o tty.xml st-nests" /dev/null >tty.out &&
	grep -q "hpcstruct: '"'"'st-nests'"'"': reading debug information" tty.out &&
	grep -q "hpcstruct: '"'"'st-nests'"'"': 0/[0-9]* procedures" tty.out &&
	tail -c 5 tty.out | od -c | grep -q "033   \[   K" &&
	script -qc "hpcstruct -q -o tty.xml st-nests" /dev/null >quiet.out &&
	! grep -q procedures quiet.out &&
	hpcstruct -o tty.xml st-nests 2>notty.err && test_line_count = 0 notty.err
'

test_lazy_prereq GXX 'command -v g++'

test_expect_success GXX 'C++ procedures: n is the demangled name, ln the mangled one' '
	printf "namespace ns { struct K { int v = 3; __attribute__((noinline)) int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * v; return s; } }; }\nint main(int argc, char **) { ns::K k; return k.f(argc * 10) & 1; }\n" >k.cc &&
	g++ -O2 -g -o k k.cc &&
	hpcstruct -o k.xml k &&
	grep -q "<P i=\"[0-9]*\" n=\"ns::K::f(int)\" ln=\"_ZN2ns1K1fEi\" l=\"1\"" k.xml
'

test_expect_success 'hpcprof reads our structure file' '
	if command -v hpcprof >/dev/null && hpcprof --help 2>/dev/null | grep -q -- --dump; then
		hpcprof --dump s.xml >dump && grep -q "procedures" dump
	fi
'
test_done
