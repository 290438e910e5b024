/*
 * sync-hang.c - the hang detector: a thread of hpcrun's that looks, four times
 * a second (every T/8 when that is shorter, 20 ms at least; T below), for
 * barrier episodes that wait too long, for lock-order deadlocks among
 * the interposed mutexes and for a process whose every thread waits for
 * another (a stall), and reports them (hpcrun(5),
 * "Hang reports"; --hang-timeout and --hang-action in hpcrun(1)).
 *
 * Invariants:
 *  1. The detector thread is hpcrun's own: made with the real
 *     pthread_create (never measured), every signal blocked but the
 *     synchronous faults (invariant 6), one per process (remade lazily
 *     in a fork child).  It reads the threads only
 *     inside rt_threads_apply (under the thread list's lock, so no
 *     struct rt_thread or sync state goes away meanwhile), copying what it
 *     needs into its snapshot.
 *  2. A barrier hang: a thread has waited at a barrier-kind site longer
 *     than the effective timeout, T = max(--hang-timeout, 100 x the median
 *     episode), and some participant has not arrived.  The missing threads
 *     are the participants seen at the object's earlier episodes that are
 *     not waiting there, or, when there are none, every other measured
 *     thread not waiting there.  A missing thread is "stuck" when its CPU
 *     time advanced less than min(10 ms, 2%) over the wait and
 *     /proc/self/task/TID/syscall shows it blocked (a thread waiting for
 *     a CPU of a busy machine is runnable, not stuck), else it
 *     computes.  The barrier needs k more: the rest of its count, or
 *     without one every participant missing (one when none is known).
 *     None found, or some stuck and fewer than k computing: a hang at T
 *     (those that could still arrive cannot).  Else a stuck thread may be
 *     no party to the barrier (on a first episode every thread not there
 *     is missing: a main thread in pthread_join, a thread sleeping or
 *     reading elsewhere), and those computing may yet arrive (with none
 *     stuck, a thread not made yet may too); so a first episode's hang
 *     beside a thread computing elsewhere is one only once that one stops
 *     (or is slow, below).
 *     The detector probes each computing one's path at every tick
 *     (ticks jittered by 20%, so that no periodic loop aliases them); its
 *     signature is the leaf's function and the return addresses above it
 *     (the leaf frames in modules other than their caller's left out: a
 *     loop calling clock_gettime is the loop, not the vdso), so one loop
 *     in one function keeps one signature.  At T, if some computing
 *     missing thread's signature has stayed the same through the wait
 *     (LATE_PROBES = 6 probes or more, over T/2 or more: a serial phase
 *     alternating between two places every so often is unlikely to show
 *     one place six times running), or after it changed through the
 *     wait's last half (20 probes or more: a serial phase alternating
 *     between places makes no such run), it is late and still in one place
 *     (a livelock, or a long loop before the barrier): a "late" report,
 *     once, which --hang-action=abort does not act on; once such a thread
 *     has computed 10 T of CPU time since the wait began (CPU time: a
 *     loaded machine stretches wall time, not CPU time), a hang.  While
 *     every computing thread's path moves, it is a serial phase on its way
 *     to the barrier: no report, however long.  A serial phase that stays
 *     in one function past T is told apart from a livelock by nothing
 *     visible from outside, hence "late", not "hang".
 *  3. A deadlock: a cycle of threads each blocked in pthread_mutex_lock on
 *     a mutex whose owner (glibc keeps the owner's tid in the mutex) is the
 *     next, every one blocked longer than T.
 *  4. Each hang is reported once: its key (object and episode, the
 *     cycle's lowest thread and mutex, or the stall's threads and
 *     objects) is remembered.
 *  5. No signal is ever sent to a thread blocked in the kernel: it would
 *     end calls such as nanosleep, pause, poll, select and sigsuspend
 *     with EINTR (after a handler ran they are not restarted, SA_RESTART
 *     or not), and wake a thread that hangs for real.  A probed
 *     thread that /proc/self/task/TID/syscall shows blocked gives its path
 *     without one: the sp and pc of its call there, its stack copied with
 *     process_vm_readv (an unmapped page ends the copy, never faults), and
 *     rt_unwind_blocked over the copy; its CPU time unchanged from before
 *     the read to after the copy says it did not run meanwhile, so the
 *     copy is of one moment (else it is read again).  A thread shown
 *     running is asked by a one-shot timer on its own CPU clock, whose
 *     signal (RT_PATH_PROBE) makes its handler unwind into its sync state
 *     (sample.c): a thread that blocks before the timer fires uses no more
 *     CPU time, so the timer never fires while it sleeps; and the kernel
 *     fires CPU timers on the thread's own way back to user mode
 *     (POSIX_CPU_TIMERS_TASK_WORK, which x86-64 selects), so the signal
 *     never lands inside a call.  (A kernel without it fires them at the
 *     tick: a tick in the microseconds a thread spends entering a call
 *     could still end that call.)  The detector gives a thread 200 ms to
 *     answer, three times, reading /proc again between the tries.
 *  6. A probed thread that runs Python gives its Python frames where
 *     samples have them: the probe's handler expands its path on its own
 *     thread (sample.c), and under rt_threads_apply, while the thread
 *     cannot end, the detector copies the names of their codes from the
 *     thread's code records (rt_py_frame_name) into py_names, which the
 *     report reads.  Its signature is its innermost Python frame's code
 *     and the frames outside it, so a loop in one Python function keeps
 *     one.  A blocked thread's Python frames are read by the detector
 *     itself (python-frames.h, invariant 6): it released the GIL before
 *     blocking, so its thread state's frame chain stays as it is while
 *     it stays blocked.  The detector walks the chain from that thread
 *     state (found by the thread's id) with its own caches and code
 *     arena, its rt_self set to its own struct rt_thread for the walk
 *     alone (so a read that faults comes back through signals.c to a
 *     native path: the detector blocks every signal but the synchronous
 *     faults), and names the codes from its own arena.  After the walk
 *     the thread must still be blocked at the same call (sp and pc in
 *     /proc) with the same CPU time; else the path stays native and the
 *     report says "(Python frames changed while read)".  Without fault
 *     recovery (the program replaced hpcrun's SIGSEGV or SIGBUS handler)
 *     a blocked thread's path stays native.
 *  7. A stall: EVERY measured thread waits longer than T in an
 *     interposed wait (pthread_mutex_lock not on a cycle of invariant 3,
 *     pthread_cond_wait, sem_wait: a Python lock's untimed acquire and
 *     Thread.join; pthread_join) with no timeout on an object private to
 *     the process (sync.h, SYNC_WAIT_*: sync-interpose.c reads glibc's
 *     shared marks at the wrapper's entry), each one is blocked in futex
 *     (/proc/self/task/TID/syscall) and its CPU time has not moved since
 *     the middle of its wait nor while its path was read, and every task
 *     of /proc/self/task is such a thread or one of hpcrun's own (a task
 *     hpcrun does not measure, a thread running, sleeping, reading, in a
 *     timed wait, at a barrier or in a call not interposed: no report).
 *     Then nothing inside the process can wake any thread: a "stalled"
 *     report naming each thread's wait and path (invariants 5 and 6),
 *     once per set of threads and objects (invariant 4); a report only,
 *     which --hang-action=abort does not act on, since a signal handler
 *     or another process (through memory it shares unmarked) may still
 *     release one.  Barrier waits are the barrier report's (invariant 2).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fd-gate.h"
#include "futex.h"
#include "loadmap.h"
#include "output.h"
#include "capability.h"
#include "hpcpy.h"
#include "python-frames.h"
#include "raw-threads.h"
#include "signals.h"
#include "source.h"
#include "srcline.h"
#include "sync.h"
#include "unwind.h"

#define TICK_NS 250000000L
#define MIN_TICK_NS 20000000L
#define LATE_PROBES 6
#define MAX_SNAP 512
#define MAX_REPORTED 256
#define COPY_SIZE (256 << 10)

/* One thread as the detector saw it at a tick. */
struct snap {
	int index;
	pid_t tid;
	struct sync_wait wait;		/* site 0: not waiting */
	uint64_t cpu;			/* CPU time now */
	uint64_t seen_bits[4];		/* of the object it waits at */
	uint32_t obj_gen, obj_n;
	int probe_n;
	uint64_t same_since;		/* its path's signature unchanged since */
	unsigned same_probes;		/* over these probes; 0 not watched */
	int moved;			/* its signature changed in this wait */
	int py_changed;			/* blocked, its Python frames dropped
					 * (invariant 6) */
	int in_cycle;			/* its mutex wait is on a cycle
					 * (invariant 3) */
	uintptr_t frames[SYNC_PROBE_FRAMES];
};

