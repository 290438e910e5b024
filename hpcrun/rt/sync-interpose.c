/*
 * sync-interpose.c - the synchronization entry points libhpcrun.so wraps
 * (exported through libhpcrun.map; the real ones as interpose.h says),
 * each around sync.c's episode or lock-wait accounting:
 *
 *   pthread_barrier_init, _wait, _destroy            kind barrier
 *   GOMP_barrier, GOMP_loop_end, GOMP_sections_end   omp-* (libgomp)
 *   GOMP_parallel and GOMP_parallel_loop_*,          the region's join
 *   GOMP_parallel_sections                           (omp-join)
 *   __kmpc_barrier                                   kmp-barrier (libomp
 *                                                    without OMPT: sync-ompt.c)
 *   MPI_Barrier                                      mpi-barrier (PMPI)
 *   MPI_Init, MPI_Init_thread                        the rank's clock offset
 *   pthread_mutex_lock, pthread_cond_wait,           lock waits
 *   pthread_cond_timedwait, sem_wait
 *   pthread_join                                     a wait the hang
 *                                                    detector sees (no site)
 *
 * A lock wait says how it waits (sync.h, SYNC_WAIT_*), for the stall
 * report (sync-hang.c invariant 7): timed (pthread_cond_timedwait), and
 * shared with other processes as glibc marks the object: a mutex's kind
 * has PTHREAD_MUTEX_PSHARED_BIT (128), a condition's __wrefs bit 0, a
 * semaphore's `private` word (struct new_sem, after its 64-bit value) is
 * FUTEX_SHARED (128) for sem_init pshared 1 and sem_open, 0 private.
 *
 * Invariants:
 *  1. With --no-sync, before hpcrun's start and after its end, and for
 *     hpcrun's own calls (rt_in_hpcrun), a wrapper is the real function.
 *  2. Locks cost nothing measurable when free: the wrapper tries first
 *     (pthread_mutex_trylock, sem_trywait) and only a call that would block
 *     is timed.
 *  3. A GOMP region runs its body through region_body on every team
 *     thread, which then waits at one more GOMP_barrier: that is the join,
 *     measured as an episode (the team's own end barrier right after it
 *     finds everyone there).  Every team thread goes through it, measured
 *     or not, so no thread waits alone.  The region (sync-region.c) lives
 *     from the region's start to its end (all team threads have left the
 *     body when GOMP_parallel returns): its sites hang below the master's
 *     path to the GOMP_parallel* call, the join's leaf the outlined
 *     function, and its episodes are numbered across the construct.
 *  4. libomp barriers (LLVM's __kmpc_barrier, which clang calls for
 *     explicit barriers and the implicit ones of worksharing constructs)
 *     are keyed by nesting level and team size: teams of one size at one
 *     level share an object, as consecutive regions do.  Interposing the
 *     entry point, not OMPT: it is the same mechanism for both runtimes,
 *     costs one call, and needs no tool registration that a program's own
 *     OMPT tool would conflict with; the join of a libomp region is not
 *     seen (libomp's fork call is variadic).
 *  5. MPI_Barrier calls PMPI_Barrier, found when first called: a program
 *     without MPI never calls it, so the wrapper exists only in effect
 *     where libmpi does.
 *  6. After MPI_Init (or _thread) every rank measures its CLOCK_MONOTONIC's
 *     offset from rank 0's by ping-pong over PMPI point-to-point on
 *     MPI_COMM_WORLD (before the program's first message, so the tag is
 *     free), for hpcprof to align the ranks' barrier arrivals; ranks of one
 *     kernel (same boot id) share the clock, which the file says.  Every
 *     rank must run under hpcrun (rank 0 waits for each);
 *     HPCRUN_MPI_CLOCK=0 skips it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd-gate.h"
#include "interpose.h"
#include "sync.h"
#include "unwind.h"

typedef void (*omp_fn)(void *);

/* The wrapped entry points without a header here. */
RT_API void GOMP_barrier(void);
RT_API void GOMP_loop_end(void);
RT_API void GOMP_sections_end(void);
RT_API void GOMP_parallel(omp_fn fn, void *data, unsigned nthreads, unsigned flags);
RT_API void GOMP_parallel_sections(omp_fn fn, void *data, unsigned nthreads,
				   unsigned count, unsigned flags);
