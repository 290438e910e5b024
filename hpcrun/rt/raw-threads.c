/*
 * raw-threads.c - the watcher of the tasks made without pthread_create:
 * finds them in /proc/self/task, adopts and drains those it can measure,
 * counts the CPU time of those it cannot (raw-threads.h, its invariants).
 *
 * The watcher's table, tasks[]: one entry per raw task, its td (NULL:
 * unmeasured) and, unmeasured, its CPU ticks at the last scan; an entry
 * whose task is gone is marked so, and taken again by the next raw task.
 * The watcher alone writes it, an entry's fields before its gone is
 * cleared or ntasks counts it (release); the log hook, on the thread
 * ending the process, reads gone first (acquire), with no lock: that
 * thread holds the thread list's lock, which the watcher takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capability.h"
#include "fd-gate.h"
#include "futex.h"
#include "output.h"
#include "raw-threads.h"
#include "runtime.h"
#include "source.h"

/* Tasks of one scan: /proc/self/task holds at most this many we look at. */
#define SCAN_MAX 16384
/* Raw tasks running at once with an entry; more are left alone. */
#define RAW_MAX 4096

struct raw_task {
	pid_t tid;
	int gone;
	struct rt_thread *td;	/* NULL: unmeasured */
	uint64_t ticks;		/* unmeasured: CPU ticks at the last look */
};

/* One listing of /proc/self/task, sorted. */
struct scan {
	pid_t tid[SCAN_MAX];
	size_t n;
};

static struct raw_task tasks[RAW_MAX];
static size_t ntasks;			/* published with release */
static uint64_t nraw, nraw_unmeasured, gone_ticks;
/* The watcher's own scans and marks (the start hook's, before it runs). */
static struct scan now, prev_unknown, before;
static unsigned char known[SCAN_MAX];
static struct rt_thread *scratch;	/* the watcher's rt_self (invariant 3) */
static int ring_events;			/* events that can follow a raw task */
static int watching;			/* the watcher runs (atomic) */
/* /proc is another PID namespace's: its task ids are not gettid's
 * (raw-threads.h, rt_list_tasks); set at start and in a fork's child,
 * the only moment a process enters a new PID namespace. */
static int proc_foreign;

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static int has_tid(const struct scan *s, pid_t tid)
{
	return bsearch(&tid, s->tid, s->n, sizeof(pid_t), cmp_tid) != NULL;
}

static void proc_check(void)
{
	char buf[32];
	ssize_t n = readlink("/proc/self", buf, sizeof(buf) - 1);

	proc_foreign = 0;
	if (n > 0) {
		buf[n] = '\0';
		proc_foreign = atoi(buf) != getpid();
	}
}

/* Reads file of task t of /proc/self/task (its number there) into buf,
 * NUL-terminated; its length or negative errno. */
static ssize_t proc_read(pid_t t, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", (int)t, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	return n;
}

/* The id gettid gives task t of /proc/self/task: the last of its status's
 * NSpid (the innermost namespace's); 0 when it is gone. */
static pid_t ns_tid(pid_t t)
{
	char buf[4096], *s;

	if (proc_read(t, "status", buf, sizeof(buf)) <= 0)
		return 0;
	if (!(s = strstr(buf, "\nNSpid:")))
		return 0;
	s += 7;
	while (*s && *s != '\n')
		s++;
	while (s > buf && (s[-1] < '0' || s[-1] > '9'))
		s--;
	while (s > buf && s[-1] >= '0' && s[-1] <= '9')
		s--;
	return (pid_t)atoi(s);
}

/* Calls each(t, arg) for the tasks of /proc/self/task, its number t
 * there, until each returns nonzero; 0 or negative errno. */
static int each_task(int (*each)(pid_t t, void *arg), void *arg)
{
	char buf[4096];
	long n, off;
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), stop = 0;

	if (fd < 0)
		return -errno;
	while (!stop && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (off = 0; !stop && off < n;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			unsigned short reclen;
			const char *name = buf + off + 19;

			memcpy(&reclen, buf + off + 16, sizeof(reclen));
			if (name[0] >= '1' && name[0] <= '9')
				stop = each((pid_t)atoi(name), arg);
			off += reclen;
		}
	close(fd);
	return !stop && n < 0 ? -errno : 0;
}

static int list_one(pid_t t, void *arg)
{
	struct rt_task_list *l = arg;

	if (proc_foreign && !(t = ns_tid(t)))
		return 0;
	if (l->n < l->max)
		l->tid[l->n++] = t;
	return 0;
}

int rt_list_tasks(void *p)
{
	struct rt_task_list *l = p;
	int err;

	l->n = 0;
	err = each_task(list_one, l);
	qsort(l->tid, l->n, sizeof(pid_t), cmp_tid);
	return err;
}

/* The task gettid names tid, found: its number in /proc. */
struct find_job {
	pid_t tid, proc;
};

static int find_one(pid_t t, void *arg)
{
	struct find_job *j = arg;

	if (ns_tid(t) != j->tid)
		return 0;
	j->proc = t;
	return 1;
}

