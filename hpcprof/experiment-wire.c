/* experiment-wire.c - see experiment-wire.h. */
#include <stdlib.h>
#include <string.h>

#include "datatree.h"
#include "error.h"
#include "experiment-wire.h"
#include "hashmap.h"

#define WIRE_MAGIC UINT32_C(0x68707477)	/* "hptw" */
#define NO_STRING UINT32_MAX

/* How a node's structure travels. */
enum { ST_NONE, ST_SHARED, ST_OVERLAY, ST_PLACEHOLDERS };

void wire_put32(struct strbuf *sb, uint32_t v)
{
	strbuf_add(sb, &v, sizeof(v));
}

void wire_put64(struct strbuf *sb, uint64_t v)
{
	strbuf_add(sb, &v, sizeof(v));
}

void wire_putstr(struct strbuf *sb, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	wire_put32(sb, s ? (uint32_t)n : NO_STRING);
	if (n)
		strbuf_add(sb, s, n);
}

void wire_put_rows(struct strbuf *sb, const void *rows, size_t n, size_t size)
{
	wire_put64(sb, n);
	if (n)
		strbuf_add(sb, rows, n * size);
}

static void put_scopes(struct strbuf *sb, uint32_t module,
		       const struct structure *st)
{
	size_t i;

	wire_put32(sb, module);
	wire_put32(sb, (uint32_t)st->nscopes);
	for (i = 1; i < st->nscopes; i++) {
		const struct scope *sc = &st->scopes[i];

		wire_put32(sb, sc->kind);
		wire_put32(sb, sc->parent);
		wire_putstr(sb, sc->name);
		wire_putstr(sb, sc->file);
		wire_put32(sb, sc->line);
		wire_put64(sb, sc->vma);
	}
}

void experiment_wire_write(const struct experiment *w, struct strbuf *sb,
			   int ids_only)
{
	struct hmap *refs = hmap_new();	/* structure -> kind << 32 | index */
	size_t i, c, nov = 0;

	for (i = w->nmodules; i-- > 0;)
		hmap_put_u64(refs, (uint64_t)(uintptr_t)w->modules[i]->st,
			     (void *)(uintptr_t)((uint64_t)ST_SHARED << 32 | i));
	wire_put32(sb, WIRE_MAGIC);
	wire_put32(sb, (uint32_t)w->files.n);
	for (i = 0; i < w->files.n; i++)
		wire_putstr(sb, w->files.names[i]);
	wire_put32(sb, (uint32_t)w->procs.n);
	for (i = 0; i < w->procs.n; i++)
		wire_putstr(sb, w->procs.names[i]);
	for (i = 0; i < w->nov; i++)
		nov += w->ov[i].st != NULL;
	wire_put32(sb, (uint32_t)(nov + (w->ph != NULL)));
	for (i = 0; i < w->nov; i++) {
		if (!w->ov[i].st)
			continue;
		put_scopes(sb, (uint32_t)i, w->ov[i].st);
		hmap_put_u64(refs, (uint64_t)(uintptr_t)w->ov[i].st,
			     (void *)(uintptr_t)((uint64_t)ST_OVERLAY << 32 | i));
	}
	if (w->ph) {
		put_scopes(sb, PLACEHOLDER_LM, w->ph->st);
		hmap_put_u64(refs, (uint64_t)(uintptr_t)w->ph->st,
			     (void *)(uintptr_t)((uint64_t)ST_PLACEHOLDERS << 32));
	}
	wire_put32(sb, w->next_id);
	for (i = 2; i < w->next_id; i++) {
		const struct node *n = w->nodes[i];
		uint64_t ref = n->st ? (uint64_t)(uintptr_t)hmap_get_u64(
					refs, (uint64_t)(uintptr_t)n->st) : 0;
		int leaf = n->kind == NODE_STMT || n->kind == NODE_CALL;

		wire_put32(sb, n->parent ? n->parent->id : 0);	/* 0: the
								 * data root */
		wire_put32(sb, n->kind);
		wire_put32(sb, (uint32_t)(ref >> 32));
		wire_put32(sb, (uint32_t)ref);
		if (leaf)
			wire_putstr(sb, n->k1 == (uint64_t)(uintptr_t)cct_no_file ?
					NULL : (const char *)(uintptr_t)n->k1);
		else	/* a scope's k1 is its structure: sent as ref */
			wire_put64(sb, n->st ? 0 : n->k1);
		wire_put64(sb, n->k2);
		wire_put32(sb, n->flat ? n->flat->id : 0);
		wire_put32(sb, n->lm);
		wire_put32(sb, n->file);
		wire_put32(sb, n->proc);
		wire_put32(sb, n->line);
		wire_put64(sb, n->vma);
	}
	for (c = 0; c < NCAPS; c++)
		if (prof_capabilities[c]->wire_write)
			prof_capabilities[c]->wire_write(w, sb, ids_only);
	hmap_free(refs);
}

