/* database.c - see database.h and man/hpcprof-database.5. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "database.h"
#include "error.h"
#include "formula.h"
#include "strbuf.h"
#include "xmlw.h"

struct database {
	char *dir;
	struct experiment *e;
	FILE *values;		/* thread-values.tsv */
	FILE *threads;		/* threads.tsv */
	char **file_names;	/* FileTable n= per file index */
};

static void thread_value(void *arg, uint32_t thread, const struct node *n,
			 size_t raw, int ie, double v)
{
	struct database *db = arg;
	size_t col = metrics_column(&db->e->metrics, raw, STAT_SUM, ie);

	/* Most values are counts: print integers without %g's cost. */
	if (v == (double)(int64_t)v && v < 9007199254740992.0 &&
	    v > -9007199254740992.0)
		fprintf(db->values, "%" PRIu32 "\t%" PRIu32 "\t%zu\t%" PRId64
			"\n", n->id, thread, col, (int64_t)v);
	else
		fprintf(db->values, "%" PRIu32 "\t%" PRIu32 "\t%zu\t%.17g\n",
			n->id, thread, col, v);
}

static FILE *create_file(const char *dir, const char *name)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;
	int fd;

	strbuf_addf(&p, "%s/%s", dir, name);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_EXCL, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		hpc_seterr("'%s': %s", p.buf, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	strbuf_release(&p);
	return f;
}

struct database *database_create(const char *dir, struct experiment *e)
{
	struct database *db;

	if (mkdir(dir, 0755)) {
		if (errno == EEXIST)
			hpc_seterr("'%s': database directory exists (remove it or "
				   "use -o)", dir);
		else
			hpc_seterr("'%s': %s", dir, strerror(errno));
		return NULL;
	}
	db = xcalloc(1, sizeof(*db));
	db->dir = xstrdup(dir);
	db->e = e;
	db->values = create_file(dir, "thread-values.tsv");
	db->threads = db->values ? create_file(dir, "threads.tsv") : NULL;
	if (!db->threads) {
		database_abort(db);
		return NULL;
	}
	fprintf(db->values, "# node\tthread\tmetric\tvalue\n");
	fprintf(db->threads, "# thread\tprofile\tidentity\n");
	e->thread_cb = thread_value;
	e->thread_arg = db;
	return db;
}

void database_thread(struct database *db, size_t t, const char *path,
		     const struct hpcrun_profile *p)
{
	const char *slash = strrchr(path, '/');
	uint16_t i;

	fprintf(db->threads, "%zu\t%s\t", t, slash ? slash + 1 : path);
	for (i = 0; i < p->nidtuple; i++) {
		const struct hpcrun_id_elem *el = &p->idtuple[i];
		uint16_t k, kind = el->kind & 0x3fff;
		const char *name = "?";

		for (k = 0; k < p->nidkinds; k++)
			if (p->idkinds[k].kind == kind)
				name = p->idkinds[k].name;
		fprintf(db->threads, "%s%s=%" PRIu64, i ? " " : "", name,
			el->logical);
	}
	fputc('\n', db->threads);
}

void database_abort(struct database *db)
{
	size_t i;

	if (!db)
		return;
	if (db->values)
		fclose(db->values);
	if (db->threads)
		fclose(db->threads);
	if (db->e)
		db->e->thread_cb = NULL;
	if (db->file_names)
		for (i = 0; i < db->e->files.n; i++)
			free(db->file_names[i]);
	free(db->file_names);
	free(db->dir);
	free(db);
}

/* Shortest text that reads back as the same double. */
static void fmt_double(char *buf, size_t len, double d)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
}

static void write_values(struct xmlw *w, const struct metrics *m,
			 const struct accum *a)
{
	size_t c, n = metrics_ncolumns(m);
	char buf[40];
	double v;

	for (c = 0; c < n; c++) {
		if (!metrics_value(m, a, c, &v))
			continue;
		fmt_double(buf, sizeof(buf), v);
		xmlw_start(w, "M");
		xmlw_attrf(w, "n", "%zu", c);
		xmlw_attr(w, "v", buf);
		xmlw_end(w);
	}
}

static size_t sum_column(void *arg, size_t raw)
{
	const int *ie = arg;

	return (raw * NSTATS + STAT_SUM) * 2 + (size_t)*ie;
}

