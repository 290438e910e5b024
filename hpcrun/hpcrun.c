/*
 * hpcrun.c - launch a program under the sampling runtime.
 *
 * The launcher validates what it can up front (options, events, the
 * program, the measurement directory), hands the configuration to the
 * runtime through environment variables (listed in hpcrun(1)), prepends
 * libhpcrun.so to LD_PRELOAD and execs the program, so the exit status (or
 * the fatal signal) is the program's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <elf.h>

#include "error.h"
#include "hpcrun-events.h"
#include "launch-python.h"
#include "opts.h"
#include "seccomp-filters.h"
#include "strbuf.h"

static const char *const usage[] = {
	"[options] PROGRAM [ARGS...]",
	NULL,
};

static const struct opts_program prog = {
	"hpcrun", usage,
	"Run PROGRAM with the sampling runtime preloaded and write a measurement\n"
	"directory (hpcrun(5)).  Without -e, samples cpu-clock at 1000/s per\n"
	"thread (CPUTIME every 4 ms where perf events are not allowed).",
};

/* 1 when perf_event_open accepts attr for this process (opened, closed). */
static int perf_opens(struct perf_event_attr *attr)
{
	long fd;

	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
}

/* 1 when perf_event_open accepts the event for this process. */
static int perf_available(const struct hpcrun_event *ev)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = ev->type;
	attr.config = ev->config;
	attr.sample_period = 1000000;
	attr.exclude_kernel = 1;
	return perf_opens(&attr);
}

/* 1 when perf can trap every context switch of this process in kernel
 * mode, REALTIME's time off the CPU (hpcrun(1)); else it is a wall-clock
 * timer. */
static int offcpu_available(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	attr.sample_period = 1;
	attr.sigtrap = 1;
	attr.remove_on_exec = 1;
	return perf_opens(&attr);
}

static void list_events(void)
{
	const struct hpcrun_event *e;
	static const char *const kind[] = {
		[HPCRUN_EV_HW] = "perf hardware", [HPCRUN_EV_SW] = "perf software",
		[HPCRUN_EV_RAW] = "perf raw", [HPCRUN_EV_TIMER] = "POSIX timer",
	};

	printf("%-26s %-14s %-13s %s\n", "EVENT", "KIND", "HERE", "DEFAULT RATE");
	for (e = hpcrun_events; e->name; e++) {
		const char *here;

		if (e->kind == HPCRUN_EV_TIMER)
			here = "available";
		else if (e->kind == HPCRUN_EV_RAW)
			here = "-";
		else
			here = perf_available(e) ? "available" : "NOT AVAILABLE";
		if (e->kind == HPCRUN_EV_TIMER && e->type == CLOCK_REALTIME &&
		    offcpu_available())
			printf("%-26s %-14s %-13s every %d us on the CPU, and at "
			       "each context switch\n", e->name, "timer + perf",
			       here, HPCRUN_DEFAULT_TIMER_US);
		else if (e->kind == HPCRUN_EV_TIMER && e->type == CLOCK_REALTIME)
			printf("%-26s %-14s %-13s every %d us of wall-clock time "
			       "(no perf trap of context switches)\n", e->name,
			       kind[e->kind], here, HPCRUN_DEFAULT_TIMER_US);
		else if (e->kind == HPCRUN_EV_TIMER)
			printf("%-26s %-14s %-13s every %d us\n", e->name,
			       kind[e->kind], here, HPCRUN_DEFAULT_TIMER_US);
		else
			printf("%-26s %-14s %-13s %d/s%s%s\n", e->name, kind[e->kind],
			       here, HPCRUN_DEFAULT_FREQ,
			       e->fallback ? ", falls back to " : "",
			       e->fallback ? e->fallback : "");
	}
}

