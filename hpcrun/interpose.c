/*
 * interpose.c - the libc entry points libhpcrun.so wraps (exported through
 * libhpcrun.map; the real functions come from dlsym(RTLD_NEXT)).
 *
 *   __libc_start_main   runs main through hpcrun_main(), the stop frame of
 *                       the main thread's call paths
 *   pthread_create      runs every thread through thread_start(), which
 *   thrd_create         starts its sampling and is its stop frame; the
 *                       thread's profile is written by a key destructor
 *   exec*               write everything before the image is replaced
 *                       (and measure on, in new files, if exec fails)
 *   _exit, _Exit        write everything before the process ends
 *   sigaction, signal   keep the sampling signal ours; give up our fatal
 *                       signal handlers to the program when it sets its own
 *   sigprocmask, pthread_sigmask   the program cannot block the sampling
 *                       signal (attempts are counted in the log)
 *   dlopen, dlclose     refresh the load map (dlclose first takes the
 *                       samples waiting in the thread's ring buffers)
 *   close, close_range, closefrom, dup2, dup3   the program may close
 *                       hpcrun's perf fds: hpcrun forgets them first and
 *                       re-opens the events on new fds after (the fd gate,
 *                       source-perf.c); closing one of ours with close()
 *                       fails with EBADF, as it would without hpcrun
 *
 * fork is handled with pthread_atfork (runtime.c).  Fatal signals with the
 * default action (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT,
 * SIGTERM, SIGQUIT, SIGHUP, SIGPIPE, SIGXCPU) write everything, then are
 * re-raised with the default action, so the program dies as it would have.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/close_range.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <threads.h>
#include <unistd.h>

#include "runtime.h"

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_main_fn)(main_fn, int, char **, void (*)(void),
			     void (*)(void), void (*)(void), void *);
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *,
			 void *(*)(void *), void *);
typedef int (*thrd_create_fn)(thrd_t *, thrd_start_t, void *);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvp_fn)(const char *, char *const[]);
typedef void (*exit_fn)(int) __attribute__((noreturn));
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*sigmask_fn)(int, const sigset_t *, sigset_t *);
typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);
typedef int (*close_fn)(int);
typedef int (*close_range_fn)(unsigned, unsigned, int);
typedef void (*closefrom_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);

static struct {
	start_main_fn start_main;
	create_fn create;
	thrd_create_fn thrd_create;
	execve_fn execve;
	execvp_fn execv, execvp;
	execve_fn execvpe;
	exit_fn exit_, Exit;
	sigaction_fn sigaction;
	sigmask_fn sigprocmask, pthread_sigmask;
	dlopen_fn dlopen;
	dlclose_fn dlclose;
	close_fn close;
	close_range_fn close_range;
	closefrom_fn closefrom;
	dup2_fn dup2;
	dup3_fn dup3;
} real;

static main_fn program_main;

static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM, SIGQUIT,
	SIGHUP, SIGPIPE, SIGXCPU,
};
/* 1 while our handler is installed for the signal (the program's view
 * of it is then SIG_DFL). */
static volatile int fatal_ours[65];

#define RESOLVE(field, name) \
	do { \
		if (!real.field) \
			*(void **)&real.field = dlsym(RTLD_NEXT, name); \
	} while (0)

void rt_interpose_init(void)
{
	RESOLVE(start_main, "__libc_start_main");
	RESOLVE(create, "pthread_create");
	RESOLVE(thrd_create, "thrd_create");
	RESOLVE(execve, "execve");
	RESOLVE(execv, "execv");
	RESOLVE(execvp, "execvp");
	RESOLVE(execvpe, "execvpe");
	RESOLVE(exit_, "_exit");
	RESOLVE(Exit, "_Exit");
	RESOLVE(sigaction, "sigaction");
	RESOLVE(sigprocmask, "sigprocmask");
	RESOLVE(pthread_sigmask, "pthread_sigmask");
	RESOLVE(dlopen, "dlopen");
	RESOLVE(dlclose, "dlclose");
	RESOLVE(close, "close");
	RESOLVE(close_range, "close_range");
	RESOLVE(closefrom, "closefrom");
	RESOLVE(dup2, "dup2");
	RESOLVE(dup3, "dup3");
}

