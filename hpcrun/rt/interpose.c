/*
 * interpose.c - the lookup of wrappers' real functions (interpose.h has
 * the rules).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "interpose.h"
#include "output.h"
#include "runtime.h"

/* Every slot of RT_REAL_DEFINE, from the linker. */
extern struct rt_real *__start_rt_real[], *__stop_rt_real[];

/* The next definition after libhpcrun.so, of r's version first. */
static void *look_up(const struct rt_real *r)
{
	void *fn = NULL;

	if (r->version)
		fn = dlvsym(RTLD_NEXT, r->name, r->version);
	return fn ? fn : dlsym(RTLD_NEXT, r->name);
}

void *rt_real_find(struct rt_real *r)
{
	void *fn = look_up(r);

	if (!fn) {
		rt_say("no real '", r->name, "' to call", NULL);
		abort();
	}
	__atomic_store_n(&r->fn, fn, __ATOMIC_RELAXED);
	return fn;
}

void rt_interpose_init(void)
{
	struct rt_real **r;

	for (r = __start_rt_real; r < __stop_rt_real; r++)
		if (!__atomic_load_n(&(*r)->fn, __ATOMIC_RELAXED))
			__atomic_store_n(&(*r)->fn, look_up(*r), __ATOMIC_RELAXED);
	dlerror();	/* the program's dlerror() tells of no lookup of ours */
}

int rt_interpose_is_real(const char *name, void *fn)
{
	struct rt_real **r;
	void *real;

	for (r = __start_rt_real; fn && r < __stop_rt_real; r++) {
		if (strcmp((*r)->name, name))
			continue;
		real = __atomic_load_n(&(*r)->fn, __ATOMIC_RELAXED);
		if (!real && (real = look_up(*r)))
			__atomic_store_n(&(*r)->fn, real, __ATOMIC_RELAXED);
		return fn == real;
	}
	return 0;
}

void *rt_optional_symbol(void *handle, const char *name)
{
	return dlsym(handle, name);
}
