/* phaseview.c - see phaseview.h and hpcprof-database(5) (phases.tsv). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "hashmap.h"
#include "infile.h"
#include "phaseview.h"
#include "stdio-out.h"

#define MAX_FIELDS 20

struct reader {
	const char *path;
	size_t lineno;
	char *f[MAX_FIELDS];
	int nf;
	struct phaseview *pv;
	struct hmap *ids;	/* site id -> index + 1 */
	struct hmap *kinds;	/* (start, end) -> index + 1 */
	size_t sites_alloc, threads_alloc, kinds_alloc, kthreads_alloc,
	       episodes_alloc;
	uint32_t *kt_kind;	size_t kt_kind_alloc;	/* kthread -> kind */
};

static int bad(struct reader *r, const char *what)
{
	return hpc_seterr("'%s': line %zu: %s", r->path, r->lineno, what);
}

static int num(struct reader *r, int i, uint64_t *out)
{
	char *end;

	errno = 0;
	if (r->f[i][0] < '0' || r->f[i][0] > '9')
		return bad(r, "expected a number");
	*out = strtoull(r->f[i], &end,
			r->f[i][0] == '0' && r->f[i][1] == 'x' ? 16 : 10);
	return *end || errno ? bad(r, "expected a number") : 0;
}

static int u32(struct reader *r, int i, uint32_t *out)
{
	uint64_t v;

	if (num(r, i, &v))
		return -1;
	if (v > UINT32_MAX)
		return bad(r, "number out of range");
	*out = (uint32_t)v;
	return 0;
}

static int real(struct reader *r, int i, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(r->f[i], &end);
	if (end == r->f[i] || *end || errno || !isfinite(*out) || *out < 0)
		return bad(r, "expected a number >= 0");
	return 0;
}

static long site_of(struct reader *r, uint32_t id)
{
	uintptr_t v = (uintptr_t)hmap_get(r->ids, &id, sizeof(id));

	return v ? (long)v - 1 : bad(r, "names a site no site row gave");
}

static int rec_site(struct reader *r)
{
	struct phaseview *pv = r->pv;
	struct phase_site s;
	uint64_t obj;

	memset(&s, 0, sizeof(s));
	if (r->nf != 19)
		return bad(r, "a site row has 19 fields");
	if (u32(r, 1, &s.id) || num(r, 4, &obj) || u32(r, 5, &s.node) ||
	    u32(r, 6, &s.participants) || u32(r, 7, &s.threads) ||
	    num(r, 8, &s.episodes) || real(r, 9, &s.wait) ||
	    real(r, 10, &s.completion) || num(r, 11, &s.last) ||
	    real(r, 12, &s.work) || real(r, 13, &s.lb) ||
	    real(r, 14, &s.gain) || num(r, 15, &s.lock_calls) ||
	    num(r, 16, &s.lock_blocked) || real(r, 17, &s.lock_wait))
		return -1;
	if (hmap_get(r->ids, &s.id, sizeof(s.id)))
		return bad(r, "site given twice");
	s.kind = xstrdup(r->f[2]);
	s.function = xstrdup(r->f[3]);
	s.location = xstrdup(r->f[18]);
	HPC_GROW(pv->sites, pv->nsites + 1, r->sites_alloc);
	pv->sites[pv->nsites++] = s;
	hmap_put(r->ids, &s.id, sizeof(s.id), (void *)(uintptr_t)pv->nsites);
	return 0;
}

static int rec_thread(struct reader *r)
{
	struct phaseview *pv = r->pv;
	struct phase_thread t;

	if (r->nf != 12)
		return bad(r, "a thread row has 12 fields");
	if (u32(r, 1, &t.site) || u32(r, 2, &t.thread) ||
	    num(r, 3, &t.episodes) || real(r, 4, &t.wait) ||
	    real(r, 5, &t.completion) || num(r, 6, &t.last) ||
	    real(r, 7, &t.work) || num(r, 9, &t.lock_calls) ||
	    num(r, 10, &t.lock_blocked) || real(r, 11, &t.lock_wait) ||
	    site_of(r, t.site) < 0)
		return -1;
	HPC_GROW(pv->threads, pv->nthreads + 1, r->threads_alloc);
	pv->threads[pv->nthreads++] = t;
	return 0;
}

