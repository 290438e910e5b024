/*
 * fake-python.c - stands in for a Python interpreter in the launcher's
 * tests (t1280): installed as VERSION/bin/python3 of a fake pyenv tree,
 * it says how it was started, so a test sees what pyenv's exec would
 * have given it, then burns a little CPU so its profile holds samples.
 *
 * Build: cc -O2 -o python3 fake-python.c
 *
 * Prints, one a line: "argv0 PATH", "argv1 ARG" (or "argv1 -"),
 * "version PYENV_VERSION" (or "-"), "path0 FIRST-PATH-ENTRY".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	const char *v = getenv("PYENV_VERSION"), *path = getenv("PATH");
	volatile unsigned long x = 0;
	unsigned long i;

	printf("argv0 %s\nargv1 %s\nversion %s\npath0 %.*s\n", argv[0],
	       argc > 1 ? argv[1] : "-", v ? v : "-",
	       path ? (int)strcspn(path, ":") : 1, path ? path : "-");
	for (i = 0; i < 50000000ul; i++)
		x += i;
	return 0;
}
