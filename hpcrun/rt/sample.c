/*
 * sample.c - the sampling signal handler.
 *
 * RULES FOR EVERYTHING REACHED FROM rt_sample_handler() (and why),
 * enforced by tests/t1111-hpcrun-sample-path-symbols.sh: every library
 * function (or exported wrapper) the handler and the sources' value()
 * reach by direct calls, through any object of the runtime, must be on
 * its allowlist, each entry saying why it is safe here:
 *  - No malloc/free, no stdio, no locks, no dl_iterate_phdr, no dlsym: the
 *    signal can interrupt the program inside any of them while it holds
 *    their lock, and re-entering would deadlock or corrupt the heap.
 *  - Memory: only this thread's struct rt_thread (arena, frame buffer), the
 *    immutable load-map snapshot, and stack/code the unwinder validated.
 *  - Only async-signal-safe system calls (read on a perf fd,
 *    timer_getoverrun, clock_gettime); errno is saved and restored.
 *  - No fd is opened and no process-wide limit changed: a number the
 *    handler took in the program's table, even for a moment, would make
 *    the program's open() on another thread fail with EMFILE or return
 *    another number, and a lifted RLIMIT_FSIZE would let the program's
 *    own writes pass its limit.  File work is posted to hpcrun's writer
 *    (fd-gate.c, THE WRITER: a compare-and-swap and a futex wake), which
 *    does it in a fd table of its own: a full trace buffer (trace.h,
 *    invariant 4), the tree's next live-file chunk, mapped ahead (cct.c,
 *    invariant 5).
 *  - The drain timer's signal (RT_DRAIN_TIMER) takes the samples the
 *    kernel wrote into this thread's ring buffers (source-perf.c, THE
 *    RING) and records each as the handler records its own sample; one
 *    taken in a system call gets its kernel ip as one more frame, the
 *    leaf (kernel-time.h, invariant 2).
 *  - The hang detector's path probe (RT_PATH_PROBE, sync-hang.c) unwinds the
 *    interrupted context, with its Python frames, into the thread's own
 *    sync state; a sample of a thread in a synchronization phase is also
 *    put under ^Phases (sync.c), with the same tree calls.
 *  - hpcrun -t: a recorded sample's leaf is also a trace record, stored
 *    into the thread's own buffer; the buffer that fills is posted to
 *    the writer and the other one filled (trace.h, invariant 4).
 *  - hpcrun --data: the data address of a sample and the object it falls
 *    in are found with the sample's registers, a Capstone decoder made for
 *    the thread beforehand and the object map's lock-free snapshots
 *    (datacentric.c, datacentric-memop.c): no allocation, no lock there either;
 *    with --sharing such a sample is also an access record, a store into
 *    the thread's own buffer, mapped with mmap at its first record
 *    (sharing.h, invariant 3).
 *  - In a process running CPython, the eval function's frames of a path
 *    are replaced by the Python frames they run (python-frames.c): the
 *    interpreter's memory is read under the unwinder's fault recovery,
 *    each walk bounded, the thread's state and code arena mapped with
 *    mmap on first need; nothing else is allocated.
 *  - hpcrun's own cost is not the program's: a sample whose pc is in
 *    libhpcrun.so (tracking an allocation, unwinding for an allocation or
 *    sync site, a wrapper's bookkeeping), or in the kernel returning from
 *    hpcrun's signal (kernel-time.h, invariant 2), is counted as
 *    in_hpcrun and kept out of the tree, and no recorded path holds a
 *    frame of libhpcrun.so (unwind.c, invariant 4).  So is a sample in a
 *    library hpcrun calls for its own work, which would read as the
 *    program's call of it: one whose path the unwinder ends
 *    RT_UNWIND_OWN_WORK (a library called by name from libhpcrun.so: a
 *    wrapper's clock, lock or map; unwind.c, invariant 5), and one the
 *    thread takes between rt_own_begin and rt_own_end (runtime.h), by
 *    signal or stamped in a ring: a thread's start (its tree, its rings)
 *    and end (its profile, its side files), the process's end, hpcrun's
 *    own threads, the load map after dlopen and dlclose, an allocation's
 *    or a sync site's path.  A wrapper forwarding the program's call
 *    (malloc, a lock, a wait) charges the program's call.
 *  - Never block or wait, but for the one signal that parks a thread
 *    while the process's end is written (RT_EXIT_PARK, runtime.c, THE
 *    PARK AT EXIT): a futex wait with a timeout, nothing else.  A sample
 *    that cannot be recorded is dropped and
 *    counted by reason (busy = nested signal, nomodule = pc outside every
 *    module, full = arena exhausted, stopped = measurement ended,
 *    foreign = the signal did not come from one of our events).
 *  - The handler runs on the program's stack (the thread's, or the
 *    alternate signal stack it runs a handler of its own on): with less
 *    than HANDLER_ROOM left below the handler's frame on a stack of known
 *    bounds, the signal is dropped, counted (low_stack), before any work:
 *    a thread near the end of a small stack (a 16-64 KiB pthread stack, a
 *    deep recursion, a small alternate stack) would overflow in the
 *    unwinder, which needs some 7 KiB.  A stack of unknown bounds (a
 *    coroutine's) is taken as having room.
 *  - td->busy brackets the work, so the thread writing profiles at process
 *    end can wait for a handler in progress on another thread, and a
 *    thread taking a perf fd away (the program closed it, or the thread
 *    ends) can wait until the handler no longer uses the number.  The fd
 *    is loaded after busy is set; a fd of -1 is never read.
 *
 * THE BACKLOG.  A perf event's signals queue one per sample: a handler
 * slower than the samples come (a deep stack at a high rate, each sample's
 * own time counting towards the next) would queue them without end, until
 * the kernel's queue of real-time signals is full and it sends SIGIO
 * instead, whose default action ends the program; perf's trap does not
 * queue, but its next signal waits at the handler's end and the program
 * never runs between them.  So when LATE_SAMPLES
 * perf samples in a row end with the next one already queued, the next
 * samples record their leaf alone (under ^Partial, counted as
 * samples-behind), cheap enough to drain the queue, until one ends with
 * none queued.  Only a handler that took LATE_CHECK_NS or more, or one
 * already behind, looks (rt_sigpending): a quicker one cannot fall behind.
 * Timer signals do not queue (a timer counts overruns).
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cct.h"
#include "datacentric.h"
#include "kernel-time.h"
#include "python-frames.h"
#include "runtime.h"
#include "sharing.h"
#include "source.h"
#include "sync.h"
#include "trace.h"
#include "unwind.h"

/* Perf samples in a row ending with the next queued before the handler
 * records leaves alone (THE BACKLOG). */