static int rec_phase(struct reader *r)
{
	struct phaseview *pv = r->pv;
	struct phase_kind k;
	uint32_t key[2];

	memset(&k, 0, sizeof(k));
	if (r->nf != 9)
		return bad(r, "a phase row has 9 fields");
	if (u32(r, 1, &k.start) || u32(r, 2, &k.end) || u32(r, 3, &k.node) ||
	    u32(r, 4, &k.threads) || num(r, 5, &k.count) ||
	    real(r, 6, &k.work) || real(r, 7, &k.wall) || real(r, 8, &k.lb) ||
	    (k.start && site_of(r, k.start) < 0) || site_of(r, k.end) < 0)
		return -1;
	key[0] = k.start;
	key[1] = k.end;
	if (hmap_get(r->kinds, key, sizeof(key)))
		return bad(r, "phase kind given twice");
	HPC_GROW(pv->kinds, pv->nkinds + 1, r->kinds_alloc);
	pv->kinds[pv->nkinds++] = k;
	hmap_put(r->kinds, key, sizeof(key), (void *)(uintptr_t)pv->nkinds);
	return 0;
}

static int rec_phase_thread(struct reader *r)
{
	struct phaseview *pv = r->pv;
	struct phase_kthread t;
	uint32_t key[2];
	uintptr_t k;

	if (r->nf != 7)
		return bad(r, "a phase-thread row has 7 fields");
	if (u32(r, 1, &key[0]) || u32(r, 2, &key[1]) ||
	    u32(r, 3, &t.thread) || num(r, 4, &t.count) ||
	    real(r, 5, &t.work) || real(r, 6, &t.wall))
		return -1;
	k = (uintptr_t)hmap_get(r->kinds, key, sizeof(key));
	if (!k)
		return bad(r, "names a phase kind no phase row gave");
	HPC_GROW(pv->kthreads, pv->nkthreads + 1, r->kthreads_alloc);
	HPC_GROW(r->kt_kind, pv->nkthreads + 1, r->kt_kind_alloc);
	r->kt_kind[pv->nkthreads] = (uint32_t)(k - 1);
	pv->kthreads[pv->nkthreads++] = t;
	return 0;
}

static int rec_episode(struct reader *r)
{
	struct phaseview *pv = r->pv;
	struct phase_episode e;
	char *end;
	long order;

	if (r->nf != 8)
		return bad(r, "an episode row has 8 fields");
	if (u32(r, 1, &e.site) || u32(r, 2, &e.thread) || num(r, 3, &e.n) ||
	    real(r, 4, &e.wait) || real(r, 5, &e.work) ||
	    site_of(r, e.site) < 0)
		return -1;
	errno = 0;
	order = strtol(r->f[6], &end, 10);
	if (*end || end == r->f[6] || errno || order < -1 || order > INT32_MAX)
		return bad(r, "expected an arrival position");
	e.order = (int32_t)order;
	if (strcmp(r->f[7], "0") && strcmp(r->f[7], "1"))
		return bad(r, "expected 0 or 1");
	e.last = r->f[7][0] == '1';
	HPC_GROW(pv->episodes, pv->nepisodes + 1, r->episodes_alloc);
	pv->episodes[pv->nepisodes++] = e;
	return 0;
}

