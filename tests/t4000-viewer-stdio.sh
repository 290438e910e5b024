#!/bin/sh
test_description='hpcviewer-tui --stdio: the top-down view of a hand-made database'
. "$(dirname "$0")/test-lib.sh"

DB=$TEST_DIRECTORY/data/viewer/small-db

test_expect_success XMLLINT 'the test database is valid against the experiment DTD' '
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" "$DB/experiment.xml"
'

test_expect_success 'top-down rows, values and percentages are exact' '
	cat >expect <<-\EOT &&
	CPUTIME (sec):Sum (I)  CPUTIME (sec):Sum (E)  Scope (top-down)
	      1.00e+01 100.0%        1.00e+01 100.0%  - Experiment Aggregate Metrics
	      1.00e+01 100.0%        2.00e+00  20.0%    - main
	      8.00e+00  80.0%        1.00e+00  10.0%      - loop at app.c:8
	      7.00e+00  70.0%                               - call at app.c:10
	      7.00e+00  70.0%        5.00e+00  50.0%          - compute
	      5.00e+00  50.0%        5.00e+00  50.0%            - loop at app.c:22
	      3.00e+00  30.0%        3.00e+00  30.0%              - [I] vec_add
	      3.00e+00  30.0%        3.00e+00  30.0%                  vec.h:3
	      2.00e+00  20.0%        2.00e+00  20.0%                app.c:23
	      2.00e+00  20.0%                                   - call at app.c:25
	      2.00e+00  20.0%        2.00e+00  20.0%              - helper
	      2.00e+00  20.0%        2.00e+00  20.0%                  util.c:4
	      1.00e+00  10.0%        1.00e+00  10.0%          app.c:9
	      1.00e+00  10.0%        1.00e+00  10.0%        app.c:12
	      1.00e+00  10.0%                             - call at app.c:13
	      1.00e+00  10.0%        5.00e-01   5.0%        - helper
	      5.00e-01   5.0%                                 - call at util.c:6
	      5.00e-01   5.0%        5.00e-01   5.0%            - helper
	      5.00e-01   5.0%        5.00e-01   5.0%                util.c:4
	      5.00e-01   5.0%        5.00e-01   5.0%            util.c:4
	EOT
	hpcviewer-tui --stdio "$DB" >out &&
	test_cmp expect out
'

test_expect_success 'the database may be named by its experiment.xml' '
	hpcviewer-tui --stdio "$DB" >a &&
	hpcviewer-tui --stdio "$DB/experiment.xml" >b &&
	test_cmp a b
'

test_expect_success '--depth 2 stops two levels below the root, collapsed rows marked +' '
	cat >expect <<-\EOT &&
	CPUTIME (sec):Sum (I)  CPUTIME (sec):Sum (E)  Scope (top-down)
	      1.00e+01 100.0%        1.00e+01 100.0%  - Experiment Aggregate Metrics
	      1.00e+01 100.0%        2.00e+00  20.0%    - main
	      8.00e+00  80.0%        1.00e+00  10.0%      + loop at app.c:8
	      1.00e+00  10.0%        1.00e+00  10.0%        app.c:12
	      1.00e+00  10.0%                             + call at app.c:13
	EOT
	hpcviewer-tui --stdio --depth 2 "$DB" >out &&
	test_cmp expect out
'

test_expect_success '--metric sorts by the exclusive column' '
	hpcviewer-tui --stdio --depth 3 --metric "CPUTIME (sec):Sum (E)" "$DB" |
	cut -c47- >out &&
	cat >expect <<-\EOT &&
	Scope (top-down)
	- Experiment Aggregate Metrics
	  - main
	      app.c:12
	    - loop at app.c:8
	        app.c:9
	      + call at app.c:10
	    - call at app.c:13
	      + helper
	EOT
	test_cmp expect out &&
	hpcviewer-tui --stdio --depth 2 --metric 1 "$DB" >by-id &&
	hpcviewer-tui --stdio --depth 2 --metric "CPUTIME (sec):Sum (E" "$DB" >by-prefix &&
	test_cmp by-id by-prefix &&
	sed -n 3p by-id | grep -q "2.00e+00  20.0%  *- main"
'

