#!/bin/sh
test_description='hpcprof-mpi on 1, 3 and 4 ranks writes the database hpcprof writes'
. "$(dirname "$0")/test-lib.sh"

N=2000

test_expect_success HPCPROF_MPI "build $N small profiles of two programs" '
	build_mkprofile &&
	structure_file /nonexistent/prog /src/prog.c >prog.hpcstruct <<-\EOT &&
	<P i="3" n="main" l="10" v="{[0x1000-0x1001)}">
	<S i="4" l="11" v="{[0x1000-0x1010)}"/>
	</P>
	<P i="5" n="solve" l="20" v="{[0x2000-0x2001)}">
	<L i="6" l="22" f="/src/prog.c" v="{[0x2010-0x2011)}">
	<S i="7" l="23" v="{[0x2010-0x2020)}"/>
	<S i="8" l="24" v="{[0x2020-0x2040)}"/>
	</L>
	</P>
	EOT
	mkdir meas specs &&
	# rank r of program app (every 5th: io) calls main -> solve -> the
	# loop, and a library with neither structure nor binary; the
	# placeholder has values; times are reals (summed in thread order)
	awk -v n=$N "BEGIN {
		srand(3)
		for (t = 0; t < n; t++) {
			f = sprintf(\"specs/%05d\", t)
			prog = t % 5 == 4 ? \"io\" : \"app\"
			printf \"header program-name %s\nheader process-id %d\nheader mpi-rank %d\n\", prog, 1000 + t, t >f
			print \"lm 1 /nonexistent/prog\" >f
			print \"lm 2 /nonexistent/libmpi-gone.so\" >f
			print \"metric cycles int\" >f
			print \"metric time real\" >f
			printf \"thread 0\nnode 2 0 0 ^Primary\nvalue 2 0 1\n\" >f
			printf \"node 4 0 1 1005\nnode 6 4 1 2015\nnode 8 4 1 2025\nnode 10 6 2 %x\n\", 16 * (t % 9) >f
			printf \"value 6 0 %d\nvalue 6 1 %.7f\n\", 1 + int(rand() * 100), rand() >f
			printf \"value 8 0 %d\nvalue 10 0 %d\nvalue 10 1 %.7f\n\", 1 + t % 13, 1 + t % 3, rand() / 7 >f
			close(f)
		}
	}" &&
	for s in specs/*; do
		t=${s#specs/} &&
		p=app && [ $((1$t % 5)) -eq 4 ] && p=io
		./mkprofile meas/$p-$t-000-a8c00001-$t-0.hpcrun <$s || return 1
	done &&
	ls meas >list && test_line_count = $N list
'

test_expect_success HPCPROF_MPI 'hpcprof -j 2 makes the reference database' '
	mkdir ref && (cd ref && hpcprof -j 2 -S ../prog.hpcstruct -o db ../meas 2>err) &&
	grep "wrote .db. (2 programs, $N processes, $N threads" ref/err &&
	grep "&lt;program io&gt;" ref/db/experiment.xml &&
	grep "&lt;unknown&gt; 0x80" ref/db/experiment.xml &&
	grep "Primary&gt;" ref/db/experiment.xml
'

for run in "1 1" "3 2" "4 1"; do
	set -- $run
	test_expect_success HPCPROF_MPI "mpirun -np $1 hpcprof-mpi -j $2: the same database, the same messages" "
		mkdir np$1 && (cd np$1 && $MPIRUN $1 hpcprof-mpi -j $2 -S ../prog.hpcstruct -o db ../meas 2>err) &&
		diff -r ref/db np$1/db &&
		grep -v \"\$MPI_CPU_NOTICE\" np$1/err | sed s/^hpcprof-mpi:/hpcprof:/ >np$1/err.hpcprof &&
		test_cmp ref/err np$1/err.hpcprof
	"
done

# Open MPI binds each of two ranks to a core unless told otherwise.
test_expect_success HPCPROF_MPI '-j 2 on ranks bound to a core each: one line says so, the same database' '
	mkdir bound && (cd bound && mpirun --oversubscribe --bind-to core -np 2 hpcprof-mpi -j 2 -S ../prog.hpcstruct -o db ../meas 2>err) &&
	diff -r ref/db bound/db &&
	grep "^hpcprof-mpi: -j 2, but a rank may run on 1 CPU only (mpirun binds each rank to a core by default), so its threads share it: give ranks CPUs with mpirun --bind-to none or --map-by ...:PE=2$" bound/err >lines &&
	test_line_count = 1 lines
'

test_expect_success HPCPROF_MPI 'a bad profile: one line naming it, exit 1 from every rank, same database' '
	echo garbage >meas/app-99999-000-a8c00001-99999-0.hpcrun &&
	mkdir bref && (cd bref && ! hpcprof -j 1 -S ../prog.hpcstruct -o db ../meas 2>err) &&
	mkdir bnp && (cd bnp && status=0 && $MPIRUN 4 hpcprof-mpi -j 1 -S ../prog.hpcstruct -o db ../meas 2>err || status=$? && test $status = 1) &&
	diff -r bref/db bnp/db &&
	grep "99999-0.hpcrun.*; skipping it" bnp/err >lines &&
	test_line_count = 1 lines
'

# Per-thread counts just below 2^52: each rank's sum, and any two added,
# reach 2^53, past which a double's sum depends on the order; rank 0 folds
# them again in thread order, as hpcprof does.
test_expect_success HPCPROF_MPI 'sums past 2^53 across ranks: folded in thread order, the same database' '
	mkdir big &&
	t=0 &&
	while [ $t -lt 12 ]; do
		printf "header program-name app\nheader process-id %d\nlm 1 /nonexistent/prog\nmetric cycles int\nthread 0\nnode 4 0 1 1005\nnode 6 4 1 2015\nvalue 6 0 45035996273703%02d\nvalue 4 0 %d\n" \
			$((500 + t)) $((7 * t + 1)) $((1 + t)) >spec &&
		./mkprofile big/app-$t-000-a8c00001-$((500 + t))-0.hpcrun <spec || return 1
		t=$((t + 1))
	done &&
	mkdir bigref && (cd bigref && hpcprof -j 1 -S ../prog.hpcstruct -o db ../big 2>err) &&
	mkdir bigj3 && (cd bigj3 && hpcprof -j 3 -S ../prog.hpcstruct -o db ../big 2>err) &&
	diff -r bigref/db bigj3/db &&
	for np in 2 3; do
		mkdir big$np && (cd big$np && $MPIRUN $np hpcprof-mpi -j 1 -S ../prog.hpcstruct -o db ../big 2>err) &&
		diff -r bigref/db big$np/db || return 1
	done
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi --help runs without MPI and names its options' '
	hpcprof-mpi --help >out &&
	grep -e "--jobs" out &&
	for j in 0x 0 1025; do
		status=0 && hpcprof-mpi -j $j -o db meas 2>err || status=$? &&
		test $status = 2 &&
		echo "hpcprof-mpi: -j '"'"'$j'"'"': expected a number of threads from 1 to 1024" >want &&
		test_cmp want err || return 1
	done
'

test_done
