#!/bin/sh
# viewer-deep-db.sh DBDIR DEPTH - write an experiment database holding one
# call path DEPTH frames deep, for the viewer's depth tests (t4015) and
# benchmarks (bench/viewer-deep.sh).  main calls f, f calls g, g calls f,
# ... (mutual recursion, DEPTH frames of f and g, DEPTH even), and the last
# g calls leaf.  Each f and g frame costs 1 on line 11 or 21, leaf 5 on
# line 31, main 2 on line 3, so every value is exact: the k-th frame of f/g
# (k = 1 outermost) has inclusive cost DEPTH - k + 6, main DEPTH + 7.
# No indentation, so the file grows linearly with DEPTH (about 190 bytes a
# frame).
set -e
db=${1:?usage: viewer-deep-db.sh DBDIR DEPTH}
depth=${2:?usage: viewer-deep-db.sh DBDIR DEPTH}
mkdir -p "$db"
awk -v D="$depth" '
function M(i, e) {
	printf "<M n=\"0\" v=\"%d\"/>", i
	if (e)
		printf "<M n=\"1\" v=\"%d\"/>", e
}
function S(line, v) {
	printf "<S i=\"%d\" l=\"%d\">", ++id, line
	M(v, v)
	printf "</S>\n"
}
BEGIN {
	if (D < 2 || D % 2) {
		print "viewer-deep-db.sh: DEPTH must be even and at least 2" > "/dev/stderr"
		exit 2
	}
	total = D + 7
	print "<?xml version=\"1.0\"?>"
	print "<HPCToolkitExperiment version=\"2.2\"><Header n=\"deep\"/>"
	print "<SecCallPathProfile i=\"0\" n=\"deep\"><SecHeader><MetricTable>"
	print "<Metric i=\"0\" n=\"CPUTIME (sec):Sum (I)\" v=\"derived-incr\" t=\"inclusive\" partner=\"1\" show=\"1\" show-percent=\"1\"/>"
	print "<Metric i=\"1\" n=\"CPUTIME (sec):Sum (E)\" v=\"derived-incr\" t=\"exclusive\" partner=\"0\" show=\"1\" show-percent=\"1\"/>"
	print "</MetricTable><LoadModuleTable><LoadModule i=\"0\" n=\"/opt/deep/bin/deep\"/></LoadModuleTable>"
	print "<FileTable><File i=\"0\" n=\"./src/deep.c\"/></FileTable>"
	print "<ProcedureTable><Procedure i=\"0\" n=\"main\"/><Procedure i=\"1\" n=\"f\"/>"
	print "<Procedure i=\"2\" n=\"g\"/><Procedure i=\"3\" n=\"leaf\"/></ProcedureTable>"
	print "</SecHeader><SecCallPathProfileData>"
	M(total, total)
	printf "\n<PF i=\"%d\" n=\"0\" lm=\"0\" f=\"0\" l=\"2\">", ++id
	M(total, 2)
	printf "\n"
	S(3, 2)
	printf "<C i=\"%d\" l=\"4\">", ++id
	M(D + 5, 0)
	printf "\n"
	for (k = 1; k <= D; k++) {
		p = k % 2 ? 1 : 2
		printf "<PF i=\"%d\" n=\"%d\" lm=\"0\" f=\"0\" l=\"%d\">", ++id, p, 10 * p
		M(D - k + 6, 1)
		printf "\n"
		S(10 * p + 1, 1)
		printf "<C i=\"%d\" l=\"%d\">", ++id, 10 * p + 2
		M(D - k + 5, 0)
		printf "\n"
	}
	printf "<PF i=\"%d\" n=\"3\" lm=\"0\" f=\"0\" l=\"30\">", ++id
	M(5, 5)
	printf "\n"
	S(31, 5)
	printf "</PF>\n"
	for (k = 0; k <= D; k++)
		printf "</C></PF>\n"
	print "</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>"
}' >"$db/experiment.xml"
