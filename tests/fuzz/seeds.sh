#!/bin/sh
# seeds.sh [NAME...] - how the seeds of corpus-NAME/ were made (default:
# every corpus).  Rebuilds them in place; HPC_BUILD (default build/) names
# the build whose tools make those of hpcrun-fmt, structfile and
# experiment.  The readers' harnesses also get the files of tests/data
# they read, at run time (run-fuzz.sh), so those are not copied here.
#
# hpcstruct: the compiled seeds, from tests/progs with the commands below
# (gcc 12 and clang 14 of Debian bookworm made the checked-in ones; another
# compiler gives other bytes, which is fine for a seed).  -z noseparate-code keeps each binary a few KB
# instead of one 4 KB page per segment.  The seeds found by fuzzing, named
# after what they exercise, are listed at the end; they are kept as they
# are and not rebuilt.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$here/../progs
HPC_BUILD=${HPC_BUILD:-$here/../../build}

seeds_hpcstruct() {
	small=-Wl,-z,noseparate-code

	gcc -O2 -g $small -o nests-gcc-O2 "$src/st-nests.c"
	strip -o nests-gcc-O2-stripped nests-gcc-O2
	gcc -O2 -g -gz $small -o nests-gcc-O2-zdebug "$src/st-nests.c"
	gcc -O2 -g -gsplit-dwarf $small -o nests-gcc-O2-split "$src/st-nests.c"
	rm -f ./*.dwo
	gcc -O2 -g $small -o control-gcc-O2 "$src/st-control.c"
	gcc -O2 -g -fcf-protection $small -Wl,-z,ibtplt -o control-gcc-O2-ibtplt \
		"$src/st-control.c"
	strip -o control-gcc-O2-stripped control-gcc-O2
	clang -O2 -g $small -o control-clang-O2 "$src/st-control.c"
	gcc -O2 -g $small -o inline-gcc-O2 "$src/st-inline.c"
	gcc -O2 -gdwarf-4 $small -o inline-gcc-O2-dwarf4 "$src/st-inline.c"
	clang -O2 -g $small -o inline-clang-O2 "$src/st-inline.c"
	gcc -O2 -g $small -o outlier-gcc-O2 "$src/st-outlier.c"
	gcc -O2 -g -shared -fPIC $small -o dso-gcc-O2.so "$src/rt-dso.c"
	# cut inside the section contents, and inside the section headers
	head -c 6000 nests-gcc-O2 >nests-gcc-O2-cut6000
	size=$(wc -c <inline-gcc-O2)
	head -c $((size - 300)) inline-gcc-O2 >inline-gcc-O2-cut-shdrs

	chmod 644 ./*
}

# Inputs that showed bugs, each fixed (tests in t2001):
#   found-pltgot-over-text   the fuzzer's crash input, a mutated
#                            nests-gcc-O2-split whose .plt.got grew to 0x800
#                            bytes over .text: a PLT "procedure" in no
#                            section (-minimize_crash found nothing smaller)
#   found-latin1-symbol      nests-gcc-O2 with the symbol nest4 renamed
#                            "ne\351t4" (Latin-1) by hand: the structure
#                            file was not UTF-8, libxml2 refused it (the
#                            harness's well-formedness check catches it)
#   found-index-no-ranges    the fuzzer's crash input (CI, once hpcstruct
#                            wrote procedure indexes): a binary of no
#                            procedures, whose index has no ranges; their
#                            sort passed qsort a NULL array (UBSan)

# hpcrun-fmt: small profiles written by lib/hpcrun-fmt-write.c
# (tests/progs/pf-mkprofile.c): two metrics on a 4-node tree, and one with
# a placeholder node (load module 0), a real-valued metric and a thread id.
seeds_hpcrun_fmt() {
	cc -I"$here/../../lib" -o mkprofile "$src/pf-mkprofile.c" \
		"$HPC_BUILD/obj/libhpc.a"
	printf "header program-name prog\nheader path /bin/prog\nlm 1 /bin/prog\nlm 2 /lib/libc.so.6\nmetric cycles int\nmetric instr int\nnode 2 0 1 1005\nnode 4 2 1 2005\nnode 6 4 2 30\nnode 8 2 2 40\nvalue 4 0 300\nvalue 4 1 7\nvalue 6 1 50\nvalue 8 0 100\n" |
		./mkprofile two-metrics-000000-000-0-0-0.hpcrun
	printf "header program-name p\nlm 1 /p\nmetric CPUTIME real\nthread 3\nnode 2 0 0 00000001\nnode 4 2 1 10\nvalue 4 0 0.25\n" |
		./mkprofile placeholder-real-000000-003-0-0-0.hpcrun
	rm -f mkprofile
}

# structfile: a hand-written structure file (every kind of scope), and
# hpcstruct's for st-nests.c (gcc -O1 -g).
seeds_structfile() {
	cat >all-scopes.hpcstruct <<-\EOT
	<?xml version="1.0"?>
	<HPCToolkitStructure i="0" version="4.9" n="">
	<LM i="1" n="/nonexistent/prog" has-calls="1" v="{}">
	<F i="2" n="/src/prog.c">
	<P i="3" n="main" ln="main" l="2" v="{[0x1000-0x1001)}">
	<S i="4" l="3" v="{[0x1000-0x1010)}"/>
	<C i="5" l="4" v="{[0x1010-0x1015)}"/>
	</P>
	<P i="6" n="work" l="5" v="{[0x2000-0x2001)}">
	<L i="8" l="6" f="/src/prog.c" v="{[0x2010-0x2011)}">
	<S i="9" l="7" v="{[0x2000-0x2020) [0x2030-0x2040)}"/>
	<A i="10" l="8" f="/src/inl.h" n="helper" v="{}">
	<S i="11" l="12" v="{[0x2020-0x2030)}"/>
	</A>
	</L>
	</P>
	</F>
	</LM>
	</HPCToolkitStructure>
	EOT
	gcc -O1 -g -o nests "$src/st-nests.c"
	"$HPC_BUILD/bin/hpcstruct" -o nests-gcc-O1.hpcstruct nests
	rm -f nests
}

# config: metric configurations with every element of hpcprof-config.dtd.
seeds_config() {
	cat >file-compute.xml <<-\EOT
	<?xml version="1.0"?>
	<HPCPROF>
	  <TITLE name="cpi study"/>
	  <PATH name="/src"/>
	  <REPLACE in="/build" out="/src"/>
	  <STRUCTURE name="prog.hpcstruct"/>
	  <METRIC name="cyc" displayName="Cycles"><FILE name="run-a" select="cycles"/></METRIC>
	  <METRIC name="ins" displayName="Instructions" display="false"><FILE name="run-b" select="0"/></METRIC>
	  <METRIC name="cpi" displayName="CPI" percent="false">
	    <COMPUTE><math><apply><divide/><ci>cyc</ci><ci>ins</ci></apply></math></COMPUTE>
	  </METRIC>
	</HPCPROF>
	EOT
	cat >mathml-ops.xml <<-\EOT
	<?xml version="1.0"?>
	<HPCVIEW>
	  <METRIC name="all" displayName="all"><FILE name="m"/></METRIC>
	  <METRIC name="x" displayName="X">
	    <COMPUTE><math><apply><minus/><apply><times/><cn>2</cn><ci>all</ci></apply>
	      <apply><power/><cn>2</cn><cn>3</cn></apply></apply></math></COMPUTE>
	  </METRIC>
	  <METRIC name="y" displayName="Y">
	    <COMPUTE><math><apply><plus/><apply><minus/><apply><max/><ci>all</ci><ci>x</ci><cn>1</cn></apply></apply>
	      <apply><min/><ci>x</ci><cn>1e3</cn></apply><apply><mean/><ci>x</ci><ci>all</ci></apply>
	      <apply><sdev/><ci>x</ci><ci>all</ci></apply></apply></math></COMPUTE>
	  </METRIC>
	</HPCVIEW>
	EOT
	cat >doctype.xml <<-\EOT
	<?xml version="1.0"?>
	<!DOCTYPE HPCPROF [ <!ENTITY t "title"> ]>
	<HPCPROF><TITLE name="a &amp; b"/><METRIC name="m"><FILE name="d"/></METRIC></HPCPROF>
	EOT
}

# experiment: hpcprof's database of the hpcrun-fmt and structfile seeds
# (the viewer's own small-db comes from tests/data at run time).
seeds_experiment() {
	mkdir -p meas.tmp
	cp "$here/corpus-hpcrun-fmt/two-metrics-000000-000-0-0-0.hpcrun" meas.tmp/
	sed "s|/nonexistent/prog|/bin/prog|" "$here/corpus-structfile/all-scopes.hpcstruct" >meas.tmp/prog.hpcstruct
	"$HPC_BUILD/bin/hpcprof" -S meas.tmp/prog.hpcstruct -o db.tmp \
		--metric "r=cycles/instr" meas.tmp
	cp db.tmp/experiment.xml two-metrics-experiment.xml
	rm -rf meas.tmp db.tmp
}

# kallsyms: a kernel symbol list in the format of /proc/kallsyms (global,
# local, weak, data and module symbols, shared addresses, a hidden one at
# 0), plain and XZ-compressed (the fixture's is larger than a fuzz input).
seeds_kallsyms() {
	cat >plain <<-\EOT
	0000000000000000 T hidden_by_kptr_restrict
	ffffffff81000000 T startup_64
	ffffffff81000000 t _startup_alias
	ffffffff81000040 W weak_text
	ffffffff81000080 D some_data
	ffffffff810000c0 t __local_helper
	ffffffff810000c0 T local_helper
	ffffffffc0a01000 t foo	[ext4]
	ffffffffc0a01100 T bar	[ext4]
	EOT
	xz -9 -c plain >plain.xz
}

# formula: one formula each, every construct of the grammar.
seeds_formula() {
	printf '%s' 'a+b*2' >arith
	printf '%s' '-(a+b)*min(2,b)^0.5' >unary-power-fn
	printf '%s' '2^-1^a - - b' >power-chain
	printf '%s' 'perf::cpu-clock / {my metric} + $1 - $7' >names
	printf '%s' 'mean(a, b, 0) + sdev(2, 4, 4, 4, 5, 5, 7, 9) + max(1)' >functions
	printf '%s' 'deep + 1.5e1 / .5' >derived-deep
	printf '%s' 'big + big' >derived-big
	printf '%s' '((((a))))-((b))' >parentheses
}

# tsv: databases' per-thread and sharing tables, files cut at form feeds
# (fuzz-tsv.c): threads.tsv of three columns and values; of seven, two
# ranks, with the six synchronization columns; and with a sharing table
# of every row kind (hpcrun --sharing of tests/progs/share-patterns.c).
seeds_tsv() {
	ff=$(printf '\f')
	{
		printf '# thread\tprofile\tidentity\n0\tapp-000.hpcrun\tTHREAD=0\n1\tapp-001.hpcrun\tTHREAD=1\n'
		printf '%s# node\tthread\tmetric\tvalue\n1\t0\t0\t4\n1\t1\t0\t6\n2\t0\t1\t4\n' "$ff"
	} >three-columns
	{
		printf '# thread\tprofile\tidentity\tprogram\tprocess\trank\tthread-id\tsync-wait-s\tsync-completion-s\tsync-episodes\tlast-arrivals\tphase-work-s\tlock-wait-s\n'
		printf '0\tt-0.hpcrun\tNODE=0 RANK=0 THREAD=0\tapp\t100\t0\t0\t0.5\t0.1\t4\t1\t2.0\t0.0\n'
		printf '1\tt-1.hpcrun\tNODE=0 RANK=1 THREAD=0\tapp\t101\t1\t0\t-\t-\t-\t-\t-\t-\n'
		printf '2\tt-2.hpcrun\tNODE=0 RANK=1 THREAD=1\tapp\t-\t1\t1\t0.0\t0.1\t4\t3\t1.5\t0.2\n'
		printf '%s# node\tthread\tmetric\tvalue\n1\t0\t0\t6\n1\t1\t0\t3\n4\t0\t0\t5\n9\t1\t1\t3\n2\t2\t0\t1e-3\n' "$ff"
	} >mpi-sync
	{
		printf '# thread\tprofile\tidentity\tprogram\tprocess\trank\tthread-id\n0\tp-0.hpcrun\tTHREAD=0\tp\t7\t0\t0\n1\tp-1.hpcrun\tTHREAD=1\tp\t7\t0\t1\n2\tp-2.hpcrun\tTHREAD=2\tp\t7\t0\t2\n'
		printf '%s# node\tthread\tmetric\tvalue\n1\t1\t0\t0.1\n' "$ff"
		printf '%s# object\tnode\tlabel\tlatent\tthreads\taccesses\treads\twrites\ttransfers\tremote%%\thomed\tfirst-toucher\tadvice\tname\n' "$ff"
		printf 'object\t14\tfalse-sharing\t16,32,48\t2\t524\t516\t8\t7\t-\t0\t-\t-\tcounters [share-patterns]\n'
		printf '# watched\tnode\nwatched\t14\n'
		printf '# line\tnode\tprocess\tstart\toffset\tlabel\tthread\treads\twrites\tbytes-written\n'
		printf 'line\t14\t0\t0x5575476cd140\t0\tfalse-sharing\t1\t195\t5\t0-7\n'
		printf 'line\t14\t0\t0x5575476cd140\t0\tfalse-sharing\t2\t321\t3\t8-15\n'
		printf '# page\tnode\tprocess\taddress\tlabel\thome\tfirst-toucher\tremote\taccesses-per-node\n'
		printf 'page\t14\t0\t0x5575476cd000\tfalse-sharing\t0\t1\t12\t512,12\n'
	} >sharing
}

# hpctrace: small call-path traces (lib/hpctrace.h): samples, a wait and
# the closing "no activity" record; equal times; and one cut short inside
# its last record.  Octal escapes of three digits, for printf(1).
seeds_hpctrace() {
	hdr='HPCRUN-trace______01.01b\000\000\000\000\000\000\000\000'
	printf "$hdr"'\000\000\000\000\000\000\001\000\000\000\000\005\000\000\000\000\000\000\002\000\200\000\000\007\000\000\000\000\000\000\003\000\000\000\000\000' >samples-wait-end
	printf "$hdr"'\000\000\000\000\000\000\000\012\000\000\000\001\000\000\000\000\000\000\000\012\000\000\000\002' >equal-times
	printf "$hdr"'\000\000\000\000\000\000\000\012\000\000\000\001\000\000\000\000\000' >cut-short
}

# hpcpy: the .hpcpy of the sample's code objects of each CPython
# (tests/data/pyline), written by pf-mkhpcpy with lib/hpcpy-write.c, and
# small hand-made ones.
seeds_hpcpy() {
	cc -I"$here/../../lib" -o mkhpcpy "$src/pf-mkhpcpy.c" "$HPC_BUILD/obj/libhpc.a"
	for v in 10 11 12 13; do
		rm -f sample-3.$v
		./mkhpcpy sample-3.$v <"$here/../data/pyline/3.$v.txt" >/dev/null
	done
	rm -f mkhpcpy
	printf 'hpcpy 01.00\npython 3 12\ncode 0x1 7 4 a%%20b%%25 %% -\n' >escapes
	printf 'hpcpy 01.00\npython 3 11\ncode 0x2 1 0 f x.py f0ff7f\n' >varint-cut
	printf 'hpcpy 01.00\npython 3 10\ncode 0x3 1 8 f x.py 0280047f\n' >pep626
	live_hpcpy >live-3.12
}

# A live code file (hpcpy.h) of Python 3.12 holding two codes, cut after
# its committed bytes as the reader allows.
live_hpcpy() {
	python3 - <<\PY
import struct, sys
def pid(q, f, t, first, n):
    h = 0xcbf29ce484222325
    for part in (q, f, t):
        for b in part + b"\xff":
            h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
    for v in (first, n):
        for b in struct.pack("<Q", v):
            h = ((h ^ b) * 0x100000001b3) & (2**64 - 1)
    h = (h ^ (h >> 38)) & ((1 << 38) - 1)
    return h or 1
recs = b""
for q, f, t, first, n in ((b"f", b"x.py", bytes.fromhex("8000d80c"), 1, 4),
                          (b"C.m", b"dir/y.py", b"", 7, 12)):
    size = (32 + len(q) + len(f) + len(t) + 7) & ~7
    r = struct.pack("<QIIIIII", pid(q, f, t, first, n), size, first, n,
                    len(q), len(f), len(t)) + q + f + t
    recs += r + b"\0" * (size - len(r))
head = b"HPCPY-live______" + struct.pack("<IIII", 0x01020304, 3, 12, 1)
head += struct.pack("<Q", len(recs))
sys.stdout.buffer.write(head + b"\0" * (4096 - len(head)) + recs)
PY
}

[ $# != 0 ] || set -- hpcstruct hpcrun-fmt structfile config experiment kallsyms formula tsv hpctrace hpcpy
for name in "$@"; do
	mkdir -p "$here/corpus-$name"
	(cd "$here/corpus-$name" && "seeds_$(echo "$name" | tr - _)")
done
