/*
 * trace.c - hpcrun -t (trace.h): the trace capability and the per-thread
 * .hpctrace writer around lib/hpctrace-write.c.
 *
 * Main's trace is created at its beginning with the header alone
 * (OUTDIR/PROG-RANK-THREAD-HOSTID-PID-GEN.hpctrace); another thread's
 * when its first buffer is written, under its profile's stem when that is
 * at its end, and never when it recorded nothing (trace.h, invariant 6).
 * A trace made before the profile is renamed to the profile's stem when
 * the profile is written under another GEN.  After a failed exec each
 * live thread's trace, closed at the exec, starts over as at its
 * beginning, so the new profile's trace holds the new records only.
 * Records gather in one of the thread's two buffers; the one that fills
 * goes to hpcrun's writer while the other fills (trace.h, invariant 4).
 * A thread's state goes back to a pool at its end, from which the next
 * thread to start takes it, so a program that churns short threads maps
 * and unmaps no state per thread (each munmap of a touched page flushes
 * the TLB of every CPU running the program); at most POOL_MAX states wait
 * there.  A gap of more than TRACE_GAP periods between a record and the
 * next sample is marked "no activity" one period after the record: the
 * thread did not run (blocked, or not scheduled) for that long.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capability.h"
#include "fd-gate.h"
#include "futex.h"
#include "hpctrace.h"
#include "output.h"
#include "runtime.h"
#include "source.h"
#include "sync.h"
#include "trace.h"
#include "writeall.h"

/* 8 KiB a buffer, two a thread: 682 records, 0.68 s of a thread at
 * 1 kHz, each. */
#define TRACE_BUF_RECORDS 682
#define TRACE_BUF_BYTES (TRACE_BUF_RECORDS * HPCTRACE_REC_BYTES)
/* Periods without a sample after which the thread is said idle. */
#define TRACE_GAP 8
/* Thread states the pool keeps: 256 of 21 KiB. */
#define POOL_MAX 256

struct rt_trace_thread {
	struct hpctrace_writer w;	/* records go into buf[fill] */
	struct rt_fd_post post;		/* the writer's job: drain_post */
	uint64_t period;		/* ns between two samples */
	uint32_t last_id;		/* of the last record */
	int waiting;			/* in a measured wait (invariant 5) */
	int done;			/* closed: no more records */
	int made;			/* path names its file (invariant 6) */
	int thread;			/* its thread's index */
	int fill;			/* the buffer filled, -1: none free yet */
	int last;			/* the buffer published last */
	int next;			/* the writer's: the next one to write */
	int err;			/* the writer's first error: the end */
	size_t ready[2];		/* bytes published in each, 0: free */
	uint64_t dropped;		/* records with no free buffer */
	struct rt_trace_thread *pooled;	/* the next in the pool */
	char path[4400];		/* with made, or the name wanted */
	unsigned char buf[2][TRACE_BUF_BYTES];
};

static struct {
	int on;
	int idx;			/* the traced event */
	uint64_t period;		/* its period in ns */
} trace_cfg = { 0, -1, 0 };

static uint64_t traces, records, cut, dropped;
/* Taken at thread start and end only, never in the handler. */
static struct rt_trace_thread *pool;
static unsigned pool_lock, pool_n;

/* ---- the handler's side (trace.h, invariants 3 and 4) ---- */

/* The buffer after the one published last becomes the one filled, when
 * the writer has given it back; 0 when it has not. */
static int take_buffer(struct rt_trace_thread *t)
{
	int b = t->last ^ 1;

	if (__atomic_load_n(&t->ready[b], __ATOMIC_ACQUIRE))
		return 0;
	t->fill = b;
	t->w.buf = t->buf[b];
	t->w.len = 0;
	return 1;
}

/* The buffer filled goes to the writer's side. */
static void publish(struct rt_trace_thread *t)
{
	__atomic_store_n(&t->ready[t->fill], t->w.len, __ATOMIC_RELEASE);
	t->last = t->fill;
	t->fill = -1;
}

static void put(struct rt_trace_thread *t, uint64_t time, uint32_t id)
{
	int saved = errno;

	if (t->done || __atomic_load_n(&t->err, __ATOMIC_RELAXED))
		return;
	t->last_id = id;
	if (t->fill < 0 && !take_buffer(t)) {
		t->dropped++;
		return;
	}
	hpctrace_store(&t->w, time, id);
	if (t->w.len == t->w.cap) {
		publish(t);
		/* with no writer, the buffer waits for the thread's end */
		rt_fd_post(&t->post);
	}
	errno = saved;
}

/* ---- the writer's side (fd-gate.c, THE WRITER) ---- */

