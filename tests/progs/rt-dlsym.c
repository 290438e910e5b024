/*
 * rt-dlsym.c - a program that reaches libc through a handle of its own,
 * as Python's ctypes and plugin loaders do, and a library that finds the
 * next definition of its own function with dlsym(RTLD_NEXT), as
 * interposers do.
 *
 * Build: cc -shared -fPIC -DPART_A -o librt-dlsym-a.so rt-dlsym.c
 *        cc -shared -fPIC -DPART_B -o librt-dlsym-b.so rt-dlsym.c
 *        cc -O2 -g -pthread -o rt-dlsym rt-dlsym.c -L. \
 *           -Wl,--no-as-needed -lrt-dlsym-a -lrt-dlsym-b -Wl,-rpath,'$ORIGIN'
 *
 *   rt-dlsym   main starts one thread with the pthread_create it got from
 *              dlsym(dlopen("libc.so.6"), ...); the thread computes for
 *              0.3 s of CPU time.  Then it prints who() (a's, which asks
 *              for the next definition: b's) and whether dlsym with
 *              RTLD_DEFAULT gives the pthread_create a call by name
 *              reaches.
 *
 * Ground truth: stdout "who: b" and "default is by name: 1"; status 0.
 */
#include <dlfcn.h>

#if defined(PART_A)
const char *who(void);

const char *who(void)
{
	const char *(*next)(void) = (const char *(*)(void))dlsym(RTLD_NEXT, "who");

	return next ? next() : "none";
}
#elif defined(PART_B)
const char *who(void);

const char *who(void)
{
	return "b";
}
#else
#include <pthread.h>
#include <stdio.h>
#include <time.h>

const char *who(void);

static void *compute(void *arg)
{
	struct timespec t;

	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while (!t.tv_sec && t.tv_nsec < 300000000);
	return arg;
}

int main(void)
{
	int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	void *libc = dlopen("libc.so.6", RTLD_NOW);
	pthread_t t;

	if (!libc)
		return 1;
	*(void **)&create = dlsym(libc, "pthread_create");
	if (!create || create(&t, NULL, compute, NULL) || pthread_join(t, NULL))
		return 1;
	printf("who: %s\n", who());
	printf("default is by name: %d\n",
	       dlsym(RTLD_DEFAULT, "pthread_create") == (void *)pthread_create);
	return 0;
}
#endif
