/*
 * unwind.h - the call path of a context or of a ring buffer's stack copy,
 * from .eh_frame (unwind.c), and the guarded unwinds sample.c makes of it.
 *
 * Invariants:
 *  1. rt_unwind and rt_unwind_copy are async-signal-safe: no allocation,
 *     no lock, no dl_iterate_phdr; they read stack memory only inside the
 *     thread's stack (or the copy) and code only inside a live module
 *     or a copy of CPython's perf trampoline (unwind.c, invariants 1
 *     and 6).
 *  2. A read that faults anyway comes back, through the fatal-signal
 *     handler, as a one-frame partial path in the guarded unwinds
 *     (rt_unwind_guarded); the caller holds td->busy.
 *  3. No path returned holds a frame of libhpcrun.so (unwind.c,
 *     invariant 4); a path ends at a stop function, the stack bottom, a
 *     frame that cannot be unwound, or max frames.
 */
#ifndef HPCRUN_UNWIND_H
#define HPCRUN_UNWIND_H

#include <stddef.h>
#include <stdint.h>

struct rt_thread;

/* Registers the unwinder tracks: DWARF numbering, 16 = the pc. */
#define RT_UNWIND_REGS 17

/* process-interpose.c: the stop frames of unwinding. */
extern uintptr_t rt_stop_main_lo, rt_stop_main_hi;
int rt_is_stop_function(uintptr_t fn_start);
/* Is pc (or a return address) in libhpcrun.so?  From the linker's symbols
 * for its first and last byte; async-signal-safe (unwind.c). */
int rt_in_hpcrun(uintptr_t pc);

/*
 * A sample the kernel wrote into a ring buffer: the registers (DWARF
 * numbering) as it found them, the copy of the len bytes of stack at their
 * sp, and when it was taken (CLOCK_MONOTONIC ns, as the load map's
 * snapshots are stamped; 0: unknown).  How its unwinding may leave the
 * copy: the live stack above it is read up to live_hi (0: it is not); own:
 * running on the sample's thread, so a signal frame leading off the copied
 * stack may be followed on the live stack (unwind.c, leave_copy).
 */
struct rt_copy {
	uintptr_t regs[RT_UNWIND_REGS];
	const unsigned char *stack;
	size_t len;
	uint64_t time;
	uintptr_t live_hi;
	int own;
	int has_addr;			/* addr: the sample's data address */
	uintptr_t addr;
	uintptr_t kip;			/* taken in kernel mode: its ip, else 0 */
};

/* How an unwind ended (unwind.c; the values are fixed). */
enum rt_unwind_end {
	RT_UNWIND_FAILED = 0,		/* a frame could not be unwound: the
					 * path is partial */
	RT_UNWIND_STOP_FRAME = 1,	/* a stop function (main, thread start) */
	RT_UNWIND_STACK_BOTTOM = 2,	/* the stack bottom (return address
					 * undefined) */
	RT_UNWIND_IN_HANDLER = 3,	/* the path runs through hpcrun's own
					 * signal handler: a sample the kernel
					 * took while it ran, hpcrun's work */
	RT_UNWIND_OWN_WORK = 4,		/* its innermost frames are a library
					 * libhpcrun.so called directly for its
					 * own work (unwind.c, invariant 5) */
};

/* sample.c: rt_unwind of uc into td->frames on td's own thread, a faulting
 * read coming back as a one-frame partial path (outside the handler too,
 * with td->busy set), the eval frames replaced by their Python frames
 * (python-frames.h); the frame count. */
int rt_unwind_guarded(struct rt_thread *td, const void *uc,
		      enum rt_unwind_end *end);
/* sample.c: rt_py_key(td) (python-frames.h) on td's own thread, td->busy
 * set, under the same recovery: a read that faults gives 0. */
uint64_t rt_py_key_guarded(struct rt_thread *td);

/* unwind.c: the path of uc, leaf first, with no frame in libhpcrun.so
 * (unwind.c, invariant 4): frames[0] is the innermost pc outside it;
 * returns count; *end: how it ended.  Unless sps is NULL, sps[i] is the
 * stack pointer in frame i (for a caller, its callee's CFA): frame i's
 * locals lie in [sps[i], sps[i + 1]) when frame i + 1 is its caller. */
int rt_unwind(const void *ucontext, struct rt_thread *td, uintptr_t *frames,
	      uintptr_t *sps, int max, enum rt_unwind_end *end);
/* The same from a ring buffer's sample c; its modules are those of the
 * load map when it was taken (rt_module_at): a frame in a module
 * dlclosed since ends the path. */
int rt_unwind_copy(struct rt_thread *td, const struct rt_copy *c,
		   uintptr_t *frames, uintptr_t *sps, int max,
		   enum rt_unwind_end *end);
/* The same for a thread blocked in the kernel, of which only sp and pc
 * (c->regs[7], c->regs[16]) are known (/proc/PID/task/TID/syscall): a
 * frame that needs rbp finds it on the stack (unwind.c, find_rbp).  td
 * only lends its unwind cache.  Called outside handlers, on the hang
 * detector's thread (sync-hang.c, invariant 5). */
int rt_unwind_blocked(struct rt_thread *td, const struct rt_copy *c,
		      uintptr_t *frames, uintptr_t *sps, int max,
		      enum rt_unwind_end *end);
/*
 * A trampoline whose copies run outside every module (CPython's perf
 * trampoline, python-find.h): the template's bytes, and how a frame whose
 * return address is that of its call (its offset ra in the template) is
 * unwound: the CFA is sp + cfa there, the caller's rbp saved at CFA + rbp
 * (rbp 0: not saved).  len 0: none.
 */
#define RT_TRAMP_MAX 32
struct rt_tramp {
	unsigned char code[RT_TRAMP_MAX];
	uint8_t len, ra, cfa;
	int8_t rbp;
};
/* t from the template's len bytes at code, which may have no CFI (CPython
 * 3.12 and 3.13 have none): its instructions up to its call through a
 * register, of those that move sp by a constant (endbr64, push %rbp, mov
 * %rsp,%rbp, sub $imm,%rsp); 0, or -1 (t->len 0) for any other code.
 * Outside handlers. */
int rt_tramp_parse(const unsigned char *code, size_t len, struct rt_tramp *t);

/* The registers of a ucontext, DWARF numbering (16 = the pc). */
void rt_regs_from_ucontext(uintptr_t *regs, const void *ucontext);

/* Bytes of one thread's unwind cache (allocated with its rt_thread). */
size_t rt_unwind_cache_size(void);

#endif
