#!/bin/sh
test_description='hpcprof metric configuration (-M), runs combined, sources copied, bad configs'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" "$DB/experiment.xml"; }
PF() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }
# cell DB PROC NAME: column NAME at the first top-down row of procedure
# PROC, as the viewer shows it (derived metrics are computed by readers,
# hpcprof-database(5)).
cell() {
	hpcviewer-tui --csv --metrics "$3" "$1" |
		awk -F, -v p="$2" '$2 == "procedure" && $3 == p { print $6; exit }'
}

test_expect_success 'two runs of one program: cycles in one, instructions in the other' '
	build_mkprofile &&
	structure_file /nonexistent/prog /src/prog.c >prog.hpcstruct <<-\EOT &&
	<P i="3" n="main" l="2" v="{[0x1000-0x1001)}">
	<S i="4" l="3" v="{[0x1000-0x1010)}"/>
	</P>
	<P i="6" n="work" l="5" v="{[0x2000-0x2001)}">
	<L i="8" l="6" f="/src/prog.c" v="{[0x2010-0x2011)}">
	<S i="9" l="7" v="{[0x2000-0x2020)}"/>
	</L>
	</P>
	EOT
	for run in a b; do
		mkdir run-$run run-$run/structs &&
		cp prog.hpcstruct run-$run/structs/ || return 1
	done &&
	printf "header program-name prog\nlm 1 /nonexistent/prog\nmetric cycles int\nnode 2 0 1 1005\nnode 4 2 1 2005\nvalue 4 0 300\nvalue 2 0 100\n" |
		./mkprofile run-a/prog-0.hpcrun &&
	printf "header program-name prog\nlm 1 /nonexistent/prog\nmetric instr int\nnode 2 0 1 1005\nnode 4 2 1 2005\nvalue 4 0 600\nvalue 2 0 50\n" |
		./mkprofile run-b/prog-0.hpcrun
'

