#!/bin/sh
# viewer-gen-db.sh DBDIR [DEPTH] - write a synthetic experiment database for
# the hpcviewer-tui benchmarks.  Every procedure frame holds a loop of five
# statements, three more statements and three call sites, each calling a frame
# one level deeper, down to DEPTH (default 10: 974,183 scopes, ~95 MB).
# Every statement costs 1, so each value is exact: a frame at depth d has
# inclusive cost I(d) = 8 + 3 I(d+1).  5,000 distinct procedures in 500
# files, so the bottom-up and flat views have real work to do.
set -e
db=${1:?usage: viewer-gen-db.sh DBDIR [DEPTH]}
depth=${2:-10}
mkdir -p "$db"
awk -v D="$depth" '
function S(line, ind) {
	printf "%s<S l=\"%d\"><M n=\"0\" v=\"1\"/><M n=\"1\" v=\"1\"/></S>\n", ind, line
	nscopes++
}
function frame(d, ind,    k, c, p) {
	k = nproc++
	p = k % 5000
	printf "%s<PF n=\"%d\" f=\"%d\" lm=\"0\" l=\"%d\"><M n=\"0\" v=\"%d\"/><M n=\"1\" v=\"8\"/>\n", ind, p, p % 500, 10 + p, incl[d]
	printf "%s <L l=\"%d\"><M n=\"0\" v=\"5\"/><M n=\"1\" v=\"5\"/>\n", ind, 11 + p
	for (c = 0; c < 5; c++)
		S(12 + p + c, ind "  ")
	printf "%s </L>\n", ind
	for (c = 0; c < 3; c++)
		S(18 + p + c, ind " ")
	nscopes += 2
	if (d < D) {
		for (c = 0; c < 3; c++) {
			printf "%s <C l=\"%d\"><M n=\"0\" v=\"%d\"/>\n", ind, 21 + p + c, incl[d + 1]
			nscopes++
			frame(d + 1, ind "  ")
			printf "%s </C>\n", ind
		}
	}
	printf "%s</PF>\n", ind
}
BEGIN {
	incl[D] = 8
	for (d = D - 1; d >= 0; d--)
		incl[d] = 8 + 3 * incl[d + 1]
	print "<?xml version=\"1.0\"?>"
	print "<HPCToolkitExperiment version=\"2.2\"><Header n=\"synthetic\"/>"
	print "<SecCallPathProfile i=\"0\" n=\"synthetic\"><SecHeader><MetricTable>"
	print "<Metric i=\"0\" n=\"CPUTIME (sec):Sum (I)\" v=\"derived-incr\" t=\"inclusive\" partner=\"1\" show=\"1\" show-percent=\"1\"/>"
	print "<Metric i=\"1\" n=\"CPUTIME (sec):Sum (E)\" v=\"derived-incr\" t=\"exclusive\" partner=\"0\" show=\"1\" show-percent=\"1\"/>"
	print "</MetricTable><MetricDBTable/><LoadModuleTable><LoadModule i=\"0\" n=\"/opt/synthetic/bin/app\"/></LoadModuleTable>"
	print "<FileTable>"
	for (f = 0; f < 500; f++)
		printf "<File i=\"%d\" n=\"./src/file%d.c\"/>\n", f, f
	print "</FileTable><ProcedureTable>"
	for (p = 0; p < 5000; p++)
		printf "<Procedure i=\"%d\" n=\"proc_%d\"/>\n", p, p
	print "</ProcedureTable></SecHeader><SecCallPathProfileData>"
	frame(0, "")
	print "</SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>"
	printf "%d scopes, main inclusive %d\n", nscopes, incl[0] > "/dev/stderr"
}' >"$db/experiment.xml"