int rt_real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	RESOLVE(sigaction, "sigaction");
	return real.sigaction(sig, sa, old);
}

int rt_real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	RESOLVE(pthread_sigmask, "pthread_sigmask");
	return real.pthread_sigmask(how, set, old);
}

/* The main thread's stop frame: call paths end at main's caller. */
__attribute__((noinline)) static int hpcrun_main(int argc, char **argv, char **envp)
{
	int r = program_main(argc, argv, envp);

	__asm__ volatile("" ::: "memory");	/* keep this frame (no tail call) */
	return r;
}

struct start_arg {
	void *(*fn)(void *);
	thrd_start_t c11_fn;
	void *arg;
	int index;
};

/* Every thread's stop frame. */
__attribute__((noinline)) static void *thread_start(void *p)
{
	struct start_arg a = *(struct start_arg *)p;
	void *r;

	free(p);
	rt_thread_begin(a.index);
	r = a.fn(a.arg);
	__asm__ volatile("" ::: "memory");	/* keep this frame (no tail call) */
	return r;
}

/* The same for C11 threads (thrd_create). */
__attribute__((noinline)) static int c11_thread_start(void *p)
{
	struct start_arg a = *(struct start_arg *)p;
	int r;

	free(p);
	rt_thread_begin(a.index);
	r = a.c11_fn(a.arg);
	__asm__ volatile("" ::: "memory");	/* keep this frame (no tail call) */
	return r;
}

int rt_is_stop_function(uintptr_t fn_start)
{
	return fn_start == (uintptr_t)hpcrun_main ||
	       fn_start == (uintptr_t)thread_start ||
	       fn_start == (uintptr_t)c11_thread_start;
}

RT_API int __libc_start_main(main_fn main, int argc, char **argv,
			     void (*init)(void), void (*fini)(void),
			     void (*rtld_fini)(void), void *stack_end);
RT_API int __libc_start_main(main_fn main, int argc, char **argv,
			     void (*init)(void), void (*fini)(void),
			     void (*rtld_fini)(void), void *stack_end)
{
	RESOLVE(start_main, "__libc_start_main");
	program_main = main;
	return real.start_main(hpcrun_main, argc, argv, init, fini, rtld_fini,
			       stack_end);
}

RT_API int pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct start_arg *a;
	int r;

	RESOLVE(create, "pthread_create");
	if (!rt_active || !(a = malloc(sizeof(*a))))
		return real.create(t, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	a->index = rt_next_thread_index();
	r = real.create(t, attr, thread_start, a);
	if (r)
		free(a);
	return r;
}

RT_API int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
	struct start_arg *a;
	int r;

	RESOLVE(thrd_create, "thrd_create");
	if (!rt_active || !(a = malloc(sizeof(*a))))
		return real.thrd_create(t, fn, arg);
	a->c11_fn = fn;
	a->arg = arg;
	a->index = rt_next_thread_index();
	r = real.thrd_create(t, c11_thread_start, a);
	if (r != thrd_success)
		free(a);
	return r;
}

/* An exec returned: it failed; measure on, errno kept for the caller. */
static int exec_failed(int r)
{
	int err = errno;

	rt_resume_after_failed_exec(err);
	errno = err;
	return r;
}

RT_API int execve(const char *path, char *const argv[], char *const envp[])
{
	RESOLVE(execve, "execve");
	rt_process_finish("exec", 0);
	return exec_failed(real.execve(path, argv, envp));
}

RT_API int execv(const char *path, char *const argv[])
{
	RESOLVE(execv, "execv");
	rt_process_finish("exec", 0);
	return exec_failed(real.execv(path, argv));
}

RT_API int execvp(const char *file, char *const argv[])
{
	RESOLVE(execvp, "execvp");
	rt_process_finish("exec", 0);
	return exec_failed(real.execvp(file, argv));
}

RT_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	RESOLVE(execvpe, "execvpe");
	rt_process_finish("exec", 0);
	return exec_failed(real.execvpe(file, argv, envp));
}

