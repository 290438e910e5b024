/*
 * source-perf.c - sample source for Linux perf events.  The fds it keeps
 * open are kept safe from the program by fd-gate.c (fd-gate.c, THE FDS).
 *
 * One counter per event per thread (pid = the thread; user mode only, or
 * kernel mode too as kernel-time.h, invariants 1 and 7, say),
 * with no ring buffer: each overflow raises the sampling signal through
 * fasync, routed to the owning thread with F_SETOWN_EX -- or, for an event
 * that counts kernel mode, SIGTRAP through perf's trap on the thread's
 * return to user mode (kernel-time.h, invariant 6), whose value is always
 * the counter's increase (read(2)).  With a period the
 * value of a sample is 1 (hpcprof multiplies by the period, as HPCToolkit
 * does); in frequency mode the kernel varies the period, so the value is
 * the counter's increase since the previous sample (read(2) in the
 * handler) -- except for cpu-clock and task-clock, whose frequency the
 * kernel turns into the fixed period 1e9/FREQ ns anyway: we ask for that
 * period directly and the value is the period, without a system call.
 *
 * THE RING.  A signal per sample costs the program more than the sample
 * itself (docs/BENCHMARKS.md), so the events whose rate follows the
 * thread's CPU time -- cpu-clock, task-clock, hardware and raw events --
 * are sampled through a ring buffer instead (unless --no-stack-copy or
 * --no-unwind, or in a process running CPython, whose Python frames are
 * read at the sample: python-frames.h): at each sample the kernel writes the user registers and a
 * copy of the top rt_cfg.stack_copy bytes of the user stack into a per-thread
 * ring, with no signal; a per-thread timer on the thread's CPU clock
 * (RT_DRAIN_NS) raises the sampling signal with RT_DRAIN_TIMER, and the
 * handler unwinds each waiting sample from its copy (rt_sample_copy).
 * Invariants:
 *  R1. Such an event has no fd: it is opened, mapped, enabled and closed
 *      in the private table (or, where there is none, under the gate), and
 *      lives as long as its mapping; so the program cannot close it, and
 *      fork (the mapping is not inherited) and exec end it.  td->fd[idx]
 *      stays -1.
 *  R2. td->ring[idx] is the mapping or NULL.  The handler loads it after
 *      setting td->busy; perf_stop takes it (exchange with NULL), waits
 *      for the handler as rt_fd_release does, takes what is left in it and
 *      unmaps it.
 *  R3. Samples are taken out of a ring only on its thread's handler, or by
 *      perf_stop on the thread itself or once the thread is closed (its
 *      handler then records nothing), so a thread's tree is only ever
 *      changed by one party at a time.
 *  R4. A ring the kernel finds full loses samples: PERF_RECORD_LOST.  The
 *      drain cannot run while its thread is in the kernel (its signal
 *      waits for the return to user mode), so a ring fills in one long
 *      system call, and the drain runs as the call returns: samples lost
 *      right after one taken in a system call are that call's, added to
 *      its node with the kernel leaf of the last one the ring kept
 *      ("ring-full-in-call"); others are counted ("dropped-ring-full").
 *      When the ring cannot be mapped (unprivileged
 *      users are limited by perf_event_mlock_kb), that thread's event takes
 *      one signal per sample as above, said once.
 *  R5. A thread's drain timer and its count of rings (td->nrings, which
 *      counts a ring from before its making until after its end) change
 *      only under td->ev_lock, its own lock, with signals blocked; a
 *      thread's events start and stop without the gate (unless they fall
 *      back to a fd), so threads begin and end without waiting for each
 *      other.  Lock order: the gate, then ev_lock.
 *  R6. An adopted thread (td->raw, source.h invariant 4) has rings only,
 *      four times the size if it may, no drain timer and no count in td->nrings;
 *      raw-threads.c drains them every few milliseconds from its own
 *      thread (rt_perf_drain_task), td->busy set as the handler sets it.
 *
 * THE SWITCH.  An interpreter found after start (a dlopen of libpython:
 * an embedding program, python-find.h) makes the ring events signal
 * events (rt_perf_is_ring_event), but the threads already sampling have
 * rings.  So the thread that found it moves them at once
 * (rt_perf_leave_rings, under the thread list's lock): for each thread
 * and each such event, its ring ends as at perf_stop (R2) and the event
 * opens again with a signal per sample (rt_perf_arm, the gate held), so
 * the main thread and the threads started before the dlopen that later
 * run Python (PyGILState_Ensure) have their Python frames read at the
 * sample.  The handler takes no part in it: it neither opens fds nor
 * takes locks.
 *  S1. A ring ends only under its thread's ev_lock, by whoever takes it
 *      from td->ring[idx] (an exchange): the switch of a (thread, event)
 *      is done once.  The thread that found the interpreter drains its
 *      own rings; another thread's samples waiting in its ring (about
 *      one drain period, RT_DRAIN_NS of its CPU time) are counted, not
 *      taken (R3: only its own handler changes its tree), as
 *      python-switch-unread in the log.
 *  S2. A thread whose ring is being made while the interpreter is found
 *      (perf_start) looks again once its ring is published and, when the
 *      event is no ring event any more, switches itself: under ev_lock,
 *      either the switch sees its ring or it sees the interpreter.
 *  S3. Adopted threads (R6) keep their rings: they are never signalled.
 *  S4. The ring ends before the event opens again, so no CPU time is
 *      sampled by both.  An event that cannot open again stops on that
 *      thread, said once in the log.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "datacentric.h"
#include "fd-gate.h"
#include "kernel-time.h"
#include "python-frames.h"
#include "loadmap.h"
#include "output.h"
#include "futex.h"
#include "runtime.h"
#include "source.h"
#include "unwind.h"

uint64_t rt_perf_switched, rt_perf_switch_unread;

/* The thread whose ev_lock the calling thread holds, and how deep: a
 * signal handler of ours that stops its sources (a fatal signal) nests
 * in it instead of waiting for itself (R5). */
