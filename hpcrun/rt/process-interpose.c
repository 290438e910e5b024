/*
 * process-interpose.c - the libc entry points libhpcrun.so wraps (exported through
 * libhpcrun.map; the real functions as interpose.h says).
 *
 *   __libc_start_main   runs main through hpcrun_main(), the stop frame of
 *                       the main thread's call paths
 *   pthread_create      runs every thread through thread_start(), which
 *   thrd_create         starts its sampling and is its stop frame; the
 *                       thread's profile is written by a key destructor
 *   exec*               write everything before the image is replaced
 *                       (and measure on, in new files, if exec fails)
 *   _exit, _Exit        write everything before the process ends
 *   abort               written past a SIGABRT handler that returns
 *   sigaction, signal   the program's actions for the sampling signal are
 *                       kept apart from hpcrun's (signals.c); those
 *                       for the fatal signals as THE FATAL SIGNALS says
 *   sigprocmask, pthread_sigmask   the masks read back as the program set
 *                       them, the sampling signal still unblocked
 *                       (signals.c; attempts counted in the log)
 *   dlopen, dlclose     refresh the load map (dlclose first takes the
 *                       samples waiting in the thread's ring buffers)
 *   close, close_range, closefrom, dup2, dup3   the program may close
 *                       hpcrun's perf fds: hpcrun forgets them first and
 *                       re-opens the events on new fds after (the fd gate,
 *                       source-perf.c); closing one of ours with close()
 *                       fails with EBADF, as it would without hpcrun
 *
 * fork is handled with pthread_atfork (runtime.c).
 *
 * THE FATAL SIGNALS (fatal_signals[]: every signal whose default action
 * ends the process, but SIGPROF and the real-time ones).  A signal that
 * ends the process unseen loses every profile not written, so:
 *  1. program_act[sig] is the action the program set (or found at start),
 *     and sigaction reads it back exactly as without hpcrun (glibc's
 *     SA_RESTORER and restorer included) -- unless the kernel holds an
 *     action set behind our back (raw system call), which is then told.
 *  2. The kernel holds: the program's handler or SIG_IGN as it set them
 *     (its handler runs, and is unwound, as without hpcrun; SIG_IGN is
 *     kept across exec); for the default action fatal_handler, which
 *     writes everything and re-raises with the default action, so the
 *     program dies as it would have; for a handler with SA_RESETHAND
 *     fatal_handler with the handler's mask and flags, which resets and
 *     calls it (the kernel's reset would be unseen; samples taken in such
 *     a handler count as nested, its frames being below hpcrun's).
 *  3. So a program that catches a signal and later does signal(s,
 *     SIG_DFL); raise(s) (xz, CPython's KeyboardInterrupt) goes through
 *     fatal_handler; before, hpcrun gave its handler up for good.  A fault
 *     in the unwinder still jumps back to the sample (sample.c) while
 *     fatal_handler holds SIGSEGV and SIGBUS (rt_fault_recovery).
 *  4. With hpcrun --sharing the kernel holds fatal_handler for SIGSEGV
 *     and SIGTRAP whatever the program set: a fault on a page sharing.c
 *     protected, and the trap after the faulting instruction it steps
 *     over, are taken there first; any other goes to the program's
 *     action as above, its handler called with the mask
 *     the kernel would have set (SA_ONSTACK is then always on).
 * What no handler sees (SIGKILL, the OOM killer, glibc's internal reset
 * of SIGABRT past a handler that returns in assert) leaves the live files
 * (hpcrun-live.h) for hpcprof to recover.
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

#include "datacentric.h"
#include "interpose.h"
#include "runtime.h"
#include "sharing.h"

typedef int (*main_fn)(int, char **, char **);

RT_API int __libc_start_main(main_fn main, int argc, char **argv,
			     void (*init)(void), void (*fini)(void),
			     void (*rtld_fini)(void), void *stack_end);

RT_REAL_DEFINE(__libc_start_main);
RT_REAL_DEFINE(pthread_create);
RT_REAL_DEFINE(thrd_create);
RT_REAL_DEFINE(execve);
RT_REAL_DEFINE(execv);
RT_REAL_DEFINE(execvp);
RT_REAL_DEFINE(execvpe);
RT_REAL_DEFINE(_exit);
RT_REAL_DEFINE(_Exit);
RT_REAL_DEFINE(abort);
RT_REAL_DEFINE(sigaction);
RT_REAL_DEFINE(sigprocmask);
RT_REAL_DEFINE(pthread_sigmask);
RT_REAL_DEFINE(dlopen);
RT_REAL_DEFINE(dlclose);
RT_REAL_DEFINE(close);
RT_REAL_DEFINE(close_range);
RT_REAL_DEFINE(closefrom);
RT_REAL_DEFINE(dup2);
RT_REAL_DEFINE(dup3);

static main_fn program_main;

/* The signals whose default action ends the process (but SIGPROF and the
 * real-time ones, the sampling signal's choice) and that can be caught. */
