#!/bin/sh
test_description='hpcviewer-tui --flame-graph: the per-thread timeline of barrier episodes from phases.tsv (OpenMP, pthreads, MPI)'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq CHROMIUM 'command -v chromium'

# Three threads, two episodes of one barrier (the records of hpcprof
# phases.tsv, version 1; rows of other kinds are skipped).  Columns:
# episode 0 is 1.5 s wide (every thread: work + wait = 1.5), episode 1
# 2 s; 1090 px for 3.5 s.  Thread 1 arrives last both times.  Fields after
# the eighth (a later version's) are ignored.
test_expect_success 'setup: small-db with barrier episodes' '
	cp -r "$TEST_DATA/viewer/small-db" db &&
	printf "%s\n" "# hpcprof phases 1" \
		"# episode	site	thread	n	wait-s	work-s	order	last" \
		"site	1	barrier	pthread_barrier_wait	0x601040	5	3	3	6	3.0	0.0	6	7.5	0.8	1.0	0	0	0.0	app.c:10" \
		"a-later-kind	of row" \
		"thread	1	0	2	1.5	0.0	0	2.0	0,2,0	0	0	0.0" \
		"episode	1	0	0	0.500000000	1.000000000	1	0" \
		"episode	1	0	1	1.000000000	1.000000000	1	0" \
		"episode	1	1	0	0.000000000	1.500000000	2	1" \
		"episode	1	1	1	0.000000000	2.000000000	2	1" \
		"episode	1	2	0	1.000000000	0.500000000	0	0" \
		"episode	1	2	1	0.500000000	1.500000000	0	0	a-later-field" >db/phases.tsv
'

# episodes SVG: "class|work x|work width|wait x|wait width" per episode.
episodes() {
	awk '
		/^ <g class="episode/ { c = $0; sub(/.*class="/, "", c); sub(/".*/, "", c); n = 0; next }
		c != "" && /^  <rect / {
			x = $0; sub(/.* x="/, "", x); sub(/".*/, "", x)
			w = $0; sub(/.* width="/, "", w); sub(/".*/, "", w)
			line = (n++ ? line "|" : c "|") x "|" w
			if (n == 2) { print line; c = "" }
		}
	' "$1"
}

test_expect_success 'one lane a thread, episodes in columns, the late thread marked' '
	hpcviewer-tui --flame-graph fg.svg db &&
	grep -c "<text class=\"lane\"" fg.svg >lanes &&
	echo 3 >expect && test_cmp expect lanes &&
	episodes fg.svg >out &&
	cat >expect <<-\EOT &&
	episode|100.000|311.429|411.429|155.714
	episode|567.143|311.429|878.571|311.429
	episode late|100.000|467.143|567.143|0.000
	episode late|567.143|622.857|1190.000|0.000
	episode|100.000|155.714|255.714|311.429
	episode|567.143|467.143|1034.286|155.714
	EOT
	test_cmp expect out &&
	grep -q "<title>thread 1, episode 1 at site 1 (app.c:10): work 2 s, wait 0 s, arrived last</title>" fg.svg
'

test_expect_success 'the flame graph above is the same as without phases' '
	hpcviewer-tui --flame-graph plain.svg "$TEST_DATA/viewer/small-db" &&
	! grep -q "id=\"timeline\"" plain.svg &&
	sed -n "/<g class=\"frame /,/<\/g>/p" plain.svg >a &&
	sed -n "/<g class=\"frame /,/<\/g>/p" fg.svg >b &&
	test_cmp a b &&
	hpcviewer-tui --folded - db >with &&
	hpcviewer-tui --folded - "$TEST_DATA/viewer/small-db" >without &&
	test_cmp without with
'