static __thread struct rt_thread *ev_held __attribute__((tls_model("initial-exec")));
static __thread int ev_depth __attribute__((tls_model("initial-exec")));

/* Takes td->ev_lock, signals blocked but synchronous faults (the old mask
 * in *old). */
static void ev_lock(struct rt_thread *td, sigset_t *old)
{
	rt_fd_block_signals(old);
	if (ev_held == td) {
		ev_depth++;
		return;
	}
	rt_lock_take(&td->ev_lock);
	ev_held = td;
	ev_depth = 1;
}

static void ev_unlock(struct rt_thread *td, const sigset_t *old)
{
	if (--ev_depth == 0) {
		ev_held = NULL;
		rt_lock_drop(&td->ev_lock);
	}
	rt_real_sigmask(SIG_SETMASK, old, NULL);
}

/* cpu-clock and task-clock: software events counting ns of CPU time. */
static int sw_clock(const struct hpcrun_evspec *s)
{
	return s->ev->type == PERF_TYPE_SOFTWARE &&
	       (s->ev->config == PERF_COUNT_SW_CPU_CLOCK ||
		s->ev->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Software clocks in frequency mode: sampled with a fixed period in ns. */
static uint64_t clock_period(const struct hpcrun_evspec *s)
{
	if (s->period || !sw_clock(s))
		return 0;
	return 1000000000ULL / s->freq;
}

/* The x86-64 user registers a ring sample carries: ax..ip, r8..r15. */
#define RING_REGS 0xff01ffULL

/* Page faults under hpcrun --data: sampled with their data address
 * (PERF_SAMPLE_ADDR) through a ring, whose samples taken in hpcrun's own
 * handler (its first touches of its memory) are known by their
 * registers and not charged to the program. */
static int data_fault(const struct hpcrun_evspec *s)
{
	return rt_data.on && s->ev->type == PERF_TYPE_SOFTWARE &&
	       (s->ev->config == PERF_COUNT_SW_PAGE_FAULTS ||
		s->ev->config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
		s->ev->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
}

int rt_perf_is_ring_event(const struct hpcrun_evspec *s)
{
	if (!rt_cfg.stack_copy || rt_cfg.no_unwind)
		return 0;
	if (data_fault(s))
		return 1;
	/* a stack copy holds no interpreter state of its moment: in a
	 * process running CPython the walk takes place at the sample */
	return !rt_py_is_on() && (s->ev->type != PERF_TYPE_SOFTWARE || sw_clock(s));
}

/* Bytes of ring data for s: twice the samples of one drain period at its
 * rate (5000/s assumed for a hardware event with a period), a power of two
 * from 64 KiB to 1 MiB, or to 8 MiB for copies larger than the default;
 * 8 MiB for page faults under --data (a burst of first touches). */
static size_t ring_data_bytes(const struct hpcrun_evspec *s)
{
	uint64_t rate = s->freq ? s->freq : 5000, need;
	size_t bytes = 65536, most = (size_t)1 << 20;

	if (s->period && sw_clock(s))
		rate = 1000000000ULL / s->period;
	if (rt_cfg.stack_copy > HPCRUN_STACK_COPY || data_fault(s))
		most = (size_t)8 << 20;
	need = 2 * (rate * (uint64_t)RT_DRAIN_NS / 1000000000ULL + 1) *
	       (rt_cfg.stack_copy + 256);
	if (data_fault(s))
		need = most;
	while (bytes < need && bytes < most)
		bytes *= 2;
	return bytes;
}

/* REALTIME, whose perf event is its off-CPU half (source-timer.c): every
 * context switch of the thread, counted in the kernel where switches
 * are, its signal through perf's trap. */
static int offcpu_event(const struct hpcrun_evspec *s)
{
	return s->ev->kind == HPCRUN_EV_TIMER;
}

/* Does event s, with a signal per sample, signal through perf's trap? */
static int is_trap(const struct hpcrun_evspec *s)
{
	return offcpu_event(s) || (rt_kernel.trap && rt_kernel_is_sampled(s));
}

/* The attributes of event idx (s), with a ring or a signal per sample. */
static void fill_attr(struct perf_event_attr *a, const struct hpcrun_evspec *s,
		      int ring, int idx)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	if (offcpu_event(s)) {
		a->type = PERF_TYPE_SOFTWARE;
		a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
		a->sample_period = 1;
		a->disabled = 1;
		a->exclude_hv = 1;
		a->sigtrap = 1;
		a->remove_on_exec = 1;
		a->sig_data = RT_TRAP_DATA(idx);
		return;
	}
	a->type = s->ev->type;
	a->config = s->ev->kind == HPCRUN_EV_RAW ? s->raw_config : s->ev->config;
	if (s->period) {
		a->sample_period = s->period;
	} else if (clock_period(s)) {
		a->sample_period = clock_period(s);
	} else {
		a->freq = 1;
		a->sample_freq = s->freq;
	}
	a->wakeup_events = 1;
	if (ring) {
		/* The time, on the clock that stamps the load map's
		 * snapshots (rt_module_at). */
		a->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
				 PERF_SAMPLE_STACK_USER;
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
		if (a->freq)
			a->sample_type |= PERF_SAMPLE_PERIOD;
		if (data_fault(s))
			a->sample_type |= PERF_SAMPLE_ADDR;
		a->sample_regs_user = RING_REGS;
		a->sample_stack_user = rt_cfg.stack_copy;
		a->wakeup_events = 0;
	}
	a->disabled = 1;
	/* a signal per sample in kernel mode only through the trap
	 * (kernel-time.h, invariant 6), even where a ring was meant */
	a->exclude_kernel = !rt_kernel_is_sampled(s) || (!ring && !is_trap(s));
	a->exclude_hv = 1;
	if (ring && !a->exclude_kernel)
		a->sample_type |= PERF_SAMPLE_IP;	/* the kernel leaf */
	if (!ring && !a->exclude_kernel) {
		a->sigtrap = 1;
		a->remove_on_exec = 1;
		a->sig_data = RT_TRAP_DATA(idx);
	}
}

/* Event idx (s) for thread tid (0: the calling thread), disabled. */
static int perf_open(const struct hpcrun_evspec *s, pid_t tid, int ring, int idx)
{
	struct perf_event_attr a;
	long fd;

	fill_attr(&a, s, ring, idx);
	fd = syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

static int perf_probe(const struct hpcrun_evspec *s)
{
	rt_fd_thread_start();
	int fd = perf_open(s, 0, 0, 0);

	if (fd < 0)
		return fd;
	rt_sys_close(fd);
	if (rt_kernel_is_sched(s) && !rt_kernel_is_sampled(s)) {
		char msg[256];	/* kernel-time.h, invariant 7 */

		snprintf(msg, sizeof(msg), "warning: event '%s' counts in kernel "
			 "mode only, not counted here (%s): it records nothing; "
			 "see hpcrun(1)", s->ev->name, rt_kernel_why_no_trap());
		rt_note(msg);
	}
	return 0;
}

/* Opens event idx of td on a high fd, publishes it, enables it; the gate
 * is held.  0 or negative errno. */
int rt_perf_arm(struct rt_thread *td, int idx)
{
	struct f_owner_ex own = { F_OWNER_TID, td->tid };
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;
	int fd = perf_open(s, td->tid, 0, idx), err;

	if (fd < 0 || (fd = rt_fd_move_high(fd)) < 0)
		return fd;
	if (!is_trap(s) &&	/* the trap signals by itself */
	    (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) ||
	     fcntl(fd, F_SETSIG, rt_cfg.signo) ||
	     fcntl(fd, F_SETOWN_EX, &own))) {
		err = -errno;
		rt_sys_close(fd);
		return err;
	}
	td->last_count[idx] = 0;
	rt_fd_own(td, idx, fd);
	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		rt_fd_release(td, idx);
		rt_sys_close(fd);
		return err;
	}
	return 0;
}

/* A ring event to open in the private table (fd-gate.c, THE PRIVATE
 * TABLE). */
struct ring_job {
	const struct hpcrun_evspec *s;
	pid_t tid;
	size_t bytes;
	void *ring;
};

/* The event of j with its ring buffer, mapped and enabled, its fd closed
 * again (R1); 0 or negative errno. */
static int open_ring(void *p)
{
	struct ring_job *j = p;
	int fd = perf_open(j->s, j->tid, 1, -1), err = 0;	/* no signal */

	if (fd < 0)
		return fd;
	j->ring = mmap(NULL, j->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (j->ring == MAP_FAILED) {
		err = -errno;
		j->ring = NULL;
	} else if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
		   ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		munmap(j->ring, j->bytes);
		j->ring = NULL;
	}
	rt_sys_close(fd);
	return err;
}

/* Opens event idx of td, an adopted thread, with its ring buffer and no
 * timer (R6), of a thread's size where four times that is refused (the
 * limit of locked memory, perf_event_mlock_kb); 0 or negative errno. */
static int arm_raw_ring(struct rt_thread *td, int idx)
{
	size_t data = ring_data_bytes(&rt_cfg.ev[idx].spec);
	struct ring_job j = {
		&rt_cfg.ev[idx].spec, td->tid,
		(size_t)sysconf(_SC_PAGESIZE) + 4 * data, NULL,
	};
	int err = rt_fd_private(open_ring, &j);

	if (err == -EPERM || err == -ENOMEM) {
		j.bytes = (size_t)sysconf(_SC_PAGESIZE) + data;
		err = rt_fd_private(open_ring, &j);
	}
	if (err)
		return err;
	td->ring_bytes[idx] = j.bytes;
	__atomic_store_n(&td->ring[idx], j.ring, __ATOMIC_SEQ_CST);
	return 0;
}

/* Opens event idx of td with a ring buffer (THE RING, R1), its fd never in
 * the program's table.  0 or negative errno. */
static int arm_ring(struct rt_thread *td, int idx)
{
	struct ring_job j = {
		&rt_cfg.ev[idx].spec, td->tid,
		(size_t)sysconf(_SC_PAGESIZE) + ring_data_bytes(&rt_cfg.ev[idx].spec),
		NULL,
	};
	sigset_t old;
	int err = 0;

	/* the timer first: no sample of the ring is taken in its making
	 * (the first call of timer_create goes through ld.so, which the
	 * unwinder cannot leave) */
	ev_lock(td, &old);
	if (td->nrings++ == 0 &&
	    (err = rt_timer_create(td->tid, rt_thread_clock(td->tid), RT_DRAIN_TIMER,
				   RT_DRAIN_NS, &td->drain_timer)))
		td->nrings--;
	ev_unlock(td, &old);
	if (err)
		return err;
	err = rt_fd_private(open_ring, &j);
	ev_lock(td, &old);
	if (err) {
		if (--td->nrings == 0)
			timer_delete(td->drain_timer);
	} else {
		td->ring_bytes[idx] = j.bytes;
		__atomic_store_n(&td->ring[idx], j.ring, __ATOMIC_SEQ_CST);
	}
	ev_unlock(td, &old);
	return err;
}

static int to_signals(struct rt_thread *td, int idx);

static int perf_start(struct rt_thread *td, int idx)
{
	static int warned;
	sigset_t old;
	int err = -1;

	rt_fd_thread_start();
	if (td->raw)
		return rt_perf_is_ring_event(&rt_cfg.ev[idx].spec) ?
			arm_raw_ring(td, idx) : -EOPNOTSUPP;
	if (rt_perf_is_ring_event(&rt_cfg.ev[idx].spec)) {
		err = arm_ring(td, idx);
		if (!err && !rt_perf_is_ring_event(&rt_cfg.ev[idx].spec)) {
			err = to_signals(td, idx);	/* THE SWITCH, S2 */
			return err < 0 ? err : 0;
		}
		if (err && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
			char msg[256];

			snprintf(msg, sizeof(msg), "warning: event '%s': no ring buffer "
				 "for thread %d (%s%s); one signal per sample instead",
				 rt_cfg.ev[idx].metric, td->index, strerror(-err),
				 err == -EPERM ? ": see /proc/sys/kernel/perf_event_mlock_kb" : "");
			rt_note(msg);	/* the log; stderr only during start-up */
			rt_say_notice(msg);
		}
	}
	if (err) {
		rt_fd_gate_lock(&old);
		err = rt_perf_arm(td, idx);
		rt_fd_gate_unlock(&old);
	}
	return err;
}

/*
 * One PERF_RECORD_SAMPLE of event idx in [p, end), after its header (misc:
 * its cpu mode), as fill_attr asked for it: the ip when the event counts
 * kernel mode, the time, the data address (page faults under --data), the
 * period (frequency mode only), the registers (abi, then ax bx cx dx si
 * di bp sp ip r8..r15: the user mode's, also of a sample taken in the
 * kernel), the stack copy (size, bytes, dyn_size).  Recorded by
 * rt_sample_copy, uc and self as it wants.
 */
static void take_sample(struct rt_thread *td, struct rt_thread *self, int idx,
			uint16_t misc, const unsigned char *p,
			const unsigned char *end, const void *uc)
{
	static const int dw[17] = {	/* DWARF number of each register */
		0, 3, 2, 1, 4, 5, 6, 7, 16, 8, 9, 10, 11, 12, 13, 14, 15
	};
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;
	uint64_t cp = clock_period(s);
	double val = s->period ? 1.0 : (double)cp;
	/* the time, the address of a fault, the period in frequency mode */
	long head = (!s->period && !cp ? 16 : 8) + (data_fault(s) ? 8 : 0);
	struct rt_copy c = { .has_addr = 0 };
	uint64_t g[17], len, dyn = 0, ip = 0;
	int i;

	if (rt_kernel_is_sampled(s) && end - p >= 8) {
		memcpy(&ip, p, 8);
		p += 8;
	}
	if (end - p < head + 8 + (long)sizeof(g) + 8) {
		td->counts.taken++;
		td->counts.dropped_nomodule++;	/* no user registers */
		td->nsamples[idx]++;
		return;
	}
	memcpy(&c.time, p, 8);
	if (data_fault(s)) {
		memcpy(&c.addr, p + 8, 8);
		c.has_addr = 1;
	}
	if (!s->period && !cp) {
		memcpy(&len, p + head - 8, 8);
		val = (double)len;
	}
	p += head;
	memcpy(g, p + 8, sizeof(g));
	p += 8 + sizeof(g);
	memcpy(&len, p, 8);
	p += 8;
	if (len > (uint64_t)(end - p))
		len = 0;
	if (len && (uint64_t)(end - p) >= len + 8)
		memcpy(&dyn, p + len, 8);
	if (dyn > len)
		dyn = len;
	for (i = 0; i < 17; i++)
		c.regs[dw[i]] = (uintptr_t)g[i];
	/* a system call's kernel ip: the leaf (kernel-time.h, invariant 2) */
	if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL &&
	    rt_kernel_is_sampled(s) && rt_kernel_is_syscall(g[0], g[2], g[8]))
		c.kip = rt_kernel_leaf(ip);
	c.stack = p;
	c.len = (size_t)dyn;
	rt_sample_copy(td, self, idx, &c, uc, val);
}

