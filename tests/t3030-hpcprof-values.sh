#!/bin/sh
test_description='hpcprof computes exact inclusive, exclusive, per-thread and derived values'
. "$(dirname "$0")/test-lib.sh"

# Column ids (hpcprof-database(5)): cycles Sum/Mean/Min/Max/StdDev/CoefVar
# (I) = 0 2 4 6 8 10, (E) = 1 3 5 7 9 11; instr starts at 12; derived after.
X() { xmllint --xpath "$1" db/experiment.xml; }
# All M values of the node(s) an XPath selects, as "n=v" words.
M() { X "$1/M" | tr -d "\n" | sed 's/<M n="\([0-9]*\)" v="\([^"]*\)"\/>/\1=\2\n/g'; }
PF() { echo "//PF[@n=//Procedure[@n=\"$1\"]/@i]"; }
# cells DB SCOPE METRICS: the values of the comma-separated columns METRICS
# at the first top-down row named SCOPE, as the viewer shows them (derived
# metrics are computed by readers, hpcprof-database(5)).
cells() {
	hpcviewer-tui --csv --metrics "$3" "$1" | awk -F, -v s="$2" '
		$3 == s { for (i = 6; i <= NF; i += 2) printf "%s%s", $i, i + 2 <= NF ? "," : "\n"; exit }'
}

test_expect_success 'build the profile generator and two synthetic profiles' '
	build_mkprofile &&
	structure_file /nonexistent/prog /src/prog.c >prog.hpcstruct <<-\EOT &&
	<P i="3" n="main" l="10" v="{[0x1000-0x1001)}">
	<S i="4" l="11" v="{[0x1000-0x1010)}"/>
	<S i="5" l="12" v="{[0x1010-0x1020)}"/>
	</P>
	<P i="6" n="work" l="20" v="{[0x2000-0x2001)}">
	<S i="7" l="21" v="{[0x2000-0x2010)}"/>
	<L i="8" l="22" f="/src/prog.c" v="{[0x2010-0x2011)}">
	<S i="9" l="23" v="{[0x2010-0x2020)}"/>
	<L i="10" l="24" f="/src/prog.c" v="{[0x2020-0x2021)}">
	<S i="11" l="25" v="{[0x2020-0x2030)}"/>
	</L>
	</L>
	<A i="12" l="26" f="/src/prog.c" n="" v="{}">
	<A i="13" l="5" f="/src/helper.h" n="helper" v="{}">
	<S i="14" l="6" v="{[0x2030-0x2040)}"/>
	</A>
	</A>
	</P>
	<P i="15" n="rec" l="30" v="{[0x3000-0x3001)}">
	<S i="16" l="31" v="{[0x3000-0x3010)}"/>
	<S i="17" l="32" v="{[0x3010-0x3020)}"/>
	</P>
	EOT
	cat >t0.spec <<-\EOT &&
	header program-name prog
	lm 1 /nonexistent/prog
	metric cycles int
	metric instr real
	thread 0
	# main calls work (line 12) and rec (line 11); rec recurses twice
	node 2 0 0 ^Primary
	node 4 2 1 1015
	node 6 4 1 2005
	node 8 4 1 2015
	node 10 4 1 2025
	node 12 4 1 2035
	node 16 2 1 100a
	node 18 16 1 3008
	node 20 18 1 3008
	node 22 20 1 3015
	node 24 18 1 3015
	value 6 0 10
	value 6 1 4
	value 8 0 20
	value 10 0 30
	value 10 1 8
	value 12 0 40
	value 22 0 5
	value 24 0 7
	EOT
	cat >t1.spec <<-\EOT &&
	header program-name prog
	lm 1 /nonexistent/prog
	metric cycles int
	metric instr real
	thread 1
	node 2 0 0 ^Primary
	node 4 2 1 1015
	node 6 4 1 2005
	value 6 0 2
	value 6 1 1
	EOT
	mkdir meas &&
	./mkprofile meas/prog-0.hpcrun <t0.spec &&
	./mkprofile meas/prog-1.hpcrun <t1.spec &&
	hpcprof --stats -S prog.hpcstruct -o db --metric "CPI=cycles/instr" \
		--metric "dz=cycles/(instr-instr)" meas 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" db/experiment.xml
'

# Without --stats the database leaves the statistics out (its readers
# compute them from thread-values.tsv): the same file less those columns
# and their values, every other column under the same id.
test_expect_success 'without --stats: the statistics columns left out, nothing else changes' '
	hpcprof -S prog.hpcstruct -o dbs --metric "CPI=cycles/instr" \
		--metric "dz=cycles/(instr-instr)" meas 2>err &&
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" dbs/experiment.xml &&
	xmllint --xpath "//Metric/@i" dbs/experiment.xml | tr -d " i=\"" >ids &&
	printf "%s\n" 0 1 12 13 24 25 26 27 >expect && test_cmp expect ids &&
	! grep -q ":Mean\|:Min\|:Max\|:StdDev\|:CoefVar" dbs/experiment.xml &&
	grep -v "<Metric \|<M n=\"\([2-9]\|1[01]\|1[4-9]\|2[0-3]\)\" \|MetricFormula\|</Metric>" \
		db/experiment.xml >want &&
	grep -v "<Metric \|MetricFormula\|</Metric>" dbs/experiment.xml >got &&
	test_cmp want got &&
	test_cmp db/thread-values.tsv dbs/thread-values.tsv
'

