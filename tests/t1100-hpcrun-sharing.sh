#!/bin/sh
test_description='hpcrun --sharing: the raw .hpcshare records of rt-sharing patterns match its ground truth'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/share-lib.sh"

WATCH='table,counters,padded,cell,flag,alloc_*'

# only FLAT THREAD NAME RWS: the accesses of THREAD (* any) to NAME all have
# RW in RWS (a bracket class such as [wu]), and there is at least one.
only() {
	awk -v t="$2" -v o="$3" -v rw="^$4\$" '
		(t == "*" || $1 == t) && $2 == o { n++; if ($3 !~ rw) bad++ }
		END { exit !(n && !bad) }' "$1"
}

# writers FLAT NAME: the threads that wrote NAME, "THREAD:OFFSET,..." a line.
writers() {
	awk -v o="$2" '$2 == o && $3 ~ /^[wu]$/ { print $1 ":" $4 }' "$1" | sort -u
}

test_expect_success 'setup: the test program' '
	build_rt_sharing &&
	./rt-sharing patterns 2 >plain2 && ./rt-sharing patterns 4 >plain4
'

for t in 2 4; do
test_expect_success "$t threads: the output is the plain run output, one well-formed .hpcshare per thread" '
	hpcrun -q --sharing --watch "$WATCH" -o p'$t' ./rt-sharing patterns '$t' >out'$t' &&
	test_cmp plain'$t' out'$t' &&
	ls p'$t'/*.hpcshare >files && test_line_count = '$t' files &&
	share_check p'$t' &&
	share_flat p'$t' >flat'$t' &&
	grep -q "^sharing-epochs: [1-9]" p'$t'/*.log &&
	grep -q "^sharing: 100 epochs/s, 64 pages/epoch" p'$t'/*.log
'

test_expect_success "$t threads: every access path lies below its object in the thread profile" '
	awk "\$9 != \"ok\"" flat'$t' >badpaths &&
	awk "\$2 == \"?\"" flat'$t' >unnamed &&
	test_line_count = 0 badpaths && test_line_count = 0 unnamed
'

test_expect_success "$t threads: counters: thread i writes only c[i], and two threads wrote" '
	writers flat'$t' counters >w &&
	cat w &&
	awk -F: "{ if (\$2 != 8 * \$1) exit 1; t[\$1] = 1 } END { exit length(t) < 2 }" w
'

test_expect_success "$t threads: padded: thread i writes only at 128 i" '
	writers flat'$t' padded >w &&
	awk -F: "{ if (\$2 < 128 * \$1 || \$2 >= 128 * \$1 + 8) exit 1 }" w
'

test_expect_success "$t threads: table is only read by the threads main did not fill it from" '
	only flat'$t' 1 table "r" &&
	awk "\$1 > 0 && \$2 == \"table\" && \$3 != \"r\"" flat'$t' >w &&
	test_line_count = 0 w
'

test_expect_success "$t threads: alloc_ring is written by thread 0 only and read by the others" '
	only flat'$t' 0 alloc_ring "[wu]" &&
	only flat'$t' 1 alloc_ring "r"
'

test_expect_success "$t threads: alloc_latent: thread 0 writes bytes 48-63, thread 1 bytes 64-79, no other thread" '
	writers flat'$t' alloc_latent >w &&
	awk -F: "{ if (\$1 == 0 ? \$2 < 48 || \$2 > 63 : \$1 == 1 ? \$2 < 64 || \$2 > 79 : 1) exit 1 }" w &&
	grep -q "^0:" w && grep -q "^1:" w
'

test_expect_success "$t threads: cell is read then upgraded (migratory), flag written by several threads" '
	awk "\$2 == \"cell\" { print \$1, \$3 }" flat'$t' | uniq >cell &&
	grep -q " r$" cell && grep -q " u$" cell &&
	test "$(writers flat'$t' flag | cut -d: -f1 | sort -u | wc -l)" -ge 2
'

test_expect_success "$t threads: private blocks: each thread only its own, first touches seen" '
	awk "\$2 == \"alloc_private\" && \$5 == 1" flat'$t' >first &&
	test -s first &&
	awk "\$2 == \"alloc_private\" { print \$1, \$10 }" flat'$t' | sort -u |
		awk "{ print \$2 }" | sort | uniq -d >shared &&
	test_line_count = 0 shared
'
done

test_expect_success 'the log says what was sampled; --sharing-rate and --watch reach the runtime' '
	hpcrun -q --sharing --sharing-rate 50/8 --watch counters -o r ./rt-sharing patterns 2 >out &&
	test_cmp plain2 out &&
	grep -q "^sharing: 50 epochs/s, 8 pages/epoch, 1 watch patterns" r/*.log &&
	share_flat r >flat &&
	awk "{ print \$2 }" flat | sort -u >names &&
	echo counters >expect && test_cmp expect names
'

test_expect_success 'without --watch the heap blocks are watched (whole pages), no static variable' '
	hpcrun -q --sharing -e cpu-clock@f2000 -o h ./rt-sharing patterns 2 >out &&
	test_cmp plain2 out &&
	share_check h &&
	share_flat h >flat &&
	awk "{ print \$2 }" flat | sort -u >names && cat names &&
	grep -q "^alloc_private$" names && grep -q "^alloc_ring$" names &&
	! grep -q static h/*.hpcshare
'

test_expect_success 'bad --sharing options are refused' '
	test_must_fail hpcrun --watch x ./rt-sharing patterns 2 2>err &&
	grep -q "needs --sharing" err &&
	test_must_fail hpcrun --sharing --numa-nodes 0::1 ./rt-sharing patterns 2 2>err &&
	grep -q "numa-nodes" err &&
	test_must_fail hpcrun --sharing --sharing-rate 0 ./rt-sharing patterns 2 2>err &&
	grep -q "sharing-rate" err
'

test_done
