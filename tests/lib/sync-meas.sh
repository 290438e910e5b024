#!/bin/sh
# sync-meas.sh DIR [kinds] - write a hand-made measurement of a barrier
# loop with known synchronization data into DIR (profiles from
# ./mkprofile, which the caller builds with build_mkprofile; .hpcsync
# files as hpcrun(5) gives them), and DIR/prog.hpcstruct, for t3150
# (hpcprof) and t4060 (viewer).
#
# prog.c: worker (line 20) loops (line 22) over a call of
# pthread_barrier_wait (line 23, the call instruction at 0x2014) and
# compute (line 24, 0x2025).  Two threads of process 42; four episodes
# kept of 10.  Every value below is exact:
#   thread 0: wait 0.5 s, completion 0.01 s, last 2 of 10, orders 8,2,
#             work 0.1 s (thread start to site 1) + 2.0 s (site 1 to 1)
#   thread 1: wait 0.1 s, completion 0.01 s, last 8 of 10, orders 2,8,
#             work 0.3 s + 2.4 s
#   thread 0 also waited 0.25 s for mutex 0x6010 in 3 of 5 calls (line 21)
# Samples (cycles): thread T has 30+T at line 24 under ^Primary, and the
# same samples under ^Phases: 20+T in the phase after site 1 and 10 in the
# one from start.
# With "kinds", the phases are kept by kind as hpcrun writes them
# (hpcrun(5)): below S0000001, E0000001 (the phases from the loop's
# barrier to itself: 10+T samples at line 24), E0000003 (to a barrier
# called at line 21, site 3, one episode of 0.05 s of work: 5 samples at
# line 21) and 5 samples right below it, the phase cut short by the
# thread's end; eight phases from site 1 to itself.
set -e
. "$(dirname "$0")/structure.sh"
d=${1:?usage: sync-meas.sh DIR [kinds]}
if [ "$2" = kinds ]; then
	phases="node 10 8 0 S0000001
node 18 10 0 E0000001
node 12 18 1 2025
node 20 10 0 E0000003
node 22 20 1 2005
node 24 10 1 2025
node 14 8 0 S0000000
node 16 14 1 2005
value 12 0 1%s
value 22 0 5
value 24 0 5
value 16 0 10"
	kind3="site 3 barrier 0x7f08 7 2
sync 3 1 0.010000000 0.000000000 0 1,0
phase 1 3 1 0.050000000 0.050000000
phase 1 1 8"
else
	phases="node 10 8 0 S0000001
node 12 10 1 2025
node 14 8 0 S0000000
node 16 14 1 2005
value 12 0 2%s
value 16 0 10"
	kind3="phase 1 1 9"
fi
mkdir -p "$d"
structure_file /nonexistent/prog /src/prog.c >"$d/prog.hpcstruct" <<-\EOF
<P i="3" n="worker" l="20" v="{[0x2000-0x2001)}">
<S i="4" l="21" v="{[0x2000-0x2010)}"/>
<L i="5" l="22" f="/src/prog.c" v="{[0x2010-0x2011)}">
<S i="6" l="23" v="{[0x2010-0x2020)}"/>
<S i="7" l="24" v="{[0x2020-0x2030)}"/>
</L>
</P>
EOF
for t in 0 1; do
	./mkprofile "$d/prog-000000-00$t-0-42-0.hpcrun" <<-EOF
	header program-name prog
	header process-id 42
	lm 1 /nonexistent/prog
	metric cycles int
	thread $t
	node 2 0 0 ^Primary
	node 4 2 1 2025
	node 6 2 1 2014
	node 7 2 1 2008
	node 8 0 0 ^Phases 
	value 4 0 3$t
	$(printf "$phases" $t)
	EOF
done
cat >"$d/prog-000000-000-0-42-0.hpcsync" <<-EOF
hpcsync: 1
thread: 0
rank: 0
site 1 barrier 0x7f00 6 2
site 2 mutex 0x6010 7 0
sync 1 10 0.500000000 0.010000000 2 8,2
lock 2 5 3 0.250000000
phase 0 1 1 0.100000000 0.100000000
$kind3 2.000000000 2.500000000
episode 1 0 1000 3000 2000 0 100 150
episode 1 1 5000 5100 5000 1 400 420
episodes: 2 10
EOF
cat >"$d/prog-000000-001-0-42-0.hpcsync" <<-EOF
hpcsync: 1
thread: 1
rank: 0
site 1 barrier 0x7f00 6 2
sync 1 10 0.100000000 0.010000000 8 2,8
phase 0 1 1 0.300000000 0.300000000
$kind3 2.400000000 2.500000000
episode 1 0 2000 3000 2000 1 300 310
episode 1 1 4000 5100 5000 0 500 510
episodes: 2 10
EOF
