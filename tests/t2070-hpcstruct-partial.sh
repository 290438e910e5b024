#!/bin/sh
test_description='hpcstruct DIR: a partial structure of the sampled procedures, extended by the cache'
. "$(dirname "$0")/test-lib.sh"

HPCSTRUCT_CACHE=$TRASH/cache
export HPCSTRUCT_CACHE
DTD=$DTD_DIR/hpc-structure.dtd

# procs FILE: each P element of FILE on one line, after its F start tag,
# ids dropped (ids number the whole document), sorted.
procs() {
	awk '/^<F /{ f = $0; sub(/ i="[0-9]*"/, "", f) }
	     /^<P /{ p = f }
	     p != "" { l = $0; gsub(/ i="[0-9]*"/, "", l); p = p "|" l }
	     /^<\/P>/{ print p; p = "" }' "$1" | sort
}

# names FILE: the names of FILE's procedures, sorted.
names() { sed -n 's/^<P i="[0-9]*" n="\([^"]*\)".*/\1/p' "$1" | sort; }

# addr SYMBOL: SYMBOL's address in $PROG (nests), plus 4 (an address
# inside it).
addr() {
	printf '%x\n' $((0x$(nm "${PROG:-nests}" |
		awk -v s="$1" '$3 == s { print $1 }') + 4))
}