static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM, SIGQUIT,
	SIGHUP, SIGPIPE, SIGXCPU, SIGXFSZ, SIGALRM, SIGVTALRM, SIGUSR1,
	SIGUSR2, SIGSYS, SIGSTKFLT, SIGPWR, SIGTRAP,
};
/* The kernel's flag glibc adds to every action (x86-64). */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif
/* What the program set for each fatal signal, as it reads it back. */
static struct sigaction program_act[65];

static void fatal_handler(int sig, siginfo_t *si, void *uc);

int rt_real_sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	return RT_REAL(sigaction)(sig, sa, old);
}

int rt_real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return RT_REAL(pthread_sigmask)(how, set, old);
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
	uint64_t hidden;	/* the creator's rt_signal_hidden() */
};

/*
 * start_args come from a pool, not malloc: the new thread gives its back,
 * and a thread's first free() (or malloc) makes glibc give it a malloc
 * arena of its own, 64 MiB of address space the program would not have
 * used.  malloc only when the pool is empty.
 */
#define START_POOL 256
static struct start_arg start_pool[START_POOL];
static int start_used[START_POOL];

static struct start_arg *start_arg_new(void)
{
	size_t i;

	for (i = 0; i < START_POOL; i++)
		if (!__atomic_exchange_n(&start_used[i], 1, __ATOMIC_ACQUIRE))
			return &start_pool[i];
	return malloc(sizeof(struct start_arg));
}

static void start_arg_free(struct start_arg *a)
{
	if (a >= start_pool && a < start_pool + START_POOL)
		__atomic_store_n(&start_used[a - start_pool], 0, __ATOMIC_RELEASE);
	else
		free(a);
}

/* Every thread's stop frame. */
__attribute__((noinline)) static void *thread_start(void *p)
{
	struct start_arg a = *(struct start_arg *)p;
	void *r;

	start_arg_free(p);
	rt_signal_inherit(a.hidden);
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

	start_arg_free(p);
	rt_signal_inherit(a.hidden);
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
			     void (*rtld_fini)(void), void *stack_end)
{
	program_main = main;
	return RT_REAL(__libc_start_main)(hpcrun_main, argc, argv, init, fini, rtld_fini,
			       stack_end);
}

RT_API int pthread_create(pthread_t *t, const pthread_attr_t *attr,
			  void *(*fn)(void *), void *arg)
{
	struct start_arg *a;
	int r;

	if (!rt_active || !(a = start_arg_new()))
		return RT_REAL(pthread_create)(t, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	a->index = rt_next_thread_index();
	a->hidden = rt_signal_hidden();
	r = RT_REAL(pthread_create)(t, attr, thread_start, a);
	if (r)
		start_arg_free(a);
	return r;
}

RT_API int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
	struct start_arg *a;
	int r;

	if (!rt_active || !(a = start_arg_new()))
		return RT_REAL(thrd_create)(t, fn, arg);
	a->c11_fn = fn;
	a->arg = arg;
	a->index = rt_next_thread_index();
	a->hidden = rt_signal_hidden();
	r = RT_REAL(thrd_create)(t, c11_thread_start, a);
	if (r != thrd_success)
		start_arg_free(a);
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
	rt_process_finish("exec", 0);
	return exec_failed(RT_REAL(execve)(path, argv, envp));
}

RT_API int execv(const char *path, char *const argv[])
{
	rt_process_finish("exec", 0);
	return exec_failed(RT_REAL(execv)(path, argv));
}

RT_API int execvp(const char *file, char *const argv[])
{
	rt_process_finish("exec", 0);
	return exec_failed(RT_REAL(execvp)(file, argv));
}

RT_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
	rt_process_finish("exec", 0);
	return exec_failed(RT_REAL(execvpe)(file, argv, envp));
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
	rt_process_finish("_exit", 0);
	RT_REAL(_exit)(status);
}

RT_API void _Exit(int status)
{
	rt_process_finish("_exit", 0);
	RT_REAL(_Exit)(status);
}

/* Is act the default action? */
static int is_default(const struct sigaction *act)
{
	return act->sa_handler == SIG_DFL && !(act->sa_flags & SA_SIGINFO);
}