#define LATE_SAMPLES 32
/* A handler quicker than this keeps up with any rate perf samples at (at
 * most 100 kHz): it does not look for a queued signal, a system call. */
#define LATE_CHECK_NS 10000

/* Is signal sig queued for this thread (blocked while its handler
 * runs)?  The raw system call: the kernel's sigset is 8 bytes. */
static int signal_queued(int sig)
{
	uint64_t set = 0;

	if (syscall(SYS_rt_sigpending, &set, sizeof(set)))
		return 0;
	return (int)((set >> (sig - 1)) & 1);
}

/*
 * rt_unwind() of the interrupted context uc, or rt_unwind_copy() of c, into
 * td->frames, with a way back should a memory read fault anyway: the
 * fatal-signal handler (signals.c, own_fault) jumps to the buffer of
 * self, the thread running this.
 */
static int unwind_guarded(struct rt_thread *td, struct rt_thread *self,
			  const void *uc, const struct rt_copy *c,
			  enum rt_unwind_end *end)
{
	uintptr_t pc = c ? c->regs[RT_UNWIND_REGS - 1] :
		(uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	uintptr_t *sps;
	int n;

	if (sigsetjmp(self->unwind_jmp, 0)) {
		/* A read faulted despite the checks (signals.c jumped here). */
		self->in_unwind = 0;
		td->sps_ok = 0;
		td->counts.unwind_faults++;
		td->frames[0] = pc;
		*end = RT_UNWIND_FAILED;
		return 1;
	}
	self->in_unwind = 1;
	td->sps_ok = 0;
	sps = rt_py_lm ? td->sps : NULL;
	n = c ? rt_unwind_copy(td, c, td->frames, sps, RT_MAX_FRAMES, end) :
		rt_unwind(uc, td, td->frames, sps, RT_MAX_FRAMES, end);
	td->sps_ok = sps != NULL;
	self->in_unwind = 0;
	return n;
}

/*
 * td->frames[0..n) of td's own live stack with its eval frames replaced
 * by their Python frames (python-frames.h), under the same recovery as
 * unwind_guarded: a read that faults leaves the native path as it was.
 * A path the Python frames make longer than a path can be is cut to its
 * innermost frames and *end made RT_UNWIND_FAILED: partial.
 */
static int python_guarded(struct rt_thread *td, int n,
			  enum rt_unwind_end *end)
{
	int k, cut = 0;

