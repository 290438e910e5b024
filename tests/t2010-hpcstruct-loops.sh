#!/bin/sh
test_description='hpcstruct: loop nests, inlined loops, irreducible loops, jump tables, calls that never return (gcc and clang, -O0/-O2/-O3)'
. "$(dirname "$0")/test-lib.sh"

DTD=$DTD_DIR/hpc-structure.dtd
CHECK=$TEST_DIRECTORY/check-structure.sh

# check_prog CC OPT PROG: the // CHECK: comments of PROG hold.
check_prog() {
	$1 -$2 -g -o $3-$1$2 "$TEST_PROGS/$3.c" &&
	hpcstruct -o $3-$1$2.xml $3-$1$2 &&
	sh "$CHECK" "$TEST_PROGS/$3.c" $3-$1$2.xml &&
	if test_have_prereq XMLLINT; then test_valid_xml "$DTD" $3-$1$2.xml; fi
}

test_expect_success 'the checker fails on a wrong expectation' '
	cc -O2 -g -o nests "$TEST_PROGS/st-nests.c" &&
	hpcstruct -o nests.xml nests &&
	sed "s/loop depth=4 proc=nest4/loop depth=3 proc=nest4/" \
		"$TEST_PROGS/st-nests.c" >st-nests.c &&
	test_must_fail sh "$CHECK" st-nests.c nests.xml >out &&
	grep -q "no loop matching: loop depth=3 proc=nest4" out
'

for prog in st-nests st-inline st-control st-noreturn; do
	for opt in O0 O2 O3; do
		test_expect_success "$prog, gcc -$opt" "check_prog gcc $opt $prog"
		test_expect_success CLANG "$prog, clang -$opt" "check_prog clang $opt $prog"
	done
done

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
	grep -q "<A i=\"[0-9]*\" l=\"31\" f=\"[^\"]*st-inline.c\" n=\"bump\" v=\"{}\">" pair
'

test_expect_success 'the irreducible loop is found at -O0 by both entries' '
	sed -n "/n=\"irreducible\"/,/<\/P>/p" st-control-gccO0.xml | grep -c "<L " >n &&
	echo 1 >expect && test_cmp expect n
'
test_done
