/*
 * flamegraph.c - the SVG flame graph of a flame tree (flamegraph.h).
 *
 * Two passes: a depth-first walk (explicit stack) places every frame wide
 * enough to draw, in value units from the root's left edge, and finds the
 * deepest level, which sets the picture's height; then the frames are
 * written in the walk's order.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "flamegraph.h"
#include "strbuf.h"
#include "xmlw.h"

#define FONT_SIZE 12
#define CHAR_WIDTH (FONT_SIZE * 0.59)	/* a character, on average */
#define TOP 56				/* title and legend */
#define BOTTOM 28			/* the hovered frame's line */

struct placed {
	uint32_t node, depth;
	double x;			/* value units from the root's left */
};

struct walk {
	uint32_t node, next;
	double x;			/* where the next child starts */
};

/* The frames to draw, in depth-first order, in a malloc'ed array. */
static struct placed *place(const struct flame *f, double min_value,
			    size_t *nplaced, uint32_t *maxdepth)
{
	struct placed *out = NULL;
	struct walk *stack = NULL;
	size_t n = 0, out_alloc = 0, sp = 0, alloc = 0;

	*maxdepth = 0;
	HPC_GROW(out, 1, out_alloc);
	out[n].node = 0;
	out[n].depth = 0;
	out[n++].x = 0;
	HPC_GROW(stack, 1, alloc);
	stack[sp].node = 0;
	stack[sp].next = 0;
	stack[sp++].x = 0;
	while (sp) {
		struct walk *w = &stack[sp - 1];
		const struct flame_node *nd = &f->nodes[w->node];
		uint32_t c;
		double x;

		if (w->next == nd->nchildren) {
			sp--;
			continue;
		}
		c = f->kids[nd->child_start + w->next++];
		x = w->x;
		w->x += f->nodes[c].total;
		if (f->nodes[c].total < min_value)
			continue;	/* invariant 3: with all above it */
		HPC_GROW(out, n + 1, out_alloc);
		out[n].node = c;
		out[n].depth = (uint32_t)sp;
		out[n++].x = x;
		if (sp > *maxdepth)
			*maxdepth = (uint32_t)sp;
		HPC_GROW(stack, sp + 1, alloc);
		stack[sp].node = c;
		stack[sp].next = 0;
		stack[sp++].x = x;
	}
	free(stack);
	*nplaced = n;
	return out;
}

/* A hash of the label in [0, 1), two ways (FNV-1a, forward and back). */
static void label_hash(const char *s, double *v1, double *v2)
{
	uint32_t h = 2166136261u, g = 2166136261u;
	size_t i, len = strlen(s);

	for (i = 0; i < len; i++) {
		h = (h ^ (unsigned char)s[i]) * 16777619u;
		g = (g ^ (unsigned char)s[len - 1 - i]) * 16777619u;
	}
	*v1 = (h >> 8) / 16777216.0;
	*v2 = (g >> 8) / 16777216.0;
}

static void frame_fill(int kind, const char *label, struct strbuf *out)
{
	double v1, v2;

	label_hash(label, &v1, &v2);
	switch (kind) {
	case SK_ROOT:
		strbuf_addstr(out, "rgb(200,200,200)");
		break;
	case SK_INLINE:
		strbuf_addf(out, "rgb(%d,%d,%d)", 50 + (int)(60 * v1),
			    165 + (int)(55 * v1), 165 + (int)(55 * v2));
		break;
	case SK_LOOP:
		strbuf_addf(out, "rgb(%d,%d,%d)", 110 + (int)(60 * v1),
			    140 + (int)(60 * v1), 220 + (int)(35 * v2));
		break;
	default:
		strbuf_addf(out, "rgb(%d,%d,%d)", 205 + (int)(50 * v2),
			    (int)(230 * v1), (int)(55 * v2));
		break;
	}
}

static const char *kind_class(int kind)
{
	switch (kind) {
	case SK_ROOT: return "frame root";
	case SK_INLINE: return "frame inline";
	case SK_LOOP: return "frame loop";
	default: return "frame proc";
	}
}

/* The label as drawn: inlined code marked as the viewer marks it. */
static void drawn_label(const struct flame *f, uint32_t n, struct strbuf *out)
{
	if (f->nodes[n].kind == SK_INLINE)
		strbuf_addstr(out, "[I] ");
	strbuf_addstr(out, flame_label(f, n));
}

/* The label cut to what fits in width pixels: whole when it fits, else
 * its start and "..", nothing under 3 characters (the script's fit()). */
static void fitted(const char *label, double width, struct strbuf *out)
{
	long room = (long)((width - 6) / CHAR_WIDTH);
	size_t len = strlen(label), chars = 0, i;

	for (i = 0; i < len; i++)	/* count characters, not bytes */
		chars += ((unsigned char)label[i] & 0xc0) != 0x80;
	if (room < 0 || (size_t)room >= chars) {
		if (room >= 0)
			strbuf_addstr(out, label);
		return;
	}
	if (room < 3)
		return;
	for (i = 0, chars = 0; i < len; i++) {
		if (((unsigned char)label[i] & 0xc0) != 0x80 &&
		    chars++ == (size_t)room - 2)
			break;
	}
	strbuf_add(out, label, i);
	strbuf_addstr(out, "..");
}