RT_API void __kmpc_barrier(void *loc, int32_t gtid);
RT_API int MPI_Barrier(void *comm);
RT_API int MPI_Init(int *argc, char ***argv);
RT_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);

/* MPI_Barrier's real function (invariant 5). */
int PMPI_Barrier(void *comm);
int PMPI_Init(int *argc, char ***argv);
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided);

RT_REAL_DEFINE(pthread_barrier_init);
RT_REAL_DEFINE(pthread_barrier_wait);
RT_REAL_DEFINE(pthread_barrier_destroy);
RT_REAL_DEFINE(pthread_mutex_lock);
/* glibc's current ABI: dlsym alone may give the 2.2.5 compatibility
 * versions */
RT_REAL_DEFINE_VERSION(pthread_cond_wait, "GLIBC_2.3.2");
RT_REAL_DEFINE_VERSION(pthread_cond_timedwait, "GLIBC_2.3.2");
RT_REAL_DEFINE(sem_wait);
RT_REAL_DEFINE(pthread_join);
RT_REAL_DEFINE(GOMP_barrier);
RT_REAL_DEFINE(GOMP_loop_end);
RT_REAL_DEFINE(GOMP_sections_end);
RT_REAL_DEFINE(GOMP_parallel);
RT_REAL_DEFINE(GOMP_parallel_sections);
RT_REAL_DEFINE(__kmpc_barrier);
RT_REAL_DEFINE(PMPI_Barrier);
RT_REAL_DEFINE(PMPI_Init);
RT_REAL_DEFINE(PMPI_Init_thread);

static int on(uintptr_t ra)
{
	return sync_cfg.on && rt_active && !rt_in_hpcrun(ra);
}

/* ---- pthread barriers ---- */

RT_API int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a,
				unsigned count)
{
	int r;

	r = RT_REAL(pthread_barrier_init)(b, a, count);
	if (!r && sync_cfg.on)
		sync_obj_get((uintptr_t)b, count);
	return r;
}

RT_API int pthread_barrier_destroy(pthread_barrier_t *b)
{
	if (sync_cfg.on)
		sync_obj_reset((uintptr_t)b);
	return RT_REAL(pthread_barrier_destroy)(b);
}

RT_API int pthread_barrier_wait(pthread_barrier_t *b)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_episode ep;
	int r;

	if (!on(ra) ||
	    sync_barrier_begin(&ep, HPCSYNC_BARRIER, ra, (uintptr_t)b,
			       sync_obj_get((uintptr_t)b, 0), ra))
		return RT_REAL(pthread_barrier_wait)(b);
	r = RT_REAL(pthread_barrier_wait)(b);
	sync_barrier_end(&ep);
	return r;
}

/* ---- libgomp (invariant 3) ---- */

struct omp_region {
	omp_fn fn;
	void *data;
	struct sync_region sr;
};
static __thread struct omp_region *cur_region
	__attribute__((tls_model("initial-exec")));

/* An episode at a libgomp barrier entry point of the current region. */
static void omp_episode(int kind, void (*fn)(void), uintptr_t ra, uintptr_t cut)
{
	struct omp_region *r = cur_region;
	struct sync_episode ep;

	if (!r || !on(ra) ||
	    sync_barrier_begin_at(&ep, kind, ra, (uintptr_t)r->fn,
				  sync_region_obj(&r->sr, sync_team_size()), cut,
				  &r->sr.inner)) {
		fn();
		return;
	}
	fn();
	sync_barrier_end(&ep);
}

RT_API void GOMP_barrier(void)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);

	omp_episode(HPCSYNC_OMP_BARRIER, RT_REAL(GOMP_barrier), ra, ra);
}

RT_API void GOMP_loop_end(void)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);

	omp_episode(HPCSYNC_OMP_LOOP_END, RT_REAL(GOMP_loop_end), ra, ra);
}

RT_API void GOMP_sections_end(void)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);

	omp_episode(HPCSYNC_OMP_SECTIONS_END, RT_REAL(GOMP_sections_end), ra, ra);
}