/* Checks every -e spec; appends them to list, space-separated. */
static int check_events(const struct strlist *events, struct strbuf *list)
{
	size_t i;

	if (events->n > HPCRUN_MAX_EVENTS) {
		hpc_error("too many events (at most %d)", HPCRUN_MAX_EVENTS);
		return -1;
	}
	for (i = 0; i < events->n; i++) {
		struct hpcrun_evspec spec;
		const char *why;

		if (strchr(events->v[i], ' ') ||
		    hpcrun_evspec_parse(events->v[i], &spec, &why)) {
			hpc_error("'%s': %s", events->v[i],
				  strchr(events->v[i], ' ') ? "space in event" : why);
			return -1;
		}
		if (list->len)
			strbuf_addch(list, ' ');
		strbuf_addstr(list, events->v[i]);
	}
	return 0;
}

/* The runtime beside us: DIR/../lib/hpcrun/libhpcrun.so for DIR/hpcrun. */
static int find_runtime(struct strbuf *out)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return hpc_seterr("'/proc/self/exe': %s", strerror(errno));
	self[n] = '\0';
	slash = strrchr(self, '/');
	*slash = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	strbuf_addf(out, "%s/lib/hpcrun/libhpcrun.so", self);
	if (access(out->buf, R_OK))
		return hpc_seterr("'%s': runtime not found: %s", out->buf,
				  strerror(errno));
	return 0;
}

/*
 * Resolves program like execvp would.  Returns 0 with the path in out,
 * 127 when not found, 126 when found but not executable (said).
 */
static int find_program(const char *name, struct strbuf *out)
{
	int status = launch_which(name, out), err = errno;

	if (status == 127 && strchr(name, '/'))
		hpc_error("'%s': %s", name, strerror(err));
	else if (status == 127)
		hpc_error("'%s': command not found", name);
	else if (status == 126 && strchr(name, '/'))
		hpc_error("'%s': cannot run: %s", name, strerror(err));
	else if (status == 126)
		hpc_error("'%s': cannot run: permission denied", name);
	return status;
}

/*
 * 1 when path is an ELF executable without a program interpreter: the
 * dynamic linker never runs, so LD_PRELOAD cannot load the runtime.
 */
static int is_static_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), i, interp = 0;

	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph)) {
		close(fd);
		return 0;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    sizeof(ph))
			break;
		if (ph.p_type == PT_INTERP)
			interp = 1;
	}
	close(fd);
	return i == eh.e_phnum && !interp;
}

/*
 * THE MEASUREMENT DIRECTORY.  One launch of hpcrun writes one directory,
 * whatever it starts: every process of the program, and under an MPI
 * launcher (mpirun -np N hpcrun PROG) every rank, each rank's hpcrun being
 * a launch of its own.  So a directory carries a marker, MARKER, naming
 * its launch: "launch KEY" (the MPI job, from the environment its launcher
 * sets: launch_key), "pid P" (a process that lives as long as the launch:
 * the MPI launcher's daemon, else the program, which hpcrun becomes),
 * "host H" (where P runs) and "program NAME" (the base name of the
 * program launched, which names the experiment in hpcprof).
 *  0. A launch joins a directory whose marker has its key and whose launch
 *     is running (or runs on another host, where hpcrun cannot tell): a
 *     key seen again in a later job is not the same launch.
 *  1. A directory is made whole or not at all: a temporary directory with
 *     the marker written is renamed into place, so ranks starting
 *     together agree on one (rename fails for all but the first; the
 *     others find their key in its marker and join it).  Launches in one
 *     parent directory decide one after the other (flock on the parent,
 *     where the file system has it), so no launch moves aside a directory
 *     another has just made.
 *  2. Without -o the newest measurement always has the plain name
 *     hpctoolkit-PROG-measurements; an earlier one there is moved aside to
 *     the first free -2, -3 ... name, and hpcrun says so -- unless its
 *     launch is still running (its pid lives), when the new one takes the
 *     free numbered name instead.  A directory of the same launch is joined,
 *     never moved.
 *  3. With -o DIR the user's name is used: new, empty, or of the same
 *     launch (ranks); anything else is refused.
 */
