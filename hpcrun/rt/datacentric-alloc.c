/*
 * datacentric-alloc.c - the allocator entry points libhpcrun.so wraps for
 * hpcrun --data (exported through libhpcrun.map): the malloc family and
 * anonymous mmap, munmap, mremap.  The real functions are the next
 * definitions (interpose.h), so an allocator preloaded after hpcrun
 * (jemalloc, tcmalloc) is the one that allocates; one that the program
 * links itself takes the calls before we see them, and nothing is tracked.
 *
 * Invariants:
 *  1. Without --data every wrapper is one test and a call of the real
 *     function: the program's memory is its allocator's, unchanged.
 *  2. While dlsym resolves the real functions (it may call calloc), blocks
 *     come from a static bootstrap buffer; free of such a block is a no-op
 *     and realloc copies it out.  Nothing else is ever given to free.
 *  3. A block leaves the object map (rt_data_forget) before the real free,
 *     realloc or munmap, so its address cannot be handed out again while
 *     still mapped to the old object (datacentric.c, invariant 3).
 *  4. A thread inside the tracking code (the per-thread guard) that comes
 *     back into an allocator (a signal handler of the program calling
 *     malloc) only allocates: no tracking, no lock taken twice.
 *  5. Calls from hpcrun's own code (its arena's mmap, even from the
 *     sampling handler) are never tracked: the caller's address is
 *     checked against hpcrun's text first, before anything else.
 *  6. Small blocks (below --data-min-bytes) cost the real call plus a
 *     counter: free looks the block up only when the allocator's usable
 *     size says it could be a tracked one.
 */
#include <malloc.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "datacentric.h"
#include "interpose.h"
#include "runtime.h"
#include "unwind.h"

RT_REAL_DEFINE(malloc);
RT_REAL_DEFINE(calloc);
RT_REAL_DEFINE(realloc);
RT_REAL_DEFINE(memalign);
RT_REAL_DEFINE(aligned_alloc);
RT_REAL_DEFINE(posix_memalign);
RT_REAL_DEFINE(valloc);
RT_REAL_DEFINE(malloc_usable_size);
RT_REAL_DEFINE(mmap);
RT_REAL_DEFINE(munmap);
RT_REAL_DEFINE(mremap);
RT_REAL_DEFINE(free);

static __thread int guard __attribute__((tls_model("initial-exec")));

/* The bootstrap buffer (invariant 2). */
static char boot[65536] __attribute__((aligned(16)));
static size_t boot_used;
static int resolving;

static void *boot_alloc(size_t n)
{
	size_t at = __atomic_fetch_add(&boot_used, (n + 31) & ~(size_t)15,
				       __ATOMIC_RELAXED);

	if (at + ((n + 31) & ~(size_t)15) > sizeof(boot))
		return NULL;
	memcpy(boot + at, &n, sizeof(n));	/* its size, for realloc */
	return boot + at + 16;
}

