#!/bin/sh
test_description='hpcviewer-tui: every view of a 200,000-deep call path builds in linear time and memory'
. "$(dirname "$0")/test-lib.sh"

# main > f > g > f > ... > g > leaf, 200,000 frames of mutual recursion
# (tests/lib/viewer-deep-db.sh: every value exact, total 200,007).  The bounds
# only catch quadratic work: the linear viewer needs 4-6 s of CPU and under
# 500 MB here (bench/viewer-deep.sh), so 60 CPU seconds and 1 GiB; the wall
# clock (a loaded VM takes 15-25 s) only stops a hang.  Before, the
# bottom-up view needed 29 s and 2.4 GB at 20,000 frames, a hundred times
# that at 200,000.  A 256 KiB stack catches any tree walk that recurses
# once per level (bounded_viewer, test-lib.sh).
DEPTH=200000
bounded() { bounded_viewer "$@"; }

test_expect_success 'setup: the deep database' '
	sh "$TEST_DIRECTORY/lib/viewer-deep-db.sh" deep $DEPTH
'

test_expect_success XMLLINT 'the generator writes valid experiment.xml' '
	sh "$TEST_DIRECTORY/lib/viewer-deep-db.sh" shallow 4 &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" shallow/experiment.xml
'

test_expect_success 'top-down: every row, the leaf 400,003 levels down' '
	bounded hpcviewer-tui --csv deep >out &&
	test $(wc -l <out) = 600007 &&
	grep -n ",procedure,leaf," out >leaf &&
	echo "400005:400003,procedure,leaf,./src/deep.c,30,5,0.00,5,0.00" >expect &&
	test_cmp expect leaf &&
	sed -n "3p;5p;400003,400006p;\$p" out >rows &&
	cat >expect <<-\EOT &&
	1,procedure,main,./src/deep.c,2,200007,100.00,2,0.00
	3,procedure,f,./src/deep.c,10,200005,100.00,1,0.00
	400001,procedure,g,./src/deep.c,20,6,0.00,1,0.00
	400002,call,call at deep.c:22,./src/deep.c,22,5,0.00,0,0.00
	400003,procedure,leaf,./src/deep.c,30,5,0.00,5,0.00
	400004,line,deep.c:31,./src/deep.c,31,5,0.00,5,0.00
	2,line,deep.c:3,./src/deep.c,3,2,0.00,2,0.00
	EOT
	test_cmp expect rows
'

# Indented by its depth, the text would be quadratic (80 GB); --width
# stops the indentation with a depth marker, so it stays linear.
test_expect_success 'top-down --stdio --width: every row, lines of bounded length' '
	bounded hpcviewer-tui --stdio --width 120 deep >out &&
	test $(wc -l <out) = 600007 &&
	grep -n " leaf\$" out >leaf &&
	echo "400005:      5.00e+00   0.0%        5.00e+00   0.0%                             [+400003] - leaf" >expect &&
	test_cmp expect leaf &&
	test $(awk "length(\$0) > 120" out | wc -l) = 0
'

test_expect_success 'top-down --stdio: the first levels' '
	bounded hpcviewer-tui --stdio --depth 3 deep >out &&
	cat >expect <<-\EOT &&
	CPUTIME (sec):Sum (I)  CPUTIME (sec):Sum (E)  Scope (top-down)
	      2.00e+05 100.0%        2.00e+05 100.0%  - Experiment Aggregate Metrics
	      2.00e+05 100.0%        2.00e+00   0.0%    - main
	      2.00e+05 100.0%                             - call at deep.c:4
	      2.00e+05 100.0%        1.00e+00   0.0%        + f
	      2.00e+00   0.0%        2.00e+00   0.0%        deep.c:3
	EOT
	test_cmp expect out
'

