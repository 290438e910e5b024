#!/bin/sh
test_description='hpcprof names what users see: display names, procedure and file names, stripped code, ranks, counts'
. "$(dirname "$0")/test-lib.sh"

X() { xmllint --xpath "$1" "$DB/experiment.xml"; }

# A stripped shared library described HPCToolkit's way: procedures named
# "NAME [LIB]" with ln="NAME", files "[LIB]", no lines.  One procedure has
# a two-deep loop nest; one is named the plain way.
test_expect_success 'synthetic profiles of a stripped library' '
	build_mkprofile &&
	mkdir -p m/structs &&
	structure_file /nonexistent/libz.so.1.3 "[libz.so.1.3]" >m/structs/libz.hpcstruct <<-\EOT &&
	<P i="3" n="deflate_slow [libz.so.1.3]" ln="deflate_slow" l="0" v="{[0x1000-0x1001)}">
	<S i="4" l="0" v="{[0x1000-0x1010)}"/>
	<L i="5" l="0" f="[libz.so.1.3]" v="{[0x1010-0x1011)}">
	<S i="6" l="0" v="{[0x1010-0x1020)}"/>
	<L i="7" l="0" f="[libz.so.1.3]" v="{[0x1020-0x1021)}">
	<S i="8" l="0" v="{[0x1020-0x1030)}"/>
	</L>
	</L>
	</P>
	<P i="9" n="crc32" l="0" v="{[0x2000-0x2001)}">
	<S i="10" l="0" v="{[0x2000-0x2010)}"/>
	</P>
	EOT
	cat >spec <<-\EOT &&
	header program-name zip
	header mpi-rank 3
	lm 1 /nonexistent/libz.so.1.3
	metric cycles int
	thread 2
	node 2 0 1 2005
	node 4 0 1 1015
	node 6 0 1 1025
	value 2 0 100
	value 4 0 300
	value 6 0 600
	EOT
	./mkprofile m/zip-000000-002-00001234-77-0.hpcrun <spec
'

test_expect_success 'loops and lines without source lines are placed by their addresses' '
	hpcprof -o db --text report m 2>err &&
	grep -x "hpcprof: wrote '"'"'db'"'"' (1 process, 1 thread, [0-9]* scopes)" err &&
	head -n 1 report >first &&
	echo "hpcprof report: zip, 1 process, 1 thread" >expect &&
	test_cmp expect first &&
	sed -n "/^Top loops/,/^\$/p" report >loops &&
	cat >expect <<-\EOT &&
	Top loops by inclusive cycles:
	  excl%      exclusive   incl%      inclusive  location [procedure] in module
	 90.00%            900  90.00%            900  loop at libz.so.1.3+0x1010 [deflate_slow] in libz.so.1.3
	 60.00%            600  60.00%            600  loop at libz.so.1.3+0x1020 [deflate_slow] in libz.so.1.3

	EOT
	test_cmp expect loops &&
	grep -x " 60.00%            600  60.00%            600  libz.so.1.3+0x1025 \[deflate_slow\] in libz.so.1.3" report
'

test_expect_success 'HPCToolkit'"'"'s "NAME [LIB]" procedures are named once: NAME' '
	DB=db &&
	X "//Procedure/@n" | sort >names &&
	printf " n=\"crc32\"\n n=\"deflate_slow\"\n" >expect &&
	test_cmp expect names &&
	grep -x " 10.00% *100  10.00% *100  crc32 \[libz.so.1.3+0x2000\] in libz.so.1.3" report &&
	grep -x " 90.00% *900  90.00% *900  deflate_slow \[libz.so.1.3+0x1000\] in libz.so.1.3" report
'

