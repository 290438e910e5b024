#!/bin/sh
test_description='hpcviewer-tui shows the phases view: sites, threads, strips, phase kinds and their code'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib/viewer-screen.sh"

test_expect_success 'setup: a database of the hand-made barrier loop' '
	build_mkprofile &&
	sh "$TEST_DIRECTORY/lib/sync-meas.sh" meas &&
	hpcprof -S meas/prog.hpcstruct -o db meas 2>err
'

test_expect_success '--stdio --view phases: barriers by wait, threads with strips, locks, phase kinds with their code' '
	hpcviewer-tui --stdio --width 0 --view phases db >actual &&
	cat >expect <<-\EOF &&
	    wait (s)     work (s)  episodes last arr.  LB eff     gain (s)  barrier (strip: one cell per episode, darker = longer wait)
	    0.600000     4.800000        10        10   0.889     0.300000  pthread_barrier_wait at prog.c:23 [worker] (barrier, 2 threads)
	    0.500000     2.100000        10         2                         thread 0  |# |
	    0.100000     2.700000        10         8                         thread 1  | #|
	lock wait (s)     calls   blocked  lock (by waiting context)
	    0.250000         5         3  pthread_mutex_lock at prog.c:21 [worker]
	    0.250000         5         3    thread 0
	    work (s)     wall (s)    phases   threads  LB eff  phase kind (code below: the per-phase profile)
	    0.400000     0.400000         1         2   0.667  from thread start to pthread_barrier_wait at prog.c:23 [worker]
	    0.100000     0.100000         1                      thread 0
	    0.300000     0.300000         1                      thread 1
	          20    worker
	          20      prog.c:21
	    4.400000     5.000000         9         2   0.917  from pthread_barrier_wait at prog.c:23 [worker] to pthread_barrier_wait at prog.c:23 [worker]
	    2.000000     2.500000         9                      thread 0
	    2.400000     2.500000         9                      thread 1
	          41    worker
	          41      loop at prog.c:22
	          41        prog.c:24
	EOF
	test_cmp expect actual
'

test_expect_success '--depth 1 shows the top procedure of each phase, --width cuts lines' '
	hpcviewer-tui --stdio --view phases --depth 1 db >actual &&
	test_line_count = 16 actual &&
	! grep "loop at" actual &&
	hpcviewer-tui --stdio --view phases --width 40 db >actual &&
	test "$(awk "length > 40" actual | wc -l)" = 0
'

test_expect_success '--width 80: a section too wide keeps two number columns, its sites and their locations' '
	hpcviewer-tui --stdio --view phases --width 80 db >actual &&
	test "$(awk "length > 80" actual | wc -l)" = 0 &&
	sed -n 2,4p actual >rows &&
	cat >expect <<-\EOF &&
	    0.600000     4.800000  pthread_barrier_wait at prog.c:23 [worker]
	    0.500000     2.100000    thread 0  |# |
	    0.100000     2.700000    thread 1  | #|
	EOF
	test_cmp expect rows &&
	grep -x "    0.250000         5         3  pthread_mutex_lock at prog.c:21 \[worker\]" actual &&
	grep -x "    0.100000     0.100000    thread 0" actual &&
	grep -x "    4.400000     5.000000  from pthread_barrier_wai...wait at prog.c:23 \[worker\]" actual
'

test_expect_success '--csv --view phases: site, thread, episodes, wait_s, work_s, last_arrivals' '
	hpcviewer-tui --csv --view phases db >actual &&
	cat >expect <<-\EOF &&
	site,kind,thread,episodes,wait_s,work_s,last_arrivals,completion_s,lock_calls,lock_blocked,lock_wait_s,location
	1,barrier,all,10,0.600000000,4.800000000,10,0.020000000,0,0,0.000000000,prog.c:23 [worker]
	1,barrier,0,10,0.500000000,2.100000000,2,0.010000000,0,0,0.000000000,prog.c:23 [worker]
	1,barrier,1,10,0.100000000,2.700000000,8,0.010000000,0,0,0.000000000,prog.c:23 [worker]
	2,mutex,all,0,0.000000000,0.000000000,0,0.000000000,5,3,0.250000000,prog.c:21 [worker]
	2,mutex,0,0,0.000000000,0.000000000,0,0.000000000,5,3,0.250000000,prog.c:21 [worker]
	0-1,phase,all,1,,0.400000000,,,,,,
	0-1,phase,0,1,,0.100000000,,,,,,
	0-1,phase,1,1,,0.300000000,,,,,,
	1-1,phase,all,9,,4.400000000,,,,,,
	1-1,phase,0,9,,2.000000000,,,,,,
	1-1,phase,1,9,,2.400000000,,,,,,
	EOF
	test_cmp expect actual
