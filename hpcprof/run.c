/* run.c - see run.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "database.h"
#include "dwarf-fallback.h"
#include "error.h"
#include "experiment.h"
#include "formula.h"
#include "hashmap.h"
#include "hpcrun-live.h"
#include "steptime.h"
#include "parallel.h"
#include "report.h"
#include "run.h"
#include "strbuf.h"

/* One profile to read, and which of its metrics to take under what name. */
struct input {
	char *path;
	int all_metrics;		/* named on the command line */
	struct hpcrun_profile *p;
	void *side[NCAPS];		/* each capability's file beside it,
					 * or NULL (capability.h) */
};

struct run {
	const struct hpcprof_options *o;
	struct config cfg;
	struct input *in;	size_t nin, in_alloc;
	struct hmap *seen;	/* profile path -> input index + 1 */
	char **structs;		size_t nstructs, structs_alloc;
	size_t ngiven;		/* structs[0..ngiven): -S and STRUCTURE */
	struct experiment *e;
	void *cap[NCAPS];	/* each capability's state (capability.h) */
	int any[NCAPS];		/* some profile has its side file */
	uint64_t samples_taken, samples_in_hpcrun;	/* the logs' (add_logs) */
	uint64_t samples_recorded, samples_partial;
	uint64_t cpu_user_ns, cpu_system_ns, kernel_unmeasured_ns;
	uint64_t samples_kernel;
	char kernel_why[64];	/* the logs' first "kernel-mode: not counted" */
	unsigned jobs;		/* threads (-j) */
	int status;
};

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* The directory part of path ("." when it has none); caller frees. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* path without trailing slashes ("db/" is db); caller frees. */
static char *without_slashes(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return xstrndup(path, n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files in dir ending with suffix, sorted; caller frees. */
static char **list_dir(const char *dir, const char *suffix, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t alloc = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		struct strbuf sb = STRBUF_INIT;

		if (!ends_with(de->d_name, suffix))
			continue;
		strbuf_addf(&sb, "%s/%s", dir, de->d_name);
		HPC_GROW(v, *n + 1, alloc);
		v[(*n)++] = strbuf_detach(&sb, NULL);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/*
 * Given structure files (-S, then -M's STRUCTURE) come before those found
 * in structs/ directories: see prefer_given().
 */
static void add_struct(struct run *r, const char *path, int given)
{
	size_t i;

	for (i = 0; i < r->nstructs; i++)
		if (!strcmp(r->structs[i], path))
			return;
	HPC_GROW(r->structs, r->nstructs + 1, r->structs_alloc);
	i = given ? r->ngiven++ : r->nstructs;
	memmove(&r->structs[i + 1], &r->structs[i],
		(r->nstructs - i) * sizeof(*r->structs));
	r->structs[i] = xstrdup(path);
	r->nstructs++;
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * A module is matched to the structure of its path, else of its base name
 * (experiment.c).  A structure from structs/ that a given one (the first
 * ngiven_lms of e->structs) matches that way too is set aside, and the
 * choice said: the file given explicitly wins.
 */
static void prefer_given(struct run *r, size_t ngiven_lms)
{
	struct experiment *e = r->e;
	size_t k = ngiven_lms, j;

	while (k < e->nstructs) {
		struct structure *s = e->structs[k];

		for (j = 0; j < ngiven_lms; j++)
			if (!strcmp(base_of(e->structs[j]->lm_path),
				    base_of(s->lm_path)))
				break;
		if (j == ngiven_lms) {
			k++;
			continue;
		}
		hpc_warn("'%s': described by '%s' (given) and '%s'; using '%s'",
			 s->lm_path, e->structs[j]->source, s->source,
			 e->structs[j]->source);
		structure_free(s);
		memmove(&e->structs[k], &e->structs[k + 1],
			(e->nstructs - k - 1) * sizeof(*e->structs));
		e->nstructs--;
	}
}

static struct input *add_profile(struct run *r, const char *path)
{
	uintptr_t v = (uintptr_t)hmap_get_str(r->seen, path);
	struct input *in;

	if (v)
		return &r->in[v - 1];
	HPC_GROW(r->in, r->nin + 1, r->in_alloc);
	in = &r->in[r->nin++];
	memset(in, 0, sizeof(*in));
	in->path = xstrdup(path);
	hmap_put_str(r->seen, path, (void *)(uintptr_t)r->nin);
	return in;
}

/* The value of "KEY: N" in line, added to *sum. */
static void log_count(const char *line, const char *key, uint64_t *sum)
{
	size_t k = strlen(key);
	char *end;
	unsigned long long v;

	if (strncmp(line, key, k) || line[k] != ':' || line[k + 1] != ' ' ||
	    line[k + 2] < '0' || line[k + 2] > '9')
		return;
	errno = 0;
	v = strtoull(line + k + 2, &end, 10);
	if (!errno && (*end == '\n' || !*end))
		*sum += v;
}

/* Why line "kernel-mode: not counted (WHY)" says, into why unless it
 * holds one already. */
static void log_kernel_why(const char *line, char *why, size_t size)
{
	static const char key[] = "kernel-mode: not counted (";
	size_t n;

	if (why[0] || strncmp(line, key, sizeof(key) - 1))
		return;
	line += sizeof(key) - 1;
	n = strcspn(line, "\n");
	if (n && line[n - 1] == ')')
		snprintf(why, size, "%.*s", (int)(n - 1), line);
}

/* The samples hpcrun took, those taken in its own code, those recorded
 * and those of them left partial, the CPU time and the kernel's part of
 * it, from the logs of measurement directory dir (hpcrun(5), The log); a
 * log it cannot read adds nothing. */
static void add_logs(struct run *r, const char *dir)
{
	size_t n, i, cap = 0;
	char **v = list_dir(dir, ".log", &n), *line = NULL;

	for (i = 0; i < n; i++) {
		FILE *f = fopen(v[i], "r");

		while (f && getline(&line, &cap, f) > 0) {
			log_count(line, "samples-taken", &r->samples_taken);
			log_count(line, "samples-in-hpcrun",
				  &r->samples_in_hpcrun);
			log_count(line, "samples-recorded",
				  &r->samples_recorded);
			log_count(line, "samples-partial", &r->samples_partial);
			log_count(line, "samples-kernel", &r->samples_kernel);
			log_count(line, "cpu-user-ns", &r->cpu_user_ns);
			log_count(line, "cpu-system-ns", &r->cpu_system_ns);
			log_count(line, "kernel-unmeasured-ns",
				  &r->kernel_unmeasured_ns);
			log_kernel_why(line, r->kernel_why, sizeof(r->kernel_why));
		}
		if (f)
			fclose(f);
		free(v[i]);
	}
	free(line);
	free(v);
}

/*
 * A measurement directory (its profiles and structs/), or one profile.
 * Returns the number of profiles it named, or -1 when it is unusable.
 */
static long add_input(struct run *r, const char *path, int all_metrics,
		      size_t *first)
{
	struct stat st;
	char **v;
	size_t n, i;

	*first = r->nin;
	if (stat(path, &st) ||
	    (S_ISDIR(st.st_mode) && access(path, R_OK | X_OK))) {
		hpc_error("'%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		add_profile(r, path)->all_metrics |= all_metrics;
		*first = hmap_get_str(r->seen, path) ?
			 (uintptr_t)hmap_get_str(r->seen, path) - 1 : *first;
		return 1;
	}
	if (!r->o->reader_only) {	/* what killed processes left */
		size_t bad = 0;

		hpcrun_live_recover(path, hpc_warn, &bad);
		if (bad)
			r->status = 1;
	}
	if (r->o->recovered)
		r->o->recovered();
	v = list_dir(path, ".hpcrun", &n);
	for (i = 0; i < n; i++) {
		add_profile(r, v[i])->all_metrics |= all_metrics;
		free(v[i]);
	}
	free(v);
	if (n == 0)
		hpc_warn("'%s': no .hpcrun profiles in this directory", path);
	add_logs(r, path);
	{
		struct strbuf sd = STRBUF_INIT;
		char **sv;
		size_t ns;

		strbuf_addf(&sd, "%s/structs", path);
		sv = list_dir(sd.buf, ".hpcstruct", &ns);
		for (i = 0; i < ns; i++) {
			add_struct(r, sv[i], 0);
			free(sv[i]);
		}
		free(sv);
		strbuf_release(&sd);
	}
	return (long)n;
}

/* Is metric a capability's attribute, not a sample metric? */
static int attribute(const char *metric)
{
	size_t c;

	for (c = 0; c < NCAPS; c++)
		if (prof_capabilities[c]->attribute &&
		    prof_capabilities[c]->attribute(metric))
			return 1;
	return 0;
}

/* Registers the metrics of each profile; returns per-profile maps. */
static int **map_metrics(struct run *r)
{
	int **maps = xcalloc(r->nin ? r->nin : 1, sizeof(*maps));
	size_t i, k;
	uint32_t j;

	for (i = 0; i < r->nin; i++) {
		const struct hpcrun_profile *p = r->in[i].p;

		if (!p)
			continue;
		maps[i] = xcalloc(p->nmetrics ? p->nmetrics : 1, sizeof(int));
		for (j = 0; j < p->nmetrics; j++) {
			const struct hpcrun_metric *m = &p->metrics[j];
			const char *name = r->in[i].all_metrics ? m->name : NULL;
			const struct config_metric *by = NULL;
			struct raw_metric *rm;
			size_t idx;

			for (k = 0; k < r->cfg.nmetrics; k++) {
				const struct config_metric *cm = &r->cfg.metrics[k];

				if (cm->file && config_metric_selects(cm,
						r->in[i].path, m->name, j)) {
					name = cm->select ? cm->name : m->name;
					by = cm->select ? cm : NULL;
				}
			}
			maps[i][j] = -1;
			if (!name || attribute(m->name))
				continue;
			idx = metrics_raw(&r->e->metrics, name, m->description,
					  m->flags[2] == 1);
			if (by)
				metrics_set_display(&r->e->metrics, idx,
						    by->display_name);
			maps[i][j] = (int)idx;
			rm = &r->e->metrics.raw[idx];
			rm->nsamples += m->nsamples;
			rm->period = m->period;
			rm->nthreads++;
		}
	}
	return maps;
}

struct resolve_arg {
	struct metrics *m;
};

static struct formula *resolve_metric(void *arg, const char *name)
{
	struct resolve_arg *a = arg;
	size_t i;
	long raw;

	for (i = 0; i < a->m->nderived; i++)
		if (!strcmp(a->m->derived[i].name, name))
			return formula_copy(a->m->derived[i].f);
	raw = metrics_find(a->m, name);
	if (raw < 0 && name[0] == '$') {
		char *end;
		unsigned long n = strtoul(name + 1, &end, 10);

		if (!*end && n < a->m->nraw)
			raw = (long)n;
	}
	return raw >= 0 ? formula_raw((size_t)raw) : NULL;
}

static int add_derived(struct metrics *m, const char *name,
		       const char *display, const char *text, int show,
		       int percent)
{
	struct resolve_arg a = { m };
	struct formula *f = formula_parse(text, resolve_metric, &a);
	struct derived_metric *d;

	if (!f)
		return -1;
	HPC_GROW(m->derived, m->nderived + 1, m->derived_alloc);
	d = &m->derived[m->nderived++];
	d->name = xstrdup(name);
	d->display = display && display[0] ? xstrdup(display) : NULL;
	d->text = xstrdup(text);
	d->f = f;
	d->show = show;
	d->percent = percent;
	return 0;
}

static int derived_metrics(struct run *r)
{
	struct metrics *m = &r->e->metrics;
	size_t i;

	for (i = 0; i < r->cfg.nmetrics; i++) {
		const struct config_metric *cm = &r->cfg.metrics[i];

		if (cm->compute && add_derived(m, cm->name, cm->display_name,
					       cm->compute, cm->display,
					       cm->percent)) {
			hpc_error("%s: metric '%s': %s", r->o->config, cm->name,
				  hpc_lasterr());
			return -1;
		}
	}
	for (i = 0; i < r->o->nformulas; i++) {
		const char *eq = strchr(r->o->formulas[i], '=');
		char *name;
		int ret;

		if (!eq || eq == r->o->formulas[i]) {
			hpc_error("--metric '%s': expected NAME=FORMULA",
				  r->o->formulas[i]);
			return -1;
		}
		name = xstrndup(r->o->formulas[i],
				(size_t)(eq - r->o->formulas[i]));
		ret = add_derived(m, name, NULL, eq + 1, 1, 1);
		if (ret)
			hpc_error("--metric '%s': %s", name, hpc_lasterr());
		free(name);
		if (ret)
			return -1;
	}
	return 0;
}

/*
 * Reads every profile's header, load map and metrics (parallel.h; the
 * CCTs are read again when they are added).  All belong to the
 * experiment, whatever program they measured (a process tree: make and
 * its compilers, a program and what it runs through system()): each is
 * registered with its program, then its modules, in profile order.
 * And each capability's files beside each, read on the same threads
 * (r->any[c] set when there is one).
 */
/* Each capability's structures of pseudo modules, from its side files
 * (capability.h: structures). */
static void pseudo_structures(struct run *r)
{
	size_t n = r->nin ? r->nin : 1, i, c;
	const struct hpcrun_profile **profiles = xcalloc(n, sizeof(*profiles));
	void **sides = xcalloc(n, sizeof(*sides));

	for (c = 0; c < NCAPS; c++) {
		if (!prof_capabilities[c]->structures)
			continue;
		for (i = 0; i < r->nin; i++) {
			profiles[i] = r->in[i].p;
			sides[i] = r->in[i].side[c];
		}
		prof_capabilities[c]->structures(r->cap[c], r->e, profiles,
						 sides, r->nin);
	}
	free(profiles);
	free(sides);
}

static void read_profiles(struct run *r)
{
	size_t n = r->nin ? r->nin : 1, i, c;
	const char **paths = xcalloc(n, sizeof(*paths));
	struct hpcrun_profile **out = xcalloc(n, sizeof(*out));
	char **err = xcalloc(n, sizeof(*err));
	void **side = xcalloc(n * NCAPS, sizeof(*side));
	char **side_err = xcalloc(n * NCAPS, sizeof(*side_err));

	for (i = 0; i < r->nin; i++)
		paths[i] = r->in[i].path;
	par_read_heads(paths, r->nin, r->jobs, out, err, side, side_err);
	steptime_mark("read profile headers, sync and sharing files");
	for (i = 0; i < r->nin; i++) {
		r->in[i].p = out[i];
		if (!out[i]) {
			hpc_warn("%s; skipping it", err[i]);
			r->status = 1;
			free(err[i]);
			continue;
		}
		experiment_add_program(r->e, r->in[i].p);
		for (c = 0; c < NCAPS; c++) {
			r->in[i].side[c] = side[i * NCAPS + c];
			if (side_err[i * NCAPS + c]) {
				hpc_warn("%s; %s", side_err[i * NCAPS + c],
					 prof_capabilities[c]->ignored);
				r->status = 1;
			}
			r->any[c] |= r->in[i].side[c] != NULL;
			free(side_err[i * NCAPS + c]);
		}
	}
	free(side);
	free(side_err);
	pseudo_structures(r);
	for (i = 0; i < r->nin; i++) {
		char *dir;

		if (!r->in[i].p)
			continue;
		dir = dir_of(r->in[i].path);
		experiment_register(r->e, r->in[i].p, dir);
		free(dir);
	}
	experiment_check_modules(r->e);
	steptime_mark("register profiles");
	if (experiment_partial_structures(r->e)) {
		for (i = 0; i < r->nin; i++) {
			struct hpcrun_profile *p;

			if (!r->in[i].p)
				continue;
			p = hpcrun_fmt_read(r->in[i].path);
			if (p)	/* unreadable: said when it is correlated */
				experiment_want_profile(r->e, p);
			hpcrun_profile_free(p);
		}
		steptime_mark("sampled addresses (indexed structure files)");
	}
	if (experiment_load_structures(r->e)) {
		hpc_warn("%s; structure file ignored", hpc_lasterr());
		r->status = 1;
	}
	steptime_mark("load structure files");
	free(paths);
	free(out);
	free(err);
}

/* How the code of a module without a structure file was attributed. */
enum { FB_DWARF, FB_SYMBOLS, FB_NO_BINARY, NFB };

static const char *const fb_what[NFB] = {
	"no structure file; line-level attribution from DWARF only (no loops)",
	"no structure file and no DWARF; procedures from symbols only",
	"binary not found; keeping addresses",
};

static const char *const fb_summary[NFB] = {
	"from DWARF lines only (no loops)", "from symbols only",
	"binaries not found (addresses kept)",
};

/*
 * Warns about the modules whose attribution is degraded: build-ID and
 * kernel-symbol problems one line each; the modules attributed without a
 * structure file by name when there is one, else in one summary line (an
 * MPI run has dozens; experiment.xml's Info names each).
 */
static void notices(struct run *r)
{
	const struct module *one[NFB] = { NULL };
	size_t count[NFB] = { 0 }, total = 0, i;
	struct strbuf names = STRBUF_INIT;
	int k;

	for (i = 0; i < r->e->nmodules; i++) {
		const struct module *m = r->e->modules[i];

		if (m->mismatch) {
			hpc_warn("'%s': build ID differs from the measured one "
				 "(measured %s, on disk %s); using addresses "
				 "only", m->file, m->measured, m->on_disk);
			continue;
		}
		if (m->rejected)
			hpc_warn("'%s': structure file '%s' describes '%s', "
				 "whose build ID differs from the measured one "
				 "(measured %s, on disk %s); structure file "
				 "ignored", m->path, m->rejected,
				 m->rejected_binary, m->measured, m->on_disk);
		if (!m->fb || m->source == MODULE_STRUCTFILE ||
		    !strcmp(m->path, PLACEHOLDERS_PATH) ||
		    fallback_is_python(m->fb))	/* said by python.c */
			continue;
		if (m->source == MODULE_DWARF)
			k = FB_DWARF;
		else if (fallback_error(m->fb)) {
			hpc_warn("%s; keeping addresses",
				 fallback_error(m->fb));
			continue;
		} else if (fallback_has_kallsyms(m->fb)) {
			hpc_warn("'%s': kernel symbols only (no lines)",
				 m->path);
			continue;
		} else if (!fallback_has_binary(m->fb))
			k = FB_NO_BINARY;
		else
			k = FB_SYMBOLS;
		one[k] = m;
		count[k]++;
		if (total < 3)
			strbuf_addf(&names, "%s%s", total ? ", " : "",
				    base_name(m->path));
		total++;
	}
	if (total == 1) {
		for (k = 0; k < NFB; k++)
			if (count[k])
				hpc_warn("'%s': %s", one[k]->path, fb_what[k]);
	} else if (total > 1) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%zu modules without a structure file (%s",
			    total, names.buf);
		if (total > 3)
			strbuf_addf(&sb, " and %zu more", total - 3);
		strbuf_addstr(&sb, "):");
		for (k = 0; k < NFB; k++)
			if (count[k])
				strbuf_addf(&sb, "%s %zu %s",
					    sb.buf[sb.len - 1] == ':' ? "" : ",",
					    count[k], fb_summary[k]);
		hpc_warn("%s; 'hpcstruct MEASUREMENT-DIR' adds loops",
			 sb.buf);
		strbuf_release(&sb);
	}
	strbuf_release(&names);
}

/* The "program NAME" of dir's launch marker (hpcrun(5)), or NULL;
 * caller frees. */
static char *marker_program(const char *dir)
{
	struct strbuf path = STRBUF_INIT;
	char line[512], *prog = NULL;
	struct stat st;
	FILE *f = NULL;

	strbuf_addf(&path, "%s/.hpcrun-launch", dir);
	if (!stat(path.buf, &st) && S_ISREG(st.st_mode))
		f = fopen(path.buf, "r");
	strbuf_release(&path);
	while (f && !prog && fgets(line, sizeof(line), f))
		if (!strncmp(line, "program ", 8) && strcspn(line + 8, "\n"))
			prog = xstrndup(line + 8, strcspn(line + 8, "\n"));
	if (f)
		fclose(f);
	return prog;
}

/*
 * The program hpcrun launched, for the one measurement directory given:
 * its launch marker's program, else from the directory's name
 * hpctoolkit-PROG-measurements, or -measurements-N when hpcrun found the
 * name taken (*suffix "-N", else "").  NULL when the inputs are not one
 * such directory.  Caller frees both.
 */
static char *launched_program(const struct run *r, char **suffix)
{
	static const char head[] = "hpctoolkit-", tail[] = "-measurements";
	const char *base, *t, *end;
	struct stat st;
	char *dir, *prog = NULL, *marked;

	*suffix = NULL;
	if (r->o->ninputs != 1 || stat(r->o->inputs[0], &st) ||
	    !S_ISDIR(st.st_mode))
		return NULL;
	dir = without_slashes(r->o->inputs[0]);
	base = base_name(dir);
	end = base + strlen(base);
	if (strncmp(base, head, sizeof(head) - 1))
		goto out;
	for (t = end - (sizeof(tail) - 1); t > base + sizeof(head) - 1; t--)
		if (!strncmp(t, tail, sizeof(tail) - 1) &&
		    (!t[sizeof(tail) - 1] ||
		     (t[sizeof(tail) - 1] == '-' && t[sizeof(tail)] &&
		      strspn(t + sizeof(tail), "0123456789") ==
		      strlen(t + sizeof(tail)))))
			break;
	if (t <= base + sizeof(head) - 1)
		goto out;
	prog = xstrndup(base + sizeof(head) - 1,
			(size_t)(t - base - (sizeof(head) - 1)));
	*suffix = xstrdup(t + sizeof(tail) - 1);
out:
	marked = marker_program(dir);
	if (marked) {
		free(prog);
		prog = marked;
	}
	free(dir);
	return prog;
}

/*
 * Names the experiment for the program hpcrun launched (else the first
 * profile's program) and returns the database path: -o, else
 * hpctoolkit-PROG-database (with the measurement directory's -N).
 */
static char *name_experiment(struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	char *suffix, *launched = launched_program(r, &suffix);
	const char *prog;

	if (launched) {
		free(r->e->program);
		r->e->program = launched;
	}
	if (!r->e->program && r->e->nprograms)
		r->e->program = xstrdup(r->e->programs[0].name);
	if (r->o->output) {
		free(suffix);
		return without_slashes(r->o->output);
	}
	prog = r->e->program ? r->e->program : "unknown";
	strbuf_addf(&sb, "hpctoolkit-%s-database%s", base_name(prog),
		    suffix ? suffix : "");
	free(suffix);
	return strbuf_detach(&sb, NULL);
}

static int load_config(struct run *r)
{
	size_t i, first;

	if (!r->o->config)
		return 0;
	if (config_read(r->o->config, &r->cfg)) {
		hpc_error("%s", hpc_lasterr());
		return -1;
	}
	for (i = 0; i < r->cfg.nstructures; i++)
		add_struct(r, r->cfg.structures[i], 1);
	for (i = 0; i < r->cfg.nmetrics; i++)
		if (r->cfg.metrics[i].file &&
		    add_input(r, r->cfg.metrics[i].file, 0, &first) < 0)
			return -1;
	return 0;
}

static void source_paths(struct run *r, struct source_paths *sp,
			 struct strbuf *tmp)
{
	size_t i, n = r->o->nreplace + r->cfg.nreplace;

	memset(sp, 0, sizeof(*sp));
	sp->include = xcalloc(r->o->ninclude + r->cfg.npaths + 1,
			      sizeof(char *));
	for (i = 0; i < r->o->ninclude; i++)
		sp->include[sp->ninclude++] = r->o->include[i];
	for (i = 0; i < r->cfg.npaths; i++)
		sp->include[sp->ninclude++] = r->cfg.paths[i];
	sp->from = xcalloc(n + 1, sizeof(char *));
	sp->to = xcalloc(n + 1, sizeof(char *));
	for (i = 0; i < r->o->nreplace; i++) {
		const char *eq = strchr(r->o->replace[i], '=');

		if (!eq) {
			hpc_warn("-R '%s': expected FROM=TO; ignored",
				 r->o->replace[i]);
			continue;
		}
		strbuf_add(&tmp[sp->nreplace], r->o->replace[i],
			   (size_t)(eq - r->o->replace[i]));
		sp->from[sp->nreplace] = tmp[sp->nreplace].buf;
		sp->to[sp->nreplace++] = eq + 1;
	}
	for (i = 0; i < r->cfg.nreplace; i++) {
		sp->from[sp->nreplace] = r->cfg.replace_from[i];
		sp->to[sp->nreplace++] = r->cfg.replace_to[i];
	}
}

/* Says where the database went and what it holds, on stderr. */
static void said_written(const struct run *r, const char *out)
{
	struct strbuf sb = STRBUF_INIT;

	report_counts(r->e, &sb);
	fprintf(stderr, "%s: wrote '%s' (%s, %zu scope%s)\n", hpc_progname(),
		out, sb.buf, r->e->nnodes, r->e->nnodes == 1 ? "" : "s");
	strbuf_release(&sb);
}

/* "host:pid" of a profile, the process its thread ran in. */
static void process_key(const struct hpcrun_profile *p, struct strbuf *sb)
{
	const char *pid = hpcrun_profile_header(p, "process-id");
	const char *host = hpcrun_profile_header(p, "host-id");

	strbuf_addf(sb, "%s:%s", host ? host : "", pid ? pid : "");
}

/* Profile in's row of threads.tsv: each capability's columns. */
static void thread_row(struct run *r, struct database *db, size_t t,
		       struct input *in)
{
	struct strbuf cols = STRBUF_INIT;
	size_t c;

	for (c = 0; c < NCAPS; c++)
		if (prof_capabilities[c]->columns)
			prof_capabilities[c]->columns(r->cap[c], in->side[c],
						      &cols);
	if (db)
		database_thread(db, t, in->path, in->p,
				cols.len ? cols.buf : NULL);
	strbuf_release(&cols);
	hpcrun_profile_free(in->p);
	in->p = NULL;
}

/* The profiles to add (struct prof_input), as many as *n, with their
 * process keys in proc; caller frees both, proc with strbuf_release. */
static struct prof_input *inputs(struct run *r, int **maps,
				 struct strbuf *proc, size_t *n)
{
	struct prof_input *todo = xcalloc(r->nin ? r->nin : 1,
					  sizeof(*todo));
	size_t i;

	*n = 0;
	for (i = 0; i < r->nin; i++) {
		if (!r->in[i].p)
			continue;
		process_key(r->in[i].p, &proc[i]);
		todo[*n].path = r->in[i].path;
		todo[*n].map = maps[i];
		todo[*n].side = r->in[i].side;
		todo[(*n)++].proc = proc[i].buf;
	}
	return todo;
}

/*
 * Measurements whose data trees par_correlate (or hpcprof-mpi) cannot
 * merge (PAR_ONE_THREAD) are correlated on this thread, profile by
 * profile into e itself, by the same per-thread driver as the workers
 * (prof_thread_add), saying what each says at once.  Each thread's row
 * goes to db.  Returns the number of profiles whose messages make the
 * exit status 1.
 */
static long correlate_one_thread(struct run *r, struct database *db,
				 const struct prof_input *todo)
{
	long failed = 0;
	size_t i, used = 0;

	for (i = 0; i < r->nin; i++) {
		struct input *in = &r->in[i];
		struct prof_said said = { 0 };

		if (!in->p)
			continue;
		prof_thread_add(r->e, used, &todo[used], &said);
		if (said.err)
			r->e->nthreads = used + 1;
		failed += prof_thread_say(&said, in->side);
		thread_row(r, db, used++, in);
	}
	return failed;
}

/*
 * The profiles correlated on par_correlate's workers (or r->o->correlate,
 * hpcprof-mpi's), each thread's row then to db (NULL: hpcprof-mpi's other
 * ranks, none); else, when their data trees cannot be merged, on this
 * thread into db.  Returns what par_correlate does.
 */
static long correlate(struct run *r, struct database *db, int **maps)
{
	struct strbuf *proc = xcalloc(r->nin ? r->nin : 1, sizeof(*proc));
	struct prof_input *todo;
	size_t i, n, used = 0;
	long failed;

	for (i = 0; i < NCAPS; i++)	/* capability.h, invariant 2 */
		if (!prof_capabilities[i]->read || r->any[i])
			r->e->cap[i] = r->cap[i];
	for (i = 0; i < r->nin; i++)
		strbuf_init(&proc[i]);
	todo = inputs(r, maps, proc, &n);
	failed = (r->o->correlate ? r->o->correlate : par_correlate)(
		r->e, todo, n, r->jobs);
	if (failed == PAR_ONE_THREAD && db) {
		failed = correlate_one_thread(r, db, todo);
		experiment_merge_fallbacks(r->e, r->e);
		steptime_mark("correlate (one thread)");
	} else if (failed != PAR_ONE_THREAD) {
		for (i = 0; i < r->nin; i++)
			if (r->in[i].p)
				thread_row(r, db, used++, &r->in[i]);
	}
	for (i = 0; i < r->nin; i++)
		strbuf_release(&proc[i]);
	free(proc);
	free(todo);
	return failed;
}

/* Each capability's columns of threads.tsv ("\tNAME..."), or NULL; caller
 * frees. */
static char *thread_columns(const struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t c;

	for (c = 0; c < NCAPS; c++)
		if (prof_capabilities[c]->thread_columns &&
		    prof_capabilities[c]->thread_columns(r->cap[c]))
			strbuf_addstr(&sb, prof_capabilities[c]->thread_columns(
						   r->cap[c]));
	return sb.len ? strbuf_detach(&sb, NULL) : NULL;
}

/* Each capability's tables, the last one's first (capability.h,
 * invariant 1): 0, or -1 with hpc_lasterr(). */
static int finish(struct run *r, struct database *db)
{
	size_t c;

	for (c = NCAPS; c-- > 0;)
		if (prof_capabilities[c]->finish &&
		    prof_capabilities[c]->finish(r->cap[c], r->e, db, r->jobs))
			return -1;
	return 0;
}

static int correlate_and_write(struct run *r)
{
	struct source_paths sp;
	struct strbuf *tmp;
	struct database *db;
	char *out, *aside = NULL;
	FILE *report;
	char *columns;
	int **maps, ret = 0;
	size_t i;
	long failed;
	const char *title;

	maps = map_metrics(r);
	for (i = 0; i < NCAPS; i++)
		if (prof_capabilities[i]->metrics)
			prof_capabilities[i]->metrics(r->cap[i], r->e,
						      r->any[i]);
	if (r->o->reader_only) {
		if (correlate(r, NULL, maps) == -1)
			ret = -1;
		goto out_maps;
	}
	if (derived_metrics(r)) {
		ret = -1;
		goto out_maps;
	}
	out = name_experiment(r);
	report = r->o->text ? report_open(r->o->text) : NULL;
	columns = thread_columns(r);
	db = report || !r->o->text ? database_create(out, r->e, columns)
				   : NULL;
	free(columns);
	if (!db) {
		hpc_error("%s", hpc_lasterr());
		report_close(report, r->o->text);
		free(out);
		ret = -1;
		goto out_maps;
	}
	database_set_jobs(db, r->jobs);
	steptime_mark("metrics and database set up");
	failed = correlate(r, db, maps);
	if (failed < 0 || database_values_flush(db)) {
		hpc_error("%s", hpc_lasterr());
		database_abort(db);
		report_close(report, r->o->text);
		free(out);
		ret = -1;
		goto out_maps;
	}
	if (failed)
		r->status = 1;
	if (!r->e->root->acc)
		hpc_warn("no samples in the measurements; the database is "
			 "empty");
	notices(r);
	tmp = xcalloc(r->o->nreplace + 1, sizeof(*tmp));
	for (i = 0; i <= r->o->nreplace; i++)
		strbuf_init(&tmp[i]);
	source_paths(r, &sp, tmp);
	title = r->cfg.title ? r->cfg.title
			     : r->e->program ? r->e->program : "unknown";
	if (finish(r, db)) {
		hpc_error("%s", hpc_lasterr());
		database_abort(db);
		ret = -1;
	} else {
		steptime_mark("phases and sharing tables");
		if (database_finish(db, title, &sp, r->o->config, &aside)) {
			hpc_error("%s", hpc_lasterr());
			ret = -1;
		}
		steptime_mark("write the database");
	}
	if (aside)
		fprintf(stderr, "%s: moved the previous '%s' to '%s'\n",
			hpc_progname(), out, aside);
	if (!ret)
		said_written(r, out);
	r->e->samples_taken = r->samples_taken;
	r->e->samples_in_hpcrun = r->samples_in_hpcrun;
	r->e->samples_recorded = r->samples_recorded;
	r->e->samples_partial = r->samples_partial;
	r->e->cpu_user_ns = r->cpu_user_ns;
	r->e->cpu_system_ns = r->cpu_system_ns;
	r->e->kernel_unmeasured_ns = r->kernel_unmeasured_ns;
	r->e->samples_kernel = r->samples_kernel;
	memcpy(r->e->kernel_why, r->kernel_why, sizeof(r->kernel_why));
	if (report && (ret ? report_close(report, r->o->text)
			   : report_write(r->e, r->cap, report, r->o->text,
					  r->o->top > 0 ? (size_t)r->o->top
							: 20))) {
		hpc_error("%s", hpc_lasterr());
		ret = -1;
	}
	if (report)
		steptime_mark("text report");
	for (i = 0; i <= r->o->nreplace; i++)
		strbuf_release(&tmp[i]);
	free(tmp);
	free(sp.include);
	free(sp.from);
	free(sp.to);
	free(out);
	free(aside);
out_maps:
	for (i = 0; i < r->nin; i++)
		free(maps[i]);
	free(maps);
	return ret;
}

int hpcprof_args_apply(struct hpcprof_options *o,
		       const struct hpcprof_args *a, char **inputs, int n)
{
	struct stat st;
	long jobs = 0;
	size_t i;

	if (a->jobs) {
		char *end;

		errno = 0;
		jobs = strtol(a->jobs, &end, 10);
		if (errno || end == a->jobs || *end || jobs < 1 ||
		    jobs > 1024) {
			hpc_error("-j '%s': expected a number of threads from "
				  "1 to 1024", a->jobs);
			return -1;
		}
	}
	for (i = 0; i < a->incdirs.n; i++) {
		if (stat(a->incdirs.v[i], &st)) {
			hpc_error("-I '%s': %s", a->incdirs.v[i],
				  strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			hpc_error("-I '%s': not a directory", a->incdirs.v[i]);
			return -1;
		}
	}
	o->jobs = (unsigned)jobs;
	o->inputs = (const char *const *)inputs;
	o->ninputs = (size_t)n;
	o->structs = a->structs.v;
	o->nstructs = a->structs.n;
	o->include = a->incdirs.v;
	o->ninclude = a->incdirs.n;
	o->replace = a->replace.v;
	o->nreplace = a->replace.n;
	o->formulas = a->metrics.v;
	o->nformulas = a->metrics.n;
	return 0;
}

void hpcprof_args_release(struct hpcprof_args *a)
{
	strlist_release(&a->structs);
	strlist_release(&a->incdirs);
	strlist_release(&a->replace);
	strlist_release(&a->metrics);
}

int hpcprof_run(const struct hpcprof_options *o)
{
	struct run r;
	size_t i, c, first, nprofiles = 0, ngiven_lms = 0;

	/*
	 * Every thread allocates and frees a profile's worth of memory per
	 * profile (its file, nodes and values).  malloc keeps it for the
	 * next one rather than mapping and unmapping it each time: the page
	 * faults of fresh mappings serialize the threads and each unmapping
	 * interrupts them all (a TLB shootdown).  32 MB is glibc's largest
	 * threshold; larger blocks are mapped as before.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	/* Past a file-size limit a write fails with EFBIG and hpcprof names
	 * the file, rather than dying of SIGXFSZ without a word. */
	signal(SIGXFSZ, SIG_IGN);
	memset(&r, 0, sizeof(r));
	r.o = o;
	for (c = 0; c < NCAPS; c++)
		if (prof_capabilities[c]->new)
			r.cap[c] = prof_capabilities[c]->new(o);
	r.jobs = o->jobs ? o->jobs : par_default_threads();
	r.seen = hmap_new();
	r.e = experiment_new();
	r.e->metrics.stats = o->stats;
	steptime_mark(NULL);
	for (i = 0; i < o->ninputs; i++) {
		long n = add_input(&r, o->inputs[i], 1, &first);

		if (n < 0)
			r.status = 1;
	}
	for (i = 0; i < o->nstructs; i++)
		add_struct(&r, o->structs[i], 1);
	steptime_mark("find the inputs");
	if (load_config(&r) == 0) {
		for (i = 0; i < r.nstructs; i++) {
			if (i == r.ngiven)
				ngiven_lms = r.e->nstructs;
			if (experiment_add_structfile(r.e, r.structs[i])) {
				hpc_warn("%s; structure file ignored",
					 hpc_lasterr());
				r.status = 1;
			}
		}
		prefer_given(&r, r.ngiven < r.nstructs ? ngiven_lms
						       : r.e->nstructs);
		steptime_mark("open structure files");
		read_profiles(&r);
		for (i = 0; i < r.nin; i++)
			nprofiles += r.in[i].p != NULL;
		if (!nprofiles && r.nin) {
			hpc_error("no readable profiles");
			r.status = 1;
		} else if (!r.nin) {
			hpc_error("no profiles found in the inputs given");
			r.status = 1;
		} else if (correlate_and_write(&r)) {
			r.status = 1;
		}
	} else {
		r.status = 1;
	}
	for (i = 0; i < r.nin; i++) {
		hpcrun_profile_free(r.in[i].p);
		for (c = 0; c < NCAPS; c++)
			if (r.in[i].side[c])
				prof_capabilities[c]->side_free(
					r.in[i].side[c]);
		free(r.in[i].path);
	}
	free(r.in);
	for (i = 0; i < r.nstructs; i++)
		free(r.structs[i]);
	free(r.structs);
	hmap_free(r.seen);
	config_release(&r.cfg);
	experiment_free(r.e);
	for (c = NCAPS; c-- > 0;)
		if (r.cap[c])
			prof_capabilities[c]->free(r.cap[c]);
	return r.status;
}