static pid_t detector_pid;
static int detector_live;		/* its thread runs (atomic) */
static uint64_t reports;
static struct snap *snaps;		/* [MAX_SNAP], the detector's */
static int nsnap;
static uint64_t hist[64], now_ns;
static uint64_t reported[MAX_REPORTED];
static int nreported;
static char hang_path[4400];
static char *text;			/* the report being built */
static size_t text_len;
#define TEXT_SIZE (256 << 10)
static unsigned char *copy_buf;		/* [COPY_SIZE]: a blocked thread's stack */
static struct rt_thread unwinder;	/* lends its unwind cache and sps
					 * to rt_unwind_blocked, and is the
					 * detector's rt_self and Python state
					 * while it reads a blocked thread's
					 * Python frames (invariant 6) */

uint64_t sync_hang_reports(void)
{
	return reports;
}

/* ---- symbols: FUNC of a code address, from the module's files ---- */

struct symtab {
	const unsigned char *map;
	size_t size;
	const Elf64_Sym *sym;
	size_t nsym;
	const char *str;
	size_t strsize;
};
/* A module's symbols: its own file's .symtab, else its .dynsym (the
 * exported names, as users know them) and its detached debug file's
 * .symtab by build ID (where Debian's -dbgsym packages put it: libc's
 * internal functions). */
struct symfile {
	uint16_t id;
	int tried;
	struct symtab own, debug;
};
static struct symfile symfiles[64];
static unsigned sym_lock;

/* The symbol table of the file at path: .symtab, else .dynsym; 1 when
 * .symtab. */
static int sym_load(struct symtab *f, const char *path)
{
	void *map;
	size_t size;
	const unsigned char *base;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	int pass, i;

	if (rt_map_file(path, &map, &size))
		return 0;
	f->map = base = map;
	f->size = size;
	eh = (const Elf64_Ehdr *)map;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) > size)
		return 0;
	sh = (const Elf64_Shdr *)(const void *)(base + eh->e_shoff);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < eh->e_shnum; i++) {
			const Elf64_Shdr *s = &sh[i], *l;

			if (s->sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) ||
			    s->sh_link >= eh->e_shnum || s->sh_offset + s->sh_size > size)
				continue;
			l = &sh[s->sh_link];
			if (l->sh_offset + l->sh_size > size)
				continue;
			f->sym = (const Elf64_Sym *)(const void *)(base + s->sh_offset);
			f->nsym = s->sh_size / sizeof(Elf64_Sym);
			f->str = (const char *)base + l->sh_offset;
			f->strsize = l->sh_size;
			return !pass;
		}
	return 0;
}

static void sym_unload(struct symtab *f)
{
	if (f->map)
		munmap((void *)f->map, f->size);
	memset(f, 0, sizeof(*f));
}

/* The function of table f holding module offset off, its start in
 * *start. */
static const char *sym_find_in(const struct symtab *f, uint64_t off,
			       uint64_t *start)
{
	const Elf64_Sym *best = NULL;
	size_t i;

	for (i = 0; i < f->nsym; i++) {
		const Elf64_Sym *s = &f->sym[i];

		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || !s->st_value ||
		    s->st_name >= f->strsize)
			continue;
		if (off >= s->st_value && (off < s->st_value + s->st_size ||
		    (!s->st_size && (!best || s->st_value > best->st_value))))
			if (!best || s->st_value >= best->st_value)
				best = s;
	}
	if (!best)
		return NULL;
	*start = best->st_value;
	return f->str + best->st_name;
}

/* The function holding module offset off in f, its start in *start:
 * the own file's name, else the debug file's. */
static const char *sym_find(const struct symfile *f, uint64_t off, uint64_t *start)
{
	const char *name = sym_find_in(&f->own, off, start);

	return name ? name : sym_find_in(&f->debug, off, start);
}

/* The symbols of module m, loaded at the first call (sym_lock held). */
static struct symfile *sym_file(const struct rt_module *m)
{
	struct symfile *f = &symfiles[m->id % 64];
	char debug[RT_DEBUG_PATH_SIZE];

	if (f->id == m->id && f->tried)
		return f;
	sym_unload(&f->own);
	sym_unload(&f->debug);
	f->id = m->id;
	f->tried = 1;
	if (sym_load(&f->own, m->path) || !rt_module_debug_path(m, debug))
		return f;
	if (!sym_load(&f->debug, debug))
		sym_unload(&f->debug);
	return f;
}

