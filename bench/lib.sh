# bench/lib.sh - what several bench scripts share; sourced after setting
# SRC_ROOT (the source tree) and BUILD (the build directory).

# bench_workdir NAME [DIR]: cd into DIR (made, kept) or into a new temporary
# directory /tmp/NAME.XXXXXX removed when the script exits; dir is its
# absolute path.
bench_workdir() {
	if [ -n "${2:-}" ]; then
		dir=$2
		mkdir -p "$dir"
	else
		dir=$(mktemp -d "/tmp/$1.XXXXXX")
		trap 'rm -rf "$dir"' EXIT
	fi
	dir=$(cd "$dir" && pwd)
	cd "$dir"
}

# bench_workdir_said NAME: bench_workdir NAME in a new directory whose runs'
# *.err files are said when the bench fails, before the directory goes.
bench_workdir_said() {
	bench_workdir "$1"
	trap 'rc=$?; [ $rc = 0 ] || { echo "$0: failed (exit $rc)" >&2; cat "$dir"/*.err >&2 2>/dev/null; }; rm -rf "$dir"' EXIT
}

# syn_profiles COUNT NODES: syn/ holds COUNT profiles of NODES CCT nodes
# each (tests/lib/syn-tree.sh's synthetic set; those there are kept) and
# syn.hpcstruct their structure.
syn_profiles() {
	[ -x mkprofile ] ||
		cc -I"$SRC_ROOT/lib" -o mkprofile "$SRC_ROOT/tests/progs/pf-mkprofile.c" \
			"$BUILD/obj/libhpc.a"
	[ -s syn.hpcstruct ] || sh "$SRC_ROOT/tests/lib/syn-tree.sh" struct >syn.hpcstruct
	mkdir -p syn
	t=$(ls syn | wc -l)
	while [ "$t" -lt "$1" ]; do
		sh "$SRC_ROOT/tests/lib/syn-tree.sh" profile "$t" "$2" |
			./mkprofile syn/syn-$(printf %05d "$t").hpcrun
		t=$((t + 1))
	done
}

# syn_variant COUNT NODES DIR EDIT: DIR/ holds syn_profiles' profiles,
# thread T's rewritten by EDIT T NODES PROFILE COUNT (syn-tree.sh's text on
# its stdin, mkprofile's on its stdout; it may write files beside PROFILE
# first); those there are kept.
syn_variant() {
	syn_profiles "$1" "$2"
	mkdir -p "$3"
	t=0
	while [ "$t" -lt "$1" ]; do
		g=$3/syn-$(printf %05d "$t").hpcrun
		[ -s "$g" ] ||
			sh "$SRC_ROOT/tests/lib/syn-tree.sh" profile "$t" "$2" |
				"$4" "$t" "$2" "$g" "$1" | ./mkprofile "$g"
		t=$((t + 1))
	done
}

# syn_data_profiles COUNT NODES: syn-data/ holds syn_profiles' profiles as
# hpcrun --data would file them had every sample touched one heap object:
# the tree below ^Heap -> f0 (the allocation, 4096 bytes) -> ^Access.
syn_data_edit() {
	awk '/^metric / { print; print "metric DATA:bytes int"
			  print "header data-centric 1"; next }
	     /^node / && !nodes++ { print "node 1 0 0 ^Heap"
				    print "node 3 1 1 1010"
				    print "value 3 1 4096"
				    print "node 5 3 0 ^Access" }
	     /^node / && $3 == 0 { $3 = 5 }
	     { print }'
}
syn_data_profiles() {
	syn_variant "$1" "$2" syn-data syn_data_edit
}

