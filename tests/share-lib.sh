# share-lib.sh: helpers of the sharing tests (t110x), which read the
# .hpcshare files hpcrun(5) describes.  Sourced after test-lib.sh.

# build_rt_sharing: ./rt-sharing, not position-independent, so that a static
# variable's START is its address in nm, and its nm listing in rt-sharing.nm.
build_rt_sharing() {
	cc -O1 -g -pthread -no-pie -fno-pie -o rt-sharing "$TEST_PROGS/rt-sharing.c" &&
	nm -S --defined-only rt-sharing | sort >rt-sharing.nm
}

# share_flat DIR: every access of the .hpcshare files in DIR as one line
#   THREAD NAME RW OFFSET FIRST CPU TIME SIZE PATH START PAGE
# NAME: a static's symbol, a heap block's allocating function (the
# function of its object node in the thread's profile), "?" when unknown.
# PATH: "ok" when the access node lies below the object node in the
# thread's profile, "none" for node 0, "bad" otherwise (hpcprof --dump).
# PAGE: the index of the access's page among the object's pages.
share_flat() {
	for f in "$1"/*.hpcshare; do
		hpcprof --dump "${f%.hpcshare}.hpcrun" >"$f.dump" || return 1
		awk -f "$TEST_DIRECTORY/share-flat.awk" rt-sharing.nm "$f.dump" "$f" || return 1
	done
}

# share_check DIR: every .hpcshare in DIR well formed as hpcrun(5) says
# (header lines, objects before their accesses, OFFSET < BYTES, RW, FIRST,
# times in order, summary last); prints what is wrong.
share_check() {
	for f in "$1"/*.hpcshare; do
		awk '
		NR == 1 { if ($0 != "hpcshare: 1") bad("header") ; next }
		/^#/ { next }
		$1 == "thread" || $1 == "rank" || $1 == "page-size" || $1 == "sampling" ||
		$1 == "topology" || $1 == "node" { seen[$1] = 1; next }
		$1 == "object" { if (NF != 6 || $2 in obj || ($3 != "heap" && $3 != "static") ||
				     $4 !~ /^0x[0-9a-f]+$/ || $5 < 1) bad("object"); obj[$2] = $5; next }
		$1 == "access" { if (NF != 9 || !($4 in obj) || $5 >= obj[$4] || $5 < 0 ||
				     $6 > 64 || $7 !~ /^[rwu]$/ || $8 !~ /^[01]$/ || $2 < last)
					bad("access"); last = $2; n++; next }
		$1 == "summary" { if (NF != 5) bad("summary"); done = NR; next }
		{ bad("unknown keyword") }
		function bad(w) { print FILENAME ": line " NR ": " w ": " $0; err = 1 }
		END { if (done != NR) bad("summary not last");
		      if (!seen["thread"] || !seen["topology"] || !seen["node"] ||
			  !seen["page-size"] || !seen["sampling"]) bad("header lines missing");
		      if (!n) bad("no access"); exit err }' "$f" || return 1
	done
}

# thread_split DIR: "T0 T1 PCT" for rt-sharing numa: the accesses after the
# first touch (FIRST 0) that threads 0 and 1 made, and thread 1's share of
# them in percent (integer).  When thread 0 first-touched every page (node
# 0) and the threads ran pinned to CPUs 0 and 1 (nodes 0 and 1), exactly
# thread 1's accesses are remote: how many each thread makes depends on
# the scheduler, not on hpcrun.
thread_split() {
	awk '$1 == "thread" { t = $2 } $1 == "access" && $8 == 0 { n[t]++ }
	     END { s = n[0] + n[1]; printf "%d %d %d\n", n[0], n[1], s ? int(100 * n[1] / s) : -1 }' "$1"/*.hpcshare
}