static void sym_lock_take(void)
{
	rt_lock_take(&sym_lock);
}

static void sym_lock_drop(void)
{
	rt_lock_drop(&sym_lock);
}

/* The names of the Python frames in probed paths (invariant 6), by
 * frame (code id and instruction), the oldest replaced when full: the
 * detector's alone. */
#define PY_NAMES 256
static struct {
	uintptr_t frame;		/* 0: free */
	char name[240];
} py_names[PY_NAMES];
static unsigned py_next;

/* The slot of Python frame frame in py_names, or -1. */
static int py_name_slot(uintptr_t frame)
{
	int i;

	for (i = 0; i < PY_NAMES; i++)
		if (py_names[i].frame == frame)
			return i;
	return -1;
}

/* Notes the names of the Python frames of td's probed path (td cannot
 * end meanwhile: under rt_threads_apply), from td's codes or, for a
 * blocked thread's, the detector's own (invariant 6). */
static void py_names_note(const struct rt_thread *td, const uintptr_t *frames,
			  int n)
{
	unsigned k;
	int i;

	for (i = 0; i < n; i++) {
		if (!rt_py_frame(frames[i]) || py_name_slot(frames[i]) >= 0)
			continue;
		k = py_next++ % PY_NAMES;
		if (rt_py_frame_name(td, frames[i], py_names[k].name,
				     sizeof(py_names[k].name)) ||
		    rt_py_frame_name(&unwinder, frames[i], py_names[k].name,
				     sizeof(py_names[k].name)))
			py_names[k].frame = frames[i];
		else
			py_names[k].frame = 0;
	}
}

/* "FUNC+0xOFF[ at FILE:LINE] (MODULE+0xOFF)" of pc into buf, or for a
 * Python frame "FILE:FIRSTLINE QUALNAME[ at FILE:LINE] (python code
 * 0xID)"; a native line only when with_line (srcline.h: never on a
 * program thread). */
static void describe(uintptr_t pc, char *buf, size_t size, int with_line)
{
	const struct rt_module *m = pc && !rt_py_frame(pc) ? rt_module_find(pc) : NULL;
	const char *name = NULL, *base;
	char line[300] = "", at[310] = "";
	uint64_t off, start = 0;
	struct symfile *f;
	int k;

	if (rt_py_frame(pc)) {
		off = hpcpy_addr_id(pc & ~RT_PY_FRAME);
		k = py_name_slot(pc);
		snprintf(buf, size, "%s (python code 0x%llx)",
			 k >= 0 ? py_names[k].name : "??", (unsigned long long)off);
		return;
	}
	if (!m) {
		snprintf(buf, size, "?? (0x%lx)", (unsigned long)pc);
		return;
	}
	off = pc - m->bias;
	base = strrchr(m->path, '/');
	base = base ? base + 1 : m->path;
	if (with_line && rt_srcline(m, off, line, sizeof(line)))
		snprintf(at, sizeof(at), " at %s", line);
	sym_lock_take();
	f = sym_file(m);
	name = sym_find(f, off, &start);
	if (name)
		snprintf(buf, size, "%s+0x%lx%s (%s+0x%lx)", name,
			 (unsigned long)(off - start), at, base, (unsigned long)off);
	else
		snprintf(buf, size, "??%s (%s+0x%lx)", at, base, (unsigned long)off);
	sym_lock_drop();
}

void sync_describe_pc(uintptr_t pc, char *buf, size_t size)
{
	describe(pc, buf, size, 0);
}

/* The start of the function holding code address pc; pc itself when that
 * is not known. */
static uintptr_t func_start(uintptr_t pc)
{
	const struct rt_module *m = pc ? rt_module_find(pc) : NULL;
	uintptr_t r = pc;
	uint64_t start;
	struct symfile *f;

	if (!m)
		return pc;
	sym_lock_take();
	f = sym_file(m);
	if (sym_find(f, pc - m->bias, &start))
		r = m->bias + start;
	sym_lock_drop();
	return r;
}

/* ---- the probe ---- */

void sync_probe_take(struct rt_thread *td, int n)
{
	struct sync_thread *st = td->sync;
	int i;

	if (!st || st->probe_state != 1)
		return;
	if (n > SYNC_PROBE_FRAMES)
		n = SYNC_PROBE_FRAMES;
	for (i = 0; i < n; i++)
		st->probe_frames[i] = td->frames[i];
	st->probe_n = n;
	__atomic_store_n(&st->probe_state, 2, __ATOMIC_RELEASE);
}

/* A thread as /proc/self/task/TID/syscall shows it (read on the fd
 * thread, rt_fd_private): blocked 1 with its sp and pc, and its call's
 * number nr (-1 blocked outside a call), or 0 running. */
struct kstate {
	pid_t tid;
	int blocked;
	uintptr_t sp, pc;
	long nr;
};

static int read_kstate(void *p)
{
	struct kstate *k = p;
	char buf[512], *at = buf, *end;
	unsigned long long v[9];
	ssize_t len = rt_task_read(k->tid, "syscall", buf, sizeof(buf));
	int n = 0;

	if (len < 0)
		return (int)len;
	k->blocked = 0;
	if (!strncmp(buf, "running", 7))
		return 0;
	/* "NR ARG1 .. ARG6 SP PC", or "-1 SP PC" (blocked outside a call) */
	while (n < 9) {
		v[n] = strtoull(at, &end, 0);
		if (end == at)
			break;
		at = end;
		n++;
	}
	if (n != 3 && n != 9)
		return -EINVAL;
	k->sp = (uintptr_t)v[n - 2];
	k->pc = (uintptr_t)v[n - 1];
	k->nr = n == 9 ? (long)v[0] : -1;
	k->blocked = 1;
	return 0;
}

/* The CPU time of thread tid; UINT64_MAX once it is gone. */
static uint64_t cpu_ns(pid_t tid)
{
	return rt_clock_ns(rt_thread_clock(tid));
}

/*
 * The native path frames[0..n) of td, blocked in the kernel at k, its
 * CPU time cpu, with its Python frames (invariant 6); the new count, n
 * with *changed set when td ran or moved while they were read.
 */