# hpcprof hangs per-phase profiles below the root as frames of the module
# "<phases>", outside the totals: they are not drawn twice.
test_expect_success 'per-phase profiles are left out of the pictures' '
	cp -r db phased &&
	sed "s|^</SecCallPathProfileData>|<PF i=\"90\" n=\"\&lt;phase from thread start\&gt;\" lm=\"\&lt;phases\&gt;\" f=\"0\" l=\"0\"><M n=\"0\" v=\"4\"/><PF i=\"91\" n=\"0\" lm=\"0\" f=\"0\" l=\"5\"><M n=\"0\" v=\"4\"/><M n=\"1\" v=\"4\"/></PF></PF>\n&|" \
		db/experiment.xml >phased/experiment.xml &&
	hpcviewer-tui --stdio --depth 2 phased >rows &&
	grep -q "<phase from thread start>" rows &&
	hpcviewer-tui --folded - phased >with &&
	test_cmp without with &&
	hpcviewer-tui --flame-graph phased.svg phased &&
	test_cmp fg.svg phased.svg
'

test_expect_success XMLLINT 'the SVG with a timeline is well-formed' '
	xmllint --noout --nonet fg.svg
'

test_expect_success 'a malformed episode record: one line naming the file and line, no picture' '
	cp -r db bad &&
	echo "episode	1	0	two	0.5	1.0	1	0" >>bad/phases.tsv &&
	test_must_fail hpcviewer-tui --flame-graph bad.svg bad 2>err &&
	test_line_count = 1 err &&
	grep -qx "hpcviewer-tui: '"'"'bad/phases.tsv'"'"': line 12: expected a number" err &&
	test ! -e bad.svg
'

# lanes SVG: "lane|episode|late|x" per episode: lane the thread's name,
# late 1 when marked as the last arrival (its class and its title agree),
# x its work's.
lanes() {
	awk '
		/^ <g class="episode/ { late = /episode late/; t = ""; next }
		/^  <title>/ && t == "" {
			t = $0; sub(/^  <title>/, "", t); sub(/, episode .*/, "", t)
			n = $0; sub(/.*, episode /, "", n); sub(/ .*/, "", n)
			if (late != /arrived last/) late = "?"
			next
		}
		t != "" && /^  <rect class="work"/ {
			x = $0; sub(/.* x="/, "", x); sub(/".*/, "", x)
			print t "|" n "|" late "|" x; t = ""
		}
	' "$1"
}

# in_order EPS LANE N: lane LANE of EPS has episodes 0..N-1, in that order
# from left to right, each at an x of its own.
in_order() {
	awk -F"|" -v t="$2" "\$1 == t { print \$4, \$2 }" "$1" | sort -n >lane &&
	cut -d" " -f2 lane >got &&
	seq 0 $(($3 - 1)) >want &&
	test_cmp want got &&
	test "$(cut -d" " -f1 lane | uniq | wc -l)" = $3
}

# draw NAME N: the database of measurement m-NAME, its picture NAME.svg
# and NAME's episodes in eps: N of them, each late or not, never both.
draw() {
	hpcprof -o db-$1 m-$1 >/dev/null &&
	hpcviewer-tui --flame-graph $1.svg db-$1 &&
	lanes $1.svg >eps &&
	test_line_count = $2 eps &&
	! grep -q "|?|" eps
}

# one_last EPS N: each of episodes 0..N-1 has exactly one last arrival.
one_last() {
	awk -F"|" "\$3 == 1 { print \$2 }" "$1" | sort -n >lastn &&
	seq 0 $(($2 - 1)) >want &&
	test_cmp want lastn
}

# A real database: rt-omp-truth, 4 threads x 20 regions of one construct.
test_expect_success 'gcc OpenMP: 80 episodes, in order along each lane, one last arrival each' '
	cc -O2 -g -fopenmp -o truth "$TEST_PROGS/rt-omp-truth.c" &&
	hpcrun -o m-omp ./truth >out &&
	draw omp 80 &&
	line=$(sed -n "s/^construct //p" out) &&
	test $(grep -c "<title>thread [0-3], episode [0-9]* at site 1 (rt-omp-truth.c:$line \[main._omp_fn.0\]): " omp.svg) = 80 &&
	for t in 0 1 2 3; do
		in_order eps "thread $t" 20 || exit 1
	done &&
	one_last eps 20 &&
	awk -F"|" "\$3 == 1 { print \$1, \$2 }" eps | sed "s/^thread //" | sort >late &&
	awk -F"\t" "\$1 == \"episode\" && \$8 == 1 { print \$3, \$4 }" db-omp/phases.tsv | sort >expect &&
	test_cmp expect late