	if (!rt_py_lm || n <= 0)
		return n;
	if (sigsetjmp(td->unwind_jmp, 0)) {
		td->in_unwind = 0;
		rt_py_fault(td);
		return n;
	}
	td->in_unwind = 1;
	k = rt_py_expand(td, td->sps_ok ? td->sps : NULL, n, &cut);
	td->in_unwind = 0;
	if (cut)
		*end = RT_UNWIND_FAILED;
	return k;
}

uint64_t rt_py_key_guarded(struct rt_thread *td)
{
	uint64_t k;

	if (!rt_py_lm)
		return 0;
	if (sigsetjmp(td->unwind_jmp, 0)) {
		td->in_unwind = 0;
		rt_py_fault(td);
		return 0;
	}
	td->in_unwind = 1;
	k = rt_py_key(td);
	td->in_unwind = 0;
	return k;
}

/* Is the sample's own pc (uc's, or c's) in libhpcrun.so? */
static int in_hpcrun(const void *uc, const struct rt_copy *c)
{
	return rt_in_hpcrun(c ? c->regs[RT_UNWIND_REGS - 1] :
		(uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP]);
}

/* Inserts the path in td->frames[0..n) of a sample of event idx taken at
 * time (0: now); with hpcrun --data under the data root its registers
 * regs (or its data address fault) lead to (datacentric.c).  With
 * hpcrun -t its leaf is the trace's record at trace_time (trace.h).
 * Returns the path's leaf node, or NULL when the sample was dropped. */
static struct cct_node *record(struct rt_thread *td, int idx, int n,
			       enum rt_unwind_end end, uint64_t time,
			       uint64_t trace_time, double val,
			       const uintptr_t *regs, const uintptr_t *fault)
{
	struct cct_node *root, *place, *leaf;
	int rc;

	if (end == RT_UNWIND_IN_HANDLER) {
		/* taken in hpcrun's handler, which one signal per sample
		 * never interrupts: counted as nested */
		td->counts.dropped_busy++;
		return NULL;
	}
	if (n == 0 && end != RT_UNWIND_STOP_FRAME) {
		td->counts.dropped_nomodule++;
		return NULL;
	}
	root = end == RT_UNWIND_STOP_FRAME ? td->cct.top :
	       end == RT_UNWIND_STACK_BOTTOM ? td->cct.primary :
	       td->cct.partial;
	if (td->data && end != RT_UNWIND_FAILED && regs &&
	    (place = rt_data_place(td, idx, regs, fault, time))) {
		root = end == RT_UNWIND_STACK_BOTTOM ? place :
		       cct_child(&td->cct, place, 0, td->cct.top->addr);
		if (!root) {
			td->counts.dropped_full++;
			return NULL;
		}
	}
	rc = cct_insert(&td->cct, root, td->frames, n, time, idx, val);
	if (rc == -ENOSPC) {
		td->counts.dropped_full++;
		return NULL;
	}
	if (rc == -ENOENT) {
		td->counts.dropped_nomodule++;
		return NULL;
	}
	leaf = td->cct.leaf;
	td->counts.recorded++;
	if (td->trace)
		rt_trace_sample(td, idx, trace_time, leaf->id);
	if (td->share)
		rt_sharing_commit(td, leaf);
	if (end == RT_UNWIND_FAILED)
		td->counts.partial++;
	else if (end == RT_UNWIND_STOP_FRAME && td->sync)
		sync_phase_sample(td, n, time, idx, val);
	return leaf;
}

/*
 * Where the live stack may carry on a copy of len bytes at sp: when the
 * kernel cut the copy (it ends inside td's stack), the drain runs on td
 * with the interrupted sp below the copy's last 64 bytes, and those bytes
 * are still the same on the stack -- the frames above them have not
 * returned since the sample.  0 otherwise.
 */
static uintptr_t live_top(const struct rt_thread *td, uintptr_t sp,
			  const unsigned char *stack, size_t len, const void *uc)
{
	uintptr_t end = sp + (len & ~(size_t)7), isp;

	if (!uc || td != rt_self || len < rt_cfg.stack_copy || sp < td->stack_lo ||
	    end > td->stack_hi)
		return 0;
	isp = (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
	if (isp + 64 > end || isp < td->stack_lo ||
	    memcmp((const void *)(end - 64), stack + (end - 64 - sp), 64))
		return 0;
	return td->stack_hi;
}

void rt_sample_copy(struct rt_thread *td, struct rt_thread *self, int idx,
		    struct rt_copy *c, const void *uc, double val)
{
	enum rt_unwind_end end;
	int n;

	td->counts.taken++;
	td->ring_call[idx] = NULL;	/* set again below for a call's sample */
	c->own = uc && td == rt_self;
	c->live_hi = 0;
	if (!self) {
		td->frames[0] = c->regs[RT_UNWIND_REGS - 1];
		n = 1;
		end = RT_UNWIND_FAILED;
	} else {
		c->live_hi = live_top(td, c->regs[7] /* sp */, c->stack, c->len, uc);
		n = unwind_guarded(td, self, NULL, c, &end);
		if (c->live_hi)
			td->counts.copy_live++;
	}
	if (end != RT_UNWIND_IN_HANDLER &&
	    (end == RT_UNWIND_OWN_WORK || rt_is_own_time(td, c->time) ||
	     in_hpcrun(NULL, c) || (c->kip && rt_kernel_is_own_sigreturn(c)))) {
		/* hpcrun's work outside its handler (taken in the handler:
		 * nested, as record() counts it) */
		td->counts.in_hpcrun++;
		return;
	}
	if (end != RT_UNWIND_IN_HANDLER)
		td->nsamples[idx]++;
	if (c->kip && n > 0 && n < RT_MAX_FRAMES) {
		/* taken in a system call: its kernel ip is the leaf under
		 * the user path (kernel-time.h, invariant 2); its registers
		 * say nothing of a data address */
		memmove(td->frames + 1, td->frames, (size_t)n * sizeof(td->frames[0]));
		td->frames[0] = c->kip;
		if (end != RT_UNWIND_IN_HANDLER)
			td->counts.kernel++;
		/* the call the samples a full ring loses next are counted
		 * at (source-perf.c, R4) */
		td->ring_call[idx] = record(td, idx, n + 1, end, c->time, c->time,
					    val, NULL, NULL);
		td->ring_call_val[idx] = val;
		return;
	}
	record(td, idx, n, end, c->time, c->time, val, c->regs,
	       c->has_addr ? &c->addr : NULL);
}

#define HANDLER_ROOM ((uintptr_t)12 << 10)

/* Has the stack the handler runs on HANDLER_ROOM left (RULES)? */
static int room_on_stack(const struct rt_thread *td)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);
	stack_t ss;

