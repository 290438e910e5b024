/*
 * hpcrun-fmt-read.c - reader and dumper of .hpcrun 04.00 profiles.
 *
 * Design notes:
 *  1. Only a regular file of at most MAX_PROFILE_BYTES is read (infile.h:
 *     a FIFO or device named *.hpcrun is refused, never waited on).  The
 *     whole file is read into memory, then decoded with one bounds-checked
 *     cursor per section; no read ever goes past the section's end, so a
 *     truncated or corrupt file yields an error naming the file and the
 *     section, never a crash.  Counts are checked against the bytes left
 *     before anything is allocated, so a corrupt count cannot make us
 *     allocate gigabytes.
 *  2. The footer (the last 112 bytes) gives each section's bounds.  When the
 *     footer is missing or inconsistent (a truncated file), the sections are
 *     decoded in order from offset 0, each at the next multiple of 1024, so
 *     the error still says which section is incomplete.
 *  3. After decoding, the CCT is checked: ids unique and non-zero, parents
 *     before children, load-module ids present in the load map; contexts with
 *     values name CCT nodes, their value ranges ascend and end at the number
 *     of values, and every value's metric exists.  Consumers may rely on it.
 *     The nodes are indexed by id for it (hpcrun_node_index_new), in a
 *     table by id when the ids are dense, as hpcrun's are: no sort.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "addrsearch.h"
#include "error.h"
#include "hpcrun-fmt.h"
#include "infile.h"
#include "strbuf.h"

#define MAX_PROFILE_BYTES ((uint64_t)4 << 30)
#define FOOTER_SIZE 112
#define SECTION_ALIGN 1024
#define HEADER_MAGIC_LEN 24
#define NODE_SIZE 19

enum section {
	SEC_HEADER, SEC_LOADMAP, SEC_CCT, SEC_METRICS, SEC_IDKINDS, SEC_VALUES,
	NSECTIONS
};

static const char *const section_name[NSECTIONS] = {
	"header", "load map", "CCT", "metric table",
	"identifier dictionary", "sparse values",
};

struct cursor {
	const unsigned char *data;	/* the whole file */
	size_t pos, end;		/* end = section end */
	const char *path;
	enum section sec;
};

static int trunc_err(const struct cursor *c)
{
	return hpc_seterr("'%s': truncated %s section", c->path,
			  section_name[c->sec]);
}

static int need(const struct cursor *c, uint64_t n)
{
	if (n > c->end - c->pos)
		return trunc_err(c);
	return 0;
}

static uint64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int get(struct cursor *c, int n, uint64_t *out)
{
	if (need(c, n))
		return -1;
	*out = be(c->data + c->pos, n);
	c->pos += n;
	return 0;
}

static int get16(struct cursor *c, uint16_t *out)
{
	uint64_t v;

	if (get(c, 2, &v))
		return -1;
	*out = (uint16_t)v;
	return 0;
}

