/*
 * timeline.c - the per-thread timeline of barrier episodes (timeline.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "timeline.h"

#define PAD 10
#define LABEL_WIDTH 90		/* at least, for "thread N" left of the lanes */
#define LABEL_CHAR 7		/* pixels a character of a label takes */
#define TITLE_HEIGHT 26
#define LANE_HEIGHT 14

static int cmp_column(const void *pa, const void *pb)
{
	typedef const struct timeline_episode *ep_ptr;
	ep_ptr a = *(const ep_ptr *)pa, b = *(const ep_ptr *)pb;

	if (a->n != b->n)
		return a->n < b->n ? -1 : 1;
	if (a->site != b->site)
		return a->site < b->site ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

/* Lanes: the threads, in order; then a binary search per episode. */
static void assign_lanes(struct timeline *tl)
{
	size_t i, k = 0;

	tl->lane_thread = xmalloc(tl->nep * sizeof(*tl->lane_thread));
	for (i = 0; i < tl->nep; i++)
		tl->lane_thread[i] = tl->ep[i].thread;
	qsort(tl->lane_thread, tl->nep, sizeof(*tl->lane_thread), cmp_u32);
	for (i = 0; i < tl->nep; i++)
		if (!k || tl->lane_thread[k - 1] != tl->lane_thread[i])
			tl->lane_thread[k++] = tl->lane_thread[i];
	tl->nlanes = k;
	for (i = 0; i < tl->nep; i++) {
		const uint32_t *p = bsearch(&tl->ep[i].thread, tl->lane_thread,
					    k, sizeof(*p), cmp_u32);

		tl->ep[i].lane = (uint32_t)(p - tl->lane_thread);
	}
}

/* Invariant 2: columns by (n, site), each as wide as its longest
 * work + wait. */
static void assign_columns(struct timeline *tl)
{
	struct timeline_episode **by = xmalloc(tl->nep * sizeof(*by));
	size_t i, alloc = 0;

	for (i = 0; i < tl->nep; i++)
		by[i] = &tl->ep[i];
	qsort(by, tl->nep, sizeof(*by), cmp_column);
	for (i = 0; i < tl->nep; i++) {
		double w = by[i]->work + by[i]->wait;

		if (!i || by[i]->n != by[i - 1]->n ||
		    by[i]->site != by[i - 1]->site) {
			HPC_GROW(tl->col_width, tl->ncols + 1, alloc);
			tl->col_width[tl->ncols++] = 0;
		}
		by[i]->column = (uint32_t)(tl->ncols - 1);
		if (w > tl->col_width[tl->ncols - 1])
			tl->col_width[tl->ncols - 1] = w;
	}
	free(by);
	tl->col_x = xmalloc((tl->ncols ? tl->ncols : 1) * sizeof(*tl->col_x));
	for (i = 0; i < tl->ncols; i++) {
		tl->col_x[i] = tl->span;
		tl->span += tl->col_width[i];
	}
}

/* The width the lanes' labels take. */
static void label_lanes(struct timeline *tl)
{
	struct strbuf label = STRBUF_INIT;
	size_t i;

	tl->label_width = LABEL_WIDTH;
	for (i = 0; i < tl->nlanes; i++) {
		strbuf_reset(&label);
		thread_names_label(&tl->ph->names, tl->lane_thread[i], &label);
		if ((double)label.len * LABEL_CHAR + PAD > tl->label_width)
			tl->label_width = (double)label.len * LABEL_CHAR + PAD;
	}
	strbuf_release(&label);
}

int timeline_load(const char *dbdir, struct timeline **out)
{
	struct timeline *tl;
	struct phases *ph;
	size_t i;
	int missing;

	*out = NULL;
	ph = phases_load(dbdir, &missing);
	if (!ph || !ph->nepisodes) {
		phases_free(ph);
		return ph || missing ? 0 : -1;
	}
	tl = xcalloc(1, sizeof(*tl));
	tl->ph = ph;
	tl->nep = ph->nepisodes;
	tl->ep = xcalloc(tl->nep, sizeof(*tl->ep));
	for (i = 0; i < tl->nep; i++) {
		const struct phase_episode *e = &ph->episodes[i];

		tl->ep[i].site = e->site;
		tl->ep[i].thread = e->thread;
		tl->ep[i].n = e->n;
		tl->ep[i].wait = e->wait;
		tl->ep[i].work = e->work;
		tl->ep[i].last = e->last;
	}
	assign_lanes(tl);
	assign_columns(tl);
	label_lanes(tl);
	*out = tl;
	return 0;
}

void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	free(tl->ep);
	free(tl->col_x);
	free(tl->col_width);
	free(tl->lane_thread);
	phases_free(tl->ph);
	free(tl);
}

