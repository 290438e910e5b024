#!/bin/sh
test_description='hpcprof: first-touch page faults per data object and the threads that touched it (synthetic -e page-faults@1 --data)'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" db/experiment.xml; }
OBJ() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }

# Thread 0 allocates three blocks of 64, 128 and 192 pages (at main line 11,
# alloc_a line 21, alloc_b line 31); thread k (1-3) first touches block k
# in the loop at line 42: 64, 128 and 192 faults.
test_expect_success 'synthetic page-fault profiles of four threads' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/data-synthetic.sh" &&
	head() {
		printf "%s\n" "header program-name prog" "header data-centric 1" \
			"lm 1 $PWD/vars" "metric page-faults int" \
			"metric DATA:bytes int" "metric DATA:blocks int" \
			"metric DATA:offset-lo int" "metric DATA:offset-hi int" \
			"thread $1"
	} &&
	# block K: allocation path nodes (path: main at ADDR, then LEAF)
	path() {
		if test $1 = 1; then
			printf "%s\n" "node 1$1 0 0 ^Heap" "node 2$1 1$1 1 1005"
		else
			printf "%s\n" "node 1$1 0 0 ^Heap" "node 3$1 1$1 1 $2" \
				"node 2$1 3$1 1 $3"
		fi
	} &&
	{
		head 0 &&
		path 1 && printf "%s\n" "value 21 1 262144" "value 21 2 1" &&
		path 2 1015 2005 && printf "%s\n" "value 22 1 524288" "value 22 2 1" &&
		path 3 1025 3005 && printf "%s\n" "value 23 1 786432" "value 23 2 1" &&
		printf "%s\n" "node 1 0 0 ^Primary" "node 2 1 1 1005" "value 2 0 1"
	} >f0.spec &&
	for k in 1 2 3; do
		{
			head $k &&
			case $k in
			1) path 1 ;;
			2) path 2 1015 2005 ;;
			3) path 3 1025 3005 ;;
			esac &&
			printf "%s\n" "node 4$k 2$k 0 ^Access" "value 4$k 3 1" \
				"value 4$k 4 $((k * 262144))" "node 5$k 4$k 1 1035" \
				"node 6$k 5$k 1 4015" "value 6$k 0 $((k * 64))"
		} >f$k.spec || exit 1
	done &&
	mkdir pf &&
	for k in 0 1 2 3; do
		./mkprofile pf/prog-000000-00$k-00001234-10-0.hpcrun <f$k.spec || exit 1
	done &&
	hpcprof -S prog.hpcstruct -o db --text report.txt pf 2>err &&
	test_must_fail grep warning err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml
'

test_expect_success 'faults 1:2:3 over the three blocks, each block one thread' '
	hpcviewer-tui --csv --view data --depth 1 db | sed 1,2d |
		awk -F, "{ print \$2, \$(NF - 2) }" >actual &&
	printf "%s\n" "heap 50.00" "heap 33.33" "heap 16.67" >expect &&
	test_cmp expect actual &&
	hpcviewer-tui --csv --view data --depth 1 db | grep -c "(.*bytes in 1 block, 1 thread, offsets" >n &&
	echo 3 >expect && test_cmp expect n
'

test_expect_success 'each block faults on its toucher only (per-thread values)' '
	for obj in "main prog.c:11" "alloc_a prog.c:21 < main prog.c:12" \
		   "alloc_b prog.c:31 < main prog.c:13"; do
		id=$(X "string($(OBJ "$obj")/@i)") &&
		awk -v n=$id "\$1 == n && \$3 == 0 { print \$2, \$4 }" db/thread-values.tsv || exit 1
	done >actual &&
	printf "%s\n" "1 64" "2 128" "3 192" >expect &&
	test_cmp expect actual
'

test_expect_success 'sizes come from the allocating thread: 64, 128, 192 pages' '
	sed -n "/^Top data objects/,\$p" report.txt | tail -n +3 |
		awk "{ print \$3, \$5, \$6, \$7 }" >actual &&
	printf "%s\n" "192 786432 1 1" "128 524288 1 1" "64 262144 1 1" >expect &&
	test_cmp expect actual
'

test_done