/* The n samples of event idx that the kernel lost to td's full ring (R4):
 * after a sample in a system call, that call's; else dropped. */
static void lost(struct rt_thread *td, int idx, uint64_t n)
{
	struct cct_node *call = td->ring_call[idx];

	td->counts.taken += n;
	if (!call) {
		td->counts.dropped_ring += n;
		return;
	}
	call->val[idx] += (double)n * td->ring_call_val[idx];
	td->nsamples[idx] += n;
	td->counts.recorded += n;
	td->counts.ring_in_call += n;
	td->ring_call[idx] = NULL;
}

/* Takes the samples waiting in ring (event idx of td), and counts those
 * the kernel lost. */
static void drain_ring(struct rt_thread *td, struct rt_thread *self, int idx,
		       void *ring, const void *uc)
{
	struct perf_event_mmap_page *mp = ring;
	const unsigned char *data = (const unsigned char *)ring + mp->data_offset;
	uint64_t size = mp->data_size, tail = mp->data_tail, head;
	int full;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	if (!size || (size & (size - 1)) || head - tail > size)
		tail = head;		/* not a ring we understand: skip it */
	/* No room for one more sample: the kernel may be losing them, as
	 * the next record says (a PERF_RECORD_LOST or not); an empty ring
	 * leaves the question open. */
	full = size - (head - tail) < rt_cfg.stack_copy + 512;
	if (head != tail || full)
		td->ring_full[idx] = full;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		uint64_t off = tail & (size - 1), nlost[2];
		const unsigned char *r;

		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= size) {
			r = data + off;
		} else {
			memcpy(td->rec, data + off, (size_t)(size - off));
			memcpy(td->rec + (size - off), data, (size_t)(h.size - (size - off)));
			r = td->rec;
		}
		tail += h.size;
		if (h.type == PERF_RECORD_SAMPLE) {
			take_sample(td, self, idx, h.misc, r + sizeof(h), r + h.size, uc);
		} else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			memcpy(nlost, r + sizeof(h), 16);	/* id, lost */
			lost(td, idx, nlost[1]);
		}
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

