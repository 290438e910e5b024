/* experiment-wire.c - see experiment-wire.h. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "experiment-wire.h"
#include "hashmap.h"

#define WIRE_MAGIC UINT32_C(0x68707477)	/* "hptw" */
#define NO_STRING UINT32_MAX

/* How a node's structure travels. */
enum { ST_NONE, ST_SHARED, ST_OVERLAY, ST_PLACEHOLDERS };

static void put32(struct strbuf *sb, uint32_t v)
{
	strbuf_add(sb, &v, sizeof(v));
}

static void put64(struct strbuf *sb, uint64_t v)
{
	strbuf_add(sb, &v, sizeof(v));
}

static void putstr(struct strbuf *sb, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put32(sb, s ? (uint32_t)n : NO_STRING);
	if (n)
		strbuf_add(sb, s, n);
}

static void put_scopes(struct strbuf *sb, uint32_t module,
		       const struct structure *st)
{
	size_t i;

	put32(sb, module);
	put32(sb, (uint32_t)st->nscopes);
	for (i = 1; i < st->nscopes; i++) {
		const struct scope *sc = &st->scopes[i];

		put32(sb, sc->kind);
		put32(sb, sc->parent);
		putstr(sb, sc->name);
		putstr(sb, sc->file);
		put32(sb, sc->line);
		put64(sb, sc->vma);
	}
}

void experiment_wire_write(const struct experiment *w, struct strbuf *sb)
{
	struct hmap *refs = hmap_new();	/* structure -> kind << 32 | index */
	size_t i, nov = 0;

	for (i = w->nmodules; i-- > 0;)
		hmap_put_u64(refs, (uint64_t)(uintptr_t)w->modules[i]->st,
			     (void *)(uintptr_t)((uint64_t)ST_SHARED << 32 | i));
	put32(sb, WIRE_MAGIC);
	put32(sb, (uint32_t)w->files.n);
	for (i = 0; i < w->files.n; i++)
		putstr(sb, w->files.names[i]);
	put32(sb, (uint32_t)w->procs.n);
	for (i = 0; i < w->procs.n; i++)
		putstr(sb, w->procs.names[i]);
	for (i = 0; i < w->nov; i++)
		nov += w->ov[i].st != NULL;
	put32(sb, (uint32_t)(nov + (w->ph != NULL)));
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
	put32(sb, w->next_id);
	for (i = 2; i < w->next_id; i++) {
		const struct node *n = w->nodes[i];
		uint64_t ref = n->st ? (uint64_t)(uintptr_t)hmap_get_u64(
					refs, (uint64_t)(uintptr_t)n->st) : 0;
		int leaf = n->kind == NODE_STMT || n->kind == NODE_CALL;

		put32(sb, n->parent->id);
		put32(sb, n->kind);
		put32(sb, (uint32_t)(ref >> 32));
		put32(sb, (uint32_t)ref);
		if (leaf)
			putstr(sb, n->k1 == (uint64_t)(uintptr_t)cct_no_file ?
				   NULL : (const char *)(uintptr_t)n->k1);
		else	/* a scope's k1 is its structure: sent as ref */
			put64(sb, n->st ? 0 : n->k1);
		put64(sb, n->k2);
		put32(sb, n->flat ? n->flat->id : 0);
		put32(sb, n->lm);
		put32(sb, n->file);
		put32(sb, n->proc);
		put32(sb, n->line);
		put64(sb, n->vma);
	}
	hmap_free(refs);
}

struct cursor {
	const char *p, *end;
	int bad;
};

static uint32_t get32(struct cursor *c)
{
	uint32_t v = 0;

	if (c->end - c->p < (long)sizeof(v)) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, sizeof(v));
	c->p += sizeof(v);
	return v;
}

static uint64_t get64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->end - c->p < (long)sizeof(v)) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, sizeof(v));
	c->p += sizeof(v);
	return v;
}

/* The next string (NULL for none) in buf, valid until the next call. */
static const char *getstr(struct cursor *c, struct strbuf *buf)
{
	uint32_t n = get32(c);

	if (n == NO_STRING || c->bad)
		return NULL;
	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	strbuf_reset(buf);
	strbuf_add(buf, c->p, n);
	c->p += n;
	return buf->buf;
}

static void get_scopes(struct cursor *c, struct experiment *w,
		       struct strbuf *s1, struct strbuf *s2)
{
	uint32_t module = get32(c), n = get32(c), i;
	struct overlay *ov;

	if (c->bad || (module != PLACEHOLDER_LM && module >= w->nmodules)) {
		c->bad = 1;
		return;
	}
	ov = module == PLACEHOLDER_LM ? experiment_placeholders(w)
				      : experiment_overlay(w, module);
	for (i = 1; i < n && !c->bad; i++) {
		uint32_t kind = get32(c), parent = get32(c);
		const char *name = getstr(c, s1), *file = getstr(c, s2);
		uint32_t line = get32(c);
		uint64_t vma = get64(c);

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
	struct cursor c = { buf, buf + len, 0 };
	struct experiment *w = experiment_new_worker(e);
	struct strbuf s1 = STRBUF_INIT, s2 = STRBUF_INIT;
	uint32_t n, i, nids;

	if (get32(&c) != WIRE_MAGIC)
		c.bad = 1;
	for (n = get32(&c), i = 0; i < n && !c.bad; i++) {
		const char *s = getstr(&c, &s1);

		name_table_add(&w->files, s ? s : "");
	}
	for (n = get32(&c), i = 0; i < n && !c.bad; i++) {
		const char *s = getstr(&c, &s1);

		name_table_add(&w->procs, s ? s : "");
	}
	for (n = get32(&c), i = 0; i < n && !c.bad; i++)
		get_scopes(&c, w, &s1, &s2);
	nids = get32(&c);
	for (i = 2; i < nids && !c.bad; i++) {
		uint32_t parent = get32(&c), kind = get32(&c);
		uint32_t sk = get32(&c), si = get32(&c);
		struct structure *st = structure_of(w, sk, si, &c.bad);
		int leaf = kind == NODE_STMT || kind == NODE_CALL;
		const char *file = leaf ? getstr(&c, &s1) : NULL;
		uint64_t k1 = leaf ? 0 : get64(&c), k2 = get64(&c);
		uint32_t flat = get32(&c);
		struct node *x;

		if (c.bad || !parent || parent > i || flat > i ||
		    kind > NODE_PROGRAM || (leaf && !st)) {
			c.bad = 1;
			break;
		}
		if (leaf)
			k1 = file ? (uint64_t)(uintptr_t)structure_intern(st, file)
				  : (uint64_t)(uintptr_t)cct_no_file;
		else if (st)	/* a scope's key: (its structure, index) */
			k1 = (uint64_t)(uintptr_t)st;
		x = experiment_node(w, w->nodes[parent - 1],
				    (enum node_kind)kind);
		x->st = st;
		x->k1 = k1;
		x->k2 = k2;
		x->flat = flat ? w->nodes[flat - 1] : NULL;
		x->lm = get32(&c);
		x->file = get32(&c);
		x->proc = get32(&c);
		x->line = get32(&c);
		x->vma = get64(&c);
		if ((x->lm >= e->lms.n && x->lm != PLACEHOLDER_LM) ||
		    (x->file >= w->files.n && x->file) ||
		    (x->proc >= w->procs.n && x->proc))
			c.bad = 1;
	}
	strbuf_release(&s1);
	strbuf_release(&s2);
	if (c.bad || c.p != c.end) {
		experiment_free(w);
		hpc_seterr("a tree from another rank is malformed");
		return NULL;
	}
	return w;
}
