/*
 * capability.h - the measurements the runtime carries besides sampling,
 * each a table of hooks the runtime's lifecycle calls (runtime.c):
 *
 *   sync_capability     barriers, lock waits, phases, .hpcsync (sync.c)
 *   hang_capability     the hang detector (sync-hang.c)
 *   data_capability     hpcrun --data (datacentric.c)
 *   sharing_capability  hpcrun --sharing, .hpcshare (sharing.c)
 *   trace_capability    hpcrun -t, .hpctrace (trace.c)
 *   python_capability   the CPython interpreter, found (python-find.c)
 *   raw_capability      the tasks made without pthread_create
 *                       (raw-threads.c)
 *   kernel_capability   the kernel's time: counted, or said at the end
 *                       (kernel-time.c)
 *   pyframes_capability Python frames, .hpcpy (python-frames.c)
 *
 * Lifecycle: where runtime.c calls each hook.
 *
 *   rt_init           init, then (signal taken, events configured, load
 *                     map read) modules, then (main thread begun) start
 *   rt_thread_begin   thread_begin (td registered, its sources not yet
 *                     started)
 *   profile written   thread_written (rt_thread_end, or rt_process_finish
 *                     for threads still running at process end; also
 *                     when it is not but its live file is left, from
 *                     which hpcprof recovers it under the same name)
 *   rt_thread_end     thread_end, the tree released, thread_release
 *   the log           log (rt_process_finish)
 *   fork child        fork_child; then, when the child goes on measuring,
 *                     thread_release of the forking thread (its state is
 *                     the parent's) and fork_child_measuring
 *   failed exec       exec_failed, then exec_failed_thread of every
 *                     live thread (rt_resume_after_failed: each
 *                     measures on in new files, its sources stopped)
 *   rt_own_resume     own_resume: the own threads were stopped around a
 *                     call that needs a single-threaded process (unshare,
 *                     setns): make again those that left their loops
 *
 * Invariants:
 *  1. At each point runtime.c calls the hook of every capability in the
 *     order of its table, capabilities[]: sync, hang, data, sharing, trace,
 *     python, pyframes, raw, kernel.  The order is kept because sharing's
 *     init reads data's configuration (--sharing implies --data),
 *     pyframes' hooks look for the interpreter python's found, and the
 *     log's lines come in that order.  A NULL hook is skipped.
 *  2. Hooks run outside signal handlers.  thread_begin and thread_end run
 *     on td's own thread; thread_written on the thread writing td's
 *     profile (td's own, or the one ending the process); fork_child and
 *     fork_child_measuring on the fork child's only thread; exec_failed
 *     and exec_failed_thread on the thread whose exec failed.
 *  3. A capability that is off (its configuration says so) changes
 *     nothing the program sees; its hooks at most say so in the log.
 *  4. Adding a capability adds a table here and an entry in capabilities[],
 *     never a call by name in runtime.c.
 */
#ifndef HPCRUN_CAPABILITY_H
#define HPCRUN_CAPABILITY_H

struct rt_thread;

struct rt_capability {
	const char *name;
	/* Reads the configuration from the environment (HPCRUN_...); before
	 * the sampling signal is taken and before any thread begins. */
	void (*init)(void);
	/* After the first reading of the load map. */
	void (*modules)(void);
	/* Once the main thread is measured: starts hpcrun's own threads. */
	void (*start)(void);
	void (*thread_begin)(struct rt_thread *td);
	/* td's profile was written as profile (its path), or will be
	 * recovered there: side files. */
	void (*thread_written)(struct rt_thread *td, const char *profile);
	/* td ends: before its tree is released ... */
	void (*thread_end)(struct rt_thread *td);
	/* ... and after (also the forking thread's state in a fork child). */
	void (*thread_release)(struct rt_thread *td);
	/* Its lines of the log through put(text). */
	void (*log)(void (*put)(const char *text));
	/* In every fork child, first: the parent's locks and tables dropped. */
	void (*fork_child)(void);
	/* In a fork child that goes on measuring, its state started over. */
	void (*fork_child_measuring)(void);
	/* An exec failed and the process measures on: its counts for the
	 * next log started over ... */
	void (*exec_failed)(void);
	/* ... and each live thread's state, with new files: its last ones
	 * are the old generation's, written whole. */
	void (*exec_failed_thread)(struct rt_thread *td);
	/* After rt_own_pause stopped hpcrun's own threads: its own again. */
	void (*own_resume)(void);
};

extern const struct rt_capability sync_capability;
extern const struct rt_capability hang_capability;
extern const struct rt_capability data_capability;
extern const struct rt_capability sharing_capability;
extern const struct rt_capability trace_capability;
extern const struct rt_capability python_capability;
extern const struct rt_capability raw_capability;
extern const struct rt_capability kernel_capability;
extern const struct rt_capability pyframes_capability;

#endif