static void write_metric_table(struct xmlw *w, const struct metrics *m)
{
	size_t c, n = metrics_ncolumns(m);

	xmlw_start(w, "MetricTable");
	for (c = 0; c < n; c++) {
		char *name = metrics_column_name(m, c);
		long raw, derived;
		enum mstat s;
		int ie;

		metrics_column_info(m, c, &raw, &s, &ie, &derived);
		xmlw_start(w, "Metric");
		xmlw_attrf(w, "i", "%zu", c);
		xmlw_attr(w, "n", name);
		xmlw_attrf(w, "o", "%zu", c);
		if (raw >= 0) {
			const struct raw_metric *r = &m->raw[raw];

			xmlw_attr(w, "md", r->description);
			xmlw_attr(w, "v", s == STAT_SUM ? "derived-incr"
							: "final");
			xmlw_attrf(w, "es", "%" PRIu64, r->nsamples);
			xmlw_attrf(w, "ep", "%" PRIu64, r->period);
		} else {
			xmlw_attr(w, "md", m->derived[derived].text);
			xmlw_attr(w, "v", "derived");
		}
		xmlw_attr(w, "t", ie ? "exclusive" : "inclusive");
		xmlw_attrf(w, "partner", "%zu", c ^ 1);
		/* Statistics start hidden: viewers show them on request. */
		if (raw >= 0 && s != STAT_SUM)
			xmlw_attr(w, "show", "0");
		else if (raw < 0 && !m->derived[derived].show)
			xmlw_attr(w, "show", "0");
		else
			xmlw_attr(w, "show", "1");
		xmlw_attr(w, "show-percent",
			  (raw >= 0 && (s == STAT_SUM || s == STAT_MEAN)) ||
			  (raw < 0 && m->derived[derived].percent) ? "1" : "0");
		if (raw >= 0 && s == STAT_SUM) {
			xmlw_start(w, "MetricFormula");
			xmlw_attr(w, "t", "combine");
			xmlw_attrf(w, "frm", "sum($%zu, $%zu)", c, c);
			xmlw_end(w);
			xmlw_start(w, "MetricFormula");
			xmlw_attr(w, "t", "finalize");
			xmlw_attrf(w, "frm", "$%zu", c);
			xmlw_end(w);
		} else if (raw < 0) {
			struct strbuf sb = STRBUF_INIT;

			formula_print(&sb, m->derived[derived].f, sum_column,
				      &ie);
			xmlw_start(w, "MetricFormula");
			xmlw_attr(w, "t", "view");
			xmlw_attr(w, "frm", sb.buf);
			xmlw_end(w);
			strbuf_release(&sb);
		}
		xmlw_end(w);
		free(name);
	}
	xmlw_end(w);
}

static void write_tables(struct database *db, struct xmlw *w)
{
	const struct experiment *e = db->e;
	size_t i;

	write_metric_table(w, &e->metrics);
	xmlw_start(w, "LoadModuleTable");
	for (i = 0; i < e->lms.n; i++) {
		xmlw_start(w, "LoadModule");
		xmlw_attrf(w, "i", "%zu", i);
		xmlw_attr(w, "n", e->lms.names[i]);
		xmlw_end(w);
	}
	xmlw_end(w);
	xmlw_start(w, "FileTable");
	for (i = 0; i < e->files.n; i++) {
		xmlw_start(w, "File");
		xmlw_attrf(w, "i", "%zu", i);
		xmlw_attr(w, "n", db->file_names[i]);
		xmlw_end(w);
	}
	xmlw_end(w);
	xmlw_start(w, "ProcedureTable");
	for (i = 0; i < e->procs.n; i++) {
		xmlw_start(w, "Procedure");
		xmlw_attrf(w, "i", "%zu", i);
		xmlw_attr(w, "n", e->procs.names[i]);
		xmlw_attr(w, "f", "0");
		xmlw_end(w);
	}
	xmlw_end(w);
}

static const char *const cct_tag[] = {
	[NODE_PF] = "PF", [NODE_ALIEN] = "Pr", [NODE_LOOP] = "L",
	[NODE_STMT] = "S", [NODE_CALL] = "C",
};

static void write_cct(struct xmlw *w, const struct metrics *m,
		      const struct node *n)
{
	for (; n; n = n->next) {
		xmlw_start(w, cct_tag[n->kind]);
		xmlw_attrf(w, "i", "%" PRIu32, n->id);
		if (n->flat)
			xmlw_attrf(w, "s", "%" PRIu32, n->flat->id);
		if (n->kind == NODE_PF || n->kind == NODE_ALIEN) {
			xmlw_attrf(w, "n", "%" PRIu32, n->proc);
			xmlw_attrf(w, "lm", "%" PRIu32, n->lm);
		}
		if (n->kind != NODE_CALL)
			xmlw_attrf(w, "f", "%" PRIu32, n->file);
		xmlw_attrf(w, "l", "%" PRIu32, n->line);
		if (n->kind == NODE_ALIEN)
			xmlw_attr(w, "a", "1");
		if (n->kind != NODE_ALIEN)
			xmlw_attrf(w, "v", "0x%" PRIx64, n->vma);
		write_values(w, m, n->acc);
		write_cct(w, m, n->first);
		xmlw_end(w);
	}
}

