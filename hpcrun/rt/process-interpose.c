/*
 * process-interpose.c - the libc entry points libhpcrun.so wraps (exported through
 * libhpcrun.map; the real functions as interpose.h says).
 *
 *   __libc_start_main   runs main through hpcrun_main(), the stop frame of
 *                       the main thread's call paths
 *   pthread_create      runs every thread through thread_start(), which
 *   thrd_create         starts its sampling and is its stop frame; the
 *                       thread's profile is written by a key destructor;
 *                       counted as on its way until it is registered
 *                       (raw-threads.c takes no such thread for a raw one)
 *   exec*, fexecve,     write everything before the image is replaced
 *   execveat            (and measure on, in new files, if exec fails);
 *                       syscall() of execve and execveat too
 *   _exit, _Exit        write everything before the process ends
 *   daemon              glibc's, step for step, through fork and the
 *                       _exit above: glibc's own calls its _exit
 *                       inside libc, where the parent's end goes unseen
 *   dlopen, dlclose     refresh the load map (dlclose first takes the
 *                       samples waiting in the thread's ring buffers);
 *                       dlopen adds the new modules to the proc file, so
 *                       a killed process's trees keep their nodes in them
 *   dlsym               a wrapped function looked up in a library's own
 *                       handle is its wrapper (interpose.h, invariant 6)
 *   fclose              after CPython's os.fork() read /proc/self/stat,
 *                       brings hpcrun's own threads back (runtime.h, A
 *                       FORK IN CPYTHON)
 *   close, close_range, closefrom, dup2, dup3   the program may close
 *                       hpcrun's perf fds: hpcrun forgets them first and
 *                       re-opens the events on new fds after (the fd gate,
 *                       fd-gate.c); closing one of ours with close()
 *                       fails with EBADF, as it would without hpcrun
 *   unshare, setns      a call the kernel allows only a single-threaded
 *                       process (CLONE_NEWUSER, CLONE_THREAD, CLONE_SIGHAND,
 *                       CLONE_VM; setns into a user namespace) made by the
 *                       program's only thread: hpcrun's own threads stand
 *                       aside around it (rt_own_pause), so it succeeds
 *                       as without hpcrun
 *   prctl, syscall      PR_SET_SECCOMP, and the seccomp and prctl system
 *                       calls through syscall(), that install a filter
 *                       or strict mode: the measurement ends first
 *                       (runtime.h, THE SANDBOX); execve and execveat
 *                       through syscall() as the exec wrappers; clone
 *                       and clone3 that fork as fork; every other call
 *                       is the real one at once
 *
 * fork is handled with pthread_atfork (runtime.c); sigaction, signal,
 * the masks and abort by signals.c, with every signal hpcrun handles.
 */
#include <dlfcn.h>
#include <errno.h>
#include <linux/close_range.h>
#include <linux/nsfs.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <threads.h>
#include <unistd.h>

#include "datacentric.h"
#include "fd-gate.h"
#include "interpose.h"
#include "loadmap.h"
#include "output.h"
#include "python-find.h"
#include "python-frames.h"
#include "runtime.h"
#include "signals.h"
#include "source.h"
#include "unwind.h"

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
RT_REAL_DEFINE(fexecve);
RT_REAL_DEFINE(execveat);
RT_REAL_DEFINE(_exit);
RT_REAL_DEFINE(_Exit);
RT_REAL_DEFINE(dlopen);
RT_REAL_DEFINE(dlclose);
RT_REAL_DEFINE(close);
RT_REAL_DEFINE(fclose);
RT_REAL_DEFINE(close_range);
RT_REAL_DEFINE(closefrom);
RT_REAL_DEFINE(dup2);
RT_REAL_DEFINE(dup3);
RT_REAL_DEFINE(unshare);
RT_REAL_DEFINE(setns);
RT_REAL_DEFINE(prctl);
RT_REAL_DEFINE(syscall);