#define MARKER ".hpcrun-launch"

/* The environment that names an MPI job (or a Slurm step) shared by all
 * its ranks, into key; 0 when there is none. */
static int launch_key(struct strbuf *key)
{
	static const char *const vars[] = {
		"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "OMPI_MCA_orte_ess_jobid",
	};
	const char *v;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if ((v = getenv(vars[i])) && *v) {
			strbuf_addf(key, "%s=%s", vars[i], v);
			return 1;
		}
	if ((v = getenv("SLURM_JOB_ID")) && *v) {
		strbuf_addf(key, "SLURM_JOB_ID=%s", v);
		if ((v = getenv("SLURM_STEP_ID")) && *v)
			strbuf_addf(key, ".%s", v);
		return 1;
	}
	return 0;
}

struct marker {
	char key[256], host[256];
	long pid;
};

/* Reads DIR's marker: 1, 0 when DIR is a directory without one (or an
 * unreadable one), -1 when DIR is not there (errno says why). */
static int read_marker(const char *dir, struct marker *m)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	char line[300];
	FILE *f;

	memset(m, 0, sizeof(*m));
	if (stat(dir, &st))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	strbuf_addf(&path, "%s/" MARKER, dir);
	f = fopen(path.buf, "r");
	strbuf_release(&path);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "launch ", 7))
			snprintf(m->key, sizeof(m->key), "%.250s", line + 7);
		else if (!strncmp(line, "pid ", 4))
			m->pid = strtol(line + 4, NULL, 10);
		else if (!strncmp(line, "host ", 5))
			snprintf(m->host, sizeof(m->host), "%.250s", line + 5);
	}
	fclose(f);
	return 1;
}

/* Is the launch that wrote m still running (or elsewhere)? */
static int launch_alive(const struct marker *m)
{
	char host[256];

	if (gethostname(host, sizeof(host)) || strncmp(host, m->host, sizeof(host)))
		return 1;
	return m->pid > 0 && (!kill((pid_t)m->pid, 0) || errno == EPERM);
}

static int dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	closedir(d);
	return empty;
}

/* Locks the directory that holds path (flock); the fd to close, or -1
 * where there is no such lock (then rename alone keeps order). */
