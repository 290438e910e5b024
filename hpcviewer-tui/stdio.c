/*
 * stdio.c - text and CSV output of the rows a view shows, and the cell and
 * scope formatting the screen shares.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dataview.h"
#include "error.h"
#include "stdio-out.h"
#include "strbuf.h"

#define CELL_MIN 16	/* "1.23e+04 100.0%" plus a space */
#define ELLIPSIS "..."

size_t stdio_col_width(const struct browser *b, size_t c)
{
	size_t len = strlen(b->cols[c].name);

	return len > CELL_MIN ? len : CELL_MIN;
}

int stdio_sum_metric(const struct model *m, int met)
{
	const char *name, *colon, *paren;
	struct strbuf want = STRBUF_INIT;
	size_t i;

	if (met < 0)
		return -1;
	name = m->metrics[met].name;
	colon = strrchr(name, ':');
	if (!colon || (colon > name && colon[-1] == ':'))
		return met;
	paren = strchr(colon, '(');
	strbuf_add(&want, name, (size_t)(colon - name) + 1);
	strbuf_addf(&want, "Sum%s%s", paren ? " " : "", paren ? paren : "");
	for (i = 0; i < m->nmetrics; i++)
		if (!strcmp(m->metrics[i].name, want.buf))
			break;
	strbuf_release(&want);
	return i < m->nmetrics ? (int)i : -1;
}

/* Is a zero in column c at node n a measured 0 rather than no value: a
 * statistic over threads, shown where it is defined (top-down, or the
 * root), whose Sum is not zero there? */
static int measured_zero(struct view *v, uint32_t n, size_t c)
{
	const struct browser *b = v->b;
	int met = b->cols[c].metric, sum;
	size_t k;

	if (met < 0 || b->m->metrics[met].additive ||
	    (v->kind != VIEW_TOP_DOWN && n != 0))
		return 0;
	sum = stdio_sum_metric(b->m, met);
	for (k = 0; sum >= 0 && sum != met && k < b->ncols; k++)
		if (b->cols[k].metric == sum)
			return view_value(v, n, k) != 0;
	return 0;
}

void stdio_format_cell(struct view *v, uint32_t n, size_t c, char *buf,
		       size_t size, size_t width)
{
	double val = view_value(v, n, c), pct = view_percent(v, n, c);
	int met = v->b->cols[c].metric;
	char cell[64];

	if (val == 0 && !measured_zero(v, n, c))
		cell[0] = '\0';
	else if (met >= 0 && v->b->m->metrics[met].percent)
		snprintf(cell, sizeof(cell), "%.1f%%", val);
	else if (pct < 0)
		snprintf(cell, sizeof(cell), "%.2e", val);
	else
		snprintf(cell, sizeof(cell), "%.2e %5.1f%%", val, pct);
	snprintf(buf, size, "%*s", (int)width, cell);
}

const char *stdio_marker(struct view *v, uint32_t n)
{
	if (!view_has_children(v, n))
		return "  ";
	return v->nodes[n].expanded ? "- " : "+ ";
}

void stdio_label(struct view *v, uint32_t n, const struct names *names,
		 struct strbuf *out)
{
	const struct vnode *nd = &v->nodes[n];
	const char *full = model_str(v->b->m, nd->name), *shrt, *at;
	size_t start = out->len, len = strlen(full);
	struct strbuf rest = STRBUF_INIT;

	view_label(v, n, out);
	if (!names || (nd->kind != SK_PROC && nd->kind != SK_INLINE) ||
	    !(shrt = names_short(names, nd->name)) ||
	    !(at = strstr(out->buf + start, full)))
		return;
	strbuf_addstr(&rest, at + len);
	out->len = (size_t)(at - out->buf);
	out->buf[out->len] = '\0';
	strbuf_addstr(out, shrt);
	strbuf_addstr(out, rest.buf);
	strbuf_release(&rest);
}

