/*
 * runtime.c - configuration, lifecycle and output of the preloaded runtime.
 *
 * Lifecycle of the process (state in rt_active / finished):
 *
 *   load --constructor rt_init()--> ACTIVE --exit, _exit, exec, fatal
 *   signal: rt_process_finish()--> FINISHED (every thread's profile and
 *   the log written; later samples are dropped as "stopped")
 *   FINISHED --exec failed--> ACTIVE again, every live thread with a new,
 *   empty tree written to new files (rt_resume_after_failed_exec)
 *   ACTIVE --fork--> the child resets to ACTIVE with only the forking
 *   thread, an empty tree and fresh counters (rt_after_fork_child).
 *
 * Lifecycle of a thread: rt_thread_begin() (arena, tree, sources, then
 * registered) ... samples ... rt_thread_end() at thread exit, or
 * rt_process_finish() for threads still running at process end.  Either
 * path first sets td->closed under rt_threads_lock, so each profile is
 * written once.
 *
 * Configuration comes from the environment the launcher sets (hpcrun(1)):
 * HPCRUN_OUT_PATH, HPCRUN_EVENT_LIST, HPCRUN_NO_UNWIND, HPCRUN_NO_STACK_COPY,
 * HPCRUN_STACK_COPY, HPCRUN_VERBOSE.
 * Everything that can fail is reported (stderr once per run, and the log);
 * nothing here ever stops the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime.h"

struct rt_config rt_cfg;
char rt_env_path[4096];
volatile int rt_active;
pid_t rt_pid;
__thread struct rt_thread *rt_self __attribute__((tls_model("initial-exec")));

/* A thread's state and its unwind cache, one mapping. */
#define TD_BYTES (sizeof(struct rt_thread) + rt_unwind_cache_size())

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_thread *threads;
static int next_index = 1;
static int inited, finished, writers;
static pthread_key_t thread_key;
static struct rt_counts totals;
static uint64_t nthreads, write_errors, start_failures, blocked_attempts;
static char notes[4096];
static size_t notes_len;
static int show_notes;

static void verbose_report(void);

size_t rt_fmt_u64(char *buf, uint64_t v, int base, int width)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = "0123456789abcdef"[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v);
	while ((int)n < width)
		tmp[n++] = '0';
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

void rt_write_str(int fd, const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t k = write(fd, s, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

/* Records a notice for the log, and shows it on stderr once per run. */
void rt_note(const char *msg)
{
	size_t n = strlen(msg);

	if (notes_len + n + 2 < sizeof(notes)) {
		memcpy(notes + notes_len, msg, n);
		notes_len += n;
		notes[notes_len++] = '\n';
		notes[notes_len] = '\0';
	}
	if (show_notes) {
		rt_write_str(2, "hpcrun: ");
		rt_write_str(2, msg);
		rt_write_str(2, "\n");
	}
}

void rt_count_blocked_signal(void)
{
	__atomic_add_fetch(&blocked_attempts, 1, __ATOMIC_RELAXED);
}

int rt_next_thread_index(void)
{
	return __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED);
}

/* "event 'x' is not available here (why); <tail>" */
static void note_event(const char *name, int err, const char *tail)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "warning: event '%s' is not available here (%s); %s",
		 name, err == -ENOENT ? "no such event on this machine's PMU" :
		 err == -EACCES || err == -EPERM ?
		 "not permitted: see /proc/sys/kernel/perf_event_paranoid" :
		 strerror(-err), tail);
	rt_note(msg);
}