static main_fn program_main;

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
	rt_thread_starting(-1);
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
	rt_thread_starting(-1);
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

	rt_own_back();
	if (!rt_active || !(a = start_arg_new()))
		return RT_REAL(pthread_create)(t, attr, fn, arg);
	rt_fd_threads_grow();
	a->fn = fn;
	a->arg = arg;
	a->index = rt_next_thread_index();
	a->hidden = rt_signal_hidden();
	rt_thread_starting(1);
	r = RT_REAL(pthread_create)(t, attr, thread_start, a);
	if (r) {
		rt_thread_starting(-1);
		start_arg_free(a);
		if (r == EAGAIN)
			rt_thread_refused();
	}
	return r;
}

RT_API int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
	struct start_arg *a;
	int r;

	rt_own_back();
	if (!rt_active || !(a = start_arg_new()))
		return RT_REAL(thrd_create)(t, fn, arg);
	rt_fd_threads_grow();
	a->c11_fn = fn;
	a->arg = arg;
	a->index = rt_next_thread_index();
	a->hidden = rt_signal_hidden();
	rt_thread_starting(1);
	r = RT_REAL(thrd_create)(t, c11_thread_start, a);
	if (r != thrd_success) {
		rt_thread_starting(-1);
		start_arg_free(a);
	}
	return r;
}

/* An exec returned: it failed; measure on, errno kept for the caller. */
static int exec_failed(int r)
{
	int err = errno;

	rt_resume_after_failed("exec", err);
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

/* glibc's fexecve and execveat make the system call inside libc, where
 * the execve wrapper does not see it. */
RT_API int fexecve(int fd, char *const argv[], char *const envp[])
{
	rt_process_finish("exec", 0);
	return exec_failed(RT_REAL(fexecve)(fd, argv, envp));
}

RT_API int execveat(int dirfd, const char *path, char *const argv[],
		    char *const envp[], int flags)
{
	rt_process_finish("exec", 0);
	return exec_failed(RT_REAL(execveat)(dirfd, path, argv, envp, flags));
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

/* glibc's daemon(3) (misc/daemon.c), whose parent leaves by an _exit
 * inside libc that no wrapper sees: the same steps and results, each
 * through the entry points hpcrun wraps. */
RT_API int daemon(int nochdir, int noclose)
{
	struct stat st;
	int fd;

	switch (fork()) {
	case -1:
		return -1;
	case 0:
		break;
	default:
		_exit(0);
	}
	if (setsid() == -1)
		return -1;
	if (!nochdir)
		(void)chdir("/");
	if (noclose)
		return 0;
	fd = open("/dev/null", O_RDWR);
	if (fd == -1 || fstat(fd, &st)) {
		close(fd);	/* of -1 too: EBADF, as glibc's */
		return -1;
	}
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3)) {
		close(fd);
		errno = ENODEV;	/* no call failed: as glibc */
		return -1;
	}
	(void)dup2(fd, STDIN_FILENO);
	(void)dup2(fd, STDOUT_FILENO);
	(void)dup2(fd, STDERR_FILENO);
	if (fd > 2)
		(void)close(fd);
	return 0;
}

RT_API void *dlopen(const char *file, int flags)
{
	void *h;

	h = RT_REAL(dlopen)(file, flags);
	if (h && rt_active) {
		rt_own_begin();		/* the modules' bookkeeping */
		rt_loadmap_refresh();
		rt_data_modules();
		rt_python_modules();
		rt_py_modules();
		rt_live_proc_modules();	/* a killed process's trees name them */
		rt_own_end();
	}
	return h;
}

struct own_dlopen {
	const char *file;
	int flags;
	void *h;
};

static int own_dlopen_job(void *p)
{
	struct own_dlopen *j = p;

	j->h = RT_REAL(dlopen)(j->file, j->flags | RTLD_LOCAL);
	return j->h ? 0 : -ENOENT;
}

void *rt_dlopen_own(const char *file, int flags)
{
	struct own_dlopen j = { file, flags, NULL };

	rt_fd_private(own_dlopen_job, &j);
	return j.h;
}