	if (here >= td->stack_lo && here < td->stack_hi)
		return here - td->stack_lo >= HANDLER_ROOM;
	if (!sigaltstack(NULL, &ss) && !(ss.ss_flags & SS_DISABLE) &&
	    here >= (uintptr_t)ss.ss_sp && here < (uintptr_t)ss.ss_sp + ss.ss_size)
		return here - (uintptr_t)ss.ss_sp >= HANDLER_ROOM;
	return 1;
}

void rt_sample_handler(int sig, siginfo_t *si, void *uc)
{
	struct rt_thread *td = rt_self;
	enum rt_unwind_end end;
	int saved = errno, idx = -1, n, i;
	struct cct_node *leaf;
	uint64_t now, back, spent;
	double val;

	if (si->si_code == SI_QUEUE && si->si_value.sival_int == RT_EXIT_PARK &&
	    si->si_pid == rt_pid) {
		rt_exit_park(td);
		goto out;
	}
	if (si->si_code == SI_QUEUE && si->si_value.sival_int == RT_STASH_WAKE &&
	    si->si_pid == rt_pid)
		goto out;	/* its wait ended first (signals.c) */
	if (!td)
		goto out;
	if (!room_on_stack(td)) {
		td->counts.low_stack++;
		goto out;
	}
	if (si->si_code == SI_TIMER && si->si_value.sival_int == RT_DRAIN_TIMER) {
		if (td->busy)
			goto out;	/* the next drain takes them */
		__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
		now = rt_clock_ns(CLOCK_MONOTONIC);
		if (!td->closed && rt_active)
			rt_perf_drain(td, uc);
		goto done;
	}
	if (si->si_code == SI_TIMER && si->si_value.sival_int == RT_PATH_PROBE) {
		if (td->busy || td->closed)
			goto out;	/* the detector asks again */
		__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
		now = rt_clock_ns(CLOCK_MONOTONIC);
		n = unwind_guarded(td, td, uc, NULL, &end);
		if (end != RT_UNWIND_IN_HANDLER)
			n = python_guarded(td, n, &end);
		sync_probe_take(td, n);
		goto done;
	}
	if (si->si_code == SI_TIMER) {
		idx = si->si_value.sival_int;
	} else if (si->si_signo == SIGTRAP) {	/* perf's trap */
		idx = (int)(uint32_t)rt_signal_trap_data(si);
	} else {
		for (i = 0; i < rt_cfg.nev; i++) {
			int fd = __atomic_load_n(&td->fd[i], __ATOMIC_RELAXED);

			if (fd >= 0 && fd == si->si_fd)
				idx = i;
		}
	}
	if (idx < 0 || idx >= rt_cfg.nev) {
		td->counts.dropped_foreign++;
		goto out;
	}
	td->counts.taken++;
	if (td->busy) {
		td->counts.dropped_busy++;
		goto out;
	}
	/* Before value() loads td->fd: see fd-gate.c, invariant 4. */
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	now = rt_clock_ns(CLOCK_MONOTONIC);
	if (td->closed || !rt_active) {
		td->counts.dropped_stopped++;
		goto done;
	}
	val = rt_cfg.ev[idx].src->value(td, idx, si);
	back = td->sample_back_ns;	/* REALTIME off the CPU (source-timer.c) */
	td->sample_back_ns = 0;
	if (back > now)
		back = 0;
	if (td->own_depth || in_hpcrun(uc, NULL)) {
		td->counts.in_hpcrun++;
		goto done;
	}
	if (rt_cfg.no_unwind || td->late >= LATE_SAMPLES) {
		td->frames[0] = (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
		n = 1;
		end = RT_UNWIND_STOP_FRAME;
		if (!rt_cfg.no_unwind) {	/* THE BACKLOG */
			end = RT_UNWIND_FAILED;
			td->counts.behind++;
		}
	} else {
		n = unwind_guarded(td, td, uc, NULL, &end);
		if (end == RT_UNWIND_OWN_WORK) {
			td->counts.in_hpcrun++;
			goto done;
		}
		if (end != RT_UNWIND_IN_HANDLER)
			n = python_guarded(td, n, &end);
	}
	td->nsamples[idx]++;
	if (td->data) {
		uintptr_t regs[RT_UNWIND_REGS];

		rt_regs_from_ucontext(regs, uc);
		leaf = record(td, idx, n, end, 0, now - back, val, regs, NULL);
	} else {
		leaf = record(td, idx, n, end, 0, now - back, val, NULL, NULL);
	}
	/* a sample dated back (REALTIME off the CPU): its context lasted
	 * until now */
	if (back && leaf && td->trace)
		rt_trace_until(td, idx, now, leaf->id);
done:
	spent = rt_clock_ns(CLOCK_MONOTONIC) - now;
	if (si->si_code != SI_TIMER && (td->late || spent >= LATE_CHECK_NS))
		td->late = signal_queued(sig) ? td->late + 1 : 0;
	td->counts.handler_ns += spent;
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
out:
	errno = saved;
}

int rt_unwind_guarded(struct rt_thread *td, const void *uc,
		      enum rt_unwind_end *end)
{
	int n = unwind_guarded(td, td, uc, NULL, end);

	return *end == RT_UNWIND_IN_HANDLER ? n : python_guarded(td, n, end);
}