ssize_t rt_task_read(pid_t tid, const char *file, char *buf, size_t size)
{
	struct find_job j = { tid, tid };

	if (proc_foreign) {
		j.proc = 0;
		if (each_task(find_one, &j) < 0 || !j.proc)
			return -ESRCH;
	}
	return proc_read(j.proc, file, buf, size);
}

/* Lists /proc/self/task into the struct scan at p, sorted (on a fd
 * thread); 0 or negative errno. */
static int list_tasks(void *p)
{
	struct scan *s = p;
	struct rt_task_list l = { s->tid, SCAN_MAX, 0 };
	int err = rt_list_tasks(&l);

	s->n = l.n;
	return err;
}

/* CPU ticks (utime + stime) of task tid, asked for by the struct at p. */
struct ticks_job {
	pid_t tid;
	uint64_t ticks;
};

static int read_ticks(void *p)
{
	struct ticks_job *j = p;
	char buf[1024], *s;
	unsigned long long ut, st;
	ssize_t n = rt_task_read(j->tid, "stat", buf, sizeof(buf));
	int i;

	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	/* after the name, in parentheses: field 3 (state) ... 14 and 15 */
	if (!(s = strrchr(buf, ')')))
		return -EIO;
	for (i = 0; i < 12 && s; i++)
		s = strchr(s + 1, ' ');
	if (!s || sscanf(s, "%llu %llu", &ut, &st) != 2)
		return -EIO;
	j->ticks = ut + st;
	return 0;
}

static uint64_t ticks_of(pid_t tid, uint64_t otherwise)
{
	struct ticks_job j = { tid, 0 };

	return rt_fd_private(read_ticks, &j) ? otherwise : j.ticks;
}

/* A raw task found: measured from outside, or counted unmeasured. */
static void adopt(pid_t tid)
{
	struct rt_thread *td;
	struct raw_task *t;
	size_t i;

	for (i = 0; i < ntasks && !tasks[i].gone; i++)
		;
	if (i == RAW_MAX)
		return;
	td = ring_events ? rt_thread_adopt(tid) : NULL;
	__atomic_add_fetch(&nraw, 1, __ATOMIC_RELAXED);
	if (!td) {
		__atomic_add_fetch(&nraw_unmeasured, 1, __ATOMIC_RELAXED);
		rt_count_unmeasured();
	}
	t = &tasks[i];
	t->tid = tid;
	t->td = td;
	t->ticks = td ? 0 : ticks_of(tid, 0);
	if (i < ntasks) {
		__atomic_store_n(&t->gone, 0, __ATOMIC_RELEASE);
	} else {
		t->gone = 0;
		__atomic_store_n(&ntasks, ntasks + 1, __ATOMIC_RELEASE);
	}
}

/* The raw tasks already found, after a scan: drained, or ended when gone
 * (their last samples taken first). */
static void tend(void)
{
	size_t i;

	for (i = 0; i < ntasks; i++) {
		struct raw_task *t = &tasks[i];
		int alive;

		if (t->gone)
			continue;
		alive = has_tid(&now, t->tid);
		if (t->td) {
			rt_self = scratch;
			rt_perf_drain_task(t->td, scratch);
			rt_self = NULL;
			if (!alive)
				rt_thread_end_other(t->td);
		} else if (alive) {
			__atomic_store_n(&t->ticks, ticks_of(t->tid, t->ticks),
					 __ATOMIC_RELAXED);
		} else {
			__atomic_add_fetch(&gone_ticks, t->ticks, __ATOMIC_RELAXED);
		}
		if (!alive)
			__atomic_store_n(&t->gone, 1, __ATOMIC_RELEASE);
	}
}

/* Adopts the tasks unknown in this scan and the one before, when no
 * thread of the program's is on its way to being registered. */
static void find_new(void)
{
	size_t i, k = 0;

	if (rt_threads_starting())
		return;		/* the same candidates next time */
	memset(known, 0, now.n);
	rt_threads_known(now.tid, known, now.n);
	for (i = 0; i < now.n; i++) {
		pid_t tid = now.tid[i];

		if (known[i] || has_tid(&before, tid))
			continue;
		for (k = 0; k < ntasks && (tasks[k].tid != tid || tasks[k].gone); k++)
			;
		if (k < ntasks) {
			known[i] = 1;
			continue;
		}
		if (has_tid(&prev_unknown, tid)) {
			adopt(tid);
			known[i] = 1;
		}
	}
	prev_unknown.n = 0;
	for (i = 0; i < now.n; i++)
		if (!known[i] && !has_tid(&before, now.tid[i]))
			prev_unknown.tid[prev_unknown.n++] = now.tid[i];
}

/* Is a raw task alive: rings to drain, or CPU ticks to follow up to its
 * end (an unmeasured task's last ticks are those of the last scan)? */
static int tending(void)
{
	size_t k;

	for (k = 0; k < ntasks; k++)
		if (!tasks[k].gone)
			return 1;
	return 0;
}

