/* u-opts.c - unit tests for lib/opts.c. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "opts.h"
#include "unit.h"

static const char *const usage[] = { "[options] ARGS", NULL };
static const struct opts_program prog = { "u-opts", usage, NULL };

static int flag, count;
static long num;
static const char *str;
static struct strlist list;

static const struct opt opts[] = {
	OPT_FLAG('f', "flag", &flag, "a flag"),
	OPT_COUNT('v', "verbose", &count, "a counter"),
	OPT_INT('j', "jobs", &num, "N", "a number"),
	OPT_STRING('o', "output", &str, "FILE", "a string"),
	OPT_LIST('e', "event", &list, "EV", "a list"),
	OPT_END(),
};

/*
 * Splits line at spaces into a NULL-terminated argv; free with free_split()
 * (argv[0] points at the start of the one copied string).
 */
static char **split(const char *line, int *argc)
{
	char **argv = xcalloc(64, sizeof(*argv));
	char *copy = xstrdup(line), *tok, *save = NULL;

	*argc = 0;
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		argv[(*argc)++] = tok;
	return argv;
}

static void free_split(char **argv)
{
	free(argv[0]);
	free(argv);
}

static void reset(void)
{
	flag = count = 0;
	num = 0;
	str = NULL;
	strlist_release(&list);
}

static void all_forms(void)
{
	int argc, first;
	char **argv = split("p a1 -fvv -j3 --output=x a2 -e cycles --event "
			    "instr@100 -- -a3", &argc);

	reset();
	first = opts_parse(argc, argv, &prog, opts, 0);
	CHECK_INT(first, 9);
	CHECK_INT(flag, 1);
	CHECK_INT(count, 2);
	CHECK_INT(num, 3);
	CHECK_STR(str, "x");
	CHECK_INT(list.n, 2);
	CHECK_STR(list.v[0], "cycles");
	CHECK_STR(list.v[1], "instr@100");
	CHECK_STR(argv[9], "a1");
	CHECK_STR(argv[10], "a2");
	CHECK_STR(argv[11], "-a3");
	free_split(argv);
}

static void stop_at_program(void)
{
	int argc, first;
	char **argv = split("hpcrun -e x prog -v", &argc);

	reset();
	first = opts_parse(argc, argv, &prog, opts, OPTS_STOP_AT_NONOPT);
	CHECK_INT(first, 3);
	CHECK_STR(argv[3], "prog");
	CHECK_STR(argv[4], "-v");
	CHECK_INT(count, 0);
	free_split(argv);
}

static void errors(void)
{
	static const char *const bad[] = {
		"p -j x", "p --nope", "p --output", "p --flag=1", "p -q",
	};
	size_t i;
	int argc;

	reset();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char **argv = split(bad[i], &argc);

		CHECK_INT(opts_parse(argc, argv, &prog, opts, 0), -1);
		free_split(argv);
	}
	strlist_release(&list);
}

int main(void)
{
	hpc_set_progname("u-opts");
	unit_run("short, bundled, long, = and -- forms", all_forms);
	unit_run("a launcher stops at the program name", stop_at_program);
	unit_run("bad options are refused", errors);
	return unit_done();
}
