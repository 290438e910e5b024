#!/bin/sh
test_description='hpcviewer-tui per-thread values in every view, who holds the min and max'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

# main (1 s of its own on line 5) calls work twice: 5 s on thread 0 through
# the first call, 3 s on thread 1 through the second; thread 2 has nothing,
# so every Min is 0.  Threads are two ranks' (hpcprof-database(5)): rank 0
# of one thread, rank 1 of two, so T names "rank 0" and "rank 1 thread 1".
mkdir db
cat >db/experiment.xml <<\EOT
<?xml version="1.0"?>
<HPCToolkitExperiment version="2.2"><Header n="threads"/>
<SecCallPathProfile i="0" n="threads"><SecHeader><MetricTable>
<Metric i="0" n="CPUTIME (sec):Sum (I)" v="derived-incr" t="inclusive" partner="1" show="1" show-percent="1"/>
<Metric i="1" n="CPUTIME (sec):Sum (E)" v="derived-incr" t="exclusive" partner="0" show="1" show-percent="1"/>
<Metric i="2" n="CPUTIME (sec):Min (I)" v="final" t="inclusive" partner="3" show="1" show-percent="0"/>
<Metric i="3" n="CPUTIME (sec):Min (E)" v="final" t="exclusive" partner="2" show="1" show-percent="0"/>
<Metric i="4" n="CPUTIME (sec):Max (I)" v="final" t="inclusive" partner="5" show="1" show-percent="0"/>
<Metric i="5" n="CPUTIME (sec):Max (E)" v="final" t="exclusive" partner="4" show="1" show-percent="0"/>
</MetricTable><LoadModuleTable><LoadModule i="0" n="/opt/threads"/></LoadModuleTable>
<FileTable><File i="0" n="t.c"/></FileTable>
<ProcedureTable><Procedure i="0" n="main"/><Procedure i="1" n="work"/></ProcedureTable>
</SecHeader><SecCallPathProfileData>
<M n="0" v="9"/><M n="1" v="9"/><M n="4" v="6"/><M n="5" v="6"/>
<PF i="2" n="0" lm="0" f="0" l="4"><M n="0" v="9"/><M n="1" v="1"/><M n="4" v="6"/><M n="5" v="1"/>
<S i="3" l="5"><M n="0" v="1"/><M n="1" v="1"/></S>
<C i="4" l="6"><M n="0" v="5"/>
<PF i="5" n="1" lm="0" f="0" l="10"><M n="0" v="5"/><M n="1" v="5"/>
<S i="6" l="11"><M n="0" v="5"/><M n="1" v="5"/></S></PF></C>
<C i="7" l="7"><M n="0" v="3"/>
<PF i="8" n="1" lm="0" f="0" l="10"><M n="0" v="3"/><M n="1" v="3"/>
<S i="9" l="11"><M n="0" v="3"/><M n="1" v="3"/></S></PF></C>
</PF>
</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
EOT
{
	printf '# thread\tprofile\tidentity\tprogram\tprocess\trank\tthread-id\n'
	printf '0\tt-0.hpcrun\tNODE=0 RANK=0 THREAD=0\tapp\t100\t0\t0\n'
	printf '1\tt-1.hpcrun\tNODE=0 RANK=1 THREAD=0\tapp\t101\t1\t0\n'
	printf '2\tt-2.hpcrun\tNODE=0 RANK=1 THREAD=1\tapp\t-\t1\t1\n'
} >db/threads.tsv
{
	printf '# node\tthread\tmetric\tvalue\n'
	printf '%s\t%s\t%s\t%s\n' 1 0 0 6  1 1 0 3  1 0 1 6  1 1 1 3 \
		2 0 0 6  2 1 0 3  2 0 1 1  3 0 0 1  3 0 1 1 \
		4 0 0 5  5 0 0 5  5 0 1 5  6 0 0 5  6 0 1 5 \
		7 1 0 3  8 1 0 3  8 1 1 3  9 1 0 3  9 1 1 3
} >db/thread-values.tsv

test_expect_success 'a statistic that is 0 where its Sum is not shows 0, not a blank' '
	hpcviewer-tui --stdio --width 0 --metrics all --depth 1 db | sed -n 3p >row &&
	echo "      9.00e+00 100.0%        1.00e+00  11.1%               0.00e+00               0.00e+00               6.00e+00               1.00e+00    + main" >expect &&
	test_cmp expect row &&
	hpcviewer-tui --stdio --width 0 --metrics all --view bottom-up --depth 1 db | sed -n 4p >row &&
	echo "      8.00e+00  88.9%        8.00e+00  88.9%                                                                                                + work [threads]" >expect &&
	test_cmp expect row
'

