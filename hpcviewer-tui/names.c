/*
 * names.c - short forms of long procedure names (names.h).
 *
 * Each name is collapsed once into a pattern in which every collapsed list
 * is a '\1' between its brackets, with the list's words kept aside.  Names
 * are grouped by pattern; in a group of several, a list shows the words of
 * that list that not every member of the group has.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "names.h"
#include "strbuf.h"

#define LIST_KEEP 16	/* lists no longer than this stay as written */
#define MAX_WORDS 3	/* distinguishing words shown per list */

struct cname {
	uint32_t name;		/* the model's string index */
	char *pattern;		/* collapsed, '\1' per collapsed list */
	char **words;		/* per collapsed list: its words, ' '-joined */
	size_t nlists;
	uint32_t next;		/* next with the same pattern, or UINT32_MAX */
};

struct names {
	char **short_of;	/* [nstrs]: short form, or NULL */
	size_t n;
};

static int is_word(int c)
{
	return isalnum(c) || c == '_';
}

/* Index of the bracket closing the list opened at s[i], or 0 when none. */
static size_t list_end(const char *s, size_t i)
{
	size_t depth = 0;

	for (; s[i]; i++) {
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && --depth == 0)
			return i;
	}
	return 0;
}

/* The distinct words of s[0..len), ' '-joined, in order of appearance. */
static char *list_words(const char *s, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, j;

	strbuf_addch(&sb, ' ');
	while (i < len) {
		if (!is_word((unsigned char)s[i])) {
			i++;
			continue;
		}
		for (j = i; j < len && is_word((unsigned char)s[j]); j++)
			;
		strbuf_add(&sb, s + i, j - i);
		strbuf_addch(&sb, ' ');
		/* drop it again if it was there already */
		if (strstr(sb.buf, sb.buf + sb.len - (j - i) - 2) !=
		    sb.buf + sb.len - (j - i) - 2)
			sb.len -= j - i + 1, sb.buf[sb.len] = '\0';
		i = j;
	}
	return strbuf_detach(&sb, NULL);
}

/* Length of the operator token at s ("operator<<", "operator()"), or 0. */
static size_t operator_len(const char *s, const char *start)
{
	/* longest first: "operator==<int>" is operator== and a list */
	static const char *const ops[] = {
		"<<=", ">>=", "<=>", "->*", "<<", ">>", "<=", ">=", "==", "!=",
		"&&", "||", "++", "--", "->", "+=", "-=", "*=", "/=", "%=",
		"^=", "&=", "|=", "()", "[]", "<", ">", "+", "-", "*", "/",
		"%", "^", "&", "|", "~", "!", "=", ",", NULL,
	};
	size_t i;

	if (strncmp(s, "operator", 8) || (s > start && is_word((unsigned char)s[-1])))
		return 0;
	for (i = 0; ops[i]; i++)
		if (!strncmp(s + 8, ops[i], strlen(ops[i])))
			return 8 + strlen(ops[i]);
	return 8;
}

static void collapse(struct cname *c, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i = 0, alloc = 0, end, k;

	while (s[i]) {
		if ((k = operator_len(s + i, s)) > 0 ||
		    (!strncmp(s + i, "(anonymous namespace)", 21) && (k = 21))) {
			strbuf_add(&sb, s + i, k);
			i += k;
			continue;
		}
		if ((s[i] != '<' && s[i] != '(') || !(end = list_end(s, i))) {
			strbuf_addch(&sb, s[i++]);
			continue;
		}
		if (end - i - 1 <= LIST_KEEP) {
			strbuf_add(&sb, s + i, end - i + 1);
		} else {
			strbuf_addch(&sb, s[i]);
			strbuf_addch(&sb, '\1');
			strbuf_addch(&sb, s[end]);
			HPC_GROW(c->words, c->nlists + 1, alloc);
			c->words[c->nlists++] = list_words(s + i + 1, end - i - 1);
		}
		i = end + 1;
	}
	c->pattern = strbuf_detach(&sb, NULL);
}

