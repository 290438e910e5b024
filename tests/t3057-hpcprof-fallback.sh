#!/bin/sh
test_description='hpcprof without a structure file: procedures, units and lines from the binary'
. "$(dirname "$0")/test-lib.sh"

# addr BINARY SYMBOL: SYMBOL's address in BINARY, plus 4 (inside it).
addr() { printf '%x\n' $((0x$(nm "$1" | awk -v s="$2" '$3 == s { print $1 }') + 4)); }

# meas DIR BINARY SYMBOL...: a measurement DIR of one profile of BINARY
# whose call paths are main -> SYMBOL, one sample each.
meas() {
	dir=$1 && bin=$2 && shift 2 &&
	{
		echo "lm 1 $PWD/$bin" &&
		echo "metric cycles int" &&
		echo "node 1 0 1 $(addr "$bin" main)" &&
		n=2 &&
		for s in "$@"; do
			echo "node $n 1 1 $(addr "$bin" "$s")" && echo "value $n 0 1" &&
			n=$((n + 1)) || return 1
		done
	} >"$dir.spec" &&
	mkdir "$dir" && ./mkprofile "$dir/$bin-0.hpcrun" <"$dir.spec"
}

# files DB: the source files of DB's procedures, sorted.
files() { sed -n 's/^<F i="[0-9]*" n="[^"]*\/\([^"/]*\)">$/\1/p' "$1/experiment.xml" | sort -u; }

# Three units, each a function with an inlined helper; gcc writes
# .debug_aranges (libdw's index of units by address), clang does not.
test_expect_success 'setup: a program of three units, the profile writer' '
	for i in 1 2 3; do
		cat >u$i.c <<-EOF || return 1
		volatile int sink$i;
		static inline int sq$i(int x) { return x * x + $i; }
		__attribute__((noinline)) void work$i(int n)
		{
			for (int i = 0; i < n; i++)
				sink$i += sq$i(i);
		}
		EOF
	done &&
	cat >main.c <<-EOF &&
	void work1(int), work2(int), work3(int);
	int main(void) { work1(10); work2(20); work3(30); return 0; }
	EOF
	cc -O1 -g -o units main.c u1.c u2.c u3.c &&
	readelf -S units | grep -q debug_aranges &&
	objcopy --remove-section=.debug_aranges units units-noar &&
	build_mkprofile
'

test_expect_success 'without .debug_aranges each address finds its unit, as with them' '
	meas m units work1 work2 work3 &&
	meas m-noar units-noar work1 work2 work3 &&
	hpcprof -o db m 2>err &&
	grep "no structure file" err &&
	hpcprof -o db-noar m-noar &&
	printf "%s\n" main.c u1.c u2.c u3.c >expect &&
	files db >actual &&
	test_cmp expect actual &&
	sed s/units-noar/units/g db-noar/experiment.xml >noar.xml &&
	test_cmp db/experiment.xml noar.xml
'

test_expect_success CLANG 'clang: the procedures and files of every unit' '
	clang -O2 -g -o units-clang main.c u1.c u2.c u3.c &&
	! readelf -S units-clang | grep -q debug_aranges &&
	meas mc units-clang work1 work2 work3 &&
	hpcprof -o dbc mc &&
	files dbc >actual &&
	test_cmp expect actual &&
	for i in 1 2 3; do
		grep -q "<P i=\"[0-9]*\" n=\"work$i\"" dbc/experiment.xml || return 1
	done
'

# impl has a weak alias and a local one at its address; asmfn has no size
# (assembly without .size), so only the symbols around it bound it.
test_expect_success 'a procedure is named by its global symbol; a sizeless one is found' '
	cat >syms.c <<-EOF &&
	volatile int sink;
	__attribute__((noinline)) void impl(int n)
	{
		for (int i = 0; i < n; i++)
			sink += i;
	}
	void weak_alias(int) __attribute__((weak, alias("impl")));
	static void local_alias(int) __attribute__((alias("impl"), used));
	void asmfn(void);
	__asm__(".text\n.globl asmfn\n.type asmfn, @function\n"
		"asmfn:\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\tret\n");
	int main(void) { impl(10); asmfn(); return 0; }
	EOF
	cc -O1 -g -o syms syms.c &&
	meas ms syms impl asmfn &&
	hpcprof -o dbs ms &&
	sed -n "s/^<P i=\"[0-9]*\" n=\"\([^\"]*\)\".*/\1/p" dbs/experiment.xml |
		sort >actual &&
	printf "%s\n" asmfn impl main >expect &&
	test_cmp expect actual
'

# C++: a procedure named from DWARF or from the symbol table gets the
# name hpcstruct gives it, demangled (lib/demangle.h); a stripped copy
# names it from its symbols alone.
test_expect_success 'C++: procedures demangled as hpcstruct names them, with or without DWARF' '
	cat >cxx.cc <<-\EOF &&
	namespace ns {
	struct Grid {
		__attribute__((noinline)) void relax(int n);
		int v = 0;
	};
	void Grid::relax(int n) { for (int i = 0; i < n; i++) v += i; }
	}
	int main() { ns::Grid g; g.relax(10); return g.v == 45 ? 0 : 1; }
	EOF
	g++ -O1 -g -o cxx cxx.cc &&
	cp cxx cxx-nodebug && strip --strip-debug cxx-nodebug &&
	m=$(nm cxx | awk "/ T _ZN2ns4Grid5relaxEi\$/ { print \$3 }") &&
	test "$m" = _ZN2ns4Grid5relaxEi &&
	meas mx cxx "$m" && meas mxs cxx-nodebug "$m" &&
	hpcprof -o dbx mx 2>/dev/null && hpcprof -o dbxs mxs 2>/dev/null &&
	hpcstruct -o cxx.hpcstruct cxx &&
	grep -q "n=\"ns::Grid::relax(int)\"" cxx.hpcstruct &&
	for db in dbx dbxs; do
		sed -n "s/^<P i=\"[0-9]*\" n=\"\([^\"]*\)\".*/\1/p" $db/experiment.xml |
			sort >actual &&
		printf "%s\n" main "ns::Grid::relax(int)" >expect &&
		test_cmp expect actual || return 1
	done
'

test_done
