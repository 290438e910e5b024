/*
 * sharing.h - hpcrun --sharing: which threads touch which bytes of the
 * watched data objects, sampled with page protection, written per thread
 * into PROFILE-STEM.hpcshare (hpcrun(5), "Sharing files (.hpcshare)").
 *
 * How it samples: every epoch hpcrun's epoch thread revokes access
 * (PROT_NONE) to a bounded set of pages of the watched objects; the first
 * access to such a page faults, and the SIGSEGV handler (signals.c, THE
 * FATAL SIGNALS) hands the fault here: the thread, CPU, read or write, the
 * address, the access size and the calling context are recorded when it
 * is the thread's first access of that kind to the page in the epoch
 * (a write after its read: an upgrade).  The page is opened for the one
 * faulting instruction (single-stepped: the trap flag, then SIGTRAP
 * protects it again; a signal handler that runs before the step and
 * faults itself steps first, so a thread's pending steps nest, at most
 * STEP_MAX), so every thread's first access faults, up to a
 * budget of faults per page and epoch; past it the page is opened for the
 * epoch, read only after a read, read-write after a write.  Watched heap blocks of a page
 * or more have their whole pages protected from the allocation on, so the
 * first touch of each page (its NUMA home) is seen.
 *
 * Invariants:
 *  1. Nothing here runs unless rt_sharing.on (hpcrun --sharing,
 *     HPCRUN_SHARING), which implies rt_data.on.
 *  2. The fault handler (rt_sharing_fault) allocates nothing, takes no
 *     lock and never waits: it reads the page and object tables (fixed
 *     arrays, slots changed with atomics), changes a page's state with a
 *     compare-and-swap and writes its record into the thread's own
 *     preallocated buffer (a full buffer counts drops).
 *  3. A fault is ours only when its page is in the page table; then the
 *     page always ends with the protection its state says, so a race
 *     between two threads' faults, the epoch thread and a pin only ever
 *     costs a repeated fault.  Any other fault goes to the program's
 *     action exactly as without --sharing.
 *  4. A page leaves the table (opened first) before its memory goes back
 *     to the allocator (rt_sharing_forget, from rt_data_forget) and before
 *     the program mprotects it itself.
 *  5. A pinned page (rt_sharing_pin: a system call's buffer, a futex word)
 *     stays read-write until unpinned: the kernel never meets a page we
 *     protected (no EFAULT where the program would have had none).
 *  6. Writers of the tables (the epoch thread, allocation hooks, pins)
 *     take one spin lock with signals blocked, never held while calling
 *     out; the fault handler never takes it.
 *  7. The SIGSEGV handler runs on an alternate signal stack: a measured
 *     thread without one gets one (a guard page below it), so a fault on
 *     a protected page that is itself the thread's stack (a coroutine's
 *     stack on the heap) can be taken; the program's own alternate stack
 *     is never replaced.
 */
#ifndef HPCRUN_SHARING_H
#define HPCRUN_SHARING_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

struct rt_thread;
struct rt_module;
struct rt_elf_syms;

/* Defaults of --sharing-rate (hpcrun(1)). */
#define RT_SHARING_EPOCHS 100
#define RT_SHARING_PAGES 64

struct rt_sharing_config {
	int on;
	unsigned epochs;		/* per second */
	unsigned pages;			/* re-protected per epoch */
	int virtual_nodes;		/* --numa-nodes given */
	int dispatch;			/* SIGSEGV goes through rt_sharing_fault
					 * (set once, kept in fork children) */
};
extern struct rt_sharing_config rt_sharing;

/* Per-thread state (mmap'ed at thread start, freed at its end). */
struct rt_share_thread;

/* A module's symbols (outside handlers, once per module): the static
 * variables and allocation functions --watch names. */
void rt_sharing_module(const struct rt_module *m, const struct rt_elf_syms *s);
/* A tracked heap block [p, p+n) just allocated at the path f[0..k)
 * ((module-relative address, module id), outermost first). */
void rt_sharing_alloc(uintptr_t p, size_t n, const uint64_t (*f)[2], uint32_t k);
/* The memory [lo, hi) goes back to the allocator or is mprotected by the
 * program: its pages leave the watch, opened (invariant 4). */
void rt_sharing_forget(uintptr_t lo, uintptr_t hi);
/* In the sample handler: a data sample fell into the object at start of
 * bytes: a heap block (lm -1) or a static variable of module lm. */
void rt_sharing_heat(int lm, uintptr_t start, uint64_t bytes);
/* In the SIGSEGV handler: 1 when the fault was on a page we protected
 * and not hpcrun's own unwinder reading it (td->in_unwind: 0, so that
 * signals.c jumps back to the sample)
 * (recorded and opened: return and let the access run again), else 0.
 * While a page's epoch budget lasts, it is opened for the faulting
 * instruction only, the trap flag set in uc ... */
int rt_sharing_fault(const siginfo_t *si, void *uc);
/* ... and in the SIGTRAP handler after that instruction: 1 when the trap
 * was that step (the page protected again, the flag cleared), else 0. */
int rt_sharing_trap(const siginfo_t *si, void *uc);
/* Keeps the watched pages of [p, p+n) read-write until rt_sharing_unpin
 * with the same range (around a system call reading or writing it). */
void rt_sharing_pin(const void *p, size_t n);
void rt_sharing_unpin(const void *p, size_t n);

#endif
