#!/bin/sh
test_description='hpcviewer-tui --stdio: bottom-up and flat views of a hand-made database'
. "$(dirname "$0")/test-lib.sh"

DB=$TEST_DIRECTORY/data/viewer/small-db

# helper is recursive (main > helper > helper): its inclusive time is 3 s,
# not 3.5 s, and the recursive instance adds only exclusive time.  The
# recursion is folded: the inner helper's caller is main, past the outer
# helper, so main holds both instances (1 s inclusive, 0.5 + 0.5 exclusive).
test_expect_success 'bottom-up: procedure totals, then callers with apportioned costs' '
	cat >expect <<-\EOT &&
	CPUTIME (sec):Sum (I)  CPUTIME (sec):Sum (E)  Scope (bottom-up)
	      1.00e+01 100.0%        1.00e+01 100.0%  - Experiment Aggregate Metrics
	      1.00e+01 100.0%        2.00e+00  20.0%      main [app]
	      7.00e+00  70.0%        5.00e+00  50.0%    - compute [app]
	      7.00e+00  70.0%        5.00e+00  50.0%        main [app]
	      3.00e+00  30.0%        3.00e+00  30.0%    - helper [app]
	      2.00e+00  20.0%        2.00e+00  20.0%      - compute [app]
	      2.00e+00  20.0%        2.00e+00  20.0%          main [app]
	      1.00e+00  10.0%        1.00e+00  10.0%        main [app]
	EOT
	hpcviewer-tui --stdio --view bottom-up "$DB" >out &&
	test_cmp expect out
'

test_expect_success 'bottom-up --depth 1 lists each procedure once' '
	hpcviewer-tui --stdio --csv --view bottom-up --depth 1 "$DB" | cut -d, -f1-3,6,8 >out &&
	cat >expect <<-\EOT &&
	depth,kind,scope,CPUTIME (sec):Sum (I),CPUTIME (sec):Sum (E)
	0,root,Experiment Aggregate Metrics,10,10
	1,procedure,main [app],10,2
	1,procedure,compute [app],7,5
	1,procedure,helper [app],3,3
	EOT
	test_cmp expect out
'

# Files keep the name the database gives them; helper's statement util.c:4
# merges its three calling contexts (2 + 0.5 + 0.5).
test_expect_success 'flat: module > file > procedure > loop > line' '
	cat >expect <<-\EOT &&
	CPUTIME (sec):Sum (I)  CPUTIME (sec):Sum (E)  Scope (flat)
	      1.00e+01 100.0%        1.00e+01 100.0%  - Experiment Aggregate Metrics
	      1.00e+01 100.0%        1.00e+01 100.0%    - app
	      1.00e+01 100.0%        7.00e+00  70.0%      - ./src/app.c
	      1.00e+01 100.0%        2.00e+00  20.0%        - main
	      8.00e+00  80.0%        1.00e+00  10.0%          - loop at app.c:8
	      7.00e+00  70.0%                                     call at app.c:10
	      1.00e+00  10.0%        1.00e+00  10.0%              app.c:9
	      1.00e+00  10.0%        1.00e+00  10.0%            app.c:12
	      1.00e+00  10.0%                                   call at app.c:13
	      7.00e+00  70.0%        5.00e+00  50.0%        - compute
	      5.00e+00  50.0%        5.00e+00  50.0%          - loop at app.c:22
	      3.00e+00  30.0%        3.00e+00  30.0%            - [I] vec_add
	      3.00e+00  30.0%        3.00e+00  30.0%                vec.h:3
	      2.00e+00  20.0%        2.00e+00  20.0%              app.c:23
	      2.00e+00  20.0%                                   call at app.c:25
	      3.00e+00  30.0%        3.00e+00  30.0%      - ./src/util.c
	      3.00e+00  30.0%        3.00e+00  30.0%        - helper
	      3.00e+00  30.0%        3.00e+00  30.0%            util.c:4
	      5.00e-01   5.0%                                   call at util.c:6
	EOT
	hpcviewer-tui --stdio --view flat "$DB" >out &&
	test_cmp expect out
'

test_expect_success 'exclusive values of the flat view add up to the total' '
	hpcviewer-tui --csv --view flat --depth 3 "$DB" |
	awk -F, "\$2 == \"procedure\" { s += \$8 } END { print s }" >sum &&
	echo 10 >expect &&
	test_cmp expect sum
'

test_expect_success 'an unknown view is a usage error' '
	status=0 && hpcviewer-tui --stdio --view sideways "$DB" 2>err || status=$? &&
	test $status = 2 &&
	grep -qx "hpcviewer-tui: '"'"'sideways'"'"': unknown view (top-down, bottom-up, flat, functions, data, phases or trace)" err
'

# Max across threads is a statistic (v="final"): 4 in f and 3 in g do not
# make 7 in the file that holds both, so bottom-up and flat leave it empty.
test_expect_success 'statistics are shown where measured, never summed' '
	mkdir -p statdb &&
	cat >statdb/experiment.xml <<-\EOT &&
	<?xml version="1.0"?>
	<HPCToolkitExperiment version="2.2">
	<Header n="s"/>
	<SecCallPathProfile i="0" n="s">
	<SecHeader>
	<MetricTable>
	<Metric i="0" n="T:Sum (E)" v="derived-incr" t="exclusive" show="1" show-percent="1"/>
	<Metric i="1" n="T:Max (E)" v="final" t="exclusive" show="1" show-percent="0"/>
	</MetricTable>
	<LoadModuleTable><LoadModule i="1" n="/bin/s"/></LoadModuleTable>
	<FileTable><File i="1" n="s.c"/></FileTable>
	<ProcedureTable><Procedure i="1" n="f"/><Procedure i="2" n="g"/></ProcedureTable>
	</SecHeader>
	<SecCallPathProfileData>
	<M n="0" v="10"/><M n="1" v="4"/>
	<PF i="2" lm="1" f="1" n="1" l="1"><M n="0" v="6"/><M n="1" v="4"/></PF>
	<PF i="3" lm="1" f="1" n="2" l="9"><M n="0" v="4"/><M n="1" v="3"/></PF>
	</SecCallPathProfileData>
	</SecCallPathProfile>
	</HPCToolkitExperiment>
	EOT
	hpcviewer-tui --csv --view top-down statdb | cut -d, -f3,6,8 >td &&
	cat >expect <<-\EOT &&
	scope,T:Sum (E),T:Max (E)
	Experiment Aggregate Metrics,10,4
	f,6,4
	g,4,3
	EOT
	test_cmp expect td &&
	hpcviewer-tui --stdio --metrics all --view flat statdb >flat &&
	cat >expect <<-\EOT &&
	       T:Sum (E)         T:Max (E)  Scope (flat)
	 1.00e+01 100.0%          4.00e+00  - Experiment Aggregate Metrics
	 1.00e+01 100.0%                      - s
	 1.00e+01 100.0%                        - s.c
	 6.00e+00  60.0%                            f
	 4.00e+00  40.0%                            g
	EOT
	test_cmp expect flat
'

test_done
