#!/bin/sh
test_description='hpcprof checks the build ID hpcrun recorded against the binaries it reads'
. "$(dirname "$0")/test-lib.sh"

HPCSTRUCT_CACHE=$TRASH/cache
export HPCSTRUCT_CACHE

# The GNU build ID of an ELF file, as hex.
build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: //p'; }

# prog.c is pf-split.c; the rebuilt prog.c has one more function, so the
# code and the build ID change while the path stays the same.
rebuild() {
	cp "$TEST_PROGS/pf-split.c" prog.c &&
	echo "int rebuilt_$1(void) { return $1; }" >>prog.c &&
	cc -O2 -g -Wl,--build-id -o prog prog.c
}

test_expect_success 'hpcrun records the build ID of the sampled program in the profile header' '
	cp "$TEST_PROGS/pf-split.c" prog.c &&
	cc -O2 -g -Wl,--build-id -o prog prog.c &&
	cp prog prog.measured &&
	hpcrun -o m ./prog 2000000 >/dev/null &&
	ls m/*.hpcrun >profiles && test_line_count = 1 profiles &&
	hpcprof --dump m/*.hpcrun >dump &&
	grep -x "  lm 1 flags 0x1 \"$PWD/prog\"" dump &&
	echo "  build-id-1 = \"$(build_id prog)\"" >expect &&
	grep "^  build-id-1 = " dump >actual &&
	test_cmp expect actual &&
	test -n "$(build_id prog)"
'

test_expect_success 'the profile stays HPCToolkit 04.00: eleven standard pairs, then ours' '
	sed -n "/^header/,/^loadmap/p" dump | sed -n "2,12p" | cut -d" " -f3 >names &&
	printf "%s\n" program-name program-path env-path job-id mpi-rank \
		thread-id host-id process-id trace-min-time trace-max-time \
		trace-disorder >expect &&
	test_cmp expect names
'

test_expect_success 'same binary: no warning about build IDs, lines from DWARF' '
	hpcprof -o db1 --text report1 m 2>err &&
	! grep "build ID" err &&
	grep "three \[prog.c" report1 &&
	! grep "build-id-mismatch" db1/experiment.xml
'

test_expect_success 'rebuilt binary: one warning with both IDs, addresses only' '
	rebuild 1 &&
	measured=$(build_id prog.measured) && now=$(build_id prog) &&
	test "$measured" != "$now" &&
	hpcprof -o db2 --text report2 m 2>err &&
	grep "build ID" err >warnings &&
	echo "hpcprof: warning: '\''$PWD/prog'\'': build ID differs from the measured one (measured $measured, on disk $now); using addresses only" >expect &&
	test_cmp expect warnings &&
	! grep "binary not found" err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db2/experiment.xml &&
	grep "<unknown> 0x[0-9a-f]* \[prog\]" report2 &&
	! grep "prog\.c" report2 &&
	! grep "rebuilt_1\|three\|prog\.c" db2/experiment.xml &&
	grep "<NV n=\"build-id-mismatch\" v=\"$PWD/prog\"/>" db2/experiment.xml
'

test_expect_success 'rebuilt binary with a structure file made from it: set aside, addresses only' '
	hpcstruct -q m &&
	test -s m/structs/prog.hpcstruct &&
	hpcprof -o db3 --text report3 m 2>err &&
	grep -c "build ID" err >count && echo 1 >expect && test_cmp expect count &&
	grep "using addresses only" err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db3/experiment.xml &&
	! grep "prog\.c" report3 &&
	! grep "loop at .* in prog$" report3 &&
	rm -r m/structs
'

test_expect_success 'a structure file of another build, matched by name: ignored, DWARF of the measured binary used' '
	mkdir other && cp prog other/prog &&
	hpcstruct -o other.hpcstruct other/prog &&
	cp prog.measured prog &&
	hpcprof -o db4 --text report4 -S other.hpcstruct m 2>err &&
	grep "build ID" err >warnings &&
	echo "hpcprof: warning: '\''$PWD/prog'\'': structure file '\''other.hpcstruct'\'' describes '\''$PWD/other/prog'\'', whose build ID differs from the measured one (measured $(build_id prog), on disk $(build_id other/prog)); structure file ignored" >expect &&
	test_cmp expect warnings &&
	# prog alone, or prog in the summary line when a sample also fell in
	# another module (clock_gettime in the vDSO, now and then)
	grep -E "prog.: no structure file; line-level attribution from DWARF only|modules without a structure file \((.*, )?prog[,)]" err &&
	grep "three \[prog.c" report4 &&
	! grep "loop at .* in prog$" report4
'

test_expect_success 'no build ID in the rebuilt binary: nothing to compare, no noise' '
	cp "$TEST_PROGS/pf-split.c" prog.c &&
	echo "int rebuilt_2(void) { return 2; }" >>prog.c &&
	cc -O2 -g -Wl,--build-id=none -o prog prog.c &&
	test -z "$(build_id prog)" &&
	hpcprof -o db5 --text report5 m 2>err &&
	! grep "build ID" err &&
	grep "three \[prog.c" report5
'

test_expect_success 'no build ID measured: nothing to compare, no noise' '
	cp "$TEST_PROGS/pf-split.c" prog.c &&
	cc -O2 -g -Wl,--build-id=none -o prog prog.c &&
	hpcrun -o m6 ./prog 2000000 >/dev/null &&
	hpcprof --dump m6/*.hpcrun >dump6 &&
	! grep "build-id-1 " dump6 &&
	rebuild 3 &&
	hpcprof -o db6 --text report6 m6 2>err &&
	! grep "build ID" err &&
	grep "three \[prog.c" report6
'

# Runs before and after a rebuild, correlated together: each build is a
# load module of its own, checked against its own ID, whichever comes first.
test_expect_success 'runs of two builds of one path: the current one named, the other addresses only' '
	rebuild 4 && cp prog prog.old &&
	hpcrun -o run-old ./prog 2000000 >/dev/null &&
	rebuild 5 &&
	hpcrun -o run-new ./prog 2000000 >/dev/null &&
	old=$(build_id prog.old) && new=$(build_id prog) && test "$old" != "$new" &&
	echo "hpcprof: warning: '\''$PWD/prog'\'': build ID differs from the measured one (measured $old, on disk $new); using addresses only" >expect &&
	for order in "run-old run-new" "run-new run-old"; do
		rm -rf db8 &&
		hpcprof -o db8 --text report8 $order 2>err &&
		grep "build ID" err >warnings &&
		test_cmp expect warnings &&
		test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db8/experiment.xml &&
		grep -c "<LoadModule i=\"[0-9]*\" n=\"$PWD/prog\"" db8/experiment.xml >n &&
		echo 2 >two && test_cmp two n &&
		grep "three \[prog.c" report8 &&
		grep "<unknown> 0x[0-9a-f]* \[prog\]" report8 || exit 1
	done
'

test_expect_success FIXTURES 'a relative vdso/ path is found in the measurement directory' '
	mkdir hm &&
	cp "$FIXTURES"/loops-perf.m/*.hpcrun hm/ &&
	cp -r "$FIXTURES"/loops-perf.m/vdso hm/ &&
	mkdir elsewhere && (cd elsewhere && hpcprof -o ../db7 ../hm 2>../err) &&
	grep "modules without a structure file (.*): 2 from symbols only, 3 binaries not found" err &&
	grep "<NV n=\"structure-none\" v=\"vdso/7efc21c89566f551ba9bac284645e9d6.vdso\"/>" db7/experiment.xml &&
	grep "<Procedure [^>]*n=\"__vdso_clock_gettime\"" db7/experiment.xml
'

test_done
