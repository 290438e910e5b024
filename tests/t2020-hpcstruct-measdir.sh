#!/bin/sh
test_description='hpcstruct MEASUREMENT-DIR: sampled modules, skipped pseudo-modules, build-ID cache'
. "$(dirname "$0")/test-lib.sh"

HPCSTRUCT_CACHE=$TRASH/cache
export HPCSTRUCT_CACHE
test_lazy_prereq HPCRUN_WRITER 'nm "$HPC_BUILD/obj/libhpc.a" | grep -q " T hpcrun_fmt_write"'

test_expect_success HPCRUN_WRITER 'setup: two profiles naming binaries, a pseudo-module and a missing file' '
	san= &&
	if nm "$HPC_BUILD/obj/libhpc.a" | grep -q __asan_init; then
		san=-fsanitize=address,undefined
	fi &&
	cc $san -I"$SRC_ROOT/lib" -o mkmeas "$TEST_PROGS/st-mkmeas.c" \
		"$HPC_BUILD/obj/libhpc.a" $(pkg-config --libs libdw libelf capstone libxml-2.0 zlib) &&
	cc -O2 -g -o nests "$TEST_PROGS/st-nests.c" &&
	cc -O2 -g -o inl "$TEST_PROGS/st-inline.c" &&
	cc -O2 -g -o unsampled "$TEST_PROGS/st-control.c" &&
	mkdir m &&
	./mkmeas m/p-000000-000-0-1-0.hpcrun +$PWD/nests "+[vdso]" -$PWD/unsampled +/no/such/lib.so &&
	./mkmeas m/p-000000-001-0-1-0.hpcrun +$PWD/nests +$PWD/inl
'

test_expect_success HPCRUN_WRITER 'every sampled binary gets structs/BASENAME.hpcstruct and its index, nothing else' '
	hpcstruct m 2>err &&
	ls m/structs >got &&
	printf "%s\n" inl.hpcstruct inl.hpcstruct.idx nests.hpcstruct nests.hpcstruct.idx >expect &&
	test_cmp expect got &&
	grep -x "hpcstruct: '"'"'\[vdso\]'"'"': not a file, skipped" err &&
	grep -x "hpcstruct: '"'"'/no/such/lib.so'"'"': not a file, skipped" err &&
	hpcstruct -o nests.xml nests &&
	test_cmp nests.xml m/structs/nests.hpcstruct
'

test_expect_success HPCRUN_WRITER 'a second run reuses the cache and says so' '
	rm -r m/structs &&
	hpcstruct -j 2 m 2>err &&
	grep -c "reused cached structure (v[0-9.]*-f[0-9]*-buildid-[0-9a-f]*)" err >n &&
	echo 2 >expect && test_cmp expect n &&
	test_cmp nests.xml m/structs/nests.hpcstruct
'

build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }

test_expect_success HPCRUN_WRITER 'a structure file names its build in a comment after the LM tag' '
	id=$(build_id nests) && test -n "$id" &&
	sed -n "/<LM /{n;p;}" m/structs/nests.hpcstruct >got &&
	echo "<!-- build-id: $id -->" >expect &&
	test_cmp expect got
'

# The cache entry of nests.
nests_entry() {
	echo "$HPCSTRUCT_CACHE/v$(hpcstruct --version | sed "s/.* //")-f4-buildid-$(build_id nests)-nests.hpcstruct"
}

# bad_entry WHY: the cache entry of nests, made bad by the test, is said to
# be bad (WHY) in one line, replaced by a good one, exit 0.
bad_entry() {
	entry=$(nests_entry) &&
	rm -rf m/structs &&
	timeout 20 hpcstruct -q m 2>err &&
	echo "hpcstruct: warning: '$entry': $1; analyzing '$PWD/nests' again" >expect &&
	test_cmp expect err &&
	test_cmp nests.xml m/structs/nests.hpcstruct &&
	test -f "$entry" && ! test -L "$entry" &&
	tail -n 1 "$entry" | grep -x "</HPCToolkitStructure>" &&
	hpcstruct -q m 2>err && test_line_count = 0 err
}

test_expect_success HPCRUN_WRITER 'a truncated cache entry is analyzed again, not reused' '
	entry=$(nests_entry) && test -f "$entry" &&
	head -c 3000 "$entry" >cut && mv cut "$entry" &&
	bad_entry "cached structure cut short (no </HPCToolkitStructure>)"
'

test_expect_success HPCRUN_WRITER 'a cache entry that is a symbolic link (to any file) is not followed' '
	ln -sf /etc/passwd "$(nests_entry)" &&
	bad_entry "a symbolic link, not a cached structure" &&
	grep -q "^root:" /etc/passwd
'

test_expect_success HPCRUN_WRITER 'a cache entry made for another build is not reused' '
	id=$(build_id nests) && entry=$(nests_entry) &&
	sed "s/<!-- build-id: $id -->/<!-- build-id: 0123 -->/" "$entry" >other.xml &&
	mv other.xml "$entry" &&
	bad_entry "cached structure of build ID 0123, not of the binary'"'"'s $id"
'

test_expect_success HPCRUN_WRITER 'a cache entry without a build ID (made before them) is not reused' '
	entry=$(nests_entry) &&
	sed "/<!-- build-id: /d" "$entry" >old.xml && mv old.xml "$entry" &&
	bad_entry "cached structure of build ID none, not of the binary'"'"'s $(build_id nests)"
