/*
 * raw-threads.h - the tasks of the process made without the
 * pthread_create hpcrun sees: a raw clone or clone3, as language runtimes
 * and JITs make their threads (also glibc's own helper threads).  They
 * never pass through thread_start (process-interpose.c), so nothing of
 * hpcrun runs on them; raw-threads.c finds them and measures them from
 * outside (raw_capability, capability.h).
 *
 * hpcrun's watcher thread lists /proc/self/task every RT_RAW_SCAN_NS.  A
 * task is raw when it is none of: a thread hpcrun measures, one of
 * hpcrun's own, one whose profile was just written, one already there
 * when measurement began (a library's constructor made it before
 * hpcrun's) -- and is so in two scans in a row (the second
 * RT_RAW_RESCAN_NS after the first), the second with no pthread_create on
 * its way (rt_threads_starting).  A raw task is adopted
 * (rt_thread_adopt): its ring events follow its tid with no signal
 * (source.h, invariant 4), and the watcher drains them, unwinding each
 * sample from its stack copy into a tree of its own, written as a thread
 * of its own when the task is gone or at process end.  A raw task that
 * no event can measure so (CPUTIME, REALTIME, --no-stack-copy,
 * --no-unwind, no ring buffer for it) is counted unmeasured with its CPU
 * time (/proc/self/task/TID/stat: utime + stime): in the log
 * (threads-unmeasured, threads-raw-unmeasured-seconds) and on stderr at
 * the end.
 *
 * Invariants:
 *  1. No signal ever goes to a raw task and no code of hpcrun runs on it:
 *     its TLS may be another thread's (a clone without CLONE_SETTLS, where
 *     rt_self and errno are its creator's) or none of glibc's, its stack a
 *     few pages with no alternate signal stack.
 *  2. Only the watcher drains a raw task's rings and ends it (source-perf.c,
 *     R6); the thread ending the process writes it as any other
 *     (runtime.c), td->busy telling the two apart as it does for a
 *     handler.
 *  3. The watcher blocks every signal but the synchronous faults.  While it
 *     unwinds a sample its rt_self is a struct rt_thread of its own, so a
 *     fault in the unwinder comes back as a partial path (signals.c);
 *     otherwise rt_self is NULL and the program's wrappers see no thread.
 *  4. /proc is read on a fd thread (fd-gate.c, THE PRIVATE TABLE): no fd
 *     of the watcher ever takes a number of the program's table.
 *  5. The first RT_RAW_SCAN_NS + RT_RAW_RESCAN_NS of a raw task's time is
 *     not sampled: it is found by scans, not when it is made.  Once the
 *     number of tasks has stayed the same for RT_RAW_CALM_SCANS scans with
 *     no raw task alive, the watcher wakes every RT_RAW_CALM_NS instead,
 *     and a raw task then made goes that long unsampled; a task that
 *     takes the place of one that ended as the count of tasks stays the
 *     same, up to RT_RAW_IDLE_NS and a wait more.
 */
#ifndef HPCRUN_RAW_THREADS_H
#define HPCRUN_RAW_THREADS_H

#include <stddef.h>
#include <sys/types.h>

/* Between two scans of /proc/self/task (and drains of the raw tasks'
 * rings, which are four times a thread's size for this). */
#define RT_RAW_SCAN_NS 10000000L
/* Between a scan that found unknown tasks and the one that tells. */
#define RT_RAW_RESCAN_NS 1000000L
/* Between two scans once the number of tasks has stayed the same for
 * RT_RAW_CALM_SCANS scans (a second) with no raw task alive: in a process
 * whose threads are all made, asleep or computing, the watcher wakes 20
 * times a second, not 100. */
#define RT_RAW_CALM_NS 50000000L
#define RT_RAW_CALM_SCANS 100
/* The longest the listing is skipped while the number of tasks stays the
 * same (raw-threads.c, idle()): a raw task that takes an ended task's
 * place is found within this and a wait more. */
#define RT_RAW_IDLE_NS 160000000L

/* A listing of /proc/self/task: its first max tasks' ids, sorted, in
 * tid[0..n) (the others left out).  The ids are gettid's: where /proc is
 * another PID namespace's (a process made in a new PID namespace that
 * kept its parent's /proc, as unshare -pf without --mount-proc), /proc's
 * own are read from each task's NSpid. */
struct rt_task_list {
	pid_t *tid;
	size_t max, n;
};
/* Lists /proc/self/task into the struct rt_task_list at p; run on a fd
 * thread (rt_fd_private(rt_list_tasks, &list), invariant 4); 0 or
 * negative errno. */
int rt_list_tasks(void *p);
/* Reads /proc/self/task/T/file of the task gettid names tid (T its
 * number in /proc, as rt_list_tasks) into buf, NUL-terminated, at most
 * size - 1 bytes; on a fd thread.  Its length or negative errno. */
ssize_t rt_task_read(pid_t tid, const char *file, char *buf, size_t size);

#endif