double timeline_height(const struct timeline *tl)
{
	return TITLE_HEIGHT + (double)tl->nlanes * LANE_HEIGHT + PAD;
}

static void bar(struct xmlw *w, const char *cls, double x, double y,
		double width, const char *fill)
{
	xmlw_start(w, "rect");
	xmlw_attr(w, "class", cls);
	xmlw_attrf(w, "x", "%.3f", x);
	xmlw_attrf(w, "y", "%.0f", y);
	xmlw_attrf(w, "width", "%.3f", width);
	xmlw_attrf(w, "height", "%d", LANE_HEIGHT - 2);
	xmlw_attr(w, "fill", fill);
	xmlw_end(w);
}

/* Where site is called, from its site row. */
static const char *site_where(const struct timeline *tl, uint32_t site)
{
	const struct phase_site *s = phases_site(tl->ph, site);

	return *s->location ? s->location : s->function;
}

void timeline_write(const struct timeline *tl, struct xmlw *w, double y,
		    double width)
{
	double x0 = PAD + tl->label_width;
	double scale = tl->span > 0 ? (width - PAD - x0) / tl->span : 0;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	xmlw_start(w, "text");
	xmlw_attr(w, "id", "timeline");
	xmlw_attrf(w, "x", "%d", PAD);
	xmlw_attrf(w, "y", "%.0f", y + 18);
	xmlw_attr(w, "style", "font-size: 15px");
	xmlw_text(w, "Timeline: barrier episodes per thread (work, then wait "
		  "in grey; red: the thread that arrived last)");
	xmlw_end(w);
	for (i = 0; i < tl->nlanes; i++) {
		strbuf_reset(&sb);
		thread_names_label(&tl->ph->names, tl->lane_thread[i], &sb);
		xmlw_start(w, "text");
		xmlw_attr(w, "class", "lane");
		xmlw_attrf(w, "x", "%d", PAD);
		xmlw_attrf(w, "y", "%.0f",
			   y + TITLE_HEIGHT + (double)i * LANE_HEIGHT + 10);
		xmlw_text(w, sb.buf);
		xmlw_end(w);
	}
	for (i = 0; i < tl->nep; i++) {
		const struct timeline_episode *ep = &tl->ep[i];
		double x = x0 + tl->col_x[ep->column] * scale;
		double ly = y + TITLE_HEIGHT + (double)ep->lane * LANE_HEIGHT;

		xmlw_start(w, "g");
		xmlw_attr(w, "class", ep->last ? "episode late" : "episode");
		strbuf_reset(&sb);
		thread_names_label(&tl->ph->names, ep->thread, &sb);
		strbuf_addf(&sb, ", episode %" PRIu64 " at site %" PRIu32,
			    ep->n, ep->site);
		strbuf_addf(&sb, " (%s)", site_where(tl, ep->site));
		strbuf_addf(&sb, ": work %.4g s, wait %.4g s%s",
			    ep->work, ep->wait,
			    ep->last ? ", arrived last" : "");
		xmlw_start(w, "title");
		xmlw_text(w, sb.buf);
		xmlw_end(w);
		bar(w, "work", x, ly, ep->work * scale,
		    ep->last ? "rgb(220,60,40)" : "rgb(90,170,90)");
		bar(w, "wait", x + ep->work * scale, ly, ep->wait * scale,
		    "rgb(190,190,190)");
		xmlw_end(w);
	}
	strbuf_release(&sb);
}