const void *wire_getbytes(struct wire_cursor *c, size_t n)
{
	const char *at = c->p;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return at;
}

uint32_t wire_get32(struct wire_cursor *c)
{
	const void *at = wire_getbytes(c, sizeof(uint32_t));
	uint32_t v = 0;

	if (at)
		memcpy(&v, at, sizeof(v));
	return v;
}

uint64_t wire_get64(struct wire_cursor *c)
{
	const void *at = wire_getbytes(c, sizeof(uint64_t));
	uint64_t v = 0;

	if (at)
		memcpy(&v, at, sizeof(v));
	return v;
}

const char *wire_getstr(struct wire_cursor *c, struct strbuf *buf)
{
	uint32_t n = wire_get32(c);
	const char *at;

	if (n == NO_STRING || c->bad)
		return NULL;
	at = wire_getbytes(c, n);
	if (!at)
		return NULL;
	strbuf_reset(buf);
	strbuf_add(buf, at, n);
	return buf->buf;
}

void *wire_get_rows(struct wire_cursor *c, void *rows, size_t *nrows,
		    size_t *alloc, size_t size)
{
	uint64_t n = wire_get64(c);
	const void *at;

	if (c->bad || n > (uint64_t)(c->end - c->p) / size) {
		c->bad = 1;
		return rows;
	}
	at = wire_getbytes(c, (size_t)n * size);
	if (!at || !n)
		return rows;
	if (*nrows + n > *alloc) {
		*alloc = *nrows + (size_t)n;
		rows = xrealloc(rows, *alloc * size);
	}
	memcpy((char *)rows + *nrows * size, at, (size_t)n * size);
	*nrows += (size_t)n;
	return rows;
}

static void get_scopes(struct wire_cursor *c, struct experiment *w,
		       struct strbuf *s1, struct strbuf *s2)
{
	uint32_t module = wire_get32(c), n = wire_get32(c), i;
	struct overlay *ov;

	if (c->bad || (module != PLACEHOLDER_LM && module >= w->nmodules)) {
		c->bad = 1;
		return;
	}
	ov = module == PLACEHOLDER_LM ? experiment_placeholders(w)
				      : experiment_overlay(w, module);
	for (i = 1; i < n && !c->bad; i++) {
		uint32_t kind = wire_get32(c), parent = wire_get32(c);
		const char *name = wire_getstr(c, s1), *file = wire_getstr(c, s2);
		uint32_t line = wire_get32(c);
		uint64_t vma = wire_get64(c);

		if (parent >= i || kind > SCOPE_CALL)
			c->bad = 1;
		else
			structure_add(ov->st, (enum scope_kind)kind, parent,
				      name, file, line, vma);
	}
}