/*
 * Gives the kernel the program's action act for the fatal signal sig
 * (THE FATAL SIGNALS): SIG_IGN and the program's handlers as they are;
 * the default action as fatal_handler; a handler with SA_RESETHAND (whose
 * reset the kernel would do unseen) as fatal_handler with its mask and
 * flags, which resets and calls it.
 */
/* Does fatal_handler take every sig, to hand the faults on pages hpcrun
 * --sharing protected to sharing.c (THE FATAL SIGNALS, 4)? */
static int dispatched(int sig)
{
	return (sig == SIGSEGV || sig == SIGTRAP) && rt_sharing.dispatch;
}

static int install_fatal(int sig, const struct sigaction *act)
{
	struct sigaction k;

	if (dispatched(sig)) {
		memset(&k, 0, sizeof(k));
		k.sa_sigaction = fatal_handler;
		k.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
		sigemptyset(&k.sa_mask);
		return rt_real_sigaction(sig, &k, NULL);
	}
	if (!is_default(act) && !(act->sa_flags & SA_RESETHAND))
		return rt_real_sigaction(sig, act, NULL);
	memset(&k, 0, sizeof(k));
	k.sa_sigaction = fatal_handler;
	if (is_default(act)) {
		/* NODEFER: a jump back from a fault in the unwinder must not
		 * leave the signal blocked. */
		k.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
		sigemptyset(&k.sa_mask);
	} else {
		k.sa_flags = (act->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
		k.sa_mask = act->sa_mask;
	}
	return rt_real_sigaction(sig, &k, NULL);
}

/*
 * abort() raises SIGABRT; when a handler of the program returns, glibc
 * resets SIGABRT to the default action with its internal sigaction (which
 * takes fatal_handler away) and raises it again.  So abort is done here:
 * the first raise reaches the program's handler through fatal_handler
 * (or, with the default action, ends the process there, written); past a
 * handler that returned, everything is written before glibc's abort.
 */
RT_API void abort(void)
{
	sigset_t set;

	if (rt_active) {
		sigemptyset(&set);
		sigaddset(&set, SIGABRT);
		rt_real_sigmask(SIG_UNBLOCK, &set, NULL);
		raise(SIGABRT);
		rt_process_finish("signal 6", 0);
	}
	RT_REAL(abort)();
}

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	struct sigaction act, dfl;
	sigset_t set, old;
	int masked = 0;

	if (sig == SIGSEGV && rt_sharing_fault(si, uc))
		return;		/* ours: the access runs again */
	if (sig == SIGTRAP && rt_sharing_trap(si, uc))
		return;		/* ours: the step over a faulting access */
	sigemptyset(&set);
	sigaddset(&set, sig);
	if ((sig == SIGSEGV || sig == SIGBUS) && rt_self && rt_self->in_unwind) {
		/* back to sample.c; the program's SA_NODEFER-less mask
		 * would keep the signal blocked past the jump */
		rt_real_sigmask(SIG_UNBLOCK, &set, NULL);
		siglongjmp(rt_self->unwind_jmp, 1);
	}
	act = program_act[sig];
	if (act.sa_handler == SIG_IGN && !(act.sa_flags & SA_SIGINFO)) {
		if (dispatched(sig) && si->si_code > 0)
			rt_die_of_signal(sig);	/* a fault the kernel would not
						 * have let it ignore */
		return;		/* set while this signal was on its way */
	}
	if (!is_default(&act)) {
		if (act.sa_flags & SA_RESETHAND) {
			/* SA_RESETHAND, done here */
			memset(&dfl, 0, sizeof(dfl));
			dfl.sa_handler = SIG_DFL;
			program_act[sig] = dfl;
			install_fatal(sig, &dfl);
		}
		if (dispatched(sig)) {
			/* the mask the kernel would have set for it */
			set = act.sa_mask;
			if (!(act.sa_flags & SA_NODEFER))
				sigaddset(&set, sig);
			masked = !rt_real_sigmask(SIG_BLOCK, &set, &old);
		}
		if (act.sa_flags & SA_SIGINFO)
			act.sa_sigaction(sig, si, uc);
		else
			act.sa_handler(sig);
		if (masked)
			rt_real_sigmask(SIG_SETMASK, &old, NULL);
		return;
	}
	rt_die_of_signal(sig);
}

