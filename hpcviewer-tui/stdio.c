/*
 * stdio.c - text and CSV output of the rows a view shows.
 */
#include <errno.h>
#include <string.h>

#include "error.h"
#include "stdio-out.h"
#include "strbuf.h"

#define CELL_MIN 16	/* "1.23e+04 100.0%" plus a space */

size_t stdio_col_width(const struct browser *b, size_t c)
{
	size_t len = strlen(b->cols[c].name);

	return len > CELL_MIN ? len : CELL_MIN;
}

void stdio_format_cell(struct view *v, uint32_t n, size_t c, char *buf,
		       size_t size, size_t width)
{
	double val = view_value(v, n, c), pct = view_percent(v, n, c);
	char cell[64];

	if (val == 0)
		cell[0] = '\0';
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

static int finish(FILE *out)
{
	if (fflush(out) || ferror(out))
		return hpc_seterr("write error: %s", strerror(errno));
	return 0;
}

int stdio_print(struct view *v, FILE *out)
{
	struct browser *b = v->b;
	struct strbuf sb = STRBUF_INIT;
	char cell[256];
	size_t r, c;

	for (c = 0; c < b->ncols; c++)
		if (!b->cols[c].hidden)
			fprintf(out, "%*s  ", (int)stdio_col_width(b, c),
				b->cols[c].name);
	fprintf(out, "Scope (%s)\n", view_name(v->kind));
	for (r = 0; r < v->nrows; r++) {
		uint32_t n = v->rows[r].node;

		for (c = 0; c < b->ncols; c++) {
			if (b->cols[c].hidden)
				continue;
			stdio_format_cell(v, n, c, cell, sizeof(cell),
					  stdio_col_width(b, c));
			fprintf(out, "%s  ", cell);
		}
		strbuf_reset(&sb);
		view_label(v, n, &sb);
		fprintf(out, "%*s%s%s\n", (int)(2 * v->rows[r].depth), "",
			stdio_marker(v, n), sb.buf);
	}
	strbuf_release(&sb);
	return finish(out);
}

static void csv_field(FILE *out, const char *s)
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

int stdio_print_csv(struct view *v, FILE *out)
{
	struct browser *b = v->b;
	const struct model *m = b->m;
	struct strbuf sb = STRBUF_INIT;
	size_t r, c;

	fputs("depth,kind,scope,file,line", out);
	for (c = 0; c < b->ncols; c++) {
		if (b->cols[c].hidden)
			continue;
		putc(',', out);
		csv_field(out, b->cols[c].name);
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s %%", b->cols[c].name);
		putc(',', out);
		csv_field(out, sb.buf);
	}
	putc('\n', out);
	for (r = 0; r < v->nrows; r++) {
		uint32_t n = v->rows[r].node;
		const struct vnode *nd = &v->nodes[n];

		fprintf(out, "%u,%s,", v->rows[r].depth,
			view_kind_name(nd->kind));
		strbuf_reset(&sb);
		view_label(v, n, &sb);
		csv_field(out, sb.buf);
		putc(',', out);
		csv_field(out, model_str(m, nd->file));
		if (nd->line)
			fprintf(out, ",%u", nd->line);
		else
			fputs(",", out);
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
