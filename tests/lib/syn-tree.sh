#!/bin/sh
# syn-tree.sh - the synthetic calling context tree of hpcprof's benchmarks
# (bench/hpcprof-scale.sh, bench/hpcprof-threads.sh) and of t3100: one
# 4-ary call tree, the same in every thread, over 64 procedures with a loop
# of 16 statements each; values on its lower half, differing per thread.
#
#   syn-tree.sh struct                   the structure file, on stdout
#   syn-tree.sh profile T NODES [SPREAD] thread T's profile of NODES nodes,
#                                        as tests/progs/pf-mkprofile.c reads
#                                        it; node ids SPREAD * 1, 2, ...
#                                        (default 2, dense as hpcrun's)
set -eu
case ${1:-} in
struct)
	awk 'BEGIN {
		print "<HPCToolkitStructure i=\"0\" version=\"4.9\"><LM i=\"1\" n=\"/syn/prog\" has-calls=\"1\"><F i=\"2\" n=\"/syn/prog.c\">"
		for (p = 0; p < 64; p++) {
			base = 4096 + p * 256
			printf "<P i=\"%d\" n=\"f%d\" l=\"%d\" v=\"{[0x%x-0x%x)}\"><L i=\"%d\" l=\"%d\" v=\"{[0x%x-0x%x)}\">\n", 3 + p * 20, p, p * 20, base, base + 1, 4 + p * 20, p * 20 + 1, base, base + 1
			for (s = 0; s < 16; s++)
				printf "<S i=\"%d\" l=\"%d\" v=\"{[0x%x-0x%x)}\"/>\n", 5 + p * 20 + s, p * 20 + 2 + s, base + s * 16, base + s * 16 + 16
			print "</L></P>"
		}
		print "</F></LM></HPCToolkitStructure>"
	}'
	;;
profile)
	awk -v t="$2" -v n="$3" -v spread="${4:-2}" 'BEGIN {
		srand(1)	# every thread runs the same code (same CCT) ...
		print "header program-name syn"; print "lm 1 /syn/prog"; print "metric cycles int"
		printf "thread %d\n", t
		for (i = 1; i <= n; i++)
			printf "node %d %d 1 %x\n", spread * i, (i > 1 ? spread * int((i + 2) / 4) : 0), 4096 + int(rand() * 16384)
		srand(t + 2)	# ... with its own values
		for (i = n / 2; i <= n; i++)
			printf "value %d 0 %d\n", spread * i, 1 + int(rand() * 100)
	}'
	;;
*)
	echo "usage: syn-tree.sh struct | profile T NODES [SPREAD]" >&2
	exit 2
	;;
esac