static int in_boot(const void *p)
{
	return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

/* 1 for a call from dlsym looking the allocator up (invariant 2); the
 * first call to come looks malloc, calloc, realloc and free up, free
 * last. */
static int booting(void)
{
	if (__builtin_expect(RT_REAL_FOUND(free), 1))
		return 0;
	if (resolving)
		return 1;
	resolving = 1;
	(void)RT_REAL(malloc);
	(void)RT_REAL(calloc);
	(void)RT_REAL(realloc);
	(void)RT_REAL(free);
	resolving = 0;
	return 0;
}

/* Is the program's call at return address ra one to watch? */
int rt_data_own_begin(void)
{
	int was = guard;

	guard = 1;
	return was;
}

void rt_data_own_end(int was)
{
	guard = was;
}

static int watched(const void *ra)
{
	return rt_data.on && !guard && !rt_in_hpcrun((uintptr_t)ra);
}

static void note_alloc(void *p, size_t n)
{
	int err = errno;

	guard = 1;
	rt_data_alloc(p, n);
	guard = 0;
	errno = err;
}

/* p, just allocated with n bytes for a caller returning to ra, noted. */
static void *noted(void *p, size_t n, const void *ra)
{
	if (p && watched(ra))
		note_alloc(p, n);
	return p;
}

static void note_free(void *p)
{
	if (!p || !rt_data_tracking() || in_boot(p) ||
	    RT_REAL(malloc_usable_size)(p) < rt_data.min_bytes)
		return;
	guard = 1;
	rt_data_forget(p, 0);
	guard = 0;
}

RT_API void *malloc(size_t n)
{
	void *p;

	if (booting())
		return boot_alloc(n);
	p = RT_REAL(malloc)(n);
	return noted(p, n, __builtin_return_address(0));
}

RT_API void *calloc(size_t k, size_t n)
{
	void *p;

	if (booting())
		return boot_alloc(k * n);	/* static: zeroed */
	p = RT_REAL(calloc)(k, n);
	return noted(p, k * n, __builtin_return_address(0));
}

RT_API void free(void *p)
{
	if (in_boot(p) || booting())
		return;		/* dlsym's own: kept */
	if (watched(__builtin_return_address(0)))
		note_free(p);
	RT_REAL(free)(p);
}

RT_API void *realloc(void *p, size_t n)
{
	int w;
	void *q;

	if (booting())
		return NULL;
	if (in_boot(p)) {
		size_t old;

		memcpy(&old, (char *)p - 16, sizeof(old));
		q = RT_REAL(malloc)(n);
		if (q)
			memcpy(q, p, old < n ? old : n);
		return q;
	}
	w = watched(__builtin_return_address(0));
	if (w)
		note_free(p);
	q = RT_REAL(realloc)(p, n);
	if (w && q)
		note_alloc(q, n);
	return q;
}

RT_API void *memalign(size_t align, size_t n)
{
	return noted(RT_REAL(memalign)(align, n), n, __builtin_return_address(0));
}

RT_API void *aligned_alloc(size_t align, size_t n)
{
	return noted(RT_REAL(aligned_alloc)(align, n), n, __builtin_return_address(0));
}

RT_API int posix_memalign(void **out, size_t align, size_t n)
{
	int r;

	r = RT_REAL(posix_memalign)(out, align, n);
	if (!r)
		noted(*out, n, __builtin_return_address(0));
	return r;
}

RT_API void *valloc(size_t n)
{
	return noted(RT_REAL(valloc)(n), n, __builtin_return_address(0));
}

RT_API void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	void *p;

	p = RT_REAL(mmap)(a, n, prot, flags, fd, off);
	if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) &&
	    watched(__builtin_return_address(0))) {
		int err = errno;

		guard = 1;
		if (flags & MAP_FIXED)
			rt_data_forget(p, n);	/* it replaced what was there */
		rt_data_alloc(p, n);
		guard = 0;
		errno = err;
	}
	return p;
}

/* glibc's mmap64 is mmap (off_t is 64 bits): programs built with
 * _FILE_OFFSET_BITS=64, libpython among them, call it by that name. */
RT_API void *mmap64(void *a, size_t n, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

/* Every tracked block inside [a, a+n) leaves the map (before the call). */
static void forget_range(void *a, size_t n, const void *ra)
{
	if (watched(ra) && rt_data_tracking()) {
		int err = errno;

		guard = 1;
		rt_data_forget(a, n ? n : 1);
		guard = 0;
		errno = err;
	}
}

RT_API int munmap(void *a, size_t n)
{
	forget_range(a, n, __builtin_return_address(0));
	return RT_REAL(munmap)(a, n);
}

RT_API void *mremap(void *a, size_t old, size_t n, int flags, ...)
{
	void *to = NULL;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	/* the block moves or changes size: no longer tracked */
	forget_range(a, old, __builtin_return_address(0));
	return RT_REAL(mremap)(a, old, n, flags, to);
}