/* Every team thread's body of a wrapped region, then the join. */
__attribute__((noinline)) static void region_body(void *p)
{
	struct omp_region *r = p, *outer = cur_region;
	uintptr_t cut = (uintptr_t)__builtin_return_address(0);
	struct sync_episode ep;

	cur_region = r;
	r->fn(r->data);
	if (!sync_cfg.on || !rt_active ||
	    sync_barrier_begin_at(&ep, HPCSYNC_OMP_JOIN, r->sr.site_ra,
				  (uintptr_t)r->fn,
				  sync_region_obj(&r->sr, sync_team_size()), cut,
				  &r->sr.join)) {
		RT_REAL(GOMP_barrier)();
	} else {
		RT_REAL(GOMP_barrier)();
		sync_barrier_end(&ep);
	}
	cur_region = outer;
	__asm__ volatile("" ::: "memory");	/* keep this frame */
}

/* A region of construct call ra (the wrapper's return address) run
 * through region_body when measured: start(body, arg). */
#define REGION(ra, realcall, f, d) \
	do { \
		struct omp_region r_ = { f, d, { 0 } }; \
		if (!on(ra)) { \
			realcall(f, d); \
			break; \
		} \
		sync_region_begin(&r_.sr, ra, (uintptr_t)f, ra); \
		realcall(region_body, &r_); \
		sync_region_end(&r_.sr); \
	} while (0)

RT_API void GOMP_parallel(omp_fn fn, void *data, unsigned nthreads,
			  unsigned flags)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);

#define CALL(f, d) RT_REAL(GOMP_parallel)(f, d, nthreads, flags)
	REGION(ra, CALL, fn, data);
#undef CALL
}

typedef void (*loop_fn)(omp_fn, void *, unsigned, long, long, long, long,
			unsigned);
typedef void (*runtime_fn)(omp_fn, void *, unsigned, long, long, long,
			   unsigned);

/* GOMP_parallel_loop_*: real, the real one of the form called. */
static void parallel_loop(loop_fn real, uintptr_t ra, omp_fn fn, void *data,
			  unsigned nthreads, long start, long end, long incr,
			  long chunk, unsigned flags)
{
#define CALL(f, d) real(f, d, nthreads, start, end, incr, chunk, flags)
	REGION(ra, CALL, fn, data);
#undef CALL
}

#define PARALLEL_LOOP(name) \
	RT_API void name(omp_fn fn, void *data, unsigned nthreads, long start, \
			 long end, long incr, long chunk, unsigned flags); \
	RT_REAL_DEFINE(name); \
	RT_API void name(omp_fn fn, void *data, unsigned nthreads, long start, \
			 long end, long incr, long chunk, unsigned flags) \
	{ \
		parallel_loop(RT_REAL(name), \
			      (uintptr_t)__builtin_return_address(0), fn, \
			      data, nthreads, start, end, incr, chunk, flags); \
	}
PARALLEL_LOOP(GOMP_parallel_loop_static)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_guided)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)

/* GOMP_parallel_loop_*runtime: the same without a chunk size. */
static void parallel_runtime(runtime_fn real, uintptr_t ra, omp_fn fn,
			     void *data, unsigned nthreads, long start, long end,
			     long incr, unsigned flags)
{
#define CALL(f, d) real(f, d, nthreads, start, end, incr, flags)
	REGION(ra, CALL, fn, data);
#undef CALL
}

#define PARALLEL_RUNTIME(name) \
	RT_API void name(omp_fn fn, void *data, unsigned nthreads, long start, \
			 long end, long incr, unsigned flags); \
	RT_REAL_DEFINE(name); \
	RT_API void name(omp_fn fn, void *data, unsigned nthreads, long start, \
			 long end, long incr, unsigned flags) \
	{ \
		parallel_runtime(RT_REAL(name), \
				 (uintptr_t)__builtin_return_address(0), fn, \
				 data, nthreads, start, end, incr, flags); \
	}
PARALLEL_RUNTIME(GOMP_parallel_loop_runtime)
PARALLEL_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
PARALLEL_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

RT_API void GOMP_parallel_sections(omp_fn fn, void *data, unsigned nthreads,
				   unsigned count, unsigned flags)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);

#define CALL(f, d) RT_REAL(GOMP_parallel_sections)(f, d, nthreads, count, flags)
	REGION(ra, CALL, fn, data);
#undef CALL
}

/* ---- libomp (invariant 4) ---- */

