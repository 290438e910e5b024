#!/bin/sh
test_description='hpcprof on hostile inputs: FIFOs, devices, entities, huge values, cut files, one clear line each'
. "$(dirname "$0")/test-lib.sh"

# Every run is bounded: a regression that blocks on a FIFO fails here
# instead of hanging the suite.
T() { timeout 20 "$@"; }

# expect_fail STATUS 'MESSAGE' CMD...: exactly that status and that one line.
expect_fail() {
	want=$1 msg=$2
	shift 2
	status=0
	T "$@" >out 2>err || status=$?
	test "$status" = "$want" || { echo "status $status, not $want: $*"; cat err; return 1; }
	printf "%s\n" "$msg" >expect-err
	test_cmp expect-err err
}

Q="'"

# Unreadable files need a user that permissions apply to: as root, nobody
# (setpriv), when it can reach this directory.
AS_USER=
test "$(id -u)" != 0 || AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
test_lazy_prereq UNREADABLE '$AS_USER ls "$TRASH" >/dev/null 2>&1'

test_expect_success 'setup: a program, its structure, one profile' '
	build_mkprofile &&
	structure_file /nonexistent/prog /src/prog.c >prog.hpcstruct <<-\EOT &&
	<P i="3" n="main" l="2" v="{[0x1000-0x1001)}">
	<S i="4" l="3" v="{[0x1000-0x1010)}"/>
	</P>
	<P i="6" n="work" l="5" v="{[0x2000-0x2001)}">
	<S i="9" l="7" v="{[0x2000-0x2020)}"/>
	</P>
	EOT
	mkdir run run/structs &&
	printf "header program-name prog\nlm 1 /nonexistent/prog\nmetric cycles int\nnode 2 0 1 1005\nnode 4 2 1 2005\nvalue 4 0 300\n" |
		./mkprofile run/prog-0.hpcrun
'

test_expect_success '--dump refuses a FIFO and /dev/zero at once, and names an empty file' '
	mkfifo fifo.hpcrun &&
	expect_fail 1 "hpcprof: ${Q}fifo.hpcrun${Q}: not a regular file (a FIFO), not a profile or structure file" \
		hpcprof --dump fifo.hpcrun &&
	expect_fail 1 "hpcprof: ${Q}/dev/zero${Q}: not a regular file (a character device), not a profile or structure file" \
		hpcprof --dump /dev/zero &&
	: >empty.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}empty.hpcstruct${Q}: empty file, not a profile or structure file" \
		hpcprof --dump empty.hpcstruct
'

test_expect_success '--dump of a structure file that fails after a load module exits 1 (nothing leaked)' '
	printf "<HPCToolkitStructure i=\"0\" version=\"4.9\">\n<LM i=\"1\" n=\"x\" has-calls=\"0\">\n<P i=\"2\" n=\"f\" v=\"{[0x10-zz)}\"/>\n</LM></HPCToolkitStructure>\n" >badv.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}badv.hpcstruct${Q}: line 3: bad address ranges v=\"{[0x10-zz)}\"" \
		env ASAN_OPTIONS=detect_leaks=1 hpcprof --dump badv.hpcstruct
'

test_expect_success '-S and -M: a FIFO, a directory, an empty file' '
	mkfifo fifo.xml &&
	expect_fail 1 "hpcprof: ${Q}fifo.xml${Q}: not a regular file (a FIFO), not a metric configuration" \
		hpcprof -M fifo.xml -o db run &&
	expect_fail 1 "hpcprof: ${Q}.${Q}: is a directory, not a metric configuration" \
		hpcprof -M . -o db run &&
	: >empty.xml &&
	expect_fail 1 "hpcprof: ${Q}empty.xml${Q}: empty file, not a metric configuration" \
		hpcprof -M empty.xml -o db run &&
	status=0 && T hpcprof -S fifo.xml -S . -S empty.xml -o db run 2>err || status=$? &&
	test $status = 1 &&
	grep -x "hpcprof: warning: ${Q}fifo.xml${Q}: not a regular file (a FIFO), not a structure file; structure file ignored" err &&
	grep -x "hpcprof: warning: ${Q}.${Q}: is a directory, not a structure file; structure file ignored" err &&
	grep -x "hpcprof: warning: ${Q}empty.xml${Q}: empty file, not a structure file; structure file ignored" err &&
	! test -d db.tmp
'

