/* phaseview.c - see phaseview.h and hpcprof-database(5) (phases.tsv). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "phaseview.h"
#include "stdio-out.h"

void phaseview_free(struct phaseview *pv)
{
	size_t i;

	if (!pv)
		return;
	phases_free(pv->ph);
	for (i = 0; i < pv->nlines; i++)
		strbuf_release(&pv->text[i]);
	free(pv->text);
	free(pv->lines);
	free(pv);
}

struct phaseview *phaseview_load(const struct model *m, int *missing)
{
	struct phases *ph = phases_load(m->dbdir, missing);
	struct phaseview *pv;

	if (!ph)
		return NULL;
	pv = xcalloc(1, sizeof(*pv));
	pv->ph = ph;
	return pv;
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
	memset(&pv->lines[pv->nlines], 0, sizeof(pv->lines[pv->nlines]));
	pv->lines[pv->nlines].kind = kind;
	pv->lines[pv->nlines].scope = scope;
	return &pv->text[pv->nlines++];
}

/* Invariant 3: the last line's label starts here, after its number
 * columns; the first keep characters are the two kept. */
static void mark_label(struct phaseview *pv, size_t keep)
{
	struct pv_line *l = &pv->lines[pv->nlines - 1];

	l->keep = (uint32_t)keep;
	l->label = (uint32_t)pv->text[pv->nlines - 1].len;
}

/* Invariant 3: the characters of the number columns a line too long
 * keeps, the first two: wait and work (barriers) or work and wall (phase
 * kinds), lock wait and calls (locks). */
#define KEEP_TIMES 25
#define KEEP_LOCKS 22

