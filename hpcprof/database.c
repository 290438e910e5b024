/* database.c - see database.h and man/hpcprof-database.5. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "database.h"
#include "datatree.h"
#include "error.h"
#include "formula.h"
#include "infile.h"
#include "strbuf.h"
#include "xmlw.h"

struct database {
	char *name;		/* the database's path, as the user gave it */
	char *dir;		/* the temporary directory written into */
	int lock;		/* dir open, flock()ed until the run ends */
	struct experiment *e;
	FILE *values;		/* thread-values.tsv */
	FILE *threads;		/* threads.tsv */
	int values_errno;	/* first failed write to values, or 0 */
	char *vbuf;		size_t vlen;	/* values' lines not written */
	off_t vbase;		/* where lines written in pieces start */
	unsigned jobs;		/* threads writing experiment.xml */
	char **file_copies;	/* per file index: "./src/..." or NULL */
};

/* Writes "v" then c in decimal at the end of buf (before *end); returns the
 * start of what it wrote. */
static char *decimal(char *end, uint64_t v, char c)
{
	*--end = c;
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

/* thread-values.tsv's lines gather in vbuf (millions of lines: no stdio
 * call each) and go out VBUF bytes at a time. */
#define VBUF ((size_t)1 << 20)

static void flush_values(struct database *db)
{
	if (db->vlen && fwrite(db->vbuf, 1, db->vlen, db->values) != db->vlen &&
	    !db->values_errno)
		db->values_errno = errno ? errno : EIO;
	db->vlen = 0;
}

/* 1 when v is an integer that a double holds exactly. */
static int integral(double v)
{
	return v < 9007199254740992.0 && v > -9007199254740992.0 &&
	       v == (double)(int64_t)v;
}

size_t database_value_line(const struct metrics *m, char *buf,
			   uint32_t thread, uint32_t node, size_t raw, int ie,
			   double v)
{
	size_t col = metrics_column(m, raw, STAT_SUM, ie);

	/* Most values are counts: print integers without printf's cost
	 * (4.6 million lines for 64 threads of 20,000 contexts). */
	if (integral(v)) {
		char line[96], *end = line + sizeof(line), *p;

		p = decimal(end, (uint64_t)(v < 0 ? -v : v), '\n');
		if (v < 0)
			*--p = '-';
		p = decimal(p, col, '\t');
		p = decimal(p, thread, '\t');
		p = decimal(p, node, '\t');
		memcpy(buf, p, (size_t)(end - p));
		return (size_t)(end - p);
	}
	return (size_t)snprintf(buf, THREAD_LINE_MAX, "%" PRIu32 "\t%" PRIu32
				"\t%zu\t%.17g\n", node, thread, col, v);
}

static size_t value_line(void *arg, char *buf, uint32_t thread, uint32_t node,
			 size_t raw, int ie, double v)
{
	const struct database *db = arg;

	return database_value_line(&db->e->metrics, buf, thread, node, raw, ie,
				   v);
}

/* The length of value_line's line after the node's id: the line of
 * node 0 (one digit), formatted.  Workers count the common lines, of
 * non-negative integers, themselves (experiment.h, struct thread_lines). */
static size_t value_tail(void *arg, uint32_t thread, size_t raw, int ie,
			 double v)
{
	char buf[THREAD_LINE_MAX];

	return value_line(arg, buf, thread, 0, raw, ie, v) - 1;
}

/* A line of thread-values.tsv; the values file has one writer at a time
 * (parallel.h). */
static void thread_value_id(void *arg, uint32_t thread, uint32_t node,
			    size_t raw, int ie, double v)
{
	struct database *db = arg;

	if (db->vlen > VBUF - THREAD_LINE_MAX)
		flush_values(db);
	db->vlen += value_line(db, db->vbuf + db->vlen, thread, node, raw, ie, v);
}

static void thread_value(void *arg, uint32_t thread, const struct node *n,
			 size_t raw, int ie, double v)
{
	thread_value_id(arg, thread, n->id, raw, ie, v);
}

/* The lines in pieces (experiment.h, struct thread_lines): written where
 * the file stands at begin, with pwrite; a failed write is kept in
 * values_errno (the first one), said when the file is closed. */
static int lines_begin(void *arg)
{
	struct database *db = arg;

	flush_values(db);
	if (fflush(db->values) && !db->values_errno)
		db->values_errno = errno ? errno : EIO;
	db->vbase = ftello(db->values);
	return 0;
}

static int lines_pwrite(void *arg, const char *buf, size_t n, uint64_t at)
{
	struct database *db = arg;
	ssize_t w;

	while (n) {
		w = pwrite(fileno(db->values), buf, n, db->vbase + (off_t)at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int none = 0;

			__atomic_compare_exchange_n(&db->values_errno, &none,
						    w < 0 ? errno : EIO, 0,
						    __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			return 0;
		}
		buf += w;
		n -= (size_t)w;
		at += (uint64_t)w;
	}
	return 0;
}

static int lines_end(void *arg, uint64_t total)
{
	struct database *db = arg;

	if (fseeko(db->values, db->vbase + (off_t)total, SEEK_SET) &&
	    !db->values_errno)
		db->values_errno = errno ? errno : EIO;
	return 0;
}

static const struct thread_lines lines = {
	value_line, value_tail, lines_begin, lines_pwrite, lines_end
};

/*
 * "'NAME/rel': what" for a file of the database (named as the user will
 * find it, not by the temporary directory); what may be hpc_lasterr().
 */
static int file_err(const struct database *db, const char *rel,
		    const char *what)
{
	char *copy = xstrdup(what);

	hpc_seterr("'%s/%s': %s", db->name, rel, copy);
	free(copy);
	return -1;
}

/* "'NAME/rel': write error: REASON" for errno value err. */
static int write_err(const struct database *db, const char *rel, int err)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "write error: %s", strerror(err ? err : EIO));
	file_err(db, rel, sb.buf);
	strbuf_release(&sb);
	return -1;
}