RT_API int dlclose(void *h)
{
	int r;

	if (rt_active)
		rt_own_drain();	/* samples in h, while it is mapped */
	r = RT_REAL(dlclose)(h);
	if (rt_active) {
		rt_own_begin();
		rt_loadmap_refresh();
		rt_own_end();
	}
	return r;
}

/*
 * dlsym (interpose.h, invariant 6).  glibc answers RTLD_DEFAULT and
 * RTLD_NEXT from the caller's object and namespace, which it takes from
 * its return address: the entry (in assembly) jumps to the real dlsym
 * for those, the program's return address in place, and calls
 * dlsym_handle for a library's own handle, whose answer does not depend
 * on the caller.  The real dlsym is found at the first call.  The entry
 * has a section of its own, as -ffunction-sections gives each function.
 */
void *rt_real_dlsym;
void rt_dlsym_resolve(void);
void *rt_dlsym_handle(void *handle, const char *name);

void rt_dlsym_resolve(void)
{
	void *fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");

	if (!fn)
		fn = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	if (!fn) {
		rt_say("no real 'dlsym' to call", NULL);
		abort();
	}
	__atomic_store_n(&rt_real_dlsym, fn, __ATOMIC_RELEASE);
}

/* libhpcrun.so's own handle, for its wrappers (once). */
static void *self_handle(void)
{
	static void *self;
	void *h = __atomic_load_n(&self, __ATOMIC_ACQUIRE);
	Dl_info di;

	if (!h && dladdr((void *)self_handle, &di) && di.dli_fname &&
	    (h = RT_REAL(dlopen)(di.dli_fname, RTLD_NOW | RTLD_NOLOAD)))
		__atomic_store_n(&self, h, __ATOMIC_RELEASE);
	return h;
}

void *rt_dlsym_handle(void *handle, const char *name)
{
	void *(*real)(void *, const char *) = (void *(*)(void *, const char *))
		__atomic_load_n(&rt_real_dlsym, __ATOMIC_ACQUIRE);
	void *fn = real(handle, name), *self, *w;

	if (!fn || !name || !rt_interpose_is_real(name, fn) ||
	    !(self = self_handle()))
		return fn;
	w = real(self, name);
	return w ? w : fn;
}

__asm__(
	"	.pushsection .text.dlsym, \"ax\", @progbits\n"
	"	.globl dlsym\n"
	"	.type dlsym, @function\n"
	"dlsym:\n"
	"	.cfi_startproc\n"
	"	endbr64\n"
	"	cmpq $0, rt_real_dlsym(%rip)\n"
	"	jne 1f\n"
	"	pushq %rdi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	pushq %rsi\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	subq $8, %rsp\n"		/* the call's stack aligned */
	"	.cfi_adjust_cfa_offset 8\n"
	"	call rt_dlsym_resolve\n"
	"	addq $8, %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rsi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	popq %rdi\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"1:	testq %rdi, %rdi\n"		/* RTLD_DEFAULT */
	"	je 2f\n"
	"	cmpq $-1, %rdi\n"		/* RTLD_NEXT */
	"	jne rt_dlsym_handle\n"
	"2:	jmp *rt_real_dlsym(%rip)\n"
	"	.cfi_endproc\n"
	"	.size dlsym, .-dlsym\n"
	"	.popsection\n");

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

/* CPython's os.fork() reads /proc/self/stat in the parent and closes it
 * with fclose: then hpcrun's own threads, away since the fork, come back
 * (runtime.h, A FORK IN CPYTHON). */
