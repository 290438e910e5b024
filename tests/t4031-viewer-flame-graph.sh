#!/bin/sh
test_description='hpcviewer-tui --flame-graph: a well-formed SVG, frames sized by their values, names escaped, linear in depth'
. "$(dirname "$0")/test-lib.sh"

DB=$TEST_DATA/viewer/small-db
NAMES=$TEST_DATA/viewer/names-db

# frames SVG: "kind|label|x|width" for every frame, in document order
# (flamegraph.c writes a frame as <g>, <title>label, ..., <rect .../>).
frames() {
	awk '
		/^ <g class="frame / { kind = $3; sub(/">$/, "", kind); next }
		kind != "" && /^  <title>/ { label = substr($0, 10); next }
		kind != "" && /^  <rect / {
			x = $0; sub(/.* x="/, "", x); sub(/".*/, "", x)
			w = $0; sub(/.* width="/, "", w); sub(/".*/, "", w)
			print kind "|" label "|" x "|" w
			kind = ""
		}
	' "$1"
}

test_expect_success 'small-db: every frame, its place and its width (1180 px for 10 s)' '
	hpcviewer-tui --flame-graph fg.svg "$DB" &&
	frames fg.svg >out &&
	cat >expect <<-\EOT &&
	root|all|10.000|1180.000
	proc|main|10.000|1180.000
	proc|helper|10.000|118.000
	proc|helper|10.000|59.000
	loop|loop at app.c:8|128.000|944.000
	proc|compute|128.000|826.000
	proc|helper|128.000|236.000
	loop|loop at app.c:22|364.000|590.000
	inline|[I] vec_add|364.000|354.000
	EOT
	test_cmp expect out
'

test_expect_success 'hover titles: label, value and percentage, self value' '
	hpcviewer-tui --flame-graph fg.svg "$DB" &&
	grep -A1 "<title>compute\$" fg.svg >out &&
	printf "%s\n" "  <title>compute" "7, 70.00%; self 0, 0.00%</title>" >expect &&
	test_cmp expect out &&
	grep -A1 "<title>\[I\] vec_add\$" fg.svg | sed -n 2p >out &&
	echo "3, 30.00%; self 3, 30.00%</title>" >expect &&
	test_cmp expect out &&
	grep -q "Flame graph of app: CPUTIME (sec):Sum (I)<" fg.svg
'

