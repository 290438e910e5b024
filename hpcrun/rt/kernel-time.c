/*
 * kernel-time.c - the kernel's time: whether the events count it, the
 * kernel's module and symbols, and the account at process end
 * (kernel-time.h has the invariants).
 *
 * A capability (capability.h): init decides rt_kernel.on (a probe event
 * counting kernel mode, before the events are configured, so every event
 * is opened as it will run) and takes the CPU time so far; modules adds
 * the kernel's module once the program's own have their ids;
 * thread_written counts each thread's kernel leaves; log, at process
 * end, writes the account (and says it when the time is large), then
 * copies the kernel's symbols on a fd thread, as the profiles are
 * written.  Everything at the end is system calls, rt_fmt_u64 and that
 * thread's turn (a fatal signal's handler may write the log).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capability.h"
#include "fd-gate.h"
#include "kernel-time.h"
#include "loadmap.h"
#include "output.h"
#include "runtime.h"
#include "source.h"
#include "unwind.h"

struct rt_kernel rt_kernel;

/* In rt_sigreturn the user sp points at the kernel's struct ucontext of
 * the signal frame (the handler's return popped pretcode); the siginfo
 * follows it: x86-64's struct rt_sigframe, the kernel's ABI. */
#define UCONTEXT_BYTES 304

/* Why kernel mode is not counted: "--no-kernel", "perf_event_paranoid=2"
 * (or "" when it is). */
static char why_not[64];
/* CPU time of the process when this image started (ns), and the kernel
 * leaves of the threads written. */
static uint64_t user0, sys0, samples;
/* The kernel's symbol list to copy: HPCRUN_KALLSYMS at start (the
 * program may change its environment), else /proc/kallsyms. */
static char symbols[4096] = "/proc/kallsyms";

/* May perf event s count kernel mode: allowed, and through the trap
 * when it signals each sample (invariants 1 and 6)? */
static int mode_allowed(const struct hpcrun_evspec *s)
{
	return rt_kernel.on && (rt_kernel.trap || rt_perf_is_ring_event(s));
}

int rt_kernel_is_counted(const struct hpcrun_evspec *s)
{
	if (s->ev->kind == HPCRUN_EV_TIMER)
		return 1;
	if (!mode_allowed(s))
		return 0;
	return s->ev->type != PERF_TYPE_SOFTWARE ||
	       s->ev->config == PERF_COUNT_SW_CPU_CLOCK ||
	       s->ev->config == PERF_COUNT_SW_TASK_CLOCK;
}