'

# rt-sync barrier 4 12 sleep 20: thread r % 4 works 80 ms in round r, the
# others 20 ms; the program prints who really arrived last in each round.
test_expect_success 'pthreads: 48 episodes in order along each lane, the last arrival the program saw' '
	cc -O2 -g -pthread -o rt-sync "$TEST_PROGS/rt-sync.c" &&
	hpcrun -o m-pth ./rt-sync barrier 4 12 sleep 20 >out &&
	draw pth 48 &&
	for t in 0 1 2 3; do
		in_order eps "thread $t" 12 || exit 1
	done &&
	one_last eps 12 &&
	sed -n "s/^lastof //p" out | tr " " "\n" >truth &&
	awk -F"|" "\$3 == 1 { print \$2, \$1 }" eps | sort -n | sed "s/^[0-9]* thread //" >got &&
	test_cmp truth got
'

test_lazy_prereq MPI 'command -v mpicc && command -v mpirun'

# rt-sync-mpi 12 15: in round r rank r % 2 sleeps 60 ms, the other 15.
# The lanes are ranks, named as every view names them.
test_expect_success MPI 'Open MPI, 2 ranks: a lane per rank, 12 episodes in order, the late rank last' '
	mpicc -O2 -g -o rt-sync-mpi "$TEST_PROGS/rt-sync-mpi.c" &&
	$MPIRUN 2 hpcrun -o m-mpi ./rt-sync-mpi 12 15 >out &&
	draw mpi 24 &&
	sed -n "s/^ <text class=\"lane\"[^>]*>\(.*\)<\/text>$/\1/p" mpi.svg >names &&
	printf "%s\n" "rank 0 thread 0" "rank 1 thread 0" >expect &&
	test_cmp expect names &&
	test $(grep -c "<title>rank [01] thread 0, episode [0-9]* at site [0-9]* (rt-sync-mpi.c:[0-9]* \[main\]): " mpi.svg) = 24 &&
	in_order eps "rank 0 thread 0" 12 &&
	in_order eps "rank 1 thread 0" 12 &&
	one_last eps 12 &&
	awk -F"|" "\$3 == 1 { r = \$1; sub(/^rank /, \"\", r); sub(/ .*/, \"\", r);
		right += (r == \$2 % 2) } END { exit !(right >= 11) }" eps
'

test_expect_success CHROMIUM 'the browser draws the lanes' '
	timeout 300 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/profile" --dump-dom "file://$TRASH/fg.svg" \
		>dom 2>browser.log &&
	test $(grep -c "<g class=\"episode late\">" dom) = 2 &&
	test $(grep -c "<g class=\"episode\">" dom) = 4 &&
	grep -q ">thread 2</text>" dom
'

# The browser's DOM of each real database's picture: every episode drawn,
# one late a column, the lanes named.
for pic in omp:80:20 pth:48:12 mpi:24:12; do
	name=${pic%%:*} n=${pic#*:} n=${n%%:*} cols=${pic##*:}
	prereq=CHROMIUM
	test $name = mpi && prereq=CHROMIUM,MPI
	test_expect_success $prereq "the browser draws the $name lanes: $n episodes, $cols late" '
		timeout 300 chromium --headless --no-sandbox --disable-gpu \
			--user-data-dir="$TRASH/profile" \
			--dump-dom "file://$TRASH/'$name'.svg" >dom-'$name' 2>browser.log &&
		test $(grep -c "<g class=\"episode late\">" dom-'$name') = '$cols' &&
		test $(grep -c "<g class=\"episode" dom-'$name') = '$n' &&
		grep -q "<text class=\"lane\"" dom-'$name'
	'
done

test_done
