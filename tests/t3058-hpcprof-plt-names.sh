#!/bin/sh
test_description='PLT stubs are named NAME@plt as objdump names them, with and without a structure file'
. "$(dirname "$0")/test-lib.sh"

HPCSTRUCT_CACHE=$TRASH/cache
export HPCSTRUCT_CACHE

# plt_objdump BINARY: "ADDR NAME" for each of BINARY's PLT entries, as
# objdump -d labels them.
plt_objdump() {
	objdump -d "$1" | sed -n 's/^0*\([0-9a-f]*\) <\(.*@plt\)>:$/\1 \2/p' | sort
}

# plt_struct FILE: "ADDR NAME" for each @plt procedure of structure file
# FILE, NAME its link name (ln, else n without " [LIBNAME]").
plt_struct() {
	sed -n 's/.*<P i="[0-9]*" n="\([^"]*@plt\)\( \[[^]]*\]\)\{0,1\}"\( ln="\([^"]*\)"\)\{0,1\} l="[0-9]*" v="{\[0x\([0-9a-f]*\)-.*/\5 \1|\4/p' "$1" |
	sed 's/ [^|]*|\(..*\)$/ \1/; s/|$//; s/&amp;/\&/g' | sort
}

# meas_plt DIR BINARY: a measurement DIR of one profile of BINARY with one
# sample 2 bytes into each of its PLT entries.
meas_plt() {
	plt_objdump "$2" >"$1.plt" &&
	{
		echo "lm 1 $2" &&
		echo "metric cycles int" &&
		n=1 &&
		while read -r addr name; do
			printf "node %d 0 1 %x\nvalue %d 0 1\n" $n $((0x$addr + 2)) $n &&
			n=$((n + 1)) || return 1
		done <"$1.plt"
	} >"$1.spec" &&
	mkdir "$1" && ./mkprofile "$1/$(basename "$2")-0.hpcrun" <"$1.spec"
}

# procs DB: the names of DB's procedures, sorted.
procs() {
	sed -n 's/^ *<Procedure i="[0-9]*" n="\([^"]*\)".*/\1/p' "$1/experiment.xml" |
	sed 's/&amp;/\&/g' | sort -u
}

# A hot loop through the PLT: labs, not inlined (-fno-builtin), costs
# about as much as the stub's indirect jump, so a quarter of the samples
# land in the stub.
test_expect_success 'setup: a hot loop calling labs through the PLT, lazy, -z now and IBT' '
	cat >hot.c <<-\EOF &&
	#include <stdio.h>
	#include <stdlib.h>

	int main(int argc, char **argv)
	{
		long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;

		for (long i = 0; i < n; i++)
			sum += labs(i - n / 2);
		printf("%ld\n", sum);
		return 0;
	}
	EOF
	cc -O2 -g -fno-builtin -o hot-lazy hot.c &&
	cc -O2 -g -fno-builtin -Wl,-z,now -o hot-now hot.c &&
	readelf -SW hot-lazy | grep -q " \.plt " &&
	plt_objdump hot-lazy | grep -q " labs@plt$" &&
	if cc -O2 -g -fno-builtin -fcf-protection -Wl,-z,ibtplt -o hot-ibt hot.c 2>/dev/null &&
	   readelf -SW hot-ibt | grep -q " \.plt\.sec "; then
		echo hot-ibt >ibt
	fi &&
	build_mkprofile
'

test_lazy_prereq IBTPLT 'test -s "$TRASH/ibt"'
LIBC=$(cc -print-file-name=libc.so.6)
# binaries: the test programs, then libc (IRELATIVE stubs: *ABS*+0xADDR@plt)
binaries() { echo hot-lazy hot-now $(cat ibt 2>/dev/null) "$LIBC"; }

test_expect_success IBTPLT 'the IBT build has .plt.sec stubs: endbr64; jmp *GOT(%rip)' '
	objdump -d -j .plt.sec hot-ibt | grep -A2 "<labs@plt>:" >stub &&
	grep -q endbr64 stub && grep -q "jmp  *\*0x[0-9a-f]*(%rip)" stub
'

test_expect_success 'hpcstruct names every PLT entry, at its address, as objdump does' '
	for b in $(binaries); do
		hpcstruct -o s.xml "$b" &&
		plt_objdump "$b" >expect &&
		test -s expect &&
		plt_struct s.xml >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success 'hpcprof without a structure file names every PLT entry as objdump does' '
	for b in $(binaries); do
		d=m-$(basename "$b") &&
		meas_plt $d "$(realpath "$b")" &&
		hpcprof -o db-$d $d 2>err &&
		grep "no structure file" err &&
		cut -d" " -f2 $d.plt | sort -u >expect &&
		procs db-$d >actual &&
		test_cmp expect actual || exit 1
	done