static int get32(struct cursor *c, uint32_t *out)
{
	uint64_t v;

	if (get(c, 4, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int get64(struct cursor *c, uint64_t *out)
{
	return get(c, 8, out);
}

/* A u32-length string; the result is NUL-terminated and malloc'ed. */
static int getstr(struct cursor *c, const char **out)
{
	uint32_t len;

	if (get32(c, &len) || need(c, len))
		return -1;
	*out = xstrndup((const char *)c->data + c->pos, len);
	c->pos += len;
	return 0;
}

/* Checks that count records of at least minsize bytes can still follow. */
static int need_records(const struct cursor *c, uint64_t count,
			uint64_t minsize)
{
	if (count > (c->end - c->pos) / minsize)
		return hpc_seterr("'%s': truncated %s section (%" PRIu64
				  " records do not fit)", c->path,
				  section_name[c->sec], count);
	return 0;
}

static int read_header(struct cursor *c, struct hpcrun_profile *p)
{
	uint32_t n, i;

	if (need(c, HEADER_MAGIC_LEN))
		return -1;
	if (memcmp(c->data, HPCRUN_FMT_MAGIC, 18))
		return hpc_seterr("'%s': not an hpcrun profile (bad magic)",
				  c->path);
	if (memcmp(c->data + 18, HPCRUN_FMT_VERSION, 5))
		return hpc_seterr("'%s': unsupported hpcrun format version "
				  "'%.5s' (want %s)", c->path,
				  (const char *)c->data + 18,
				  HPCRUN_FMT_VERSION);
	if (c->data[23] != 'b')
		return hpc_seterr("'%s': unsupported byte order '%c' in header",
				  c->path, c->data[23]);
	c->pos += HEADER_MAGIC_LEN;
	if (get32(c, &n) || need_records(c, n, 8))
		return -1;
	p->header = xcalloc(n ? n : 1, sizeof(*p->header));
	for (i = 0; i < n; i++) {
		if (getstr(c, &p->header[i].name))
			return -1;
		p->nheader = i + 1;
		if (getstr(c, &p->header[i].value))
			return -1;
	}
	return 0;
}

static int read_loadmap(struct cursor *c, struct hpcrun_profile *p)
{
	uint32_t n, i;

	if (get32(c, &n) || need_records(c, n, 14))
		return -1;
	p->lms = xcalloc(n ? n : 1, sizeof(*p->lms));
	for (i = 0; i < n; i++) {
		struct hpcrun_lm *lm = &p->lms[i];

		if (get16(c, &lm->id))
			return -1;
		if (getstr(c, &lm->path))
			return -1;
		p->nlms = i + 1;
		if (get64(c, &lm->flags))
			return -1;
		if (lm->id == 0)
			return hpc_seterr("'%s': load map: module '%s' has the "
					  "reserved id 0", c->path, lm->path);
	}
	return 0;
}

static int read_cct(struct cursor *c, struct hpcrun_profile *p)
{
	uint64_t n, i;

	if (get64(c, &n) || need_records(c, n, NODE_SIZE))
		return -1;
	p->nodes = xcalloc(n ? n : 1, sizeof(*p->nodes));
	for (i = 0; i < n; i++) {
		struct hpcrun_node *nd = &p->nodes[i];
		const unsigned char *d = c->data + c->pos;

		nd->id = (uint32_t)be(d, 4);
		nd->parent = (uint32_t)be(d + 4, 4);
		nd->lm = (uint16_t)be(d + 8, 2);
		nd->addr = be(d + 10, 8);
		nd->flags = d[18];
		c->pos += NODE_SIZE;
	}
	p->nnodes = n;
	return 0;
}

static int read_metrics(struct cursor *c, struct hpcrun_profile *p)
{
	uint32_t n, i;

	if (get32(c, &n) || need_records(c, n, 4 + 4 + 16 + 8 + 4 + 4 + 12 + 8))
		return -1;
	p->metrics = xcalloc(n ? n : 1, sizeof(*p->metrics));
	for (i = 0; i < n; i++) {
		struct hpcrun_metric *m = &p->metrics[i];
		uint64_t bits;

		p->nmetrics = i + 1;
		if (getstr(c, &m->name) || getstr(c, &m->description) ||
		    need(c, 16))
			return -1;
		memcpy(m->flags, c->data + c->pos, 16);
		c->pos += 16;
		if (get64(c, &m->period) || getstr(c, &m->formula) ||
		    getstr(c, &m->format) || get16(c, &m->is_frequency) ||
		    get16(c, &m->is_multiplexed) || get64(c, &bits) ||
		    get64(c, &m->nsamples))
			return -1;
		memcpy(&m->threshold, &bits, sizeof(bits));
	}
	return 0;
}

static int read_idkinds(struct cursor *c, struct hpcrun_profile *p)
{
	uint16_t n, i;

	if (get16(c, &n) || need_records(c, n, 6))
		return -1;
	p->idkinds = xcalloc(n ? n : 1, sizeof(*p->idkinds));
	for (i = 0; i < n; i++) {
		if (get16(c, &p->idkinds[i].kind) ||
		    getstr(c, &p->idkinds[i].name))
			return -1;
		p->nidkinds = i + 1;
	}
	return 0;
}

static int read_values(struct cursor *c, struct hpcrun_profile *p)
{
	uint16_t ntuple, i;
	uint32_t nctx, k;
	uint64_t nval, j, end_index;
	uint32_t end_id;

	if (get16(c, &ntuple) || need_records(c, ntuple, 18))
		return -1;
	p->idtuple = xcalloc(ntuple ? ntuple : 1, sizeof(*p->idtuple));
	for (i = 0; i < ntuple; i++) {
		struct hpcrun_id_elem *e = &p->idtuple[i];

		if (get16(c, &e->kind) || get64(c, &e->physical) ||
		    get64(c, &e->logical))
			return -1;
	}
	p->nidtuple = ntuple;
	if (get64(c, &nval) || get32(c, &nctx))
		return -1;
	if (need_records(c, nval, 10) ||
	    need_records(c, (uint64_t)nctx + 1, 12) ||
	    need(c, nval * 10 + ((uint64_t)nctx + 1) * 12))
		return -1;
	p->values = xcalloc(nval ? nval : 1, sizeof(*p->values));
	for (j = 0; j < nval; j++) {
		const unsigned char *d = c->data + c->pos;

		p->values[j].bits = be(d, 8);
		p->values[j].metric = (uint16_t)be(d + 8, 2);
		c->pos += 10;
	}
	p->nvalues = nval;
	p->ctxs = xcalloc(nctx ? nctx : 1, sizeof(*p->ctxs));
	for (k = 0; k < nctx; k++) {
		const unsigned char *d = c->data + c->pos;

		p->ctxs[k].ctx = (uint32_t)be(d, 4);
		p->ctxs[k].first = be(d + 4, 8);
		c->pos += 12;
	}
	p->nctxs = nctx;
	end_id = (uint32_t)be(c->data + c->pos, 4);
	end_index = be(c->data + c->pos + 4, 8);
	c->pos += 12;
	if (end_id != HPCRUN_FMT_END_ID)
		return hpc_seterr("'%s': sparse values section: missing \"end!\" "
				  "marker", c->path);
	if (end_index != nval)
		return hpc_seterr("'%s': sparse values section: end marker index "
				  "%" PRIu64 " != %" PRIu64 " values", c->path,
				  end_index, nval);
	return 0;
}

struct id_pos {
	uint32_t id, pos;
};

/*
 * Nodes by id: a table of positions by id when the ids are dense (at most
 * DENSE_SLACK times the number of nodes, as hpcrun's: 12, 14, 16, ...),
 * else (id, position) pairs sorted by id.
 */
struct hpcrun_node_index {
	int32_t *pos;		uint64_t npos;	/* pos[id], -1: none */
	struct id_pos *ids;	uint64_t nids;
};
#define DENSE_SLACK 4

static int cmp_id_pos(const void *a, const void *b)
{
	const struct id_pos *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

struct hpcrun_node_index *hpcrun_node_index_new(const struct hpcrun_profile *p,
						 uint32_t *dup)
{
	struct hpcrun_node_index *x = xcalloc(1, sizeof(*x));
	uint32_t max = 0;
	uint64_t i;

	*dup = 0;
	for (i = 0; i < p->nnodes; i++)
		if (p->nodes[i].id > max)
			max = p->nodes[i].id;
	if (max <= DENSE_SLACK * p->nnodes + 64) {
		x->npos = (uint64_t)max + 1;
		x->pos = xmalloc(x->npos * sizeof(*x->pos));
		memset(x->pos, 0xff, x->npos * sizeof(*x->pos));
		for (i = 0; i < p->nnodes; i++) {
			uint32_t id = p->nodes[i].id;

			if (x->pos[id] < 0)
				x->pos[id] = (int32_t)i;
			else if (!*dup || id < *dup)
				*dup = id;
		}
		return x;
	}
	x->ids = xcalloc(p->nnodes ? p->nnodes : 1, sizeof(*x->ids));
	x->nids = p->nnodes;
	for (i = 0; i < p->nnodes; i++) {
		x->ids[i].id = p->nodes[i].id;
		x->ids[i].pos = (uint32_t)i;
	}
	if (p->nnodes)
		qsort(x->ids, p->nnodes, sizeof(*x->ids), cmp_id_pos);
	for (i = 1; i < p->nnodes && !*dup; i++)
		if (x->ids[i].id == x->ids[i - 1].id)
			*dup = x->ids[i].id;
	return x;
}

void hpcrun_node_index_free(struct hpcrun_node_index *x)
{
	if (!x)
		return;
	free(x->pos);
	free(x->ids);
	free(x);
}

static int id_before(const void *elem, const void *key)
{
	return ((const struct id_pos *)elem)->id < *(const uint32_t *)key;
}

long hpcrun_node_position(const struct hpcrun_node_index *x, uint32_t id)
{
	size_t lo;

	if (x->pos)
		return id < x->npos ? x->pos[id] : -1;
	lo = addrsearch_partition(x->ids, x->nids, sizeof(*x->ids), id_before,
				  &id);
	return lo < x->nids && x->ids[lo].id == id ? (long)x->ids[lo].pos
						   : -1;
}

/* Sets each load module's used: some node is in it (ids checked). */
static void mark_used(struct hpcrun_profile *p)
{
	unsigned char *used = xcalloc(65536 / 8, 1);
	uint64_t i;

	for (i = 0; i < p->nnodes; i++)
		used[p->nodes[i].lm / 8] |= (unsigned char)(1u << (p->nodes[i].lm % 8));
	for (i = 0; i < p->nlms; i++)
		p->lms[i].used = !!(used[p->lms[i].id / 8] & (1u << (p->lms[i].id % 8)));
	free(used);
}

/* The consistency checks of design note 3 (nodes indexed by id). */
static int check_profile(const char *path, const struct hpcrun_profile *p)
{
	unsigned char *lms = xcalloc(65536 / 8, 1);
	struct hpcrun_node_index *x;
	uint64_t i, prev = 0;
	uint32_t dup;
	int ret = 0;

	for (i = 0; i < p->nlms; i++)
		lms[p->lms[i].id / 8] |= (unsigned char)(1u << (p->lms[i].id % 8));
	x = hpcrun_node_index_new(p, &dup);
	if (dup)
		ret = hpc_seterr("'%s': CCT section: duplicate node id "
				 "%" PRIu32, path, dup);
	for (i = 0; i < p->nnodes && !ret; i++) {
		const struct hpcrun_node *nd = &p->nodes[i];
		long pp = nd->parent ? hpcrun_node_position(x, nd->parent)
				     : -1;

		if (nd->id == 0 || nd->id == HPCRUN_FMT_END_ID)
			ret = hpc_seterr("'%s': CCT section: node %" PRIu64
					 " has invalid id %" PRIu32, path, i,
					 nd->id);
		else if (nd->parent && (pp < 0 || (uint64_t)pp >= i))
			ret = hpc_seterr("'%s': CCT section: node %" PRIu32
					 " has unknown parent %" PRIu32
					 " (not preorder)", path, nd->id,
					 nd->parent);
		else if (nd->lm && !(lms[nd->lm / 8] & (1u << (nd->lm % 8))))
			ret = hpc_seterr("'%s': CCT section: node %" PRIu32
					 " names unknown load module %u", path,
					 nd->id, nd->lm);
	}
	for (i = 0; i < p->nctxs && !ret; i++) {
		const struct hpcrun_ctx_values *cv = &p->ctxs[i];

		if (hpcrun_node_position(x, cv->ctx) < 0)
			ret = hpc_seterr("'%s': sparse values section: context "
					 "%" PRIu32 " is not in the CCT", path,
					 cv->ctx);
		else if (cv->first < prev || cv->first > p->nvalues)
			ret = hpc_seterr("'%s': sparse values section: context "
					 "%" PRIu32 " has value index %" PRIu64
					 " out of order", path, cv->ctx,
					 cv->first);
		prev = cv->first;
	}
	for (i = 0; i < p->nvalues && !ret; i++)
		if (p->values[i].metric >= p->nmetrics)
			ret = hpc_seterr("'%s': sparse values section: value %"
					 PRIu64 " names metric %u of %" PRIu32,
					 path, i, p->values[i].metric,
					 p->nmetrics);
	hpcrun_node_index_free(x);
	free(lms);
	return ret;
}

typedef int (*section_reader)(struct cursor *, struct hpcrun_profile *);

static const section_reader readers[NSECTIONS] = {
	read_header, read_loadmap, read_cct, read_metrics, read_idkinds,
	read_values,
};

/*
 * Section bounds from the footer into bounds[2*NSECTIONS]; returns 1 when
 * the footer is present and consistent, 0 otherwise.
 */
static int footer_bounds(const unsigned char *d, size_t size,
			 uint64_t *bounds)
{
	const unsigned char *f;
	uint64_t prev = 0;
	int i;

	if (size < FOOTER_SIZE)
		return 0;
	f = d + size - FOOTER_SIZE;
	if (be(f + 13 * 8, 8) != HPCRUN_FMT_FOOTER_MAGIC ||
	    be(f + 12 * 8, 8) != size - FOOTER_SIZE)
		return 0;
	for (i = 0; i < 2 * NSECTIONS; i++) {
		bounds[i] = be(f + 8 * i, 8);
		if (bounds[i] < prev || bounds[i] > size - FOOTER_SIZE)
			return 0;
		prev = bounds[i];
	}
	return 1;
}

static int decode(const char *path, const unsigned char *d, size_t size,
		  struct hpcrun_profile *p)
{
	uint64_t bounds[2 * NSECTIONS];
	int have_footer = footer_bounds(d, size, bounds);
	struct cursor c = { d, 0, 0, path, SEC_HEADER };
	size_t next = 0;
	int s;

	for (s = 0; s < NSECTIONS; s++) {
		c.sec = s;
		if (have_footer) {
			c.pos = bounds[2 * s];
			c.end = bounds[2 * s + 1];
		} else {
			c.pos = (next + SECTION_ALIGN - 1) / SECTION_ALIGN *
				SECTION_ALIGN;
			c.end = size;
			if (s > 0 && c.pos >= size)
				return hpc_seterr("'%s': truncated file: %s "
						  "section missing", path,
						  section_name[s]);
		}
		if (readers[s](&c, p))
			return -1;
		next = c.pos;
	}
	if (!have_footer)
		return hpc_seterr("'%s': truncated file: footer missing or "
				  "corrupt", path);
	if (check_profile(path, p))
		return -1;
	mark_used(p);
	return 0;
}

struct hpcrun_profile *hpcrun_fmt_read(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct hpcrun_profile *p;

	if (infile_read(path, MAX_PROFILE_BYTES, "a profile", &sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	if (decode(path, (const unsigned char *)sb.buf, sb.len, p)) {
		hpcrun_profile_free(p);
		p = NULL;
	}
	strbuf_release(&sb);
	return p;
}

static void free_str(const char *s)
{
	free((char *)s);
}

void hpcrun_profile_shed(struct hpcrun_profile *p)
{
	free(p->nodes);
	free(p->values);
	free(p->ctxs);
	p->nodes = NULL;
	p->values = NULL;
	p->ctxs = NULL;
	p->nnodes = p->nvalues = 0;
	p->nctxs = 0;
}

void hpcrun_profile_free(struct hpcrun_profile *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nheader; i++) {
		free_str(p->header[i].name);
		free_str(p->header[i].value);
	}
	for (i = 0; i < p->nlms; i++)
		free_str(p->lms[i].path);
	for (i = 0; i < p->nmetrics; i++) {
		free_str(p->metrics[i].name);
		free_str(p->metrics[i].description);
		free_str(p->metrics[i].formula);
		free_str(p->metrics[i].format);
	}
	for (i = 0; i < p->nidkinds; i++)
		free_str(p->idkinds[i].name);
	hpcrun_profile_shed(p);
	free(p->header);
	free(p->lms);
	free(p->metrics);
	free(p->idkinds);
	free(p->idtuple);
	free(p);
}

const char *hpcrun_profile_header(const struct hpcrun_profile *p,
				  const char *name)
{
	size_t i;

	for (i = 0; i < p->nheader; i++)
		if (!strcmp(p->header[i].name, name))
			return p->header[i].value;
	return NULL;
}

/* A string quoted with C escapes, so the dump stays one record a line. */
static void dump_str(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', f);
	for (; *u; u++) {
		if (*u == '"' || *u == '\\')
			fprintf(f, "\\%c", *u);
		else if (*u < 0x20 || *u >= 0x7f)
			fprintf(f, "\\x%02x", *u);
		else
			fputc(*u, f);
	}
	fputc('"', f);
}

/* Shortest %g form that reads back as the same double. */
static void dump_double(FILE *f, double d)
{
	char buf[40];
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d || isnan(d))
			break;
	}
	fputs(buf, f);
}

static double bits_to_double(uint64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static const char *kind_name(const struct hpcrun_profile *p, uint16_t kind)
{
	uint16_t i;

	for (i = 0; i < p->nidkinds; i++)
		if (p->idkinds[i].kind == kind)
			return p->idkinds[i].name;
	return "?";
}

static void dump_value(FILE *f, const struct hpcrun_profile *p,
		       const struct hpcrun_value *v)
{
	/* flags[2] is the value format: 1 integer, 2 real. */
	if (v->metric < p->nmetrics && p->metrics[v->metric].flags[2] == 1)
		fprintf(f, "%" PRIu64, v->bits);
	else
		dump_double(f, bits_to_double(v->bits));
}

void hpcrun_fmt_dump(FILE *f, const struct hpcrun_profile *p)
{
	uint64_t i, j;
	int k;

	fprintf(f, "hpcrun-profile %s\n", HPCRUN_FMT_VERSION);
	fprintf(f, "header %zu\n", p->nheader);
	for (i = 0; i < p->nheader; i++) {
		fprintf(f, "  %s = ", p->header[i].name);
		dump_str(f, p->header[i].value);
		fputc('\n', f);
	}
	fprintf(f, "loadmap %zu\n", p->nlms);
	for (i = 0; i < p->nlms; i++) {
		fprintf(f, "  lm %u flags 0x%" PRIx64 " ", p->lms[i].id,
			p->lms[i].flags);
		dump_str(f, p->lms[i].path);
		fputc('\n', f);
	}
	fprintf(f, "cct %" PRIu64 "\n", p->nnodes);
	for (i = 0; i < p->nnodes; i++) {
		const struct hpcrun_node *nd = &p->nodes[i];

		fprintf(f, "  node %" PRIu32 " parent %" PRIu32 " lm %u ",
			nd->id, nd->parent, nd->lm);
		if (nd->lm == 0) {
			char s[9];

			for (k = 0; k < 8; k++)
				s[k] = (char)(nd->addr >> (56 - 8 * k));
			s[8] = 0;
			fputs("addr ", f);
			dump_str(f, s);
		} else {
			fprintf(f, "addr 0x%" PRIx64, nd->addr);
		}
		fprintf(f, " flags 0x%x\n", nd->flags);
	}
	fprintf(f, "metrics %" PRIu32 "\n", p->nmetrics);
	for (i = 0; i < p->nmetrics; i++) {
		const struct hpcrun_metric *m = &p->metrics[i];

		fprintf(f, "  metric %" PRIu64 " ", i);
		dump_str(f, m->name);
		fputs(" desc ", f);
		dump_str(f, m->description);
		fputs(" flags", f);
		for (k = 0; k < 16; k++)
			fprintf(f, "%s%02x", k % 4 ? "" : " ", m->flags[k]);
		fprintf(f, " period %" PRIu64 " formula ", m->period);
		dump_str(f, m->formula);
		fputs(" format ", f);
		dump_str(f, m->format);
		fprintf(f, " frequency %u multiplexed %u threshold ",
			m->is_frequency, m->is_multiplexed);
		dump_double(f, m->threshold);
		fprintf(f, " samples %" PRIu64 "\n", m->nsamples);
	}
	fprintf(f, "idkinds %u\n", p->nidkinds);
	for (i = 0; i < p->nidkinds; i++)
		fprintf(f, "  kind %u %s\n", p->idkinds[i].kind,
			p->idkinds[i].name);
	fprintf(f, "idtuple %u\n", p->nidtuple);
	for (i = 0; i < p->nidtuple; i++) {
		const struct hpcrun_id_elem *e = &p->idtuple[i];

		fprintf(f, "  %s interpretation %u physical 0x%" PRIx64
			" logical %" PRIu64 "\n", kind_name(p, e->kind & 0x3fff),
			e->kind >> 14, e->physical, e->logical);
	}
	fprintf(f, "values %" PRIu64 " contexts %" PRIu32 "\n", p->nvalues,
		p->nctxs);
	for (i = 0; i < p->nctxs; i++) {
		uint64_t end = i + 1 < p->nctxs ? p->ctxs[i + 1].first
						: p->nvalues;

		fprintf(f, "  ctx %" PRIu32 ":", p->ctxs[i].ctx);
		for (j = p->ctxs[i].first; j < end && j < p->nvalues; j++) {
			fprintf(f, " [%u] ", p->values[j].metric);
			dump_value(f, p, &p->values[j]);
		}
		fputc('\n', f);
	}
}
