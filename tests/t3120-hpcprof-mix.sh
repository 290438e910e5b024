#!/bin/sh
test_description='hpcprof fuses the instruction mix of structure files with samples: exact values, derived metrics, bad mixes'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" "$DB/experiment.xml"; }
# col NAME: the id of the metric column NAME.
col() { X "string(//Metric[@n=\"$1\"]/@i)"; }
# total NAME: the experiment total of column NAME.
total() { X "string(//SecCallPathProfileData/M[@n=$(col "$1")]/@v)"; }
# at XPATH NAME: the value of column NAME at the call-path scope XPATH.
at() { X "string(//SecCallPathProfileData$1/M[@n=$(col "$2")]/@v)"; }

# One loop of two statements (two FP instructions; an integer op, a load
# and a branch), a store after it, and a statement without a mix.  A sample
# counts for the instruction that ends at its address (the one that retired
# before it), or for its own where none does (0x1000) or a branch does
# (0x1010): 0x1000 f, 0x1004 f, 0x1008 f, 0x100b i, 0x100f l, 0x1010 s,
# 0x1014 s (the store before the statement without a mix).
test_expect_success 'a structure file with a mix and a profile of known samples' '
	build_mkprofile &&
	cat >prog.hpcstruct <<-\EOT &&
	<?xml version="1.0"?>
	<HPCToolkitStructure i="0" version="4.9" n="">
	<LM i="2" n="/nonexistent/prog" has-calls="0" v="{}">
	<F i="3" n="/src/prog.c">
	<P i="4" n="main" l="1" v="{[0x1000-0x1001)}">
	<L i="5" l="2" f="/src/prog.c" v="{[0x1000-0x1001)}">
	<S i="6" l="3" v="{[0x1000-0x1008)}"/><?insn-mix fp="2" insns="f4f4"?>
	<S i="7" l="4" v="{[0x1008-0x1010)}"/><?insn-mix branch="1" load="1" int="1" insns="i3l4b1"?>
	</L>
	<S i="8" l="5" v="{[0x1010-0x1014)}"/><?insn-mix store="1" insns="s4"?>
	<S i="9" l="6" v="{[0x1014-0x1018)}"/>
	</P>
	</F>
	</LM>
	</HPCToolkitStructure>
	EOT
	cat >spec <<-\EOT &&
	header program-name prog
	lm 1 /nonexistent/prog
	metric cycles int
	metric instructions int
	node 2 0 0 ^Primary
	node 4 2 1 1000
	node 6 2 1 1004
	node 8 2 1 1008
	node 10 2 1 100b
	node 12 2 1 100f
	node 14 2 1 1010
	node 16 2 1 1014
	value 4 0 10
	value 4 1 40
	value 6 0 30
	value 6 1 20
	value 8 0 5
	value 8 1 15
	value 10 0 40
	value 10 1 10
	value 12 0 5
	value 12 1 10
	value 14 0 10
	value 14 1 5
	value 16 0 100
	EOT
	mkdir meas &&
	./mkprofile meas/prog-0.hpcrun <spec &&
	hpcprof -S prog.hpcstruct -o db --metric "cpf=cycles/instructions.fp" meas 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml
'

DB=db

test_expect_success 'each sample goes to the group of the instruction that retired before it: cycles' '
	test "$(total "cycles:Sum (I)")" = 200 &&
	test "$(total "cycles.fp:Sum (I)")" = 45 &&
	test "$(total "cycles.mem:Sum (I)")" = 115 &&
	test "$(total "cycles.int:Sum (I)")" = 40 &&
	test -z "$(total "cycles.branch:Sum (I)")"
'