static const char *const flat_tag[] = {
	[NODE_LM] = "LM", [NODE_FILE] = "F", [NODE_PROC] = "P",
	[NODE_ALIEN] = "A", [NODE_LOOP] = "L", [NODE_STMT] = "S",
	[NODE_CALL] = "C",
};

static void write_flat(struct database *db, struct xmlw *w,
		       const struct node *n)
{
	const struct experiment *e = db->e;

	for (; n; n = n->next) {
		xmlw_start(w, flat_tag[n->kind]);
		xmlw_attrf(w, "i", "%" PRIu32, n->id);
		switch (n->kind) {
		case NODE_LM:
			xmlw_attr(w, "n", e->lms.names[n->lm]);
			break;
		case NODE_FILE:
			xmlw_attr(w, "n", db->file_names[n->file]);
			break;
		case NODE_PROC:
			xmlw_attr(w, "n", e->procs.names[n->proc]);
			xmlw_attrf(w, "l", "%" PRIu32, n->line);
			xmlw_attrf(w, "v", "0x%" PRIx64, n->vma);
			break;
		case NODE_ALIEN:
			xmlw_attr(w, "n", e->procs.names[n->proc]);
			xmlw_attr(w, "f", db->file_names[n->file]);
			xmlw_attrf(w, "l", "%" PRIu32, n->line);
			break;
		case NODE_LOOP:
			xmlw_attr(w, "f", db->file_names[n->file]);
			xmlw_attrf(w, "l", "%" PRIu32, n->line);
			xmlw_attrf(w, "v", "0x%" PRIx64, n->vma);
			break;
		default:
			xmlw_attrf(w, "l", "%" PRIu32, n->line);
			xmlw_attrf(w, "v", "0x%" PRIx64, n->vma);
			break;
		}
		write_values(w, &e->metrics, n->acc);
		write_flat(db, w, n->first);
		xmlw_end(w);
	}
}

static void write_info(struct database *db, struct xmlw *w)
{
	const struct experiment *e = db->e;
	size_t i;

	xmlw_start(w, "Info");
	xmlw_start(w, "NV");
	xmlw_attr(w, "n", "threads");
	xmlw_attrf(w, "v", "%zu", e->nthreads);
	xmlw_end(w);
	xmlw_start(w, "NV");
	xmlw_attr(w, "n", "thread-values");
	xmlw_attr(w, "v", "thread-values.tsv");
	xmlw_end(w);
	xmlw_start(w, "NV");
	xmlw_attr(w, "n", "thread-table");
	xmlw_attr(w, "v", "threads.tsv");
	xmlw_end(w);
	for (i = 0; i < e->nmodules; i++) {
		const struct module *m = e->modules[i];

		if (m->mismatch || m->rejected) {
			xmlw_start(w, "NV");
			xmlw_attr(w, "n", "build-id-mismatch");
			xmlw_attr(w, "v", m->path);
			xmlw_end(w);
		}
		if (m->source == MODULE_STRUCTFILE || !m->fb)
			continue;
		xmlw_start(w, "NV");
		xmlw_attr(w, "n", m->source == MODULE_DWARF ? "structure-dwarf"
							    : "structure-none");
		xmlw_attr(w, "v", m->path);
		xmlw_end(w);
	}
	xmlw_end(w);
}

/* True when path has no ".." component (so it cannot climb out). */
static int safe_relative(const char *path)
{
	const char *p = path;

	while (*p) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return 0;
		p = strchr(p, '/');
		if (!p)
			break;
		p++;
	}
	return 1;
}

static int is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The readable regular file for a recorded source path, or NULL. */
static char *find_source(const char *path, const struct source_paths *sp)
{
	struct strbuf sb = STRBUF_INIT;
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; sp && i < sp->nreplace; i++) {
		size_t n = strlen(sp->from[i]);

		if (!strncmp(path, sp->from[i], n)) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%s%s", sp->to[i], path + n);
			if (is_regular(sb.buf))
				return strbuf_detach(&sb, NULL);
		}
	}
	if (path[0] == '/' && is_regular(path)) {
		strbuf_release(&sb);
		return xstrdup(path);
	}
	for (i = 0; sp && i < sp->ninclude; i++) {
		char dir[PATH_MAX], real[PATH_MAX];
		const char *cands[2] = { path, base };
		int k;

		if (!realpath(sp->include[i], dir))
			continue;
		for (k = 0; k < 2; k++) {
			if (cands[k][0] == '/' || !safe_relative(cands[k]))
				continue;
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%s/%s", dir, cands[k]);
			if (is_regular(sb.buf) && realpath(sb.buf, real) &&
			    !strncmp(real, dir, strlen(dir)) &&
			    real[strlen(dir)] == '/') {
				strbuf_release(&sb);
				return xstrdup(real);
			}
		}
	}
	strbuf_release(&sb);
	return NULL;
}