/*
 * Whether a scan may be skipped after a wait of waited ns: no raw task
 * alive, and the number of the process's tasks (rt_task_count) is the
 * last scan's; once RT_RAW_IDLE_NS have gone by so, the listing is made
 * anyway, for a raw task that took an ended one's place.  A program of
 * many threads pays the listing, O(threads), when they come and go, not
 * 100 times a second.  calm counts the waits in a row that found
 * nothing changed (the watcher's pace, raw-threads.h).
 */
static unsigned calm;

static int idle(long waited)
{
	static long last, skipped;
	long n = tending() ? -1 : rt_task_count();

	if (n < 0 || n != last) {
		calm = 0;
		last = n;
		skipped = 0;
		return 0;
	}
	if (calm < RT_RAW_CALM_SCANS)
		calm++;
	skipped += waited;
	if (skipped < RT_RAW_IDLE_NS)
		return 1;
	skipped = 0;
	return 0;
}

static void *watcher(void *arg)
{
	sigset_t old;
	int quick = 0;
	long wait;

	(void)arg;
	rt_fd_block_signals(&old);
	for (;;) {
		/* one quick scan after one that found unknown tasks */
		quick = prev_unknown.n && !quick;
		wait = quick ? RT_RAW_RESCAN_NS :
		       calm >= RT_RAW_CALM_SCANS ? RT_RAW_CALM_NS : RT_RAW_SCAN_NS;
		rt_futex_wait(&rt_own_stop, 0, wait);
		if (__atomic_load_n(&rt_own_stop, __ATOMIC_SEQ_CST))
			break;		/* standing aside (rt_own_pause) */
		if (!rt_active || (!quick && idle(wait)))
			continue;
		if (rt_fd_private(list_tasks, &now))
			continue;
		tend();
		find_new();
		if (prev_unknown.n)
			calm = 0;	/* a raw task, maybe: drain at pace */
	}
	__atomic_store_n(&watching, 0, __ATOMIC_SEQ_CST);
	return NULL;
}

static void raw_start(void)
{
	int i;

	proc_check();
	ring_events = 0;
	for (i = 0; i < rt_cfg.nev; i++)
		if (rt_cfg.ev[i].src == &perf_source &&
		    rt_perf_is_ring_event(&rt_cfg.ev[i].spec))
			ring_events++;
	if (!scratch) {
		scratch = mmap(NULL, sizeof(*scratch), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (scratch == MAP_FAILED)
			scratch = NULL;
	}
	if (!scratch || rt_fd_private(list_tasks, &before) ||
	    rt_own_thread(watcher, NULL, 256 << 10)) {
		rt_note("warning: no watcher of the threads made without "
			"pthread_create: they are not measured nor counted");
		return;
	}
	watching = 1;
}

/* The watcher left its loop for rt_own_pause: a new one, the tasks it
 * knew being the same (the process had no other but the caller). */
static void raw_own_resume(void)
{
	if (!__atomic_load_n(&watching, __ATOMIC_SEQ_CST) &&
	    scratch && !rt_fd_private(list_tasks, &before) &&
	    !rt_own_thread(watcher, NULL, 256 << 10))
		watching = 1;
}

/* In the fork child: only the forking thread, no watcher, no raw task. */
static void raw_fork_child(void)
{
	watching = 0;
	ntasks = 0;
	nraw = nraw_unmeasured = gone_ticks = 0;
	prev_unknown.n = 0;
}

static void raw_fork_child_measuring(void)
{
	raw_start();
}

static void raw_log(void (*put)(const char *text))
{
	size_t i, n = __atomic_load_n(&ntasks, __ATOMIC_ACQUIRE);
	uint64_t ticks = __atomic_load_n(&gone_ticks, __ATOMIC_RELAXED),
		unmeasured = __atomic_load_n(&nraw_unmeasured, __ATOMIC_RELAXED);
	long hz = sysconf(_SC_CLK_TCK);
	double sec;
	char line[160];

	for (i = 0; i < n; i++) {
		const struct raw_task *t = &tasks[i];

		/* gone ones are in gone_ticks; the others run now */
		if (!__atomic_load_n(&t->gone, __ATOMIC_ACQUIRE) && !t->td)
			ticks += ticks_of(t->tid, __atomic_load_n(&t->ticks,
								 __ATOMIC_RELAXED));
	}
	sec = (double)ticks / (double)(hz > 0 ? hz : 100);
	snprintf(line, sizeof(line), "threads-raw: %llu\n"
		 "threads-raw-unmeasured-seconds: %.2f\n",
		 (unsigned long long)__atomic_load_n(&nraw, __ATOMIC_RELAXED), sec);
	put(line);
	if (unmeasured && ticks) {	/* not "0.00 s": nothing lost to say */
		snprintf(line, sizeof(line), "%llu thread%s made without pthread_create: "
			 "%.2f s of CPU not measured", (unsigned long long)unmeasured,
			 unmeasured == 1 ? "" : "s", sec);
		rt_say_notice(line);
	}
}

const struct rt_capability raw_capability = {
	.name = "raw",
	.start = raw_start,
	.log = raw_log,
	.fork_child = raw_fork_child,
	.fork_child_measuring = raw_fork_child_measuring,
	.own_resume = raw_own_resume,
};