test_expect_success 'a FIFO named *.hpcrun in a measurement directory is skipped, not waited on' '
	mkdir fifodir &&
	cp run/prog-0.hpcrun fifodir/ &&
	mkfifo fifodir/prog-1.hpcrun &&
	status=0 && T hpcprof -o dbf fifodir 2>err || status=$? &&
	test $status = 1 &&
	grep -x "hpcprof: warning: ${Q}fifodir/prog-1.hpcrun${Q}: not a regular file (a FIFO), not a profile; skipping it" err &&
	test -f dbf/experiment.xml
'

test_expect_success 'a load-map path that is a FIFO keeps its addresses' '
	mkdir lmfifo && mkfifo lmfifo/prog &&
	printf "header program-name prog\nlm 1 $PWD/lmfifo/prog\nmetric cycles int\nnode 2 0 1 1005\nvalue 2 0 7\n" |
		./mkprofile lmfifo/prog-0.hpcrun &&
	T hpcprof -o dbl lmfifo/prog-0.hpcrun 2>err &&
	grep -x "hpcprof: warning: ${Q}$PWD/lmfifo/prog${Q}: not a regular file (a FIFO), not a binary or kernel symbol list; keeping addresses" err
'

test_expect_success FIXTURES 'a kernel_symbols/ FIFO keeps its addresses' '
	cp -R "$FIXTURES/loops-perf.m" kfifo &&
	rm kfifo/kernel_symbols/vmlinux.11ac0300 &&
	mkfifo kfifo/kernel_symbols/vmlinux.11ac0300 &&
	T hpcprof -o dbk kfifo 2>err &&
	grep -x "hpcprof: warning: ${Q}kfifo/kernel_symbols/vmlinux.11ac0300${Q}: not a regular file (a FIFO), not a binary or kernel symbol list; keeping addresses" err
'

# 2,000 references to a 50 KB entity: 100 MB when expanded (a 300 MB
# experiment.xml, as the title is written three times).
laughs_config() {
	{
		echo "<?xml version=\"1.0\"?>" &&
		printf "<!DOCTYPE HPCPROF [ <!ENTITY big \"%s\"> ]>\n" "$(head -c 50000 /dev/zero | tr "\\0" x)" &&
		printf "<HPCPROF><TITLE name=\"" &&
		i=0 && while test $i -lt 2000; do printf "&big;"; i=$((i + 1)); done &&
		echo "\"/></HPCPROF>"
	} >laughs.xml
}

test_expect_success 'entities: a config that would expand 53 KB to 100 MB is refused' '
	laughs_config &&
	test $(wc -c <laughs.xml) -lt 70000 &&
	expect_fail 1 "hpcprof: ${Q}laughs.xml${Q}: declares the entity ${Q}big${Q} (entities are refused)" \
		hpcprof -M laughs.xml -o dbe run &&
	! test -e dbe
'

test_expect_success 'entities: billion laughs in a structure file, one small entity in a config' '
	cat >laughs.hpcstruct <<-\EOT &&
	<?xml version="1.0"?>
	<!DOCTYPE HPCToolkitStructure [
	<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
	<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
	<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
	<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
	<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
	<!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
	]>
	<HPCToolkitStructure i="0" version="4.9">
	<LM i="1" n="&f;&f;&f;" has-calls="0"/></HPCToolkitStructure>
	EOT
	expect_fail 1 "hpcprof: ${Q}laughs.hpcstruct${Q}: entity expansion beyond libxml2${Q}s limits (entities are refused)" \
		hpcprof --dump laughs.hpcstruct &&
	printf "<!DOCTYPE HPCPROF [ <!ENTITY t \"title\"> ]>\n<HPCPROF><TITLE name=\"&t;\"/></HPCPROF>\n" >small.xml &&
	expect_fail 1 "hpcprof: ${Q}small.xml${Q}: declares the entity ${Q}t${Q} (entities are refused)" \
		hpcprof -M small.xml -o dbe run
'

# 262,145 bytes of '>' in one attribute: libxml2 scans such a tag from its
# start again for each 512 bytes that bring a '>' (9 MB took minutes), and
# past its own 10 MB limit said "internal error: Huge input lookup" without
# the file.
long_value() { head -c 262145 /dev/zero | tr "\\0" ">"; }