static int mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	int ret = 0;

	if (strbuf_read_file(&sb, from))
		return -1;
	f = fopen(to, "wx");
	if (!f) {
		strbuf_release(&sb);
		return hpc_seterr("'%s': %s", to, strerror(errno));
	}
	if (fwrite(sb.buf, 1, sb.len, f) != sb.len)
		ret = hpc_seterr("'%s': write error", to);
	if (fclose(f) && !ret)
		ret = hpc_seterr("'%s': %s", to, strerror(errno));
	strbuf_release(&sb);
	return ret;
}

/* Copies each source file found into DIR/src/; sets file_names[]. */
static void copy_sources(struct database *db, const struct source_paths *sp)
{
	const struct experiment *e = db->e;
	size_t i;

	db->file_names = xcalloc(e->files.n ? e->files.n : 1,
				 sizeof(*db->file_names));
	for (i = 0; i < e->files.n; i++) {
		const char *name = e->files.names[i];
		char *found = name[0] ? find_source(name, sp) : NULL;
		struct strbuf rel = STRBUF_INIT, dst = STRBUF_INIT;
		const char *r = name;

		while (*r == '/')
			r++;
		strbuf_addf(&rel, "./src/%s", r);
		strbuf_addf(&dst, "%s/src/%s", db->dir, r);
		if (found && safe_relative(r) && !mkdirs(dst.buf) &&
		    (is_regular(dst.buf) || !copy_file(found, dst.buf)))
			db->file_names[i] = strbuf_detach(&rel, NULL);
		else
			db->file_names[i] = xstrdup(name);
		free(found);
		strbuf_release(&rel);
		strbuf_release(&dst);
	}
}

int database_finish(struct database *db, const char *title,
		    const struct source_paths *paths, const char *config_path)
{
	const struct experiment *e = db->e;
	struct xmlw *w;
	FILE *f;
	int ret = 0;

	copy_sources(db, paths);
	if (config_path) {
		struct strbuf dst = STRBUF_INIT;

		strbuf_addf(&dst, "%s/metric-config.xml", db->dir);
		ret = copy_file(config_path, dst.buf);
		strbuf_release(&dst);
	}
	f = ret ? NULL : create_file(db->dir, "experiment.xml");
	if (!f) {
		database_abort(db);
		return -1;
	}
	w = xmlw_new(f);
	xmlw_declaration(w);
	xmlw_doctype(w, "HPCToolkitExperiment", experiment_dtd);
	xmlw_start(w, "HPCToolkitExperiment");
	xmlw_attr(w, "version", "2.2");
	xmlw_start(w, "Header");
	xmlw_attr(w, "n", title);
	write_info(db, w);
	xmlw_end(w);
	xmlw_start(w, "SecCallPathProfile");
	xmlw_attr(w, "i", "0");
	xmlw_attr(w, "n", title);
	xmlw_start(w, "SecHeader");
	write_tables(db, w);
	xmlw_end(w);
	xmlw_start(w, "SecCallPathProfileData");
	write_values(w, &e->metrics, e->root->acc);
	write_cct(w, &e->metrics, e->root->first);
	xmlw_end(w);
	xmlw_end(w);
	xmlw_start(w, "SecFlatProfile");
	xmlw_attr(w, "i", "0");
	xmlw_attr(w, "n", title);
	xmlw_start(w, "SecHeader");
	xmlw_end(w);
	xmlw_start(w, "SecFlatProfileData");
	write_values(w, &e->metrics, e->flat_root->acc);
	write_flat(db, w, e->flat_root->first);
	xmlw_end(w);
	xmlw_end(w);
	xmlw_end(w);
	if (xmlw_finish(w))
		ret = -1;
	if (fclose(f) && !ret)
		ret = hpc_seterr("'%s/experiment.xml': %s", db->dir,
				 strerror(errno));
	if ((fflush(db->values) || ferror(db->values) ||
	     fflush(db->threads) || ferror(db->threads)) && !ret)
		ret = hpc_seterr("'%s': write error on per-thread values",
				 db->dir);
	database_abort(db);
	return ret;
}