void rt_perf_drain(struct rt_thread *td, const void *uc)
{
	int i;

	for (i = 0; i < rt_cfg.nev; i++) {
		void *ring = __atomic_load_n(&td->ring[i], __ATOMIC_SEQ_CST);

		if (ring)
			drain_ring(td, td, i, ring, uc);
	}
}

void rt_perf_drain_self(void)
{
	struct rt_thread *td = rt_self;

	/* A signal arriving after busy is set finds it set and leaves the
	 * tree alone; one arriving before finishes before we go on. */
	if (!td || !td->nrings || td->busy || td->closed)
		return;
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	rt_perf_drain(td, NULL);
	__atomic_store_n(&td->busy, 0, __ATOMIC_SEQ_CST);
}

void rt_perf_drain_task(struct rt_thread *td, struct rt_thread *self)
{
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (!td->closed) {
		int i;

		for (i = 0; i < rt_cfg.nev; i++) {
			void *ring = __atomic_load_n(&td->ring[i], __ATOMIC_SEQ_CST);

			if (ring)
				drain_ring(td, self, i, ring, NULL);
		}
	}
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
}

void rt_perf_resignal(struct rt_thread *td)
{
	sigset_t mask, ev_mask;
	timer_t t;
	int i;

	rt_fd_gate_lock(&mask);
	for (i = 0; i < rt_cfg.nev; i++) {
		int fd = __atomic_load_n(&td->fd[i], __ATOMIC_SEQ_CST);

		if (fd >= 0)
			fcntl(fd, F_SETSIG, rt_cfg.signo);
	}
	ev_lock(td, &ev_mask);
	if (td->nrings && !rt_timer_create(td->tid, rt_thread_clock(td->tid),
					   RT_DRAIN_TIMER, RT_DRAIN_NS, &t)) {
		timer_delete(td->drain_timer);
		td->drain_timer = t;
	}
	ev_unlock(td, &ev_mask);
	rt_fd_gate_unlock(&mask);
}