test_expect_success 'a raw ">" in an attribute or DTD of hundreds of KB: one line, exit 1, at once' '
	{
		printf "<HPCToolkitStructure i=\"0\" version=\"4.9\">\n<LM i=\"1\" n=\"" &&
		long_value &&
		printf "\" has-calls=\"0\"/>\n</HPCToolkitStructure>\n"
	} >huge.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}huge.hpcstruct${Q}: line 2: a tag of more than 262144 bytes with a ${Q}>${Q} inside" \
		hpcprof --dump huge.hpcstruct &&
	{
		printf "<HPCPROF>\n<TITLE name=\"" && long_value && printf "\"/>\n</HPCPROF>\n"
	} >huge.xml &&
	expect_fail 1 "hpcprof: ${Q}huge.xml${Q}: line 2: a tag of more than 262144 bytes with a ${Q}>${Q} inside" \
		hpcprof -M huge.xml -o dbh run &&
	{
		printf "<!DOCTYPE HPCPROF [ <!ENTITY big \"" && long_value && printf "\"> ]>\n<HPCPROF/>\n"
	} >hugedtd.xml &&
	expect_fail 1 "hpcprof: ${Q}hugedtd.xml${Q}: more than 262144 bytes before the root element (the DTD is too large)" \
		hpcprof -M hugedtd.xml -o dbh run &&
	! test -e dbh
'

# hpcstruct writes a C++ name as it demangles, '>' as "&gt;": the names in
# libnvJitLink.so and libnvrtc.so run past 256 KiB.
big_name() {
	i=0
	while test $i -lt 1536; do
		printf "%s" "std::vector&lt;std::pair&lt;llvm::Value*, std::map&lt;int, long&gt; &gt;, Alloc&gt; " &&
		printf "%s" "ns::T&lt;0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19&gt;::f() " &&
		printf "%s" "ns::U&lt;A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P, Q, R, S, T, U, V, W, X&gt;::g() " &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" &&
		printf "%s" "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" || return 1
		i=$((i + 1))
	done
}

test_expect_success 'a procedure name of more than a MiB, as hpcstruct writes it, is read and used' '
	big_name >name.txt &&
	test $(wc -c <name.txt) -gt 1048576 &&
	{
		sed "/n=\"work\"/,\$d" prog.hpcstruct &&
		printf "<P i=\"6\" n=\"" && cat name.txt &&
		printf "\" l=\"5\" v=\"{[0x2000-0x2001)}\">\n" &&
		sed "1,/n=\"work\"/d" prog.hpcstruct
	} >big.hpcstruct &&
	T hpcprof -S big.hpcstruct -o dbbig run 2>err &&
	! grep -v "^hpcprof: wrote" err &&
	sed "s/&lt;/</g; s/&gt;/>/g" name.txt >want.txt &&
	T hpcprof --dump big.hpcstruct >dump &&
	grep -c -F -f want.txt dump >count &&
	echo 1 >expect && test_cmp expect count &&
	{ printf "n=\"" && cat name.txt && printf "\""; } >attr.txt &&
	grep -F -f attr.txt dbbig/experiment.xml | sed "s/ n=.*//; s/^ *//" >lines &&
	printf "%s\n" "<Procedure i=\"1\"" "<P i=\"9\"" >expect &&
	test_cmp expect lines
'

test_expect_success 'a tag of 1,025 attributes, a comment of 300 KB with ">" inside: one line each' '
	{
		printf "<HPCToolkitStructure i=\"0\" version=\"4.9\">\n<LM i=\"1\"" &&
		seq -f " a%g=\"x\"" 1 1025 | tr -d "\\n" &&
		printf "/>\n</HPCToolkitStructure>\n"
	} >attrs.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}attrs.hpcstruct${Q}: line 2: a tag with more than 1024 attributes" \
		hpcprof --dump attrs.hpcstruct &&
	{
		printf "<HPCToolkitStructure i=\"0\" version=\"4.9\">\n<!--" &&
		long_value && printf "%s" "-->" && long_value &&
		printf "\n</HPCToolkitStructure>\n"
	} >comment.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}comment.hpcstruct${Q}: line 2: a comment of more than 262144 bytes with a ${Q}>${Q} inside" \
		hpcprof --dump comment.hpcstruct
'

test_expect_success 'bytes that are not UTF-8 in a structure file or config: one line' '
	printf "<HPCToolkitStructure i=\"0\" version=\"4.9\">\n<LM i=\"1\" n=\"/x\377\376\" has-calls=\"0\"/>\n</HPCToolkitStructure>\n" >latin.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}latin.hpcstruct${Q}: line 2: not UTF-8 (bytes 0xFF 0xFE 0x22 0x20)" \
		hpcprof --dump latin.hpcstruct &&
	printf "<HPCPROF>\n<TITLE name=\"a\377\"/>\n</HPCPROF>\n" >latin.xml &&
	expect_fail 1 "hpcprof: ${Q}latin.xml${Q}: line 2: not UTF-8 (bytes 0xFF 0x22 0x2F 0x3E)" \
		hpcprof -M latin.xml -o dbu run &&
	! test -e dbu