int rt_kernel_is_sched(const struct hpcrun_evspec *s)
{
	return s->ev->kind == HPCRUN_EV_SW &&
	       (s->ev->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		s->ev->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

int rt_kernel_is_sampled(const struct hpcrun_evspec *s)
{
	return rt_kernel_is_sched(s) ? mode_allowed(s) : rt_kernel_is_counted(s);
}

int rt_kernel_is_own_sigreturn(const struct rt_copy *c)
{
	siginfo_t si;

	if (c->len < UCONTEXT_BYTES + sizeof(si))
		return 0;
	memcpy(&si, c->stack + UCONTEXT_BYTES, sizeof(si));
	return (si.si_signo == SIGTRAP || si.si_signo == rt_cfg.signo) &&
	       rt_signal_is_own(&si);
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

/* The process's user and system time so far (ns). */
static void cpu_time(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	*user = *sys = 0;
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	*user = tv_ns(&ru.ru_utime);
	*sys = tv_ns(&ru.ru_stime);
}

/* "perf_event_paranoid=N" into why_not, N as /proc says. */
static void why_paranoid(void)
{
	static const char key[] = "perf_event_paranoid=";
	char v[16];
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, v, sizeof(v) - 1) : -1;

	if (fd >= 0)
		rt_sys_close(fd);
	while (n > 0 && (v[n - 1] == '\n' || v[n - 1] == ' '))
		n--;
	if (n <= 0) {
		rt_append(why_not, "not permitted");
		return;
	}
	v[n] = '\0';
	rt_append(rt_append(why_not, key), v);
}

/* Does the list show addresses to this process (not zeros, not empty)? */
static int symbols_shown(const char *path)
{
	char buf[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		rt_sys_close(fd);
	return n >= 16 && strncmp(buf, "0000000000000000", 16);
}

/* Does the kernel let this process count kernel mode, and with perf's
 * trap (invariant 6)?  A cpu-clock event of the calling thread that does,
 * opened and closed again. */
static void kernel_init(void)
{
	struct perf_event_attr a;
	const char *v = getenv("HPCRUN_NO_KERNEL"), *list = getenv("HPCRUN_KALLSYMS");
	long fd;

	cpu_time(&user0, &sys0);
	if (list && *list && strlen(list) < sizeof(symbols))
		rt_append(symbols, list);
	if (v && *v == '1') {
		rt_append(why_not, "--no-kernel");
		return;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.disabled = 1;
	a.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0) {
		rt_sys_close((int)fd);
		rt_kernel.on = 1;
		rt_kernel.hidden = !symbols_shown(symbols);
		why_not[0] = '\0';
		a.sigtrap = 1;		/* invariant 6 */
		a.remove_on_exec = 1;
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0) {
			rt_sys_close((int)fd);
			rt_kernel.trap = 1;
		}
	} else if (errno == EACCES || errno == EPERM) {
		why_paranoid();
	} else {
		rt_append(why_not, "no perf events");
	}
}

const char *rt_kernel_why_no_trap(void)
{
	if (why_not[0])
		return why_not;
	return rt_kernel.trap ? "" : "no perf trap for a signal per sample (Linux 5.13)";
}

/* OUTDIR/kernel_symbols/vmlinux.HOSTID, the kernel's module (absolute,
 * as the vDSO's copy), into path (4400 bytes); the end of its directory,
 * or NULL when it does not fit. */
static char *module_path(char *path)
{
	char *dir;

	if (strlen(rt_cfg.outdir) + 64 > 4400)
		return NULL;
	dir = rt_append(rt_append(path, rt_cfg.outdir), "/kernel_symbols");
	rt_fmt_u64(rt_append(dir, "/vmlinux."), rt_cfg.hostid, 16, 8);
	return dir;
}

static void kernel_modules(void)
{
	char path[4400];

	if (!rt_kernel.on || rt_kernel.mod || !module_path(path))
		return;
	rt_kernel.mod = rt_module_add_unmapped(path, (uintptr_t)RT_KERNEL_LO,
					       UINTPTR_MAX);
}

static void kernel_thread_written(struct rt_thread *td, const char *profile)
{
	(void)profile;
	__atomic_add_fetch(&samples, td->counts.kernel, __ATOMIC_RELAXED);
}

static void kernel_fork_child(void)
{
	cpu_time(&user0, &sys0);	/* the child's own, from about 0 */
	samples = 0;
}

/* Copies what in reads into out through buf; 0 or negative errno.  The
 * first line must show an address (kallsyms shows zeros to whom
 * kptr_restrict hides them): -EPERM. */
static int copy_symbols(int in, int out, char *buf, size_t size)
{
	int first = 1, err;
	ssize_t n;

	while ((n = read(in, buf, size)) > 0) {
		if (first && (size_t)n >= 16 && !strncmp(buf, "0000000000000000", 16))
			return -EPERM;
		first = 0;
		if ((err = hpc_write_all(out, buf, (size_t)n)))
			return err;
	}
	return n < 0 ? -errno : first ? -ENODATA : 0;
}

/* The kernel's symbols into the measurement directory, once per host
 * (invariant 5): OUTDIR/kernel_symbols/vmlinux.HOSTID, written as
 * .PID.tmp beside it and linked into place; where they hide their
 * addresses, the one symbol "<kernel>".  Run on a fd thread
 * (fd-gate.c, THE PRIVATE TABLE), so a program whose table is full
 * still gets them; 0 or negative errno, the file's path in p. */
static int symbols_job(void *p)
{
	char *path = p, tmp[4450], *dir = module_path(path);
	size_t bytes = 65536;
	int in, out, err;
	char *buf;

	if (!dir)
		return 0;
	*dir = '\0';
	mkdir(path, 0777);
	*dir = '/';
	if (!access(path, F_OK))
		return 0;
	rt_fmt_u64(rt_append(rt_append(tmp, path), "."), (uint64_t)rt_pid, 10, 0);
	rt_append(tmp + strlen(tmp), ".tmp");
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (buf == MAP_FAILED)
		return 0;
	in = rt_kernel.hidden ? -1 : open(symbols, O_RDONLY | O_CLOEXEC);
	out = !rt_kernel.hidden && in < 0 ? -1 :
	      open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out >= 0 && rt_kernel.hidden)
		err = rt_write_str(out, "ffff800000000000 T <kernel>\n");
	else
		err = in < 0 || out < 0 ? -errno : copy_symbols(in, out, buf, bytes);
	if (out >= 0 && close(out) && !err)
		err = -errno;
	if (in >= 0)
		rt_sys_close(in);
	munmap(buf, bytes);
	if (!err && link(tmp, path) && errno != EEXIST)
		err = -errno;
	if (out >= 0)
		unlink(tmp);
	return err;
}

static void save_symbols(void)
{
	char path[4400] = "";
	int err = rt_fd_private(symbols_job, path);

	if (err && err != -EPERM)
		rt_say_lost(path, -err, "kernel symbols lost (kernel samples keep "
			    "their addresses)");
}

/* "N\n" after key, through put. */
static void put_u64(void (*put)(const char *), const char *key,
		    uint64_t v)
{
	char num[24];

	rt_fmt_u64(num, v, 10, 0);
	put(key);
	put(num);
	put("\n");
}

/*
 * The sentence for system time sys not measured, of CPU time all:
 * "61% of CPU time was in the kernel (2.1 s of system time), not
 * measured: WHY; see hpcrun(1)" into buf (256 bytes); under a second
 * the seconds have two decimals (0.04 s).
 */
static void unmeasured_text(char *buf, uint64_t sys, uint64_t all)
{
	char *p = buf;

	p += rt_fmt_u64(p, (sys * 100 + all / 2) / all, 10, 0);
	p = rt_append(p, "% of CPU time was in the kernel (");
	p += rt_fmt_seconds(p, sys);
	p = rt_append(p, " s of system time), not measured: ");
	rt_append(rt_append(p, why_not), "; see hpcrun(1)");
}

static void kernel_log(void (*put)(const char *text))
{
	uint64_t user, sys, lost;
	char line[256];
	int i, counted = 0, sampled = 0;

	cpu_time(&user, &sys);
	user = user > user0 ? user - user0 : 0;
	sys = sys > sys0 ? sys - sys0 : 0;
	for (i = 0; i < rt_cfg.nev; i++) {
		counted |= rt_kernel_is_counted(&rt_cfg.ev[i].spec);
		sampled |= rt_kernel_is_sampled(&rt_cfg.ev[i].spec);
	}
	/* the scheduler's events count no time (invariant 7) */
	if (!counted && !why_not[0])
		rt_append(why_not, rt_kernel.on && !rt_kernel.trap ?
			  "no perf trap for a signal per sample (Linux 5.13)" :
			  sampled ? "no event counts time" :
			  "the events count user mode only");
	lost = counted ? 0 : sys;
	put("kernel-mode: ");
	put(counted ? "counted" : "not counted (");
	if (!counted) {
		put(why_not);
		put(")");
	}
	put("\n");
	put_u64(put, "samples-kernel: ", samples);
	put_u64(put, "cpu-user-ns: ", user);
	put_u64(put, "cpu-system-ns: ", sys);
	put_u64(put, "kernel-unmeasured-ns: ", lost);
	if (lost >= RT_KERNEL_SAY_NS &&
	    lost * 100 >= (user + sys) * RT_KERNEL_SAY_PERCENT) {
		unmeasured_text(line, lost, user + sys);
		put("warning: ");
		put(line);
		put("\n");
		if (rt_first_to_say("kernel"))	/* invariant 4 */
			rt_say(line, NULL);
	}
	if (samples && rt_kernel.mod)
		save_symbols();
}

const struct rt_capability kernel_capability = {
	.name = "kernel",
	.init = kernel_init,
	.modules = kernel_modules,
	.thread_written = kernel_thread_written,
	.log = kernel_log,
	.fork_child = kernel_fork_child,
};