static int blocked_python(struct rt_thread *td, const struct kstate *k,
			  uint64_t cpu, uintptr_t *frames, int n, int *changed)
{
	uintptr_t native[SYNC_PROBE_FRAMES];
	struct kstate again = { td->tid, 0, 0, 0, 0 };
	int got;

	if (!rt_py_is_on() || !rt_fault_recovery())
		return n;
	memcpy(native, frames, (size_t)n * sizeof(*frames));
	if (sigsetjmp(unwinder.unwind_jmp, 0)) {
		/* a read faulted (signals.c jumped here): frames untouched,
		 * python-frames.c invariant 2 */
		unwinder.in_unwind = 0;
		rt_self = NULL;
		return n;
	}
	rt_self = &unwinder;
	unwinder.in_unwind = 1;
	got = rt_py_expand_blocked(&unwinder, td, frames, unwinder.sps, n,
				   SYNC_PROBE_FRAMES);
	unwinder.in_unwind = 0;
	rt_self = NULL;
	if (got == n)
		return n;
	if (cpu_ns(td->tid) != cpu || rt_fd_private(read_kstate, &again) ||
	    !again.blocked || again.sp != k->sp || again.pc != k->pc) {
		memcpy(frames, native, (size_t)n * sizeof(*frames));
		*changed = 1;
		return n;
	}
	return got;
}

/*
 * The path of td when it is blocked in the kernel (invariant 5), from its
 * sp and pc and a copy of its stack made with process_vm_readv (a page
 * unmapped meanwhile, the thread gone, ends the copy: no fault), with its
 * Python frames (invariant 6; *py_changed set when they were dropped);
 * its length, 0 when td is running, -1 when it ran while being read or
 * was in hpcrun's signal handler (to be read again).
 */
static int blocked_path(struct rt_thread *td, uintptr_t *frames,
			int *py_changed)
{
	struct kstate k = { td->tid, 0, 0, 0, 0 };
	struct iovec local, remote[COPY_SIZE / 4096 + 1];
	struct rt_copy c;
	enum rt_unwind_end end;
	uint64_t cpu = cpu_ns(td->tid);
	size_t len = COPY_SIZE;
	uintptr_t a, e;
	ssize_t got;
	int i;

	if (cpu == UINT64_MAX || rt_fd_private(read_kstate, &k) || !k.blocked)
		return 0;
	if (k.sp >= td->stack_lo && k.sp < td->stack_hi && td->stack_hi - k.sp < len)
		len = td->stack_hi - k.sp;
	len &= ~(size_t)7;
	local.iov_base = copy_buf;
	local.iov_len = len;
	/* a page per element: the copy ends at the first unreadable page */
	for (a = k.sp, i = 0; a < k.sp + len; a = e, i++) {
		e = (a & ~(uintptr_t)4095) + 4096;
		if (e > k.sp + len)
			e = k.sp + len;
		remote[i].iov_base = (void *)a;
		remote[i].iov_len = e - a;
	}
	got = process_vm_readv(rt_pid, &local, 1, remote, (unsigned long)i, 0);
	if (cpu_ns(td->tid) != cpu)
		return -1;	/* it ran: the copy may mix two moments */
	memset(&c, 0, sizeof(c));
	c.regs[7] = k.sp;
	c.regs[16] = k.pc;
	c.stack = copy_buf;
	c.len = got > 0 ? (size_t)got & ~(size_t)7 : 0;
	c.live_hi = k.sp + c.len;
	i = rt_unwind_blocked(&unwinder, &c, frames, unwinder.sps,
			      SYNC_PROBE_FRAMES, &end);
	if (end == RT_UNWIND_IN_HANDLER || end == RT_UNWIND_OWN_WORK)
		return -1;	/* in hpcrun's handler or work, soon back */
	if (i <= 0 && !rt_in_hpcrun(k.pc)) {
		frames[0] = k.pc;
		unwinder.sps[0] = k.sp;
		i = 1;
	}
	if (i > 0)
		i = blocked_python(td, &k, cpu, frames, i, py_changed);
	return i > 0 ? i : 0;
}

/*
 * The path of td, running, taken by its own handler (invariant 5): a
 * timer on td's CPU clock sends the probe signal once td has run 1 ns;
 * its length, or 0 when td did not answer within 200 ms.
 */
static int running_path(struct rt_thread *td, uintptr_t *frames)
{
	struct sync_thread *st = td->sync;
	struct itimerspec its = { { 0, 0 }, { 0, 1 } };
	struct timespec ms = { 0, 10000000 };
	timer_t t;
	int i, n, w;

	__atomic_store_n(&st->probe_state, 1, __ATOMIC_RELEASE);
	if (rt_timer_create(td->tid, rt_thread_clock(td->tid), RT_PATH_PROBE, 0, &t))
		return 0;
	if (!timer_settime(t, 0, &its, NULL))
		for (w = 0; w < 20 && __atomic_load_n(&st->probe_state,
						      __ATOMIC_ACQUIRE) != 2; w++)
			nanosleep(&ms, NULL);
	timer_delete(t);
	if (__atomic_load_n(&st->probe_state, __ATOMIC_ACQUIRE) != 2)
		return 0;
	n = st->probe_n;
	for (i = 0; i < n; i++)
		frames[i] = st->probe_frames[i];
	st->probe_state = 0;
	return n;
}

/* The path of td (invariant 5); its length.  *py_changed: see
 * blocked_path. */
static int probe_path(struct rt_thread *td, uintptr_t *frames, int *py_changed)
{
	int i, n;

	*py_changed = 0;
	if (!td->sync)
		return 0;
	for (i = 0; i < 3; i++) {
		n = blocked_path(td, frames, py_changed);
		if (!n)
			n = running_path(td, frames);
		if (n > 0)
			return n;
	}
	return 0;
}

/* ---- the snapshot (invariant 1) ---- */

static void snap_thread(struct rt_thread *td)
{
	struct sync_thread *st = sync_thread_state(td);
	struct snap *s;
	uint64_t cpu;
	unsigned i;

	if (!st || nsnap == MAX_SNAP)
		return;
	s = &snaps[nsnap++];
	memset(s, 0, offsetof(struct snap, frames));
	s->index = td->index;
	s->tid = td->tid;
	for (i = 0; i < 100; i++) {
		uint64_t seq = __atomic_load_n(&st->wait.seq, __ATOMIC_ACQUIRE);

		if (seq & 1)
			continue;
		s->wait.site = st->wait.site;
		s->wait.kind = st->wait.kind;
		s->wait.how = st->wait.how;
		s->wait.obj = st->wait.obj;
		s->wait.lock = st->wait.lock;
		s->wait.ra = st->wait.ra;
		s->wait.episode = st->wait.episode;
		s->wait.since = st->wait.since;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&st->wait.seq, __ATOMIC_RELAXED) == seq)
			break;
	}
	if (i == 100 || s->wait.since > now_ns)
		s->wait.site = 0;	/* changing all along: not blocked */
	if (s->wait.site && s->wait.obj) {
		memcpy(s->seen_bits, s->wait.obj->seen, sizeof(s->seen_bits));
		s->obj_gen = s->wait.obj->gen;
		s->obj_n = s->wait.obj->n;
	}
	if ((cpu = cpu_ns(td->tid)) != UINT64_MAX)
		s->cpu = cpu;
	st->cpu_hist[st->cpu_pos++ % 128].t = now_ns;
	st->cpu_hist[(st->cpu_pos - 1) % 128].cpu = s->cpu;
	for (i = 0; i < 64; i++)
		hist[i] += st->dur_hist[i];
}