test_expect_success FIXTURES 'the fixtures'"'"' libgomp and libc procedures keep their bare names' '
	hpcprof -o dbf "$FIXTURES/loops-cputime-t.m" 2>err &&
	DB=dbf &&
	gomp=$(X "string(//LoadModule[@n=\"/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0\"]/@i)") &&
	test "$(X "string(//PF[@n=//Procedure[@n=\"GOMP_parallel\"]/@i]/@lm)")" = "$gomp" &&
	! grep "<Procedure [^>]* n=\"[^\"]* \[lib[^\"]*\]\"" dbf/experiment.xml
'

test_expect_success 'rank and thread id from the header, the tuple or the file name' '
	cut -f 4- db/threads.tsv >ids &&
	printf "program\tprocess\trank\tthread-id\nzip\t77\t3\t2\n" >expect &&
	test_cmp expect ids &&
	mkdir r &&
	grep -v "mpi-rank\|thread 2" spec | ./mkprofile r/ring-000005-001-00001234-88-0.hpcrun &&
	hpcprof -o dbr r 2>err &&
	tail -n 1 dbr/threads.tsv | cut -f 4- >ids &&
	printf "zip\t88\t5\t0\n" >expect &&
	test_cmp expect ids
'

test_expect_success 'the experiment is named for the program hpcrun launched, whatever -o says' '
	hpcrun -q -o launched sh -c "cat </dev/null; :" &&
	ls launched/*.hpcrun | head -n 1 >first &&
	grep "/cat-" first &&
	hpcprof --text report launched 2>err &&
	head -n 1 report >title &&
	echo "hpcprof report: sh, 2 programs, 2 processes, 2 threads" >expect &&
	test_cmp expect title &&
	xmllint --xpath "string(//SecCallPathProfile/@n)" \
		hpctoolkit-sh-database/experiment.xml >name &&
	echo sh >expect &&
	test_cmp expect name
'

test_expect_success 'a displayName heads the columns of its metric' '
	cat >c.xml <<-\EOT &&
	<HPCPROF>
	  <METRIC name="cpu" displayName="cpu clock"><FILE name="m" select="cycles"/></METRIC>
	</HPCPROF>
	EOT
	hpcprof --stats -M c.xml -o dbc --text reportc 2>err &&
	DB=dbc &&
	test "$(X "string(//Metric[@i=0]/@n)")" = "cpu clock (I)" &&
	test "$(X "string(//Metric[@i=1]/@n)")" = "cpu clock (E)" &&
	test "$(X "string(//Metric[@i=2]/@n)")" = "cpu clock:Mean (I)" &&
	grep -x "Metric cpu clock: total 1000" reportc &&
	hpcviewer-tui --stdio dbc >screen &&
	head -n 1 screen | grep "cpu clock (I)"
'

test_expect_success 'files are named by their own path; the copy is in the database' '
	mkdir -p src &&
	printf "int main(void)\n{\n\treturn 0;\n}\n" >src/app.c &&
	mkdir -p a/structs &&
	structure_file /nonexistent/app "$PWD/src/app.c" >a/structs/app.hpcstruct <<-EOT &&
	<P i="3" n="main" l="1" v="{[0x1000-0x1001)}">
	<S i="4" l="3" v="{[0x1000-0x1010)}"/>
	</P>
	EOT
	printf "header program-name app\nlm 1 /nonexistent/app\nmetric cycles int\nnode 2 0 1 1005\nvalue 2 0 10\n" |
		./mkprofile a/app-000000-000-00001234-9-0.hpcrun &&
	hpcprof -o dba a 2>err &&
	DB=dba &&
	test "$(X "string(//File[@i=0]/@n)")" = "$PWD/src/app.c" &&
	test "$(X "string(//File[@i=0]/Info/NV[@n=\"copy\"]/@v)")" = "./src$PWD/src/app.c" &&
	test "$(X "string(//SecFlatProfileData/LM/F/@n)")" = "$PWD/src/app.c" &&
	test_cmp src/app.c "dba/src$PWD/src/app.c" &&
	hpcviewer-tui --stdio --csv --view flat dba >flat &&
	grep -F ",file,$PWD/src/app.c," flat &&
	! grep "\./src" flat
'

test_expect_success 'modules without a structure file: one summary line' '
	mkdir s &&
	printf "header program-name big\nlm 1 /nonexistent/big\nlm 2 /nonexistent/liba.so\nlm 3 /nonexistent/libb.so\nlm 4 /nonexistent/libc.so\nmetric cycles int\nnode 2 0 1 10\nnode 3 0 2 10\nnode 4 0 3 10\nnode 5 0 4 10\nvalue 2 0 1\nvalue 3 0 1\nvalue 4 0 1\nvalue 5 0 1\n" |
		./mkprofile s/big-000000-000-00001234-9-0.hpcrun &&
	hpcprof -o dbs s 2>err &&
	cat >expect <<-\EOT &&
	hpcprof: warning: 4 modules without a structure file (big, liba.so, libb.so and 1 more): 4 binaries not found (addresses kept); '"'"'hpcstruct MEASUREMENT-DIR'"'"' adds loops
	hpcprof: wrote '"'"'dbs'"'"' (1 process, 1 thread, 26 scopes)
	EOT
	test_cmp expect err
'

test_done