static void add_value(const struct flame *f, double v, struct strbuf *out)
{
	double total = f->nodes[0].total;

	strbuf_addf(out, "%.4g%s%s, %.2f%%", v, f->unit.name ? " " : "",
		    f->unit.name ? f->unit.name : "",
		    total > 0 ? 100.0 * v / total : 0.0);
}

static void write_frame(const struct flame *f, const struct placed *p,
			double px_per_value, double height, struct xmlw *w)
{
	const struct flame_node *nd = &f->nodes[p->node];
	struct strbuf label = STRBUF_INIT, sb = STRBUF_INIT;
	double x = FLAMEGRAPH_PAD + p->x * px_per_value;
	double width = nd->total * px_per_value;
	double y = height - BOTTOM - (p->depth + 1) * FLAMEGRAPH_FRAME_HEIGHT;

	drawn_label(f, p->node, &label);
	xmlw_start(w, "g");
	xmlw_attr(w, "class", kind_class(nd->kind));
	xmlw_start(w, "title");
	strbuf_addf(&sb, "%s\n", label.buf);
	add_value(f, nd->total, &sb);
	if (p->node) {
		strbuf_addstr(&sb, "; self ");
		add_value(f, nd->self, &sb);
	}
	xmlw_text(w, sb.buf);
	xmlw_end(w);
	strbuf_reset(&sb);
	frame_fill(nd->kind, flame_label(f, p->node), &sb);
	xmlw_start(w, "rect");
	xmlw_attrf(w, "x", "%.3f", x);
	xmlw_attrf(w, "y", "%.0f", y);
	xmlw_attrf(w, "width", "%.3f", width);
	xmlw_attrf(w, "height", "%d", FLAMEGRAPH_FRAME_HEIGHT - 1);
	xmlw_attr(w, "fill", sb.buf);
	xmlw_end(w);
	strbuf_reset(&sb);
	fitted(label.buf, width, &sb);
	xmlw_start(w, "text");
	xmlw_attrf(w, "x", "%.3f", x + 3);
	xmlw_attrf(w, "y", "%.0f", y + FLAMEGRAPH_FRAME_HEIGHT - 4);
	xmlw_text(w, sb.buf);
	xmlw_end(w);
	xmlw_end(w);
	strbuf_release(&label);
	strbuf_release(&sb);
}

/* Hover: the frame's title on the bottom line.  Click: zoom into the
 * frame (its ancestors stretched below it, everything else hidden);
 * "Reset zoom" undoes it.  Labels are cut as fitted() cuts them. */
static const char script[] =
	"(function () {\n"
	"var W = " "%d" ", PAD = " "%d" ", CW = " "%g" ", frames = [];\n"
	"var details = document.getElementById('details');\n"
	"function fit(fr, w) {\n"
	"  var n = Math.floor((w - 6) / CW), s = fr.name;\n"
	"  fr.t.textContent = n >= s.length ? s : n >= 3 ? s.slice(0, n - 2) + '..' : '';\n"
	"}\n"
	"function place(fr, x, w, show) {\n"
	"  fr.g.style.display = show ? '' : 'none';\n"
	"  if (!show) return;\n"
	"  fr.r.setAttribute('x', x.toFixed(3));\n"
	"  fr.r.setAttribute('width', w.toFixed(3));\n"
	"  fr.t.setAttribute('x', (x + 3).toFixed(3));\n"
	"  fit(fr, w);\n"
	"}\n"
	"function zoom(z) {\n"
	"  var x1 = z.x + z.w, k = (W - 2 * PAD) / z.w, e = 1e-6;\n"
	"  frames.forEach(function (fr) {\n"
	"    if (fr.y > z.y)\n"
	"      place(fr, PAD, W - 2 * PAD, fr.x <= z.x + e && fr.x + fr.w >= x1 - e);\n"
	"    else\n"
	"      place(fr, PAD + (fr.x - z.x) * k, fr.w * k, fr.x >= z.x - e && fr.x + fr.w <= x1 + e);\n"
	"  });\n"
	"}\n"
	"var gs = document.querySelectorAll('g.frame');\n"
	"for (var i = 0; i < gs.length; i++) {\n"
	"  var r = gs[i].querySelector('rect');\n"
	"  var fr = { g: gs[i], r: r, t: gs[i].querySelector('text'),\n"
	"    name: gs[i].querySelector('title').textContent.split('\\n')[0],\n"
	"    x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y') };\n"
	"  gs[i].fg = fr;\n"
	"  frames.push(fr);\n"
	"}\n"
	"function frameOf(e) { return e.target.closest ? e.target.closest('g.frame') : null; }\n"
	"document.documentElement.addEventListener('mouseover', function (e) {\n"
	"  var g = frameOf(e);\n"
	"  details.textContent = g ? g.fg.name + ': ' + g.querySelector('title').textContent.split('\\n')[1] : ' ';\n"
	"});\n"
	"document.documentElement.addEventListener('click', function (e) {\n"
	"  var g = frameOf(e);\n"
	"  if (g) zoom(g.fg);\n"
	"  else if (e.target.id === 'unzoom') zoom(frames[0]);\n"
	"});\n"
	"})();\n";