/* The CPU time of thread index at the first tick at or after t. */
struct cpu_query {
	int index;
	uint64_t t, cpu, at;
	int found;
};
static struct cpu_query cq;

static void cpu_at(struct rt_thread *td)
{
	struct sync_thread *st = td->sync;
	unsigned i, n;

	if (td->index != cq.index || !st)
		return;
	n = st->cpu_pos < 128 ? st->cpu_pos : 128;
	for (i = 0; i < n; i++) {
		unsigned k = (st->cpu_pos - n + i) % 128;

		if (st->cpu_hist[k].t >= cq.t || i == n - 1) {
			cq.cpu = st->cpu_hist[k].cpu;
			cq.at = st->cpu_hist[k].t;
			cq.found = 1;
			return;
		}
	}
}

/* The signature of a probed path: the leaf's function and the return
 * addresses above it (invariant 2), so that a loop within one function
 * keeps one signature wherever in the loop the probe lands. */
static uint64_t path_sig(const uintptr_t *frames, int n)
{
	uint64_t h;
	int i, k = 0;

	/* a thread running Python is where its innermost Python frame is: that
	 * code, wherever in it (and in whichever C function it calls) the
	 * probe landed, and the frames outside it */
	for (k = 0; k < n && !rt_py_frame(frames[k]); k++)
		;
	if (k < n) {
		h = hpcpy_addr_id(frames[k] & ~RT_PY_FRAME) * 0x9e3779b97f4a7c15ull;
		for (i = k + 1; i < n; i++)
			h = (h ^ frames[i]) * 0xbf58476d1ce4e5b9ull;
		return h ^ (uint64_t)(n - k);
	}
	k = 0;

	/* frames in another module than their caller's (a loop's call of
	 * clock_gettime: the vdso, then libc) are where it is, not which
	 * loop: the signature starts at the first frame in its caller's
	 * module, by its function */
	while (k + 1 < n && rt_module_find(frames[k]) != rt_module_find(frames[k + 1]))
		k++;
	h = func_start(k ? frames[k] - 1 : frames[k]) * 0x9e3779b97f4a7c15ull;
	for (i = k + 1; i < n; i++)
		h = (h ^ frames[i]) * 0xbf58476d1ce4e5b9ull;
	return h ^ (uint64_t)(n - k);
}

static uint64_t watch_key;		/* the wait being watched; 0 none */

/* After a probe of s's thread for the wait watch_key: how long its path
 * has kept one signature, in its sync state (the detector's) and in s. */
static void watch_update(struct sync_thread *st, struct snap *s)
{
	uint64_t sig;

	if (s->probe_n <= 0)
		return;
	sig = path_sig(s->frames, s->probe_n);
	if (st->watch.key != watch_key || st->watch.sig != sig) {
		st->watch.moved = st->watch.key == watch_key;
		st->watch.key = watch_key;
		st->watch.sig = sig;
		st->watch.since = now_ns;
		st->watch.probes = 0;
	}
	st->watch.probes++;
	s->same_since = st->watch.since;
	s->same_probes = st->watch.probes;
	s->moved = st->watch.moved;
}

/* Probes the threads whose snapshots have probe_n == -1, and watches
 * their paths when watch_key is set. */
static void probe_marked(struct rt_thread *td)
{
	int i;

	for (i = 0; i < nsnap; i++)
		if (snaps[i].index == td->index && snaps[i].probe_n == -1) {
			snaps[i].probe_n = probe_path(td, snaps[i].frames,
						      &snaps[i].py_changed);
			py_names_note(td, snaps[i].frames, snaps[i].probe_n);
			if (watch_key && td->sync)
				watch_update(td->sync, &snaps[i]);
		}
}

/* The median of the episodes' durations so far (ns; 0 none). */
static uint64_t sync_median_episode(void)
{
	uint64_t total = 0, acc = 0;
	int i;

	for (i = 0; i < 64; i++)
		total += hist[i];
	if (!total)
		return 0;
	for (i = 0; i < 64; i++) {
		acc += hist[i];
		if (acc * 2 >= total)
			return (3ull << i) / 2;
	}
	return 0;
}

