#!/bin/sh
test_description='hpcviewer-tui on hostile databases: FIFOs, entities, long values, cut files, deep paths'
. "$(dirname "$0")/test-lib.sh"

DB=$TEST_DATA/viewer/small-db
Q="'"

# refuse 'MESSAGE' ARGS...: exit status 1 within 20 seconds, no output,
# exactly the one line on stderr.
refuse() {
	msg=$1
	shift
	status=0
	timeout 20 hpcviewer-tui --stdio "$@" >out 2>err </dev/null || status=$?
	test $status = 1 || { echo "status $status: $*"; cat err; return 1; }
	test ! -s out || { echo "unexpected output"; return 1; }
	printf "%s\n" "hpcviewer-tui: $msg" >expect-err
	test_cmp expect-err err
}

test_expect_success 'experiment.xml that is a FIFO, a directory or empty' '
	mkdir fifo dir empty &&
	mkfifo fifo/experiment.xml &&
	refuse "${Q}fifo/experiment.xml${Q}: not a regular file (a FIFO), not an experiment database" fifo &&
	refuse "${Q}fifo/experiment.xml${Q}: not a regular file (a FIFO), not an experiment database" fifo/experiment.xml &&
	mkdir dir/experiment.xml &&
	refuse "${Q}dir/experiment.xml${Q}: is a directory, not an experiment database" dir &&
	: >empty/experiment.xml &&
	refuse "${Q}empty/experiment.xml${Q}: empty file, not an experiment database" empty
'

test_expect_success 'billion laughs is refused at once' '
	mkdir laughs &&
	{
		echo "<?xml version=\"1.0\"?>" &&
		echo "<!DOCTYPE HPCToolkitExperiment [" &&
		echo "<!ENTITY l0 \"lol\">" &&
		i=1 && while test $i -le 9; do
			printf "<!ENTITY l$i \"" &&
			k=0 && while test $k -lt 10; do printf "&l$((i - 1));"; k=$((k + 1)); done &&
			echo "\">" && i=$((i + 1))
		done &&
		echo "]>"
	} >dtd &&
	{ cat dtd && sed -e 1d -e "s|</SecCallPathProfileData>|<PF n=\"\&l9;\"/>&|" "$DB/experiment.xml"; } >laughs/experiment.xml &&
	refuse "${Q}laughs/experiment.xml${Q}: declares the entity ${Q}l0${Q} (entities are refused)" laughs &&
	{ cat dtd && sed -e 1d -e "s/<Header n=\"app\">/<Header n=\"\&l9;\">/" "$DB/experiment.xml"; } >laughs/experiment.xml &&
	refuse "${Q}laughs/experiment.xml${Q}: entity expansion beyond libxml2${Q}s limits (entities are refused)" laughs
'

test_expect_success 'a cut experiment.xml says so' '
	mkdir cut &&
	size=$(wc -c <"$DB/experiment.xml") &&
	for n in 10 200 1500 $((size - 30)) $((size - 2)); do
		head -c $n "$DB/experiment.xml" >cut/experiment.xml &&
		refuse "${Q}cut/experiment.xml${Q}: the file ends early (truncated?)" cut || return 1
	done &&
	head -n -1 "$DB/experiment.xml" >cut/experiment.xml &&
	refuse "${Q}cut/experiment.xml${Q}: the file ends early (truncated?)" cut
'

test_expect_success 'a name of 262,145 bytes of ">": one line, at once' '
	mkdir long &&
	line=$(grep -n "^<Header n=\"app\">$" "$DB/experiment.xml" | cut -d: -f1) &&
	{
		head -n $((line - 1)) "$DB/experiment.xml" &&
		printf "<Header n=\"" &&
		head -c 262145 /dev/zero | tr "\\0" ">" &&
		echo "\">" &&
		tail -n +$((line + 1)) "$DB/experiment.xml"
	} >long/experiment.xml &&
	refuse "${Q}long/experiment.xml${Q}: line $line: a tag of more than 262144 bytes with a ${Q}>${Q} inside" long
'

