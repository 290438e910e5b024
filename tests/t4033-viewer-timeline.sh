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

test_expect_success CHROMIUM 'the browser draws the lanes' '
	timeout 300 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TRASH/profile" --dump-dom "file://$TRASH/fg.svg" \
		>dom 2>browser.log &&
	test $(grep -c "<g class=\"episode late\">" dom) = 2 &&
	test $(grep -c "<g class=\"episode\">" dom) = 4 &&
	grep -q ">thread 2</text>" dom
'

test_done