'

test_expect_success 'hpcprof with a structure file names them the same' '
	for b in $(binaries); do
		d=m-$(basename "$b") &&
		hpcstruct $d 2>err &&
		hpcprof -o dbs-$d $d 2>err &&
		! grep "no structure file" err &&
		procs db-$d >expect &&
		procs dbs-$d >actual &&
		test_cmp expect actual || exit 1
	done
'

# names_of BINARY: the procedure names hpcstruct and hpcprof (without a
# structure file) give BINARY's PLT entries, one a line, or a failure
# when either one crashed.
names_of() {
	rm -rf mb dbb && meas_plt mb "$PWD/$1" &&
	{ hpcstruct -o b.xml "$1" 2>/dev/null; test $? -lt 128; } &&
	{ hpcprof -o dbb mb 2>/dev/null; test $? -lt 128; } &&
	{ sed -n "s/.*<P i=\"[0-9]*\" n=\"\([^\"]*\)\".*/\1/p" b.xml 2>/dev/null; procs dbb 2>/dev/null; } |
	grep -v "^<unknown>" | sort -u
}

test_expect_success 'a malformed PLT names no entry and crashes nothing' '
	off=$(readelf -SW hot-lazy | sed -n "s/.* \.plt  *PROGBITS *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p") &&
	set -- $off && test -n "$2" &&
	cp hot-lazy junk-jmp &&
	# every .plt entry jumps through a slot no relocation is for
	for k in $(seq 0 $((0x$2 / 8 - 1))); do printf "\377\045\377\377\377\177\220\220"; done |
		dd of=junk-jmp bs=1 seek=$((0x$1)) conv=notrunc 2>/dev/null &&
	names_of junk-jmp >names &&
	echo __cxa_finalize@plt >expect &&
	grep @plt names >actual &&
	test_cmp expect actual &&
	cp hot-lazy long-plt && set_section_size long-plt .plt 0x7fffffff &&
	names_of long-plt >names &&
	! grep "labs@plt" names &&
	cp hot-lazy long-rela && set_section_size long-rela .rela.plt 0x7fffffff &&
	names_of long-rela >names &&
	! grep "labs@plt" names
'

test_lazy_prereq GXX 'command -v g++'

test_expect_success GXX 'a C++ stub is DEMANGLED@plt, with a structure file or without' '
	printf "namespace ns { int f(int n) { return n + 1; } }\n" >f.cc &&
	g++ -O2 -shared -fPIC -o libf.so f.cc &&
	printf "namespace ns { int f(int n); }\nint main(int argc, char **) { return ns::f(argc) & 1; }\n" >main.cc &&
	g++ -O2 -o cxx main.cc -L. -lf &&
	plt_objdump cxx | grep -q " _ZN2ns1fEi@plt$" &&
	meas_plt m-cxx "$PWD/cxx" &&
	hpcprof -o db-cxx m-cxx &&
	procs db-cxx >without &&
	grep -x "ns::f(int)@plt" without &&
	hpcstruct m-cxx &&
	hpcprof -o dbs-cxx m-cxx &&
	procs dbs-cxx >with &&
	test_cmp without with
'

# profile_hot BINARY: measures BINARY's hot loop into m-run-BINARY, then
# checks its folded stacks, without then with a structure file: the stub
# is labs@plt, and no frame of BINARY is <unknown>.
profile_hot() {
	hpcrun -o m-run-$1 ./$1 100000000 >/dev/null &&
	for s in without with; do
		if test $s = with; then hpcstruct m-run-$1 2>err || return 1; fi &&
		rm -rf db-run &&
		hpcprof -o db-run m-run-$1 2>err &&
		hpcviewer-tui --folded folded db-run &&
		grep -q "^main;\\(loop at hot.c:[0-9]*;\\)\\{0,1\\}labs@plt [1-9]" folded &&
		! grep "<unknown> 0x[0-9a-f]* \[$1\]" folded || return 1
	done
}

test_expect_success 'a profile of the lazy build names the stub labs@plt' '
	profile_hot hot-lazy
'

test_expect_success 'a profile of the -z now build names the stub labs@plt' '
	profile_hot hot-now
'

test_expect_success IBTPLT 'a profile of the IBT build names the .plt.sec stub labs@plt' '
	profile_hot hot-ibt
'

test_done