/* ---- the report ---- */

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (text_len >= TEXT_SIZE - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(text + text_len, TEXT_SIZE - text_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		text_len += (size_t)n < TEXT_SIZE - text_len ? (size_t)n :
			    TEXT_SIZE - text_len - 1;
}

static void put_frames(const struct snap *s)
{
	char where[600];
	int i;

	if (s->probe_n <= 0)
		put("  frame: none (the thread did not answer the probe)\n");
	if (s->py_changed)
		put("  frames: native only (Python frames changed while read)\n");
	for (i = 0; i < s->probe_n; i++) {
		/* a return address's call is the byte before it; a Python
		 * frame names its instruction itself */
		describe(i && !rt_py_frame(s->frames[i]) ? s->frames[i] - 1 :
			 s->frames[i], where, sizeof(where), 1);
		put("  frame: %d %s\n", i, where);
	}
}

static int append_hang(void *p)
{
	int fd, err;

	(void)p;
	if (!hang_path[0]) {
		fd = rt_create_file(0, ".hang", hang_path, sizeof(hang_path));
		if (fd < 0)
			hang_path[0] = '\0';
	} else {
		fd = rt_io_open(hang_path, O_WRONLY | O_APPEND | O_CLOEXEC, 0);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		return fd;
	err = hpc_write_all(fd, text, text_len);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* Shows the report on stderr, appends it to the .hang file, and, for a
 * hang (not a late thread nor a stall), ends the process when
 * --hang-action=abort. */
static void emit(int hang)
{
	struct rt_io io;
	int err;

	reports++;
	rt_say_lines(text, text_len);
	rt_io_begin(&io);
	err = rt_fd_private(append_hang, NULL);
	rt_io_end(&io);
	if (err)
		rt_say_lost(hang_path[0] ? hang_path : rt_cfg.outdir, -err,
			    "hang report not written");
	if (hang && sync_cfg.hang_abort) {
		rt_say("--hang-action=abort: aborting the program", NULL);
		kill(rt_pid, SIGABRT);
	}
}

static int is_reported(uint64_t key)
{
	int i;

	for (i = 0; i < nreported; i++)
		if (reported[i] == key)
			return 1;
	return 0;
}

static int was_reported(uint64_t key)
{
	if (is_reported(key))
		return 1;
	if (nreported < MAX_REPORTED)
		reported[nreported++] = key;
	return 0;
}

/* A report's first lines: what was found (hang: what), when, at which
 * effective timeout. */
static void put_head(const char *what, uint64_t timeout)
{
	text_len = 0;
	put("hpcrun-hang: 1\nhang: %s\ntime: %.3f\ntimeout: %.3f\n", what,
	    (double)(now_ns - sync_cfg.start_ns) / 1e9, (double)timeout / 1e9);
}

/* WHERE (describe) of site's call into where, its kind and object in
 * *kind and *obj (left as they are when the site is unknown). */
static void site_where(uint32_t site, int *kind, uintptr_t *obj, char *where,
		       size_t size)
{
	uintptr_t ra = 0;

	sync_site_info(site, kind, obj, &ra);
	describe(ra ? ra - 1 : 0, where, size, 1);
}

static void put_site(uint32_t site)
{
	char where[600];
	uintptr_t obj = 0;
	int kind = -1;		/* "?" when the site is unknown */

	site_where(site, &kind, &obj, where, sizeof(where));
	put("site: %u %s 0x%lx %s\n", site,
	    hpcsync_kind_name((enum hpcsync_kind)kind),
	    (unsigned long)obj, where);
}

static int waits_at(const struct snap *s, const struct snap *w)
{
	return s->wait.site && s->wait.obj == w->wait.obj &&
	       s->wait.episode == w->wait.episode;
}

/* Is s stuck (invariant 2) over the wait that began at since?  -1: not
 * known yet (no earlier tick of the thread). */
static int stuck(const struct snap *s, uint64_t since, double *cpu_s, double *win_s)
{
	struct kstate k = { s->tid, 0, 0, 0, 0 };
	uint64_t dc, dt;

	cq.index = s->index;
	cq.t = since;
	cq.found = 0;
	rt_threads_apply(cpu_at);
	if (!cq.found || cq.at >= now_ns)
		return -1;
	dc = s->cpu > cq.cpu ? s->cpu - cq.cpu : 0;
	dt = now_ns - cq.at;
	*cpu_s = (double)dc / 1e9;
	*win_s = (double)dt / 1e9;
	if (dc >= 10000000u || dc * 50 >= dt)
		return 0;
	/* runnable, the machine busy with other work: not stuck */
	return rt_fd_private(read_kstate, &k) || k.blocked;
}

/* The key of ws's episode for was_reported (invariant 4). */
static uint64_t barrier_key(const struct snap *ws)
{
	return (uint64_t)(uintptr_t)ws->wait.obj ^ ((uint64_t)ws->obj_gen << 48) ^
	       (ws->wait.episode * 0x9e3779b97f4a7c15ull);
}

#define LATE_KEY 0x1a7e000000000000ull

/* Has s's path kept one signature through the wait (at 3 probes or more
 * over half the timeout), or, after it moved, through the wait's last
 * half (at 20 probes or more)?  (Invariant 2.) */
static int in_one_place(const struct snap *s, uint64_t timeout, uint64_t waited)
{
	uint64_t same = now_ns - s->same_since;

	if (s->same_probes < LATE_PROBES || same < timeout / 2)
		return 0;
	return !s->moved || (s->same_probes >= 20 && same >= waited / 2);
}

/* The missing threads of the episode being checked. */
static struct {
	int n, snap[MAX_SNAP], stuck[MAX_SNAP];
	double cpu[MAX_SNAP], win[MAX_SNAP];
} miss;

/* The report of a barrier hang, or (late) of threads late and still
 * computing in one place; nwaiting threads wait at it, and it needs need
 * more. */
static void report_barrier(const struct snap *ws, uint64_t timeout,
			   uint64_t waited, int late, int nwaiting, int need)
{
	int i, nstuck = 0;

	for (i = 0; i < miss.n; i++)
		if (!snaps[miss.snap[i]].probe_n)
			snaps[miss.snap[i]].probe_n = -1;
	rt_threads_apply(probe_marked);
	put_head(late ? "late" : "barrier", timeout);
	put_site(ws->wait.site);
	put("episode: %llu\n", (unsigned long long)ws->wait.episode);
	for (i = 0; i < nsnap; i++)
		if (waits_at(&snaps[i], ws))
			put("waiting: thread %d tid %d for %.3f s\n", snaps[i].index,
			    (int)snaps[i].tid, (double)(now_ns - snaps[i].wait.since) / 1e9);
	if (!miss.n)
		put("missing: none measured (the missing threads ended, or were "
		    "never measured)\n");
	for (i = 0; i < miss.n; i++) {
		const struct snap *s = &snaps[miss.snap[i]];

		put("missing: thread %d tid %d %s cpu %.3f s in the last %.3f s",
		    s->index, (int)s->tid, miss.stuck[i] ? "stuck" :
		    late ? "computing" : "slow", miss.cpu[i], miss.win[i]);
		if (!miss.stuck[i] && s->same_probes && in_one_place(s, timeout, waited))
			put("; path unchanged for %.3f s\n",
			    (double)(now_ns - s->same_since) / 1e9);
		else if (!miss.stuck[i] && s->same_probes)
			put("; path changing\n");
		else
			put("\n");
		put_frames(s);
		nstuck += miss.stuck[i];
	}
	if (ws->obj_n && (int)ws->obj_n - nwaiting < miss.n)
		put("note: the barrier waits for %d more of its %u threads, "
		    "among the %d listed\n",
		    (int)ws->obj_n - nwaiting, ws->obj_n, miss.n);
	if (late)
		put("note: not arrived after the timeout and still computing in "
		    "one place (the frames): a livelock, or a long loop before the "
		    "barrier; a hang at %.3f s of its CPU time (--hang-action "
		    "applies then)\n", 10 * (double)timeout / 1e9);
	if (late && nstuck)
		put("note: %d of the missing threads compute, enough for the %d "
		    "more it needs: those stuck may be no party to it\n",
		    miss.n - nstuck, need);
	put("end\n");
	emit(!late);
}

static void check_barrier(int w, uint64_t timeout)
{
	const struct snap *ws = &snaps[w];
	uint64_t since = ws->wait.since, waited, key;
	int i, nstuck = 0, use_seen = 0, nwaiting = 0, nsame = 0, need, can_end;
	double most_cpu = 0;

	for (i = 0; i < nsnap; i++)
		if (waits_at(&snaps[i], ws)) {
			if (i < w)
				return;		/* checked from its first waiter */
			nwaiting++;
			if (snaps[i].wait.since < since)
				since = snaps[i].wait.since;
		}
	waited = now_ns - since;
	if (waited < TICK_NS)
		return;
	if (ws->obj_n && (uint32_t)nwaiting >= ws->obj_n)
		return;		/* all there: it is ending */
	for (i = 0; i < nsnap; i++) {
		unsigned idx = (unsigned)snaps[i].index;

		if (!waits_at(&snaps[i], ws) && idx < 256 &&
		    (ws->seen_bits[idx / 64] & (1ull << (idx % 64))))
			use_seen = 1;
	}
	miss.n = 0;
	for (i = 0; i < nsnap; i++) {
		unsigned idx = (unsigned)snaps[i].index;
		int k = miss.n;

		if (waits_at(&snaps[i], ws))
			continue;
		if (use_seen && (idx >= 256 ||
				 !(ws->seen_bits[idx / 64] & (1ull << (idx % 64)))))
			continue;
		miss.snap[k] = i;
		miss.stuck[k] = stuck(&snaps[i], since, &miss.cpu[k], &miss.win[k]);
		if (miss.stuck[k] < 0)
			return;		/* at the next tick */
		nstuck += miss.stuck[k];
		if (miss.cpu[k] > most_cpu)
			most_cpu = miss.cpu[k];
		miss.n++;
	}
	/* how many more it needs: the rest of its count; without one, every
	 * participant missing, or one when none is known.  It can still end
	 * when none is stuck (one not yet made may come too), or when those
	 * computing are as many as it needs (the stuck ones may be no party
	 * to it: on a first episode every thread not there is listed) */
	need = ws->obj_n ? (int)ws->obj_n - nwaiting : use_seen ? miss.n : 1;
	can_end = miss.n && (!nstuck || miss.n - nstuck >= need);
	key = barrier_key(ws);
	if (can_end) {
		/* those computing can end the wait: watch their paths */
		for (i = 0; i < miss.n; i++)
			if (!miss.stuck[i])
				snaps[miss.snap[i]].probe_n = -1;
		watch_key = key ? key : 1;
		rt_threads_apply(probe_marked);
		watch_key = 0;
	}
	if (waited < timeout)
		return;
	if (can_end) {
		for (i = 0; i < miss.n; i++)
			nsame += !miss.stuck[i] &&
				 in_one_place(&snaps[miss.snap[i]], timeout, waited);
		if (!nsame)
			return;		/* their paths move: a serial phase */
		if (most_cpu < 10 * (double)timeout / 1e9) {
			if (!was_reported(key ^ LATE_KEY))
				report_barrier(ws, timeout, waited, 1,
					       nwaiting, need);
			return;
		}
	}
	if (!was_reported(key))
		report_barrier(ws, timeout, waited, 0, nwaiting, need);
}

/* The snapshot of the thread with tid, or -1. */
static int by_tid(pid_t tid)
{
	int i;

	for (i = 0; i < nsnap; i++)
		if (snaps[i].tid == tid)
			return i;
	return -1;
}

static pid_t mutex_owner(uintptr_t m)
{
	return (pid_t)__atomic_load_n(&((pthread_mutex_t *)m)->__data.__owner,
				      __ATOMIC_RELAXED);
}

static void check_deadlock(int w, uint64_t timeout)
{
	int chain[MAX_SNAP], n = 0, cur = w, i, lowest = w, closed = 0;
	uint64_t key;

	while (!closed && n < nsnap) {
		const struct snap *s = &snaps[cur];
		int next;

		if (!s->wait.site || s->wait.kind != HPCSYNC_MUTEX ||
		    now_ns - s->wait.since < timeout)
			return;
		chain[n++] = cur;
		next = by_tid(mutex_owner(s->wait.lock));
		if (next < 0)
			return;
		closed = next == w;
		for (i = 0; i < n && !closed; i++)
			if (chain[i] == next)
				return;		/* a cycle w is not on */
		cur = next;
	}
	if (!closed)
		return;
	snaps[w].in_cycle = 1;
	for (i = 0; i < n; i++)
		if (snaps[chain[i]].index < snaps[lowest].index)
			lowest = chain[i];
	if (lowest != w)
		return;		/* reported from its lowest thread */
	key = 0xdead000000000000ull ^ (uint64_t)snaps[w].wait.lock ^
	      (uint64_t)snaps[w].index;
	if (was_reported(key))
		return;
	for (i = 0; i < n; i++)
		snaps[chain[i]].probe_n = -1;
	rt_threads_apply(probe_marked);
	put_head("deadlock", timeout);
	for (i = 0; i < n; i++) {
		const struct snap *s = &snaps[chain[i]], *o = &snaps[chain[(i + 1) % n]];
		char where[600];
		uintptr_t obj = 0;
		int kind = 0;

		site_where(s->wait.site, &kind, &obj, where, sizeof(where));
		put("cycle: thread %d waits for mutex 0x%lx held by thread %d at %s\n",
		    s->index, (unsigned long)s->wait.lock, o->index, where);
	}
	for (i = 0; i < n; i++) {
		const struct snap *s = &snaps[chain[i]];

		put("waiting: thread %d tid %d for %.3f s\n", s->index, (int)s->tid,
		    (double)(now_ns - s->wait.since) / 1e9);
		put_frames(s);
	}
	put("end\n");
	emit(1);
}

/* Does s wait as a stall's threads do (invariant 7): a lock kind with
 * no timeout on a private object, for timeout or longer? */
static int stall_waits(const struct snap *s, uint64_t timeout)
{
	return s->wait.site && !s->wait.obj && !s->in_cycle &&
	       (s->wait.kind == HPCSYNC_MUTEX || s->wait.kind == HPCSYNC_COND ||
		s->wait.kind == HPCSYNC_SEM || s->wait.kind == SYNC_KIND_JOIN) &&
	       !(s->wait.how & (SYNC_WAIT_TIMED | SYNC_WAIT_SHARED)) &&
	       now_ns - s->wait.since >= timeout;
}

/* Is s's thread blocked in futex, its CPU time the same since a tick in
 * the second half of its wait (invariant 7)? */
static int stall_blocked(const struct snap *s)
{
	struct kstate k = { s->tid, 0, 0, 0, 0 };

	cq.index = s->index;
	cq.t = s->wait.since + (now_ns - s->wait.since) / 2;
	cq.found = 0;
	rt_threads_apply(cpu_at);
	if (!cq.found || cq.at >= now_ns || cq.cpu != s->cpu)
		return 0;
	if (rt_fd_private(read_kstate, &k) || !k.blocked || k.nr != SYS_futex)
		return 0;
	return cpu_ns(s->tid) == s->cpu;
}

#define STALL_TASKS 1024
static pid_t stall_tids[STALL_TASKS];

/* Reports a stall (invariant 7) the first time it sees one. */
static void check_stall(uint64_t timeout)
{
	struct rt_task_list l = { stall_tids, STALL_TASKS, 0 };
	uint64_t key = 0x57a1100000000000ull;
	size_t t;
	int i, n = 0;

	if (!nsnap)
		return;
	for (i = 0; i < nsnap; i++) {
		if (!stall_waits(&snaps[i], timeout))
			return;
		/* a sum: the key of the set, whatever the threads' order */
		key += ((uint64_t)snaps[i].tid * 0x9e3779b97f4a7c15ull) ^
		       ((uint64_t)snaps[i].wait.lock * 0xbf58476d1ce4e5b9ull);
	}
	if (is_reported(key) || rt_fd_private(rt_list_tasks, &l) ||
	    l.n == STALL_TASKS)
		return;
	for (t = 0; t < l.n; t++) {
		if (by_tid(l.tid[t]) >= 0)
			n++;
		else if (!rt_is_own_tid(l.tid[t]))
			return;		/* a task not measured */
	}
	if (n != nsnap)
		return;
	for (i = 0; i < nsnap; i++)
		if (!stall_blocked(&snaps[i]))
			return;
	for (i = 0; i < nsnap; i++)
		snaps[i].probe_n = -1;
	rt_threads_apply(probe_marked);
	for (i = 0; i < nsnap; i++)
		if (cpu_ns(snaps[i].tid) != snaps[i].cpu)
			return;		/* it ran meanwhile: woken */
	was_reported(key);
	put_head("stalled", timeout);
	put("note: every thread waits for another: a deadlock, unless a signal "
	    "handler or another process releases one\n");
	for (i = 0; i < nsnap; i++) {
		const struct snap *s = &snaps[i];
		char where[600];
		uintptr_t obj = 0;
		int kind = 0;

		if (s->wait.kind == SYNC_KIND_JOIN)
			describe(s->wait.ra - 1, where, sizeof(where), 1);
		else
			site_where(s->wait.site, &kind, &obj, where, sizeof(where));
		put("stalled: thread %d tid %d in %s 0x%lx for %.3f s at %s\n",
		    s->index, (int)s->tid, s->wait.kind == SYNC_KIND_JOIN ?
		    "pthread_join" :
		    hpcsync_kind_function((enum hpcsync_kind)s->wait.kind),
		    (unsigned long)s->wait.lock,
		    (double)(now_ns - s->wait.since) / 1e9, where);
		put_frames(s);
	}
	put("end\n");
	emit(0);
}

static void *detector(void *arg)
{
	sigset_t all;
	uint64_t tick;
	uint64_t rnd = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull | 1;
	uint64_t every = TICK_NS;
	int i;

	(void)arg;
	rt_fd_block_signals(&all);	/* the faults reach signals.c */
	for (;;) {
		uint64_t timeout, med;

		/* ticks every +-20% apart: probes land at no fixed phase of a
		 * program's periodic loop */
		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		tick = every - every / 5 + rnd % (2 * every / 5 + 1);
		rt_futex_wait(&rt_own_stop, 0, tick);
		if (__atomic_load_n(&rt_own_stop, __ATOMIC_SEQ_CST))
			break;		/* standing aside (rt_own_pause) */
		if (!rt_active || detector_pid != getpid())
			continue;
		now_ns = sync_now();
		nsnap = 0;
		memset(hist, 0, sizeof(hist));
		rt_threads_apply(snap_thread);
		med = sync_median_episode();
		timeout = sync_cfg.hang_ns;
		if (med * 100 > timeout)
			timeout = med * 100;
		every = timeout / 8 < TICK_NS ? timeout / 8 : TICK_NS;
		if (every < MIN_TICK_NS)
			every = MIN_TICK_NS;
		for (i = 0; i < nsnap; i++) {
			if (!snaps[i].wait.site)
				continue;
			if (snaps[i].wait.obj)
				check_barrier(i, timeout);
			else if (snaps[i].wait.kind == HPCSYNC_MUTEX)
				check_deadlock(i, timeout);
		}
		check_stall(timeout);
	}
	__atomic_store_n(&detector_live, 0, __ATOMIC_SEQ_CST);
	return NULL;
}

static void detector_make(void)
{
	if (rt_own_thread(detector, NULL, 256 << 10))
		rt_note("warning: no thread for the hang detector: no hang reports");
	else
		detector_live = 1;
}

void sync_hang_start(void)
{
	pid_t me = getpid();

	if (!sync_cfg.hang_ns || __atomic_load_n(&detector_pid, __ATOMIC_ACQUIRE) == me ||
	    __atomic_exchange_n(&detector_pid, me, __ATOMIC_ACQ_REL) == me)
		return;
	if (!snaps)
		snaps = mmap(NULL, MAX_SNAP * sizeof(*snaps) + TEXT_SIZE + COPY_SIZE +
			     rt_unwind_cache_size(), PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (snaps == MAP_FAILED) {
		snaps = NULL;
		return;
	}
	text = (char *)(snaps + MAX_SNAP);
	copy_buf = (unsigned char *)text + TEXT_SIZE;
	unwinder.uwc = (struct uw_cache *)(void *)(copy_buf + COPY_SIZE);
	detector_make();
}

/* After rt_own_pause: the detector left its loop, a new one goes on. */
static void hang_own_resume(void)
{
	if (!__atomic_load_n(&detector_live, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&detector_pid, __ATOMIC_ACQUIRE) == getpid())
		detector_make();
}

/* After fork in the child: no detector thread there yet. */
static void sync_hang_after_fork(void)
{
	detector_live = 0;
	nreported = 0;
	hang_path[0] = '\0';
	reports = 0;
}

const struct rt_capability hang_capability = {
	.name = "hang",
	.fork_child_measuring = sync_hang_after_fork,
	.own_resume = hang_own_resume,
};