/* Does every member of the group from first have word w in list k? */
static int common_word(const struct cname *cn, uint32_t first, size_t k,
		       const char *w, size_t len)
{
	uint32_t j;
	char key[256];

	if (len + 3 > sizeof(key))
		return 0;
	key[0] = ' ';
	memcpy(key + 1, w, len);
	key[len + 1] = ' ';
	key[len + 2] = '\0';
	for (j = first; j != UINT32_MAX; j = cn[j].next)
		if (!strstr(cn[j].words[k], key))
			return 0;
	return 1;
}

/* c's pattern with each list filled in: "..." and the words of that list
 * not every member of its group has. */
static char *fill(const struct cname *cn, uint32_t first, const struct cname *c)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	size_t k = 0;

	for (p = c->pattern; *p; p++) {
		const char *w;
		int shown = 0;

		if (*p != '\1') {
			strbuf_addch(&sb, *p);
			continue;
		}
		strbuf_addstr(&sb, "...");
		for (w = c->words[k] + 1; *w && shown < MAX_WORDS;) {
			size_t len = strcspn(w, " ");

			if (cn[first].next != UINT32_MAX &&
			    !common_word(cn, first, k, w, len)) {
				strbuf_addf(&sb, "%s%.*s", shown ? "," : "",
					    (int)len, w);
				shown++;
			}
			w += len + 1;
		}
		if (shown)
			strbuf_addstr(&sb, "...");
		k++;
	}
	return strbuf_detach(&sb, NULL);
}

struct names *names_new(const struct model *m)
{
	struct names *nm = xcalloc(1, sizeof(*nm));
	struct cname *cn = NULL;
	struct hmap *groups = hmap_new();
	unsigned char *seen = xcalloc(m->nstrs + 1, 1);
	size_t ncn = 0, alloc = 0, i, k;

	nm->n = m->nstrs;
	nm->short_of = xcalloc(m->nstrs + 1, sizeof(char *));
	for (i = 1; i < m->nscopes; i++) {
		const struct scope *sc = &m->scopes[i];
		struct cname c;
		void *first;

		if ((sc->kind != SK_PROC && sc->kind != SK_INLINE) ||
		    seen[sc->name])
			continue;
		seen[sc->name] = 1;
		memset(&c, 0, sizeof(c));
		c.name = sc->name;
		collapse(&c, model_str(m, sc->name));
		if (!c.nlists) {
			free(c.pattern);
			continue;
		}
		first = hmap_get_str(groups, c.pattern);
		c.next = first ? (uint32_t)((uintptr_t)first - 1) : UINT32_MAX;
		HPC_GROW(cn, ncn + 1, alloc);
		cn[ncn] = c;
		hmap_put_str(groups, c.pattern, (void *)(uintptr_t)(ncn + 1));
		ncn++;
	}
	for (i = 0; i < hmap_capacity(groups); i++) {
		uint32_t first, j, o;

		if (!hmap_used(groups, i))
			continue;
		first = (uint32_t)((uintptr_t)hmap_value(groups, i) - 1);
		for (j = first; j != UINT32_MAX; j = cn[j].next)
			nm->short_of[cn[j].name] = fill(cn, first, &cn[j]);
		/* words could not tell these apart: full names */
		for (j = first; j != UINT32_MAX; j = cn[j].next)
			for (o = cn[j].next; o != UINT32_MAX; o = cn[o].next) {
				char **a = &nm->short_of[cn[j].name];
				char **b = &nm->short_of[cn[o].name];

				if (*a && *b && !strcmp(*a, *b)) {
					free(*a);
					free(*b);
					*a = *b = NULL;
				}
			}
	}
	for (i = 0; i < ncn; i++) {
		for (k = 0; k < cn[i].nlists; k++)
			free(cn[i].words[k]);
		free(cn[i].words);
		free(cn[i].pattern);
	}
	free(cn);
	free(seen);
	hmap_free(groups);
	return nm;
}

void names_free(struct names *nm)
{
	size_t i;

	if (!nm)
		return;
	for (i = 0; i < nm->n; i++)
		free(nm->short_of[i]);
	free(nm->short_of);
	free(nm);
}

const char *names_short(const struct names *nm, uint32_t name)
{
	return name < nm->n ? nm->short_of[name] : NULL;
}
