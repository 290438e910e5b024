/* opts.c - option parsing and generated help; see opts.h. */
#include "opts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "version.h"

void strlist_push(struct strlist *l, const char *s)
{
	HPC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = s;
}

void strlist_release(struct strlist *l)
{
	if (!l)
		return;
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

void opts_print_version(const char *name)
{
	printf("%s (%s) %s\n", name, HPC_PACKAGE, HPC_VERSION);
}

int opts_flush_stdout(void)
{
	int err;

	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return 0;
	err = errno;
	hpc_error("'standard output': cannot write%s%s", err ? ": " : "",
		  err ? strerror(err) : "");
	return -1;
}

static void print_opt(const char *shortpart, const char *longpart,
		      const char *argh, const char *help)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "  ");
	if (shortpart)
		strbuf_addf(&sb, "%s%s", shortpart, longpart ? ", " : "");
	else
		strbuf_addstr(&sb, "    ");
	if (longpart)
		strbuf_addstr(&sb, longpart);
	if (argh)
		strbuf_addf(&sb, " %s", argh);
	if (sb.len >= 26)
		printf("%s\n%26s%s\n", sb.buf, "", help);
	else
		printf("%-26s%s\n", sb.buf, help);
	strbuf_release(&sb);
}

void opts_print_help(const struct opts_program *prog, const struct opt *opts)
{
	const struct opt *o;
	size_t i;

	for (i = 0; prog->usage[i]; i++)
		printf("%s %s %s\n", i ? "   or:" : "usage:", prog->name,
		       prog->usage[i]);
	if (prog->description)
		printf("\n%s\n", prog->description);
	printf("\noptions:\n");
	for (o = opts; o->type != OPTT_END; o++) {
		char s[3] = { '-', (char)o->short_name, 0 };
		char l[64];

		if (o->long_name)
			snprintf(l, sizeof(l), "--%s", o->long_name);
		print_opt(o->short_name ? s : NULL, o->long_name ? l : NULL,
			  o->argh, o->help);
	}
	print_opt("-h", "--help", NULL, "show this help and exit");
	print_opt(NULL, "--version", NULL, "show the version and exit");
}

static int bad(const struct opts_program *prog, const char *fmt, const char *a,
	       const char *b)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, a, b);
	hpc_error("%s (see '%s --help')", msg, prog->name);
	return -1;
}

static int apply(const struct opts_program *prog, const struct opt *o,
		 const char *arg, const char *spelled)
{
	char *end;
	long v;

	switch (o->type) {
	case OPTT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPTT_COUNT:
		(*(int *)o->value)++;
		return 0;
	case OPTT_INT:
		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end)
			return bad(prog, "option '%s' expects an integer, not '%s'",
				   spelled, arg);
		*(long *)o->value = v;
		return 0;
	case OPTT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPTT_LIST:
		strlist_push(o->value, arg);
		return 0;
	case OPTT_CALLBACK:
		if (o->cb(o, arg) < 0) {
			hpc_error("option '%s': %s", spelled, hpc_lasterr());
			return -1;
		}
		return 0;
	case OPTT_END:
		break;
	}
	return -1;
}

static const struct opt *find_long(const struct opt *opts, const char *name,
				   size_t len)
{
	for (; opts->type != OPTT_END; opts++)
		if (opts->long_name && strlen(opts->long_name) == len &&
		    !strncmp(opts->long_name, name, len))
			return opts;
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, int c)
{
	for (; opts->type != OPTT_END; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

/* Parses one argv element starting with '-'; returns args consumed or -1. */
static int parse_one(const struct opts_program *prog, const struct opt *opts,
		     int argc, char **argv, int i)
{
	const char *a = argv[i];
	const struct opt *o;

	if (a[1] == '-') {
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);

		if (len == 4 && !strncmp(name, "help", 4)) {
			opts_print_help(prog, opts);
			exit(opts_flush_stdout() ? 1 : 0);
		}
		if (len == 7 && !strncmp(name, "version", 7)) {
			opts_print_version(prog->name);
			exit(opts_flush_stdout() ? 1 : 0);
		}
		o = find_long(opts, name, len);
		if (!o)
			return bad(prog, "unknown option '%s'%s", a, "");
		if (!o->argh) {
			if (eq)
				return bad(prog, "option '%s' takes no value%s",
					   a, "");
			return apply(prog, o, NULL, a) < 0 ? -1 : 1;
		}
		if (eq)
			return apply(prog, o, eq + 1, a) < 0 ? -1 : 1;
		if (i + 1 >= argc)
			return bad(prog, "option '%s' needs a value (%s)", a,
				   o->argh);
		return apply(prog, o, argv[i + 1], a) < 0 ? -1 : 2;
	}
	for (a++; *a; a++) {
		char spelled[3] = { '-', *a, 0 };

		if (*a == 'h') {
			opts_print_help(prog, opts);
			exit(opts_flush_stdout() ? 1 : 0);
		}
		o = find_short(opts, *a);
		if (!o)
			return bad(prog, "unknown option '%s'%s", spelled, "");
		if (!o->argh) {
			if (apply(prog, o, NULL, spelled) < 0)
				return -1;
			continue;
		}
		if (a[1])
			return apply(prog, o, a + 1, spelled) < 0 ? -1 : 1;
		if (i + 1 >= argc)
			return bad(prog, "option '%s' needs a value (%s)",
				   spelled, o->argh);
		return apply(prog, o, argv[i + 1], spelled) < 0 ? -1 : 2;
	}
	return 1;
}

int opts_parse(int argc, char **argv, const struct opts_program *prog,
	       const struct opt *opts, unsigned flags)
{
	char **rest = xcalloc((size_t)argc + 1, sizeof(*rest));
	int nrest = 0, i = 1, j, first;

	while (i < argc) {
		const char *a = argv[i];
		int n;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (flags & OPTS_STOP_AT_NONOPT)
				break;
			rest[nrest++] = argv[i++];
			continue;
		}
		n = parse_one(prog, opts, argc, argv, i);
		if (n < 0) {
			free(rest);
			return -1;
		}
		i += n;
	}
	while (i < argc)
		rest[nrest++] = argv[i++];
	first = argc - nrest;
	for (j = 0; j < nrest; j++)
		argv[first + j] = rest[j];
	free(rest);
	return first;
}