RT_API void __kmpc_barrier(void *loc, int32_t gtid)
{
	static int (*omp_get_level)(void);
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_episode ep;
	uint32_t n;
	int level;

	if (!on(ra) || sync_ompt_active()) {
		RT_REAL(__kmpc_barrier)(loc, gtid);
		return;
	}
	if (!omp_get_level)
		omp_get_level = rt_optional_symbol(RTLD_DEFAULT, "omp_get_level");
	n = sync_team_size();
	level = omp_get_level ? omp_get_level() : 1;
	if (n < 1 ||
	    sync_barrier_begin(&ep, HPCSYNC_KMP_BARRIER, ra, n,
			       sync_obj_get((((uintptr_t)n << 8 | (unsigned)level) << 4) | 1, n),
			       ra)) {
		RT_REAL(__kmpc_barrier)(loc, gtid);
		return;
	}
	RT_REAL(__kmpc_barrier)(loc, gtid);
	sync_barrier_end(&ep);
}

/* ---- MPI (invariants 5 and 6) ---- */

#define CLOCK_ROUNDS 8
#define CLOCK_TAG 32754

/* This kernel's boot id (its CLOCK_MONOTONIC's identity), hashed. */
static int read_boot_id(void *p)
{
	char buf[64];
	uint64_t h = 1469598103934665603ull;
	ssize_t n, i;
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)buf[i]) * 1099511628211ull;
	*(uint64_t *)p = n > 0 ? h : 0;
	return n > 0 ? 0 : -EIO;
}

/*
 * The offset of this rank's CLOCK_MONOTONIC from rank 0's (invariant 6):
 * rank 0 answers each other rank's CLOCK_ROUNDS pings with its clock and
 * its kernel's boot id; the rank keeps the round of the shortest round
 * trip, offset = mid-point - rank 0's clock, error = half that trip.
 * Open MPI's handles only (others: no offset, said in the file).
 */
static void mpi_clock_exchange(void)
{
	int (*rank_of)(void *, int *) = rt_optional_symbol(RTLD_NEXT, "PMPI_Comm_rank");
	int (*size_of)(void *, int *) = rt_optional_symbol(RTLD_NEXT, "PMPI_Comm_size");
	int (*send)(const void *, int, void *, int, int, void *) =
		rt_optional_symbol(RTLD_NEXT, "PMPI_Send");
	int (*recv)(void *, int, void *, int, int, void *, void *) =
		rt_optional_symbol(RTLD_NEXT, "PMPI_Recv");
	void *world = rt_optional_symbol(RTLD_DEFAULT, "ompi_mpi_comm_world");
	void *byte = rt_optional_symbol(RTLD_DEFAULT, "ompi_mpi_byte");
	uint64_t status[16], msg[2], boot = 0, best = UINT64_MAX;
	const char *v = getenv("HPCRUN_MPI_CLOCK");
	int rank = -1, size = 0, i, k;
	char ping = 0;

	if ((v && *v == '0') || !rank_of || !size_of || !send || !recv || !world ||
	    !byte || rank_of(world, &rank) || size_of(world, &size) || size < 1)
		return;
	rt_fd_private(read_boot_id, &boot);
	if (rank == 0) {
		for (i = 1; i < size; i++)
			for (k = 0; k < CLOCK_ROUNDS; k++) {
				if (recv(&ping, 1, byte, i, CLOCK_TAG, world, status))
					return;
				msg[0] = sync_now();
				msg[1] = boot;
				if (send(msg, sizeof(msg), byte, i, CLOCK_TAG, world))
					return;
			}
		sync_cfg.clock = HPCSYNC_CLOCK_SAME_HOST;
		sync_cfg.clock_offset = 0;
		sync_cfg.clock_err = 0;
		return;
	}
	for (k = 0; k < CLOCK_ROUNDS; k++) {
		uint64_t t0 = sync_now(), t2;

		if (send(&ping, 1, byte, 0, CLOCK_TAG, world) ||
		    recv(msg, sizeof(msg), byte, 0, CLOCK_TAG, world, status))
			return;
		t2 = sync_now();
		if (t2 - t0 < best) {
			best = t2 - t0;
			sync_cfg.clock_offset = (int64_t)(t0 + (t2 - t0) / 2 - msg[0]);
			sync_cfg.clock_err = best / 2;
		}
	}
	sync_cfg.clock = boot && msg[1] == boot ? HPCSYNC_CLOCK_SAME_HOST :
			 HPCSYNC_CLOCK_OTHER_HOST;
}

RT_API int MPI_Init(int *argc, char ***argv)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	int r = RT_REAL(PMPI_Init)(argc, argv);

	if (!r && on(ra))
		mpi_clock_exchange();
	return r;
}