test_expect_success '--metric with an unknown name fails with one line listing the metrics' '
	test_must_fail hpcviewer-tui --stdio --metric NOPE "$DB" >out 2>err &&
	test_line_count = 1 err &&
	grep -qx "hpcviewer-tui: '"'"'NOPE'"'"': no such metric (CPUTIME (sec):Sum (I), CPUTIME (sec):Sum (E))" err &&
	test ! -s out
'

test_expect_success '--csv prints the same rows with raw values' '
	cat >expect <<-\EOT &&
	depth,kind,scope,file,line,CPUTIME (sec):Sum (I),CPUTIME (sec):Sum (I) %,CPUTIME (sec):Sum (E),CPUTIME (sec):Sum (E) %
	0,root,Experiment Aggregate Metrics,,,10,100.00,10,100.00
	1,procedure,main,./src/app.c,5,10,100.00,2,20.00
	2,loop,loop at app.c:8,./src/app.c,8,8,80.00,1,10.00
	2,line,app.c:12,./src/app.c,12,1,10.00,1,10.00
	2,call,call at app.c:13,./src/app.c,13,1,10.00,0,0.00
	EOT
	hpcviewer-tui --stdio --csv --depth 2 "$DB" >out &&
	test_cmp expect out &&
	hpcviewer-tui --stdio --csv "$DB" >all &&
	hpcviewer-tui --stdio "$DB" >txt &&
	test $(wc -l <all) = $(wc -l <txt)
'

# A database in another writer's style: inline names (no header tables), a
# static procedure Pr, no aggregate <M> in the data section (totals are
# computed), values after child scopes, a metric without t/partner, and a
# second section that must be ignored.  /lib/a.so is a shared library, so
# its procedures are labelled "NAME [a.so]".  A metric of no type (t="nil")
# totals over the top level only, here 0, so it gets no percentage.
test_expect_success 'liberal input: inline names, computed totals, odd order' '
	cat >experiment.xml <<-\EOT &&
	<?xml version="1.0"?>
	<!DOCTYPE HPCToolkitExperiment [
	<!ELEMENT HPCToolkitExperiment ANY>
	]>
	<HPCToolkitExperiment version="2.0">
	<Header n="x"/>
	<SecCallPathProfile i="0" n="x">
	<SecHeader>
	<MetricTable>
	<Metric i="7" n="cycles" t="inclusive" partner="8"/>
	<Metric i="8" n="cycles" t="exclusive" partner="7"/>
	<Metric i="9" n="samples"/>
	</MetricTable>
	</SecHeader>
	<SecCallPathProfileData>
	<PF n="start" lm="/lib/a.so" f="a.c" l="1">
	<Pr n="kernel" f="b.c" l="40">
	<S l="41"><M n="7" v="30"/><M n="8" v="30"/></S>
	<M n="7" v="30"/><M n="8" v="30"/><M n="9" v="3"/>
	</Pr>
	<M n="7" v="40"/><M n="8" v="10"/>
	<S l="2"><M n="7" v="10"/><M n="8" v="10"/></S>
	</PF>
	<PF n="other" lm="/lib/a.so" f="a.c" l="9"><M n="7" v="60"/><M n="8" v="60"/></PF>
	</SecCallPathProfileData>
	</SecCallPathProfile>
	<SecFlatProfile i="1" n="ignored"><SecHeader/><SecFlatProfileData>
	<LM n="zzz"><M n="7" v="1"/></LM></SecFlatProfileData></SecFlatProfile>
	</HPCToolkitExperiment>
	EOT
	cat >expect <<-\EOT &&
	depth,kind,scope,file,line,cycles (I),cycles (I) %,cycles (E),cycles (E) %,samples,samples %
	0,root,Experiment Aggregate Metrics,,,100,100.00,100,100.00,0,
	1,procedure,other [a.so],a.c,9,60,60.00,60,60.00,0,
	1,procedure,start [a.so],a.c,1,40,40.00,10,10.00,0,
	2,procedure,kernel [a.so],b.c,40,30,30.00,30,30.00,3,
	3,line,b.c:41,b.c,41,30,30.00,30,30.00,0,
	2,line,a.c:2,a.c,2,10,10.00,10,10.00,0,
	EOT
	hpcviewer-tui --csv . >out &&
	test_cmp expect out
'

test_done
