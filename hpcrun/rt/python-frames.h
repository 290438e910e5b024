/*
 * python-frames.h - Python frames in the sampled paths (python-frames.c):
 * in a process running CPython (python-find.h), each native frame of a C
 * call of the interpreter's eval function in a path is replaced by the
 * Python frames that call was executing, innermost first, and each
 * thread's code objects are copied into its .hpcpy file (hpcpy.h).
 *
 * Invariants:
 *  1. A Python frame in a path (td->frames, and what its consumers take
 *     from it) is RT_PY_FRAME | hpcpy_frame_addr(id, offset): bit 62 set
 *     and bit 63 clear (rt_py_frame), a non-canonical x86-64 address that
 *     neither a user-space address (below 2^47) nor a kernel one (a leaf
 *     of kernel-time.h: bit 63 set) ever is.  Whoever maps a frame to a
 *     module maps a tagged one to (rt_py_lm, frame & ~RT_PY_FRAME), never
 *     looks it up in the load map.
 *  2. rt_py_expand is async-signal-safe, allocates nothing but with mmap
 *     (its thread's state, on its first Python frame; its code arena's
 *     chunks), takes no lock, opens no file (its live code file is made
 *     by hpcrun's writer: python-frames.c, invariant 4), and reads the
 *     interpreter's memory only
 *     under the caller's fault recovery (sample.c): a read that faults
 *     leaves the native path as it was.  Every walk is bounded.
 *  3. A code's id is hpcpy_id() of its content, computed once per code
 *     object and thread (a cache keyed by the code's address and the
 *     pointers and first line a reuse of the address would change); the
 *     content is copied into the thread's arena then, and the arena is
 *     written as the thread's .hpcpy at its end when it holds any code;
 *     until then it is mirrored in the thread's .hpcpy-live (hpcpy.h).
 *  4. With --no-python (HPCRUN_NO_PYTHON=1), or in a process with no
 *     interpreter of a known layout, nothing here changes a path, and
 *     rt_py_key is 0.
 *  5. The paths of synchronization sites (sync.c, sync-region.c) and of
 *     the hang detector's probe are expanded as sampled ones are, on
 *     their own thread; a sync site is also keyed by rt_py_key, so one
 *     native call site reached from two Python paths is two sites.
 *  6. The one path expanded on another thread than its own is that of a
 *     thread blocked in the kernel (rt_py_expand_blocked, for the hang
 *     detector, sync-hang.c, invariant 6): read with every bound of the
 *     sampled walk, under the reading thread's fault recovery, into the
 *     reading thread's caches and arena; the blocked thread's own state
 *     is neither read nor written.
 */
#ifndef HPCRUN_PYTHON_FRAMES_H
#define HPCRUN_PYTHON_FRAMES_H

#include <stddef.h>
#include <stdint.h>

struct rt_thread;

#define RT_PY_FRAME (1ull << 62)

/* Is frame f a Python frame (invariant 1)? */
static inline int rt_py_frame(uintptr_t f)
{
	return (f >> 62) == 1;
}

/* The load-map id of the [python] pseudo module (HPCPY_MODULE), 0 while
 * no interpreter was found. */
extern uint16_t rt_py_lm;

/* Once an interpreter is found (python-find.h): rt_py_lm made, and the
 * first time, every thread's rings left for a signal per sample
 * (source-perf.c, THE SWITCH).  At start and after each dlopen, after
 * the interpreter is looked for; outside the handler, the thread list's
 * lock not held. */
void rt_py_modules(void);

/* 1 when Python frames are taken in this process: Python is on and an
 * interpreter of a known layout was found (async-signal-safe). */
int rt_py_is_on(void);

/* Rewrites td->frames[0..n), leaf first, each eval frame replaced by its
 * Python frames; the new count (n when nothing changed).  sps[0..n) is
 * each frame's sp (unwind.h, rt_unwind), or NULL: with it an eval frame
 * gets the Python frames of its own C call, found by address (3.11 on),
 * without it the eval frames take the calls in turn.  A path that would
 * be longer than RT_MAX_FRAMES is cut to its innermost frames and *cut
 * set: it is partial.  In the handler (or with td->busy held), under
 * fault recovery: see invariant 2. */
int rt_py_expand(struct rt_thread *td, const uintptr_t *sps, int n,
		 int *cut);

/* rt_py_expand of frames[0..n) (n <= max <= RT_MAX_FRAMES) with their
 * sps (or NULL), the native path of td, a thread blocked in the kernel,
 * read on another thread, self: its Python state's caches and arena do
 * the walk and hold the codes met (invariant 6); td may run meanwhile
 * (the caller checks it did not).  self is rt_self, with self->in_unwind
 * set: a read that faults jumps to self->unwind_jmp.  Not in a handler
 * (it maps self's state). */
int rt_py_expand_blocked(struct rt_thread *self, const struct rt_thread *td,
			 uintptr_t *frames, const uintptr_t *sps, int n,
			 int max);

/* A key of td's chain of Python frames, the calling thread's own: a hash
 * of each frame's code id and instruction offset (invariant 1's frame),
 * innermost outwards, so two calls get one key exactly when they run
 * the same Python path; 0 when the thread runs no Python.  With td->busy
 * held, under fault recovery, as rt_py_expand. */
uint64_t rt_py_key(struct rt_thread *td);

/* "FILE:FIRSTLINE QUALNAME" (FILE's base name), the name hpcprof gives
 * its procedure, of Python frame frame of td's paths into buf, then
 * " at FILE:LINE", the line of the frame's instruction, when its line
 * table has one: 1, or 0 when td's codes lack it (its arena was full).  For the hang detector,
 * while td cannot end (under rt_threads_apply); td may be adding codes
 * meanwhile (python-frames.c, invariant 4).  Not in a handler. */
int rt_py_frame_name(const struct rt_thread *td, uintptr_t frame, char *buf,
		     size_t size);

/* Counts a fault taken in rt_py_expand (sample.c's recovery). */
void rt_py_fault(struct rt_thread *td);

#endif