RT_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	int r = RT_REAL(PMPI_Init_thread)(argc, argv, required, provided);

	if (!r && on(ra))
		mpi_clock_exchange();
	return r;
}

RT_API int MPI_Barrier(void *comm)
{
	static int (*pmpi_comm_size)(void *, int *);
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_episode ep;
	int r, size = 0;

	if (!on(ra))
		return RT_REAL(PMPI_Barrier)(comm);
	if (!pmpi_comm_size)
		pmpi_comm_size = rt_optional_symbol(RTLD_NEXT, "PMPI_Comm_size");
	if (pmpi_comm_size)
		pmpi_comm_size(comm, &size);
	if (sync_barrier_begin(&ep, HPCSYNC_MPI_BARRIER, ra, (uintptr_t)comm,
			       sync_obj_get((uintptr_t)comm | 2,
					    size > 0 ? (uint32_t)size : 0), ra))
		return RT_REAL(PMPI_Barrier)(comm);
	r = RT_REAL(PMPI_Barrier)(comm);
	sync_barrier_end(&ep);
	return r;
}

/* ---- lock waits (invariant 2) ---- */

static unsigned mutex_how(const pthread_mutex_t *m)
{
	return m->__data.__kind & 128 ? SYNC_WAIT_SHARED : 0;
}

static unsigned cond_how(const pthread_cond_t *c)
{
	return c->__data.__wrefs & 1 ? SYNC_WAIT_SHARED : 0;
}

static unsigned sem_how(const sem_t *s)
{
	const struct { uint64_t value; int private_flag; } *ns = (const void *)s;

	return ns->private_flag ? SYNC_WAIT_SHARED : 0;
}

RT_API int pthread_mutex_lock(pthread_mutex_t *m)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_lockwait w;
	int r;

	if (!sync_cfg.on || !rt_active)
		return RT_REAL(pthread_mutex_lock)(m);
	r = pthread_mutex_trylock(m);
	if (r != EBUSY || rt_in_hpcrun(ra))
		return r != EBUSY ? r : RT_REAL(pthread_mutex_lock)(m);
	sync_lock_begin(&w, HPCSYNC_MUTEX, mutex_how(m), ra, (uintptr_t)m, ra);
	r = RT_REAL(pthread_mutex_lock)(m);
	sync_lock_end(&w);
	return r;
}

RT_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_lockwait w;
	int r;

	if (!on(ra))
		return RT_REAL(pthread_cond_wait)(c, m);
	sync_lock_begin(&w, HPCSYNC_COND, cond_how(c), ra, (uintptr_t)c, ra);
	r = RT_REAL(pthread_cond_wait)(c, m);
	sync_lock_end(&w);
	return r;
}

RT_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				  const struct timespec *t)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_lockwait w;
	int r;

	if (!on(ra))
		return RT_REAL(pthread_cond_timedwait)(c, m, t);
	sync_lock_begin(&w, HPCSYNC_COND, SYNC_WAIT_TIMED | cond_how(c), ra,
			(uintptr_t)c, ra);
	r = RT_REAL(pthread_cond_timedwait)(c, m, t);
	sync_lock_end(&w);
	return r;
}

RT_API int sem_wait(sem_t *s)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_lockwait w;
	int r, err;

	if (!on(ra))
		return RT_REAL(sem_wait)(s);
	err = errno;
	if (!sem_trywait(s))
		return 0;
	if (errno != EAGAIN)
		return -1;
	errno = err;
	sync_lock_begin(&w, HPCSYNC_SEM, sem_how(s), ra, (uintptr_t)s, ra);
	r = RT_REAL(sem_wait)(s);
	err = errno;
	sync_lock_end(&w);
	errno = err;
	return r;
}

/* Only a join that blocks is published (sync.h), after the try. */
RT_API int pthread_join(pthread_t t, void **ret)
{
	uintptr_t ra = (uintptr_t)__builtin_return_address(0);
	struct sync_lockwait w;
	int r;

	if (!on(ra))
		return RT_REAL(pthread_join)(t, ret);
	r = pthread_tryjoin_np(t, ret);
	if (r != EBUSY)
		return r;
	sync_join_begin(&w, ra, (uintptr_t)t);
	r = RT_REAL(pthread_join)(t, ret);
	sync_join_end(&w);
	return r;
}