void rt_die_of_signal(int sig)
{
	struct sigaction dfl;
	sigset_t set;
	char why[32] = "signal ";

	rt_fmt_u64(why + 7, (uint64_t)sig, 10, 0);
	rt_process_finish(why, 1);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	rt_real_sigaction(sig, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
	sigemptyset(&set);
	sigaddset(&set, sig);
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

static int is_fatal(int sig)
{
	size_t i;

	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		if (fatal_signals[i] == sig)
			return 1;
	return 0;
}

void rt_install_fatal_handlers(void)
{
	size_t i;

	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int sig = fatal_signals[i];

		if (!rt_real_sigaction(sig, NULL, &program_act[sig]) &&
		    (is_default(&program_act[sig]) || dispatched(sig)))
			install_fatal(sig, &program_act[sig]);
	}
}

/*
 * sigaction() of a fatal signal (THE FATAL SIGNALS): the program's action
 * goes into program_act and to the kernel through install_fatal; old
 * reports what the program set before.
 */
static int fatal_sigaction(int sig, const struct sigaction *sa,
			   struct sigaction *old)
{
	struct sigaction cur;

	if (RT_REAL(sigaction)(sig, NULL, &cur))
		return -1;
	if (cur.sa_sigaction == fatal_handler ||
	    cur.sa_sigaction == program_act[sig].sa_sigaction)
		cur = program_act[sig];		/* else set behind our back */
	if (sa) {
		struct sigaction now;
		int r;

		program_act[sig] = *sa;
		r = install_fatal(sig, sa);
		if (r)
			return r;
		/* as glibc hands it to the kernel, so that it reads back as
		 * it would without hpcrun */
		if (!RT_REAL(sigaction)(sig, NULL, &now)) {
			program_act[sig].sa_flags |= now.sa_flags & SA_RESTORER;
			program_act[sig].sa_restorer = now.sa_restorer;
		}
	}
	if (old)
		*old = cur;
	return 0;
}

RT_API int sigaction(int sig, const struct sigaction *sa, struct sigaction *old)
{
	if (rt_signal_managed(sig))
		return rt_signal_sigaction(sig, sa, old);
	if (rt_active && is_fatal(sig))
		return fatal_sigaction(sig, sa, old);
	return RT_REAL(sigaction)(sig, sa, old);
}

RT_API __sighandler_t signal(int sig, __sighandler_t handler)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);	/* as glibc's signal() */
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

RT_API int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return rt_signal_mask(RT_REAL(sigprocmask), how, set, old);
}

RT_API int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return rt_signal_mask(RT_REAL(pthread_sigmask), how, set, old);
}

RT_API void *dlopen(const char *file, int flags)
{
	void *h;

	h = RT_REAL(dlopen)(file, flags);
	if (h && rt_active) {
		rt_loadmap_refresh();
		rt_data_modules();
	}
	return h;
}

RT_API int dlclose(void *h)
{
	int r;

	if (rt_active)
		rt_perf_drain_self();	/* samples in h, while it is mapped */
	r = RT_REAL(dlclose)(h);
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

	if (rt_fd_close_begin(&c, (unsigned)fd, (unsigned)fd)) {
		/* Ours, so not open as far as the program knows. */
		syscall(SYS_close, fd);
		rt_fd_close_end(&c, 0);
		errno = EBADF;
		return -1;
	}
	pthread_cleanup_push(close_cancelled, &c);
	r = RT_REAL(close)(fd);
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

	if (flags & CLOSE_RANGE_CLOEXEC)
		return RT_REAL(close_range)(first, last, flags);	/* closes nothing */
	rt_fd_close_begin(&c, first, last);
	r = RT_REAL(close_range)(first, last, flags);
	err = errno;
	rt_fd_close_end(&c, r < 0);
	errno = err;
	return r;
}

RT_API void closefrom(int lowfd)
{
	struct rt_fd_call c;
	int err;

	rt_fd_close_begin(&c, lowfd < 0 ? 0 : (unsigned)lowfd, ~0U);
	RT_REAL(closefrom)(lowfd);
	err = errno;
	rt_fd_close_end(&c, 0);
	errno = err;
}

RT_API int dup2(int oldfd, int newfd)
{
	struct rt_fd_call c;
	int r, err;

	if (oldfd == newfd)
		return RT_REAL(dup2)(oldfd, newfd);		/* closes nothing */
	rt_fd_close_begin(&c, (unsigned)newfd, (unsigned)newfd);
	r = RT_REAL(dup2)(oldfd, newfd);
	err = errno;
	rt_fd_close_end(&c, r < 0);
	errno = err;
	return r;
}

RT_API int dup3(int oldfd, int newfd, int flags)
{
	struct rt_fd_call c;
	int r, err;

	rt_fd_close_begin(&c, (unsigned)newfd, (unsigned)newfd);
	r = RT_REAL(dup3)(oldfd, newfd, flags);
	err = errno;
	rt_fd_close_end(&c, r < 0);
	errno = err;
	return r;
}

__attribute__((constructor)) static void rt_constructor(void)
{
	rt_init();
}
