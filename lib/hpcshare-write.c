/*
 * hpcshare-write.c - the .hpcshare vocabulary and writer (see
 * hpcshare.h, man/hpcrun.5 "Sharing files").  Linked into libhpcrun.so:
 * async-signal-safe, everything through textrec-write.c.
 */
#include "hpcshare.h"
#include "textrec.h"

static const char *const rw_names[] = {
	[HPCSHARE_R] = "r", [HPCSHARE_W] = "w", [HPCSHARE_U] = "u",
};
static const char *const kind_names[] = {
	[HPCSHARE_HEAP] = "heap", [HPCSHARE_STATIC] = "static",
};

const char *hpcshare_rw_name(enum hpcshare_rw rw)
{
	return (unsigned)rw < 3 ? rw_names[rw] : "?";
}

const char *hpcshare_kind_name(enum hpcshare_kind k)
{
	return (unsigned)k < 2 ? kind_names[k] : "?";
}

void hpcshare_write_head(struct textrec_out *o, const struct hpcshare *s,
			 size_t nnodes)
{
	textrec_put(o, HPCSHARE_MAGIC);
	textrec_field(o, HPCSHARE_VERSION);
	textrec_put(o, "\n");
	if (s->thread >= 0) {
		textrec_put(o, HPCSHARE_THREAD);
		textrec_field_i64(o, s->thread);
		textrec_put(o, "\n");
	}
	textrec_put(o, HPCSHARE_RANK);
	textrec_field_i64(o, s->rank);
	textrec_put(o, "\n");
	if (nnodes) {
		textrec_put(o, HPCSHARE_TOPOLOGY);
		textrec_field(o, s->virtual_topology ? HPCSHARE_VIRTUAL :
			      HPCSHARE_REAL);
		textrec_field_u64(o, nnodes);
		textrec_put(o, "\n");
	}
}

static void node_head(struct textrec_out *o, size_t i)
{
	textrec_put(o, HPCSHARE_NODE);
	textrec_field_u64(o, i);
	textrec_put(o, " ");
}

void hpcshare_write_node(struct textrec_out *o, size_t i, const char *cpulist)
{
	node_head(o, i);
	textrec_put(o, cpulist);
	textrec_put(o, "\n");
}

/* The node of s's model: its ranges as "lo-hi", or "lo" alone. */
static void write_node_ranges(struct textrec_out *o, size_t i,
			      const struct hpcshare_node *n)
{
	size_t k;

	node_head(o, i);
	for (k = 0; k < n->nranges; k++) {
		if (k)
			textrec_put(o, ",");
		textrec_put_u64(o, n->lo[k]);
		if (n->hi[k] != n->lo[k]) {
			textrec_put(o, "-");
			textrec_put_u64(o, n->hi[k]);
		}
	}
	textrec_put(o, "\n");
}

void hpcshare_write_pages(struct textrec_out *o, const struct hpcshare *s)
{
	textrec_put(o, HPCSHARE_PAGE_SIZE);
	textrec_field_u64(o, s->page_size);
	textrec_put(o, "\n");
	if (s->has_span) {
		textrec_put(o, HPCSHARE_SPAN);
		textrec_field_u64(o, s->span_begin);
		textrec_field_u64(o, s->span_end);
		textrec_put(o, "\n");
	}
}

void hpcshare_write_object(struct textrec_out *o,
			   const struct hpcshare_object *x)
{
	textrec_put(o, HPCSHARE_OBJECT);
	textrec_field_u64(o, x->id);
	textrec_field(o, hpcshare_kind_name(x->kind));
	textrec_field_hex(o, x->start);
	textrec_field_u64(o, x->bytes);
	textrec_field_u64(o, x->node);
	textrec_put(o, "\n");
	if (x->watched) {
		textrec_put(o, HPCSHARE_WATCHED);
		textrec_field_u64(o, x->id);
		textrec_put(o, "\n");
	}
}

void hpcshare_write_access(struct textrec_out *o,
			   const struct hpcshare_access *a,
			   const struct hpcshare_object *obj)
{
	textrec_put(o, HPCSHARE_ACCESS);
	textrec_field_u64(o, a->time);
	textrec_field_u64(o, a->cpu);
	textrec_field_u64(o, obj->id);
	textrec_field_u64(o, a->offset);
	textrec_field_u64(o, a->size);
	textrec_field(o, hpcshare_rw_name((enum hpcshare_rw)a->rw));
	textrec_field_u64(o, a->first);
	textrec_field_u64(o, a->node);
	textrec_put(o, "\n");
}

void hpcshare_write_tail(struct textrec_out *o, const struct hpcshare *s)
{
	textrec_put(o, HPCSHARE_DROPPED);
	textrec_field_u64(o, s->dropped);
	textrec_put(o, "\n");
	textrec_put(o, HPCSHARE_UNTRACKED);
	textrec_field_u64(o, s->untracked);
	textrec_put(o, "\n");
}

void hpcshare_write(struct textrec_out *o, const struct hpcshare *s)
{
	size_t i;

	hpcshare_write_head(o, s, s->nnodes);
	for (i = 0; i < s->nnodes; i++)
		write_node_ranges(o, i, &s->nodes[i]);
	hpcshare_write_pages(o, s);
	for (i = 0; i < s->nobjs; i++)
		hpcshare_write_object(o, &s->objs[i]);
	for (i = 0; i < s->naccesses; i++)
		hpcshare_write_access(o, &s->accesses[i],
				      &s->objs[s->accesses[i].obj]);
	hpcshare_write_tail(o, s);
}