test_expect_success 'config: FILE metrics from two runs, COMPUTE in MathML, TITLE' '
	cat >m.xml <<-\EOT &&
	<?xml version="1.0"?>
	<HPCPROF>
	  <TITLE name="cpi study"/>
	  <METRIC name="cyc" displayName="Cycles"><FILE name="run-a" select="cycles"/></METRIC>
	  <METRIC name="ins" displayName="Instructions"><FILE name="run-b" select="0"/></METRIC>
	  <METRIC name="cpi" displayName="CPI" percent="false">
	    <COMPUTE><math><apply><divide/><ci>cyc</ci><ci>ins</ci></apply></math></COMPUTE>
	  </METRIC>
	  <METRIC name="x" displayName="X">
	    <COMPUTE><math><apply><minus/><apply><times/><cn>2</cn><ci>cpi</ci></apply>
	      <apply><power/><cn>2</cn><cn>3</cn></apply></apply></math></COMPUTE>
	  </METRIC>
	  <METRIC name="neg" displayName="N">
	    <COMPUTE><math><apply><minus/><apply><max/><ci>cyc</ci><ci>ins</ci><cn>1</cn></apply></apply></math></COMPUTE>
	  </METRIC>
	</HPCPROF>
	EOT
	hpcprof --stats -M m.xml -o db 2>err &&
	DB=db && test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml &&
	test "$(X "string(/HPCToolkitExperiment/Header/@n)")" = "cpi study" &&
	test "$(X "string(//Metric[@i=0]/@n)")" = "Cycles (I)" &&
	test "$(X "string(//Metric[@i=1]/@n)")" = "Cycles (E)" &&
	test "$(X "string(//Metric[@i=2]/@n)")" = "Cycles:Mean (I)" &&
	test "$(X "string(//Metric[@i=12]/@n)")" = "Instructions (I)" &&
	test "$(X "string(//Metric[@i=24]/@n)")" = "CPI (I)" &&
	test "$(X "string(//Metric[@i=27]/@n)")" = "X (E)" &&
	test "$(X "string(//Metric[@i=24]/@show-percent)")" = 0 &&
	test "$(X "string($(PF work)/M[@n=0]/@v)")" = 300 &&
	test "$(X "string($(PF work)/M[@n=12]/@v)")" = 600 &&
	test "$(cell db work "CPI (I)")" = 0.5 &&
	test "$(cell db main "CPI (I)")" = 0.6153846154 &&
	test "$(cell db main "CPI (E)")" = 2 &&
	test "$(cell db work "X (I)")" = -7 &&
	test "$(cell db work "N (I)")" = -600 &&
	cmp m.xml db/metric-config.xml
'

test_expect_success 'the older root HPCVIEW is accepted' '
	sed "s/HPCPROF>/HPCVIEW>/" m.xml >v.xml &&
	hpcprof -M v.xml -o dbv 2>err &&
	test "$(cell dbv work "CPI (I)")" = 0.5
'

test_expect_success 'malformed config: file, line and what was expected' '
	printf "<HPCPROF>\n<TITLE name=\"t\"/>\n<METRIC name=\"a\" displayName=\"a\">\n<FILE/>\n</METRIC>\n</HPCPROF>\n" >bad1.xml &&
	test_must_fail hpcprof -M bad1.xml -o dbx run-a 2>err &&
	grep -x "hpcprof: '"'"'bad1.xml'"'"': line 4: <FILE> needs the attribute name=" err &&
	printf "<HPCPROF>\n<METRIC name=\"a\" displayName=\"a\"><COMPUTE><math>\n<apply><log/><ci>cycles</ci></apply>\n</math></COMPUTE></METRIC></HPCPROF>\n" >bad2.xml &&
	test_must_fail hpcprof -M bad2.xml -o dbx run-a 2>err &&
	grep "^hpcprof: '"'"'bad2.xml'"'"': line 3: unknown MathML operator <log> (expected plus" err &&
	printf "<HPCPROF>\n<METRIC name=\"a\">\n</HPCPROF>\n" >bad3.xml &&
	test_must_fail hpcprof -M bad3.xml -o dbx run-a 2>err &&
	grep -x "hpcprof: '"'"'bad3.xml'"'"': line 3: Opening and ending tag mismatch: METRIC line 2 and HPCPROF" err &&
	printf "<NOTCONFIG/>\n" >bad4.xml &&
	test_must_fail hpcprof -M bad4.xml -o dbx run-a 2>err &&
	grep -x "hpcprof: '"'"'bad4.xml'"'"': line 1: root element must be <HPCPROF> (or <HPCVIEW>)" err &&
	! test -d dbx
'

test_expect_success 'unknown metric names in COMPUTE are named' '
	printf "<HPCPROF><METRIC name=\"r\" displayName=\"r\"><COMPUTE><math><apply><plus/><ci>cycles</ci><ci>bogus</ci></apply></math></COMPUTE></METRIC></HPCPROF>\n" >unk.xml &&
	test_must_fail hpcprof -M unk.xml -o dbx run-a 2>err &&
	grep -x "hpcprof: unk.xml: metric '"'"'r'"'"': formula '"'"'({cycles} + {bogus})'"'"': unknown metric '"'"'bogus'"'"'" err
'

test_expect_success 'external entities in a config are refused, never read' '
	echo SECRET >secret.txt &&
	cat >xxe.xml <<-EOT &&
	<?xml version="1.0"?>
	<!DOCTYPE HPCPROF [ <!ENTITY x SYSTEM "file://$PWD/secret.txt"> ]>
	<HPCPROF><TITLE name="&x;"/></HPCPROF>
	EOT
	test_must_fail hpcprof -M xxe.xml -o dbx run-a >out 2>err &&
	! grep SECRET out err &&
	! test -d dbx
'

test_expect_success 'sources are copied via -R and -I; nothing outside them' '
	mkdir -p tree/src inc &&
	printf "int main(void)\n{\n\treturn work();\n}\n" >tree/src/prog.c &&
	hpcprof -R /src=$PWD/tree/src -o dbs run-a 2>err &&
	cmp tree/src/prog.c dbs/src/src/prog.c &&
	DB=dbs && test "$(X "string(//File[@n=\"/src/prog.c\"]/@i)")" = 0 &&
	test "$(X "string(//File[@i=0]/Info/NV[@n=\"copy\"]/@v)")" = ./src/src/prog.c &&
	hpcprof -I inc -o dbi run-a 2>err &&
	! test -e dbi/src &&
	cp tree/src/prog.c inc/ &&
	hpcprof -I inc -o dbi2 run-a 2>err &&
	cmp tree/src/prog.c dbi2/src/src/prog.c &&
	mkdir -p inc3 && ln -s /etc/hostname inc3/prog.c &&
	hpcprof -I inc3 -o dbi3 run-a 2>err &&
	! test -e dbi3/src/src/prog.c
'

test_done
