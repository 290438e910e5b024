#!/bin/sh
test_description='hpcprof --dump prints .hpcrun profiles as stable text'
. "$(dirname "$0")/test-lib.sh"

P0=$FIXTURES/loops-perf.m/testmeas-loops-000000-000-11ac0300-5176-0.hpcrun
C0=$FIXTURES/loops-cputime-t.m/testmeas-loops-000000-000-11ac0300-4974-0.hpcrun

test_expect_success FIXTURES 'dump of an HPCToolkit perf profile has every section' '
	hpcprof --dump "$P0" >out &&
	grep -x "hpcrun-profile 04.00" out &&
	grep -x "header 11" out &&
	grep -x "loadmap 19" out &&
	grep -x "cct 50" out &&
	grep -x "metrics 2" out &&
	grep -x "idkinds 8" out &&
	grep -x "idtuple 3" out &&
	grep -x "values 46 contexts 39" out &&
	grep -x "  node 18 parent 12 lm 0 addr \"| Main  \" flags 0x1" out &&
	grep -x "  lm 17 flags 0x1 \"vdso/7efc21c89566f551ba9bac284645e9d6.vdso\"" out &&
	grep "^  ctx " out >ctxs &&
	test_line_count = 39 ctxs
'

test_expect_success FIXTURES 'dumped values add up to the samples (79 x 12.5 ms)' '
	hpcprof --dump "$P0" >out &&
	sed -n "s/^  ctx [0-9]*:.*\[0\] \([0-9.e+]*\).*/\1/p" out |
		awk "{ s += \$1 } END { printf \"%.0f\n\", s }" >sum &&
	echo 987500000 >expect &&
	test_cmp expect sum
'

test_expect_success FIXTURES 'dump of a CPUTIME profile prints real seconds' '
	hpcprof --dump "$C0" >out &&
	grep -x "  metric 0 \"CPUTIME (sec)\" desc \"CPUTIME (sec)\" flags 01000200 00000101 00000000 00000000 period 1 formula \"\" format \"\" frequency 0 multiplexed 0 threshold 0 samples 0" out &&
	grep -x "  ctx 462: \[0\] 0.005996" out
'

test_expect_success FIXTURES 'several profiles are dumped one after the other' '
	hpcprof --dump "$P0" "$C0" >out &&
	grep -c "^hpcrun-profile 04.00$" out >n &&
	echo 2 >expect &&
	test_cmp expect n &&
	grep -x "# $P0" out
'

test_expect_success FIXTURES 'a truncated profile is named and skipped, the rest dumped' '
	head -c 3500 "$P0" >cut.hpcrun &&
	test_must_fail hpcprof --dump cut.hpcrun "$C0" >out 2>err &&
	grep -x "hpcprof: '"'"'cut.hpcrun'"'"': truncated CCT section (50 records do not fit)" err &&
	grep -x "cct 69" out
'

test_expect_success 'a file that is not a profile is refused' '
	echo hello >x.hpcrun &&
	test_must_fail hpcprof --dump x.hpcrun 2>err &&
	grep "x.hpcrun" err
'

test_done
