/*
 * timeline.c - the per-thread timeline of barrier episodes (timeline.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "infile.h"
#include "strbuf.h"
#include "textrec.h"
#include "timeline.h"

#define MAX_PHASES_BYTES ((uint64_t)16 << 30)
#define PAD 10
#define LABEL_WIDTH 90		/* at least, for "thread N" left of the lanes */
#define LABEL_CHAR 7		/* pixels a character of a label takes */
#define TITLE_HEIGHT 26
#define LANE_HEIGHT 14

/* One episode record: "episode SITE THREAD N WAIT WORK ORDER LAST", then
 * any later fields (invariant 1). */
static int parse_episode(const char *line, struct timeline_episode *ep)
{
	unsigned long site, thread;
	uint64_t n;
	int order, last, used = 0;

	if (sscanf(line, "episode\t%lu\t%lu\t%" SCNu64 "\t%lf\t%lf\t%d\t%d%n",
		   &site, &thread, &n, &ep->wait, &ep->work, &order, &last,
		   &used) != 7 || (line[used] && line[used] != '\n' &&
				    line[used] != '\t') ||
	    site > UINT32_MAX || thread > UINT32_MAX || !(ep->wait >= 0) ||
	    !(ep->work >= 0) || (last != 0 && last != 1))
		return -1;
	ep->site = (uint32_t)site;
	ep->thread = (uint32_t)thread;
	ep->n = n;
	ep->last = last;
	return 0;
}

/* A site record's number and where the user's code calls it (its 19th
 * field, location; else its 4th, the function), kept for the episodes'
 * titles; fields after the 19th are for later formats.  A site record the
 * reader cannot use leaves the site unnamed. */
#define SITE_FIELDS_MAX 64
static void note_site(char *line, struct timeline *tl, size_t *alloc)
{
	char *field[SITE_FIELDS_MAX], *end;
	unsigned long id;
	int n;

	line[strcspn(line, "\n")] = '\0';
	n = textrec_split(line, '\t', field, SITE_FIELDS_MAX);
	if (n < 4)
		return;
	errno = 0;
	id = strtoul(field[1], &end, 10);
	if (errno || end == field[1] || *end || id > UINT32_MAX)
		return;
	HPC_GROW(tl->sites, tl->nsites + 1, *alloc);
	tl->sites[tl->nsites].site = (uint32_t)id;
	tl->sites[tl->nsites].where = xstrdup(n >= 19 && *field[18] ? field[18] : field[3]);
	tl->nsites++;
}

static int read_episodes(FILE *f, const char *path, struct timeline *tl)
{
	char *line = NULL;
	size_t cap = 0, lineno = 0, alloc = 0, site_alloc = 0;
	int ret = 0;

	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (!strncmp(line, "site\t", 5)) {
			note_site(line, tl, &site_alloc);
			continue;
		}
		if (strncmp(line, "episode\t", 8))
			continue;	/* invariant 1 */
		HPC_GROW(tl->ep, tl->nep + 1, alloc);
		if (parse_episode(line, &tl->ep[tl->nep]) < 0) {
			hpc_seterr("'%s': line %zu: malformed episode record",
				   path, lineno);
			ret = -1;
			break;
		}
		tl->nep++;
	}
	free(line);
	return ret;
}

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

/* The lanes' names from DBDIR/threads.tsv ("thread N" without it) and
 * the width their labels take. */
static void name_lanes(const char *dbdir, struct timeline *tl)
{
	struct strbuf path = STRBUF_INIT, label = STRBUF_INIT;
	size_t i;

	strbuf_addf(&path, "%s/threads.tsv", dbdir);
	(void)thread_names_read(&tl->names, path.buf);
	tl->label_width = LABEL_WIDTH;
	for (i = 0; i < tl->nlanes; i++) {
		strbuf_reset(&label);
		thread_names_label(&tl->names, tl->lane_thread[i], &label);
		if ((double)label.len * LABEL_CHAR + PAD > tl->label_width)
			tl->label_width = (double)label.len * LABEL_CHAR + PAD;
	}
	strbuf_release(&label);
	strbuf_release(&path);
}

int timeline_load(const char *dbdir, struct timeline **out)
{
	struct strbuf path = STRBUF_INIT;
	struct timeline *tl;
	struct stat st;
	FILE *f;
	int ret;

	*out = NULL;
	strbuf_addf(&path, "%s/phases.tsv", dbdir);
	if (lstat(path.buf, &st) != 0 && errno == ENOENT) {
		strbuf_release(&path);
		return 0;
	}
	f = infile_fopen(path.buf, MAX_PHASES_BYTES, "a table of phases");
	if (!f) {
		strbuf_release(&path);
		return -1;
	}
	tl = xcalloc(1, sizeof(*tl));
	ret = read_episodes(f, path.buf, tl);
	fclose(f);
	strbuf_release(&path);
	if (ret < 0 || !tl->nep) {
		timeline_free(tl);
		return ret;
	}
	assign_lanes(tl);
	assign_columns(tl);
	name_lanes(dbdir, tl);
	*out = tl;
	return 0;
}

void timeline_free(struct timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	free(tl->ep);
	free(tl->col_x);
	free(tl->col_width);
	free(tl->lane_thread);
	for (i = 0; i < tl->nsites; i++)
		free(tl->sites[i].where);
	free(tl->sites);
	thread_names_release(&tl->names);
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

/* Where site is called, from its site record, or NULL. */
static const char *site_where(const struct timeline *tl, uint32_t site)
{
	size_t i;

	for (i = 0; i < tl->nsites; i++)
		if (tl->sites[i].site == site)
			return tl->sites[i].where;
	return NULL;
}

void timeline_write(const struct timeline *tl, struct xmlw *w, double y,
		    double width)
{
	const char *where;
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
		thread_names_label(&tl->names, tl->lane_thread[i], &sb);
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
		thread_names_label(&tl->names, ep->thread, &sb);
		strbuf_addf(&sb, ", episode %" PRIu64 " at site %" PRIu32,
			    ep->n, ep->site);
		if ((where = site_where(tl, ep->site)))
			strbuf_addf(&sb, " (%s)", where);
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