/* The samples waiting in ring, counted, not taken. */
static uint64_t ring_waiting(void *ring)
{
	struct perf_event_mmap_page *mp = ring;
	const unsigned char *data = (const unsigned char *)ring + mp->data_offset;
	uint64_t size = mp->data_size, tail = mp->data_tail, n = 0, head;
	struct perf_event_header h;

	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	if (!size || (size & (size - 1)) || head - tail > size)
		return 0;
	while (tail + sizeof(h) <= head) {
		memcpy(&h, data + (tail & (size - 1)), sizeof(h));
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		n += h.type == PERF_RECORD_SAMPLE;
		tail += h.size;
	}
	return n;
}

/*
 * The calling thread's ring, drained full after a sample in a system call
 * (R4): how many the kernel lost is in the PERF_RECORD_LOST it writes
 * before its next sample.  Waits for that sample, in hpcrun's own code
 * (so counted as hpcrun's), up to 5 ms of the thread's CPU time; 1 when
 * it came.
 */
static int next_record(void *ring)
{
	struct perf_event_mmap_page *mp = ring;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	struct timespec t0, t;
	volatile unsigned spin = 0;
	int i;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0))
		return 0;
	do {
		for (i = 0; i < 10000; i++)
			spin++;
		if (__atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE) != head)
			return 1;
		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
			return 0;
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec <
		 5000000L);
	return 0;
}

