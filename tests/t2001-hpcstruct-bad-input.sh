#!/bin/sh
test_description='hpcstruct: bad inputs give one clear line and a non-zero exit, never a crash'
. "$(dirname "$0")/test-lib.sh"

# expect_refusal FILE PATTERN: status 1, exactly one stderr line matching.
expect_refusal() {
	test_must_fail hpcstruct -o out.xml "$1" 2>err &&
	test_line_count = 1 err &&
	grep -q "^hpcstruct: '$1': $2" err &&
	! test -e out.xml
}

test_expect_success 'setup' '
	cc -O2 -g -o good "$TEST_PROGS/st-nests.c" &&
	echo "hello, world" >text &&
	: >empty &&
	head -c 1000 good >truncated &&
	head -c 20000 good >truncated2 &&
	cp good arm && printf "\267\000" | dd of=arm bs=1 seek=18 conv=notrunc 2>/dev/null &&
	cp good elf32 && printf "\001" | dd of=elf32 bs=1 seek=4 conv=notrunc 2>/dev/null &&
	cc -c -o obj.o "$TEST_PROGS/st-nests.c"
'

test_expect_success 'not an ELF file' 'expect_refusal text "not an ELF file"'
test_expect_success 'an empty file' 'expect_refusal empty "empty file"'
test_expect_success 'a missing file' 'expect_refusal nosuch "No such file or directory"'
test_expect_success 'a truncated ELF file: where its section headers end, where the file ends' '
	expect_refusal truncated "truncated: its section headers end at byte [0-9]*, the file at byte 1000$"
'
test_expect_success 'another architecture' 'expect_refusal arm "unsupported architecture"'
test_expect_success 'a 32-bit ELF file' 'expect_refusal elf32 ""'
test_expect_success 'a relocatable object' 'expect_refusal obj.o "not an executable or shared library"'

test_expect_success 'a file cut inside its sections is truncated too' '
	expect_refusal truncated2 "truncated: .*the file at byte 20000$"
'

test_expect_success 'a FIFO given as the binary is refused at once, not waited on' '
	mkfifo fifo &&
	status=0 && timeout 20 hpcstruct -o out.xml fifo 2>err || status=$? &&
	test $status = 1 &&
	echo "hpcstruct: '"'"'fifo'"'"': not a regular file (a FIFO), not an ELF file" >expect &&
	test_cmp expect err &&
	! test -e out.xml
'

test_expect_success 'a directory without profiles' '
	mkdir d &&
	test_must_fail hpcstruct d 2>err &&
	test_line_count = 1 err &&
	grep -q "^hpcstruct: '"'"'d'"'"': not a measurement directory" err
'

test_expect_success 'usage errors exit 2' '
	status=0 && hpcstruct 2>err || status=$? && test $status = 2 &&
	status=0 && hpcstruct good good 2>err || status=$? && test $status = 2 &&
	status=0 && hpcstruct -j 0 good 2>err || status=$? && test $status = 2
'

# corrupt SEED FILE: 8 random bytes of FILE overwritten (deterministic).
corrupt() {
	awk -v s=$1 -v size=$(wc -c <"$2") 'BEGIN { srand(s)
		for (i = 0; i < 8; i++) printf "%d %d\n", int(rand() * size), int(rand() * 256) }' |
	while read off val; do
		printf "$(printf "\\%03o" $val)" |
			dd of="$2" bs=1 seek=$off conv=notrunc 2>/dev/null
	done
}

test_expect_success 'randomly corrupted binaries: a result or a refusal, never a crash' '
	for seed in $(seq 1 40); do
		cp good c && corrupt $seed c &&
		status=0 && hpcstruct -o c.xml c 2>err || status=$?
		if test $status -gt 1 || grep -q "Sanitizer\|runtime error" err; then
			echo "seed $seed: status $status"; cat err; exit 1
		fi
	done
'