# Recursion folded: the callers of f are main (the outermost f, all of its
# inclusive cost) and g (the f that g calls first holds every deeper one,
# so its inclusive cost, once), whose own callers past f and g are main
# alone.
test_expect_success 'bottom-up: recursion folded into one caller chain per procedure' '
	bounded hpcviewer-tui --csv --view bottom-up deep | cut -d, -f1,3,5,6,8 >out &&
	cat >expect <<-\EOT &&
	depth,scope,line,CPUTIME (sec):Sum (I),CPUTIME (sec):Sum (E)
	0,Experiment Aggregate Metrics,,200007,200007
	1,main [deep],2,200007,2
	1,f [deep],10,200005,100000
	2,main [deep],2,200005,1
	2,g [deep],20,200003,99999
	3,main [deep],2,200003,99999
	1,g [deep],20,200004,100000
	2,f [deep],10,200004,100000
	3,main [deep],2,200004,100000
	1,leaf [deep],30,5,5
	2,g [deep],20,5,5
	3,f [deep],10,5,5
	4,main [deep],2,5,5
	EOT
	test_cmp expect out &&
	bounded hpcviewer-tui --stdio --view bottom-up deep >out &&
	cat >expect <<-\EOT &&
	CPUTIME (sec):Sum (I)  CPUTIME (sec):Sum (E)  Scope (bottom-up)
	      2.00e+05 100.0%        2.00e+05 100.0%  - Experiment Aggregate Metrics
	      2.00e+05 100.0%        2.00e+00   0.0%      main [deep]
	      2.00e+05 100.0%        1.00e+05  50.0%    - f [deep]
	      2.00e+05 100.0%        1.00e+00   0.0%        main [deep]
	      2.00e+05 100.0%        1.00e+05  50.0%      - g [deep]
	      2.00e+05 100.0%        1.00e+05  50.0%          main [deep]
	      2.00e+05 100.0%        1.00e+05  50.0%    - g [deep]
	      2.00e+05 100.0%        1.00e+05  50.0%      - f [deep]
	      2.00e+05 100.0%        1.00e+05  50.0%          main [deep]
	      5.00e+00   0.0%        5.00e+00   0.0%    - leaf [deep]
	      5.00e+00   0.0%        5.00e+00   0.0%      - g [deep]
	      5.00e+00   0.0%        5.00e+00   0.0%        - f [deep]
	      5.00e+00   0.0%        5.00e+00   0.0%            main [deep]
	EOT
	test_cmp expect out
'

test_expect_success 'functions: the same tree by exclusive cost, modules named' '
	bounded hpcviewer-tui --csv --view functions --depth 9 deep |
	cut -d, -f1,3,6,8 >out &&
	cat >expect <<-\EOT &&
	depth,scope,CPUTIME (sec):Sum (I),CPUTIME (sec):Sum (E)
	0,Experiment Aggregate Metrics,200007,200007
	1,f [deep],200005,100000
	2,g [deep],200003,99999
	3,main [deep],200003,99999
	2,main [deep],200005,1
	1,g [deep],200004,100000
	2,f [deep],200004,100000
	3,main [deep],200004,100000
	1,leaf [deep],5,5
	2,g [deep],5,5
	3,f [deep],5,5
	4,main [deep],5,5
	1,main [deep],200007,2
	EOT
	test_cmp expect out
'

test_expect_success 'flat: each procedure once, inclusive cost counted once' '
	bounded hpcviewer-tui --csv --view flat deep | cut -d, -f1-3,5,6,8 >out &&
	cat >expect <<-\EOT &&
	depth,kind,scope,line,CPUTIME (sec):Sum (I),CPUTIME (sec):Sum (E)
	0,root,Experiment Aggregate Metrics,,200007,200007
	1,module,deep,,200007,200007
	2,file,./src/deep.c,,200007,200007
	3,procedure,main,,200007,2
	4,call,call at deep.c:4,4,200005,0
	4,line,deep.c:3,3,2,2
	3,procedure,f,,200005,100000
	4,call,call at deep.c:12,12,200004,0
	4,line,deep.c:11,11,100000,100000
	3,procedure,g,,200004,100000
	4,call,call at deep.c:22,22,200003,0
	4,line,deep.c:21,21,100000,100000
	3,procedure,leaf,,5,5
	4,line,deep.c:31,31,5,5
	EOT
	test_cmp expect out
'

test_done