static int parse_line(struct reader *r, char *line)
{
	char *c = line;

	if (line[0] == '#' || !line[0])
		return 0;
	r->nf = 0;
	while (c) {
		if (r->nf == MAX_FIELDS)
			return bad(r, "too many fields");
		r->f[r->nf++] = c;
		c = strchr(c, '\t');
		if (c)
			*c++ = '\0';
	}
	if (!strcmp(r->f[0], "site"))
		return rec_site(r);
	if (!strcmp(r->f[0], "thread"))
		return rec_thread(r);
	if (!strcmp(r->f[0], "phase"))
		return rec_phase(r);
	if (!strcmp(r->f[0], "phase-thread"))
		return rec_phase_thread(r);
	if (!strcmp(r->f[0], "episode"))
		return rec_episode(r);
	if (!strcmp(r->f[0], "hidden-locks")) {
		if (r->nf != 3)
			return bad(r, "a hidden-locks row has 3 fields");
		return num(r, 1, &r->pv->hidden_locks) ||
		       real(r, 2, &r->pv->hidden_wait) ? -1 : 0;
	}
	return 0;	/* a record of a later version */
}

/* Site index of a site id known to exist (checked when read). */
static size_t site_index(const struct reader *r, uint32_t id)
{
	return (uintptr_t)hmap_get(r->ids, &id, sizeof(id)) - 1;
}

static const struct reader *sort_r;

