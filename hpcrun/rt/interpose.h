/*
 * interpose.h - how libhpcrun.so reaches the real function behind every
 * entry point it wraps.
 *
 * A wrapper is an exported function of the wrapped name (libhpcrun.map);
 * its real function is the next definition after libhpcrun.so in the
 * lookup order, dlsym(RTLD_NEXT), so a library preloaded after hpcrun
 * (jemalloc) is the one called.
 *
 * Invariants:
 *  1. One way to the real function: RT_REAL(name), typed as the wrapper
 *     name itself, through a slot the file defines once with
 *     RT_REAL_DEFINE(name) (RT_REAL_DEFINE_VERSION for a symbol version,
 *     dlvsym first, then any version).
 *  2. rt_interpose_init, the first thing rt_init does, looks every slot of
 *     every file up, so no wrapper called after it runs dlsym for its
 *     real function (none in a signal handler).  A call before it
 *     (another library's constructor) and a function not found then (its library dlopened later, as
 *     PMPI_Barrier may be) are looked up at the call.
 *  3. One failure policy: a real function found nowhere at its call means
 *     the program called a function that no library after hpcrun defines;
 *     "hpcrun: no real 'NAME' to call" on stderr, and abort().
 *  4. A symbol a wrapper does without when it is missing (omp_get_level,
 *     PMPI_Comm_size, ...) is not a real function: it is looked up with
 *     rt_optional_symbol, NULL when missing, no message.
 *  5. dlsym may itself call calloc: the allocator wrappers answer it from
 *     a bootstrap buffer while their slots are looked up
 *     (datacentric-alloc.c, invariant 2).
 *  6. A wrapped function the program looks up in a library's own handle
 *     (dlsym(dlopen("libc.so.6"), "pthread_create"), as Python's ctypes
 *     does) is the wrapper, as a call by name is: dlsym is wrapped
 *     (process-interpose.c), and where the answer is a slot's real
 *     function it gives libhpcrun.so's own definition of the name.
 *     Another library's function of the same name stays what it is.
 *     RTLD_DEFAULT and RTLD_NEXT, whose answers depend on the caller, go
 *     to the real dlsym as they came; dlvsym is not wrapped.
 *
 * The wrapped families; what the wrapper does when its capability is off
 * (rt_active 0: before rt_init, after the profiles are written, or
 * preloaded without the launcher):
 *
 *   family                           file                 capability off
 *   __libc_start_main                process-interpose.c  main still runs
 *                                                         through hpcrun_main
 *   pthread_create, thrd_create      process-interpose.c  the real call
 *   execve, execv, execvp, execvpe,  process-interpose.c  the real call
 *     fexecve, execveat (execl,
 *     execlp, execle call them),
 *     _exit, _Exit
 *   dlopen, dlclose                  process-interpose.c  the real call
 *   dlsym                            process-interpose.c  (invariant 6)
 *   close, close_range, closefrom,   process-interpose.c  the real call (no
 *     dup2, dup3                                          fd of hpcrun's open)
 *   fclose                           process-interpose.c  the real call
 *   unshare, setns                   process-interpose.c  the real call
 *   prctl, syscall                   process-interpose.c  the real call
 *   setrlimit, prlimit (and their    output.c             the same call
 *     64 forms)                                           (under a lock)
 *   sigaction, signal, sigprocmask,  signals.c            the real call
 *     pthread_sigmask, abort,
 *     sigwait, sigwaitinfo,
 *     sigtimedwait, sigpending,
 *     sigsuspend, signalfd
 *   bsd_signal, ssignal,             signals.c            made of the
 *     sysv_signal, siginterrupt,                          wrappers above,
 *     sigset, sighold, sigrelse,                          never the real one
 *     sigignore, sigpause,
 *     __sigpause, __xpg_sigpause,
 *     sigblock, sigsetmask,
 *     siggetmask
 *   malloc, calloc, realloc, free,   datacentric-alloc.c  without --data: the
 *     memalign, aligned_alloc,                            real call (invariant
 *     posix_memalign, valloc, mmap,                       1 there)
 *     mmap64, munmap, mremap
 *   pthread_barrier_*, GOMP_*,       sync-interpose.c     with --no-sync: the
 *     __kmpc_barrier, MPI_Barrier,                        real call (invariant
 *     pthread_mutex_lock,                                 1 there)
 *     pthread_cond_wait, _timedwait,
 *     sem_wait, pthread_join
 *   __kmpc_fork_call (a trampoline   sync-ompt.c          the real call
 *     that notes the call)
 *
 * runtime.c's rt_own_thread reaches the real pthread_create the same way,
 * so hpcrun's own threads are never measured.
 */
#ifndef HPCRUN_INTERPOSE_H
#define HPCRUN_INTERPOSE_H

#include <stddef.h>

/* Where one wrapper's real function is: found (fn set) once. */
struct rt_real {
	const char *name;
	const char *version;		/* for dlvsym, or NULL */
	void *fn;			/* NULL until found (atomic) */
};

/* The slot of wrapper name's real function, registered for
 * rt_interpose_init (the section rt_real lists every slot). */
#define RT_REAL_DEFINE_VERSION(name, ver) \
	static struct rt_real real_##name = { #name, ver, NULL }; \
	static struct rt_real *real_##name##_slot \
		__attribute__((section("rt_real"), used)) = &real_##name
#define RT_REAL_DEFINE(name) RT_REAL_DEFINE_VERSION(name, NULL)

/* The real function of wrapper name, of the wrapper's type (invariant
 * 1); never NULL (invariant 3). */
#define RT_REAL(name) ((__typeof__(&name))rt_real_fn(&real_##name))

/* Has the real function of name been found (no lookup made)? */
#define RT_REAL_FOUND(name) \
	(__atomic_load_n(&real_##name.fn, __ATOMIC_RELAXED) != NULL)

/* Looks r up now, or says so and aborts (invariant 3). */
void *rt_real_find(struct rt_real *r);

static inline void *rt_real_fn(struct rt_real *r)
{
	void *fn = __atomic_load_n(&r->fn, __ATOMIC_RELAXED);

	return __builtin_expect(fn != NULL, 1) ? fn : rt_real_find(r);
}

/* Looks up every slot (invariant 2); one not found is left for its call. */
void rt_interpose_init(void);

/* Is fn the real function of a slot of name (invariant 6)? */
int rt_interpose_is_real(const char *name, void *fn);

/* The optional symbol name in handle (RTLD_NEXT, RTLD_DEFAULT), or NULL
 * (invariant 4). */
void *rt_optional_symbol(void *handle, const char *name);

/* A library for hpcrun's own use (libdw, Capstone): the real dlopen with
 * flags | RTLD_LOCAL, its file opened on a fd thread (rt_fd_private), and
 * none of the dlopen wrapper's bookkeeping; the handle, or NULL.  Outside
 * handlers (process-interpose.c). */
void *rt_dlopen_own(const char *file, int flags);

#endif
