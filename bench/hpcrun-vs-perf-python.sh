#!/bin/sh
# hpcrun-vs-perf-python.sh - hpcrun + hpcprof against perf on a real program:
# the Python interpreter (libpython built -O3 without frame pointers) running
# a CPU-bound pure-Python workload.
#
#   bench/hpcrun-vs-perf-python.sh [BUILD]      (BUILD defaults to build/)
#   environment: ROUNDS (interleaved rounds, default 3), WORK (workload
#   rounds per run, default 36: about 5 s of CPU), TOP (table rows,
#   default 15).  Takes about 3 minutes.
#
# Prints a Markdown report for docs/BENCHMARKS.md:
#  1. per-function exclusive shares: 'hpcrun -e cpu-clock@f1000' then
#     'hpcprof --text' against 'perf record -e cpu-clock:u -F 1000' then
#     'perf report --no-children -g none --sort dso,sym', pooled over ROUNDS
#     interleaved runs of each tool, with each tool's spread over the rounds;
#  2. what hpcstruct's structure files change (names only, it checks);
#  3. unwinding completeness from hpcrun's logs (samples taken, recorded,
#     partial, dropped) and from the profiles' trees (time under main or the
#     thread's start routine, at the bottom of the stack without main, under
#     ^Partial), next to one 'perf record --call-graph dwarf' run; and the
#     inclusive shares of hpcrun's paths against perf's DWARF call chains;
#  both single-threaded and with 2 threads.  Skips (exit 0) without perf or
#  a python3 linked with a shared libpython.
#
# Like with like:
#  - perf samples user mode only (:u), as hpcrun does (exclude_kernel); a
#    plain 'cpu-clock' would add the kernel's share (page faults) as
#    [k] symbols that hpcrun never sees;
#  - hpcprof's procedure table gives exclusive cost per procedure, which
#    includes the procedure's inlined code and loops
#    (hpcprof/experiment.h) -- the outermost function, as perf's ELF symbol
#    containing the pc; both are summed by name;
#  - the shares compared are hpcprof's without structure files (procedure
#    names from the same symbol tables and separate debug files perf reads);
#    there a PLT stub is '<unknown> 0xADDR [module]' and in perf 'NAME@plt':
#    both are summed into one row '(PLT stubs)' (hpcprof's addresses checked
#    against the module's .plt sections);
#  - hpcstruct is then run and hpcprof again: the script checks that the
#    per-procedure exclusive values are the same and lists what is named
#    differently.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
BIN=$BUILD/bin
ROUNDS=${ROUNDS:-3}
WORK=${WORK:-36}
TOP=${TOP:-15}

skip() { echo "(skipped: $*)"; exit 0; }
command -v perf >/dev/null 2>&1 || skip "perf is not installed"
command -v python3 >/dev/null 2>&1 || skip "no python3"
# A pyenv 'python3' is a shell script: measure the interpreter itself.
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) || PY=
[ -x "$PY" ] || skip "python3 does not name its executable"
LIBPY=$(ldd "$PY" 2>/dev/null | awk '/libpython/ { print $3; exit }')
[ -n "$LIBPY" ] && [ -f "$LIBPY" ] || skip "$PY is not linked with a shared libpython"

W=$(mktemp -d /tmp/hpcrun-vs-perf.XXXXXX)
# On a failure, say so with what the tools said (their output is kept in
# *.err files); set -e would otherwise end the script without a word.
trap 'rc=$?; [ $rc = 0 ] || { echo "$0: failed (exit $rc)" >&2; cat "$W"/*.err >&2 2>/dev/null; }; rm -rf "$W"' EXIT
cd "$W"
perf record -q -e cpu-clock:u -o probe.data true >/dev/null 2>&1 ||
	skip "perf record cannot sample here (perf_event_paranoid?)"

cp "$ROOT/bench/py-work.py" work.py

# Interleaved: each round runs both tools on both modes, so a burst of load
# from other processes hits them alike.
MODES="1 2"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for t in $MODES; do
		"$BIN/hpcrun" -e cpu-clock@f1000 -o hm$t.$r "$PY" work.py $t "$WORK" >>cpu.h$t 2>>hpcrun.err
		perf record -q -e cpu-clock:u -F 1000 -o p$t.$r.data \
			"$PY" work.py $t "$WORK" >>cpu.p$t 2>>perf.err
	done
	r=$((r + 1))
