#!/bin/sh
test_description='instruction mix fused with real samples: an FP loop and an integer loop of known CPU-time shares (gcc and clang -O2)'
. "$(dirname "$0")/test-lib.sh"

# The program prints the CPU-time share each loop really had: fp() is
# all FP arithmetic, ints() none, so the fused FP share of the whole
# program must be fp()s share, and each loop must be classified as what
# it is.  20 rounds of 1,000,000 iterations of fp() and 32,000,000 of
# ints() take about 2.6 s of CPU, half in each: 2,600 samples at hpcrun's
# default 1 kHz of CPU time, which a loaded machine stretches in wall time
# but not in samples.  The FP loop loses a few of its samples to its loop
# control (hpcprof(1), Instruction mix), about 1 point of the total.

X() { xmllint --xpath "$1" "$2/experiment.xml"; }
# share DB GROUP: the id of the first metric column GROUP_share (I).
share() { X "string((//Metric[contains(@n, \".$2_share (I)\")])[1]/@i)" "$1"; }
# loop_share DB PROC GROUP: GROUP share of the loop in procedure PROC*.
loop_share() {
	X "string(//PF[@n=//Procedure[starts-with(@n, \"$2\")]/@i]//L/M[@n=$(share "$1" "$3")]/@v)" "$1"
}
total_share() {
	X "string(//SecCallPathProfileData/M[@n=$(share "$1" "$2")]/@v)" "$1"
}
# at_least VALUE MIN: VALUE (empty: 0) >= MIN.
at_least() { awk -v v="${1:-0}" -v m="$2" "BEGIN { exit !(v >= m) }"; }

for cc in gcc clang; do
	prereq=
	test $cc = clang && prereq=CLANG
	test_expect_success $prereq "$cc -O2: measure, recover structure, correlate" "
		$cc -O2 -g -o mx-$cc \"\$TEST_PROGS/mx-fpint.c\" &&
		hpcrun -o m-$cc ./mx-$cc 1000000 >truth-$cc &&
		HPCSTRUCT_CACHE=\$PWD/cache hpcstruct m-$cc 2>/dev/null &&
		hpcprof -o db-$cc m-$cc 2>err &&
		test -n \"\$(share db-$cc fp)\"
	"
	test_expect_success $prereq "$cc -O2: the FP loop is at least 90% FP, the integer loop at most 10%" "
		fp=\$(loop_share db-$cc fp fp) && int=\$(loop_share db-$cc ints fp) &&
		echo \"fp loop \$fp%, int loop \$int% FP\" &&
		at_least \"\$fp\" 90 &&
		at_least \"\$(awk -v v=\"\${int:-0}\" \"BEGIN { print 100 - v }\")\" 90
	"
	test_expect_success $prereq "$cc -O2: the program total FP share is within 3 points of fp()s CPU time" "
		echo \"fused \$(total_share db-$cc fp), true \$(true_share fp truth-$cc)\" &&
		test_within \"\$(total_share db-$cc fp)\" \"\$(true_share fp truth-$cc)\" 3
	"
done

# demo.c's matrix multiply: a chain of addpd, each waiting for the one
# before; the samples fall on the cmp after it (perf annotate: 93%), and
# count for the addpd that retired before them.  Classified by the
# instruction at their address, mm was 2% FP.
test_expect_success 'a matrix multiply whose samples land after its FP instructions is at least 90% FP' '
	cc -O2 -g -pthread -o demo "$TEST_PROGS/demo.c" &&
	hpcrun -o m-demo ./demo >/dev/null &&
	HPCSTRUCT_CACHE=$PWD/cache hpcstruct m-demo 2>/dev/null &&
	hpcprof -o db-demo m-demo 2>err &&
	fp=$(loop_share db-demo mm fp) &&
	echo "mm loop $fp% FP" &&
	at_least "$fp" 90
'

test_done
