/*
 * python-argv.c - the script or module a Python interpreter runs
 * (python-argv.h).
 */
#include <string.h>

#include "python-argv.h"

/* Whether base names a Python interpreter (invariant 2). */
static int is_python(const char *base)
{
	static const char *const suffix[] = { "", "d", "t", "m", "dm", "td", "-dbg" };
	size_t i;

	if (strncmp(base, "python", 6))
		return 0;
	base += 6;
	base += strspn(base, "0123456789.");
	for (i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++)
		if (!strcmp(base, suffix[i]))
			return 1;
	return 0;
}

/* The base name of a script path (a directory's own name for "dir/"). */
static const char *script_name(const char *path, size_t *len)
{
	size_t n = strlen(path);
	const char *base;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (base = path + n; base > path && base[-1] != '/'; base--)
		;
	if (base == path + n)
		return NULL;
	*len = (size_t)(path + n - base);
	return base;
}

const char *hpc_python_program(const char *path, char *const *argv, size_t *len)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *a = NULL, *o;
	size_t i;

	if (!is_python(base) || !argv[0])
		return NULL;
	/* python [option ...] (-c CMD | -m MODULE | SCRIPT | -) [arg ...] */
	for (i = 1; (a = argv[i]); i++) {
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "--")) {
			a = argv[i + 1];
			break;
		}
		if (a[1] == '-') {	/* the long options with a value */
			if (!strcmp(a, "--check-hash-based-pycs") && argv[i + 1])
				i++;
			continue;
		}
		for (o = a + 1; *o; o++) {
			if (*o == 'c')
				return NULL;
			if (*o == 'm')
				return o[1] ? script_name(o + 1, len) :
				       argv[i + 1] ? script_name(argv[i + 1], len) : NULL;
			if (*o == 'W' || *o == 'X') {
				if (!o[1] && argv[i + 1])
					i++;
				break;
			}
		}
	}
	if (!a || !strcmp(a, "-"))
		return NULL;
	return script_name(a, len);
}