/* The strip of thread t at site s: one cell per kept episode. */
static void add_strip(const struct phaseview *pv, const struct phase_site *s,
		      uint32_t t, struct strbuf *sb)
{
	static const char shades[] = PHASEVIEW_SHADES;
	size_t i, n = 0;

	strbuf_addstr(sb, "  |");
	for (i = s->first_episode; i < s->first_episode + s->nepisodes; i++) {
		const struct phase_episode *e = &pv->ph->episodes[i];
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

/* "F:L" of scope s (its file's base name), without a line its module and
 * address ("libgomp.so.1+0x1cd7e", as the top-down view places it), else
 * "". */
static void add_place(const struct model *m, uint32_t s, struct strbuf *sb)
{
	const struct scope *sc = &m->scopes[s];
	const char *file = model_str(m, sc->file), *slash;

	if (!sc->line && sc->addr && sc->lm)
		file = model_str(m, sc->lm);
	slash = strrchr(file, '/');
	if (sc->line)
		strbuf_addf(sb, "%s:%u", slash ? slash + 1 : file, sc->line);
	else if (sc->addr && sc->lm)
		strbuf_addf(sb, "%s+0x%x", slash ? slash + 1 : file, sc->addr);
}

/* Does scope s or a scope below it have a source line (invariant 4)?
 * memo[s]: 0 not known yet, 1 no, 2 yes. */
static int sourced(const struct model *m, uint32_t s, uint8_t *memo)
{
	uint32_t c;
	int yes = m->scopes[s].line != 0;

	if (memo[s])
		return memo[s] == 2;
	for (c = m->scopes[s].first_child; !yes && c != MODEL_NONE;
	     c = m->scopes[c].next_sibling)
		yes = sourced(m, c, memo);
	memo[s] = yes ? 2 : 1;
	return yes;
}

/* The code of a phase kind: scope s's subtree to depth levels below, a
 * runtime's frames above the program's code taking no level (invariant
 * 4). */
static void add_code(struct phaseview *pv, const struct model *m, int met,
		     uint32_t s, size_t depth, size_t level, uint8_t *memo)
{
	uint32_t c;

	for (c = m->scopes[s].first_child; c != MODEL_NONE && level <= depth;
	     c = m->scopes[c].next_sibling) {
		const struct scope *sc = &m->scopes[c];
		struct strbuf *sb;

		if (!sc->line && sc->kind != SK_INLINE && sourced(m, c, memo)) {
			add_code(pv, m, met, c, depth, level, memo);
			continue;
		}
		sb = add_line(pv, PV_CODE, c);
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
		add_code(pv, m, met, c, depth, level + 1, memo);
	}
}

static const struct phaseview *sort_pv;

/* Barriers by summed wait, then locks by lock wait; file order on ties. */
static int cmp_site(const void *a, const void *b)
{
	const struct phase_site *x = &sort_pv->ph->sites[*(const size_t *)a];
	const struct phase_site *y = &sort_pv->ph->sites[*(const size_t *)b];
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
	const struct phase_site *s = id ? phases_site(pv->ph, id) : NULL;

	if (s)
		strbuf_addf(sb, "%s at %s", s->function, s->location);
	else
		strbuf_addstr(sb, "thread start");
}

static void barrier_lines(struct phaseview *pv, const struct phase_site *s)
{
	struct strbuf *sb = add_line(pv, PV_SITE, MODEL_NONE);
	size_t i;

	strbuf_addf(sb, "%12.6f %12.6f %9" PRIu64 " %9" PRIu64 " %7.3f %12.6f",
		    s->wait, s->work, s->episodes, s->last, s->lb, s->gain);
	mark_label(pv, KEEP_TIMES);
	strbuf_addf(sb, "  %s at %s", s->function, s->location);
	pv->lines[pv->nlines - 1].detail = (uint32_t)sb->len;
	strbuf_addf(sb, " (%s, %u threads)", s->kind, s->threads);
	for (i = s->first_thread; i < s->first_thread + s->nthreads; i++) {
		const struct phase_thread *t = &pv->ph->threads[i];

		sb = add_line(pv, PV_THREAD, MODEL_NONE);
		strbuf_addf(sb, "%12.6f %12.6f %9" PRIu64 " %9" PRIu64
			    " %7s %12s", t->wait, t->work,
			    t->episodes, t->last, "", "");
		mark_label(pv, KEEP_TIMES);
		strbuf_addstr(sb, "    ");
		thread_names_label(&pv->ph->names, t->thread, sb);
		add_strip(pv, s, t->thread, sb);
	}
}

static void lock_lines(struct phaseview *pv, const struct phase_site *s)
{
	struct strbuf *sb = add_line(pv, PV_SITE, MODEL_NONE);
	size_t i;

	strbuf_addf(sb, "%12.6f %9" PRIu64 " %9" PRIu64, s->lock_wait,
		    s->lock_calls, s->lock_blocked);
	mark_label(pv, KEEP_LOCKS);
	strbuf_addf(sb, "  %s at %s", s->function, s->location);
	for (i = s->first_thread; i < s->first_thread + s->nthreads; i++) {
		const struct phase_thread *t = &pv->ph->threads[i];

		sb = add_line(pv, PV_THREAD, MODEL_NONE);
		strbuf_addf(sb, "%12.6f %9" PRIu64 " %9" PRIu64,
			    t->lock_wait, t->lock_calls, t->lock_blocked);
		mark_label(pv, KEEP_LOCKS);
		strbuf_addstr(sb, "    ");
		thread_names_label(&pv->ph->names, t->thread, sb);
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
	size_t *order = xcalloc(pv->ph->nsites + 1, sizeof(*order)), i, k;
	struct hmap *ids = hmap_new();	/* phase node -> scope + 1 */
	uint8_t *memo = xcalloc(m->nscopes ? m->nscopes : 1, 1);
	struct strbuf *sb;
	int locks = 0;

	for (i = 0; i < pv->ph->nkinds; i++)
		hmap_put(ids, &pv->ph->kinds[i].node, sizeof(pv->ph->kinds[i].node),
			 NULL);
	for (i = 1; i < m->nscopes; i++)
		if (hmap_lookup(ids, &m->scopes[i].id, sizeof(uint32_t), NULL))
			hmap_put(ids, &m->scopes[i].id, sizeof(uint32_t),
				 (void *)(uintptr_t)(i + 1));
	for (i = 0; i < pv->nlines; i++)
		strbuf_reset(&pv->text[i]);
	pv->nlines = 0;
	pv->fit_width = 0;
	for (i = 0; i < pv->ph->nsites; i++)
		order[i] = i;
	sort_pv = pv;
	qsort(order, pv->ph->nsites, sizeof(*order), cmp_site);	/* never NULL */
	sb = add_line(pv, PV_HEADING, MODEL_NONE);
	strbuf_addf(sb, "%12s %12s %9s %9s %7s %12s", "wait (s)", "work (s)",
		    "episodes", "last arr.", "LB eff", "gain (s)");
	mark_label(pv, KEEP_TIMES);
	strbuf_addstr(sb, "  barrier (strip: one cell per episode, darker = "
		      "longer wait)");
	for (k = 0; k < pv->ph->nsites; k++) {
		const struct phase_site *s = &pv->ph->sites[order[k]];

		if (s->lock_calls > 0 && s->episodes == 0) {
			if (!locks++) {
				sb = add_line(pv, PV_HEADING, MODEL_NONE);
				strbuf_addf(sb, "%12s %9s %9s", "lock wait (s)",
					    "calls", "blocked");
				mark_label(pv, KEEP_LOCKS);
				strbuf_addstr(sb, "  lock (by waiting "
					      "context)");
			}
			lock_lines(pv, s);
		} else {
			barrier_lines(pv, s);
		}
	}
	if (pv->ph->hidden_locks)
		strbuf_addf(add_line(pv, PV_HEADING, MODEL_NONE),
			    "%12.6f %9s %9s  (%" PRIu64 " lock site%s of the "
			    "MPI runtime left out: hpcprof --all-locks)",
			    pv->ph->hidden_wait, "", "", pv->ph->hidden_locks,
			    pv->ph->hidden_locks == 1 ? "" : "s");
	if (pv->ph->nkinds) {
		sb = add_line(pv, PV_HEADING, MODEL_NONE);
		strbuf_addf(sb, "%12s %12s %9s %9s %7s", "work (s)",
			    "wall (s)", "phases", "threads", "LB eff");
		mark_label(pv, KEEP_TIMES);
		strbuf_addstr(sb, "  phase kind (code below: the per-phase "
			      "profile)");
	}
	for (i = 0; i < pv->ph->nkinds; i++) {
		const struct phase_kind *pk = &pv->ph->kinds[i];
		uint32_t s = scope_of(m, ids, pk->node);

		sb = add_line(pv, PV_PHASE, s);
		strbuf_addf(sb, "%12.6f %12.6f %9" PRIu64 " %9u %7.3f",
			    pk->work, pk->wall, pk->count, pk->threads,
			    pk->lb);
		mark_label(pv, KEEP_TIMES);
		strbuf_addstr(sb, "  from ");
		site_name(pv, pk->start, sb);
		strbuf_addstr(sb, " to ");
		site_name(pv, pk->end, sb);
		for (k = pk->first_thread; k < pk->first_thread + pk->nthreads;
		     k++) {
			const struct phase_kthread *t = &pv->ph->kthreads[k];
			struct strbuf *tb = add_line(pv, PV_THREAD,
						     MODEL_NONE);

			strbuf_addf(tb, "%12.6f %12.6f %9" PRIu64 " %9s %7s",
				    t->work, t->wall, t->count, "", "");
			mark_label(pv, KEEP_TIMES);
			strbuf_addstr(tb, "    ");
			thread_names_label(&pv->ph->names, t->thread, tb);
		}
		if (s != MODEL_NONE && depth > 0)
			add_code(pv, m, met, s, depth - 1, 0, memo);
	}
	for (i = 0; i < pv->nlines; i++)
		stdio_one_line(&pv->text[i], 0);
	hmap_free(ids);
	free(memo);
	free(order);
}

/* Invariant 3: which sections are compact at width. */
static void fit_sections(struct phaseview *pv, size_t width)
{
	size_t i = 0, j, k;

	while (i < pv->nlines) {
		int compact = 0;

		for (j = i + 1; j < pv->nlines &&
		     pv->lines[j].kind != PV_HEADING; j++)
			;
		for (k = i; k < j; k++)
			compact |= pv->lines[k].label &&
				   pv->text[k].len > width;
		for (k = i; k < j; k++)
			pv->lines[k].compact = compact &&
				pv->lines[k].label &&
				pv->lines[k].keep + STDIO_SCOPE_MIN <= width;
		i = j;
	}
	pv->fit_width = width;
}

void phaseview_fit(struct phaseview *pv, size_t i, size_t width,
		   struct strbuf *out)
{
	const struct strbuf *t = &pv->text[i];
	const struct pv_line *l = &pv->lines[i];

	if (width && width != pv->fit_width)
		fit_sections(pv, width);
	if (!width || (t->len <= width && !l->compact)) {
		strbuf_addstr(out, t->buf);
		return;
	}
	if (l->compact) {
		size_t room = width - l->keep;
		char *label = xstrdup(t->buf + l->label);

		if (l->detail && t->len - l->label > room)
			label[l->detail - l->label] = '\0';
		strbuf_add(out, t->buf, l->keep);
		stdio_add_elided(out, label, room);
		free(label);
		return;
	}
	strbuf_add(out, t->buf, width);
}

int phaseview_print(struct phaseview *pv, size_t width, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < pv->nlines; i++) {
		strbuf_reset(&sb);
		phaseview_fit(pv, i, width, &sb);
		fwrite(sb.buf, 1, sb.len, out);
		putc('\n', out);
	}
	strbuf_release(&sb);
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
	for (i = 0; i < pv->ph->nsites; i++) {
		const struct phase_site *s = &pv->ph->sites[i];

		fprintf(out, "%u,%s,all,%" PRIu64 ",%.9f,%.9f,%" PRIu64
			",%.9f,%" PRIu64 ",%" PRIu64 ",%.9f,", s->id, s->kind,
			s->episodes, s->wait, s->work, s->last, s->completion,
			s->lock_calls, s->lock_blocked, s->lock_wait);
		stdio_csv_field(out, s->location);
		putc('\n', out);
		for (k = s->first_thread; k < s->first_thread + s->nthreads;
		     k++) {
			const struct phase_thread *t = &pv->ph->threads[k];

			fprintf(out, "%u,%s,%s,%" PRIu64 ",%.9f,%.9f,%" PRIu64
				",%.9f,%" PRIu64 ",%" PRIu64 ",%.9f,", s->id,
				s->kind,
				thread_names_field(&pv->ph->names, t->thread, &sb),
				t->episodes, t->wait,
				t->work, t->last, t->completion, t->lock_calls,
				t->lock_blocked, t->lock_wait);
			stdio_csv_field(out, s->location);
			putc('\n', out);
		}
	}
	for (i = 0; i < pv->ph->nkinds; i++) {
		const struct phase_kind *pk = &pv->ph->kinds[i];

		fprintf(out, "%u-%u,phase,all,%" PRIu64 ",,%.9f,,,,,,\n",
			pk->start, pk->end, pk->count, pk->work);
		for (k = pk->first_thread; k < pk->first_thread + pk->nthreads;
		     k++)
			fprintf(out, "%u-%u,phase,%s,%" PRIu64 ",,%.9f,,,,,,\n",
				pk->start, pk->end,
				thread_names_field(&pv->ph->names,
						   pv->ph->kthreads[k].thread, &sb),
				pv->ph->kthreads[k].count, pv->ph->kthreads[k].work);
	}
	strbuf_release(&sb);
	if (fflush(out) || ferror(out))
		return hpc_seterr("write error: %s", strerror(errno));
	return 0;
}
