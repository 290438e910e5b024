#!/bin/sh
test_description='hpcstruct: the lexical structure of a shared library in 8 builds (gcc and clang, -O0 and -O3, with and without -g): loop lines are the loop tests'"'"' lines, nests, inlined loops'
. "$(dirname "$0")/test-lib.sh"

DTD=$DTD_DIR/hpc-structure.dtd
CHECK=$TEST_DIRECTORY/lib/check-structure.sh
SRC=$TEST_PROGS/st-lexical.c

# build CC OPT G: libst-lexical-CCOPTG.so built from SRC (G = g: with -g)
# and its structure file libst-lexical-CCOPTG.so.xml.
build() {
	lib=libst-lexical-$1$2$3.so flags=
	if test "$3" = g; then flags=-g; fi
	$1 -$2 $flags -shared -fPIC -o $lib "$SRC" &&
	hpcstruct -o $lib.xml $lib &&
	if test_have_prereq XMLLINT; then test_valid_xml "$DTD" $lib.xml; fi
}

# nests_expected SOURCE: "PROC DEPTH" for every loop CHECK comment of
# SOURCE, sorted.
nests_expected() {
	sed -n "s|.*// CHECK: loop depth=\([0-9]*\).* proc=\([a-z_0-9]*\).*|\2 \1|p" "$1" |
		sort
}

# nests_of FILE: "PROC DEPTH" for every loop of the lx_ procedures of the
# structure FILE, "alien" for every alien and "line" and the element for
# every loop with a line, sorted.
nests_of() {
	awk '
	/<P / { match($0, / n="[^" ]*/); proc = substr($0, RSTART + 4, RLENGTH - 4)
		depth = 0 }
	/<A / { print "alien" }
	/<L / { depth++
		if (proc ~ /^lx_/) print proc, depth
		if ($0 !~ / l="0"/) print "line", $0 }
	/<\/L>/ { depth-- }' "$1" | sort
}

# check CC OPT G: the structure of the build holds the CHECK comments of
# SRC; without -g (no lines, no inlining information), it has the loop
# nests they state, each loop of line 0 and no alien.
check() {
	lib=libst-lexical-$1$2$3.so
	if test "$3" = g; then
		sh "$CHECK" "$SRC" $lib.xml
	else
		nests_expected "$SRC" >nests.expect &&
		nests_of $lib.xml >nests.found &&
		test_cmp nests.expect nests.found
	fi
}

# the line of lx_split's increment
inc=$(($(grep -n "a < lim_a;.*proc=lx_split" "$SRC" | cut -d: -f1) + 1))

test_expect_success 'gcc -O0 -g: no loop sits at the line of a for'"'"'s increment' '
	sed "${inc}s|\$|	// CHECK: loop depth=1 in=- proc=lx_split|" "$SRC" >st-lexical.c &&
	gcc -O0 -g -shared -fPIC -o libinc.so st-lexical.c &&
	hpcstruct -o libinc.so.xml libinc.so &&
	test_must_fail sh "$CHECK" st-lexical.c libinc.so.xml >out &&
	grep -x "line $inc: no loop matching: loop depth=1 in=- proc=lx_split" out
'

test_expect_success 'without -g, the nest check fails on a missing loop' '
	build gcc O0 "" &&
	sed "/proc=lx_nest3/s|loop depth=3|loop depth=4|" "$SRC" >st-lexical.c &&
	nests_expected st-lexical.c >nests.expect &&
	nests_of libst-lexical-gccO0.so.xml >nests.found &&
	test_must_fail test_cmp nests.expect nests.found
'

for cc in gcc clang; do
	prereq=
	if test $cc = clang; then prereq=CLANG; fi
	for opt in O0 O3; do
		test_expect_success $prereq "$cc -$opt -g -shared" "build $cc $opt g && check $cc $opt g"
		test_expect_success $prereq "$cc -$opt -shared (no -g)" "build $cc $opt '' && check $cc $opt ''"
	done
done

test_done