/* Ends td's ring of event idx (R2, R3); td->ev_lock is held.  Whether
 * it had one (then it had no fd). */
static int stop_ring(struct rt_thread *td, int idx)
{
	void *ring = __atomic_exchange_n(&td->ring[idx], NULL, __ATOMIC_SEQ_CST);
	struct rt_thread *self = rt_self;

	if (!ring)
		return 0;
	if (td == self || td->tid == (pid_t)syscall(SYS_gettid)) {
		/* Its own thread, signals blocked by ev_lock: rt_self may be
		 * cleared already (rt_thread_end); a fault in the unwinder
		 * must find td there.  Not from inside its handler. */
		if (!td->busy) {
			rt_self = td;
			drain_ring(td, td, idx, ring, NULL);
			if (td->ring_call[idx] && td->ring_full[idx] &&
			    next_record(ring))
				drain_ring(td, td, idx, ring, NULL);
			rt_self = self;
		}
	} else if (!rt_fd_wait_idle(td)) {
		/* No unwinding on a thread whose own handler was interrupted:
		 * its fault recovery is in use; leaf addresses only. */
		if (td->closed)
			drain_ring(td, self && !self->busy ? self : NULL, idx, ring, NULL);
		else		/* THE SWITCH, S1 */
			__atomic_add_fetch(&rt_perf_switch_unread, ring_waiting(ring),
					   __ATOMIC_RELAXED);
	}
	munmap(ring, td->ring_bytes[idx]);
	if (!td->raw && --td->nrings == 0)
		timer_delete(td->drain_timer);
	return 1;
}

