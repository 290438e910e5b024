#!/bin/sh
test_description='hpcrun: the sampling handler reaches no function outside the async-signal-safe allowlist (the RULES of hpcrun/rt/sample.c)'
. "$(dirname "$0")/test-lib.sh"

# The sample path is every function a direct call or jump reaches from the
# handler (rt_sample_handler) and from the one function each sample source
# has the handler call through its table (.value = NAME in source-*.c).
# The runtime's objects are built with a section per function
# (-ffunction-sections), so the target of a call or jump instruction's
# relocation in a function's section is a function it calls; the walk
# follows calls into any object of the runtime, so a setup function the
# handler calls brings its own calls in.  What it cannot see: calls
# through a pointer (the value() functions are roots for that reason),
# and which branch a call is on (a call made only outside the handler
# still counts: move it out of the sample path's functions).  A
# function's address taken (compared, stored) is not a call.  A call
# through a pointer in a global variable names the variable when the
# call reads it from memory (call *rt_capstone+8(%rip)): such tables are
# below too, with the functions they hold.
#
# Every name the walk leaves the runtime for -- a library function, or a
# wrapper libhpcrun.so exports (a call of malloc reaches hpcrun's own
# malloc first) -- must be below, with why the handler may call it.  The
# rules: no allocation, no stdio, no lock, no dl_iterate_phdr, no dlsym.
cat >allowed <<\ALLOWED
__errno_location	errno's address: the handler saves and restores errno
__sigsetjmp	sigsetjmp(buf, 0): registers only, no mask (the unwinder's fault recovery)
clock_gettime	async-signal-safe (POSIX); the handler's own time
memcmp	reads the caller's memory only (async-signal-safe, POSIX)
memcpy	copies the caller's memory only (async-signal-safe, POSIX)
memmove	copies the caller's memory only (async-signal-safe, POSIX): a kernel leaf put under the user path (sample.c)
memset	writes the caller's memory only (async-signal-safe, POSIX)
mmap	hpcrun's wrapper passes hpcrun's own calls to the real mmap untracked (datacentric-alloc.c, invariant 5); a system call: a new anonymous arena chunk (cct.c, invariant 5), a thread's Python state or code-arena chunk (python-frames.c, invariant 3)
mremap	hpcrun's wrapper passes hpcrun's own calls to the real mremap untracked (datacentric-alloc.c, invariant 5); a system call: a --sharing thread's record buffer doubled as it fills (sharing.c), by its own thread
read	system call: a perf counter's value (async-signal-safe, POSIX)
rt_capstone	a call through the table of the dlopened Capstone (datacentric-memop.c, invariant 5): cs_disasm_iter decodes into the thread's cs_insn made beforehand, no allocation (datacentric-memop.c, invariant 1); cs_regs_access writes the registers an instruction reads into the caller's arrays
sched_getcpu	the vDSO or getcpu system call: the CPU of an access record (sharing.c)
sigaltstack	system call: the alternate signal stack's bounds, read (unwind.c)
syscall	raw system calls: futex wake of hpcrun's writer (fd-gate.c, THE WRITER), gettid, arch_prctl(ARCH_GET_FS) (datacentric-memop.c), rt_sigpending (sample.c, THE BACKLOG)
timer_getoverrun	async-signal-safe (POSIX): the overruns of a timer sample
ALLOWED

# Not entered: functions the walk reaches through a path the handler
# never takes, each with why.
#   rt_real_find  RT_REAL's lookup of a real function not yet found: every
#                 slot is filled by rt_interpose_init before any source
#                 starts (interpose.h, invariant 2); the handler reaches it
#                 only through rt_fault_recovery's rt_real_sigaction.
stops=rt_real_find

# calls_out ROOTS STOPS OBJECT...: every name outside the OBJECTs (or
# exported by them: a wrapper of a libc function) that a direct call or
# jump reaches from the functions ROOTS, not entering the functions
# STOPS; one line each, "NAME CALLER<CALLER<...<ROOT".
calls_out() {
	roots=$1 stops=$2
	shift 2
	for o in "$@"; do
		objdump -t "$o" | sed -n "s|^[0-9a-f]\{16\} |S $o |p"
		objdump -dr --no-show-raw-insn "$o" | awk -v obj="$o" '
			/^Disassembly of section / {
				sub(/:$/, "", $4)
				print "R", obj, $4
			}
			/^ *[0-9a-f]+:\t/ {
				split($0, f, "\t")
				split(f[2], w, " ")
				op = w[1] == "bnd" || w[1] == "notrack" ? w[2] : w[1]
			}
			/^\t\t\t[0-9a-f]+: R_/ {
				print "E", (op ~ /^(call|jmp|j[a-z]+)$/ ? "call" : "ref"), $NF
			}'
	done | awk -v roots="$roots" -v stops="$stops" '
	# S OBJ FLAGS SECTION<tab>SIZE [.hidden] NAME (objdump -t)
	$1 == "S" {
		obj = $2
		rest = substr($0, length("S " obj " ") + 1)
		flags = substr(rest, 1, 7)
		split(substr(rest, 9), f, "\t")
		n = split(f[2], g, " ")
		name = g[n]
		if (f[1] == "*UND*" || f[1] !~ /^\.text/ || substr(flags, 7, 1) != "F")
			next
		if (substr(flags, 1, 1) == "l")
			local[obj, name] = f[1]
		else {
			global[name] = obj SUBSEP f[1]
			if (g[2] != ".hidden")
				exported[name] = 1
		}
		next
	}
	$1 == "R" { cur = $2 SUBSEP $3; next }
	$1 == "E" && $2 == "call" {
		t = $3
		sub(/[-+]0x[0-9a-f]+$/, "", t)
		edges[cur] = edges[cur] " " t
	}
	END {
		split(stops, s, " ")
		for (i in s)
			stop[s[i]] = 1
		n = split(roots, r, " ")
		for (i = 1; i <= n; i++) {
			node = ""
			if (r[i] in global)
				node = global[r[i]]
			for (k in local) {
				split(k, kk, SUBSEP)
				if (kk[2] == r[i])
					node = kk[1] SUBSEP local[k]
			}
			if (node == "") {
				print "calls_out: no function " r[i] > "/dev/stderr"
				bad = 1
				continue
			}
			queue[++qn] = node
			seen[node] = 1
		}
		for (q = 1; q <= qn; q++) {
			node = queue[q]
			split(node, nk, SUBSEP)
			m = split(edges[node], tt, " ")
			for (j = 1; j <= m; j++) {
				t = tt[j]
				to = ""
				if (t ~ /^\.text/)
					to = nk[1] SUBSEP t
				else if ((nk[1], t) in local)
					to = nk[1] SUBSEP local[nk[1], t]
				else if ((t in global) && !(t in exported))
					to = global[t]
				if (to != "") {
					split(to, tk, SUBSEP)
					fn = tk[2]
					sub(/^\.text\./, "", fn)
					if (!(to in seen) && !(fn in stop)) {
						seen[to] = 1
						from[to] = node
						queue[++qn] = to
					}
					continue
				}
				if (t in out)
					continue
				path = ""
				for (p = node; p != ""; p = from[p]) {
					split(p, pk, SUBSEP)
					fn = pk[2]
					sub(/^\.text\./, "", fn)
					path = path (path == "" ? "" : "<") fn
				}
				out[t] = path
			}
		}
		for (t in out)
			print t, out[t]
		exit bad
	}' | sort
}

# The runtime's objects: those of libhpcrun.so's sources in the build.
rt_objects() {
	(cd "$HPC_BUILD/obj-rt" && find . -name "*.o" | sort) | while read -r o; do
		src=${o#./}
		test -f "$SRC_ROOT/${src%.o}.c" && echo "$HPC_BUILD/obj-rt/${o#./}"
	done
}

test_expect_success 'setup: the runtime objects, a section per function' '
	rt_objects >objects &&
	grep -q "/hpcrun/rt/sample.o$" objects &&
	for o in $(cat objects); do
		objdump -h "$o" | awk -v o="$o" "\$2 == \".text\" && \$3 !~ /^0+\$/ {
			print o \": code outside a function section (built without -ffunction-sections?)\"
			exit 1 }" || return 1
	done
'

test_expect_success 'setup: the roots, the handler and every source'\''s value()' '
	sed -n "s/^[[:space:]]*\.value = \([a-z_0-9]*\),$/\1/p" \
		"$SRC_ROOT"/hpcrun/rt/source-*.c >values &&
	test_line_count = 2 values &&
	echo rt_sample_handler $(cat values) >roots
'

test_expect_success 'the walk catches a call two functions and one object away, and a call of an exported wrapper' '
	cat >h.c <<-\EOF_C &&
	void setup(void);
	void rt_sample_handler(void);
	void rt_sample_handler(void) { setup(); }
	EOF_C
	cat >s.c <<-\EOF_C &&
	#include <stdlib.h>
	void *kept;
	void setup(void);
	__attribute__((noinline)) static void deeper(void) { kept = malloc(16); }
	__attribute__((visibility("default"))) void free(void *p) { kept = p; }
	void setup(void) { deeper(); free(kept); }
	EOF_C
	cc -O2 -fPIC -fvisibility=hidden -ffunction-sections -c h.c s.c &&
	calls_out rt_sample_handler "" h.o s.o >got &&
	cat >want <<-\EOF_W &&
	free setup<rt_sample_handler
	malloc deeper<setup<rt_sample_handler
	EOF_W
	test_cmp want got
'

test_expect_success 'everything the sample path calls outside the runtime is allowed' '
	calls_out "$(cat roots)" "$stops" $(cat objects) >reached &&
	test -s reached &&
	grep -q "^clock_gettime rt_sample_handler$" reached &&
	cut -f1 allowed | sort >allowed.names &&
	awk "NR == FNR { ok[\$1] = 1; next } !(\$1 in ok)" allowed.names reached >forbidden &&
	if test -s forbidden; then
		echo "the sample path calls what the RULES of hpcrun/rt/sample.c forbid" \
			"(NAME CALLER<...<ROOT), or allowed must say why it may:" >&2
		cat forbidden >&2
		false
	fi
'

test_done