static int cmp_thread(const void *a, const void *b)
{
	const struct phase_thread *x = a, *y = b;
	size_t i = site_index(sort_r, x->site), j = site_index(sort_r, y->site);

	if (i != j)
		return i < j ? -1 : 1;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static int cmp_episode(const void *a, const void *b)
{
	const struct phase_episode *x = a, *y = b;
	size_t i = site_index(sort_r, x->site), j = site_index(sort_r, y->site);

	if (i != j)
		return i < j ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Groups the rows under their sites and kinds (invariant 2). */
static void group(struct reader *r)
{
	struct phaseview *pv = r->pv;
	struct phase_kthread *kt;
	size_t i, *at;

	sort_r = r;
	if (pv->nthreads)	/* qsort wants an array, even of none */
		qsort(pv->threads, pv->nthreads, sizeof(*pv->threads),
		      cmp_thread);
	if (pv->nepisodes)
		qsort(pv->episodes, pv->nepisodes, sizeof(*pv->episodes),
		      cmp_episode);
	for (i = pv->nthreads; i-- > 0;) {
		struct phase_site *s = &pv->sites[site_index(r,
						pv->threads[i].site)];

		s->first_thread = i;
		s->nthreads++;
	}
	for (i = pv->nepisodes; i-- > 0;) {
		struct phase_site *s = &pv->sites[site_index(r,
						pv->episodes[i].site)];

		s->first_episode = i;
		s->nepisodes++;
		if (pv->episodes[i].wait > s->max_wait)
			s->max_wait = pv->episodes[i].wait;
	}
	/* phase-thread rows, stably bucketed by kind */
	for (i = 0; i < pv->nkthreads; i++)
		pv->kinds[r->kt_kind[i]].nthreads++;
	at = xcalloc(pv->nkinds + 1, sizeof(*at));
	for (i = 1; i <= pv->nkinds; i++) {
		pv->kinds[i - 1].first_thread = at[i - 1];
		at[i] = at[i - 1] + pv->kinds[i - 1].nthreads;
	}
	kt = xcalloc(pv->nkthreads + 1, sizeof(*kt));
	for (i = 0; i < pv->nkthreads; i++)
		kt[at[r->kt_kind[i]]++] = pv->kthreads[i];
	free(pv->kthreads);
	pv->kthreads = kt;
	free(at);
}

void phaseview_free(struct phaseview *pv)
{
	size_t i;

	if (!pv)
		return;
	hmap_free(pv->ids);
	for (i = 0; i < pv->nsites; i++) {
		free(pv->sites[i].kind);
		free(pv->sites[i].function);
		free(pv->sites[i].location);
	}
	for (i = 0; i < pv->nlines; i++)
		strbuf_release(&pv->text[i]);
	free(pv->text);
	free(pv->lines);
	free(pv->sites);
	free(pv->threads);
	free(pv->kinds);
	free(pv->kthreads);
	free(pv->episodes);
	thread_names_release(&pv->names);
	free(pv);
}

struct phaseview *phaseview_load(const struct model *m, int *missing)
{
	struct strbuf path = STRBUF_INIT, sb = STRBUF_INIT;
	struct reader r;
	struct stat st;
	char *line, *nl;
	int ret = 0;

	strbuf_addf(&path, "%s/phases.tsv", m->dbdir);
	*missing = lstat(path.buf, &st) && errno == ENOENT;
	if (*missing ||
	    infile_read(path.buf, PHASEVIEW_MAX_BYTES, "a table of phases",
			&sb)) {
		strbuf_release(&path);
		return NULL;
	}
	memset(&r, 0, sizeof(r));
	r.path = path.buf;
	r.pv = xcalloc(1, sizeof(*r.pv));
	r.ids = r.pv->ids = hmap_new();
	r.kinds = hmap_new();
	if (memchr(sb.buf, '\0', sb.len))
		ret = hpc_seterr("'%s': not a table of phases (binary data)",
				 path.buf);
	else if (strncmp(sb.buf, "# hpcprof phases 1\n", 19))
		ret = hpc_seterr("'%s': not a table of phases (no '# hpcprof "
				 "phases 1' line)", path.buf);
	for (line = sb.buf; !ret && line < sb.buf + sb.len; line = nl + 1) {
		nl = strchr(line, '\n');
		r.lineno++;
		if (!nl) {
			ret = bad(&r, "truncated (no newline at the end)");
			break;
		}
		if (nl - line > PHASEVIEW_MAX_LINE)
			ret = bad(&r, "line too long");
		else {
			*nl = '\0';
			ret = parse_line(&r, line);
		}
	}
	if (!ret) {
		group(&r);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/threads.tsv", m->dbdir);
		/* without it threads keep their numbers */
		(void)thread_names_read(&r.pv->names, path.buf);
	}
	hmap_free(r.kinds);
	free(r.kt_kind);
	strbuf_release(&sb);
	strbuf_release(&path);
	if (ret) {
		phaseview_free(r.pv);
		return NULL;
	}
	return r.pv;
}

const struct phase_site *phaseview_site(const struct phaseview *pv,
					uint32_t id)
{
	uintptr_t v = (uintptr_t)hmap_get(pv->ids, &id, sizeof(id));

	return v ? &pv->sites[v - 1] : NULL;
}

/* A new line of kind, scope; returns its text to fill. */
static struct strbuf *add_line(struct phaseview *pv, enum pv_line_kind kind,
			       uint32_t scope)
{
	if (pv->nlines == pv->lines_alloc) {
		size_t old = pv->lines_alloc;

		HPC_GROW(pv->lines, pv->nlines + 1, pv->lines_alloc);
		pv->text = xrealloc(pv->text, pv->lines_alloc *
				    sizeof(*pv->text));
		while (old < pv->lines_alloc)
			strbuf_init(&pv->text[old++]);
	}
	pv->lines[pv->nlines].kind = kind;
	pv->lines[pv->nlines].scope = scope;
	return &pv->text[pv->nlines++];
}

/* The strip of thread t at site s: one cell per kept episode. */
static void add_strip(const struct phaseview *pv, const struct phase_site *s,
		      uint32_t t, struct strbuf *sb)
{
	static const char shades[] = PHASEVIEW_SHADES;
	size_t i, n = 0;

	strbuf_addstr(sb, "  |");
	for (i = s->first_episode; i < s->first_episode + s->nepisodes; i++) {
		const struct phase_episode *e = &pv->episodes[i];
		int level;

		if (e->thread != t)
			continue;
		level = s->max_wait > 0 && e->wait > 0 ?
			1 + (int)(3.999 * e->wait / s->max_wait) : 0;
		strbuf_addch(sb, shades[level > 4 ? 4 : level]);
		n++;
	}
	strbuf_addch(sb, '|');
	if (!n)
		sb->len -= 4, sb->buf[sb->len] = '\0';
}

/* "F:L" of scope s (its file's base name), or "" without a line. */
static void add_place(const struct model *m, uint32_t s, struct strbuf *sb)
{
	const char *file = model_str(m, m->scopes[s].file), *slash;

	slash = strrchr(file, '/');
	if (m->scopes[s].line)
		strbuf_addf(sb, "%s:%u", slash ? slash + 1 : file,
			    m->scopes[s].line);
}

/* The code of a phase kind: scope s's subtree to depth levels below. */
static void add_code(struct phaseview *pv, const struct model *m, int met,
		     uint32_t s, size_t depth, size_t level)
{
	uint32_t c;

	for (c = m->scopes[s].first_child; c != MODEL_NONE && level <= depth;
	     c = m->scopes[c].next_sibling) {
		const struct scope *sc = &m->scopes[c];
		struct strbuf *sb = add_line(pv, PV_CODE, c);

		if (met >= 0)
			strbuf_addf(sb, "%12.6g", model_value(m, c,
							      (size_t)met));
		else
			strbuf_addf(sb, "%12s", "");
		strbuf_addf(sb, "%*s", (int)(2 * level + 4), "");
		switch (sc->kind) {
		case SK_PROC: case SK_INLINE:
			strbuf_addstr(sb, model_str(m, sc->name));
			break;
		case SK_LOOP:
			strbuf_addstr(sb, "loop at ");
			add_place(m, c, sb);
			break;
		default:
			add_place(m, c, sb);
			break;
		}
		add_code(pv, m, met, c, depth, level + 1);
	}
}

static const struct phaseview *sort_pv;

/* Barriers by summed wait, then locks by lock wait; file order on ties. */
static int cmp_site(const void *a, const void *b)
{
	const struct phase_site *x = &sort_pv->sites[*(const size_t *)a];
	const struct phase_site *y = &sort_pv->sites[*(const size_t *)b];
	int xl = x->lock_calls > 0 && x->episodes == 0;
	int yl = y->lock_calls > 0 && y->episodes == 0;
	double u = xl ? x->lock_wait : x->wait, v = yl ? y->lock_wait : y->wait;

	if (xl != yl)
		return xl - yl;
	if (u != v)
		return u > v ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* "pthread_barrier_wait at prog.c:23 [worker]", or thread start. */
static void site_name(const struct phaseview *pv, uint32_t id,
		      struct strbuf *sb)
{
	const struct phase_site *s = id ? phaseview_site(pv, id) : NULL;

	if (s)
		strbuf_addf(sb, "%s at %s", s->function, s->location);
	else
		strbuf_addstr(sb, "thread start");
}

static void barrier_lines(struct phaseview *pv, const struct phase_site *s)
{
	struct strbuf *sb = add_line(pv, PV_SITE, MODEL_NONE);
	size_t i;

	strbuf_addf(sb, "%12.6f %12.6f %9" PRIu64 " %9" PRIu64 " %7.3f %12.6f"
		    "  %s at %s (%s, %u threads)", s->wait, s->work,
		    s->episodes, s->last, s->lb, s->gain, s->function,
		    s->location, s->kind, s->threads);
	for (i = s->first_thread; i < s->first_thread + s->nthreads; i++) {
		const struct phase_thread *t = &pv->threads[i];

		sb = add_line(pv, PV_THREAD, MODEL_NONE);
		strbuf_addf(sb, "%12.6f %12.6f %9" PRIu64 " %9" PRIu64
			    " %7s %12s    ", t->wait, t->work,
			    t->episodes, t->last, "", "");
		thread_names_label(&pv->names, t->thread, sb);
		add_strip(pv, s, t->thread, sb);
	}
}

static void lock_lines(struct phaseview *pv, const struct phase_site *s)
{
	struct strbuf *sb = add_line(pv, PV_SITE, MODEL_NONE);
	size_t i;

	strbuf_addf(sb, "%12.6f %9" PRIu64 " %9" PRIu64 "  %s at %s", s->lock_wait,
		    s->lock_calls, s->lock_blocked, s->function, s->location);
	for (i = s->first_thread; i < s->first_thread + s->nthreads; i++) {
		const struct phase_thread *t = &pv->threads[i];

		sb = add_line(pv, PV_THREAD, MODEL_NONE);
		strbuf_addf(sb, "%12.6f %9" PRIu64 " %9" PRIu64 "    ",
			    t->lock_wait, t->lock_calls, t->lock_blocked);
		thread_names_label(&pv->names, t->thread, sb);
	}
}

/* The model scope with database id node, or MODEL_NONE. */
static uint32_t scope_of(const struct model *m, struct hmap *ids,
			 uint32_t node)
{
	uintptr_t v = node ? (uintptr_t)hmap_get(ids, &node, sizeof(node)) : 0;

	(void)m;
	return v ? (uint32_t)(v - 1) : MODEL_NONE;
}

void phaseview_lines(struct phaseview *pv, const struct model *m, int met,
		     size_t depth)
{
	size_t *order = xcalloc(pv->nsites + 1, sizeof(*order)), i, k;
	struct hmap *ids = hmap_new();	/* phase node -> scope + 1 */
	int locks = 0;

	for (i = 0; i < pv->nkinds; i++)
		hmap_put(ids, &pv->kinds[i].node, sizeof(pv->kinds[i].node),
			 NULL);
	for (i = 1; i < m->nscopes; i++)
		if (hmap_lookup(ids, &m->scopes[i].id, sizeof(uint32_t), NULL))
			hmap_put(ids, &m->scopes[i].id, sizeof(uint32_t),
				 (void *)(uintptr_t)(i + 1));
	for (i = 0; i < pv->nlines; i++)
		strbuf_reset(&pv->text[i]);
	pv->nlines = 0;
	for (i = 0; i < pv->nsites; i++)
		order[i] = i;
	sort_pv = pv;
	qsort(order, pv->nsites, sizeof(*order), cmp_site);	/* never NULL */
	strbuf_addf(add_line(pv, PV_HEADING, MODEL_NONE),
		    "%12s %12s %9s %9s %7s %12s  %s", "wait (s)", "work (s)",
		    "episodes", "last arr.", "LB eff", "gain (s)",
		    "barrier (strip: one cell per episode, darker = longer "
		    "wait)");
	for (k = 0; k < pv->nsites; k++) {
		const struct phase_site *s = &pv->sites[order[k]];

		if (s->lock_calls > 0 && s->episodes == 0) {
			if (!locks++)
				strbuf_addf(add_line(pv, PV_HEADING,
						     MODEL_NONE),
					    "%12s %9s %9s  %s", "lock wait (s)",
					    "calls", "blocked", "lock (by "
					    "waiting context)");
			lock_lines(pv, s);
		} else {
			barrier_lines(pv, s);
		}
	}
	if (pv->hidden_locks)
		strbuf_addf(add_line(pv, PV_HEADING, MODEL_NONE),
			    "%12.6f %9s %9s  (%" PRIu64 " lock site%s of the "
			    "MPI runtime left out: hpcprof --all-locks)",
			    pv->hidden_wait, "", "", pv->hidden_locks,
			    pv->hidden_locks == 1 ? "" : "s");
	if (pv->nkinds)
		strbuf_addf(add_line(pv, PV_HEADING, MODEL_NONE),
			    "%12s %12s %9s %9s %7s  %s", "work (s)",
			    "wall (s)", "phases", "threads", "LB eff",
			    "phase kind (code below: the per-phase profile)");
	for (i = 0; i < pv->nkinds; i++) {
		const struct phase_kind *pk = &pv->kinds[i];
		uint32_t s = scope_of(m, ids, pk->node);
		struct strbuf *sb = add_line(pv, PV_PHASE, s);

		strbuf_addf(sb, "%12.6f %12.6f %9" PRIu64 " %9u %7.3f  from ",
			    pk->work, pk->wall, pk->count, pk->threads,
			    pk->lb);
		site_name(pv, pk->start, sb);
		strbuf_addstr(sb, " to ");
		site_name(pv, pk->end, sb);
		for (k = pk->first_thread; k < pk->first_thread + pk->nthreads;
		     k++) {
			const struct phase_kthread *t = &pv->kthreads[k];
			struct strbuf *tb = add_line(pv, PV_THREAD,
						     MODEL_NONE);

			strbuf_addf(tb, "%12.6f %12.6f %9" PRIu64 " %9s %7s"
				    "    ", t->work, t->wall, t->count, "", "");
			thread_names_label(&pv->names, t->thread, tb);
		}
		if (s != MODEL_NONE && depth > 0)
			add_code(pv, m, met, s, depth - 1, 0);
	}
	hmap_free(ids);
	free(order);
}

int phaseview_print(struct phaseview *pv, size_t width, FILE *out)
{
	size_t i;

	for (i = 0; i < pv->nlines; i++) {
		size_t n = pv->text[i].len;

		fwrite(pv->text[i].buf, 1, width && n > width ? width : n, out);
		putc('\n', out);
	}
	if (fflush(out) || ferror(out))
		return hpc_seterr("write error: %s", strerror(errno));
	return 0;
}

int phaseview_print_csv(const struct phaseview *pv, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, k;

	fputs("site,kind,thread,episodes,wait_s,work_s,last_arrivals,"
	      "completion_s,lock_calls,lock_blocked,lock_wait_s,location\n",
	      out);
	for (i = 0; i < pv->nsites; i++) {
		const struct phase_site *s = &pv->sites[i];

		fprintf(out, "%u,%s,all,%" PRIu64 ",%.9f,%.9f,%" PRIu64
			",%.9f,%" PRIu64 ",%" PRIu64 ",%.9f,", s->id, s->kind,
			s->episodes, s->wait, s->work, s->last, s->completion,
			s->lock_calls, s->lock_blocked, s->lock_wait);
		stdio_csv_field(out, s->location);
		putc('\n', out);
		for (k = s->first_thread; k < s->first_thread + s->nthreads;
		     k++) {
			const struct phase_thread *t = &pv->threads[k];

			fprintf(out, "%u,%s,%s,%" PRIu64 ",%.9f,%.9f,%" PRIu64
				",%.9f,%" PRIu64 ",%" PRIu64 ",%.9f,", s->id,
				s->kind,
				thread_names_field(&pv->names, t->thread, &sb),
				t->episodes, t->wait,
				t->work, t->last, t->completion, t->lock_calls,
				t->lock_blocked, t->lock_wait);
			stdio_csv_field(out, s->location);
			putc('\n', out);
		}
	}
	for (i = 0; i < pv->nkinds; i++) {
		const struct phase_kind *pk = &pv->kinds[i];

		fprintf(out, "%u-%u,phase,all,%" PRIu64 ",,%.9f,,,,,,\n",
			pk->start, pk->end, pk->count, pk->work);
		for (k = pk->first_thread; k < pk->first_thread + pk->nthreads;
		     k++)
			fprintf(out, "%u-%u,phase,%s,%" PRIu64 ",,%.9f,,,,,,\n",
				pk->start, pk->end,
				thread_names_field(&pv->names,
						   pv->kthreads[k].thread, &sb),
				pv->kthreads[k].count, pv->kthreads[k].work);
	}
	strbuf_release(&sb);
	if (fflush(out) || ferror(out))
		return hpc_seterr("write error: %s", strerror(errno));
	return 0;
}
