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

# share_evidence DIR: "CONCURRENT ACCESSES" of the object of DIR's
# .hpcshare files with the most accesses: how many of its accesses have an
# access of another thread within SHARE_WINDOW_NS (10 ms), the only ones
# a line's label counts (hpcprof/sharing.h, invariant 3), and how many it
# has.  A program whose threads ran at once has most of its accesses
# concurrent, idle machine or busy; on a machine busy with other work its
# threads seldom run at once, and a cheap access sampled a few times a
# second of wall time seldom has another thread's within the window, for
# as long as it runs.
share_evidence() {
	awk '$1 == "access" { print $2, FILENAME, $4 }' "$1"/*.hpcshare |
	sort -n -k1,1 |
	awk '{ n++; t[n] = $1; th[n] = $2; oid[n] = $3; cnt[$3]++ }
		END {
			for (k in cnt) if (top == "" || cnt[k] > cnt[top]) top = k
			for (i = 1; i <= n; i++) {
				if (oid[i] != top) continue
				c = 0
				for (j = i - 1; j >= 1 && t[i] - t[j] <= 10000000; j--)
					if (th[j] != th[i]) { c = 1; break }
				for (j = i + 1; !c && j <= n && t[j] - t[i] <= 10000000; j++)
					if (th[j] != th[i]) c = 1
				conc += c
			}
			printf "%d %d\n", conc, cnt[top]
		}'
}

# share_unproven DIR GOT: in the last run of retry, DIR's threads ran at
# once for too little of it to show sharing (share_evidence: under half of
# the accesses concurrent), and the label in file GOT claims none (private,
# too few samples): the absence of evidence, never a wrong label.  Says so.
share_unproven() {
	test "$retry_run" = "$retry_runs" &&
	set -- $(share_evidence "$1") "$(cat "$2")" &&
	test $((2 * $1)) -lt "$2" &&
	case $3 in private|too-few-samples) ;; *) false ;; esac &&
	echo "$1 of $2 accesses concurrent: its threads seldom ran at once; $3 is all that shows"
}
