/*
 * folded.c - folded stacks of a flame tree (folded.h).
 *
 * A depth-first walk with an explicit stack keeps the current path in one
 * buffer: entering a node appends ";NAME", leaving it cuts the buffer back
 * to the length saved on the stack.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "folded.h"

double folded_scale(const struct flame *f, const char **unit)
{
	if ((f->unit.name && !strcmp(f->unit.name, "s")) ||
	    strstr(f->heading, "(sec)")) {
		*unit = "ns";
		return 1e9;
	}
	*unit = NULL;
	return 1;
}

/* Does s[0..len) end in white space and a number (\s+\d+(\.\d*)?)?
 * Returns the position of that white space, or len. */
static size_t trailing_count(const char *s, size_t len)
{
	size_t i = len;

	while (i > 0 && (isdigit((unsigned char)s[i - 1]) || s[i - 1] == '.'))
		i--;
	if (i == len || i == 0 || !isdigit((unsigned char)s[i]) ||
	    !isspace((unsigned char)s[i - 1]) ||
	    strchr(s + i, '.') != strrchr(s + i, '.'))
		return len;
	return i - 1;
}

void folded_frame_name(const char *s, int inline_code, struct strbuf *out)
{
	size_t start = out->len, ws;
	const char *p;

	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		strbuf_addch(out, c == ';' ? ':' :
			     c < 0x20 || c == 0x7f ? '_' : c);
	}
	ws = trailing_count(out->buf + start, out->len - start);
	if (ws < out->len - start)
		out->buf[start + ws] = '_';
	if (inline_code)
		strbuf_addstr(out, "_[i]");
}

struct walk {
	uint32_t node, next;	/* next: the child to visit next */
	size_t len;		/* path length before this node's name */
};

int folded_write(const struct flame *f, FILE *out)
{
	struct walk *stack = NULL;
	size_t sp = 0, alloc = 0;
	struct strbuf path = STRBUF_INIT;
	const char *unit;
	double scale = folded_scale(f, &unit), exact = 0;
	long long written = 0;

	HPC_GROW(stack, 1, alloc);
	stack[sp].node = 0;
	stack[sp].next = 0;
	stack[sp++].len = 0;
	while (sp) {
		struct walk *w = &stack[sp - 1];
		const struct flame_node *n = &f->nodes[w->node];
		uint32_t c;

		if (w->next == n->nchildren) {
			/* cut back to the parent's path */
			if (path.alloc) {
				path.len = w->len;
				path.buf[path.len] = '\0';
			}
			sp--;
			continue;
		}
		c = f->kids[n->child_start + w->next++];
		HPC_GROW(stack, sp + 1, alloc);
		stack[sp].node = c;
		stack[sp].next = 0;
		stack[sp++].len = path.len;
		if (path.len)
			strbuf_addch(&path, ';');
		folded_frame_name(flame_label(f, c),
				  f->nodes[c].kind == SK_INLINE, &path);
		if (f->nodes[c].self > 0) {
			long long v;

			exact += f->nodes[c].self * scale;
			v = llround(exact) - written;
			if (v > 0) {
				fprintf(out, "%s %lld\n", path.buf, v);
				written += v;
			}
		}
	}
	free(stack);
	strbuf_release(&path);
	if (fflush(out) || ferror(out)) {
		hpc_seterr("cannot write folded stacks: %s", strerror(errno));
		return -1;
	}
	return 0;
}
