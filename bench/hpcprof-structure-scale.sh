#!/bin/sh
# hpcprof-structure-scale.sh [N] [REPEAT] [DIR]: hpcprof on two measurements
# with the same samples, one of whose library has 10x the structure.
#
# Generates in DIR (default: a temporary directory, removed at the end) a
# program that spends its time in hot() of libwork.so.  Variant A links
# libwork.so with N never-called filler functions (a loop and a branch
# each; default 2000), variant B the same library with 10*N of them, so
# its structure file is about 10x larger while the samples are the same
# loop.  Each variant is measured once by hpcrun and given to hpcstruct;
# a structure file of any other load module (libc, should a sample land
# there) would be the same in both and is dropped, so that the
# measurement's structure is the program's and the library's alone.  Then, side by side in one loop,
# REPEAT rounds (default 5) of hpcprof on A and on B: first with no index
# (the run that scans each structure file to make FILE.idx), then with the
# cached index (what hpcprof finds after hpcstruct, which writes the index
# with each structure file).  Prints milliseconds per run (the mean of
# HPCPROF_RUNS runs) per round, and the medians over the rounds; then
# hpcstruct's time on each variant's libwork.so (the mean of 3 runs), of
# which making the index is about the first run's extra time.
# Environment: HPC_BUILD (default build), CC (default cc), HPCPROF_RUNS
# (runs per timing, default 20).
set -e
SRC=$(cd "$(dirname "$0")/.." && pwd)
BIN=${HPC_BUILD:-$SRC/build}/bin
N=${1:-2000}
REPEAT=${2:-5}
K=${HPCPROF_RUNS:-20}
CC=${CC:-cc}
if [ -n "$3" ]; then
	DIR=$3
	mkdir -p "$DIR"
else
	DIR=$(mktemp -d)
	trap 'rm -rf "$DIR"' EXIT
fi
cd "$DIR"
export HPCSTRUCT_CACHE="$DIR/cache"

# fill FIRST COUNT: COUNT filler functions numbered from FIRST.
fill() {
	awk -v first="$1" -v n="$2" 'BEGIN {
	for (i = first; i < first + n; i++)
		printf "int fill%d(const int *a, int n)\n{\n\tint s = %d;\n" \
		       "\tfor (int i = 0; i < n; i++) {\n" \
		       "\t\ts += a[i] * %d ^ (s >> 3);\n" \
		       "\t\tif (a[i] & 1)\n\t\t\ts -= %d;\n\t}\n\treturn s;\n}\n",
		       i, i, i * 7 + 1, i % 13
	}'
}

cat >hot.c <<'EOF'
/* The only sampled code: the same in both variants. */
double hot(long n)
{
	double x = 0;
	for (long i = 0; i < n; i++)
		x += (double)(i % 7) * 0.5 + x * 1e-9;
	return x;
}
EOF
cat >main.c <<'EOF'
#include <stdio.h>
double hot(long n);
int main(void)
{
	printf("%g\n", hot(400000000L));
	return 0;
}
EOF

# Filler in 10 pieces of N: A links piece 0, B all ten (two at a time).
i=0
while [ $i -lt 10 ]; do
	[ -f fill$i.o ] || { fill $((i * N)) "$N" >fill$i.c; }
	i=$((i + 1))
done
for p in "0 1" "2 3" "4 5" "6 7" "8 9"; do
	for i in $p; do
		[ -f fill$i.o ] || $CC -O1 -g -fPIC -c fill$i.c -o fill$i.o &
	done
	wait
done
$CC -O2 -g -fPIC -c hot.c -o hot.o
for v in A B; do
	mkdir -p $v
	if [ $v = A ]; then objs=fill0.o; else objs="fill0.o fill1.o fill2.o fill3.o fill4.o fill5.o fill6.o fill7.o fill8.o fill9.o"; fi
	$CC -shared -o $v/libwork.so hot.o $objs
	$CC -O2 -g -o $v/main main.c -L$v -lwork -Wl,-rpath,"$DIR/$v"
	if [ ! -d $v/m ]; then
		"$BIN/hpcrun" -q -o $v/m $v/main >/dev/null
		"$BIN/hpcstruct" -q -j 2 $v/m
		for s in $v/m/structs/*.hpcstruct; do
			case $s in
			*/main.hpcstruct|*/libwork.so.hpcstruct) ;;
			*) rm -f "$s" ;;
			esac
		done
	fi
done
for v in A B; do
	printf '%s: structure %s bytes (%s files); ' $v \
		"$(cat $v/m/structs/*.hpcstruct | wc -c)" "$(ls $v/m/structs/*.hpcstruct | wc -l)"
	"$BIN/hpcprof" -o $v/db $v/m >/dev/null 2>&1
	HPCPROF_STRUCT_INDEX=stats "$BIN/hpcprof" -o $v/db2 $v/m 2>&1 >/dev/null | grep libwork || echo
	rm -rf $v/db $v/db2
done

# run V FIRST: milliseconds per hpcprof on V, the mean of K runs; FIRST=1
# removes the index before each run (not timed), so that each run makes it.
# The sync keeps the write-back of the indexes the first runs wrote out of
# the runs timed after them.
run() {
	ns=0 k=0
	sync
	while [ $k -lt "$K" ]; do
		k=$((k + 1))
		[ "$2" = 1 ] && rm -f $1/m/structs/*.idx
		rm -rf $1/db
		t0=$(date +%s%N)
		"$BIN/hpcprof" -o $1/db $1/m >/dev/null 2>&1
		t1=$(date +%s%N)
		ns=$((ns + t1 - t0))
	done
	echo "$ns $K" | awk '{ printf "%.1f", $1 / $2 / 1e6 }'
}
rm -f times
echo "samples: A $(sed -n 's/^samples-recorded: //p' A/m/*.log)," \
	"B $(sed -n 's/^samples-recorded: //p' B/m/*.log)"
echo "ms per hpcprof, mean of $K runs:"
echo "round A-first B-first A-cached B-cached"
i=0
while [ $i -lt "$REPEAT" ]; do
	i=$((i + 1))
	fA=$(run A 1); fB=$(run B 1); cA=$(run A 0); cB=$(run B 0)
	echo "$i $fA $fB $cA $cB" | tee -a times
done
awk '
function med(c,   n, i, j, t, a) {
	n = 0
	for (i = 1; i <= NR; i++) a[++n] = v[i, c]
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ for (c = 2; c <= 5; c++) v[NR, c] = $c }
END {
	printf "median ms: first A %.1f B %.1f (B/A %.2f); cached A %.1f B %.1f (B/A %.2f)\n",
		med(2), med(3), med(3) / med(2), med(4), med(5), med(5) / med(4)
}' times
rm -f times
for v in A B; do
	ns=0 k=0
	while [ $k -lt 3 ]; do
		k=$((k + 1))
		t0=$(date +%s%N)
		"$BIN/hpcstruct" -q -j 2 -o $v/lib.hpcstruct $v/libwork.so
		t1=$(date +%s%N)
		ns=$((ns + t1 - t0))
	done
	echo "hpcstruct -j 2 of $v's libwork.so: $(echo "$ns" | awk '{ printf "%.0f", $1 / 3 / 1e6 }') ms (index: $(test -s $v/lib.hpcstruct.idx && echo written || echo none))"
done