static int lock_parent(const char *path)
{
	struct strbuf dir = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	int fd;

	if (slash)
		strbuf_add(&dir, path, slash == path ? 1 : (size_t)(slash - path));
	else
		strbuf_addch(&dir, '.');
	fd = open(dir.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	strbuf_release(&dir);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A temporary directory beside name, with the marker of this launch,
 * which launches progname. */
static int make_temp(const char *name, const char *key, const char *progname,
		     struct strbuf *tmp)
{
	struct strbuf path = STRBUF_INIT;
	char host[256] = "";
	FILE *f;
	int ok;

	gethostname(host, sizeof(host) - 1);
	strbuf_addf(tmp, "%s.tmp-%ld", name, (long)getpid());
	if (mkdir(tmp->buf, 0777)) {
		hpc_error("'%s': cannot create: %s", name, strerror(errno));
		return -1;
	}
	strbuf_addf(&path, "%s/" MARKER, tmp->buf);
	f = fopen(path.buf, "w");
	ok = f && fprintf(f, "launch %s\npid %ld\nhost %s\n", key,
			  (long)(*key ? getppid() : getpid()), host) > 0;
	if (ok && !strchr(progname, '\n'))
		ok = fprintf(f, "program %s\n", progname) > 0;
	if (f && fclose(f))
		ok = 0;
	if (!ok) {
		hpc_error("'%s': cannot write: %s", path.buf, strerror(errno));
		unlink(path.buf);
		rmdir(tmp->buf);
	}
	strbuf_release(&path);
	return ok ? 0 : -1;
}

/* The first of base-2, base-3 ... that does not exist, into out. */
static int free_numbered(const char *base, struct strbuf *out)
{
	struct stat st;
	int n;

	for (n = 2; n < 100000; n++) {
		strbuf_reset(out);
		strbuf_addf(out, "%s-%d", base, n);
		if (lstat(out->buf, &st) && errno == ENOENT)
			return 0;
	}
	hpc_error("'%s': no free numbered name beside it", base);
	return -1;
}

/*
 * The measurement directory of this launch (THE MEASUREMENT DIRECTORY):
 * given (-o) or hpctoolkit-PROG-measurements, made or joined; its
 * absolute path into out, and whether this launch made it into *made.
 */
static int make_outdir(const char *given, const char *progname, int quiet,
		       struct strbuf *out, int *made)
{
	struct strbuf base = STRBUF_INIT, name = STRBUF_INIT, key = STRBUF_INIT;
	struct strbuf tmp = STRBUF_INIT, aside = STRBUF_INIT;
	char abs[PATH_MAX];
	int tries, st, err = -1, lock;
	struct marker m;

	if (given)
		strbuf_addstr(&base, given);
	else
		strbuf_addf(&base, "hpctoolkit-%s-measurements", progname);
	strbuf_addstr(&name, base.buf);
	launch_key(&key);
	*made = 0;
	lock = lock_parent(base.buf);
	for (tries = 0; tries < 100; tries++) {
		st = read_marker(name.buf, &m);
		if (st == 1 && key.len && !strcmp(m.key, key.buf) && launch_alive(&m))
			break;			/* a rank of this launch made it */
		if (st < 0 && errno != ENOENT) {
			hpc_error("'%s': %s", name.buf, errno == ENOTDIR ?
				  "exists and is not a directory" : strerror(errno));
			goto out;
		}
		if (!tmp.len && make_temp(base.buf, key.buf, progname, &tmp))
			goto out;
		/* onto nothing, or onto an empty directory (given, or left
		 * by a launch that wrote nothing) */
		if ((st < 0 || dir_is_empty(name.buf)) && !rename(tmp.buf, name.buf)) {
			*made = 1;
			break;
		}
		if (st < 0 || dir_is_empty(name.buf))
			continue;	/* another launch came first: look again */
		if (given) {
			hpc_error("'%s': exists and is not empty (hpcrun never mixes two "
				  "runs in one directory)", given);
			goto out;
		}
		if (st == 1 && launch_alive(&m)) {
			/* a running measurement: never moved */
			if (free_numbered(base.buf, &name))
				goto out;
			continue;
		}
		if (free_numbered(base.buf, &aside))
			goto out;
		if (rename(name.buf, aside.buf))
			continue;
		if (!quiet)
			fprintf(stderr, "hpcrun: moved the earlier '%s' to '%s'\n",
				name.buf, aside.buf);
	}
	if (tries == 100) {
		hpc_error("'%s': cannot create: other launches keep taking the name",
			  name.buf);
		goto out;
	}
	if (!realpath(name.buf, abs)) {
		hpc_error("'%s': %s", name.buf, strerror(errno));
		goto out;
	}
	strbuf_addstr(out, abs);
	if (*made && !quiet && !given)	/* -o: the user knows */
		fprintf(stderr, "hpcrun: writing the measurements to '%s'\n", name.buf);
	err = 0;
out:
	if (lock >= 0)
		close(lock);
	if (tmp.len && !*made) {
		struct strbuf path = STRBUF_INIT;

		strbuf_addf(&path, "%s/" MARKER, tmp.buf);
		unlink(path.buf);
		rmdir(tmp.buf);
		strbuf_release(&path);
	}
	strbuf_release(&base);
	strbuf_release(&name);
	strbuf_release(&key);
	strbuf_release(&tmp);
	strbuf_release(&aside);
	return err;
}

static void set_env(const char *name, const char *value, int verbose)
{
	if (setenv(name, value, 1))
		hpc_die(1, "'%s': cannot set environment: %s", name, strerror(errno));
	if (verbose)
		fprintf(stderr, "hpcrun: %s=%s\n", name, value);
}

/* A non-negative number for option name (its value v), or -1 said. */
static double sync_number(const char *name, const char *v)
{
	char *end;
	double d;

	errno = 0;
	d = v ? strtod(v, &end) : 0;
	/* written so that nan fails too */
	if (v && (errno || end == v || *end || !(d >= 0 && d <= 1e9))) {
		hpc_error("option '--%s': not a number of %s >= 0: '%s'", name,
			  strcmp(name, "sync-warn") ? "seconds" : "milliseconds", v);
		return -1;
	}
	return d;
}

/* The environment of --no-sync, --sync-warn, --hang-timeout and
 * --hang-action (hpcrun(1)); 0, or 2 for a bad value (said). */
static int sync_env(int no_sync, const char *warn, const char *timeout,
		    const char *action, int verbose)
{
	if (sync_number("sync-warn", warn) < 0 ||
	    sync_number("hang-timeout", timeout) < 0)
		return 2;
	if (action && strcmp(action, "report") && strcmp(action, "abort")) {
		hpc_error("option '--hang-action': 'report' or 'abort', not '%s'", action);
		return 2;
	}
	if (no_sync)
		set_env("HPCRUN_SYNC", "0", verbose);
	else
		unsetenv("HPCRUN_SYNC");
	if (warn)
		set_env("HPCRUN_SYNC_WARN_MS", warn, verbose);
	else
		unsetenv("HPCRUN_SYNC_WARN_MS");
	if (timeout)
		set_env("HPCRUN_HANG_TIMEOUT", timeout, verbose);
	else
		unsetenv("HPCRUN_HANG_TIMEOUT");
	if (action)
		set_env("HPCRUN_HANG_ACTION", action, verbose);
	else
		unsetenv("HPCRUN_HANG_ACTION");
	return 0;
}

/*
 * The runtime's virtual topology (hpcrun/rt/sharing.c) holds at most 64
 * nodes of at most 127 characters each; hpcprof reads CPUs up to 65535
 * (hpcshare.h) and refuses a CPU in two nodes.
 */
#define NUMA_MAX_NODES 64
#define NUMA_MAX_LIST 127
#define NUMA_MAX_CPU 65535

/*
 * Whether numa is NUMA_MAX_NODES or fewer ':'-separated CPU lists
 * ("0-3,8"), each range rising, no CPU in two of them (or twice in one):
 * 0, or -1 with the reason said.
 */
static int numa_check(const char *numa)
{
	static unsigned char seen[NUMA_MAX_CPU + 1];
	const char *c = numa, *why = NULL;
	unsigned long lo, hi, cpu;
	size_t nodes = 1, len = 0;
	char *end;

	memset(seen, 0, sizeof(seen));
	while (!why) {
		if (*c < '0' || *c > '9') {
			why = "CPU lists separated by ':' (0-3:4-7)";
			break;
		}
		lo = hi = strtoul(c, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9') {
				why = "CPU lists separated by ':' (0-3:4-7)";
				break;
			}
			hi = strtoul(end + 1, &end, 10);
		}
		len += (size_t)(end - c) + 1;
		if (lo > hi)
			why = "a CPU range that runs down";
		else if (hi > NUMA_MAX_CPU)
			why = "a CPU above 65535";
		else if (len > NUMA_MAX_LIST)
			why = "a node's CPU list longer than 127 characters";
		for (cpu = lo; !why && cpu <= hi; cpu++)
			if (seen[cpu]++)
				why = "a CPU in two nodes (or twice in one)";
		if (why || !*end)
			break;
		if (*end == ':') {
			len = 0;
			if (++nodes > NUMA_MAX_NODES)
				why = "more than 64 nodes";
		} else if (*end != ',') {
			why = "CPU lists separated by ':' (0-3:4-7)";
		}
		c = end + 1;
	}
	if (!why)
		return 0;
	hpc_error("option '--numa-nodes': %s, not '%s'", why, numa);
	return -1;
}

/* --sharing's default event: its labels need samples on each line from
 * each thread that touches it, so it samples five times as often as
 * plain hpcrun (hpcrun(1), --sharing). */
#define HPCRUN_SHARING_EVENT "cpu-clock@f5000"

/* The runtime keeps at most this many --watch globs (hpcrun/rt/sharing.c). */
#define WATCH_MAX_GLOBS 32

/*
 * Checks the --watch values (each GLOB[,GLOB...]) and joins them into
 * out, comma-separated: 0, or -1 with the first bad glob said.  A glob is
 * an fnmatch(3) pattern over ELF symbol names: not empty, no space or
 * control character, every '[' closed.
 */
static int watch_check(const struct strlist *watch, struct strbuf *out)
{
	size_t i, n = 0;

	for (i = 0; i < watch->n; i++) {
		const char *p = watch->v[i];

		for (;;) {
			size_t len = strcspn(p, ","), k;
			const char *why = NULL;

			if (!len)
				why = "an empty name";
			for (k = 0; !why && k < len; k++)
				if ((unsigned char)p[k] <= ' ' || p[k] == 0x7f)
					why = "a space or control character";
				else if (p[k] == '[' && (len <= k + 2 ||
					 !memchr(p + k + 2, ']', len - k - 2)))
					why = "a '[' never closed";
			if (!why && ++n > WATCH_MAX_GLOBS)
				why = "more than 32 globs";
			if (why) {
				hpc_error("option '--watch': %s in '%s'", why,
					  watch->v[i]);
				return -1;
			}
			if (out->len)
				strbuf_addch(out, ',');
			strbuf_add(out, p, len);
			if (!p[len])
				break;
			p += len + 1;
		}
	}
	return 0;
}

static void sharing_env(int sharing, const char *watch, const char *numa,
			int verbose)
{
	if (watch)
		set_env("HPCRUN_WATCH", watch, verbose);
	else
		unsetenv("HPCRUN_WATCH");
	if (sharing)
		set_env("HPCRUN_SHARING", "1", verbose);
	else
		unsetenv("HPCRUN_SHARING");
	if (numa)
		set_env("HPCRUN_NUMA_NODES", numa, verbose);
	else
		unsetenv("HPCRUN_NUMA_NODES");
}

int main(int argc, char **argv)
{
	struct strlist events = { 0 }, watch = { 0 };
	const char *outdir = NULL, *stack_copy = NULL, *old_preload, *base, *why;
	const char *sync_warn = NULL, *hang_timeout = NULL, *hang_action = NULL;
	const char *data_min = NULL, *numa = NULL, *rate = NULL;
	int no_unwind = 0, no_stack_copy = 0, list = 0, verbose = 0, quiet = 0, made;
	int no_sync = 0, data = 0, sharing = 0, trace = 0, no_kernel = 0;
	int no_python = 0, filters;
	const struct opt opts[] = {
		OPT_LIST('e', "event", &events, "EVENT[@PERIOD|@fFREQ]",
			 "sample EVENT (repeatable); default cpu-clock@f1000 (@f5000 with --sharing)"),
		OPT_STRING('o', "output", &outdir, "DIR",
			   "write the measurement directory DIR (new or empty)"),
		OPT_FLAG(0, "no-unwind", &no_unwind, "record leaf addresses only"),
		OPT_FLAG(0, "no-kernel", &no_kernel,
			 "count user mode only, as where the kernel does not allow more"),
		OPT_FLAG('t', "trace", &trace,
			 "also record each thread's samples in time order (.hpctrace)"),
		OPT_STRING(0, "stack-copy", &stack_copy, "BYTES",
			   "bytes of stack the kernel copies per sample; default 8192"),
		OPT_FLAG(0, "no-stack-copy", &no_stack_copy,
			 "one signal per perf sample, unwound on the live stack"),
		OPT_FLAG(0, "no-python", &no_python,
			 "native frames only where CPython runs, no Python frames"),
		OPT_FLAG(0, "no-sync", &no_sync,
			 "do not measure barriers, lock waits and phases"),
		OPT_STRING(0, "sync-warn", &sync_warn, "MS",
			   "warn when a barrier's arrivals spread more than MS ms"),
		OPT_STRING(0, "hang-timeout", &hang_timeout, "SECONDS",
			   "report a barrier or lock hang after SECONDS; default 30, 0: off"),
		OPT_STRING(0, "hang-action", &hang_action, "report|abort",
			   "after a hang report, run on (default) or abort"),
		OPT_FLAG(0, "data", &data,
			 "attribute samples to data objects too (hpcrun(5))"),
		OPT_STRING(0, "data-min-bytes", &data_min, "N",
			   "track heap blocks of N bytes or more; default 1024 (1 with --sharing)"),
		OPT_FLAG(0, "sharing", &sharing,
			 "record which threads touch which bytes when (.hpcshare); implies --data"),
		OPT_LIST(0, "watch", &watch, "GLOB[,GLOB...]",
			 "with --sharing: always report these variables and allocating functions"),
		OPT_STRING(0, "numa-nodes", &numa, "CPULIST:CPULIST[:...]",
			   "with --sharing: a virtual NUMA topology, node i = the i-th CPU list"),
		OPT_STRING(0, "sharing-rate", &rate, "N",
			   "refused: --sharing samples at -e cpu-clock@fN"),
		OPT_FLAG('L', "list-events", &list,
			 "list the events and whether this machine has them"),
		OPT_COUNT('v', "verbose", &verbose, "say what is set up"),
		OPT_FLAG('q', "quiet", &quiet,
			 "say neither where measurements go nor notices"),
		OPT_END(),
	};
	struct strbuf evlist = STRBUF_INIT, runtime = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT, dir = STRBUF_INIT, preload = STRBUF_INIT;
	struct strbuf globs = STRBUF_INIT, progenv = STRBUF_INIT;
	int first, status, err;
	char **args, *script;
	uint32_t copy_bytes;
	uint64_t min_bytes;
	char num[32];

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, OPTS_STOP_AT_NONOPT);
	if (first < 0)
		return 2;
	if (list) {
		list_events();
		return opts_flush_stdout() ? 1 : 0;
	}
	if (first == argc) {
		hpc_error("no program given (see 'hpcrun --help')");
		return 2;
	}
	args = argv + first;
	if (check_events(&events, &evlist))
		return 2;
	if (stack_copy && no_stack_copy) {
		hpc_error("--stack-copy and --no-stack-copy exclude each other");
		return 2;
	}
	if (stack_copy && hpcrun_stack_copy_parse(stack_copy, &copy_bytes, &why)) {
		hpc_error("option '--stack-copy': %s, not '%s'", why, stack_copy);
		return 2;
	}
	if (data_min && hpcrun_data_min_parse(data_min, &min_bytes, &why)) {
		hpc_error("option '--data-min-bytes': %s, not '%s'", why, data_min);
		return 2;
	}
	if (rate) {
		hpc_error("option '--sharing-rate': gone; --sharing's evidence comes "
			  "from the sampling rate: -e cpu-clock@fN (default @f5000)");
		return 2;
	}
	if ((numa || watch.n) && !sharing) {
		hpc_error("--%s needs --sharing", numa ? "numa-nodes" : "watch");
		return 2;
	}
	if (watch_check(&watch, &globs))
		return 2;
	if ((numa && numa_check(numa)) ||
	    sync_env(no_sync, sync_warn, hang_timeout, hang_action, verbose))
		return 2;
	if (sharing)
		data = 1;
	if (data_min && !data) {
		hpc_error("--data-min-bytes needs --data");
		return 2;
	}
	if (find_runtime(&runtime)) {
		hpc_error("%s", hpc_lasterr());
		return 1;
	}
	status = find_program(argv[first], &path);
	if (status)
		return status;
	launch_pyenv_resolve(&path, &args, verbose);
	if (is_static_elf(path.buf))
		hpc_warn("'%s': statically linked: the runtime cannot be preloaded, "
			 "nothing will be measured", argv[first]);
	script = launch_python_program(path.buf, args);
	base = strrchr(argv[first], '/');
	base = script ? script : base ? base + 1 : argv[first];
	if (make_outdir(outdir, base, quiet, &dir, &made))
		return 1;
	/* the runtime names this process's profiles by the script too */
	if (script && !strchr(script, '\n')) {
		snprintf(num, sizeof(num), "%ld ", (long)getpid());
		strbuf_addf(&progenv, "%s%s", num, script);
		set_env("HPCRUN_PROGRAM", progenv.buf, verbose);
	} else {
		unsetenv("HPCRUN_PROGRAM");
	}
	free(script);

	set_env("HPCRUN_OUT_PATH", dir.buf, verbose);
	if (!evlist.len && sharing)
		strbuf_addstr(&evlist, HPCRUN_SHARING_EVENT);
	if (evlist.len)
		set_env("HPCRUN_EVENT_LIST", evlist.buf, verbose);
	else
		unsetenv("HPCRUN_EVENT_LIST");
	if (no_unwind)
		set_env("HPCRUN_NO_UNWIND", "1", verbose);
	else
		unsetenv("HPCRUN_NO_UNWIND");
	if (no_kernel)
		set_env("HPCRUN_NO_KERNEL", "1", verbose);
	else
		unsetenv("HPCRUN_NO_KERNEL");
	if (no_stack_copy)
		set_env("HPCRUN_NO_STACK_COPY", "1", verbose);
	else
		unsetenv("HPCRUN_NO_STACK_COPY");
	if (no_python)
		set_env("HPCRUN_NO_PYTHON", "1", verbose);
	else
		unsetenv("HPCRUN_NO_PYTHON");
	if (quiet)
		set_env("HPCRUN_QUIET", "1", verbose);
	else
		unsetenv("HPCRUN_QUIET");
	if (stack_copy)
		set_env("HPCRUN_STACK_COPY", stack_copy, verbose);
	else
		unsetenv("HPCRUN_STACK_COPY");
	if (data)
		set_env("HPCRUN_DATA", data_min ? data_min : sharing ? "1" : "1024", verbose);
	else
		unsetenv("HPCRUN_DATA");
	sharing_env(sharing, globs.len ? globs.buf : NULL, numa, verbose);
	if (trace)
		set_env("HPCRUN_TRACE", "1", verbose);
	else
		unsetenv("HPCRUN_TRACE");
	snprintf(num, sizeof(num), "%d", verbose);
	set_env("HPCRUN_VERBOSE", num, verbose);
	/* a process under more filters than this did not start as launched:
	 * one of the measured processes sandboxed itself, then exec'd */
	if ((filters = hpc_seccomp_filters()) >= 0) {
		snprintf(num, sizeof(num), "%d", filters);
		set_env("HPCRUN_SECCOMP_FILTERS", num, verbose);
	} else {
		unsetenv("HPCRUN_SECCOMP_FILTERS");
	}
	unsetenv("HPCRUN_NOTICES_SHOWN");
	old_preload = getenv("LD_PRELOAD");
	strbuf_addstr(&preload, runtime.buf);
	if (old_preload && *old_preload)
		strbuf_addf(&preload, ":%s", old_preload);
	set_env("LD_PRELOAD", preload.buf, verbose);

	execv(path.buf, args);
	err = errno;
	hpc_error("'%s': cannot run: %s", argv[first], strerror(err));
	if (made) {
		strbuf_addstr(&dir, "/" MARKER);
		unlink(dir.buf);
		*strrchr(dir.buf, '/') = '\0';
		rmdir(dir.buf);
	}
	return err == ENOENT ? 127 : 126;
}