test_expect_success 'an instruction count becomes estimated retired instructions by group' '
	test "$(total "instructions.fp:Sum (I)")" = 75 &&
	test "$(total "instructions.mem:Sum (I)")" = 15 &&
	test "$(total "instructions.int:Sum (I)")" = 10 &&
	test -z "$(total "instructions.branch:Sum (I)")" &&
	test "$(X "string(//Metric[@n=\"instructions.fp:Sum (I)\"]/@md)")" = \
		"estimated retired floating-point instructions"
'

test_expect_success 'shares per scope: the program, the loop, its statements' '
	test "$(total "cycles.fp_share (I)")" = 22.5 &&
	test "$(total "cycles.mem_share (I)")" = 57.49999999999999 &&
	test "$(total "cycles.int_share (I)")" = 20 &&
	test -z "$(total "cycles.branch_share (I)")" &&
	test "$(at "//L[@l=2]" "cycles.fp_share (I)")" = 50 &&
	test "$(at "//L[@l=2]" "cycles.mem_share (E)")" = 5.555555555555555 &&
	test "$(at "//S[@l=3]" "cycles.fp_share (E)")" = 100 &&
	test "$(at "//S[@l=5]" "cycles.mem_share (E)")" = 100 &&
	test "$(at "//S[@l=6]" "cycles.mem_share (E)")" = 100
'

test_expect_success 'shares are shown, without a percentage of the total; the splits hidden' '
	test "$(X "string(//Metric[@n=\"cycles.fp:Sum (I)\"]/@show)")" = 0 &&
	test "$(X "string(//Metric[@n=\"instructions.branch:Sum (E)\"]/@show)")" = 0 &&
	test "$(X "string(//Metric[@n=\"cycles:Sum (I)\"]/@show)")" = 1 &&
	test "$(X "string(//Metric[@n=\"cycles.fp_share (I)\"]/@show)")" = 1 &&
	test "$(X "string(//Metric[@n=\"cycles.fp_share (I)\"]/@show-percent)")" = 0 &&
	test "$(X "string(//Metric[@n=\"cycles.fp_share (I)\"]/@v)")" = derived
'

test_expect_success 'cycles per FLOP from --metric: 200/75 overall, 90/75 in the loop' '
	test "$(total "cpf (I)")" = 2.6666666666666665 &&
	test "$(at "//L[@l=2]" "cpf (I)")" = 1.2
'

test_expect_success 'cycles per FLOP from a configuration: cycles and instructions from two runs' '
	for run in a b; do
		mkdir run-$run run-$run/structs &&
		cp prog.hpcstruct run-$run/structs/ || return 1
	done &&
	grep -v "value [0-9]* 1 " spec | sed "/^metric instructions/d" >a.spec &&
	grep -v "value [0-9]* 0 " spec | sed "/^metric cycles/d; s/^value \([0-9]*\) 1 /value \1 0 /" >b.spec &&
	./mkprofile run-a/prog-0.hpcrun <a.spec &&
	./mkprofile run-b/prog-0.hpcrun <b.spec &&
	cat >cpf.xml <<-\EOT &&
	<?xml version="1.0"?>
	<HPCPROF>
	  <METRIC name="cyc" displayName="Cycles"><FILE name="run-a" select="cycles"/></METRIC>
	  <METRIC name="ins" displayName="Instructions"><FILE name="run-b" select="instructions"/></METRIC>
	  <METRIC name="rat" displayName="cy per FLOP" percent="false">
	    <COMPUTE><math><apply><divide/><ci>cyc</ci><ci>ins.fp</ci></apply></math></COMPUTE>
	  </METRIC>
	</HPCPROF>
	EOT
	hpcprof -M cpf.xml -o db2 2>err &&
	DB=db2 &&
	test "$(total "cy per FLOP (I)")" = 2.6666666666666665 &&
	test "$(total "Cycles.fp (I)")" = 45 &&
	test "$(total "ins.fp_share (I)")" = 75
'

test_expect_success 'hpcviewer-tui shows the shares as columns and sorts by them; the splits start hidden' '
	hpcviewer-tui --csv --view flat db >csv &&
	head -1 csv >heading &&
	grep -q "cycles.fp_share (I)" heading &&
	grep -q "cycles.mem_share (E)" heading &&
	! grep -q "instructions.fp:Sum" heading &&
	hpcviewer-tui --stdio --view flat --metric "cycles.fp_share (E)" db >view &&
	grep -q "cycles.fp_share (E)" view
'

test_expect_success 'without a mix in any structure file, no mix metrics' '
	sed "s|/><?insn-mix[^>]*>|/>|" prog.hpcstruct >plain.hpcstruct &&
	! grep -q insn-mix plain.hpcstruct &&
	hpcprof -S plain.hpcstruct -o db3 meas 2>err &&
	DB=db3 &&
	test "$(X "count(//Metric)")" = 24
'

test_expect_success 'a mix that does not tile its statement is named and the file ignored' '
	sed "s|insns=\"f4f4\"|insns=\"f4f3\"|" prog.hpcstruct >bad.hpcstruct &&
	test_must_fail hpcprof -S bad.hpcstruct -o db4 meas 2>err &&
	grep "bad.hpcstruct.: line 7: insn-mix of 7 bytes does not match its statement.s 8 bytes of whole instructions; structure file ignored" err &&
	sed "s|insns=\"f4f4\"|insns=\"f4q4\"|" prog.hpcstruct >bad2.hpcstruct &&
	test_must_fail hpcprof --dump bad2.hpcstruct 2>err2 &&
	grep "bad2.hpcstruct.: line 7: insn-mix: bad instruction code .q4. at offset" err2
'

test_expect_success 'hpcprof --dump lists the mix runs of a structure file' '
	hpcprof --dump prog.hpcstruct >dump &&
	grep -x "mix \[0x1000-0x1008) ff" dump &&
	grep -x "mix \[0x1008-0x1010) ilb" dump &&
	grep -x "mix \[0x1010-0x1014) s" dump
'

test_done
