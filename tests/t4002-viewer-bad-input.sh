#!/bin/sh
test_description='hpcviewer-tui refuses bad databases with one clear line'
. "$(dirname "$0")/test-lib.sh"

DB=$TEST_DIRECTORY/data/viewer/small-db

# refuse EXPECTED-MESSAGE ARGS...: exit status 1, no output, exactly the
# one-line message on stderr, in --stdio and in interactive mode alike.
refuse() {
	msg=$1
	shift
	for mode in --stdio ""; do
		status=0
		hpcviewer-tui $mode "$@" >out 2>err </dev/null || status=$?
		test $status = 1 || { echo "status $status for $mode $*"; return 1; }
		test ! -s out || { echo "unexpected output"; cat out; return 1; }
		printf "%s\n" "hpcviewer-tui: $msg" >expect-err
		test_cmp expect-err err || return 1
	done
}

test_expect_success 'a missing directory' '
	refuse "'"'"'no-such-db'"'"': No such file or directory" no-such-db
'

test_expect_success 'a directory that is not a database' '
	mkdir empty &&
	refuse "'"'"'empty'"'"': not a database (no experiment.xml)" empty
'

test_expect_success 'no argument, or two, is a usage error' '
	status=0 && hpcviewer-tui --stdio 2>err || status=$? &&
	test $status = 2 &&
	status=0 && hpcviewer-tui --stdio a b 2>err || status=$? &&
	test $status = 2 &&
	grep -q "expected one database directory" err
'

test_expect_success 'malformed XML names the line' '
	mkdir bad &&
	sed -e "s|</L>|</X>|" "$DB/experiment.xml" >bad/experiment.xml &&
	line=$(grep -n "</X>" bad/experiment.xml | head -n 1 | cut -d: -f1) &&
	refuse "'"'"'bad/experiment.xml'"'"': line $line: Opening and ending tag mismatch: L line 42 and X" bad
'

test_expect_success 'truncated XML is refused at every cut' '
	mkdir cut &&
	size=$(wc -c <"$DB/experiment.xml") &&
	for n in 0 10 200 1500 2400 $((size - 30)) $((size - 2)); do
		head -c $n "$DB/experiment.xml" >cut/experiment.xml &&
		status=0 &&
		hpcviewer-tui --stdio cut >out 2>err || status=$? &&
		test $status = 1 && test ! -s out && test_line_count = 1 err &&
		grep -q "^hpcviewer-tui: '"'"'cut/experiment.xml'"'"': " err ||
		{ echo "cut at $n: status $status"; cat err; exit 1; }
	done
'

test_expect_success 'a database of another format version' '
	mkdir v3 &&
	sed -e "s|version=\"2.2\"|version=\"3.0\"|" "$DB/experiment.xml" >v3/experiment.xml &&
	refuse "'"'"'v3/experiment.xml'"'"': line 5: experiment version 3.0 is not supported (expected 2.x)" v3
'

test_expect_success 'an XML file that is not an experiment' '
	mkdir other &&
	printf "<?xml version=\"1.0\"?>\n<HPCToolkitStructure version=\"4.9\"/>\n" >other/experiment.xml &&
	refuse "'"'"'other/experiment.xml'"'"': line 2: root element <HPCToolkitStructure> is not <HPCToolkitExperiment>" other
'

test_expect_success 'values of undefined metrics and unparsable values' '
	mkdir undef nan &&
	sed -e "s|<M n=\"1\" v=\"5\"/>|<M n=\"5\" v=\"5\"/>|" "$DB/experiment.xml" >undef/experiment.xml &&
	refuse "'"'"'undef/experiment.xml'"'"': line 41: value for undefined metric '"'"'5'"'"'" undef &&
	sed -e "s|<M n=\"1\" v=\"5\"/>|<M n=\"1\" v=\"5x\"/>|" "$DB/experiment.xml" >nan/experiment.xml &&
	refuse "'"'"'nan/experiment.xml'"'"': line 41: bad metric value '"'"'5x'"'"'" nan
'

test_expect_success 'a document that declares entities is refused (no billion laughs, no external files)' '
	mkdir ent &&
	cat >ent/experiment.xml <<-\EOT &&
	<?xml version="1.0"?>
	<!DOCTYPE HPCToolkitExperiment [
	<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
	<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
	<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
	<!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
	<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
	<!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
	<!ENTITY x SYSTEM "file:///etc/passwd">
	]>
	<HPCToolkitExperiment version="2.2"><Header n="x"/>
	<SecCallPathProfile i="0" n="x"><SecHeader><MetricTable>
	<Metric i="0" n="m" t="inclusive"/></MetricTable></SecHeader>
	<SecCallPathProfileData><PF n="p&x;"><M n="0" v="1"/></PF>
	<PF n="q"><M n="0" v="2"/>&f;</PF>
	</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
	EOT
	refuse "'"'"'ent/experiment.xml'"'"': line 14: Attribute references external entity '"'"'x'"'"'" ent &&
	sed -i -e "s/p&x;/p/" ent/experiment.xml &&
	refuse "'"'"'ent/experiment.xml'"'"': entity expansion beyond libxml2'"'"'s limits (entities are refused)" ent &&
	sed -i -e "s/&f;//" ent/experiment.xml &&
	refuse "'"'"'ent/experiment.xml'"'"': declares the entity '"'"'a'"'"' (entities are refused)" ent &&
	sed -i -e "/ENTITY/d" ent/experiment.xml &&
	hpcviewer-tui --csv ent >out &&
	test_line_count = 4 out &&
	grep -q "^1,procedure,q,,,2,66.67$" out
'

test_done