test_expect_success 'corrupted section headers and DWARF: never a crash' '
	shoff=$(readelf -h good | sed -n "s/.*Start of section headers: *\([0-9]*\).*/\1/p") &&
	dinfo=$(readelf -S -W good | awk "/\.debug_info/ { print \$5 }") &&
	for seed in $(seq 1 20); do
		cp good c &&
		head -c $shoff good >/dev/null &&
		awk -v s=$seed -v a=$shoff -v b=$((0x$dinfo)) "BEGIN { srand(s)
			for (i = 0; i < 6; i++) printf \"%d %d\\n\", (i % 2 ? b : a) + int(rand() * 400), int(rand() * 256) }" |
		while read off val; do
			printf "$(printf "\\%03o" $val)" |
				dd of=c bs=1 seek=$off conv=notrunc 2>/dev/null
		done &&
		status=0 && hpcstruct -o c.xml c 2>err || status=$?
		if test $status -gt 1 || grep -q "Sanitizer\|runtime error" err; then
			echo "seed $seed: status $status"; cat err; exit 1
		fi
	done
'

# found by tests/fuzz: a PLT section grown over .text made a procedure
# that no section held
test_expect_success 'a PLT section overlapping the code is ignored' '
	cp good overlap && set_section_size overlap .plt.got 2048 &&
	readelf -S -W overlap | grep -q " .plt.got .* 000800 " &&
	hpcstruct -o overlap.xml overlap 2>err &&
	test ! -s err &&
	grep "<P " overlap.xml >procs &&
	grep -q "n=\"nest4\"" procs
'

# found by tests/fuzz: bytes that are not UTF-8 went into the XML as they
# were, and hpcprof refused the file
test_expect_success 'a symbol name that is not UTF-8 is written with ?, the file stays well-formed' '
	strtab=$(readelf -S -W good | sed -n "s/^ *\[ *[0-9]*\] \.strtab *STRTAB *[0-9a-f]* \([0-9a-f]*\) .*/\1/p") &&
	off=$(grep -boa nest4 good | cut -d: -f1 |
		while read o; do test $o -lt $((0x$strtab)) || echo $o; done | head -n 1) &&
	cp good latin1 && printf "\351" | dd of=latin1 bs=1 seek=$((off + 2)) conv=notrunc 2>/dev/null &&
	hpcstruct -o latin1.xml latin1 &&
	grep -q "<P [^>]*n=\"ne?t4\"" latin1.xml &&
	if test_have_prereq XMLLINT; then
		xmllint --noout --nonet --dtdvalid "$DTD_DIR/hpc-structure.dtd" latin1.xml
	fi
'

# found by tests/fuzz: a binary of no procedures gave its index no
# ranges, and sorting them passed qsort a NULL array (UBSan)
test_expect_success 'a binary without procedures: its structure file and an index' '
	hpcstruct -o none.xml "$TEST_DIRECTORY/fuzz/corpus-hpcstruct/found-index-no-ranges" &&
	! grep -q "<P " none.xml &&
	test -s none.xml.idx
'

test_expect_success 'a procedure over the instruction cap: one warning, a valid prefix' '
	hpcstruct --max-insns 20 -o capped.xml good 2>err &&
	grep -q "^hpcstruct: warning: '"'"'good'"'"': procedure '"'"'nest4'"'"' has more than 20 instructions; only the first 20 were analyzed$" err &&
	test $(grep -c "procedure '"'"'nest4'"'"'" err) = 1 &&
	if test_have_prereq XMLLINT; then
		xmllint --noout --nonet --dtdvalid "$DTD_DIR/hpc-structure.dtd" capped.xml
	fi
'

test_expect_success 'a full device: one line, the file, "write error" and why' '
	test_must_fail hpcstruct -o /dev/full good 2>err &&
	echo "hpcstruct: '"'"'/dev/full'"'"': write error: No space left on device" >expect &&
	test_cmp expect err
'

test_expect_success 'a regular file that cannot grow: the same, no file left behind' '
	(trap "" XFSZ && ulimit -f 2 && test_must_fail hpcstruct -o big.xml good 2>err) &&
	echo "hpcstruct: '"'"'big.xml'"'"': write error: File too large" >expect &&
	test_cmp expect err &&
	! ls big.xml*
'

test_expect_success 'a failed run leaves an existing output file alone' '
	echo keep >out.xml &&
	test_must_fail hpcstruct -o out.xml text 2>err &&
	echo keep >expect && test_cmp expect out.xml
'
test_done
