/* run.c - see run.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cct.h"
#include "config.h"
#include "database.h"
#include "dwarf-fallback.h"
#include "error.h"
#include "formula.h"
#include "hashmap.h"
#include "report.h"
#include "run.h"
#include "strbuf.h"

/* One profile to read, and which of its metrics to take under what name. */
struct input {
	char *path;
	int all_metrics;		/* named on the command line */
	struct hpcrun_profile *p;
};

struct run {
	const struct hpcprof_options *o;
	struct config cfg;
	struct input *in;	size_t nin, in_alloc;
	struct hmap *seen;	/* profile path -> input index + 1 */
	char **structs;		size_t nstructs, structs_alloc;
	struct experiment *e;
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

static void add_struct(struct run *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->nstructs; i++)
		if (!strcmp(r->structs[i], path))
			return;
	HPC_GROW(r->structs, r->nstructs + 1, r->structs_alloc);
	r->structs[r->nstructs++] = xstrdup(path);
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
	if (stat(path, &st)) {
		hpc_error("'%s': %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		add_profile(r, path)->all_metrics |= all_metrics;
		*first = hmap_get_str(r->seen, path) ?
			 (uintptr_t)hmap_get_str(r->seen, path) - 1 : *first;
		return 1;
	}
	v = list_dir(path, ".hpcrun", &n);
	for (i = 0; i < n; i++) {
		add_profile(r, v[i])->all_metrics |= all_metrics;
		free(v[i]);
	}
	free(v);
	if (n == 0)
		hpc_warn("'%s': no .hpcrun profiles in this directory", path);
	{
		struct strbuf sd = STRBUF_INIT;
		char **sv;
		size_t ns;

		strbuf_addf(&sd, "%s/structs", path);
		sv = list_dir(sd.buf, ".hpcstruct", &ns);
		for (i = 0; i < ns; i++) {
			add_struct(r, sv[i]);
			free(sv[i]);
		}
		free(sv);
		strbuf_release(&sd);
	}
	return (long)n;
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
			struct raw_metric *rm;
			size_t idx;

			for (k = 0; k < r->cfg.nmetrics; k++) {
				const struct config_metric *cm = &r->cfg.metrics[k];

				if (cm->file && config_metric_selects(cm,
						r->in[i].path, m->name, j))
					name = cm->select ? cm->name : m->name;
			}
			maps[i][j] = -1;
			if (!name)
				continue;
			idx = metrics_raw(&r->e->metrics, name, m->description,
					  m->flags[2] == 1);
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

static int add_derived(struct metrics *m, const char *name, const char *text,
		       int show, int percent)
{
	struct resolve_arg a = { m };
	struct formula *f = formula_parse(text, resolve_metric, &a);
	struct derived_metric *d;

	if (!f)
		return -1;
	HPC_GROW(m->derived, m->nderived + 1, m->derived_alloc);
	d = &m->derived[m->nderived++];
	d->name = xstrdup(name);
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

		if (cm->compute && add_derived(m, cm->name, cm->compute,
					       cm->display, cm->percent)) {
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
		ret = add_derived(m, name, eq + 1, 1, 1);
		if (ret)
			hpc_error("--metric '%s': %s", name, hpc_lasterr());
		free(name);
		if (ret)
			return -1;
	}
	return 0;
}

static void read_profiles(struct run *r)
{
	const char *program = NULL, *first = NULL;
	size_t i;

	for (i = 0; i < r->nin; i++) {
		const char *name;

		r->in[i].p = hpcrun_fmt_read(r->in[i].path);
		if (!r->in[i].p) {
			hpc_warn("%s; skipping it", hpc_lasterr());
			r->status = 1;
			continue;
		}
		name = hpcrun_profile_header(r->in[i].p, "program-name");
		if (!name)
			name = "";
		if (!program) {
			program = name;
			first = r->in[i].path;
		} else if (strcmp(program, name)) {
			hpc_warn("'%s': profile of program '%s', not '%s' (as "
				 "'%s'); skipping it", r->in[i].path, name,
				 program, first);
			hpcrun_profile_free(r->in[i].p);
			r->in[i].p = NULL;
			r->status = 1;
		}
	}
}

static void notices(struct run *r)
{
	size_t i;

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
		if (!m->fb || m->source == MODULE_STRUCTFILE)
			continue;
		if (m->source == MODULE_DWARF)
			hpc_warn("'%s': no structure file; line-level "
				 "attribution from DWARF only (no loops)",
				 m->path);
		else if (fallback_kallsyms_error(m->fb))
			hpc_warn("%s; keeping addresses",
				 fallback_kallsyms_error(m->fb));
		else if (fallback_has_kallsyms(m->fb))
			hpc_warn("'%s': kernel symbols only (no lines)",
				 m->path);
		else if (!fallback_has_binary(m->fb) &&
			 strcmp(m->path, "<placeholders>"))
			hpc_warn("'%s': binary not found; keeping addresses",
				 m->path);
		else if (strcmp(m->path, "<placeholders>"))
			hpc_warn("'%s': no structure file and no DWARF; "
				 "procedures from symbols only", m->path);
	}
}

static char *default_output(const struct run *r)
{
	struct strbuf sb = STRBUF_INIT;
	const char *prog = r->e->program ? r->e->program : "unknown";
	const char *slash = strrchr(prog, '/');

	strbuf_addf(&sb, "hpctoolkit-%s-database", slash ? slash + 1 : prog);
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
		add_struct(r, r->cfg.structures[i]);
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

static int correlate_and_write(struct run *r)
{
	struct source_paths sp;
	struct strbuf *tmp;
	struct database *db;
	char *out;
	int **maps, ret = 0;
	size_t i, used = 0;
	const char *title;

	maps = map_metrics(r);
	if (derived_metrics(r)) {
		ret = -1;
		goto out_maps;
	}
	for (i = 0; i < r->nin && !r->e->program; i++)
		if (r->in[i].p &&
		    hpcrun_profile_header(r->in[i].p, "program-name"))
			r->e->program = xstrdup(hpcrun_profile_header(
				r->in[i].p, "program-name"));
	out = r->o->output ? xstrdup(r->o->output) : default_output(r);
	db = database_create(out, r->e);
	if (!db) {
		hpc_error("%s", hpc_lasterr());
		free(out);
		ret = -1;
		goto out_maps;
	}
	for (i = 0; i < r->nin; i++) {
		char *dir;

		if (!r->in[i].p)
			continue;
		database_thread(db, used++, r->in[i].path, r->in[i].p);
		dir = dir_of(r->in[i].path);
		experiment_add_profile(r->e, r->in[i].p, maps[i], dir);
		free(dir);
		hpcrun_profile_free(r->in[i].p);
		r->in[i].p = NULL;
	}
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
	if (database_finish(db, title, &sp, r->o->config)) {
		hpc_error("%s", hpc_lasterr());
		ret = -1;
	}
	if (!ret && r->o->text &&
	    report_write(r->e, r->o->text, r->o->top > 0 ? (size_t)r->o->top
							 : 20)) {
		hpc_error("%s", hpc_lasterr());
		ret = -1;
	}
	if (!ret && !r->o->text)
		fprintf(stderr, "%s: wrote '%s' (%zu threads, %zu scopes)\n",
			hpc_progname(), out, r->e->nthreads, r->e->nnodes);
	for (i = 0; i <= r->o->nreplace; i++)
		strbuf_release(&tmp[i]);
	free(tmp);
	free(sp.include);
	free(sp.from);
	free(sp.to);
	free(out);
out_maps:
	for (i = 0; i < r->nin; i++)
		free(maps[i]);
	free(maps);
	return ret;
}

int hpcprof_run(const struct hpcprof_options *o)
{
	struct run r;
	size_t i, first, nprofiles = 0;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.seen = hmap_new();
	r.e = experiment_new();
	for (i = 0; i < o->ninputs; i++) {
		long n = add_input(&r, o->inputs[i], 1, &first);

		if (n < 0)
			r.status = 1;
	}
	if (load_config(&r) == 0) {
		for (i = 0; i < o->nstructs; i++)
			add_struct(&r, o->structs[i]);
		for (i = 0; i < r.nstructs; i++)
			if (experiment_add_structfile(r.e, r.structs[i])) {
				hpc_warn("%s; structure file ignored",
					 hpc_lasterr());
				r.status = 1;
			}
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
		free(r.in[i].path);
	}
	free(r.in);
	for (i = 0; i < r.nstructs; i++)
		free(r.structs[i]);
	free(r.structs);
	hmap_free(r.seen);
	config_release(&r.cfg);
	experiment_free(r.e);
	return r.status;
}