test_expect_success '--depth takes levels, 0 or more' '
	status=0 && hpcviewer-tui --stdio --depth -1 "$DB" >out 2>err || status=$? &&
	test $status = 2 && test ! -s out &&
	echo "hpcviewer-tui: ${Q}-1${Q}: --depth wants a number of levels (0 or more)" >expect &&
	test_cmp expect err &&
	hpcviewer-tui --csv --depth 0 "$DB" >out &&
	test_line_count = 2 out
'

# A database with barrier episodes (phases.tsv) whose threads.tsv has
# a thread row for thread 0, then ROW.
bad_threads() {
	rm -rf th && cp -r "$DB" th &&
	printf "%s\n" "# hpcprof phases 1" \
		"site	1	barrier	pthread_barrier_wait	0x601040	5	2	2	1	1.0	0.0	1	2.0	0.8	0.5	0	0	0.0	app.c:10" \
		"thread	1	0	1	0.5	0.0	0	1.0	-	0	0	0.0" \
		"thread	1	1	1	0.0	0.0	1	1.5	-	0	0	0.0" \
		"episode	1	0	0	0.500000000	1.000000000	1	0" \
		"episode	1	1	0	0.000000000	1.500000000	0	1" >th/phases.tsv &&
	printf "# thread\tprofile\tidentity\tprogram\tprocess\trank\tthread-id\n0\tapp-0.hpcrun\tTHREAD=0\tapp\t7\t0\t0\n" >th/threads.tsv &&
	printf "%s\n" "$1" >>th/threads.tsv
}

test_expect_success 'threads.tsv rows of threads 100000000 and 2^31-1: one line each, at once' '
	for t in 100000000 2147483647; do
		bad_threads "$t	app-1.hpcrun	THREAD=1	app	7	0	1" &&
		refuse "${Q}th/threads.tsv${Q}: line 3: thread $t where 1 was expected (rows are threads 0, 1, ... in order)" --view phases th &&
		status=0 && timeout 20 hpcviewer-tui --flame-graph th.svg th 2>err || status=$? &&
		test $status = 1 && test ! -e th.svg &&
		echo "hpcviewer-tui: ${Q}th/threads.tsv${Q}: line 3: thread $t where 1 was expected (rows are threads 0, 1, ... in order)" >expect-err &&
		test_cmp expect-err err || return 1
	done
'

test_expect_success 'a threads.tsv row of 9 KB is refused, not cut into rows' '
	bad_threads "1	app-1.hpcrun	THREAD=1	$(head -c 9000 /dev/zero | tr "\\0" a)	7	0	1" &&
	refuse "${Q}th/threads.tsv${Q}: line 3: line too long" --view phases th
'

test_expect_success 'threads.tsv: a thread given twice, a row of two fields' '
	bad_threads "0	app-1.hpcrun	THREAD=1	app	7	0	1" &&
	refuse "${Q}th/threads.tsv${Q}: line 3: thread 0 where 1 was expected (rows are threads 0, 1, ... in order)" --view phases th &&
	bad_threads "1	app-1.hpcrun" &&
	refuse "${Q}th/threads.tsv${Q}: line 3: a thread row has at least 3 fields" --view phases th
'

test_expect_success 'the same threads.tsv in order names its threads' '
	bad_threads "1	app-1.hpcrun	THREAD=1	app	7	0	1" &&
	hpcviewer-tui --stdio --view phases th >out &&
	grep -q "  thread 1  " out &&
	hpcviewer-tui --flame-graph th.svg th &&
	grep -q "<text class=\"lane\" [^>]*>thread 1</text>" th.svg
'

test_expect_success 'a database of a 3,000-deep recursion loads (past libxml2'"'"'s 256 levels)' '
	build_mkprofile &&
	mkdir deep &&
	{
		printf "header program-name prog\nlm 1 /nonexistent/prog\nmetric cycles int\nnode 2 0 1 1005\n" &&
		i=3 && while test $i -le 3002; do echo "node $i $((i - 1)) 1 2005"; i=$((i + 1)); done &&
		echo "value 3002 0 1"
	} | ./mkprofile deep/prog-0.hpcrun &&
	hpcprof -o deepdb deep 2>err &&
	timeout 60 hpcviewer-tui --csv deepdb >out &&
	test $(wc -l <out) -gt 3000
'

test_done
