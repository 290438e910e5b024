/*
 * kernel-time.h - the time the program's threads spend in the kernel:
 * counted under the user call path that entered the kernel where the
 * kernel allows it, else said at the end, how much (kernel-time.c).
 *
 * Invariants:
 *  1. The perf events that follow the thread's time or cycles (cpu-clock,
 *     task-clock, hardware and raw events) count kernel mode too
 *     (exclude_kernel = 0) when rt_kernel.on: the start-up probe opened
 *     such an event counting kernel mode (root, CAP_PERFMON, or
 *     perf_event_paranoid <= 1) and --no-kernel (HPCRUN_NO_KERNEL) was
 *     not given.  Other perf software events (page faults) count user
 *     mode only, but the scheduler's (invariant 7); the POSIX timers
 *     (CPUTIME, REALTIME) count kernel time anyway, their signal arriving
 *     on the return to user mode.
 *  2. A ring sample taken in kernel mode (source-perf.c, THE RING) carries
 *     the user registers and stack of the thread as it entered the kernel:
 *     its user path is unwound from them.  When the thread is in a system
 *     call (rt_kernel_is_syscall), the work it asked for, the sample's
 *     kernel ip is one frame more, the leaf, in the kernel's module
 *     rt_kernel.mod (OUTDIR/kernel_symbols/vmlinux.HOSTID, the name
 *     HPCToolkit gives it; its addresses are absolute, hpcprof names them
 *     from the list).  Kernel work that interrupted the thread instead (a page
 *     fault, an interrupt, a context switch, a signal's delivery) counts at
 *     the instruction it interrupted, as CPUTIME counts it: no kernel leaf,
 *     so a loaded machine's scheduling and other tasks' interrupts do not
 *     show as the program's kernel functions.  A kernel sample of a
 *     signal-per-sample event arrives on the return to user mode
 *     (invariant 6): it lands at the system call's return address, the
 *     user leaf.
 *     A kernel sample taken in the return from hpcrun's own signal
 *     (rt_sigreturn of the sampling signal: its siginfo lies in the
 *     sample's stack copy above the ucontext) is hpcrun's cost
 *     (samples-in-hpcrun), not the program's.
 *  3. The kernel's module never enters a load-map snapshot (its memory is
 *     never read); only cct.c maps a kernel address (>= RT_KERNEL_LO) to
 *     it, so no unwinder lookup ever finds it.
 *  4. At process end the log says whether kernel mode was counted, the CPU
 *     time of this program image (getrusage since its start) and the system
 *     time no event covers; when that is at least RT_KERNEL_SAY_PERCENT of
 *     the CPU time and RT_KERNEL_SAY_NS, one line in the log says so and
 *     why, and on stderr too in the launch's first process to end so (a
 *     marker in the measurement directory): make's hundred compilers say
 *     it once.
 *  5. The kernel's symbols (/proc/kallsyms, or HPCRUN_KALLSYMS) are copied
 *     once per host into the measurement directory as the module's file,
 *     by the first process to end with a kernel leaf: written aside and
 *     linked into place, never overwritten.  Where they hide their
 *     addresses (kptr_restrict: zeros, as the start-up probe reads them),
 *     every kernel leaf is the one address RT_KERNEL_LO and the file one
 *     symbol there, "<kernel>": one node per call, not a scatter of
 *     unnamed addresses.
 *  6. A perf event with a signal per sample (not a ring) counts kernel
 *     mode only through perf's trap (attr.sigtrap, Linux 5.13; rt_kernel.trap,
 *     probed at init): the kernel sends its signal, SIGTRAP, as the thread
 *     returns to user mode, after the system call it sampled has returned,
 *     so no blocking call is ever cut short (EINTR).  The overflows of one
 *     stretch in the kernel arrive as one signal, whose value is the
 *     count's increase since the thread's previous sample.  Without the
 *     trap such an event counts user mode only.
 *  7. The scheduler's events (context-switches, cpu-migrations:
 *     rt_kernel_is_sched) the kernel counts in kernel mode only, at the
 *     switch, so a thread's are all in the kernel: they count kernel mode
 *     (rt_kernel_is_sampled) where a time event of theirs would (invariants
 *     1 and 6), each sample at the user call path that entered the
 *     kernel, and elsewhere count nothing, which perf_probe says at start
 *     (the log; stderr but under -q).  They count no time: the account
 *     of invariant 4 is the time events' alone (rt_kernel_is_counted).
 */
#ifndef HPCRUN_KERNEL_TIME_H
#define HPCRUN_KERNEL_TIME_H

#include <stdint.h>

#include "hpcrun-events.h"

struct rt_copy;
struct rt_module;

/* x86-64: the kernel's half of the address space. */
#define RT_KERNEL_LO 0xffff800000000000ULL
/* When the system time not measured is said on stderr (invariant 4). */
#define RT_KERNEL_SAY_PERCENT 5
#define RT_KERNEL_SAY_NS 10000000ULL

struct rt_kernel {
	int on;				/* kernel mode counted (invariant 1) */
	int hidden;			/* the symbols hide their addresses */
	int trap;			/* perf's trap for signal events (6) */
	const struct rt_module *mod;	/* the kernel's module, or NULL */
};
extern struct rt_kernel rt_kernel;
/* Why rt_kernel.trap is 0 ("--no-kernel", "perf_event_paranoid=2",
 * ...), or "" when it is 1. */
const char *rt_kernel_why_no_trap(void);

/* The leaf frame of a sample in a system call at kernel ip (invariant 5). */
static inline uintptr_t rt_kernel_leaf(uint64_t ip)
{
	return rt_kernel.hidden ? (uintptr_t)RT_KERNEL_LO : (uintptr_t)ip;
}

/* Is the thread in a system call, by its user registers (x86-64's entry:
 * rax is -ENOSYS until the call returns; syscall put the return rip in
 * rcx)? */
static inline int rt_kernel_is_syscall(uint64_t ax, uint64_t cx, uint64_t ip)
{
	return ax == (uint64_t)-38 /* -ENOSYS */ && cx == ip;
}

/* Does event s count the thread's time in the kernel (invariant 1)? */
int rt_kernel_is_counted(const struct hpcrun_evspec *s);
/* Is s one of the scheduler's events, counted in kernel mode only
 * (invariant 7)? */
int rt_kernel_is_sched(const struct hpcrun_evspec *s);
/* Does perf event s count kernel mode (exclude_kernel = 0): a time event
 * that counts kernel time, or a scheduler's event allowed to (invariant
 * 7)? */
int rt_kernel_is_sampled(const struct hpcrun_evspec *s);
/* Was kernel sample c taken in the return from hpcrun's own signal
 * (invariant 2)?  Reads c's stack copy only: async-signal-safe. */
int rt_kernel_is_own_sigreturn(const struct rt_copy *c);

#endif