/* THE SWITCH: event idx of td, a thread not adopted, from its ring to a
 * signal per sample, outside handlers, on td or while td cannot end (the
 * thread list's lock); 1 when it was switched here, 0 when it had no
 * ring (S1), or negative errno when it could not open again (S4).  Counts
 * td as switched when this was the last of its rings to switch. */
static int to_signals(struct rt_thread *td, int idx)
{
	static int warned;
	sigset_t old;
	int i, last = 1, err;

	ev_lock(td, &old);
	if (!stop_ring(td, idx)) {
		ev_unlock(td, &old);
		return 0;
	}
	for (i = 0; i < rt_cfg.nev; i++)
		if (rt_cfg.ev[i].src == &perf_source &&
		    !rt_perf_is_ring_event(&rt_cfg.ev[i].spec) &&
		    __atomic_load_n(&td->ring[i], __ATOMIC_SEQ_CST))
			last = 0;
	ev_unlock(td, &old);
	rt_fd_gate_lock(&old);
	err = rt_perf_arm(td, idx);
	rt_fd_gate_unlock(&old);
	if (err && !__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "warning: event '%s' stops in thread %d: "
			 "no signal per sample for Python frames (%s)",
			 rt_cfg.ev[idx].metric, td->index, strerror(-err));
		rt_note(msg);
	}
	if (last)
		__atomic_add_fetch(&rt_perf_switched, 1, __ATOMIC_RELAXED);
	return err ? err : 1;
}

