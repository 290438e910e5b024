#!/bin/sh
test_description='hpcviewer-tui: a metric heads its column by the name experiment.xml gives it (display names)'
. "$(dirname "$0")/test-lib.sh"

# mkdb DIR METRIC...: a one-procedure database whose metrics (i = 0, 1,
# ...) are the given <Metric> attribute lists, each valued 4 at main.
mkdb() {
	dir=$1 && shift && mkdir -p "$dir" && i=0 && {
	echo '<?xml version="1.0"?>'
	echo '<HPCToolkitExperiment version="2.2"><Header n="d"/>'
	echo '<SecCallPathProfile i="0" n="d"><SecHeader><MetricTable>'
	for a in "$@"; do
		echo "<Metric i=\"$i\" $a show=\"1\" show-percent=\"1\"/>"
		i=$((i + 1))
	done
	echo '</MetricTable><LoadModuleTable><LoadModule i="1" n="/bin/d"/></LoadModuleTable>'
	echo '</SecHeader><SecCallPathProfileData>'
	echo '<PF i="1" n="main" lm="1" f="d.c" l="1">'
	i=0
	for a in "$@"; do
		echo "<M n=\"$i\" v=\"4\"/>"
		i=$((i + 1))
	done
	echo '</PF></SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>'
	} >"$dir/experiment.xml"
}

test_expect_success 'a display name heads its column as written' '
	mkdb dn "n=\"cpu clock\" v=\"raw\" t=\"inclusive\"" \
		"n=\"L1 miss\" v=\"raw\" t=\"exclusive\"" &&
	hpcviewer-tui --csv dn | sed -n 1p >head &&
	echo "depth,kind,scope,file,line,cpu clock,cpu clock %,L1 miss,L1 miss %" >expect &&
	test_cmp expect head &&
	hpcviewer-tui --stdio --metrics all --metric "cpu clock" dn | sed -n 1p >head &&
	echo "       cpu clock           L1 miss  Scope (top-down)" >expect &&
	test_cmp expect head
'

test_expect_success XMLLINT 'the database is valid against the experiment DTD' '
	test_valid_xml "$DTD_DIR/hpc-experiment.dtd" dn/experiment.xml
'

test_expect_success 'partners of one name are told apart by (I) and (E)' '
	mkdb pair "n=\"cycles\" v=\"raw\" t=\"inclusive\" partner=\"1\"" \
		"n=\"cycles\" v=\"raw\" t=\"exclusive\" partner=\"0\"" \
		"n=\"cpi (I)\" v=\"derived\" t=\"inclusive\"" &&
	hpcviewer-tui --csv pair | sed -n 1p >head &&
	echo "depth,kind,scope,file,line,cycles (I),cycles (I) %,cycles (E),cycles (E) %,cpi (I),cpi (I) %" >expect &&
	test_cmp expect head
'

# hpcprof writes a configuration's displayName as the Sum's name, "cpu clock
# (I)"; the viewer adds the unit of perf's clock before the (I), not after.
test_expect_success FIXTURES 'hpcprof -M displayName: the column is headed by it' '
	cp -r "$FIXTURES/loops-perf.m" m &&
	cat >cfg.xml <<-\EOT &&
	<?xml version="1.0"?>
	<HPCPROF>
	  <METRIC name="cpu" displayName="cpu clock"><FILE name="m" select="perf::cpu-clock"/></METRIC>
	</HPCPROF>
	EOT
	hpcprof -M cfg.xml -o db m 2>err &&
	hpcviewer-tui --csv --depth 0 db | sed -n 1p | cut -d, -f6-9 >head &&
	echo "cpu clock (s) (I),cpu clock (s) (I) %,cpu clock (s) (E),cpu clock (s) (E) %" >expect &&
	test_cmp expect head &&
	hpcviewer-tui --csv --view functions --metric "cpu clock E" db |
	sed -n 3p | cut -d, -f3,8 >top &&
	echo "main._omp_fn.0 [testmeas-loops],1.2875" >expect &&
	test_cmp expect top
'

test_done