'

test_expect_success 'per-phase profiles are not counted twice in the bottom-up and functions views' '
	hpcviewer-tui --csv --view bottom-up --depth 1 db >actual &&
	grep ",worker \\[prog\\]," actual | cut -d, -f6 >value &&
	echo 61 >expect &&
	test_cmp expect value &&
	hpcviewer-tui --csv --view functions db | grep ",worker " | cut -d, -f6 >value &&
	test_cmp expect value
'

test_expect_success 'a database without phases.tsv: one line, exit 1' '
	mkdir plain && cp meas/*.hpcrun plain/ &&
	hpcprof -S meas/prog.hpcstruct -o db-plain plain 2>err &&
	test_must_fail hpcviewer-tui --stdio --view phases db-plain 2>err &&
	test_line_count = 1 err &&
	grep "db-plain.: no phases.tsv: hpcprof found no synchronization data" err
'

test_expect_success 'bad phases.tsv files are refused in one line naming the file and line' '
	for case in trunc unknown-site nan binary fifo; do
		rm -rf bad && mkdir bad && cp db/experiment.xml db/threads.tsv bad/ &&
		case $case in
		trunc) head -c 300 db/phases.tsv >bad/phases.tsv ;;
		unknown-site) sed "s/^thread	1	/thread	9	/" db/phases.tsv >bad/phases.tsv ;;
		nan) sed "s/^site	1	\(.*\)	0.600000000	/site	1	\1	nan	/" db/phases.tsv >bad/phases.tsv ;;
		binary) printf "# hpcprof phases 1\n\000" >bad/phases.tsv ;;
		fifo) mkfifo bad/phases.tsv ;;
		esac &&
		test_must_fail hpcviewer-tui --stdio --view phases bad 2>err &&
		test_line_count = 1 err &&
		grep "bad/phases.tsv" err || return 1
	done
'

test_expect_success 'the messages say what is wrong' '
	rm -rf bad && mkdir bad && cp db/experiment.xml bad/ &&
	sed "s/^thread	1	/thread	9	/" db/phases.tsv >bad/phases.tsv &&
	test_must_fail hpcviewer-tui --stdio --view phases bad 2>err &&
	grep -x "hpcviewer-tui: .bad/phases.tsv.: line 10: names a site no site row gave" err &&
	mkdir fifo && cp db/experiment.xml fifo/ && mkfifo fifo/phases.tsv &&
	test_must_fail hpcviewer-tui --stdio --view phases fifo 2>err &&
	grep "not a regular file (a FIFO), not a table of phases" err
'

test_expect_success TMUX 'P shows the phases view on screen; Enter on a phase kind opens its code' '
	open_viewer 160 30 db &&
	keys P && wait_for "phases view (2 sites, 2 phase kinds)" &&
	grep -F "thread 1  | #|" screen.txt &&
	keys G && wait_for "line 18/18" &&
	keys Up Enter && wait_for "top-down view" &&
	grep -F "<phase after pthr" screen.txt &&
	keys P && wait_for "phases view" && keys t && wait_for "top-down view"
'

test_expect_success TMUX '--view phases starts there' '
	tm kill-session -t v 2>/dev/null
	tm new-session -d -s v -x 160 -y 30 "$BIN/hpcviewer-tui --view phases db; sleep 60" &&
	wait_for "phases view (2 sites"
'

test_expect_success TMUX 'at 80 columns the screen shows each site its function and location' '
	tm kill-session -t v 2>/dev/null
	tm new-session -d -s v -x 80 -y 24 "$BIN/hpcviewer-tui --view phases db; sleep 60" &&
	wait_for "    0.600000     4.800000  pthread_barrier_wait at prog.c:23 [worker]" &&
	grep -Fx "    0.100000     2.700000    thread 1  | #|" screen.txt
'

screen_done
test_done
