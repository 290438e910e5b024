/*
 * datacentric-alloc.c - the allocator entry points libhpcrun.so wraps for
 * hpcrun --data (exported through libhpcrun.map): the malloc family and
 * anonymous mmap, munmap, mremap.  The real functions come from
 * dlsym(RTLD_NEXT), so an allocator preloaded after hpcrun (jemalloc,
 * tcmalloc) is the one that allocates; one that the program links itself
 * takes the calls before we see them, and nothing is tracked.
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
#include <dlfcn.h>
#include <malloc.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "datacentric.h"
#include "runtime.h"

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef void *(*memalign_fn)(size_t, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef size_t (*usable_fn)(void *);
typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
typedef int (*munmap_fn)(void *, size_t);
typedef void *(*mremap_fn)(void *, size_t, size_t, int, ...);

static struct {
	malloc_fn malloc, valloc;
	calloc_fn calloc;
	realloc_fn realloc;
	free_fn free;
	memalign_fn memalign, aligned_alloc;
	posix_memalign_fn posix_memalign;
	usable_fn usable;
	mmap_fn mmap;
	munmap_fn munmap;
	mremap_fn mremap;
} real;

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

#define RESOLVE(field, name) \
	do { \
		if (!real.field) \
			*(void **)&real.field = dlsym(RTLD_NEXT, name); \
	} while (0)

static void resolve(void)
{
	if (real.free)
		return;
	resolving = 1;
	RESOLVE(malloc, "malloc");
	RESOLVE(calloc, "calloc");
	RESOLVE(realloc, "realloc");
	RESOLVE(memalign, "memalign");
	RESOLVE(aligned_alloc, "aligned_alloc");
	RESOLVE(posix_memalign, "posix_memalign");
	RESOLVE(valloc, "valloc");
	RESOLVE(usable, "malloc_usable_size");
	RESOLVE(mmap, "mmap");
	RESOLVE(munmap, "munmap");
	RESOLVE(mremap, "mremap");
	RESOLVE(free, "free");
	resolving = 0;
}

/* Is the program's call at return address ra one to watch? */
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
	    (real.usable && real.usable(p) < rt_data.min_bytes))
		return;
	guard = 1;
	rt_data_forget(p, 0);
	guard = 0;
}

RT_API void *malloc(size_t n)
{
	void *p;

	if (!real.malloc) {
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	p = real.malloc(n);
	return noted(p, n, __builtin_return_address(0));
}

RT_API void *calloc(size_t k, size_t n)
{
	void *p;

	if (!real.calloc) {
		if (resolving)
			return boot_alloc(k * n);	/* static: zeroed */
		resolve();
	}
	p = real.calloc(k, n);
	return noted(p, k * n, __builtin_return_address(0));
}

RT_API void free(void *p)
{
	if (in_boot(p))
		return;
	if (!real.free) {
		if (resolving)
			return;		/* dlsym's own: kept */
		resolve();
	}
	if (watched(__builtin_return_address(0)))
		note_free(p);
	real.free(p);
}

RT_API void *realloc(void *p, size_t n)
{
	int w;
	void *q;

	if (!real.realloc) {
		if (resolving)
			return NULL;
		resolve();
	}
	if (in_boot(p)) {
		size_t old;

		memcpy(&old, (char *)p - 16, sizeof(old));
		q = real.malloc(n);
		if (q)
			memcpy(q, p, old < n ? old : n);
		return q;
	}
	w = watched(__builtin_return_address(0));
	if (w)
		note_free(p);
	q = real.realloc(p, n);
	if (w && q)
		note_alloc(q, n);
	return q;
}

RT_API void *memalign(size_t align, size_t n)
{
	resolve();
	return noted(real.memalign(align, n), n, __builtin_return_address(0));
}

RT_API void *aligned_alloc(size_t align, size_t n)
{
	resolve();
	return noted(real.aligned_alloc(align, n), n, __builtin_return_address(0));
}

RT_API int posix_memalign(void **out, size_t align, size_t n)
{
	int r;

	resolve();
	r = real.posix_memalign(out, align, n);
	if (!r)
		noted(*out, n, __builtin_return_address(0));
	return r;
}

RT_API void *valloc(size_t n)
{
	resolve();
	return noted(real.valloc(n), n, __builtin_return_address(0));
}

RT_API void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
	void *p;

	resolve();
	p = real.mmap(a, n, prot, flags, fd, off);
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
	resolve();
	forget_range(a, n, __builtin_return_address(0));
	return real.munmap(a, n);
}

RT_API void *mremap(void *a, size_t old, size_t n, int flags, ...)
{
	void *to = NULL;
	va_list ap;

	resolve();
	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		to = va_arg(ap, void *);
		va_end(ap);
	}
	/* the block moves or changes size: no longer tracked */
	forget_range(a, old, __builtin_return_address(0));
	return real.mremap(a, old, n, flags, to);
}