/* The structure a node's reference names in w, or NULL (*bad when none). */
static struct structure *structure_of(struct experiment *w, uint32_t kind,
				      uint32_t index, int *bad)
{
	switch (kind) {
	case ST_NONE:
		return NULL;
	case ST_SHARED:
		if (index < w->nmodules)
			return w->modules[index]->st;
		break;
	case ST_OVERLAY:
		if (index < w->nov && w->ov[index].st)
			return w->ov[index].st;
		break;
	case ST_PLACEHOLDERS:
		if (w->ph)
			return w->ph->st;
		break;
	}
	*bad = 1;
	return NULL;
}

struct experiment *experiment_wire_read(const struct experiment *e,
					const char *buf, size_t len)
{
	struct wire_cursor c = { buf, buf + len, 0 };
	struct experiment *w = experiment_new_worker(e);
	struct strbuf s1 = STRBUF_INIT, s2 = STRBUF_INIT;
	uint32_t n, i, nids;
	size_t k;

	if (wire_get32(&c) != WIRE_MAGIC)
		c.bad = 1;
	for (n = wire_get32(&c), i = 0; i < n && !c.bad; i++) {
		const char *s = wire_getstr(&c, &s1);

		name_table_add(&w->files, s ? s : "");
	}
	for (n = wire_get32(&c), i = 0; i < n && !c.bad; i++) {
		const char *s = wire_getstr(&c, &s1);

		name_table_add(&w->procs, s ? s : "");
	}
	for (n = wire_get32(&c), i = 0; i < n && !c.bad; i++)
		get_scopes(&c, w, &s1, &s2);
	nids = wire_get32(&c);
	for (i = 2; i < nids && !c.bad; i++) {
		uint32_t parent = wire_get32(&c), kind = wire_get32(&c);
		uint32_t sk = wire_get32(&c), si = wire_get32(&c);
		struct structure *st = structure_of(w, sk, si, &c.bad);
		int leaf = kind == NODE_STMT || kind == NODE_CALL;
		const char *file = leaf ? wire_getstr(&c, &s1) : NULL;
		uint64_t k1 = leaf ? 0 : wire_get64(&c), k2 = wire_get64(&c);
		uint32_t flat = wire_get32(&c);
		struct node *x;

		if (c.bad || parent > i || flat > i || kind > NODE_DATA ||
		    (leaf && !st) ||
		    (!parent && (kind != NODE_DATA || w->data))) {
			c.bad = 1;
			break;
		}
		if (leaf)
			k1 = file ? (uint64_t)(uintptr_t)structure_intern(st, file)
				  : (uint64_t)(uintptr_t)cct_no_file;
		else if (st)	/* a scope's key: (its structure, index) */
			k1 = (uint64_t)(uintptr_t)st;
		x = parent ? experiment_node(w, w->nodes[parent - 1],
					     (enum node_kind)kind)
			   : datatree_root(w);
		x->st = st;
		x->k1 = k1;
		x->k2 = k2;
		x->flat = flat ? w->nodes[flat - 1] : NULL;
		x->lm = wire_get32(&c);
		x->file = wire_get32(&c);
		x->proc = wire_get32(&c);
		x->line = wire_get32(&c);
		x->vma = wire_get64(&c);
		if ((x->lm >= e->lms.n && x->lm != PLACEHOLDER_LM &&
		     (x->lm != PHASES_LM || kind != NODE_PHASE) &&
		     (x->lm != DATA_LM || kind != NODE_DATA)) ||
		    (x->file >= w->files.n && x->file) ||
		    (x->proc >= w->procs.n && x->proc))
			c.bad = 1;
	}
	for (k = 0; k < NCAPS && !c.bad; k++)
		if (prof_capabilities[k]->wire_read &&
		    prof_capabilities[k]->wire_read(w, &c))
			c.bad = 1;
	strbuf_release(&s1);
	strbuf_release(&s2);
	if (c.bad || c.p != c.end) {
		experiment_free(w);
		hpc_seterr("a tree from another rank is malformed");
		return NULL;
	}
	return w;
}