/* Adds an event, falling back as a user would expect when unavailable. */
static void add_event(struct hpcrun_evspec spec, const char *asked)
{
	struct rt_event *ev;
	char tail[128];
	int i, err;

	for (;;) {
		const struct sample_source *src =
			spec.ev->kind == HPCRUN_EV_TIMER ? &timer_source : &perf_source;

		err = src->probe(&spec);
		if (!err)
			break;
		if (spec.ev->fallback) {
			snprintf(tail, sizeof(tail), "sampling '%s' instead",
				 spec.ev->fallback);
			note_event(asked, err, tail);
			spec.ev = hpcrun_event_find(spec.ev->fallback,
						    (int)strlen(spec.ev->fallback));
			asked = spec.ev->name;
			continue;
		}
		if (spec.ev->kind == HPCRUN_EV_SW) {
			note_event(asked, err, "sampling 'CPUTIME' instead");
			spec.ev = hpcrun_event_find("CPUTIME", 7);
			spec.period = spec.period ? (spec.period + 999) / 1000 :
				1000000 / spec.freq;
			if (spec.period < 1000)
				spec.period = 1000;
			spec.freq = 0;
			asked = "CPUTIME";
			continue;
		}
		note_event(asked, err, "not sampled");
		return;
	}
	for (i = 0; i < rt_cfg.nev; i++)
		if (rt_cfg.ev[i].spec.ev == spec.ev &&
		    rt_cfg.ev[i].spec.raw_config == spec.raw_config) {
			snprintf(tail, sizeof(tail),
				 "warning: event '%s' given twice; sampled once", asked);
			rt_note(tail);
			return;
		}
	ev = &rt_cfg.ev[rt_cfg.nev++];
	memset(ev, 0, sizeof(*ev));
	ev->spec = spec;
	ev->desc = spec.ev->desc;
	if (spec.ev->kind == HPCRUN_EV_TIMER) {
		ev->src = &timer_source;
		snprintf(ev->metric, sizeof(ev->metric), "%s", spec.ev->desc);
		ev->metric_period = 1;
		return;
	}
	ev->src = &perf_source;
	if (spec.ev->kind == HPCRUN_EV_RAW)
		snprintf(ev->metric, sizeof(ev->metric), "perf::r%llx",
			 (unsigned long long)spec.raw_config);
	else
		snprintf(ev->metric, sizeof(ev->metric), "perf::%s", spec.ev->name);
	if (spec.period) {
		ev->metric_period = spec.period;
		ev->threshold = 1.0;
	} else {
		ev->metric_period = 1;
		ev->is_frequency = 1;
		ev->threshold = (spec.ev->type == PERF_TYPE_SOFTWARE &&
				 (spec.ev->config == PERF_COUNT_SW_CPU_CLOCK ||
				  spec.ev->config == PERF_COUNT_SW_TASK_CLOCK)) ?
			1e9 / (double)spec.freq : (double)spec.freq;
	}
}

static void configure_events(void)
{
	const char *list = getenv("HPCRUN_EVENT_LIST");
	char buf[1024], *save = NULL, *tok;
	struct hpcrun_evspec spec;
	const char *why;

	if (!list || !*list) {
		hpcrun_evspec_parse(HPCRUN_DEFAULT_EVENT, &spec, &why);
		add_event(spec, HPCRUN_DEFAULT_EVENT);
	} else {
		snprintf(buf, sizeof(buf), "%s", list);
		for (tok = strtok_r(buf, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save)) {
			char msg[300];

			if (rt_cfg.nev == HPCRUN_MAX_EVENTS)
				break;
			if (hpcrun_evspec_parse(tok, &spec, &why)) {
				snprintf(msg, sizeof(msg), "warning: '%s': %s", tok, why);
				rt_note(msg);
				continue;
			}
			add_event(spec, tok);
		}
	}
	if (rt_cfg.nev == 0) {
		rt_note("warning: none of the events can be sampled; sampling 'CPUTIME'");
		hpcrun_evspec_parse("CPUTIME", &spec, &why);
		add_event(spec, "CPUTIME");
	}
}