'

test_expect_success 'a structure file or config cut short says so' '
	for n in 20 100 200 300; do
		head -c $n prog.hpcstruct >cut.hpcstruct &&
		expect_fail 1 "hpcprof: ${Q}cut.hpcstruct${Q}: the file ends early (truncated?)" \
			hpcprof --dump cut.hpcstruct || return 1
	done &&
	head -n 11 prog.hpcstruct >cut.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}cut.hpcstruct${Q}: the file ends early (truncated?)" \
		hpcprof --dump cut.hpcstruct &&
	printf "<HPCPROF>\n<TITLE name=\"t\"/>\n" >cut.xml &&
	expect_fail 1 "hpcprof: ${Q}cut.xml${Q}: the file ends early (truncated?)" \
		hpcprof -M cut.xml -o dbc run &&
	printf "<HPCPROF/>\n<HPCPROF/>\n" >two.xml &&
	expect_fail 1 "hpcprof: ${Q}two.xml${Q}: line 2: Extra content at the end of the document" \
		hpcprof -M two.xml -o dbc run
'

test_expect_success UNREADABLE 'unreadable files and directories: the reason, once' '
	cp prog.hpcstruct locked.hpcstruct && chmod 000 locked.hpcstruct &&
	expect_fail 1 "hpcprof: ${Q}locked.hpcstruct${Q}: Permission denied" \
		$AS_USER hpcprof --dump locked.hpcstruct &&
	printf "<HPCPROF/>\n" >locked.xml && chmod 000 locked.xml &&
	expect_fail 1 "hpcprof: ${Q}locked.xml${Q}: Permission denied" \
		$AS_USER hpcprof -M locked.xml -o dbu run &&
	cp -R run lockeddir && chmod 000 lockeddir &&
	status=0 && $AS_USER hpcprof -o dbu lockeddir 2>err || status=$? &&
	chmod 755 lockeddir &&
	test $status = 1 &&
	grep -x "hpcprof: ${Q}lockeddir${Q}: Permission denied" err &&
	! grep "no .hpcrun profiles" err
'

test_expect_success '-I must name a directory' '
	expect_fail 2 "hpcprof: -I ${Q}no-such-dir${Q}: No such file or directory" \
		hpcprof -I no-such-dir -o dbi run &&
	expect_fail 2 "hpcprof: -I ${Q}prog.hpcstruct${Q}: not a directory" \
		hpcprof -I prog.hpcstruct -o dbi run &&
	! test -e dbi
'

test_expect_success '-S wins over structs/ for the same module, and says so' '
	cp prog.hpcstruct run/structs/prog.hpcstruct &&
	sed "s/n=\"work\"/n=\"work_given\"/" prog.hpcstruct >given.hpcstruct &&
	hpcprof -S given.hpcstruct -o dbs run 2>err &&
	grep -x "hpcprof: warning: ${Q}/nonexistent/prog${Q}: described by ${Q}given.hpcstruct${Q} (given) and ${Q}run/structs/prog.hpcstruct${Q}; using ${Q}given.hpcstruct${Q}" err &&
	grep -q "<Procedure i=\"[0-9]*\" n=\"work_given\"" dbs/experiment.xml &&
	! grep -q "n=\"work\"" dbs/experiment.xml &&
	hpcprof -o dbn run 2>err &&
	! grep -q "described by" err &&
	grep -q "n=\"work\"" dbn/experiment.xml
'

test_expect_success 'a 3,000-deep recursion: experiment.xml linear in the depth, valid' '
	mkdir deep &&
	{
		printf "header program-name prog\nlm 1 /nonexistent/prog\nmetric cycles int\nnode 2 0 1 1005\n" &&
		i=3 && while test $i -le 3002; do echo "node $i $((i - 1)) 1 2005"; i=$((i + 1)); done &&
		echo "value 3002 0 1"
	} | ./mkprofile deep/prog-0.hpcrun &&
	hpcprof -S prog.hpcstruct -o dbd deep 2>err &&
	size=$(wc -c <dbd/experiment.xml) &&
	echo "experiment.xml: $size bytes" &&
	test $size -lt 3000000 &&
	test "$(grep -c "^ \{33\}" dbd/experiment.xml)" = 0 &&
	xmllint --huge --noout --dtdvalid "$DTD_DIR/hpc-experiment.dtd" dbd/experiment.xml
'

test_done