done
# perf's own call paths, for the unwinding side by side: DWARF unwinding of
# 8 KB stack copies after the run; one run of each mode (about 50 MB each).
DWORK=$WORK
for t in $MODES; do
	perf record -q -e cpu-clock:u -F 1000 --call-graph dwarf -o pd$t.data \
		"$PY" work.py $t "$DWORK" >/dev/null 2>>perf.err
done

# procs REPORT: "name<TAB>exclusive" for every procedure of hpcprof's text
# report, and "<TOTAL><TAB>total" (the name without its " [file:line]").
procs() {
	awk '/^Metric / { sub(/.*: total /, ""); print "<TOTAL>\t" $0; next }
	/^Top procedures/ { p = 1; getline; next }
	/^Top / { p = 0 }
	p && NF >= 5 {
		v = $2; s = $0
		sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "", s)
		n = 0; rest = s
		while ((i = index(rest, " [")) > 0) { n += i; rest = substr(rest, i + 1) }
		if (n) s = substr(s, 1, n - 1)
		print s "\t" v
	}' "$1"
}

# hpcprof on every measurement directory, without and then with structure
# files; the PLT sections of every module of the load maps.
: >plt.txt
for d in hm*; do
	"$BIN/hpcprof" -o db.$d --text rep.$d --top 1000000 "$d" 2>>hpcprof.err
	"$BIN/hpcstruct" "$d" >/dev/null 2>>hpcstruct.err || echo "$d" >>hpcstruct.failed
	"$BIN/hpcprof" -o dbs.$d --text reps.$d --top 1000000 "$d" 2>>hpcprof.err
	"$BIN/hpcprof" --dump "$d"/*.hpcrun >dump.$d
	sed -n 's/^  lm [0-9]* flags [^ ]* "\(.*\)"$/\1/p' dump.$d >>mods.txt
done
sort -u mods.txt | while read -r mod; do
	[ -f "$mod" ] || continue
	readelf -SW "$mod" 2>/dev/null |
	awk -v m="${mod##*/}" '{ sub(/^ *\[ *[0-9]+\] */, "") }
		$1 ~ /^\.plt/ { print m, $3, $5 }'
done >plt.txt