/* Collects execl-style arguments into a malloc'ed argv; envp for execle. */
static char **collect_args(const char *arg0, va_list ap, char ***envp)
{
	size_t n = 1, alloc = 16;
	char **v = malloc(alloc * sizeof(*v)), *s;

	if (!v)
		return NULL;
	v[0] = (char *)arg0;
	do {
		s = va_arg(ap, char *);
		if (n == alloc) {
			char **nv = realloc(v, (alloc *= 2) * sizeof(*v));

			if (!nv) {
				free(v);
				return NULL;
			}
			v = nv;
		}
		v[n++] = s;
	} while (s);
	if (envp)
		*envp = va_arg(ap, char **);
	return v;
}

RT_API int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	char **v;
	int r;

	va_start(ap, arg);
	v = collect_args(arg, ap, NULL);
	va_end(ap);
	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	r = execv(path, v);
	free(v);
	return r;
}

RT_API int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	char **v;
	int r;

	va_start(ap, arg);
	v = collect_args(arg, ap, NULL);
	va_end(ap);
	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	r = execvp(file, v);
	free(v);
	return r;
}

RT_API int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	char **v, **envp = NULL;
	int r;

	va_start(ap, arg);
	v = collect_args(arg, ap, &envp);
	va_end(ap);
	if (!v) {
		errno = ENOMEM;
		return -1;
	}
	r = execve(path, v, envp);
	free(v);
	return r;
}

RT_API void _exit(int status)
{
	RESOLVE(exit_, "_exit");
	rt_process_finish("_exit", 0);
	real.exit_(status);
}

RT_API void _Exit(int status)
{
	RESOLVE(Exit, "_Exit");
	rt_process_finish("_exit", 0);
	real.Exit(status);
}

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction dfl;
	sigset_t set;
	char why[32] = "signal ";

	(void)si;
	(void)uc;
	if ((sig == SIGSEGV || sig == SIGBUS) && rt_self && rt_self->in_unwind)
		siglongjmp(rt_self->unwind_jmp, 1);	/* back to sample.c */
	rt_fmt_u64(why + 7, (uint64_t)sig, 10, 0);
	rt_process_finish(why, 1);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	rt_real_sigaction(sig, &dfl, NULL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	rt_real_sigmask(SIG_UNBLOCK, &set, NULL);
}

int rt_fault_recovery(void)
{
	struct sigaction segv, bus;

	/* Asked of the kernel: the program may have replaced ours through
	 * an entry point we do not wrap (sysv_signal, a raw system call). */
	return !rt_real_sigaction(SIGSEGV, NULL, &segv) &&
	       !rt_real_sigaction(SIGBUS, NULL, &bus) &&
	       (segv.sa_flags & SA_SIGINFO) && segv.sa_sigaction == fatal_handler &&
	       (bus.sa_flags & SA_SIGINFO) && bus.sa_sigaction == fatal_handler;
}

void rt_install_fatal_handlers(void)
{
	size_t i;

	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction sa, old;
		int sig = fatal_signals[i];

		if (rt_real_sigaction(sig, NULL, &old) || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = fatal_handler;
		/* NODEFER: after a jump back from a fault in the unwinder
		 * the signal must not stay blocked. */
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (!rt_real_sigaction(sig, &sa, NULL))
			fatal_ours[sig] = 1;
	}
}

RT_API int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	RESOLVE(sigaction, "sigaction");
	if (rt_active && sig == rt_cfg.signo) {
		/* The program's handler for our signal is not installed. */
		if (old) {
			memset(old, 0, sizeof(*old));
			old->sa_handler = SIG_DFL;
		}
		if (sa)
			rt_count_blocked_signal();
		return 0;
	}
	if (sig > 0 && sig < 65 && fatal_ours[sig]) {
		int r;

		if (!sa) {
			r = real.sigaction(sig, NULL, old);
			if (!r && old) {
				memset(old, 0, sizeof(*old));
				old->sa_handler = SIG_DFL;
			}
			return r;
		}
		if (!(sa->sa_flags & SA_SIGINFO) && sa->sa_handler == SIG_DFL) {
			if (old) {
				memset(old, 0, sizeof(*old));
				old->sa_handler = SIG_DFL;
			}
			return 0;	/* keep ours: it ends with the default action */
		}
		r = real.sigaction(sig, sa, old);
		if (!r) {
			fatal_ours[sig] = 0;
			if (old) {
				memset(old, 0, sizeof(*old));
				old->sa_handler = SIG_DFL;
			}
		}
		return r;
	}
	return real.sigaction(sig, sa, old);
}

