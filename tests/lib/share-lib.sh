# share-lib.sh: helpers of the sharing tests (t110x, t3161) on
# tests/progs/rt-sharing.c.  Sourced after test-lib.sh.

# build_rt_sharing: ./rt-sharing, not position-independent, as its header
# says.
build_rt_sharing() {
	cc -O1 -g -pthread -no-pie -fno-pie -o rt-sharing "$TEST_PROGS/rt-sharing.c"
}

# share_label DB NAME: the labels of the objects of DB/sharing.tsv whose
# name is NAME or starts with "NAME " (a heap object: its allocation
# paths, alloc_private is one from main and one from a thread), once each,
# comma-separated.
share_label() {
	awk -F'\t' -v n="$2" '$1 == "object" && ($14 == n || index($14, n " ") == 1) { print $3 }' \
		"$1/sharing.tsv" | sort -u | paste -sd, -
}

# share_field DB NAME COLUMN: that column of those objects' rows.
share_field() {
	awk -F'\t' -v n="$2" -v c="$3" '$1 == "object" && ($14 == n || index($14, n " ") == 1) { print $c }' \
		"$1/sharing.tsv"
}

# thread_split DIR: "T0 T1 PCT" for rt-sharing numa: the accesses (FIRST
# 0) of its 4 MiB block that threads 0 and 1 made, and thread 1's share of them in percent
# (integer).  When thread 0 first-touched every page (node 0) and the
# threads ran pinned to CPUs 0 and 1 (nodes 0 and 1), exactly thread 1's
# accesses are remote: how many each thread makes depends on the
# scheduler, not on hpcrun.
thread_split() {
	awk '$1 == "thread" { t = $2 } $1 == "object" && $5 == 4194304 { big[$2] = 1 }
	     $1 == "access" && $8 == 0 && ($4 in big) { n[t]++ }
	     END { s = n[0] + n[1]; printf "%d %d %d\n", n[0], n[1], s ? int(100 * n[1] / s) : -1 }' "$1"/*.hpcshare
}