# data.tsv: tool mode round name value (hpcrun: nanoseconds, perf: samples;
# the name <TOTAL> is the run's total).
for d in hm*; do
	t=${d%.*}; t=${t#hm}; r=${d#*.}
	procs rep.$d | awk -F '\t' -v t="$t" -v r="$r" '
		FILENAME == "plt.txt" { split($0, a, " "); m[++n] = a[1]; lo[n] = hex(a[2]); hi[n] = hex(a[2]) + hex(a[3]); next }
		{
			name = $1
			if (name ~ /^<unknown> 0x[0-9a-f]+ \[[^]]*\]$/) {
				split(name, a, " "); mod = substr(a[3], 2, length(a[3]) - 2)
				x = hex(substr(a[2], 3))
				for (i = 1; i <= n; i++)
					if (m[i] == mod && x >= lo[i] && x < hi[i])
						name = "(PLT stubs)"
			}
			print "hpcrun\t" t "\t" r "\t" name "\t" $2
		}
		function hex(s,   i, v) {
			v = 0
			for (i = 1; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}' plt.txt -
done >data.tsv
for f in p*.*.data; do
	t=${f%%.*}; t=${t#p}; r=${f#*.}; r=${r%.data}
	perf report -i "$f" --stdio --no-children -g none --sort dso,sym -n 2>/dev/null |
	awk -v t="$t" -v r="$r" '/^#/ || NF < 5 { next }
		{
			v = $2; s = $0
			sub(/^ *[^ ]+ +[0-9]+ +[^ ]+ +\[.\] /, "", s)
			if (s ~ /@plt$/) s = "(PLT stubs)"
			print "perf\t" t "\t" r "\t" s "\t" v
			tot += v
		}
		END { print "perf\t" t "\t" r "\t<TOTAL>\t" tot }'
done >>data.tsv

# Aliases: names of one address in a module's symbol table (its .symtab,
# else the separate debug file by build ID, else .dynsym), e.g. glibc's
# __memcpy_evex_unaligned_erms and __memmove_evex_unaligned_erms; the tools
# may pick different ones, so both become "a = b".
symfile() {
	if readelf -SW "$1" 2>/dev/null | grep -q ' \.symtab '; then
		echo "$1"
		return
	fi
	id=$(readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p' | head -n 1)
	dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c 1-2)/$(echo "$id" | cut -c 3-).debug
	if [ -n "$id" ] && [ -f "$dbg" ]; then echo "$dbg"; else echo "$1"; fi
}
sort -u mods.txt | while read -r mod; do
	[ -f "$mod" ] || continue
	readelf -sW "$(symfile "$mod")" 2>/dev/null |
	awk '($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" { n = $8; sub(/@.*/, "", n); print $2, n }' |
	LC_ALL=C sort -u |
	awk '$1 != a { flush(); a = $1; k = 0 } { nm[++k] = $2 } END { flush() }
	function flush(   i, j) {
		if (k < 2) return
		j = nm[1]; for (i = 2; i <= k; i++) j = j " = " nm[i]
		for (i = 1; i <= k; i++) print nm[i] "\t" j
	}'
done >alias.tsv
awk -F '\t' -v OFS='\t' 'FILENAME == "alias.tsv" { a[$1] = $2; next }
	$4 in a { $4 = a[$4] } { print }' alias.tsv data.tsv >data2.tsv
mv data2.tsv data.tsv

mean() { awk '{ s += $1; n++ } END { printf "%.2f", s / n }' "$1"; }

# compare MODE: the table (top TOP names by the mean of both pooled shares)
# and the summary lines.
compare() {
	awk -F '\t' -v mode="$1" -v top="$TOP" -v rounds="$ROUNDS" '
	$2 != mode { next }
	$4 == "<TOTAL>" { tot[$1] += $5; rt[$1, $3] += $5; next }
	{ v[$1, $4] += $5; rv[$1, $3, $4] += $5; names[$4] = 1 }
	END {
		n = 0
		for (k in names) {
			h = 100 * v["hpcrun", k] / tot["hpcrun"]
			p = 100 * v["perf", k] / tot["perf"]
			key[++n] = k; sh[k] = h; sp[k] = p; avg[k] = (h + p) / 2
		}
		for (i = 2; i <= n; i++) {	# insertion sort by avg, descending
			k = key[i]
			for (j = i - 1; j >= 1 && avg[key[j]] < avg[k]; j--)
				key[j + 1] = key[j]
			key[j + 1] = k
		}
		print "| function | hpcrun % (rounds min-max) | perf % (rounds min-max) | hpcrun - perf |"
		print "|---|---|---|---|"
		maxd = 0; maxs["hpcrun"] = maxs["perf"] = 0; cover = 0
		for (i = 1; i <= n && i <= top; i++) {
			k = key[i]
			for (tl = 0; tl < 2; tl++) {
				tool = tl ? "perf" : "hpcrun"
				lo = 100; hi = 0
				for (r = 1; r <= rounds; r++) {
					s = rt[tool, r] ? 100 * rv[tool, r, k] / rt[tool, r] : 0
					if (s < lo) lo = s
					if (s > hi) hi = s
				}
				rng[tool] = sprintf("%.2f-%.2f", lo, hi)
				if (hi - lo > maxs[tool]) { maxs[tool] = hi - lo; maxsk[tool] = k }
			}
			d = sh[k] - sp[k]
			if (d < 0 ? -d > maxd : d > maxd) { maxd = d < 0 ? -d : d; maxk = k }
			cover += sh[k]
			printf "| %s | %.2f (%s) | %.2f (%s) | %+.2f |\n", k, sh[k], rng["hpcrun"], sp[k], rng["perf"], d
		}
		alld = 0
		for (i = 1; i <= n; i++) {
			d = sh[key[i]] - sp[key[i]]; if (d < 0) d = -d
			if (d > alld) { alld = d; allk = key[i] }
		}
		printf "\nPooled over %d rounds: hpcrun %d samples, perf %d samples; the %d rows hold %.1f%% of hpcrun'"'"'s samples.\n", rounds, tot["hpcrun"] / 1e6, tot["perf"], (top < n ? top : n), cover
		printf "Max |difference| in the table: **%.2f points** (%s); over all %d functions: %.2f (%s).\n", maxd, maxk, n, alld, allk
		printf "Largest spread of one function over the rounds: hpcrun %.2f points (%s), perf %.2f points (%s).\n", maxs["hpcrun"], maxsk["hpcrun"], maxs["perf"], maxsk["perf"]
	}' data.tsv
}

# unwind MODE: one table row from the logs and the trees.
unwind() {
	cat hm$1.*/*.log | awk -v mode="$1" '
	/^samples-taken:/ { tk += $2 } /^samples-recorded:/ { rc += $2 }
	/^samples-partial:/ { pa += $2 } /^samples-dropped:/ { dr += $2 }
	/^unwind-faults:/ { uf += $2 } /^threads:/ { th += $2 }
	END { printf "| %s | %d | %d | %d | %d (%d faults) | %d | %.2f%% |", mode == 1 ? "1 thread" : mode " threads", th, tk, rc, pa, uf, dr, 100 * (rc - pa) / rc }'
	cat dump.hm$1.* | awk '
	/^hpcrun-profile/ { delete par; delete lab }
	/^  node / { par[$2] = $4; if ($6 == 0) lab[$2] = substr($0, index($0, "addr \"") + 6, 8) }
	/^  ctx / {
		id = $2; sub(/:$/, "", id); v = $4
		c = id; below = ""
		while (par[c] != 0) { below = c; c = par[c] }
		if (lab[c] == "^Partial") pa += v
		else if (below != "" && (lab[below] == "| Main  " || lab[below] == "| Thread")) ok += v
		else nomain += v
		tot += v
	}
	END { printf " %.2f / %.2f / %.2f |\n", 100 * ok / tot, 100 * nomain / tot, 100 * pa / tot }'
}

echo "## hpcrun and hpcprof against perf on a real program (Python)"
echo
echo "Measured $(date -u +%Y-%m-%d) by \`bench/hpcrun-vs-perf-python.sh\` on $(nproc) cores,"
echo "$(uname -sr), $(perf --version 2>/dev/null); \`$PY\`"
echo "(${LIBPY##*/}, $(python3 -c 'import sysconfig; print(sysconfig.get_config_var("CFLAGS"))' 2>/dev/null | grep -o -- '-O[0-9s]' | head -n 1), no frame pointers) running a pure-Python CPU-bound"
echo "workload (eval loop, recursion through \`map\`, dict, str, int, sorting), $WORK rounds,"
echo "single-threaded and with 2 threads; $ROUNDS interleaved rounds of each tool, 1000 samples/s."
echo "Mean CPU time of the workload: 1 thread $(mean cpu.h1) s under hpcrun, $(mean cpu.p1) s under perf;"
echo "2 threads $(mean cpu.h2) s and $(mean cpu.p2) s."
echo
echo "    hpcrun -e cpu-clock@f1000 -o m python3 work.py 1 $WORK; hpcprof -o db --text report m"
echo "    perf record -e cpu-clock:u -F 1000 -o perf.data python3 work.py 1 $WORK"
echo "    perf report -i perf.data --stdio --no-children -g none --sort dso,sym -n"
echo
echo "### Exclusive share per function, 1 thread (pooled over the rounds)"
echo
compare 1
echo
echo "2 threads:"
compare 2 | sed -n '/^Pooled/,$p'
echo
echo "### hpcstruct's structure files"
echo
same=yes
for d in hm*; do
	procs rep.$d | cut -f 2 | LC_ALL=C sort >a.txt
	procs reps.$d | cut -f 2 | LC_ALL=C sort >b.txt
	cmp -s a.txt b.txt || same=no
done
d=hm1.1
procs rep.$d | LC_ALL=C sort >a.txt
procs reps.$d | LC_ALL=C sort >b.txt
echo "Per-procedure exclusive values identical with and without them, in every run: $same."
echo "Named differently (run $d, exclusive share of the names found only in one of the two):"
echo
LC_ALL=C join -t "$(printf '\t')" -v 1 a.txt b.txt | awk -F '\t' -v f="$(procs rep.$d | sed -n 's/^<TOTAL>\t//p')" '
	{ n++; s += $2 } END { printf "- without structure only: %d names, %.2f%%\n", n, 100 * s / f }'
procs rep.$d | awk -F '\t' '/^<unknown>/ { print "  " $1 }' | head -n 3
LC_ALL=C join -t "$(printf '\t')" -v 2 a.txt b.txt | awk -F '\t' -v f="$(procs rep.$d | sed -n 's/^<TOTAL>\t//p')" '
	{ n++; s += $2; if ($1 ~ /@plt$/) plt++; else other = other (other ? ", " : "") $1 }
	END { printf "- with structure only: %d names, %.2f%% (%d NAME@plt; %s)\n", n, 100 * s / f, plt, other }'
if [ -s hpcstruct.failed ]; then
	echo
	echo "hpcstruct exited non-zero on $(wc -l <hpcstruct.failed) of $(ls -d hm* | wc -l) measurement directories; what it said"
	echo "other than 'wrote' and 'reused cached structure' (distinct):"
	echo
	grep -v -e ': wrote ' -e 'reused cached structure' hpcstruct.err | sed "s|$W/hm[0-9.]*/||g; s/^/    /" | sort -u
fi
echo
echo "### Unwinding completeness (hpcrun, all rounds)"
echo
echo "| mode | threads | samples taken | recorded | partial (unwind failed) | dropped | reached main or start routine (log) | time under main or start routine / at the bottom without main / ^Partial (trees) |"
echo "|---|---|---|---|---|---|---|---|"
for t in $MODES; do
	unwind $t
done
echo
echo "perf side by side: \`perf record --call-graph dwarf\` (8 KB stack copies unwound afterwards),"
echo "one run of $DWORK rounds each:"
echo
echo "| mode | samples | call chain reaches main's caller or the thread's start routine |"
echo "|---|---|---|"
for t in $MODES; do
	perf script -i pd$t.data -F tid,ip,sym 2>/dev/null | awk -v mode="$t" 'BEGIN { RS = "" }
	{ n++; if ($0 ~ /[ \t](__libc_start_call_main|__libc_start_main[_a-z]*|start_thread)( |\n|$)/) ok++ }
	END { printf "| %s | %d | %.2f%% |\n", mode == 1 ? "1 thread" : mode " threads", n, 100 * ok / n }'
done
echo
echo "Paths that reach main could still be wrong on the way; their inclusive shares against perf's"
echo "DWARF call chains (1 thread; hpcrun pooled over the rounds, perf the one run above; the"
echo "functions of hpcrun's top 10 by inclusive share between 5 and 60%):"
echo
perf report -i pd1.data --stdio --children --sort sym -g none 2>/dev/null |
awk '!/^#/ && NF == 4 && $3 == "[.]" && !($4 in seen) { seen[$4] = 1; print $4 "\t" $1 + 0 }' >incl.perf
for d in hm1.*; do
	awk '/^Metric / { sub(/.*: total /, ""); print "<TOTAL>\t" $0; next }
	/^Top procedures/ { p = 1; getline; next }
	/^Top / { p = 0 }
	p && NF >= 5 { print $5 "\t" $4 }' rep.$d
done | awk -F '\t' -v top=10 '
	FILENAME == "incl.perf" { pf[$1] = $2; next }
	$1 == "<TOTAL>" { tot += $2; next }
	{ v[$1] += $2 }
	END {
		print "| function | hpcrun inclusive % | perf --call-graph dwarf inclusive % | difference |"
		print "|---|---|---|---|"
		n = 0
		for (k in v) { s = 100 * v[k] / tot; if (s >= 5 && s <= 60) { key[++n] = k; sh[k] = s } }
		for (i = 2; i <= n; i++) {
			k = key[i]
			for (j = i - 1; j >= 1 && sh[key[j]] < sh[k]; j--) key[j + 1] = key[j]
			key[j + 1] = k
		}
		for (i = 1; i <= n && i <= top; i++) {
			k = key[i]; d = sh[k] - pf[k]
			printf "| %s | %.2f | %.2f | %+.2f |\n", k, sh[k], pf[k], d
			if ((d < 0 ? -d : d) > m) m = d < 0 ? -d : d
		}
		printf "\nMax |difference|: %.2f points.\n", m
	}' incl.perf -
grep -v 'no structure file' hpcprof.err >hpcprof.other || true
if [ -s hpcprof.other ]; then
	echo
	echo "hpcprof's warnings other than 'no structure file' (distinct):"
	echo
	sed "s|$W/hm[0-9.]*/||g; s/^/    /" hpcprof.other | sort -u
fi