# per_thread VIEW-KEY LABEL: T on work, labelled LABEL in that view,
# shows its three threads.
per_thread() {
	keys "$1" && sleep 0.2 && keys / "^work" Enter && wait_for ": $2  (?" &&
	keys T && wait_for "at $2: 3 threads" &&
	screen >s &&
	grep -qx "min 0  mean 2.67  max 5" s &&
	grep -qx "max on rank 0 (app, process 100, rank 0, thread 0)" s &&
	grep -qx "min on rank 1 thread 1 (app, rank 1, thread 1)" s &&
	keys x && wait_for "(? help, q quit)"
}

test_expect_success TMUX 'T in the top-down view names the threads of the min and max' '
	open_viewer 130 30 db &&
	keys j T && wait_for "at main: 3 threads" &&
	screen >s &&
	grep -qx "Per-thread distribution of CPUTIME (sec):Sum (I)" s &&
	grep -qx "min 0  mean 3  max 6" s &&
	grep -qx "max on rank 0 (app, process 100, rank 0, thread 0)" s &&
	grep -qx "min on rank 1 thread 1 (app, rank 1, thread 1)" s &&
	keys x && wait_for "(? help, q quit)"
'

test_expect_success TMUX 'T in the bottom-up view: work summed over its two calls' '
	per_thread b "work [threads]"
'

test_expect_success TMUX 'T in the flat view: work summed over its two frames' '
	per_thread f work
'

test_expect_success TMUX 'T in the functions view: work with its module' '
	keys p && sleep 0.2 && keys / "^work" Enter && wait_for ": work [threads]  (?" &&
	keys T && wait_for "at work [threads]: 3 threads" &&
	grep -qx "max on rank 0 (app, process 100, rank 0, thread 0)" screen.txt &&
	keys x && wait_for "(? help, q quit)"
'

test_expect_success TMUX 'T with ties: the first holder and how many more' '
	keys t g && sleep 0.2 && keys / "t.c:5" Enter && wait_for ": t.c:5  (?" &&
	keys T && wait_for "at t.c:5: 3 threads" &&
	grep -qx "min on rank 1 thread 0 (app, process 101, rank 1, thread 0) and 1 more" screen.txt &&
	keys x && wait_for "(? help, q quit)"
'

test_expect_success TMUX 'the column picker fits its list above the prompt at 130 columns, the sums shown' '
	keys m && wait_for "show/hide column (1-6):" &&
	screen >s &&
	grep -q "^1:+CPUTIME (sec):Sum (I)  2:+CPUTIME (sec):Sum (E)  3:-CPUTIME (sec):Min (I)  4:-CPUTIME (sec):Min (E)  5:-CPUTIME (sec):Max (I)$" s &&
	grep -qx "6:-CPUTIME (sec):Max (E)" s &&
	keys 6 Enter && sleep 0.2 && keys m && wait_for "6:+CPUTIME (sec):Max (E)" &&
	keys Enter && wait_for "(? help, q quit)"
'

test_expect_success TMUX 'T on a database whose thread-values.tsv is a FIFO names it, never waits' '
	mkdir fifo-db && cp db/experiment.xml db/threads.tsv fifo-db/ &&
	mkfifo fifo-db/thread-values.tsv &&
	open_viewer 130 30 fifo-db &&
	keys j T &&
	wait_for "fifo-db/thread-values.tsv'"'"': not a regular file (a FIFO)" &&
	keys q
'

test_expect_success TMUX 'T refuses a thread-values.tsv naming a thread threads.tsv lacks, or a line of 300 bytes' '
	mkdir bad-db && cp db/experiment.xml db/threads.tsv bad-db/ &&
	printf "# node\tthread\tmetric\tvalue\n1\t0\t0\t6\n1\t3\t0\t3\n" >bad-db/thread-values.tsv &&
	open_viewer 130 30 bad-db &&
	keys j T &&
	wait_for "bad-db/thread-values.tsv'"'"': line 3: names a thread threads.tsv does not have" &&
	keys q &&
	printf "# node\tthread\tmetric\tvalue\n1\t0\t0\t%0300d\n" 6 >bad-db/thread-values.tsv &&
	open_viewer 130 30 bad-db &&
	keys j T &&
	wait_for "bad-db/thread-values.tsv'"'"': line 2: line too long" &&
	keys q
'

test_expect_success TMUX 'T refuses a threads.tsv whose rows are out of order' '
	mkdir order-db && cp db/experiment.xml db/thread-values.tsv order-db/ &&
	sed "3s/^1/7/" db/threads.tsv >order-db/threads.tsv &&
	open_viewer 130 30 order-db &&
	keys j T &&
	wait_for "order-db/threads.tsv'"'"': line 3: thread 7 where 1 was expected" &&
	keys q
'

screen_done
test_done