void stdio_one_line(struct strbuf *sb, size_t from)
{
	size_t i;

	for (i = from; i < sb->len; i++)
		if ((unsigned char)sb->buf[i] < 0x20 || sb->buf[i] == 0x7f)
			sb->buf[i] = '?';
}

void stdio_add_elided(struct strbuf *out, const char *s, size_t room)
{
	size_t len = strlen(s), head;

	if (len <= room) {
		strbuf_addstr(out, s);
		return;
	}
	if (room <= strlen(ELLIPSIS) + 1) {
		strbuf_add(out, s, room);
		return;
	}
	head = (room - strlen(ELLIPSIS) + 1) / 2;
	strbuf_add(out, s, head);
	strbuf_addstr(out, ELLIPSIS);
	strbuf_addstr(out, s + len - (room - strlen(ELLIPSIS) - head));
}

/*
 * The one indentation rule of the screen and the text: two spaces a level
 * until they would take more than half of a scope column of width
 * characters, then "[+D] " at that point for the row D levels down.
 */
static void add_indent(struct strbuf *out, uint32_t depth, size_t width)
{
	size_t indent = 2 * (size_t)depth, cap = width / 2, tlen;
	char tag[32];

	if (indent <= cap) {
		strbuf_addf(out, "%*s", (int)indent, "");
		return;
	}
	snprintf(tag, sizeof(tag), "[+%u] ", depth);
	tlen = strlen(tag);
	strbuf_addf(out, "%*s%s", (int)(cap > tlen ? cap - tlen : 0), "", tag);
}

void stdio_scope(struct view *v, const struct row *r, size_t width,
		 const struct names *names, const struct names *fit,
		 struct strbuf *out)
{
	struct strbuf label = STRBUF_INIT;
	size_t start = out->len, used;

	stdio_label(v, r->node, names, &label);
	add_indent(out, r->depth, width ? width : STDIO_INDENT_WIDTH);
	strbuf_addstr(out, stdio_marker(v, r->node));
	used = out->len - start;
	if (width && fit && used + label.len > width) {
		/* the lists collapsed first: the words that tell rows apart
		 * stay (names.h) */
		strbuf_reset(&label);
		stdio_label(v, r->node, fit, &label);
	}
	stdio_one_line(&label, 0);
	if (!width)
		strbuf_addstr(out, label.buf);
	else if (used < width)
		stdio_add_elided(out, label.buf, width - used);
	if (width && out->len - start > width) {
		out->len = start + width;
		out->buf[out->len] = '\0';
	}
	strbuf_release(&label);
}

size_t stdio_layout(const struct browser *b, size_t width, size_t *out,
		    size_t *dropped)
{
	size_t c, n = 0, used = 0, left = 0;

	/* the sort column's room first, then the others' in table order */
	if (b->ncols)
		used = stdio_col_width(b, b->sort_col) + 2;
	for (c = 0; c < b->ncols; c++) {
		size_t w = stdio_col_width(b, c) + 2;

		if (c == b->sort_col) {
			out[n++] = c;
		} else if (!b->cols[c].hidden) {
			if (width && used + w + STDIO_SCOPE_MIN > width) {
				left++;
				continue;
			}
			used += w;
			out[n++] = c;
		}
	}
	if (dropped)
		*dropped = left;
	return n;
}

int stdio_above_limit(struct view *v, uint32_t n, double pct)
{
	size_t c = v->b->sort_col;
	double total;

	if (pct <= 0 || !v->b->ncols || n == view_display_root(v))
		return 1;
	total = view_value(v, 0, c);
	return total == 0 || 100.0 * view_value(v, n, c) / total >= pct;
}

/* The next row at or after *r that the percent limit keeps (rows under a
 * row left out are left out too); returns 0 at the end. */
static int next_row(struct view *v, const struct stdio_opts *o, size_t *r)
{
	for (; *r < v->nrows; (*r)++) {
		uint32_t d = v->rows[*r].depth;

		if (stdio_above_limit(v, v->rows[*r].node, o->percent_limit))
			return 1;
		while (*r + 1 < v->nrows && v->rows[*r + 1].depth > d)
			(*r)++;
	}
	return 0;
}