'

test_expect_success HPCRUN_WRITER 'a cache entry that is a FIFO is not waited on' '
	rm "$(nests_entry)" && mkfifo "$(nests_entry)" &&
	bad_entry "not a regular file (a FIFO), not a structure file"
'

test_expect_success HPCRUN_WRITER 'a cached structure names the binary it was reused for' '
	mkdir other && cp nests other/nests &&
	./mkmeas m2.hpcrun +$PWD/other/nests && mkdir m2 && mv m2.hpcrun m2/ &&
	hpcstruct m2 2>err && grep -q "reused cached" err &&
	grep -q "<LM i=\"2\" n=\"$PWD/other/nests\"" m2/structs/nests.hpcstruct
'

test_expect_success HPCRUN_WRITER 'two modules with one basename get two structure files' '
	mkdir a b && cp nests a/lib.so && cp inl b/lib.so &&
	./mkmeas m4.hpcrun +$PWD/a/lib.so +$PWD/b/lib.so && mkdir m4 && mv m4.hpcrun m4/ &&
	hpcstruct -q m4 &&
	grep -q "<LM i=\"2\" n=\"$PWD/a/lib.so\"" m4/structs/lib.so.hpcstruct &&
	grep -q "<LM i=\"2\" n=\"$PWD/b/lib.so\"" m4/structs/lib.so-2.hpcstruct
'

test_expect_success HPCRUN_WRITER 'a load-map path that is a FIFO is skipped, not waited on' '
	mkfifo lm.fifo &&
	./mkmeas m6.hpcrun +$PWD/lm.fifo +$PWD/inl && mkdir m6 && mv m6.hpcrun m6/ &&
	timeout 20 hpcstruct m6 2>err &&
	grep -x "hpcstruct: '"'"'$PWD/lm.fifo'"'"': not a file, skipped" err &&
	ls m6/structs >got && printf "%s\n" inl.hpcstruct inl.hpcstruct.idx >expect && test_cmp expect got
'

test_expect_success HPCRUN_WRITER 'a *.hpcrun FIFO in the directory: one warning, the other profiles read' '
	mkfifo m6/z.hpcrun &&
	rm -r m6/structs &&
	timeout 20 hpcstruct -q m6 2>err &&
	echo "hpcstruct: warning: '"'"'m6/z.hpcrun'"'"': not a regular file (a FIFO), not a profile" >expect &&
	test_cmp expect err &&
	ls m6/structs >got && printf "%s\n" inl.hpcstruct inl.hpcstruct.idx >expect && test_cmp expect got
'

test_expect_success HPCRUN_WRITER '-q silences notes; a bad binary fails the run but not the others' '
	echo "not elf" >fake.so &&
	./mkmeas m3.hpcrun +$PWD/fake.so +$PWD/inl && mkdir m3 && mv m3.hpcrun m3/ &&
	test_must_fail hpcstruct -q m3 2>err &&
	test_line_count = 1 err &&
	grep -q "fake.so'"'"': not an ELF file" err &&
	test -s m3/structs/inl.hpcstruct
'

test_expect_success HPCRUN_WRITER 'a vdso copy cut short: one line naming it, the others written, exit 1' '
	mkdir -p m5/vdso &&
	head -c $(($(wc -c <inl) - 100)) inl >m5/vdso/0badc0de.vdso &&
	./mkmeas m5/p-000000-000-0-1-0.hpcrun +$PWD/nests +$PWD/m5/vdso/0badc0de.vdso +$PWD/inl &&
	test_must_fail hpcstruct -q -j 2 m5 2>err &&
	test_line_count = 1 err &&
	grep -x "hpcstruct: '"'"'$PWD/m5/vdso/0badc0de.vdso'"'"': truncated: its section headers end at byte [0-9]*, the file at byte [0-9]*; skipped" err &&
	ls m5/structs >got &&
	printf "%s\n" inl.hpcstruct inl.hpcstruct.idx nests.hpcstruct nests.hpcstruct.idx >expect &&
	test_cmp expect got &&
	test_cmp nests.xml m5/structs/nests.hpcstruct &&
	hpcstruct -o inl.xml inl && test_cmp inl.xml m5/structs/inl.hpcstruct &&
	! ls "$HPCSTRUCT_CACHE" | grep -q vdso
'

test_expect_success HPCRUN_WRITER 'without -q the others say wrote or reused, the cut copy says skipped' '
	rm -r m5/structs &&
	test_must_fail hpcstruct m5 2>err &&
	test_line_count = 3 err &&
	grep -c "reused cached structure" err >n && echo 2 >expect && test_cmp expect n &&
	grep -q "0badc0de.vdso'"'"': truncated: .*; skipped$" err
'

test_expect_success FIXTURES 'HPCToolkit measurement directories: absent modules skipped, present ones analyzed' '
	cp -r "$FIXTURES/loops-perf.m" lp &&
	rm -rf lp/structs &&
	hpcstruct lp 2>err &&
	grep -q "testmeas-loops'"'"': not a file, skipped" err &&
	for f in $(ls lp/structs | grep -v "\.idx$"); do
		grep -q "/${f%.hpcstruct}'"'"': wrote '"'"'lp/structs/$f'"'"'" err || exit 1
	done
'

test_expect_success '-o with a measurement directory is a usage error' '
	mkdir d && status=0 && hpcstruct -o x d 2>err || status=$? &&
	test $status = 2
'
test_done
