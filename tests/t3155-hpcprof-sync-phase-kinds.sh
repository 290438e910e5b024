#!/bin/sh
test_description='hpcrun, hpcprof and the phases view: each phase kind has the code of its own phases, two kinds of one start apart, adding up to its work'
. "$(dirname "$0")/test-lib.sh"

test_lazy_prereq LIBOMP 'echo "int main(void){return 0;}" >omp.c && clang -fopenmp=libomp -o omp omp.c'

# rt-omp-two STEPS (tests/progs/rt-omp-two.c): every step a region of the
# sweep, every fourth step one of the copy after it.  From the sweep's
# join the thread runs either the sweep's body (the kind sweep to sweep)
# or the copy's (sweep to copy): the lines of each body (from its
# construct's line to its function's end) and of the calls in main are
# read from the source.
src="$TEST_PROGS/rt-omp-two.c"
body() {
	awk -v m="$1 \\\\*/" '$0 ~ m { b = NR } b && /^}/ { print b, NR - 1; exit }' "$src"
}

# kinds DB: a line per phase kind of the phases view: the lines of its
# start's and end's calls, its work, the sum of its code's top lines and
# the source lines its code shows.
kinds() {
	hpcviewer-tui --stdio --width 0 --depth 8 --view phases "$1" | awk '
		function out() { if (k) print from, to, work, sum, lines; k = 0 }
		/  from .* to / {
			out(); k = 1; sum = 0; lines = ""; work = $1
			s = $0; sub(/.*  from /, "", s)
			from = s ~ /^thread start/ ? 0 : s; sub(/ to .*/, "", from)
			sub(/.*\.c:/, "", from); sub(/ .*/, "", from)
			to = s; sub(/.* to /, "", to); sub(/.*\.c:/, "", to); sub(/ .*/, "", to)
			next }
		/thread [0-9]+/ || /^ *[a-z]/ { next }
		k && substr($0, 13, 4) == "    " && substr($0, 17, 1) != " " { sum += $1 }
		k { s = $0; while (match(s, /rt-omp-two\.c:[0-9]+/)) {
			lines = lines " " substr(s, RSTART + 13, RLENGTH - 13)
			s = substr(s, RSTART + RLENGTH) } }
		END { out() }'
}

# check DIR: the kinds from the sweep to the sweep and to the copy each
# show lines of their body alone (a kind given another's code fails
# here), and every kind of 50 ms or more of work has code adding up to
# it: at most half again its work (the sampling error, and on a loaded
# machine libomp's spinning near a barrier's arrival, which CI saw take
# the sweep's code to 1.32 times its work), and at least half of it (a
# busy machine's kernel drops ring samples, "dropped-ring-full" in the
# log).
check() {
	set -- "$1" $(body SWEEP) $(body COPY) &&
	sweep=$(grep -n "	sweep();" "$src" | cut -d: -f1) &&
	copy=$(grep -n "	copy();" "$src" | cut -d: -f1) &&
	kinds "$1.db" >kinds &&
	grep "^$sweep $sweep " kinds >ss && grep "^$sweep $copy " kinds >sc &&
	test_line_count = 1 ss && test_line_count = 1 sc &&
	awk -v a=$2 -v b=$3 -v c=$4 -v d=$5 "{ for (i = 5; i <= NF; i++) {
		if (\$i >= a && \$i <= b) s++; if (\$i >= c && \$i <= d) o++ } }
		END { exit !(s > 0 && o == 0) }" ss &&
	awk -v a=$2 -v b=$3 -v c=$4 -v d=$5 "{ for (i = 5; i <= NF; i++) {
		if (\$i >= a && \$i <= b) s++; if (\$i >= c && \$i <= d) o++ } }
		END { exit !(o > 0 && s == 0) }" sc &&
	awk "\$3 >= 0.05 && (\$4 > \$3 * 1.5 + 0.01 || \$4 < \$3 * 0.5) {
		print \"kind \" \$1 \" to \" \$2 \": work \" \$3 \", code \" \$4; bad = 1 }
		END { exit bad }" kinds
}

# measure DIR PROG: two threads, a CPU budget of steps (retry_budget).
measure() {
	rm -rf "$1" "$1.db" &&
	OMP_NUM_THREADS=2 hpcrun -o "$1" "$2" "$(retry_budget 120)" >/dev/null &&
	hpcstruct "$1" >/dev/null 2>&1 &&
	hpcprof -o "$1.db" "$1" 2>/dev/null &&
	check "$1"
}

test_expect_success 'gcc: the sweep to the sweep runs the sweep, the sweep to the copy the copy' '
	cc -O2 -g -fopenmp -o rt-omp-two-gomp "$src" &&
	retry 3 measure g ./rt-omp-two-gomp
'

test_expect_success LIBOMP 'clang with libomp: the same' '
	clang -O2 -g -fopenmp=libomp -o rt-omp-two-kmp "$src" &&
	retry 3 measure k ./rt-omp-two-kmp
'

test_done
