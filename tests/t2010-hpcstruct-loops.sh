#!/bin/sh
test_description='hpcstruct: loop nests, inlined loops, irreducible loops, jump tables, calls that never return (gcc and clang, -O0/-O2/-O3)'
. "$(dirname "$0")/test-lib.sh"

DTD=$DTD_DIR/hpc-structure.dtd
CHECK=$TEST_DIRECTORY/lib/check-structure.sh

# check_prog CC OPT PROG [shared]: the // CHECK: comments of PROG hold
# (PROG built as a shared library with "shared").
check_prog() {
	out=$3-$1$2 flags=
	if test "$4" = shared; then out=lib$out.so flags="-shared -fPIC"; fi
	$1 -$2 -g $flags -o $out "$TEST_PROGS/$3.c" &&
	hpcstruct -o $out.xml $out &&
	sh "$CHECK" "$TEST_PROGS/$3.c" $out.xml &&
	if test_have_prereq XMLLINT; then test_valid_xml "$DTD" $out.xml; fi
}

# checker_fails PROG SCRIPT LINE: with the CHECK comments of PROG (gcc -O2)
# edited by the sed SCRIPT, the checker fails and says LINE.
checker_fails() {
	cc -O2 -g -o $1 "$TEST_PROGS/$1.c" &&
	hpcstruct -o $1.xml $1 &&
	sed "$2" "$TEST_PROGS/$1.c" >$1.c &&
	test_must_fail sh "$CHECK" $1.c $1.xml >out &&
	grep -x "$3" out
}

test_expect_success 'the checker fails on a wrong expectation' '
	checker_fails st-nests "s/loop depth=4 proc=nest4/loop depth=3 proc=nest4/" \
		"line 36: no loop matching: loop depth=3 proc=nest4"
'

test_expect_success 'the checker fails on a wrong alien line' '
	checker_fails st-alien "/sink = n;/s|// CHECK: .*||; /for (int i = 0; i < n/s|// CHECK: .*|// CHECK: alien=f_inlined proc=api|" \
		"line 14: no alien f_inlined here (found l=13 f=st-alien.c)"
'

for prog in st-nests st-inline st-control st-noreturn; do
	for opt in O0 O2 O3; do
		test_expect_success "$prog, gcc -$opt" "check_prog gcc $opt $prog"
		test_expect_success CLANG "$prog, clang -$opt" "check_prog clang $opt $prog"
	done
done

# st-alien: callee aliens carry the callee's file and first statement's line
for opt in O0 O2; do
	test_expect_success "st-alien, gcc -$opt" "check_prog gcc $opt st-alien"
	test_expect_success CLANG "st-alien, clang -$opt" "check_prog clang $opt st-alien"
	test_expect_success "st-alien, gcc -$opt -shared -fPIC" "check_prog gcc $opt st-alien shared"
	test_expect_success CLANG "st-alien, clang -$opt -shared -fPIC (DWARF 5 file 0)" "check_prog clang $opt st-alien shared"
done

test_expect_success CLANG 'clang'"'"'s DWARF 5 relative names ("./hdr.h") are made absolute with the unit'"'"'s directory' '
	printf "static inline __attribute__((always_inline)) int sum(int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n; i++)\n\t\ts += i;\n\treturn s;\n}\n" >hdr.h &&
	printf "#include \"hdr.h\"\nint api(int n) { return sum(n); }\n" >rel.c &&
	clang -O0 -g -shared -fPIC -o librel.so rel.c &&
	hpcstruct -o rel.xml librel.so &&
	grep -o " f=\"[^\"]*\"" rel.xml | sort -u >got &&
	printf " f=\"$PWD/hdr.h\"\n f=\"$PWD/rel.c\"\n" >expect &&
	test_cmp expect got &&
	grep -x "  <A i=\"[0-9]*\" l=\"3\" f=\"$PWD/hdr.h\" n=\"sum\" v=\"{}\">" rel.xml &&
	grep -q "<F i=\"[0-9]*\" n=\"$PWD/rel.c\">" rel.xml
'

test_expect_success 'gcc -O2: an inlined loop stays in its callee despite a stray caller line' '
	check_prog gcc O2 st-outlier
'

test_expect_success 'the loop line is the loop test: nest4 at -O2 has its four lines' '
	sed -n "/n=\"nest4\"/,/<\/P>/p" st-nests-gccO2.xml | grep "<L " |
		sed "s/.* l=\"\([0-9]*\)\".*/\1/" >lines &&
	printf "33\n34\n35\n36\n" >expect &&
	test_cmp expect lines
'

test_expect_success 'a loop header address is the start of a block inside the loop' '
	sed -n "/n=\"nest1\"/,/<\/P>/p" st-nests-gccO2.xml >nest1 &&
	h=$(sed -n "s/.*<L [^>]*v=\"{\[0x\([0-9a-f]*\)-.*/\1/p" nest1) &&
	objdump -d --no-show-raw-insn st-nests-gccO2 |
		grep -E "j[a-z]+ +$h " >backedge &&
	test_line_count -ge 1 backedge
'

test_expect_success 'inlined code is an empty-named call-site alien holding the callee alien' '
	sed -n "/n=\"caller\"/,/<\/P>/p" st-inline-gccO2.xml >caller &&
	grep -A1 "<A i=\"[0-9]*\" l=\"39\" f=\"[^\"]*st-inline.c\" n=\"\" v=\"{}\">" caller >pair &&
	grep -q "<A i=\"[0-9]*\" l=\"33\" f=\"[^\"]*st-inline.c\" n=\"bump\" v=\"{}\">" pair
'

test_expect_success 'the irreducible loop is found at -O0 by both entries' '
	sed -n "/n=\"irreducible\"/,/<\/P>/p" st-control-gccO0.xml | grep -c "<L " >n &&
	echo 1 >expect && test_cmp expect n
'
test_done
