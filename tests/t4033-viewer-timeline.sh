#!/bin/sh
test_description='hpcviewer-tui --flame-graph: the per-thread timeline of barrier episodes from phases.tsv'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq CHROMIUM 'command -v chromium'

# Three threads, two episodes of one barrier (the records of hpcprof
# phases.tsv, version 1; other records are skipped).  Columns: episode 0
# is 1.5 s wide (every thread: work + wait = 1.5), episode 1 2 s; 1090 px
# for 3.5 s.  Thread 1 arrives last both times.  Fields after the eighth
# (a later version's) are ignored.
test_expect_success 'setup: small-db with barrier episodes' '
	cp -r "$TEST_DATA/viewer/small-db" db &&
	printf "%s\n" "# hpcprof phases 1" \
		"# episode	site	thread	n	wait-s	work-s	order	last" \
		"site	1	barrier	pthread_barrier_wait	0x601040	5	3	3	6	3.0	0.0	6	7.5	0.8	1.0	0	0	0.0	app.c:10" \
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
	grep -q "<title>thread 1, episode 1 at site 1: work 2 s, wait 0 s, arrived last</title>" fg.svg
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
	hpcviewer-tui --stdio --depth 1 phased >rows &&
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
	grep -qx "hpcviewer-tui: '"'"'bad/phases.tsv'"'"': line 11: malformed episode record" err &&
	test ! -e bad.svg
'

# lanes SVG: "thread episode late x" per episode, late 1 when marked as
# the last arrival (its class and its title agree), x its work's.
lanes() {
	awk '
		/^ <g class="episode/ { late = /episode late/; t = -1; next }
		/^  <title>thread / && t < 0 {
			split($0, f, /[ ,]+/); t = f[3]; n = f[5]
			if (late != /arrived last/) late = "?"
			next
		}
		t >= 0 && /^  <rect class="work"/ {
			x = $0; sub(/.* x="/, "", x); sub(/".*/, "", x)
			print t, n, late, x; t = -1
		}
	' "$1"
}

# A real database: rt-omp-truth, 4 threads x 20 regions of one construct.
test_expect_success 'gcc OpenMP: 80 episodes, in order along each lane, one last arrival each' '
	cc -O2 -g -fopenmp -o truth "$TEST_PROGS/rt-omp-truth.c" &&
	hpcrun -o m-omp ./truth >/dev/null &&
	hpcprof -o db-omp m-omp >/dev/null &&
	hpcviewer-tui --flame-graph omp.svg db-omp &&
	lanes omp.svg >eps &&
	test_line_count = 80 eps &&
	! grep -q "?" eps &&
	for t in 0 1 2 3; do
		awk -v t=$t "\$1 == t { print \$4, \$2 }" eps | sort -n >lane &&
		cut -d" " -f2 lane >got &&
		seq 0 19 >want &&
		test_cmp want got || exit 1
		test "$(cut -d" " -f1 lane | uniq | wc -l)" = 20 || exit 1
	done &&
	awk "\$3 == 1 { print \$1, \$2 }" eps | sort >late &&
	test "$(cut -d" " -f2 late | sort -n | uniq | wc -l)" = 20 &&
	test_line_count = 20 late &&
	awk -F"\t" "\$1 == \"episode\" && \$8 == 1 { print \$3, \$4 }" db-omp/phases.tsv | sort >expect &&
	test_cmp expect late
'

test_expect_success CHROMIUM 'the browser draws the lanes' '
	timeout 300 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/profile" --dump-dom "file://$TRASH/fg.svg" \
		>dom 2>browser.log &&
	test $(grep -c "<g class=\"episode late\">" dom) = 2 &&
	test $(grep -c "<g class=\"episode\">" dom) = 4 &&
	grep -q ">thread 2</text>" dom
'

test_done
