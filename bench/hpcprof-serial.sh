#!/bin/sh
# hpcprof-serial.sh - the part of hpcprof that does not shrink with -j, step
# by step: hpcprof -j 1, -j C and -j C+1 (C the online CPUs) on the same
# profiles, each step's wall and CPU time (HPCPROF_TIMES, hpcprof(1)), the
# median of RUNS runs.
#
#   bench/hpcprof-serial.sh [COUNT [NODES [DIR]]]
#     COUNT  profiles, default 256
#     NODES  CCT nodes per profile, default 20000 (tests/lib/syn-tree.sh's
#            synthetic set, as bench/hpcprof-scale.sh)
#     DIR    kept (the profiles are reused when present); default: a
#            temporary directory, removed
#   RUNS=N (default 3).  DATA=1: the same profiles as data-centric ones
#   (bench/lib.sh, syn_data_profiles), so the data tree is built too.
#   SYNC=1: the same profiles with per-phase subtrees and synchronization
#   files (syn_sync_profiles), so phases are correlated too.  SHARE=1: the
#   data-centric ones with sharing files (syn_share_profiles).
#
# A step's serial part at -j J is the CPU time left idle while it ran:
# S = C x wall - CPU (at least 0, at most its -j 1 time), what no number of
# threads would shorten; a step that runs on one thread has S = (C - 1) x
# wall.  -j C+1 shows what one thread more than the CPUs costs.  The last
# line is the serial fraction, the summed S over the -j 1 total, at each
# -j, and what the one at -j C bounds the speed-up to on 16 cores,
# 1 / (f + (1 - f) / 16).  Other work on the machine inflates S: run it on
# a quiet machine.
set -eu
SRC_ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${HPC_BUILD:-$SRC_ROOT/build}
BIN=$BUILD/bin
COUNT=${1:-256}
NODES=${2:-20000}
RUNS=${RUNS:-3}
. "$SRC_ROOT/bench/lib.sh"
bench_workdir hpcprof-serial "${3:-}"
SET=syn
if [ "${DATA:-0}" = 1 ]; then
	SET=syn-data
	syn_data_profiles "$COUNT" "$NODES"
elif [ "${SHARE:-0}" = 1 ]; then
	SET=syn-share
	syn_share_profiles "$COUNT" "$NODES"
elif [ "${SYNC:-0}" = 1 ]; then
	SET=syn-sync
	syn_sync_profiles "$COUNT" "$NODES"
else
	syn_profiles "$COUNT" "$NODES"
fi

# steps J: RUNS runs of hpcprof -j J; "STEP<tab>median wall<tab>median CPU"
# per step, in the order of the run.
steps() {
	: >all
	r=0
	while [ $r -lt "$RUNS" ]; do
		rm -rf db
		HPCPROF_TIMES=1 "$BIN/hpcprof" -j "$1" -S syn.hpcstruct -o db "$SET" 2>&1 >/dev/null |
			sed -n "s/^hpcprof: step \(.*\): \([0-9.]*\) s wall, \([0-9.]*\) s CPU$/$r	\1	\2	\3/p" >>all
		r=$((r + 1))
	done
	awk -F'\t' '
		!($2 in seen) { seen[$2] = ++n; name[n] = $2 }
		{ k = seen[$2]; w[k, ++c[k]] = $3; u[k, c[k]] = $4 }
		function med(a, k, m,   i, j, t, v) {
			for (i = 1; i <= m; i++) v[i] = a[k, i]
			for (i = 1; i <= m; i++)
				for (j = i + 1; j <= m; j++)
					if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
			return v[int((m + 1) / 2)]
		}
		END { for (k = 1; k <= n; k++) printf "%s\t%.3f\t%.3f\n", name[k], med(w, k, c[k]), med(u, k, c[k]) }
	' all
}
C=$(nproc)
steps 1 >j1
steps "$C" >jc
steps $((C + 1)) >jc1
echo "$COUNT $SET profiles x $NODES nodes, $C CPUs, median of $RUNS runs; seconds"
awk -F'\t' -v C="$C" '
	FILENAME == ARGV[1] { t1[$1] = $2; order[++n] = $1; next }
	FILENAME == ARGV[2] { wa[$1] = $2; ca[$1] = $3; next }
	{ wb[$1] = $2; cb[$1] = $3 }
	function ser(w, c, t) { s = C * w - c; if (s < 0) s = 0; if (s > t) s = t; return s }
	END {
		printf "%-46s %6s %13s %13s\n", "step", "-j 1", "-j " C " (S)", "-j " C + 1 " (S)"
		for (i = 1; i <= n; i++) {
			k = order[i]
			sa = ser(wa[k], ca[k], t1[k]); sb = ser(wb[k], cb[k], t1[k])
			printf "%-46s %6.3f %6.3f (%.3f) %6.3f (%.3f)\n", k, t1[k], wa[k], sa, wb[k], sb
			T1 += t1[k]; WA += wa[k]; WB += wb[k]; SA += sa; SB += sb
		}
		printf "%-46s %6.3f %6.3f (%.3f) %6.3f (%.3f)\n", "total", T1, WA, SA, WB, SB
		fa = T1 > 0 ? SA / T1 : 0; fb = T1 > 0 ? SB / T1 : 0
		printf "serial fraction: %.1f%% at -j %d, %.1f%% at -j %d; bound on 16 cores: %.1fx\n",
			100 * fa, C, 100 * fb, C + 1, 1 / (fa + (1 - fa) / 16)
	}
' j1 jc jc1