test_expect_success 'kinds drawn apart: procedures warm, inlined code aqua, loops blue' '
	hpcviewer-tui --flame-graph fg.svg "$DB" &&
	awk "
		/^ <g class=\"frame / { kind = \$3; sub(/\">\$/, \"\", kind) }
		kind != \"\" && /^  <rect / {
			f = \$0; sub(/.* fill=\"rgb\(/, \"\", f); sub(/\)\".*/, \"\", f)
			gsub(/,/, \" \", f); print kind, f; kind = \"\"
		}
	" fg.svg >fills &&
	awk "
		\$1 == \"proc\" && !(\$2 >= 205 && \$4 <= 55) { bad = 1 }
		\$1 == \"inline\" && !(\$2 <= 110 && \$3 >= 165 && \$4 >= 165) { bad = 1 }
		\$1 == \"loop\" && !(\$4 >= 220 && \$2 < \$4) { bad = 1 }
		{ n[\$1]++ }
		END { exit bad || n[\"proc\"] != 5 || n[\"inline\"] != 1 || n[\"loop\"] != 2 }
	" fills
'

test_expect_success XMLLINT 'the SVG is well-formed XML, whatever the names hold' '
	hpcviewer-tui --flame-graph small.svg "$DB" &&
	hpcviewer-tui --flame-graph names.svg "$NAMES" &&
	xmllint --noout --nonet small.svg &&
	xmllint --noout --nonet names.svg &&
	xmllint --xpath "count(//*[local-name()=\"g\"][starts-with(@class, \"frame \")])" names.svg >count &&
	echo 8 >expect && test_cmp expect count &&
	xmllint --xpath "string(//*[local-name()=\"text\"][@id=\"title\"])" names.svg >title &&
	echo "Flame graph of names & <odd>: cycles:Sum (I)" >expect &&
	test_cmp expect title &&
	for name in "a<b>&" "odd;name" "step 12" "[I] inl"; do
		xmllint --xpath "count(//*[local-name()=\"title\"][starts-with(., \"$name\")])" names.svg >count &&
		echo 1 >expect && test_cmp expect count || exit 1
	done
'

test_expect_success 'to standard output, with --folded in the same run' '
	hpcviewer-tui --flame-graph - --folded both.folded "$DB" >out.svg &&
	hpcviewer-tui --flame-graph fg.svg "$DB" &&
	test_cmp fg.svg out.svg &&
	hpcviewer-tui --folded - "$DB" >expect &&
	test_cmp expect both.folded
'

# main 1,000,000: "big" 999,800, "small" 150 (0.177 px), "tiny" 50
# (0.059 px, with "over-tiny" on it).
test_expect_success 'frames narrower than 0.1 px are left out with all above them' '
	cat >experiment.xml <<-\EOT &&
	<?xml version="1.0"?>
	<HPCToolkitExperiment version="2.2"><Header n="narrow"/>
	<SecCallPathProfile i="0" n="narrow"><SecHeader><MetricTable>
	<Metric i="0" n="samples (I)" v="raw" t="inclusive"/>
	</MetricTable></SecHeader><SecCallPathProfileData><M n="0" v="1000000"/>
	<PF n="main" f="n.c" l="1"><M n="0" v="1000000"/>
	<C l="2"><PF n="big" l="10"><M n="0" v="999800"/></PF></C>
	<C l="3"><PF n="small" l="20"><M n="0" v="150"/></PF></C>
	<C l="4"><PF n="tiny" l="30"><M n="0" v="50"/>
	<C l="31"><PF n="over-tiny" l="40"><M n="0" v="50"/></PF></C></PF></C>
	</PF></SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>
	EOT
	hpcviewer-tui --flame-graph fg.svg . &&
	frames fg.svg | cut -d"|" -f2 >out &&
	printf "%s\n" all main big small >expect &&
	test_cmp expect out &&
	hpcviewer-tui --folded - . >folded &&
	grep -qx "main;tiny;over-tiny 50" folded
'

test_expect_success 'a metric that cannot be drawn writes no file' '
	test_must_fail hpcviewer-tui --flame-graph fg2.svg --metric Min "$NAMES" 2>err &&
	test ! -e fg2.svg &&
	test_line_count = 1 err
'

# main > f > g > ... 200,000 frames deep (tests/lib/viewer-deep-db.sh, total
# 200,007): the k-th frame is worth 200,007 - k - 1, so 0.1 px (16.95)
# keeps frames 1 to 199,989: with all and main, 199,991 frames, one
# element each, the document never deeper than 3.  bounded_viewer catches
# quadratic work and recursion per level.
DEPTH=200000

test_expect_success 'a 200,000-deep path: linear in frames, any depth' '
	sh "$TEST_DIRECTORY/lib/viewer-deep-db.sh" deep $DEPTH &&
	bounded_viewer hpcviewer-tui --flame-graph deep.svg deep &&
	test $(grep -c "^ <g class=\"frame " deep.svg) = 199991 &&
	test $(wc -c <deep.svg) -lt $((199991 * 300)) &&
	frames deep.svg | sed -n "1,3p;\$p" >out &&
	cat >expect <<-\EOT &&
	root|all|10.000|1180.000
	proc|main|10.000|1180.000
	proc|f|10.000|1179.988
	proc|f|10.000|0.100
	EOT
	test_cmp expect out &&
	if test_have_prereq XMLLINT; then
		xmllint --noout --nonet deep.svg
	fi
'

test_done
