/* demangle.c - see demangle.h. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

typedef char *(*demangle_fn)(const char *mangled, char *buf, size_t *len,
			     int *status);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static demangle_fn demangler;

static void load(void)
{
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

	if (h)
		*(void **)&demangler = dlsym(h, "__cxa_demangle");
}

/* name demangled whole, or NULL. */
static char *demangle(const char *name)
{
	int status = -1;
	char *d;

	if (strncmp(name, "_Z", 2))
		return NULL;
	pthread_once(&once, load);
	if (!demangler)
		return NULL;
	d = demangler(name, NULL, NULL, &status);
	if (status == 0 && d)
		return d;
	free(d);
	return NULL;
}

char *hpc_demangle(const char *name)
{
	size_t len = name ? strlen(name) : 0;
	char *stem, *d, *out = NULL;
	size_t size;

	if (len <= 4 || strcmp(name + len - 4, "@plt"))
		return name ? demangle(name) : NULL;
	/* a PLT stub's name (elf-plt.h) */
	stem = strndup(name, len - 4);
	d = stem ? demangle(stem) : NULL;
	size = d ? strlen(d) + sizeof("@plt") : 0;
	if (d && (out = malloc(size)))
		snprintf(out, size, "%s@plt", d);
	free(stem);
	free(d);
	return out;
}
