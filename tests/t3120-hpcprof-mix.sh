#!/bin/sh
test_description='hpcprof fuses the instruction mix of structure files with samples: exact values, derived metrics, bad mixes'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" "$DB/experiment.xml"; }
# col NAME: the id of the metric column NAME.
col() { X "string(//Metric[@n=\"$1\"]/@i)"; }
. "$TEST_DIRECTORY/lib/derived-lib.sh"
# value SCOPE NAME: the value of column NAME at the scope XPath SCOPE
# selects, a derived one's as readers compute it (derived-lib.sh).
value() {
	if test "$(X "string(//Metric[@n=\"$2\"]/@v)")" = derived
	then derived "$DB" "$1" "$2"
	else X "string($1/M[@n=$(col "$2")]/@v)"
	fi
}
# total NAME: the experiment total of column NAME.
total() { value "//SecCallPathProfileData" "$1"; }
# at XPATH NAME: the value of column NAME at the call-path scope XPATH.
at() { value "//SecCallPathProfileData$1" "$2"; }

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
	test "$(total "cycles.mem_share (I)")" = 57.5 &&
	test "$(total "cycles.int_share (I)")" = 20 &&
	test -z "$(total "cycles.branch_share (I)")" &&
	test "$(at "//L[@l=2]" "cycles.fp_share (I)")" = 50 &&
	test "$(at "//L[@l=2]" "cycles.mem_share (E)")" = 5.55556 &&
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
	test "$(total "cpf (I)")" = 2.66667 &&
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
	test "$(total "cy per FLOP (I)")" = 2.66667 &&
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

# kern, called from two lines of main, is 75% FP in one context (30 of 40
# cycles) and 1/6 in the other (10 of 60): 40 of its 100 cycles are FP.
# Views that sum contexts (flat, functions, bottom-up) and the report
# divide the summed counts, never add or average the contexts' shares.
test_expect_success 'a procedure in two contexts: a measurement with known shares' '
	structure_file /nonexistent/two /src/two.c >two.hpcstruct <<-\EOT &&
	<P i="3" n="kern" l="10" v="{[0x1000-0x1001)}">
	<S i="4" l="11" v="{[0x1000-0x1008)}"/><?insn-mix fp="2" insns="f4f4"?>
	<S i="5" l="12" v="{[0x1008-0x1010)}"/><?insn-mix int="2" insns="i4i4"?>
	</P>
	<P i="6" n="main" l="20" v="{[0x2000-0x2001)}">
	<S i="7" l="21" v="{[0x2000-0x2010)}"/>
	<S i="8" l="22" v="{[0x2010-0x2020)}"/>
	</P>
	EOT
	cat >two.spec <<-\EOT &&
	header program-name two
	lm 1 /nonexistent/two
	metric cycles int
	node 2 0 0 ^Primary
	node 4 2 1 2005
	node 6 4 1 1004
	node 8 4 1 100c
	node 10 2 1 2015
	node 12 10 1 1004
	node 14 10 1 100c
	value 6 0 30
	value 8 0 10
	value 12 0 10
	value 14 0 50
	EOT
	mkdir two &&
	./mkprofile two/two-0.hpcrun <two.spec &&
	hpcprof -S two.hpcstruct -o dbtwo --text two.txt two 2>err &&
	DB=dbtwo &&
	test "$(at "//C[@l=21]" "cycles.fp_share (I)")" = 75 &&
	test "$(at "//C[@l=22]" "cycles.int_share (I)")" = 83.3333
'

# share VIEW ROW: the fp, mem, int and branch shares (E) of the CSV row
# whose scope is ROW, as "fp mem int branch".
share() {
	hpcviewer-tui --csv --view "$1" --metrics \
		"cycles.fp_share (E),cycles.mem_share (E),cycles.int_share (E),cycles.branch_share (E)" \
		dbtwo >csv.$1 &&
	awk -F, -v row="$2" '$3 == row { print $6, $8, $10, $12 }' csv.$1
}

test_expect_success 'functions view: a procedure'"'"'s shares are its class samples over its samples' '
	test "$(share functions "kern [two]")" = "40 0 60 0"
'

test_expect_success 'flat view: procedure, file and module rows sum their contexts first' '
	test "$(share flat kern)" = "40 0 60 0" &&
	test "$(share flat two)" = "40 0 60 0" &&
	test "$(share flat /src/two.c)" = "40 0 60 0" &&
	test "$(share flat two.c:11)" = "100 0 0 0"
'

test_expect_success 'bottom-up view: each caller row has the shares of the calls through it' '
	hpcviewer-tui --csv --view bottom-up --metrics "cycles.fp_share (I)" dbtwo >bu &&
	awk -F, '"'"'$2 == "procedure" { print $1, $3, $6 }'"'"' bu >rows &&
	grep -x "1 kern \[two\] 40" rows &&
	grep -x "2 main \[two\] 40" rows
'

test_expect_success 'shares show in the text of the functions view' '
	hpcviewer-tui --stdio --width 0 --view functions --metrics all dbtwo >fv &&
	grep "kern" fv >kern &&
	grep -q "40.0%" kern &&
	grep -q "60.0%" kern
'

test_expect_success 'hpcprof --text: the instruction mix of the top procedures' '
	sed -n "/^Instruction mix of the top procedures/,/^$/p" two.txt >mix &&
	cat >expect <<-\EOT &&
	Instruction mix of the top procedures (% of exclusive cycles):
	      exclusive     fp%    mem%    int% branch%  procedure [file:line] in module
	            100  40.00%   0.00%  60.00%   0.00%  kern [two.c:10] in two

	EOT
	test_cmp expect mix &&
	awk "length > 120" two.txt >long &&
	! test -s long
'

test_expect_success 'without a mix in any structure file, no mix metrics' '
	sed "s|/><?insn-mix[^>]*>|/>|" prog.hpcstruct >plain.hpcstruct &&
	! grep -q insn-mix plain.hpcstruct &&
	hpcprof -S plain.hpcstruct -o db3 meas 2>err &&
	DB=db3 &&
	test "$(X "count(//Metric)")" = 4
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