test_expect_success 'experiment totals: 112 + 2 cycles, 12 + 1 instr' '
	echo "0=114 1=114 2=57 3=57 4=2 5=2 6=112 7=112 8=55 9=55 10=0.9649122807017544 11=0.9649122807017544 12=13 13=13 14=6.5 15=6.5 16=1 17=1 18=12 19=12 20=5.5 21=5.5 22=0.8461538461538461 23=0.8461538461538461" | tr " " "\n" >expect &&
	M "//SecCallPathProfileData" >actual &&
	test_cmp expect actual &&
	test "$(cells db "Experiment Aggregate Metrics" "CPI (I),CPI (E),dz (I)")" = 8.769230769,8.769230769,0
'

test_expect_success 'work: inclusive = exclusive = 102 (loops and inlined code are its own)' '
	M "$(PF work)" | tr " " "\n" | grep -E "^(0|1|2|4|6|8|10)=" >actual &&
	printf "0=102\n1=102\n2=51\n4=2\n6=100\n8=49\n10=0.9607843137254902\n" >expect &&
	test_cmp expect actual &&
	test "$(cells db work "CPI (I)")" = 7.846153846
'

test_expect_success 'main: inclusive 114, no exclusive value' '
	M "$(PF main)" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	echo 0=114 >expect &&
	test_cmp expect actual
'

test_expect_success 'loops nest in their calling context with exact values' '
	test "$(X "count($(PF work)/L[@l=22]/L[@l=24]/S[@l=25])")" = 1 &&
	M "$(PF work)/L[@l=22]" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	printf "0=50\n1=50\n" >expect &&
	test_cmp expect actual &&
	M "$(PF work)/L[@l=22]/L[@l=24]" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	printf "0=30\n1=30\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'inlined helper is a Pr a="1" scope holding its line' '
	test "$(X "string($(PF work)/Pr[@a=1]/@n)")" = "$(X "string(//Procedure[@n=\"helper\"]/@i)")" &&
	test "$(X "string($(PF work)/Pr/@f)")" = "$(X "string(//File[@n=\"/src/helper.h\"]/@i)")" &&
	M "$(PF work)/Pr/S[@l=6]" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	printf "0=40\n1=40\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'per-thread statistics of one line: 10 and 2' '
	M "$(PF work)/S[@l=21]" | tr " " "\n" | grep -E "^([0-9]|1[01])=" >actual &&
	printf "0=12\n1=12\n2=6\n3=6\n4=2\n5=2\n6=10\n7=10\n8=4\n9=4\n10=0.6666666666666666\n11=0.6666666666666666\n" >expect &&
	test_cmp expect actual &&
	id=$(X "string($(PF work)/S[@l=21]/@i)") &&
	awk -F"\t" -v id=$id "\$1 == id && \$3 == 0 { print \$2, \$4 }" db/thread-values.tsv >actual &&
	printf "0 10\n1 2\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'recursion: each frame in context, flat procedure counted once' '
	test "$(X "count($(PF rec))")" = 3 &&
	M "($(PF rec))[1]" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	echo 0=12 >expect && test_cmp expect actual &&
	M "($(PF rec))[2]" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	printf "0=12\n1=7\n" >expect && test_cmp expect actual &&
	M "($(PF rec))[3]" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	printf "0=5\n1=5\n" >expect && test_cmp expect actual &&
	M "//SecFlatProfileData//P[@n=\"rec\"]" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	printf "0=12\n1=12\n" >expect && test_cmp expect actual &&
	M "//SecFlatProfileData/LM" | tr " " "\n" | grep -E "^(0|1)=" >actual &&
	printf "0=114\n1=114\n" >expect && test_cmp expect actual
'

test_expect_success 'call sites carry line and return address - 1; s= links to flat' '
	test "$(X "string($(PF main)/C[@l=12]/@v)")" = 0x1014 &&
	s=$(X "string($(PF work)/@s)") &&
	test "$(X "string(//SecFlatProfileData//P[@i=$s]/@n)")" = work
'

test_expect_success 'division by zero gives no value; formula recorded' '
	test "$(X "count(//M[@n=26])")" = 0 &&
	test "$(X "count(//M[@n=27])")" = 0 &&
	test "$(X "string(//Metric[@i=24]/MetricFormula/@frm)")" = "(\$0 / \$12)" &&
	test "$(X "string(//Metric[@i=25]/MetricFormula/@frm)")" = "(\$1 / \$13)" &&
	test "$(X "string(//Metric[@i=24]/@n)")" = "CPI (I)"
'

test_expect_success 'formulas: precedence, functions, braces, $N, earlier derived names' '
	hpcprof -S prog.hpcstruct -o db2 --metric "a=1+2*3^2-{cycles}/cycles" \
		--metric "b=max(\$0, instr*100)" --metric "c=a*2" \
		--metric "d=mean(cycles, instr) + sdev(cycles, instr) - min(cycles, 1)" meas 2>err &&
	test -z "$(xmllint --xpath "//M[@n>=24]" db2/experiment.xml 2>/dev/null)" &&
	test "$(cells db2 "Experiment Aggregate Metrics" "a (I),a (E),b (I),b (E),c (I),c (E),d (I),d (E)")" = \
		18,18,1300,1300,36,36,113,113
'

test_expect_success 'unknown metric names are an error naming them all' '
	test_must_fail hpcprof -o db3 --metric "x=cycles/nosuch+other" meas 2>err &&
	grep -x "hpcprof: --metric '"'"'x'"'"': formula '"'"'cycles/nosuch+other'"'"': unknown metric '"'"'nosuch'"'"', '"'"'other'"'"'" err &&
	! test -d db3
'

test_expect_success 'formula syntax errors say where' '
	test_must_fail hpcprof -o db3 --metric "x=cycles/(instr" meas 2>err &&
	grep "expected .). at offset 13" err &&
	test_must_fail hpcprof -o db3 --metric "nothing" meas 2>err &&
	grep "expected NAME=FORMULA" err
'

test_done
