#!/bin/sh
# data-synthetic.sh - in the current directory, a synthetic data-centric
# measurement with known values (contract: hpcrun(5), Data-centric
# roots and metrics), for the hpcprof (t313x) and viewer (t405x) data-view tests.
# Needs ./mkprofile (build_mkprofile) and cc.  Writes:
#   vars        a real ELF whose symbol table names the static array sarr
#   prog.hpcstruct  main (calls alloc_a line 12, alloc_b line 13, work
#               line 14), alloc_a (malloc call line 21), alloc_b (line 31),
#               work: line 41, loop at line 42 over lines 43, 44, 45
#   data/       two thread profiles with data roots (data-centric 1)
#   plain/      the same samples, all under ^Primary (as without --data)
# Values (cycles): thread 0: line 41 non-memory 4; line 43 a (heap, alloc_a)
# 20; line 44 b (heap, alloc_b) 30; line 45 sarr (static) 10; line 41
# stack 5; line 43 unknown 3; line 44 address not computed 2.  Thread 1:
# line 44 b 10.  Totals: code 84, with an address 78 (heap 60: b 40, a 20;
# static 10; stack 5; unknown 3), no address 2, no memory operand 4.
# a: 4096 bytes in 1 block, offsets [0, 4096); b: 8192 + 8192 bytes in
# 2 + 2 blocks, offsets [8, 800) and [0, 16384) -> [0, 16384), 2 threads;
# sarr: 8000 bytes, 1 block, offsets [0, 8000).
set -e
. "$(dirname "$0")/structure.sh"
printf 'double sarr[1000];\nint main(void) { return (int)sarr[0]; }\n' >vars.c
cc -O0 -o vars vars.c
SARR=$(nm vars | awk '$3 == "sarr" { sub(/^0+/, "", $1); print $1 }')
VARS=$PWD/vars
structure_file "$VARS" /src/prog.c >prog.hpcstruct <<EOT
<P i="3" n="main" l="10" v="{[0x1000-0x1001)}">
<S i="4" l="11" v="{[0x1000-0x1010)}"/>
<C i="5" l="12" v="{[0x1010-0x1020)}"/>
<C i="6" l="13" v="{[0x1020-0x1030)}"/>
<C i="7" l="14" v="{[0x1030-0x1040)}"/>
</P>
<P i="8" n="alloc_a" l="20" v="{[0x2000-0x2001)}">
<C i="9" l="21" v="{[0x2000-0x2010)}"/>
</P>
<P i="10" n="alloc_b" l="30" v="{[0x3000-0x3001)}">
<C i="11" l="31" v="{[0x3000-0x3010)}"/>
</P>
<P i="12" n="work" l="40" v="{[0x4000-0x4001)}">
<S i="13" l="41" v="{[0x4000-0x4010)}"/>
<L i="14" l="42" f="/src/prog.c" v="{[0x4010-0x4011)}">
<S i="15" l="43" v="{[0x4010-0x4020)}"/>
<S i="16" l="44" v="{[0x4020-0x4030)}"/>
<S i="17" l="45" v="{[0x4030-0x4040)}"/>
</L>
</P>
EOT
head() {
	cat <<-EOT
	header program-name prog
	header data-centric 1
	header data-min-bytes 1024
	lm 1 $VARS
	metric cycles int
	metric DATA:bytes int
	metric DATA:blocks int
	metric DATA:offset-lo int
	metric DATA:offset-hi int
	thread $1
	EOT
}
# b, allocated by alloc_b called from main, 8192 bytes in 2 blocks, then its
# ^Access node (23).
heap_b() {
	cat <<-EOT
	node 20 0 0 ^Heap
	node 21 20 1 1025
	node 22 21 1 3005
	value 22 1 8192
	value 22 2 2
	node 23 22 0 ^Access
	EOT
}
{
	head 0
	cat <<-EOT
	node 1 0 0 ^Primary
	node 2 1 1 1035
	node 3 2 1 4005
	value 3 0 4
	node 10 0 0 ^Heap
	node 11 10 1 1015
	node 12 11 1 2005
	value 12 1 4096
	value 12 2 1
	node 13 12 0 ^Access
	value 13 3 1
	value 13 4 4096
	node 14 13 1 1035
	node 15 14 1 4015
	value 15 0 20
	EOT
	heap_b
	cat <<-EOT
	value 23 3 9
	value 23 4 800
	node 24 23 1 1035
	node 25 24 1 4025
	value 25 0 30
	node 30 0 0 ^Static
	node 31 30 1 $SARR 2
	value 31 1 8000
	value 31 2 1
	node 32 31 0 ^Access
	value 32 3 1
	value 32 4 8000
	node 33 32 1 1035
	node 34 33 1 4035
	value 34 0 10
	node 40 0 0 ^Stack
	node 41 40 0 ^Access
	node 42 41 1 1035
	node 43 42 1 4006
	value 43 0 5
	node 50 0 0 ^Unknown
	node 51 50 0 ^Access
	node 52 51 1 1035
	node 53 52 1 4016
	value 53 0 3
	node 60 0 0 ^NoAddr
	node 61 60 1 1035
	node 62 61 1 4026
	value 62 0 2
	EOT
} >t0.spec
{
	head 1
	cat <<-EOT
	EOT
	heap_b
	cat <<-EOT
	value 23 3 1
	value 23 4 16384
	node 24 23 1 1035
	node 25 24 1 4025
	value 25 0 10
	EOT
} >t1.spec
# The same samples as a run without --data would file them.
{
	head 0 | grep -v "DATA:\|header data-"
	cat <<-EOT
	node 1 0 0 ^Primary
	node 2 1 1 1035
	node 3 2 1 4005
	value 3 0 4
	node 15 2 1 4015
	value 15 0 20
	node 25 2 1 4025
	value 25 0 30
	node 34 2 1 4035
	value 34 0 10
	node 43 2 1 4006
	value 43 0 5
	node 53 2 1 4016
	value 53 0 3
	node 62 2 1 4026
	value 62 0 2
	EOT
} >p0.spec
{
	head 1 | grep -v "DATA:\|header data-"
	cat <<-EOT
	node 1 0 0 ^Primary
	node 2 1 1 1035
	node 25 2 1 4025
	value 25 0 10
	EOT
} >p1.spec
mkdir -p data plain
./mkprofile data/prog-000000-000-00001234-10-0.hpcrun <t0.spec
./mkprofile data/prog-000000-001-00001234-10-0.hpcrun <t1.spec
./mkprofile plain/prog-000000-000-00001234-10-0.hpcrun <p0.spec
./mkprofile plain/prog-000000-001-00001234-10-0.hpcrun <p1.spec