RT_API int fclose(FILE *f)
{
	int back = 0, r, err;

	if (f && __atomic_load_n(&rt_own_away, __ATOMIC_RELAXED))
		back = rt_own_away_stat(fileno(f));
	r = RT_REAL(fclose)(f);
	if (back) {
		err = errno;
		rt_own_back();
		errno = err;
	}
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

/* The unshare flags the kernel refuses in a process of several threads
 * (kernel/fork.c, check_unshare_flags: CLONE_THREAD, CLONE_SIGHAND and
 * CLONE_VM; CLONE_NEWUSER implies CLONE_THREAD). */
#define SINGLE_THREADED_UNSHARE \
	(CLONE_NEWUSER | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)

RT_API int unshare(int flags)
{
	sigset_t old;
	int paused, r;

	if (!(flags & SINGLE_THREADED_UNSHARE))
		return RT_REAL(unshare)(flags);
	paused = rt_own_pause(&old);
	r = RT_REAL(unshare)(flags);
	rt_own_resume(paused, &old);
	return r;
}

/* setns into a user namespace needs a single-threaded caller
 * (kernel/user_namespace.c, userns_install): nstype CLONE_NEWUSER, or 0
 * with a fd of a user namespace. */
RT_API int setns(int fd, int nstype)
{
	sigset_t old;
	int paused, r, err = errno;

	if (nstype != CLONE_NEWUSER &&
	    (nstype || ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWUSER)) {
		errno = err;
		return RT_REAL(setns)(fd, nstype);
	}
	errno = err;
	paused = rt_own_pause(&old);
	r = RT_REAL(setns)(fd, nstype);
	rt_own_resume(paused, &old);
	return r;
}

/* prctl(2) options and seccomp(2) operations that put a filter or strict
 * mode in place (runtime.h, THE SANDBOX). */
static int installs_prctl(long option, unsigned long mode)
{
	return option == PR_SET_SECCOMP &&
	       (mode == SECCOMP_MODE_STRICT || mode == SECCOMP_MODE_FILTER);
}

static int installs_seccomp(unsigned long op)
{
	return op == SECCOMP_SET_MODE_STRICT || op == SECCOMP_SET_MODE_FILTER;
}

RT_API int prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;
	int i;

	va_start(ap, option);
	for (i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (!installs_prctl(option, a[0]))
		return RT_REAL(prctl)(option, a[0], a[1], a[2], a[3]);
	/* prctl is its system call: the sandbox's way is syscall()'s */
	return (int)syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
}

/* A fork by clone or clone3 (a[0] their first argument): a new process
 * (no CLONE_VM, no CLONE_THREAD) that goes on on this very stack, as
 * fork's child does. */
static int is_raw_fork(long nr, const unsigned long *a)
{
	/* struct clone_args (linux/sched.h): flags first, stack sixth, 64
	 * bytes in its first version; read through the kernel, so a bad
	 * pointer fails the program's call, not hpcrun */
	uint64_t ca[6];

	if (nr == SYS_clone)
		return !(a[0] & (CLONE_VM | CLONE_THREAD)) && !a[1];
	return nr == SYS_clone3 && a[1] >= 64 &&
	       !rt_user_copy(ca, (const void *)a[0], sizeof(ca), 0) &&
	       !(ca[0] & (CLONE_VM | CLONE_THREAD)) && !ca[5];
}

/* libc's syscall(): six arguments are passed on whatever the call, as
 * libc's own reads six registers.  A fork made with clone or clone3 gets
 * fork's handlers, so its child is measured as a fork's is; an exec made
 * with execve or execveat is written first, as by the exec wrappers. */
RT_API long syscall(long nr, ...)
{
	unsigned long a[6];
	va_list ap;
	int i, ended, err;
	long r;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (rt_active && is_raw_fork(nr, a)) {
		rt_fork_prepare();
		r = RT_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		err = errno;
		if (r == 0)
			rt_fork_child();
		else
			rt_fork_parent();
		errno = err;
		return r;
	}
	if (nr == SYS_execve || nr == SYS_execveat) {
		rt_process_finish("exec", 0);
		return exec_failed((int)RT_REAL(syscall)(nr, a[0], a[1], a[2],
							  a[3], a[4], a[5]));
	}
	if (!(nr == SYS_seccomp && installs_seccomp(a[0])) &&
	    !(nr == SYS_prctl && installs_prctl((long)a[0], a[1])))
		return RT_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	ended = rt_sandbox_enter();
	r = RT_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	err = errno;
	if (ended && r < 0)
		rt_sandbox_failed(err);
	errno = err;
	return r;
}