/* Host id: /etc/hostid when present, else a hash of the host name. */
static uint32_t host_id(void)
{
	char name[256];
	uint32_t h = 2166136261u, id;
	int fd = open("/etc/hostid", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd >= 0) {
		ssize_t n = read(fd, &id, sizeof(id));

		close(fd);
		if (n == sizeof(id))
			return id;
	}
	if (gethostname(name, sizeof(name)))
		return 0;
	name[sizeof(name) - 1] = '\0';
	for (i = 0; name[i]; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

static void key_destructor(void *arg)
{
	rt_thread_end(arg);
}

static void atfork_prepare(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, rt_cfg.signo);
	rt_real_sigmask(SIG_BLOCK, &s, NULL);
	pthread_mutex_lock(&threads_lock);
}

static void atfork_parent(void)
{
	sigset_t s;

	pthread_mutex_unlock(&threads_lock);
	sigemptyset(&s);
	sigaddset(&s, rt_cfg.signo);
	rt_real_sigmask(SIG_UNBLOCK, &s, NULL);
}

static void atfork_child(void)
{
	sigset_t s;

	pthread_mutex_init(&threads_lock, NULL);
	rt_after_fork_child();
	sigemptyset(&s);
	sigaddset(&s, rt_cfg.signo);
	rt_real_sigmask(SIG_UNBLOCK, &s, NULL);
}

/* rt_cfg.stack_copy from HPCRUN_NO_STACK_COPY and HPCRUN_STACK_COPY. */
static void stack_copy_config(void)
{
	const char *v = getenv("HPCRUN_NO_STACK_COPY"), *why;
	char msg[256];

	rt_cfg.stack_copy = HPCRUN_STACK_COPY;
	if (v && *v == '1') {
		rt_cfg.stack_copy = 0;
		return;
	}
	v = getenv("HPCRUN_STACK_COPY");
	if (v && *v && hpcrun_stack_copy_parse(v, &rt_cfg.stack_copy, &why)) {
		snprintf(msg, sizeof(msg), "warning: HPCRUN_STACK_COPY='%.64s': %s; "
			 "copying %d bytes", v, why, HPCRUN_STACK_COPY);
		rt_note(msg);
		rt_cfg.stack_copy = HPCRUN_STACK_COPY;
	}
}

void rt_init(void)
{
	const char *out = getenv("HPCRUN_OUT_PATH"), *v, *slash;
	struct sigaction sa;
	ssize_t n;

	if (inited)
		return;
	inited = 1;
	rt_interpose_init();
	if (!out || !*out || strlen(out) >= sizeof(rt_cfg.outdir))
		return;		/* preloaded without the launcher: stay out */
	show_notes = !getenv("HPCRUN_NOTICES_SHOWN");
	rt_pid = getpid();
	snprintf(rt_cfg.outdir, sizeof(rt_cfg.outdir), "%s", out);
	n = readlink("/proc/self/exe", rt_cfg.exe, sizeof(rt_cfg.exe) - 1);
	rt_cfg.exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(rt_cfg.exe, '/');
	rt_cfg.progname = slash ? slash + 1 : rt_cfg.exe;
	v = getenv("PATH");
	snprintf(rt_env_path, sizeof(rt_env_path), "%s", v ? v : "");
	rt_cfg.hostid = host_id();
	v = getenv("OMPI_COMM_WORLD_RANK");
	if (!v)
		v = getenv("PMI_RANK");
	rt_cfg.rank = v ? (uint32_t)strtoul(v, NULL, 10) : 0;
	v = getenv("HPCRUN_VERBOSE");
	rt_cfg.verbose = v ? atoi(v) : 0;
	v = getenv("HPCRUN_NO_UNWIND");
	rt_cfg.no_unwind = v && *v == '1';
	stack_copy_config();
	rt_cfg.signo = SIGRTMIN + 8;

	configure_events();
	if (show_notes && notes_len)
		setenv("HPCRUN_NOTICES_SHOWN", "1", 1);
	show_notes = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = rt_sample_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (rt_real_sigaction(rt_cfg.signo, &sa, NULL)) {
		rt_note("cannot install the sampling signal handler; not measuring");
		return;
	}
	rt_loadmap_refresh();
	pthread_key_create(&thread_key, key_destructor);
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	rt_install_fatal_handlers();
	rt_active = 1;
	rt_thread_begin(0);
	if (rt_cfg.verbose)
		verbose_report();
}

/* -v: what this process samples, on stderr. */
static void verbose_report(void)
{
	char msg[256];
	int i;

	for (i = 0; i < rt_cfg.nev; i++) {
		const struct rt_event *e = &rt_cfg.ev[i];

		snprintf(msg, sizeof(msg), "hpcrun: pid %d samples %s (%s) %s %llu on signal %d\n",
			 (int)rt_pid, e->metric, e->src->name,
			 e->spec.period ? "period" : "frequency",
			 (unsigned long long)(e->spec.period ? e->spec.period : e->spec.freq),
			 rt_cfg.signo);
		rt_write_str(2, msg);
	}
}

/* Stack bounds of the calling thread. */
static void stack_bounds(struct rt_thread *td)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &addr, &size)) {
		td->stack_lo = (uintptr_t)addr;
		td->stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

struct rt_thread *rt_thread_begin(int index)
{
	struct rt_thread *td;
	int i, err;

	if (!rt_active)
		return NULL;
	td = mmap(NULL, TD_BYTES, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (td == MAP_FAILED)
		return NULL;
	td->uwc = (struct uw_cache *)(void *)(td + 1);
	td->index = index;
	td->tid = (pid_t)syscall(SYS_gettid);
	stack_bounds(td);
	for (i = 0; i < HPCRUN_MAX_EVENTS; i++)
		td->fd[i] = -1;
	if (cct_init(&td->cct, (size_t)rt_cfg.nev, index == 0)) {
		munmap(td, TD_BYTES);
		return NULL;
	}
	pthread_mutex_lock(&threads_lock);
	td->next = threads;
	threads = td;
	pthread_mutex_unlock(&threads_lock);
	if (index)
		pthread_setspecific(thread_key, td);
	rt_self = td;
	for (i = 0; i < rt_cfg.nev; i++) {
		err = rt_cfg.ev[i].src->start(td, i);
		if (!err) {
			td->started[i] = 1;
		} else if (__atomic_fetch_add(&start_failures, 1, __ATOMIC_RELAXED) == 0) {
			char msg[256];

			snprintf(msg, sizeof(msg),
				 "warning: event '%s' could not start in thread %d (%s)",
				 rt_cfg.ev[i].metric, index, strerror(-err));
			rt_note(msg);
		}
	}
	return td;
}

static void stop_sources(struct rt_thread *td)
{
	int i;

	for (i = 0; i < rt_cfg.nev; i++)
		if (td->started[i]) {
			rt_cfg.ev[i].src->stop(td, i);
			td->started[i] = 0;
		}
}

static void add_counts(const struct rt_counts *c)
{
	const uint64_t *s = (const uint64_t *)c;
	uint64_t *d = (uint64_t *)&totals;
	size_t i;

	for (i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		__atomic_add_fetch(&d[i], s[i], __ATOMIC_RELAXED);
}

/* Writes td's profile and folds its counts into the totals; under the fd
 * gate, so the program cannot close the file's number under us. */
static void write_thread(struct rt_thread *td)
{
	sigset_t mask;
	int err;

	rt_fd_gate_lock(&mask);
	err = cct_write_profile(td);
	rt_fd_gate_unlock(&mask);
	if (err)
		__atomic_add_fetch(&write_errors, 1, __ATOMIC_RELAXED);
	add_counts(&td->counts);
	__atomic_add_fetch(&nthreads, 1, __ATOMIC_RELAXED);
}

void rt_thread_end(struct rt_thread *td)
{
	struct rt_thread **pp;

	if (!td)
		return;
	pthread_mutex_lock(&threads_lock);
	if (td->closed || finished) {
		pthread_mutex_unlock(&threads_lock);
		return;
	}
	td->closed = 1;
	for (pp = &threads; *pp; pp = &(*pp)->next)
		if (*pp == td) {
			*pp = td->next;
			break;
		}
	__atomic_add_fetch(&writers, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&threads_lock);
	rt_self = NULL;
	stop_sources(td);
	write_thread(td);
	__atomic_sub_fetch(&writers, 1, __ATOMIC_ACQ_REL);
	cct_release(&td->cct);
	munmap(td, TD_BYTES);
}

int rt_create_file(int thread, const char *suffix)
{
	char path[4400];
	size_t len, dl = strlen(rt_cfg.outdir), pl = strlen(rt_cfg.progname);
	unsigned gen;

	if (pl > 200)
		pl = 200;
	if (dl + pl + 100 > sizeof(path))
		return -ENAMETOOLONG;
	for (gen = 0; gen < 1000; gen++) {
		int fd;

		memcpy(path, rt_cfg.outdir, dl);
		len = dl;
		path[len++] = '/';
		memcpy(path + len, rt_cfg.progname, pl);
		len += pl;
		path[len++] = '-';
		len += rt_fmt_u64(path + len, rt_cfg.rank, 10, 6);
		path[len++] = '-';
		len += rt_fmt_u64(path + len, (uint64_t)thread, 10, 3);
		path[len++] = '-';
		len += rt_fmt_u64(path + len, rt_cfg.hostid, 16, 8);
		path[len++] = '-';
		len += rt_fmt_u64(path + len, (uint64_t)rt_pid, 10, 0);
		path[len++] = '-';
		len += rt_fmt_u64(path + len, gen, 10, 0);
		memcpy(path + len, suffix, strlen(suffix) + 1);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

static void log_line(int fd, const char *key, uint64_t v)
{
	char num[24];

	rt_fmt_u64(num, v, 10, 0);
	rt_write_str(fd, key);
	rt_write_str(fd, ": ");
	rt_write_str(fd, num);
	rt_write_str(fd, "\n");
}

static void write_log(const char *why)
{
	char num[24];
	int fd = rt_create_file(0, ".log"), i;
	uint64_t dropped;

	if (fd < 0)
		return;
	rt_write_str(fd, "hpcrun-log: 1\nprogram: ");
	rt_write_str(fd, rt_cfg.exe);
	rt_write_str(fd, "\n");
	log_line(fd, "process-id", (uint64_t)rt_pid);
	rt_write_str(fd, "end: ");
	rt_write_str(fd, why);
	rt_write_str(fd, "\n");
	log_line(fd, "signal", (uint64_t)rt_cfg.signo);
	rt_write_str(fd, "unwind: ");
	rt_write_str(fd, rt_cfg.no_unwind ? "none (--no-unwind)\n" : "eh_frame\n");
	for (i = 0; i < rt_cfg.nev; i++)
		if (rt_cfg.ev[i].src == &perf_source &&
		    rt_perf_ring_event(&rt_cfg.ev[i].spec))
			break;
	log_line(fd, "stack-copy", i < rt_cfg.nev ? rt_cfg.stack_copy : 0);
	for (i = 0; i < rt_cfg.nev; i++) {
		const struct rt_event *e = &rt_cfg.ev[i];

		rt_write_str(fd, "event: ");
		rt_write_str(fd, e->metric);
		if (e->spec.period) {
			rt_fmt_u64(num, e->spec.period, 10, 0);
			rt_write_str(fd, " period ");
		} else {
			rt_fmt_u64(num, e->spec.freq, 10, 0);
			rt_write_str(fd, " frequency ");
		}
		rt_write_str(fd, num);
		rt_write_str(fd, "\n");
	}
	rt_write_str(fd, notes);
	log_line(fd, "threads", nthreads);
	log_line(fd, "samples-taken", totals.taken);
	log_line(fd, "samples-recorded", totals.recorded);
	log_line(fd, "samples-partial", totals.partial);
	log_line(fd, "unwind-faults", totals.unwind_faults);
	dropped = totals.dropped_busy + totals.dropped_nomodule +
		  totals.dropped_full + totals.dropped_stopped + totals.dropped_ring;
	log_line(fd, "samples-dropped", dropped);
	log_line(fd, "dropped-nested", totals.dropped_busy);
	log_line(fd, "dropped-outside-modules", totals.dropped_nomodule);
	log_line(fd, "dropped-arena-full", totals.dropped_full);
	log_line(fd, "dropped-after-end", totals.dropped_stopped);
	log_line(fd, "dropped-ring-full", totals.dropped_ring);
	log_line(fd, "stack-copy-continued", totals.copy_live);
	log_line(fd, "foreign-signals", totals.dropped_foreign);
	log_line(fd, "blocked-signal-attempts", blocked_attempts);
	log_line(fd, "sampling-rearmed", rt_sampling_rearmed);
	log_line(fd, "sampling-stopped", rt_sampling_stopped);
	log_line(fd, "write-errors", write_errors);
	log_line(fd, "handler-ns", totals.handler_ns);
	close(fd);
}

void rt_process_finish(const char *why, int from_signal)
{
	struct rt_thread *td;
	int locked, spins, i;
	sigset_t mask;

	if (!rt_active || getpid() != rt_pid ||
	    __atomic_exchange_n(&finished, 1, __ATOMIC_ACQ_REL))
		return;
	rt_active = 0;
	locked = from_signal ? !pthread_mutex_trylock(&threads_lock) :
		 !pthread_mutex_lock(&threads_lock);
	for (td = threads; td; td = td->next) {
		if (td->closed)
			continue;
		td->closed = 1;
		stop_sources(td);
		for (spins = 0; td->busy && td != rt_self && spins < 10000; spins++)
			sched_yield();
		write_thread(td);
	}
	for (i = 0; __atomic_load_n(&writers, __ATOMIC_ACQUIRE) && i < 100000; i++)
		sched_yield();
	rt_fd_gate_lock(&mask);		/* as in write_thread */
	write_log(why);
	rt_fd_gate_unlock(&mask);
	if (locked)
		pthread_mutex_unlock(&threads_lock);
}

void rt_resume_after_failed_exec(int err)
{
	struct rt_thread *td, **pp;
	pid_t self = (pid_t)syscall(SYS_gettid);
	char msg[160];
	int i;

	if (!__atomic_load_n(&finished, __ATOMIC_ACQUIRE) || rt_active ||
	    getpid() != rt_pid)
		return;
	pthread_mutex_lock(&threads_lock);
	memset(&totals, 0, sizeof(totals));
	nthreads = write_errors = blocked_attempts = 0;
	rt_sampling_rearmed = rt_sampling_stopped = 0;
	for (pp = &threads; (td = *pp);) {
		if (td->tid != self && syscall(SYS_tgkill, rt_pid, td->tid, 0)) {
			*pp = td->next;		/* ended while nothing was measured */
			continue;
		}
		cct_release(&td->cct);
		if (cct_init(&td->cct, (size_t)rt_cfg.nev, td->index == 0)) {
			*pp = td->next;
			continue;
		}
		memset(&td->counts, 0, sizeof(td->counts));
		memset(td->nsamples, 0, sizeof(td->nsamples));
		td->closed = 0;
		for (i = 0; i < rt_cfg.nev; i++)
			td->started[i] = !rt_cfg.ev[i].src->start(td, i);
		pp = &td->next;
	}
	snprintf(msg, sizeof(msg), "exec failed (%s): measurement goes on in new files",
		 strerror(err));
	rt_note(msg);
	__atomic_store_n(&finished, 0, __ATOMIC_RELEASE);
	rt_active = 1;
	pthread_mutex_unlock(&threads_lock);
}

void rt_after_fork_child(void)
{
	struct rt_thread *self = rt_self;
	int i;

	rt_pid = getpid();
	rt_fds_after_fork(threads);
	if (!self || !rt_active)
		return;
	threads = NULL;
	memset(&totals, 0, sizeof(totals));
	nthreads = write_errors = blocked_attempts = 0;
	cct_release(&self->cct);
	memset(&self->counts, 0, sizeof(self->counts));
	memset(self->nsamples, 0, sizeof(self->nsamples));
	memset(self->started, 0, sizeof(self->started));
	rt_self = NULL;
	if (cct_init(&self->cct, (size_t)rt_cfg.nev, self->index == 0))
		return;
	self->tid = (pid_t)syscall(SYS_gettid);
	self->next = NULL;
	threads = self;
	rt_self = self;
	for (i = 0; i < rt_cfg.nev; i++)
		if (!rt_cfg.ev[i].src->start(self, i))
			self->started[i] = 1;
}

__attribute__((destructor)) static void rt_fini(void)
{
	rt_process_finish("exit", 0);
}
