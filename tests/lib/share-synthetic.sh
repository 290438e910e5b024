#!/bin/sh
# share-synthetic.sh - in the current directory, the data-centric
# measurement of data-synthetic.sh (t313x), with thread 1 touching sarr
# too, and a hand-written .hpcshare file beside each profile (contract:
# hpcrun(5), Sharing files), for the hpcprof (t316x) and viewer (t407x)
# sharing tests.  Topology: virtual, node 0 = CPU 0, node 1 = CPU 1;
# thread 0 runs on CPU 0, thread 1 on CPU 1.  Each file's accesses come
# in 9 rounds 10 us apart, the first touches in the first round only, so
# that every line has the evidence a label needs (hpcprof/sharing.h,
# invariant 3); the files have no span (both threads alive throughout).
# The truth:
#   sarr [vars] (static, start 0x601000): line 0 written by thread 0 at
#     bytes 0-7 and thread 1 at bytes 8-15 -> false-sharing; lines at
#     offsets 128 and 192 one thread each.  Page 0x601000 first touched by
#     thread 0: of the 35 accesses that are not first touches, thread 1's
#     18 are remote -> 51.4%.
#   b (heap, alloc_b): block 0x10000 written by thread 0, read by thread
#     1, written by thread 0 again -> producer-consumer; block 0x30000
#     (alignment 0): thread 0 writes bytes 48-63, thread 1 bytes 64-79 ->
#     private lines, latent false sharing at alignments 16, 32, 48.
#     Remote: 18 of 43 -> 41.9%.
#   a (heap, alloc_a, thread 0 only, start 0x20010) -> private, 0.0% (of
#     17).
set -e
sh "$(dirname "$0")/data-synthetic.sh"
SARR=$(nm vars | awk '$3 == "sarr" { sub(/^0+/, "", $1); print $1 }')
{
	cat t1.spec
	cat <<-EOT
	node 30 0 0 ^Static
	node 31 30 1 $SARR 2
	value 31 1 8000
	value 31 2 1
	node 32 31 0 ^Access
	node 33 32 1 1035
	node 34 33 1 4035
	value 34 0 1
	EOT
} >t1s.spec
rm -f data/prog-000000-001-00001234-10-0.hpcrun
./mkprofile data/prog-000000-001-00001234-10-0.hpcrun <t1s.spec
# rounds: the access lines of stdin again 8 times, 10 us apart each
# time, none a first touch, before the lines that follow them.
rounds() {
	awk '$1 == "access" { a[n++] = $0; print; next }
	     !n { print; next }
	     { tail[m++] = $0 }
	     END {
		for (r = 1; r <= 8; r++)
			for (i = 0; i < n; i++) {
				split(a[i], f, " ")
				print "access", f[2] + 10000 * r, f[3], f[4], f[5], f[6], f[7], 0, f[9]
			}
		for (i = 0; i < m; i++) print tail[i]
	     }'
}
head() {
	cat <<-EOT
	hpcshare: 1
	thread $1
	rank -1
	topology virtual 2
	node 0 0
	node 1 1
	page-size 4096
	object 1 static 0x601000 8000 31
	object 2 heap 0x10000 8192 22
	object 3 heap 0x30000 128 22
	EOT
}
{
	head 0
	cat <<-EOT
	object 4 heap 0x20010 4096 12
	access 1000 0 1 0 8 w 1 34
	access 1010 0 2 0 8 w 1 25
	access 1020 0 3 48 16 w 1 25
	access 1030 0 4 0 8 r 1 15
	access 1040 0 4 8 8 u 0 15
	access 1200 0 2 0 8 w 0 25
	access 1300 0 1 128 8 w 0 34
	EOT
} | rounds >data/prog-000000-000-00001234-10-0.hpcshare
{
	head 1
	cat <<-EOT
	access 1005 1 1 8 8 w 0 34
	access 1100 1 2 0 8 r 0 25
	access 1150 1 3 64 16 w 0 25
	access 1310 1 1 192 8 w 0 34
	EOT
	echo dropped 1
} | rounds >data/prog-000000-001-00001234-10-0.hpcshare