static void leave_rings(struct rt_thread *td)
{
	int i;

	if (td->raw)		/* S3 */
		return;
	for (i = 0; i < rt_cfg.nev; i++)
		if (rt_cfg.ev[i].src == &perf_source &&
		    !rt_perf_is_ring_event(&rt_cfg.ev[i].spec))
			to_signals(td, i);
}

void rt_perf_leave_rings(void)
{
	rt_threads_apply(leave_rings);
}

void rt_perf_disarm(struct rt_thread *td, int idx)
{
	sigset_t old;
	int fd;

	rt_fd_gate_lock(&old);
	fd = rt_fd_release(td, idx);
	if (fd >= 0) {
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		rt_sys_close(fd);
	}
	rt_fd_drop_lost(td, idx);
	rt_fd_gate_unlock(&old);
}

static void perf_stop(struct rt_thread *td, int idx)
{
	sigset_t old;
	int ring;

	ev_lock(td, &old);
	ring = stop_ring(td, idx);
	ev_unlock(td, &old);
	if (!ring)
		rt_perf_disarm(td, idx);
}

int rt_perf_offcpu_probe(const struct hpcrun_evspec *s)
{
	int fd;

	rt_fd_thread_start();
	fd = perf_open(s, 0, 0, 0);
	if (fd < 0)
		return fd;
	rt_sys_close(fd);
	return 0;
}

static double perf_value(struct rt_thread *td, int idx, const siginfo_t *si)
{
	const struct hpcrun_evspec *s = &rt_cfg.ev[idx].spec;
	int fd = __atomic_load_n(&td->fd[idx], __ATOMIC_SEQ_CST);
	/* the trap's overflows in one stretch of kernel mode come as one
	 * signal (kernel-time.h, invariant 6): its value is the increase */
	int trap = si->si_signo == SIGTRAP;
	uint64_t count, d;

	if (s->period && !trap)
		return 1.0;
	if (clock_period(s) && !trap)
		return (double)clock_period(s);
	if (fd < 0 || read(fd, &count, sizeof(count)) != sizeof(count))
		return 0;
	d = count - td->last_count[idx];
	td->last_count[idx] = count;
	return s->period ? (double)d / (double)s->period : (double)d;
}

const struct sample_source perf_source = {
	.name = "perf",
	.probe = perf_probe,
	.start = perf_start,
	.stop = perf_stop,
	.value = perf_value,
};

void rt_perf_after_fork(struct rt_thread *threads)
{
	struct rt_thread *td;
	int i;

	for (td = threads; td; td = td->next) {
		for (i = 0; i < rt_cfg.nev; i++) {
			if (td->started[i] && td->fd[i] >= 0) {
				rt_sys_close(td->fd[i]);
				td->fd[i] = -1;
				td->started[i] = 0;
			}
			if (td->ring[i]) {	/* not inherited: nothing mapped */
				td->ring[i] = NULL;
				td->started[i] = 0;
			}
		}
		td->nrings = 0;		/* timers are not inherited either */
		td->ev_lock = 0;	/* its holder was not forked */
	}
}
