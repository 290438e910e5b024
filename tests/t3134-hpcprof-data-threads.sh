#!/bin/sh
test_description='hpcprof -j N correlates data-centric measurements on N threads into the database of adding them in order'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" "$DB/experiment.xml"; }
OBJ() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }
V() { X "string($1/M[@n=\"$2\"]/@v)"; }

# threads T DIR [COLLIDE]: DIR/ holds T thread profiles, data-synthetic.sh's
# two taken in turn (thread i the even one's when i is even): the even ones
# with a stack object, all with b; threads T/2 and up also hold c, an
# object no thread before them has (alloc_a called at line 14, 1024 bytes
# in 1 block, 7 cycles at line 43, offsets [0, 64)); with COLLIDE, the last
# thread also holds d, allocated by alloc_a from another address of line
# 12, so named as a is (" #2", 512 bytes, 1 cycle).
threads() {
	mkdir "$2" &&
	i=0 &&
	while [ $i -lt "$1" ]; do
		{
			sed "s/^thread .*/thread $i/" t$((i % 2)).spec &&
			if [ $i -ge $(($1 / 2)) ]; then
				cat <<-\EOT
				node 70 0 0 ^Heap
				node 71 70 1 1035
				node 72 71 1 2005
				value 72 1 1024
				value 72 2 1
				node 73 72 0 ^Access
				value 73 3 1
				value 73 4 64
				node 74 73 1 1035
				node 75 74 1 4015
				value 75 0 7
				EOT
			fi &&
			if [ -n "${3:-}" ] && [ $i -eq $(($1 - 1)) ]; then
				cat <<-\EOT
				node 80 0 0 ^Heap
				node 81 80 1 1016
				node 82 81 1 2005
				value 82 1 512
				value 82 2 1
				node 83 82 0 ^Access
				node 84 83 1 1035
				node 85 84 1 4015
				value 85 0 1
				EOT
			fi
		} | ./mkprofile "$2/prog-000000-$(printf %03d $i)-0-42-0.hpcrun" ||
			return 1
		i=$((i + 1))
	done
}

test_expect_success 'synthetic data-centric threads: 24, objects first met late' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/data-synthetic.sh" &&
	threads 24 t24 &&
	threads 24 c24 collide &&
	threads 2 c2 collide
'

test_expect_success '-j 1, 2, 3, 5 and 24 write the same database' '
	IN=t24 && same_db 0 1 2 3 5 24
'

# Per even thread 74 cycles (data-synthetic.sh), per odd one 10, c 7 from
# thread 12 on: 1092 in all, 1020 with an address, 24 (2 x 12) without.
test_expect_success 'the merged objects hold every thread'"'"'s values' '
	IN=t24 && DB=db-t24-1 &&
	test "$(V "$(OBJ "alloc_b prog.c:31 < main prog.c:13")" 0)" = 480 &&
	test "$(V "$(OBJ "alloc_a prog.c:21 < main prog.c:12")" 0)" = 240 &&
	test "$(V "$(OBJ "alloc_a prog.c:21 < main prog.c:14")" 0)" = 84 &&
	test "$(V "$(OBJ "sarr [vars]")" 0)" = 120 &&
	test "$(V "$(OBJ "<stack>")" 0)" = 60 &&
	test "$(V "$(OBJ "<data objects>")" 0)" = 1020 &&
	for i in 0 2 4 22; do
		test "$(V "$(OBJ "thread $i")" 0)" = 5 || return 1
	done &&
	test "$(X "count($(OBJ "thread 1"))")" = 0 &&
	test "$(X "count(//Procedure[contains(@n, \" #\")])")" = 0 &&
	grep "^Data coverage" t24-1.txt >actual &&
	echo "Data coverage of cycles: 93.41% with a data address, 2.20% at memory instructions whose address was not computed, 4.40% at instructions without a memory operand." >expect &&
	test_cmp expect actual
'

test_expect_success 'attributes combine over the workers: bytes, blocks, threads, offsets' '
	IN=t24 && DB=db-t24-1 &&
	sed -n "/^Top data objects/,\$p" t24-1.txt | tail -n +3 |
		awk "{ print \$3, \$4, \$5, \$6, \$7, \$8, \$9 }" | sed 4q >actual &&
	cat >expect <<-\EOT &&
	480 heap 196608 48 24 [0, 16384)
	240 heap 49152 12 12 [0, 4096)
	120 static 8000 1 12 [0, 8000)
	84 heap 12288 12 12 [0, 64)
	EOT
	test_cmp expect actual
'

test_expect_success 'the same names in two workers: added on one thread, " #2" in thread order' '
	IN=c24 && same_db 0 1 2 3 24 &&
	test "$(V "$(OBJ "alloc_a prog.c:21 < main prog.c:12 #2")" 0)" = 1 &&
	test "$(V "$(OBJ "alloc_a prog.c:21 < main prog.c:12")" 0)" = 240
'

test_expect_success HPCPROF_MPI 'hpcprof-mpi on 2, 3 and 5 ranks: the database of hpcprof' '
	for n in 2 3 5; do
		MPI_RANKS=$n mpi_as_hpcprof -S prog.hpcstruct t24 ||
			return 1
	done
'

# c2: a in thread 0 alone, d (named as a) in thread 1 alone: on 2 ranks only
# the merge of rank 1's tree into rank 0's meets both names.
test_expect_success HPCPROF_MPI 'the same names on two ranks: added on one thread, " #2" in thread order' '
	mpi_as_hpcprof -S prog.hpcstruct c24 &&
	mpi_as_hpcprof -S prog.hpcstruct c2 &&
	DB=dbm && test "$(V "$(OBJ "alloc_a prog.c:21 < main prog.c:12 #2")" 0)" = 1 &&
	test "$(V "$(OBJ "alloc_a prog.c:21 < main prog.c:12")" 0)" = 20
'

test_done