# meas DIR SYMBOL...: a measurement DIR of one profile of $PROG (nests)
# whose call paths are main -> SYMBOL, one sample each.
meas() {
	dir=$1 && shift &&
	{
		echo "lm 1 $PWD/${PROG:-nests}" &&
		echo "metric cycles int" &&
		echo "node 1 0 1 $(addr main)" &&
		n=2 &&
		for s in "$@"; do
			if test "$s" = "${s#0x}"; then a=$(addr "$s"); else a=${s#0x}; fi &&
			echo "node $n 1 1 $a" && echo "value $n 0 1" &&
			n=$((n + 1)) || return 1
		done
	} >"$dir.spec" &&
	mkdir "$dir" && ./mkprofile "$dir/nests-0.hpcrun" <"$dir.spec"
}

test_expect_success 'setup: nests, its whole structure, the profile writer' '
	cc -O2 -g -o nests "$TEST_PROGS/st-nests.c" &&
	build_mkprofile &&
	hpcstruct -o whole.xml nests &&
	procs whole.xml >whole.procs
'

test_expect_success 'hpcstruct DIR writes the sampled procedures alone' '
	meas m1 nest3 nest4 &&
	hpcstruct m1 2>err &&
	grep "wrote .m1/structs/nests.hpcstruct." err &&
	names m1/structs/nests.hpcstruct >got &&
	printf "%s\n" main nest3 nest4 >expect &&
	test_cmp expect got
'

test_expect_success XMLLINT 'a partial file is valid and says what it covers before the LM tag' '
	test_valid_xml "$DTD" m1/structs/nests.hpcstruct &&
	grep -B1 "^<LM " m1/structs/nests.hpcstruct | head -n 1 >line &&
	grep -x "<?partial covers=\"{\[0x[0-9a-f]*-0x[0-9a-f]*)\( \[0x[0-9a-f]*-0x[0-9a-f]*)\)*}\"?>" line &&
	sed "s/.*{//; s/}.*//; s/) /)\n/g" line >ranges &&
	test_line_count = 3 ranges
'

test_expect_success 'each procedure of a partial file is the one the whole file has' '
	procs m1/structs/nests.hpcstruct >part.procs &&
	test_line_count = 3 part.procs &&
	comm -23 part.procs whole.procs >extra &&
	test_line_count = 0 extra
'

test_expect_success 'hpcstruct --all DIR writes the whole binary, as hpcstruct BINARY does' '
	cp -r m1 all && rm -r all/structs &&
	hpcstruct -q --all all &&
	test_cmp whole.xml all/structs/nests.hpcstruct
'

test_expect_success 'a later measurement of other procedures extends the cached entry' '
	rm -r "$HPCSTRUCT_CACHE" &&
	hpcstruct -q m1 &&
	meas m2 nest1 &&
	hpcstruct m2 2>err &&
	grep "nests.: cached structure is partial; extending it" err &&
	names m2/structs/nests.hpcstruct >got &&
	printf "%s\n" main nest1 nest3 nest4 >expect &&
	test_cmp expect got &&
	procs m2/structs/nests.hpcstruct >part2.procs &&
	comm -23 part2.procs whole.procs >extra &&
	test_line_count = 0 extra
'

test_expect_success 'a measurement the entry covers reuses it as it is' '
	meas m3 nest4 &&
	hpcstruct m3 2>err &&
	grep "nests.: reused cached structure" err &&
	test_cmp m2/structs/nests.hpcstruct m3/structs/nests.hpcstruct
'

# A node's address and the one before it (hpcprof looks both up).
test_expect_success 'an address in no procedure is covered once asked for' '
	meas m4 nest4 0x5 &&
	hpcstruct m4 2>err &&
	grep "extending it" err &&
	grep "^<?partial covers=\"{\[0x4-0x5) \[0x5-0x6) " m4/structs/nests.hpcstruct &&
	rm -r m4/structs &&
	hpcstruct m4 2>err &&
	grep "reused cached structure" err
'

test_expect_success 'a whole entry serves a partial measurement; --all replaces a partial one' '
	hpcstruct --all m4 2>err &&
	grep "cached structure is partial; analyzing the whole binary" err &&
	test_cmp whole.xml m4/structs/nests.hpcstruct &&
	rm -r m1/structs &&
	hpcstruct m1 2>err &&
	grep "reused cached structure" err &&
	test_cmp whole.xml m1/structs/nests.hpcstruct
'

test_expect_success 'hpcprof gives the same database from a partial file as from the whole' '
	rm -r "$HPCSTRUCT_CACHE" m1/structs &&
	hpcstruct -q m1 &&
	grep -q "^<?partial" m1/structs/nests.hpcstruct &&
	hpcprof -o db-part --text part.txt m1 &&
	hpcprof -S whole.xml -o db-whole --text whole.txt m1 &&
	test_cmp whole.txt part.txt &&
	test_cmp db-whole/experiment.xml db-part/experiment.xml
'

# rows() and sums() call die(), which never returns because fatal() calls
# exit(); neither is sampled, yet the calls end blocks as in the whole file
# (else the code after them makes false loops).
test_expect_success 'a sampled procedure ends blocks at unsampled calls that never return' '
	cc -O3 -g -o st-noreturn "$TEST_PROGS/st-noreturn.c" &&
	hpcstruct -o nr-whole.xml st-noreturn &&
	PROG=st-noreturn meas nr rows sums &&
	hpcstruct -q nr &&
	names nr/structs/st-noreturn.hpcstruct >got &&
	printf "%s\n" main rows sums >expect &&
	test_cmp expect got &&
	procs nr/structs/st-noreturn.hpcstruct >nr-part.procs &&
	procs nr-whole.xml >nr-whole.procs &&
	test_line_count = 3 nr-part.procs &&
	comm -23 nr-part.procs nr-whole.procs >extra &&
	test_line_count = 0 extra &&
	grep -c "<L " nr/structs/st-noreturn.hpcstruct >loops &&
	echo 5 >expect &&
	test_cmp expect loops
'

LIBPY=$(ls "$HOME"/.pyenv/versions/3.12.1/lib/libpython3.12.so.1.0 2>/dev/null)
test_lazy_prereq LIBPYTHON 'test -n "$LIBPY" && "$(dirname "$LIBPY")/../bin/python3.12" -c "" &&
	ldd "$(dirname "$LIBPY")/../bin/python3.12" | grep -q libpython3.12'

test_expect_success LIBPYTHON "CPython's sampled procedures in libpython are the whole file's" '
	py=$(dirname "$LIBPY")/../bin/python3.12 &&
	hpcrun -o pym "$py" -c "
import json, re
s = 0
for i in range(100000):
    s += len(json.dumps({\"a\": [i, str(i)]})) + len(re.findall(\"a\", \"banana\"))
" &&
	hpcstruct -q pym &&
	hpcstruct -q -o py-whole.xml "$LIBPY" &&
	procs pym/structs/libpython3.12.so.1.0.hpcstruct >py-part.procs &&
	procs py-whole.xml >py-whole.procs &&
	test $(wc -l <py-part.procs) -ge 50 &&
	comm -23 py-part.procs py-whole.procs >extra &&
	test_line_count = 0 extra
'

test_done