/* Creates t's file with its header on a fd thread (fd-gate.c, THE
 * PRIVATE TABLE): at t->path when the thread's end named it (its
 * profile's stem), else, or when that name is taken, under the thread's
 * first free GEN.  The fd, open for writing at the header's end, or
 * -errno (the file removed). */
static int make_file(struct rt_trace_thread *t)
{
	int fd = -1, err;

	if (t->path[0])
		fd = (int)syscall(SYS_open, t->path,
				  O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		fd = rt_create_file(t->thread, HPCTRACE_SUFFIX, t->path,
				    sizeof(t->path));
	if (fd < 0)
		return fd;
	err = hpctrace_write_header(fd);
	if (err) {
		rt_sys_close(fd);
		unlink(t->path);
		return err;
	}
	t->made = 1;
	__atomic_add_fetch(&traces, 1, __ATOMIC_RELAXED);
	return fd;
}

/* Appends the published buffers to t's file, oldest first, and gives
 * them back; 0, or the first error, kept in t->err (the trace ends
 * there).  In a private fd table, the program's limits lifted
 * (rt_io_private). */
static int drain(void *arg)
{
	struct rt_trace_thread *t = arg;
	int fd, err = 0;
	size_t n;

	if (!__atomic_load_n(&t->ready[t->next], __ATOMIC_ACQUIRE))
		return t->err;
	fd = t->made ? (int)syscall(SYS_open, t->path,
				    O_WRONLY | O_APPEND | O_CLOEXEC)
		     : make_file(t);
	if (fd < 0)
		err = t->made ? -errno : fd;
	while ((n = __atomic_load_n(&t->ready[t->next], __ATOMIC_ACQUIRE))) {
		if (!err && !t->err)
			err = hpc_write_all(fd, t->buf[t->next], n);
		if (err && !t->err)
			__atomic_store_n(&t->err, err, __ATOMIC_RELAXED);
		__atomic_store_n(&t->ready[t->next], 0, __ATOMIC_RELEASE);
		t->next ^= 1;
	}
	if (fd >= 0)
		rt_sys_close(fd);
	return t->err;
}

static void drain_post(struct rt_fd_post *p)
{
	rt_io_private(drain, (char *)p - offsetof(struct rt_trace_thread, post));
}

void rt_trace_sample(struct rt_thread *td, int idx, uint64_t time,
		     uint32_t id)
{
	struct rt_trace_thread *t = td->trace;

	if (!t || idx != trace_cfg.idx || t->waiting)
		return;
	if (t->w.nrecords && time > t->w.last + TRACE_GAP * t->period &&
	    t->last_id != HPCTRACE_ID_NONE && !(t->last_id & HPCTRACE_ID_WAIT))
		put(t, t->w.last + t->period, HPCTRACE_ID_NONE);
	put(t, time, id);
}

void rt_trace_until(struct rt_thread *td, int idx, uint64_t time, uint32_t id)
{
	struct rt_trace_thread *t = td->trace;

	if (t && idx == trace_cfg.idx && !t->waiting && t->w.nrecords &&
	    t->last_id == id && time > t->w.last)
		put(t, time, id);
}

/* Appends (time, id) for td, the calling thread, outside the handler,
 * busy held (invariant 3). */
static void put_outside(struct rt_thread *td, uint64_t time, uint32_t id,
			int waiting)
{
	struct rt_trace_thread *t = td->trace;

	/* the samples the ring holds come first (or, inside the wait,
	 * make no record) */
	rt_own_drain();
	__atomic_store_n(&td->busy, 1, __ATOMIC_SEQ_CST);
	if (!td->closed) {
		if (waiting || id)
			put(t, time, id);
		t->waiting = waiting;
	}
	__atomic_store_n(&td->busy, 0, __ATOMIC_RELEASE);
}

void rt_trace_wait(struct rt_thread *td, uint64_t time, uint32_t id)
{
	if (td && td->trace && td == rt_self && id)
		put_outside(td, time, id | HPCTRACE_ID_WAIT, 1);
}

void rt_trace_resume(struct rt_thread *td, uint64_t time, uint32_t id)
{
	if (td && td->trace && td == rt_self && td->trace->waiting)
		put_outside(td, time, id, 0);
}

/* ---- the capability ---- */

/* Is event ev time-based (its samples say when)? */
static int is_time_based(const struct rt_event *ev)
{
	const struct hpcrun_event *e = ev->spec.ev;

	return e->kind == HPCRUN_EV_TIMER ||
	       (e->kind == HPCRUN_EV_SW && (e->config == PERF_COUNT_SW_CPU_CLOCK ||
					    e->config == PERF_COUNT_SW_TASK_CLOCK));
}

static void trace_init(void)
{
	const char *v = getenv("HPCRUN_TRACE");

	trace_cfg.on = v && *v == '1';
}

/* The events are configured: which one is traced (invariant 1). */
static void trace_modules(void)
{
	char msg[512];
	int i;

	if (!trace_cfg.on)
		return;
	for (i = 0; i < rt_cfg.nev; i++) {
		const struct rt_event *ev = &rt_cfg.ev[i];

		if (!is_time_based(ev) || trace_cfg.idx >= 0) {
			snprintf(msg, sizeof(msg), "warning: -t: '%s' %s: its samples "
				 "make no trace records", ev->metric, is_time_based(ev) ?
				 "is not the first time-based event" :
				 "is not time-based (cpu-clock, task-clock, CPUTIME, REALTIME)");
			rt_note(msg);
			continue;
		}
		trace_cfg.idx = i;
		if (ev->spec.period)
			trace_cfg.period = ev->spec.period *
				(ev->spec.ev->kind == HPCRUN_EV_TIMER ? 1000u : 1u);
		else
			trace_cfg.period = 1000000000u / (ev->spec.freq ? ev->spec.freq : 1);
	}
	if (trace_cfg.idx < 0) {
		rt_note("warning: -t: no time-based event (cpu-clock, task-clock, "
			"CPUTIME, REALTIME): no traces");
		trace_cfg.on = 0;
	}
}

/* Creates main's file at its beginning (invariant 6); 0 or -errno. */
static int create_job(void *arg)
{
	int fd = make_file(arg);

	if (fd < 0)
		return fd;
	rt_sys_close(fd);
	return 0;
}

/* A thread's state from the pool, else a new mapping (NULL: no
 * memory); zeroed but for its buffers. */
static struct rt_trace_thread *state_get(void)
{
	struct rt_trace_thread *t;

	rt_lock_take(&pool_lock);
	t = pool;
	if (t) {
		pool = t->pooled;
		pool_n--;
	}
	rt_lock_drop(&pool_lock);
	if (t) {
		memset(t, 0, offsetof(struct rt_trace_thread, path));
		t->path[0] = '\0';
		return t;
	}
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return t == MAP_FAILED ? NULL : t;
}

/* t, no job of the writer's queued or running, back to the pool, or
 * unmapped when that is full. */
static void state_put(struct rt_trace_thread *t)
{
	int keep;

	rt_lock_take(&pool_lock);
	keep = pool_n < POOL_MAX;
	if (keep) {
		t->pooled = pool;
		pool = t;
		pool_n++;
	}
	rt_lock_drop(&pool_lock);
	if (!keep)
		munmap(t, sizeof(*t));
}

/* t, zeroed, starts td's trace: no record, no file but main's, made here
 * (invariant 6); 0, or -errno with the loss said. */
static int state_start(struct rt_thread *td, struct rt_trace_thread *t)
{
	struct rt_io io;
	int err = 0;

	t->period = trace_cfg.period;
	t->last = 1;
	t->post.fn = drain_post;
	t->thread = td->index;
	hpctrace_writer_init(&t->w, t->buf[0], TRACE_BUF_BYTES);
	if (td->index == 0) {
		rt_io_begin(&io);
		err = rt_fd_private(create_job, t);
		rt_io_end(&io);
	}
	if (err) {
		rt_say_lost(t->path[0] ? t->path : rt_cfg.outdir, -err, "trace lost");
		rt_count_write_error();
	}
	return err;
}

static void trace_thread_begin(struct rt_thread *td)
{
	struct rt_trace_thread *t;

	if (!trace_cfg.on)
		return;
	t = state_get();
	if (!t) {
		__atomic_add_fetch(&cut, 1, __ATOMIC_RELAXED);
		return;
	}
	if (state_start(td, t)) {
		state_put(t);
		return;
	}
	td->trace = t;
}

/* The trace beside profile (a path ending in ".hpcrun") in path (4400
 * bytes); 0, or -1 when profile is none such or the name too long. */
static int stem_path(const char *profile, char *path)
{
	size_t n = profile ? strlen(profile) : 0;

	if (n <= 7 || strcmp(profile + n - 7, ".hpcrun") ||
	    n - 7 + sizeof(HPCTRACE_SUFFIX) > 4400)
		return -1;
	memcpy(path, profile, n - 7);
	memcpy(path + n - 7, HPCTRACE_SUFFIX, sizeof(HPCTRACE_SUFFIX));
	return 0;
}

/* Ends td's trace: with no file and no record, nothing (invariant 6);
 * else the closing "no activity" record, every buffer written out (after
 * the writer's job, on a fd thread, the program's limits lifted), into a
 * file made at profile's stem (NULL: none written) when there is none
 * yet, a loss said. */
static void finish(struct rt_thread *td, const char *profile)
{
	struct rt_trace_thread *t = td->trace;
	int err;

	if (!t || t->done)
		return;
	t->waiting = 0;
	rt_fd_post_wait(&t->post);
	if (!t->made && !t->w.nrecords) {
		t->done = 1;
		return;
	}
	if (!t->made && stem_path(profile, t->path))
		t->path[0] = '\0';
	put(t, sync_now(), HPCTRACE_ID_NONE);
	if (t->fill >= 0 && t->w.len)
		publish(t);
	err = rt_io_private(drain, t);
	t->done = 1;
	__atomic_add_fetch(&records, t->w.nrecords, __ATOMIC_RELAXED);
	__atomic_add_fetch(&dropped, t->dropped, __ATOMIC_RELAXED);
	if (err) {
		__atomic_add_fetch(&cut, 1, __ATOMIC_RELAXED);
		rt_count_write_error();
		rt_say_lost(t->path[0] ? t->path : rt_cfg.outdir, -err,
			    t->made ? "trace cut short" : "trace lost");
	}
}

/* The profile is written as profile: the trace is closed, and takes the
 * profile's stem when it was made under another. */
static void trace_thread_written(struct rt_thread *td, const char *profile)
{
	struct rt_trace_thread *t = td->trace;
	char path[4400];

	if (!t)
		return;
	finish(td, profile);
	if (!t->made || stem_path(profile, path) || !strcmp(path, t->path))
		return;
	if (!link(t->path, path)) {
		unlink(t->path);
		memcpy(t->path, path, sizeof(path));
	}
}

/* Without its profile written, the trace still ends whole. */
static void trace_thread_end(struct rt_thread *td)
{
	finish(td, NULL);
}

static void trace_thread_release(struct rt_thread *td)
{
	if (!td->trace)
		return;
	rt_fd_post_wait(&td->trace->post);	/* W3 */
	state_put(td->trace);
	td->trace = NULL;
}

/* The exec failed: the log of the new generation counts its own traces. */
static void trace_exec_failed(void)
{
	traces = records = cut = dropped = 0;
}

/* td measures on after a failed exec, its sources stopped: its trace,
 * closed and written under the old generation's stem by
 * rt_process_finish, starts over in the same state (its pointer may be
 * held by td's own thread, whose appends wait for td->closed to be
 * cleared after this), so that the old file is never renamed to the new
 * profile's stem and the new records, ids of td's new tree, go to a new
 * file (invariants 2 and 6).  A state that cannot start stays closed:
 * no records. */
static void trace_exec_failed_thread(struct rt_thread *td)
{
	struct rt_trace_thread *t = td->trace;

	if (!t) {
		trace_thread_begin(td);
		return;
	}
	rt_fd_post_wait(&t->post);
	memset(t, 0, offsetof(struct rt_trace_thread, path));
	t->path[0] = '\0';
	if (state_start(td, t))
		t->done = 1;
}

/* In the fork child the forking thread's records are the parent's: they
 * never go to the parent's file from here. */
static void trace_fork_child(void)
{
	if (rt_self && rt_self->trace)
		rt_self->trace->done = 1;
	traces = records = cut = dropped = 0;
	pool_lock = 0;		/* its holder, if any, is not in the child */
}

/* The child's thread measures on: its own trace, under its own pid. */
static void trace_fork_child_measuring(void)
{
	if (rt_self)
		trace_thread_begin(rt_self);
}

static void trace_log(void (*put_line)(const char *text))
{
	char line[512];

	if (!trace_cfg.on)
		return;
	snprintf(line, sizeof(line),
		 "trace: event %s, a record after a gap of %d periods of %llu ns\n"
		 "trace-threads: %llu\ntrace-records: %llu\ntrace-cut: %llu\n"
		 "trace-records-dropped: %llu\n",
		 rt_cfg.ev[trace_cfg.idx].metric, TRACE_GAP,
		 (unsigned long long)trace_cfg.period, (unsigned long long)traces,
		 (unsigned long long)records, (unsigned long long)cut,
		 (unsigned long long)dropped);
	put_line(line);
}

const struct rt_capability trace_capability = {
	.name = "trace",
	.init = trace_init,
	.modules = trace_modules,
	.thread_begin = trace_thread_begin,
	.thread_written = trace_thread_written,
	.thread_end = trace_thread_end,
	.thread_release = trace_thread_release,
	.log = trace_log,
	.fork_child = trace_fork_child,
	.fork_child_measuring = trace_fork_child_measuring,
	.exec_failed = trace_exec_failed,
	.exec_failed_thread = trace_exec_failed_thread,
};