static FILE *create_file(const struct database *db, const char *rel)
{
	struct strbuf p = STRBUF_INIT;
	FILE *f;
	int fd;

	strbuf_addf(&p, "%s/%s", db->dir, rel);
	fd = open(p.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		file_err(db, rel, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	strbuf_release(&p);
	return f;
}

/* 1 when path is a directory holding an experiment.xml, else 0. */
static int is_database(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	int ret;

	strbuf_addf(&sb, "%s/experiment.xml", path);
	ret = !lstat(sb.buf, &st) && S_ISREG(st.st_mode);
	strbuf_release(&sb);
	return ret;
}

/* 1 when path is an empty directory (rename may replace it). */
static int is_empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/*
 * 0 when a database may be written at path: nothing is there, an empty
 * directory, or a database (moved aside when the new one is complete).
 */
static int check_target(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0
		       : hpc_seterr("'%s': %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode) && (is_database(path) || is_empty_dir(path)))
		return 0;
	return hpc_seterr("'%s': exists and is not a database (no "
			  "experiment.xml); not replaced, choose another -o",
			  path);
}

static int remove_entry(const char *path, const struct stat *st, int flag,
			struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int mkdirs(const struct database *db, const char *rel);

FILE *database_open_file(struct database *db, const char *rel)
{
	return mkdirs(db, rel) ? NULL : create_file(db, rel);
}

int database_close_file(struct database *db, FILE *f, const char *rel)
{
	int ret = 0;

	if (fflush(f) || ferror(f))
		ret = write_err(db, rel, errno);
	if (fclose(f) && !ret)
		ret = file_err(db, rel, strerror(errno));
	return ret;
}

/*
 * Removes the temporary directories ".NAME.tmp-XXXXXX" beside dir that
 * no hpcprof is writing: each run holds a flock() on its own for as long
 * as it runs, and the kernel drops it when the run dies, however killed.
 * One made in the last 2 s is left alone: its run may be between
 * mkdtemp() and flock().  Each removal is said.
 */
static void remove_stale(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	struct strbuf parent = STRBUF_INIT, prefix = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (slash)
		strbuf_addf(&parent, "%.*s", (int)(slash - dir + 1), dir);
	strbuf_addf(&prefix, ".%s.tmp-", slash ? slash + 1 : dir);
	d = opendir(parent.len ? parent.buf : ".");
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix.buf, prefix.len) ||
		    strlen(de->d_name) != prefix.len + 6)
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s%s", parent.buf, de->d_name);
		fd = open(path.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			  O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && st.st_mtime + 2 < time(NULL) &&
		    !flock(fd, LOCK_EX | LOCK_NB) &&
		    !nftw(path.buf, remove_entry, 16, FTW_DEPTH | FTW_PHYS))
			hpc_warn("'%s': removed, left by an hpcprof that did "
				 "not finish", path.buf);
		close(fd);
	}
	if (d)
		closedir(d);
	strbuf_release(&parent);
	strbuf_release(&prefix);
	strbuf_release(&path);
}

struct database *database_create(const char *dir, struct experiment *e,
				 const char *thread_columns)
{
	struct database *db;
	struct strbuf tmp = STRBUF_INIT;
	const char *slash;
	mode_t mask;

	if (check_target(dir))
		return NULL;
	remove_stale(dir);
	slash = strrchr(dir, '/');
	if (slash)
		strbuf_addf(&tmp, "%.*s/.%s.tmp-XXXXXX", (int)(slash - dir),
			    dir, slash + 1);
	else
		strbuf_addf(&tmp, ".%s.tmp-XXXXXX", dir);
	if (!mkdtemp(tmp.buf)) {
		hpc_seterr("'%s': cannot create a directory beside it: %s",
			   dir, strerror(errno));
		strbuf_release(&tmp);
		return NULL;
	}
	mask = umask(0);
	umask(mask);
	chmod(tmp.buf, 0777 & ~mask);
	db = xcalloc(1, sizeof(*db));
	db->lock = open(tmp.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (db->lock >= 0)
		flock(db->lock, LOCK_EX | LOCK_NB);
	db->name = xstrdup(dir);
	db->dir = strbuf_detach(&tmp, NULL);
	db->e = e;
	db->values = create_file(db, "thread-values.tsv");
	db->threads = db->values ? create_file(db, "threads.tsv") : NULL;
	if (!db->threads) {
		database_abort(db);
		return NULL;
	}
	db->vbuf = xmalloc(VBUF);
	fprintf(db->values, "# node\tthread\tmetric\tvalue\n");
	fprintf(db->threads, "# thread\tprofile\tidentity\tprogram\tprocess"
		"\trank\tthread-id%s\n", thread_columns ? thread_columns : "");
	e->thread_cb = thread_value;
	e->thread_id_cb = thread_value_id;
	e->thread_lines = &lines;
	e->thread_arg = db;
	return db;
}

/*
 * Field k (0 = the last) of a profile's file name PROG-RANK-TID-HOST-PID-
 * GEN.hpcrun (hpcrun's and HPCToolkit's), when it is a decimal number:
 * 4 rank, 3 thread, 1 process.  Leading zeros dropped; 0 when absent.
 */
static int name_field(const char *base, int k, char *out, size_t len)
{
	const char *end = strrchr(base, '.'), *p;
	size_t n;

	if (!end)
		end = base + strlen(base);
	for (; k >= 0; k--) {
		for (p = end; p > base && p[-1] != '-'; p--)
			;
		if (p == base)
			return 0;
		if (k)
			end = p - 1;
	}
	n = (size_t)(end - p);
	if (!n || n >= len || strspn(p, "0123456789") < n)
		return 0;
	while (n > 1 && *p == '0')
		p++, n--;
	memcpy(out, p, n);
	out[n] = 0;
	return 1;
}

/* 1 when s is a decimal number (a usable header value). */
static int is_number(const char *s)
{
	return s && *s && strspn(s, "0123456789") == strlen(s);
}

/*
 * The profile's rank (kind HPCRUN_ID_RANK), thread (HPCRUN_ID_THREAD) or
 * process: from the identity tuple, else the header pair, else the file
 * name; "-" when none says.
 */
static void identity(const struct hpcrun_profile *p, const char *base,
		     uint16_t kind, const char *header, int field, char *out,
		     size_t len)
{
	const char *h = header ? hpcrun_profile_header(p, header) : NULL;
	uint16_t i;

	for (i = 0; kind && i < p->nidtuple; i++)
		if ((p->idtuple[i].kind & 0x3fff) == kind) {
			snprintf(out, len, "%" PRIu64, p->idtuple[i].logical);
			return;
		}
	if (is_number(h))
		snprintf(out, len, "%s", h);
	else if (!name_field(base, field, out, len))
		snprintf(out, len, "-");
}

void database_set_jobs(struct database *db, unsigned n)
{
	db->jobs = n;
}

void database_thread(struct database *db, size_t t, const char *path,
		     const struct hpcrun_profile *p, const char *columns)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *prog = hpcrun_profile_header(p, "program-name");
	char pid[32], rank[32], tid[32];
	int tuple_rank = 0;
	uint16_t i;

	fprintf(db->threads, "%zu\t%s\t", t, base);
	for (i = 0; i < p->nidtuple; i++) {
		const struct hpcrun_id_elem *el = &p->idtuple[i];
		uint16_t k, kind = el->kind & 0x3fff;
		const char *name = "?";

		for (k = 0; k < p->nidkinds; k++)
			if (p->idkinds[k].kind == kind)
				name = p->idkinds[k].name;
		fprintf(db->threads, "%s%s=%" PRIu64, i ? " " : "", name,
			el->logical);
		tuple_rank |= kind == HPCRUN_ID_RANK;
	}
	identity(p, base, 0, "process-id", 1, pid, sizeof(pid));
	identity(p, base, HPCRUN_ID_RANK, "mpi-rank", 4, rank, sizeof(rank));
	identity(p, base, HPCRUN_ID_THREAD, "thread-id", 3, tid, sizeof(tid));
	fprintf(db->threads, "\t%s\t%s\t%s\t%s%s\n", prog ? prog : "", pid,
		rank, tid, columns ? columns : "");
	thread_names_set(&db->e->thread_names, t, pid, rank, tid, tuple_rank);
}

static void db_free(struct database *db)
{
	size_t i;

	if (db->lock >= 0)
		close(db->lock);
	if (db->values)
		fclose(db->values);
	if (db->threads)
		fclose(db->threads);
	if (db->e) {
		db->e->thread_cb = NULL;
		db->e->thread_id_cb = NULL;
		db->e->thread_lines = NULL;
	}
	if (db->file_copies)
		for (i = 0; i < db->e->files.n; i++)
			free(db->file_copies[i]);
	free(db->file_copies);
	free(db->vbuf);
	free(db->name);
	free(db->dir);
	free(db);
}

void database_abort(struct database *db)
{
	if (!db)
		return;
	nftw(db->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	db_free(db);
}

/* Shortest text that reads back as the same double. */
static void fmt_double(char *buf, size_t len, double d)
{
	int prec;

	/* An integer below 10^15 prints as %.15g prints it, exactly. */
	if (d < 1e15 && d > -1e15 && d == (double)(int64_t)d) {
		char digits[24], *p = digits + sizeof(digits);
		uint64_t v = (uint64_t)(d < 0 ? -d : d);

		*--p = 0;
		do
			*--p = (char)('0' + v % 10);
		while (v /= 10);
		if (d < 0)
			*--p = '-';
		memcpy(buf, p, (size_t)(digits + sizeof(digits) - p));
		return;
	}

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
}

/* <M n="c" v="v"/> */
static void write_m(struct xmlw *w, size_t c, double v)
{
	char buf[40];

	fmt_double(buf, sizeof(buf), v);
	xmlw_start(w, "M");
	xmlw_attr_u64(w, "n", c);
	xmlw_attr(w, "v", buf);
	xmlw_end(w);
}

/* A scope's values: the raw columns' only.  A derived metric's value is
 * its view formula over these, so readers compute it where they show it
 * (hpcprof-database(5), Metric table). */
static void write_values(struct xmlw *w, const struct metrics *m,
			 const struct accum *a)
{
	size_t c, n = metrics_nraw_columns(m);
	double v;

	for (c = 0; c < n; c++)
		if (metrics_column_stored(m, c) && metrics_value(m, a, c, &v))
			write_m(w, c, v);
}

static size_t sum_column(void *arg, size_t raw)
{
	const int *ie = arg;

	return (raw * NSTATS + STAT_SUM) * 2 + (size_t)*ie;
}

/* The end of the data object columns: the sharing ones only with sharing
 * data (sharing.h). */
static int data_columns(const struct experiment *e)
{
	return e->data->sharing ? DATTR_COUNT : DATTR_SHARING;
}

/*
 * With a data tree, the object attributes follow the metric columns as
 * columns of their own: never shown by default (show="4"), values on
 * object nodes only, not additive (hpcprof-database(5), DATA-CENTRIC).
 */
static void write_data_columns(struct xmlw *w, const struct experiment *e)
{
	size_t c = metrics_ncolumns(&e->metrics);
	int a;

	for (a = DATTR_BYTES; a < data_columns(e); a++, c++) {
		xmlw_start(w, "Metric");
		xmlw_attrf(w, "i", "%zu", c);
		xmlw_attr(w, "n", datatree_attr_name((enum data_attr)a));
		xmlw_attrf(w, "o", "%zu", c);
		xmlw_attr(w, "md", a == DATTR_SHARING ? "data object "
			  "attribute: sharing label 1 private, 2 read-shared, "
			  "3 producer-consumer, 4 migratory, 5 write-shared, "
			  "6 false-sharing" : a == DATTR_REMOTE ? "data object "
			  "attribute: percent of sampled accesses remote "
			  "(NUMA)" : "data object attribute");
		xmlw_attr(w, "v", "final");
		xmlw_attr(w, "t", "nil");
		xmlw_attr(w, "show", "4");
		xmlw_attr(w, "show-percent", "0");
		xmlw_end(w);
	}
}

/* The attribute values of a data object's node (see above). */
static void write_data_values(struct xmlw *w, const struct experiment *e,
			      const struct node *n)
{
	size_t c = metrics_ncolumns(&e->metrics);
	double v;
	int a;

	for (a = DATTR_BYTES; a < data_columns(e); a++, c++)
		if (datatree_attr_value(e, n, (enum data_attr)a, &v))
			write_m(w, c, v);
}

static void write_metric_table(struct xmlw *w, const struct experiment *e)
{
	const struct metrics *m = &e->metrics;
	size_t c, n = metrics_ncolumns(m);

	xmlw_start(w, "MetricTable");
	for (c = 0; c < n; c++) {
		char *name;
		long raw, derived;
		enum mstat s;
		int ie;

		if (!metrics_column_stored(m, c))
			continue;
		name = metrics_column_name(m, c);
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
		if (raw >= 0 && (s != STAT_SUM || m->raw[raw].hidden))
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
	if (e->data)
		write_data_columns(w, e);
	xmlw_end(w);
}

static void write_tables(struct database *db, struct xmlw *w)
{
	const struct experiment *e = db->e;
	size_t i;

	write_metric_table(w, e);
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
		xmlw_attr(w, "n", e->files.names[i]);
		if (db->file_copies[i]) {
			xmlw_start(w, "Info");
			xmlw_start(w, "NV");
			xmlw_attr(w, "n", "copy");
			xmlw_attr(w, "v", db->file_copies[i]);
			xmlw_end(w);
			xmlw_end(w);
		}
		xmlw_end(w);
	}
	xmlw_end(w);
	xmlw_start(w, "ProcedureTable");
	for (i = 0; i < e->procs.n; i++) {
		xmlw_start(w, "Procedure");
		xmlw_attrf(w, "i", "%zu", i);
		xmlw_attr(w, "n", e->procs.names[i]);
		/* hpcviewer shows a root-type frame's subtree in a view
		 * of its own (its data-centric view) */
		xmlw_attr(w, "f", e->data && e->data->root &&
				  i == e->data->root->proc ? "2" : "0");
		xmlw_end(w);
	}
	xmlw_end(w);
}

static const char *const cct_tag[] = {
	[NODE_PF] = "PF", [NODE_ALIEN] = "Pr", [NODE_LOOP] = "L",
	[NODE_STMT] = "S", [NODE_CALL] = "C", [NODE_PROGRAM] = "PF",
	[NODE_PHASE] = "PF", [NODE_DATA] = "PF",
};

/*
 * experiment.xml's calling context tree on several threads: the tree is
 * cut into subtrees (chunks) of at most CHUNK_NODES nodes or a share of
 * the tree, in document order.  The calling thread writes the document
 * from the front, each chunk it reaches straight to the file; helpers take
 * chunks from the back and write each to memory (xmlw_new_at), which the
 * calling thread puts in place when it reaches that chunk.  The bytes are
 * those one thread writes; memory is at most the text of the chunks the
 * helpers wrote ahead of the calling thread.
 */
#define CHUNK_NODES 4096

/* The profile data's elements start their lines unindented: there is a
 * line per value, and up to 32 spaces on each would be 40% of the file
 * (hpcprof-database(5), experiment.xml). */
#define DATA_INDENT 0

struct chunk {
	const struct node *root;
	size_t depth;		/* its writer's depth */
	char *buf;		size_t len;	/* written by a helper */
	int done;		/* by a helper */
};

struct chunks {
	const struct experiment *e;
	struct chunk *c;	size_t n, alloc;
	uint32_t *of;		/* by node id: chunk index + 1, or 0 */
	size_t lo, hi;		/* [lo, hi): no one has taken them */
	int failed;		/* a helper could not write a chunk */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void write_node(struct xmlw *w, const struct experiment *e,
		       const struct node *n, struct chunks *ck);
static void write_cct(struct xmlw *w, const struct experiment *e,
		      const struct node *n, struct chunks *ck);

/* Cuts the tree below top into chunks of at most max nodes (sizes by id:
 * size[id] is the node count of id's subtree). */
static void cut_chunks(struct chunks *ck, const struct node *top,
		       const uint32_t *size, uint32_t max, size_t depth)
{
	const struct node *c;

	for (c = top->first; c; c = c->next) {
		if (size[c->id] > max) {
			cut_chunks(ck, c, size, max, depth + 1);
			continue;
		}
		HPC_GROW(ck->c, ck->n + 1, ck->alloc);
		ck->of[c->id] = (uint32_t)(ck->n + 1);
		ck->c[ck->n++] = (struct chunk){ .root = c, .depth = depth };
	}
}

/* The chunks of e's calling context tree for nthreads threads. */
static void chunks_init(struct chunks *ck, const struct experiment *e,
			unsigned nthreads)
{
	uint32_t *size = xcalloc((size_t)e->next_id + 1, sizeof(*size));
	uint32_t id, max;

	memset(ck, 0, sizeof(*ck));
	ck->e = e;
	ck->of = xcalloc((size_t)e->next_id + 1, sizeof(*ck->of));
	/* a parent is made before its children: ids grow downwards */
	for (id = e->next_id; id > 0; id--) {
		const struct node *n = e->nodes[id - 1];

		size[id]++;
		if (n->parent)
			size[n->parent->id] += size[id];
	}
	max = size[e->root->id] / (8 * nthreads);
	if (max > CHUNK_NODES)
		max = CHUNK_NODES;
	if (max < 64)
		max = 64;
	/* the root's children are written at depth 3 (write_experiment) */
	cut_chunks(ck, e->root, size, max, 3);
	free(size);
	ck->hi = ck->n;
	pthread_mutex_init(&ck->lock, NULL);
	pthread_cond_init(&ck->cond, NULL);
}

static void chunks_release(struct chunks *ck)
{
	size_t i;

	for (i = 0; i < ck->n; i++)
		free(ck->c[i].buf);
	free(ck->c);
	free(ck->of);
	pthread_mutex_destroy(&ck->lock);
	pthread_cond_destroy(&ck->cond);
}

/* A helper: takes chunks from the back and writes each to memory. */
static void *chunk_helper(void *arg)
{
	struct chunks *ck = arg;

	for (;;) {
		size_t k;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;
		int bad;

		pthread_mutex_lock(&ck->lock);
		if (ck->hi <= ck->lo) {
			pthread_mutex_unlock(&ck->lock);
			return NULL;
		}
		k = --ck->hi;
		pthread_mutex_unlock(&ck->lock);
		f = open_memstream(&buf, &len);
		bad = !f;
		if (f) {
			struct xmlw *w = xmlw_new_at(f, ck->c[k].depth);

			xmlw_set_indent(w, DATA_INDENT);

			write_node(w, ck->e, ck->c[k].root, NULL);
			bad = xmlw_finish(w) != 0;
			bad |= fclose(f) != 0;
		}
		pthread_mutex_lock(&ck->lock);
		ck->c[k].buf = buf;
		ck->c[k].len = bad ? 0 : len;
		ck->failed |= bad;
		ck->c[k].done = 1;
		pthread_cond_broadcast(&ck->cond);
		pthread_mutex_unlock(&ck->lock);
	}
}

/*
 * The calling thread at chunk root n: 1 when a helper wrote it (now put
 * in place), 0 when this thread is to write it.
 */
static int chunk_taken(struct xmlw *w, struct chunks *ck,
		       const struct node *n)
{
	size_t k = ck->of[n->id] - 1;

	pthread_mutex_lock(&ck->lock);
	if (k < ck->hi) {
		ck->lo = k + 1;
		pthread_mutex_unlock(&ck->lock);
		return 0;
	}
	while (!ck->c[k].done)
		pthread_cond_wait(&ck->cond, &ck->lock);
	pthread_mutex_unlock(&ck->lock);
	xmlw_fragment(w, ck->c[k].buf, ck->c[k].len);
	free(ck->c[k].buf);
	ck->c[k].buf = NULL;
	return 1;
}

/* Writes n with its subtree (chunks below it as ck says; NULL: none). */
static void write_node(struct xmlw *w, const struct experiment *e,
		       const struct node *n, struct chunks *ck)
{
	const struct metrics *m = &e->metrics;

	xmlw_start(w, cct_tag[n->kind]);
	xmlw_attr_u64(w, "i", n->id);
	if (n->flat)
		xmlw_attr_u64(w, "s", n->flat->id);
	if (n->kind == NODE_PF || n->kind == NODE_ALIEN ||
	    n->kind == NODE_PROGRAM || n->kind == NODE_PHASE ||
	    n->kind == NODE_DATA) {
		xmlw_attr_u64(w, "n", n->proc);
		xmlw_attr_u64(w, "lm", n->lm);
	}
	if (n->kind != NODE_CALL)
		xmlw_attr_u64(w, "f", n->file);
	xmlw_attr_u64(w, "l", n->line);
	if (n->kind == NODE_ALIEN)
		xmlw_attr(w, "a", "1");
	if (n->kind != NODE_ALIEN)
		xmlw_attr_hex(w, "v", n->vma);
	write_values(w, m, n->acc);
	if (n->kind == NODE_DATA)
		write_data_values(w, e, n);
	write_cct(w, e, n->first, ck);
	xmlw_end(w);
}

/*
 * Writes n and its siblings after it, with their subtrees; with ck
 * (NULL: one thread), the chunks among them are written or put in place
 * as above.
 */
static void write_cct(struct xmlw *w, const struct experiment *e,
		      const struct node *n, struct chunks *ck)
{
	for (; n; n = n->next) {
		if (!ck || !ck->of[n->id])
			write_node(w, e, n, ck);
		else if (!chunk_taken(w, ck, n))
			write_node(w, e, n, NULL);	/* chunks do not nest */
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
		xmlw_attr_u64(w, "i", n->id);
		switch (n->kind) {
		case NODE_LM:
			xmlw_attr(w, "n", e->lms.names[n->lm]);
			break;
		case NODE_FILE:
			xmlw_attr(w, "n", e->files.names[n->file]);
			break;
		case NODE_PROC:
			xmlw_attr(w, "n", e->procs.names[n->proc]);
			xmlw_attr_u64(w, "l", n->line);
			xmlw_attr_hex(w, "v", n->vma);
			break;
		case NODE_ALIEN:
			xmlw_attr(w, "n", e->procs.names[n->proc]);
			xmlw_attr(w, "f", e->files.names[n->file]);
			xmlw_attr_u64(w, "l", n->line);
			break;
		case NODE_LOOP:
			xmlw_attr(w, "f", e->files.names[n->file]);
			xmlw_attr_u64(w, "l", n->line);
			xmlw_attr_hex(w, "v", n->vma);
			break;
		default:
			xmlw_attr_u64(w, "l", n->line);
			xmlw_attr_hex(w, "v", n->vma);
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

/* Makes the directories above the database file rel. */
static int mkdirs(const struct database *db, const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	size_t k, start;
	int ret = 0;

	strbuf_addf(&sb, "%s/", db->dir);
	start = sb.len;
	strbuf_addstr(&sb, rel);
	for (k = start; k < sb.len && !ret; k++) {
		if (sb.buf[k] != '/')
			continue;
		sb.buf[k] = 0;
		if (mkdir(sb.buf, 0755) && errno != EEXIST)
			ret = file_err(db, sb.buf + start, strerror(errno));
		sb.buf[k] = '/';
	}
	strbuf_release(&sb);
	return ret;
}

/*
 * Copies the file from into the new database file rel.  Returns 0; 1 when
 * from cannot be read (nothing is written); -1 with hpc_lasterr() naming
 * the database file when writing fails.
 */
static int copy_into(const struct database *db, const char *from,
		     const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	int ret = 0;

	if (infile_read(from, INFILE_MAX_SOURCE, "a source file", &sb))
		return 1;
	f = create_file(db, rel);
	if (!f) {
		strbuf_release(&sb);
		return -1;
	}
	if (fwrite(sb.buf, 1, sb.len, f) != sb.len || fflush(f))
		ret = write_err(db, rel, errno);
	if (fclose(f) && !ret)
		ret = file_err(db, rel, strerror(errno));
	strbuf_release(&sb);
	return ret;
}

/*
 * Appends path as experiment.xml gives it back (xmlw.h): each byte the
 * writer writes as '?' (not UTF-8, a control character XML lacks) as '?'.
 * Returns whether any was.
 */
static int add_xml_spelling(struct strbuf *out, const char *path)
{
	const unsigned char *p = (const unsigned char *)path, *start;
	int changed = 0;

	for (; *p; p++) {
		const char *rep;

		start = p;
		rep = xml_escape_char(&p, 1);
		if (rep && !strcmp(rep, "?")) {
			strbuf_addch(out, '?');
			changed = 1;
		} else
			strbuf_add(out, start, (size_t)(p - start) + 1);
	}
	return changed;
}

/*
 * Copies each source file found into src/ (the path as recorded, below
 * src/, spelt as experiment.xml can spell it, so the viewer finds the copy
 * by its name there); sets file_copies[].  A respelt path whose copy
 * another file made has none: it may be another file's.  Returns 0, or -1
 * on a write error.
 */
static int copy_sources(struct database *db, const struct source_paths *sp)
{
	const struct experiment *e = db->e;
	size_t i;
	int ret = 0;

	db->file_copies = xcalloc(e->files.n ? e->files.n : 1,
				  sizeof(*db->file_copies));
	for (i = 0; i < e->files.n && !ret; i++) {
		const char *name = e->files.names[i];
		char *found = name[0] ? find_source(name, sp) : NULL;
		struct strbuf rel = STRBUF_INIT, dst = STRBUF_INIT;
		const char *r = name;
		int respelt;

		while (*r == '/')
			r++;
		strbuf_addstr(&rel, "./src/");
		respelt = add_xml_spelling(&rel, r);
		strbuf_addf(&dst, "%s/%s", db->dir, rel.buf + 2);
		if (respelt && is_regular(dst.buf)) {
			free(found);
			found = NULL;
		}
		if (found && safe_relative(r)) {
			/* "/a.c" and "a.c" share one copy */
			ret = is_regular(dst.buf) ? 0 : mkdirs(db, rel.buf + 2);
			if (!ret && !is_regular(dst.buf))
				ret = copy_into(db, found, rel.buf + 2);
			if (!ret)
				db->file_copies[i] = strbuf_detach(&rel, NULL);
			else if (ret > 0)
				ret = 0;
		}
		free(found);
		strbuf_release(&rel);
		strbuf_release(&dst);
	}
	return ret;
}

/* Writes e's calling context tree on nthreads threads (see struct
 * chunks); 0, or -1 when a helper ran out of memory. */
static int write_cct_threads(struct xmlw *w, const struct experiment *e,
			     unsigned nthreads)
{
	struct chunks ck;
	pthread_t *t = xcalloc(nthreads, sizeof(*t));
	char *started = xcalloc(nthreads, 1);
	unsigned k;
	int failed;

	chunks_init(&ck, e, nthreads);
	for (k = 1; k < nthreads; k++)
		started[k] = !pthread_create(&t[k], NULL, chunk_helper, &ck);
	write_cct(w, e, e->root->first, &ck);
	for (k = 1; k < nthreads; k++)
		if (started[k])
			pthread_join(t[k], NULL);
	failed = ck.failed;
	chunks_release(&ck);
	free(started);
	free(t);
	return failed ? -1 : 0;
}

/* Writes experiment.xml; 0, or -1 when memory ran out on the way. */
static int write_experiment(struct database *db, struct xmlw *w,
			    const char *title)
{
	const struct experiment *e = db->e;
	int failed = 0;

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
	xmlw_set_indent(w, DATA_INDENT);
	write_values(w, &e->metrics, e->root->acc);
	if (db->jobs > 1)
		failed = write_cct_threads(w, e, db->jobs);
	else
		write_cct(w, e, e->root->first, NULL);
	if (e->data && e->data->root)
		write_cct(w, e, e->data->root, NULL);
	xmlw_end(w);
	xmlw_end(w);
	xmlw_set_indent(w, XMLW_MAX_INDENT);
	xmlw_start(w, "SecFlatProfile");
	xmlw_attr(w, "i", "0");
	xmlw_attr(w, "n", title);
	xmlw_start(w, "SecHeader");
	xmlw_end(w);
	xmlw_start(w, "SecFlatProfileData");
	xmlw_set_indent(w, DATA_INDENT);
	write_values(w, &e->metrics, e->flat_root->acc);
	write_flat(db, w, e->flat_root->first);
	xmlw_end(w);
	xmlw_end(w);
	xmlw_end(w);
	return failed;
}

int database_values_flush(struct database *db)
{
	flush_values(db);
	if (fflush(db->values) && !db->values_errno)
		db->values_errno = errno ? errno : EIO;
	if (db->values_errno)
		return write_err(db, "thread-values.tsv", db->values_errno);
	return 0;
}

/* Flushes and closes the per-thread files; 0 or -1 naming the file. */
static int close_thread_files(struct database *db)
{
	int ret = 0;

	flush_values(db);
	if (db->values_errno || fflush(db->values) || ferror(db->values))
		ret = write_err(db, "thread-values.tsv",
				db->values_errno ? db->values_errno : errno);
	if (fclose(db->values) && !ret)
		ret = file_err(db, "thread-values.tsv", strerror(errno));
	db->values = NULL;
	if ((fflush(db->threads) || ferror(db->threads)) && !ret)
		ret = write_err(db, "threads.tsv", errno);
	if (fclose(db->threads) && !ret)
		ret = file_err(db, "threads.tsv", strerror(errno));
	db->threads = NULL;
	return ret;
}

/*
 * Puts the finished temporary directory in place: a database already at
 * the name is first renamed to the first free NAME.N (*aside).
 */
static int commit(struct database *db, char **aside)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	unsigned n;

	*aside = NULL;
	if (check_target(db->name))
		return -1;
	if (is_database(db->name)) {
		for (n = 1; n < 100000; n++) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%s.%u", db->name, n);
			if (lstat(sb.buf, &st) && errno == ENOENT)
				break;
		}
		if (rename(db->name, sb.buf)) {
			hpc_seterr("'%s': cannot move the previous database "
				   "aside to '%s': %s", db->name, sb.buf,
				   strerror(errno));
			strbuf_release(&sb);
			return -1;
		}
		*aside = strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
	if (rename(db->dir, db->name)) {
		hpc_seterr("'%s': %s", db->name, strerror(errno));
		if (*aside && !rename(*aside, db->name)) {
			free(*aside);
			*aside = NULL;
		}
		return -1;
	}
	return 0;
}

int database_finish(struct database *db, const char *title,
		    const struct source_paths *paths, const char *config_path,
		    char **aside)
{
	struct xmlw *w;
	FILE *f = NULL;
	int ret;

	*aside = NULL;
	ret = close_thread_files(db);
	if (!ret)
		ret = copy_sources(db, paths);
	if (!ret && config_path &&
	    copy_into(db, config_path, "metric-config.xml"))
		ret = -1;
	if (!ret)
		f = create_file(db, "experiment.xml");
	if (!f) {
		database_abort(db);
		return -1;
	}
	w = xmlw_new(f);
	if (write_experiment(db, w, title))
		ret = file_err(db, "experiment.xml", "out of memory");
	if (xmlw_finish(w) && !ret)
		ret = file_err(db, "experiment.xml", hpc_lasterr());
	if (fclose(f) && !ret)
		ret = file_err(db, "experiment.xml", strerror(errno));
	if (ret || commit(db, aside)) {
		database_abort(db);
		return -1;
	}
	db_free(db);
	return 0;
}