static void write_legend(struct xmlw *w)
{
	static const struct {
		int kind;
		const char *name;
	} items[] = {
		{ SK_PROC, "procedure" }, { SK_INLINE, "inlined code" },
		{ SK_LOOP, "loop" },
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		strbuf_reset(&sb);
		frame_fill(items[i].kind, items[i].name, &sb);
		xmlw_start(w, "rect");
		xmlw_attr(w, "class", "legend");
		xmlw_attrf(w, "x", "%zu", FLAMEGRAPH_PAD + 110 * i);
		xmlw_attr(w, "y", "34");
		xmlw_attr(w, "width", "12");
		xmlw_attr(w, "height", "12");
		xmlw_attr(w, "fill", sb.buf);
		xmlw_end(w);
		xmlw_start(w, "text");
		xmlw_attrf(w, "x", "%zu", FLAMEGRAPH_PAD + 110 * i + 16);
		xmlw_attr(w, "y", "45");
		xmlw_text(w, items[i].name);
		xmlw_end(w);
	}
	strbuf_release(&sb);
}

int flamegraph_write(const struct flame *f, const char *title,
		     const struct timeline *tl, FILE *out)
{
	struct xmlw *w = xmlw_new(out);
	double total = f->nodes[0].total;
	double px_per_value = total > 0 ?
		(FLAMEGRAPH_WIDTH - 2 * FLAMEGRAPH_PAD) / total : 0;
	uint32_t maxdepth;
	size_t n, i;
	/* nothing to draw: the root alone */
	struct placed *p = place(f, total > 0 ?
				 FLAMEGRAPH_MIN_WIDTH / px_per_value : 1e300,
				 &n, &maxdepth);
	double flame_height = TOP + (maxdepth + 1) * FLAMEGRAPH_FRAME_HEIGHT +
			      BOTTOM;
	double height = flame_height + (tl ? timeline_height(tl) : 0);
	struct strbuf sb = STRBUF_INIT;

	xmlw_declaration(w);
	xmlw_start(w, "svg");
	xmlw_attr(w, "xmlns", "http://www.w3.org/2000/svg");
	xmlw_attr(w, "version", "1.1");
	xmlw_attrf(w, "width", "%d", FLAMEGRAPH_WIDTH);
	xmlw_attrf(w, "height", "%.0f", height);
	xmlw_attrf(w, "viewBox", "0 0 %d %.0f", FLAMEGRAPH_WIDTH, height);
	xmlw_start(w, "style");
	xmlw_text(w, "text { font-family: Verdana, sans-serif; font-size: 12px; }\n"
		  "g.frame { cursor: pointer; }\n"
		  "g.frame:hover rect { stroke: black; stroke-width: 0.5; }\n"
		  "#unzoom { cursor: pointer; fill: #0645ad; }\n");
	xmlw_end(w);
	xmlw_start(w, "rect");
	xmlw_attr(w, "width", "100%");
	xmlw_attr(w, "height", "100%");
	xmlw_attr(w, "fill", "#f8f8f0");
	xmlw_end(w);
	xmlw_start(w, "text");
	xmlw_attr(w, "id", "title");
	xmlw_attrf(w, "x", "%d", FLAMEGRAPH_PAD);
	xmlw_attr(w, "y", "20");
	xmlw_attr(w, "style", "font-size: 15px");
	strbuf_addf(&sb, "Flame graph%s%s: %s", title ? " of " : "",
		    title ? title : "", f->heading);
	xmlw_text(w, sb.buf);
	xmlw_end(w);
	xmlw_start(w, "text");
	xmlw_attr(w, "id", "unzoom");
	xmlw_attrf(w, "x", "%d", FLAMEGRAPH_WIDTH - FLAMEGRAPH_PAD);
	xmlw_attr(w, "y", "45");
	xmlw_attr(w, "text-anchor", "end");
	xmlw_text(w, "Reset zoom");
	xmlw_end(w);
	write_legend(w);
	for (i = 0; i < n; i++)
		write_frame(f, &p[i], px_per_value, flame_height, w);
	xmlw_start(w, "text");
	xmlw_attr(w, "id", "details");
	xmlw_attrf(w, "x", "%d", FLAMEGRAPH_PAD);
	xmlw_attrf(w, "y", "%.0f", flame_height - 10);
	xmlw_text(w, " ");
	xmlw_end(w);
	if (tl)
		timeline_write(tl, w, flame_height, FLAMEGRAPH_WIDTH);
	strbuf_reset(&sb);
	strbuf_addf(&sb, script, FLAMEGRAPH_WIDTH, FLAMEGRAPH_PAD, CHAR_WIDTH);
	xmlw_start(w, "script");
	xmlw_text(w, sb.buf);
	xmlw_end(w);
	xmlw_end(w);
	strbuf_release(&sb);
	free(p);
	return xmlw_finish(w);
}