static int finish(FILE *out)
{
	if (fflush(out) || ferror(out))
		return hpc_seterr("write error: %s", strerror(errno));
	return 0;
}

/* Writes sb as one line of at most width characters (0: no limit). */
static void put_line(struct strbuf *sb, size_t width, FILE *out)
{
	if (width && sb->len > width)
		sb->len = width;
	fwrite(sb->buf, 1, sb->len, out);
	putc('\n', out);
}

int stdio_print(struct view *v, const struct stdio_opts *o, FILE *out)
{
	struct browser *b = v->b;
	struct strbuf sb = STRBUF_INIT;
	char cell[256];
	size_t *cols = xmalloc((b->ncols + 1) * sizeof(*cols));
	size_t r, k, ncols, cells = 0, scope_width = 0;

	ncols = stdio_layout(b, o->width, cols, NULL);
	for (k = 0; k < ncols; k++) {
		strbuf_addf(&sb, "%*s  ", (int)stdio_col_width(b, cols[k]),
			    b->cols[cols[k]].name);
		cells += stdio_col_width(b, cols[k]) + 2;
	}
	strbuf_addf(&sb, "Scope (%s)", view_name(v->kind));
	put_line(&sb, o->width, out);
	if (o->width)
		scope_width = o->width > cells ? o->width - cells : 1;
	for (r = 0; next_row(v, o, &r); r++) {
		uint32_t n = v->rows[r].node;

		strbuf_reset(&sb);
		for (k = 0; k < ncols; k++) {
			stdio_format_cell(v, n, cols[k], cell, sizeof(cell),
					  stdio_col_width(b, cols[k]));
			strbuf_addf(&sb, "%s  ", cell);
		}
		stdio_scope(v, &v->rows[r], scope_width, o->names, o->fit,
			    &sb);
		put_line(&sb, o->width, out);
	}
	strbuf_release(&sb);
	free(cols);
	return finish(out);
}

void stdio_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	putc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', out);
		putc(*s, out);
	}
	putc('"', out);
}

int stdio_print_csv(struct view *v, const struct stdio_opts *o, FILE *out)
{
	struct browser *b = v->b;
	const struct model *m = b->m;
	struct strbuf sb = STRBUF_INIT;
	size_t r, c;
	/* the data view's sharing column (dataview.h invariant 3) */
	int sharing = v->kind == VIEW_DATA && dataview_has_sharing(m);

	fputs("depth,kind,scope,file,line", out);
	if (sharing)
		fputs(",sharing", out);
	for (c = 0; c < b->ncols; c++) {
		if (b->cols[c].hidden)
			continue;
		putc(',', out);
		stdio_csv_field(out, b->cols[c].name);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s %%", b->cols[c].name);
		putc(',', out);
		stdio_csv_field(out, sb.buf);
	}
	putc('\n', out);
	for (r = 0; next_row(v, o, &r); r++) {
		uint32_t n = v->rows[r].node;
		const struct vnode *nd = &v->nodes[n];

		fprintf(out, "%u,%s,", v->rows[r].depth,
			view_kind_name(nd->kind));
		strbuf_reset(&sb);
		stdio_label(v, n, o->names, &sb);
		stdio_csv_field(out, sb.buf);
		putc(',', out);
		stdio_csv_field(out, model_str(m, nd->file));
		if (nd->line)
			fprintf(out, ",%u", nd->line);
		else
			fputs(",", out);
		if (sharing) {
			putc(',', out);
			if (nd->scope != MODEL_NONE)
				fputs(dataview_sharing(m, nd->scope), out);
		}
		for (c = 0; c < b->ncols; c++) {
			double pct;

			if (b->cols[c].hidden)
				continue;
			pct = view_percent(v, n, c);
			fprintf(out, ",%.10g,", view_value(v, n, c));
			if (pct >= 0)
				fprintf(out, "%.2f", pct);
		}
		putc('\n', out);
	}
	strbuf_release(&sb);
	return finish(out);
}
