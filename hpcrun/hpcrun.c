/*
 * hpcrun.c - launch a program under the sampling runtime (#3).
 *
 * The launcher validates what it can up front (options, events, the
 * program, the measurement directory), hands the configuration to the
 * runtime through environment variables (listed in hpcrun(1)), prepends
 * libhpcrun.so to LD_PRELOAD and execs the program, so the exit status (or
 * the fatal signal) is the program's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <dirent.h>
#include <elf.h>

#include "error.h"
#include "hpcrun-events.h"
#include "opts.h"
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

/* 1 when perf_event_open accepts the event for this process. */
static int perf_available(const struct hpcrun_event *ev)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.sample_period = 1000000;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	close((int)fd);
	return 1;
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
		if (e->kind == HPCRUN_EV_TIMER)
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
 * 127 when not found, 126 when found but not executable.
 */
static int find_program(const char *name, struct strbuf *out)
{
	const char *path = getenv("PATH"), *p;
	int saw_noexec = 0;

	if (strchr(name, '/')) {
		strbuf_addstr(out, name);
		if (access(name, F_OK)) {
			hpc_error("'%s': %s", name, strerror(errno));
			return 127;
		}
		if (access(name, X_OK)) {
			hpc_error("'%s': cannot run: %s", name, strerror(errno));
			return 126;
		}
		return 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		struct stat st;

		strbuf_reset(out);
		if (end == p)
			strbuf_addch(out, '.');
		else
			strbuf_add(out, p, (size_t)(end - p));
		strbuf_addf(out, "/%s", name);
		if (!stat(out->buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(out->buf, X_OK))
				return 0;
			saw_noexec = 1;
		}
		if (!*end)
			break;
		p = end;
	}
	if (saw_noexec) {
		hpc_error("'%s': cannot run: permission denied", name);
		return 126;
	}
	hpc_error("'%s': command not found", name);
	return 127;
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

/*
 * Creates the measurement directory: DIR as given (refused when it exists
 * and is not empty), or hpctoolkit-PROG-measurements with -2, -3 ... added
 * until the name is free.  The absolute path goes into out.
 */
static int make_outdir(const char *given, const char *progname,
		       struct strbuf *out)
{
	struct strbuf name = STRBUF_INIT;
	char abs[PATH_MAX];
	int n;

	if (given) {
		if (mkdir(given, 0777) && errno != EEXIST) {
			hpc_error("'%s': cannot create: %s", given, strerror(errno));
			return -1;
		}
		if (!dir_is_empty(given)) {
			struct stat st;

			if (!stat(given, &st) && !S_ISDIR(st.st_mode))
				hpc_error("'%s': exists and is not a directory", given);
			else
				hpc_error("'%s': exists and is not empty (hpcrun never "
					  "mixes two runs in one directory)", given);
			return -1;
		}
		strbuf_addstr(&name, given);
	} else {
		for (n = 1;; n++) {
			strbuf_reset(&name);
			strbuf_addf(&name, "hpctoolkit-%s-measurements", progname);
			if (n > 1)
				strbuf_addf(&name, "-%d", n);
			if (!mkdir(name.buf, 0777))
				break;
			if (errno != EEXIST || n == 10000) {
				hpc_error("'%s': cannot create: %s", name.buf,
					  strerror(errno));
				strbuf_release(&name);
				return -1;
			}
		}
	}
	if (!realpath(name.buf, abs)) {
		hpc_error("'%s': %s", name.buf, strerror(errno));
		strbuf_release(&name);
		return -1;
	}
	strbuf_addstr(out, abs);
	strbuf_release(&name);
	return 0;
}

static void set_env(const char *name, const char *value, int verbose)
{
	if (setenv(name, value, 1))
		hpc_die(1, "'%s': cannot set environment: %s", name, strerror(errno));
	if (verbose)
		fprintf(stderr, "hpcrun: %s=%s\n", name, value);
}

int main(int argc, char **argv)
{
	struct strlist events = { 0 };
	const char *outdir = NULL, *stack_copy = NULL, *old_preload, *base, *why;
	int no_unwind = 0, no_stack_copy = 0, list = 0, verbose = 0;
	const struct opt opts[] = {
		OPT_LIST('e', "event", &events, "EVENT[@PERIOD|@fFREQ]",
			 "sample EVENT (repeatable); default cpu-clock@f1000"),
		OPT_STRING('o', "output", &outdir, "DIR",
			   "write the measurement directory DIR (new or empty)"),
		OPT_FLAG(0, "no-unwind", &no_unwind, "record leaf addresses only"),
		OPT_STRING(0, "stack-copy", &stack_copy, "BYTES",
			   "bytes of stack the kernel copies per sample; default 8192"),
		OPT_FLAG(0, "no-stack-copy", &no_stack_copy,
			 "one signal per perf sample, unwound on the live stack"),
		OPT_FLAG('L', "list-events", &list,
			 "list the events and whether this machine has them"),
		OPT_COUNT('v', "verbose", &verbose, "say what is set up"),
		OPT_END(),
	};
	struct strbuf evlist = STRBUF_INIT, runtime = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT, dir = STRBUF_INIT, preload = STRBUF_INIT;
	int first, status, err;
	uint32_t copy_bytes;
	char num[32];

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, OPTS_STOP_AT_NONOPT);
	if (first < 0)
		return 2;
	if (list) {
		list_events();
		return 0;
	}
	if (first == argc) {
		hpc_error("no program given (see 'hpcrun --help')");
		return 2;
	}
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
	if (find_runtime(&runtime)) {
		hpc_error("%s", hpc_lasterr());
		return 1;
	}
	status = find_program(argv[first], &path);
	if (status)
		return status;
	if (is_static_elf(path.buf))
		hpc_warn("'%s': statically linked: the runtime cannot be preloaded, "
			 "nothing will be measured", argv[first]);
	base = strrchr(argv[first], '/');
	base = base ? base + 1 : argv[first];
	if (make_outdir(outdir, base, &dir))
		return 1;

	set_env("HPCRUN_OUT_PATH", dir.buf, verbose);
	if (evlist.len)
		set_env("HPCRUN_EVENT_LIST", evlist.buf, verbose);
	else
		unsetenv("HPCRUN_EVENT_LIST");
	if (no_unwind)
		set_env("HPCRUN_NO_UNWIND", "1", verbose);
	else
		unsetenv("HPCRUN_NO_UNWIND");
	if (no_stack_copy)
		set_env("HPCRUN_NO_STACK_COPY", "1", verbose);
	else
		unsetenv("HPCRUN_NO_STACK_COPY");
	if (stack_copy)
		set_env("HPCRUN_STACK_COPY", stack_copy, verbose);
	else
		unsetenv("HPCRUN_STACK_COPY");
	snprintf(num, sizeof(num), "%d", verbose);
	set_env("HPCRUN_VERBOSE", num, verbose);
	unsetenv("HPCRUN_NOTICES_SHOWN");
	old_preload = getenv("LD_PRELOAD");
	strbuf_addstr(&preload, runtime.buf);
	if (old_preload && *old_preload)
		strbuf_addf(&preload, ":%s", old_preload);
	set_env("LD_PRELOAD", preload.buf, verbose);

	execv(path.buf, argv + first);
	err = errno;
	hpc_error("'%s': cannot run: %s", argv[first], strerror(err));
	rmdir(dir.buf);
	return err == ENOENT ? 127 : 126;
}