RT_API __sighandler_t signal(int sig, __sighandler_t handler)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* Removes the sampling signal from a mask the program wants to block. */
static const sigset_t *keep_ours(int how, const sigset_t *set, sigset_t *copy)
{
	if (!rt_active || !set || how == SIG_UNBLOCK ||
	    !sigismember(set, rt_cfg.signo))
		return set;
	*copy = *set;
	sigdelset(copy, rt_cfg.signo);
	rt_count_blocked_signal();
	return copy;
}

RT_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	RESOLVE(sigprocmask, "sigprocmask");
	return real.sigprocmask(how, keep_ours(how, set, &copy), old);
}

RT_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	sigset_t copy;

	RESOLVE(pthread_sigmask, "pthread_sigmask");
	return real.pthread_sigmask(how, keep_ours(how, set, &copy), old);
}

RT_API void *dlopen(const char *file, int flags)
{
	void *h;

	RESOLVE(dlopen, "dlopen");
	h = real.dlopen(file, flags);
	if (h && rt_active)
		rt_loadmap_refresh();
	return h;
}

RT_API int dlclose(void *h)
{
	int r;

	RESOLVE(dlclose, "dlclose");
	if (rt_active)
		rt_perf_drain_self();	/* samples in h, while it is mapped */
	r = real.dlclose(h);
	if (rt_active)
		rt_loadmap_refresh();
	return r;
}

/* close() was cancelled inside the real call (a cancellation point). */
static void close_cancelled(void *c)
{
	rt_fd_close_end(c, 0);
}

RT_API int close(int fd)
{
	struct rt_fd_call c;
	int r, err;

	RESOLVE(close, "close");
	if (rt_fd_close_begin(&c, (unsigned)fd, (unsigned)fd)) {
		/* Ours, so not open as far as the program knows. */
		syscall(SYS_close, fd);
		rt_fd_close_end(&c, 0);
		errno = EBADF;
		return -1;
	}
	pthread_cleanup_push(close_cancelled, &c);
	r = real.close(fd);
	err = errno;
	pthread_cleanup_pop(0);
	rt_fd_close_end(&c, 0);
	errno = err;
	return r;
}

RT_API int close_range(unsigned first, unsigned last, int flags)
{
	struct rt_fd_call c;
	int r, err;

	RESOLVE(close_range, "close_range");
	if (flags & CLOSE_RANGE_CLOEXEC)
		return real.close_range(first, last, flags);	/* closes nothing */
	rt_fd_close_begin(&c, first, last);
	r = real.close_range(first, last, flags);
	err = errno;
	rt_fd_close_end(&c, r < 0);
	errno = err;
	return r;
}

RT_API void closefrom(int lowfd)
{
	struct rt_fd_call c;
	int err;

	RESOLVE(closefrom, "closefrom");
	rt_fd_close_begin(&c, lowfd < 0 ? 0 : (unsigned)lowfd, ~0U);
	real.closefrom(lowfd);
	err = errno;
	rt_fd_close_end(&c, 0);
	errno = err;
}

RT_API int dup2(int oldfd, int newfd)
{
	struct rt_fd_call c;
	int r, err;

	RESOLVE(dup2, "dup2");
	if (oldfd == newfd)
		return real.dup2(oldfd, newfd);		/* closes nothing */
	rt_fd_close_begin(&c, (unsigned)newfd, (unsigned)newfd);
	r = real.dup2(oldfd, newfd);
	err = errno;
	rt_fd_close_end(&c, r < 0);
	errno = err;
	return r;
}

RT_API int dup3(int oldfd, int newfd, int flags)
{
	struct rt_fd_call c;
	int r, err;

	RESOLVE(dup3, "dup3");
	rt_fd_close_begin(&c, (unsigned)newfd, (unsigned)newfd);
	r = real.dup3(oldfd, newfd, flags);
	err = errno;
	rt_fd_close_end(&c, r < 0);
	errno = err;
	return r;
}

__attribute__((constructor)) static void rt_constructor(void)
{
	rt_init();
}