# syn_share_profiles COUNT NODES: syn-share/ holds syn_data_profiles'
# profiles with a .hpcshare file beside each (written first), as hpcrun
# --sharing files them for threads of one process: 2,000 sampled accesses
# per thread to the heap object, 5 us apart, half to a block of its own
# (private lines, a write in four) and half to one block every thread
# writes 8 bytes of (false sharing, 8 threads a line).
syn_share_edit() {
	awk -v t="$1" 'BEGIN {
		printf "hpcshare: 1\nthread %d\nrank -1\npage-size 4096\n", t
		printf "object 1 heap 0x%x 4096 3\n", 1048576 + 4096 * t
		print "object 2 heap 0x800000 4096 3"
		for (k = 0; k < 1000; k++) {
			printf "access %d %d 1 %d 8 %s 0 2\n", 10000 * k + t,
				t % 2, (k * 64) % 4096, k % 4 ? "r" : "w"
			printf "access %d %d 2 %d 8 w 0 2\n", 10000 * k + 5000 + t,
				t % 2, (t * 8) % 4096
		}
	}' >"${3%.hpcrun}.hpcshare" &&
	syn_data_edit
}
syn_share_profiles() {
	syn_variant "$1" "$2" syn-share syn_share_edit
}

# syn_sync_profiles COUNT NODES: syn-sync/ holds syn_profiles' profiles as
# hpcrun files them for threads that meet at 16 barriers (node ids 4, 6,
# ..., 34 the calls) and take a mutex (node 36): a per-phase subtree, the
# tree's first 5/8 again below ^Phases -> S0000001 (its values too; node
# ids dense, as hpcrun's), and a .hpcsync file beside each (written
# first), with 256 episodes kept.
syn_sync_edit() {
	awk -v t="$1" -v n="$4" 'BEGIN {
		printf "hpcsync: 1\nthread: %d\nrank: 0\n", t
		for (k = 1; k <= 16; k++)
			printf "site %d barrier 0x%x %d %d\n", k, 28672 + k, 2 * k + 2, n
		print "site 17 mutex 0x6010 36 0"
		for (k = 1; k <= 16; k++)
			printf "sync %d 16 %.9f 0.001000000 %d %d,%d\n", k,
				(t % 7 + k) / 1024, (t + k) % 2, 8, 8
		printf "lock 17 100 %d %.9f\n", 10 + t % 5, (t % 3) / 8
		printf "phase 0 1 1 0.125000000 0.125000000\n"
		for (k = 1; k < 16; k++)
			printf "phase %d %d 16 %.9f 0.500000000\n", k, k + 1,
				(t % 5 + k) / 64
		for (e = 0; e < 256; e++)
			printf "episode %d %d %d %d %d %d %d %d\n", e % 16 + 1,
				int(e / 16), 1000000 * e + t, 1000000 * e + 900000,
				1000000 * e + 500000, t % 8, 1000 * e, 1000 * e + 10
		printf "episodes: 256 256\n"
	}' >"${3%.hpcrun}.hpcsync" &&
	awk -v n="$2" '
	BEGIN { m = int(n * 5 / 8); ph = 2 * n + 2; off = ph + 2 }
	{ print }
	/^node / && $2 <= 2 * m {
		nd[++k] = sprintf("node %d %d 1 %s", $2 + off,
			$3 ? $3 + off : off, $5) }
	/^value / && $2 <= 2 * m {
		v[++nv] = sprintf("value %d %s %s", $2 + off, $3, $4) }
	END {
		print "node " ph " 0 0 ^Phases "
		print "node " off " " ph " 0 S0000001"
		for (i = 1; i <= k; i++) print nd[i]
		for (i = 1; i <= nv; i++) print v[i]
	}'
}
syn_sync_profiles() {
	syn_variant "$1" "$2" syn-sync syn_sync_edit
}

# bench_run KEY CMD...: runs CMD once (its output dropped, a measurement
# directory m/ removed first) and appends "WALL CPU" seconds to KEY.t, CPU
# the user + system time of CMD and its children (/usr/bin/time).
bench_run() {
	bench_key=$1
	shift
	rm -rf m
	/usr/bin/time -f "%e %U %S" -o bench.one "$@" >/dev/null 2>&1
	awk '{ print $1, $2 + $3 }' bench.one >>"$bench_key.t"
}

# bench_median KEY FIELD: the median of field FIELD (1 wall, 2 CPU) of
# KEY.t (an even count: the mean of the middle two).
bench_median() {
	awk -v f="$2" '{ print $f }' "$1.t" | sort -g | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
