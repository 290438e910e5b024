#!/bin/sh
test_description='derived-metric formulas: nesting and size are bounded (issue #13), in --metric and -M'
. "$(dirname "$0")/test-lib.sh"

# repeat N TEXT: TEXT N times, no newline.
repeat() { awk -v n="$1" -v t="$2" 'BEGIN { while (n-- > 0) printf "%s", t }'; }
# mathml_minus N: a -M config whose COMPUTE is N unary minus applies deep.
mathml_minus() {
	printf '<?xml version="1.0"?>\n<HPCPROF><METRIC name="deep"><COMPUTE><math>'
	repeat "$1" "<apply><minus/>"
	printf "<cn>2</cn>"
	repeat "$1" "</apply>"
	printf '</math></COMPUTE></METRIC></HPCPROF>\n'
}
# one_line FILE MESSAGE: FILE is exactly the line MESSAGE.
one_line() { printf '%s\n' "$2" >expect && test_cmp expect "$1"; }
# the cut formula the messages quote: its first 60 bytes and "..."
cut60() { repeat 60 "$1" | head -c 60; printf "..."; }

test_expect_success 'setup: a measurement directory' '
	cp -r "$FIXTURES/loops-perf.m" meas
'

test_expect_success '60,000 nested parentheses: one line, exit 1, no database' '
	test_must_fail hpcprof -o db --metric "x=$(repeat 60000 "(")\$0$(repeat 60000 ")")" meas 2>err &&
	one_line err "hpcprof: --metric '"'"'x'"'"': formula '"'"'$(cut60 "(")'"'"': nested deeper than 256 levels at offset 256" &&
	! test -e db
'

test_expect_success '120,000 minus signs, a 40,000-long ^ chain, a 60,000-term sum' '
	test_must_fail hpcprof -o db --metric "x=$(repeat 120000 -)\$0" meas 2>err &&
	one_line err "hpcprof: --metric '"'"'x'"'"': formula '"'"'$(cut60 -)'"'"': nested deeper than 256 levels at offset 256" &&
	test_must_fail hpcprof -o db --metric "y=$(repeat 40000 "2^")2" meas 2>err &&
	one_line err "hpcprof: --metric '"'"'y'"'"': formula '"'"'$(cut60 "2^")'"'"': nested deeper than 256 levels at offset 513" &&
	test_must_fail hpcprof -o db --metric "z=1$(repeat 60000 "+1")" meas 2>err &&
	one_line err "hpcprof: --metric '"'"'z'"'"': formula '"'"'$(cut60 "1+")'"'"': nested deeper than 256 levels at offset 515" &&
	! test -e db
'

test_expect_success '256 levels are fine, and the value is right' '
	hpcprof -o db-256 --metric "x=$(repeat 256 "(")2$(repeat 256 ")")" \
		--metric "y=$(repeat 256 -)3" --metric "z=1$(repeat 256 "+1")" meas 2>err &&
	hpcviewer-tui --csv --metrics all db-256 | awk -F, "
		NR == 1 { for (i = 1; i <= NF; i++) col[\$i] = i; next }
		{ for (m = 1; m <= 3; m++) {
			n = substr(\"xyz\", m, 1)
			printf \"%s=%s %s=%s\n\", n \" (I)\", \$col[n \" (I)\"],
				n \" (E)\", \$col[n \" (E)\"] }
		  exit }" >actual &&
	printf "x (I)=2 x (E)=2\ny (I)=3 y (E)=3\nz (I)=257 z (E)=257\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'derived metrics that double each other: refused at 65536 terms' '
	args="--metric d0=\$0+\$0" && i=1 &&
	while [ $i -le 20 ]; do
		args="$args --metric d$i=d$((i - 1))+d$((i - 1))" && i=$((i + 1)) || return 1
	done &&
	test_must_fail hpcprof -o db $args meas 2>err &&
	one_line err "hpcprof: --metric '"'"'d15'"'"': formula '"'"'d14+d14'"'"': more than 65536 terms with the metrics it names expanded at offset 7" &&
	! test -e db
'

test_expect_success '-M: MathML 250 applies deep is computed, 300 deep refused in one line' '
	mathml_minus 250 >ok.xml &&
	hpcprof -o db-ok -M ok.xml meas 2>err &&
	xmllint --xpath "string(//Metric[@n=\"deep (I)\"]/MetricFormula/@frm)" db-ok/experiment.xml >frm &&
	printf "%s2%s\n" "$(repeat 250 "(-")" "$(repeat 250 ")")" >expect &&
	test_cmp expect frm &&
	mathml_minus 300 >deep.xml &&
	test_must_fail hpcprof -o db -M deep.xml meas 2>err &&
	test_line_count = 1 err &&
	grep "^hpcprof: .*deep.xml" err &&
	! test -e db
'

test_expect_success '-M: a MathML plus of 300 operands is a chain 299 levels deep: refused' '
	{
		printf "<?xml version=\"1.0\"?>\n<HPCPROF><METRIC name=\"wide\"><COMPUTE><math><apply><plus/>" &&
		repeat 300 "<cn>1</cn>" &&
		printf "</apply></math></COMPUTE></METRIC></HPCPROF>\n"
	} >wide.xml &&
	test_must_fail hpcprof -o db -M wide.xml meas 2>err &&
	one_line err "hpcprof: wide.xml: metric '"'"'wide'"'"': formula '"'"'(1$(repeat 14 " + 1") +...'"'"': nested deeper than 256 levels at offset 1031" &&
	! test -e db
'

test_done
