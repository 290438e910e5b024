# sync-lib.sh: helpers of the synchronization tests (t109x), which read the
# .hpcsync files hpcrun(5) describes.  Sourced after test-lib.sh.

# site_of DIR KIND: the id of the site of KIND with the most episodes.
site_of() {
	cat "$1"/*.hpcsync | awk -v k="$2" '
		$1 == "site" && $3 == k { want[$2] = 1 }
		$1 == "sync" && want[$2] { n[$2] += $3 }
		END { for (s in n) if (n[s] > best) { best = n[s]; id = s } print id }'
}

# sync_line DIR THREAD SITE: "EPISODES WAIT COMPLETION LAST ORDERS" of
# THREAD (its index) at SITE.
sync_line() {
	awk -v s="$3" '$1 == "sync" && $2 == s { print $3, $4, $5, $6, $7 }' \
		"$1"/*-$(printf %03d "$2")-*.hpcsync
}

# lasts_right DIR SITE T OUT: how many episodes of SITE had as their last
# arriver (ORDER T-1 in the episode records) the thread the program saw
# arrive last (its "lastof" line in OUT), and how many episodes.
lasts_right() {
	{ sed -n "s/^lastof //p" "$4"; cat "$1"/*.hpcsync; } | awk -v s="$2" -v t="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) truth[i - 1] = $i; next }
		$1 == "thread:" { th = $2 }
		$1 == "episode" && $2 == s && $7 == t - 1 { n++; if (th == truth[$3]) ok++ }
		END { print ok + 0, n + 0 }'
}

# last_counts_right DIR SITE T OUT: each thread's LAST at SITE is within 1
# of the rounds the program saw it arrive last ("last" line of OUT).
last_counts_right() {
	set -- "$1" "$2" "$3" "$(sed -n "s/^last //p" "$4")"
	i=0
	for want in $4; do
		got=$(sync_line "$1" $i "$2" | cut -d" " -f4) &&
		test_within "$got" "$want" 1 || return 1
		i=$((i + 1))
	done
}

# consistent DIR SITE: each thread's sync WAIT and COMPLETION are the sums
# of its kept episode records (all kept), and the last arriver of every
# episode waited nothing.
consistent() {
	for f in "$1"/*.hpcsync; do
		awk -v s="$2" '
			$1 == "sync" && $2 == s { w = $4; c = $5; e = $3 }
			$1 == "episode" && $2 == s { sw += ($6 - $4) / 1e9; sc += ($5 - $6) / 1e9; k++
				if ($4 > $6) bad++ }
			END { d1 = w - sw; d2 = c - sc; if (d1 < 0) d1 = -d1; if (d2 < 0) d2 = -d2
				exit !(k == e && d1 < 1e-6 && d2 < 1e-6 && !bad) }' "$f" || {
			echo "inconsistent: $f" >&2; return 1; }
	done
}

# work_of DIR THREAD SITE: the thread CPU seconds of its phases from SITE
# to SITE (the first phase, from the thread's start, holds start-up work).
work_of() {
	awk -v s="$3" '$1 == "phase" && $2 == s && $3 == s { w += $5 } END { printf "%.6f\n", w }' \
		"$1"/*-$(printf %03d "$2")-*.hpcsync
}

# mpi_lasts_right DIR SIZE: how many MPI_Barrier episodes had rank N % SIZE
# arriving last (the latest ARRIVE of the ranks' main threads: one host,
# one CLOCK_MONOTONIC), and how many episodes.  Site ids are per process.
mpi_lasts_right() {
	cat "$1"/*-000-*.hpcsync | awk -v z="$2" '
		$1 == "rank:" { rk = $2 }
		$1 == "site" && $3 == "mpi-barrier" { s[rk] = $2 }
		$1 == "episode" && $2 == s[rk] { if ($4 > t[$3]) { t[$3] = $4; who[$3] = rk } }
		END { for (e in t) { n++; if (who[e] == e % z) ok++ } print ok + 0, n + 0 }'
}
