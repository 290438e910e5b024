/* textrec.c - see textrec.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hashmap.h"
#include "infile.h"
#include "strbuf.h"
#include "textrec.h"

int textrec_bad(const struct textrec *r, const char *what)
{
	return hpc_seterr("'%s': line %zu: %s", r->path, r->lineno, what);
}

int textrec_u64(const struct textrec *r, int i, uint64_t *out)
{
	char *end;
	const char *s = r->f[i];

	if (s[0] < '0' || s[0] > '9')
		return textrec_bad(r, "expected a number");
	errno = 0;
	*out = strtoull(s, &end, s[0] == '0' && s[1] == 'x' ? 16 : 10);
	if (*end || errno)
		return textrec_bad(r, "expected a number");
	return 0;
}

int textrec_u32(const struct textrec *r, int i, uint32_t *out)
{
	uint64_t v;

	if (textrec_u64(r, i, &v))
		return -1;
	if (v > UINT32_MAX)
		return textrec_bad(r, "number out of range");
	*out = (uint32_t)v;
	return 0;
}

int textrec_long(const struct textrec *r, int i, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(r->f[i], &end, 10);
	if (*end || end == r->f[i] || errno || *out < lo || *out > hi)
		return textrec_bad(r, "expected a number");
	return 0;
}

int textrec_split(char *line, int sep, char **f, int max)
{
	char *c = line;
	int n = 0;

	while (*c) {
		if (n == max)
			return -1;
		f[n++] = c;
		c = strchr(c, sep);
		if (!c)
			break;
		*c++ = '\0';
	}
	return n;
}

/* Splits line at each sep into r->f. */
static int split(struct textrec *r, char *line, int sep)
{
	r->nf = textrec_split(line, sep, r->f, TEXTREC_MAX_FIELDS);
	if (r->nf < 0)
		return textrec_bad(r, "too many fields");
	return r->nf ? 0 : textrec_bad(r, "empty line");
}

int textrec_next(FILE *f, char *buf, size_t cap, int sep, struct textrec *r)
{
	size_t n = 0;
	int c;

	while ((c = getc_unlocked(f)) != EOF && c != '\n') {
		if (!n)
			r->lineno++;
		if (!c)
			return textrec_bad(r, "binary data");
		if (n + 1 >= cap)
			return textrec_bad(r, "line too long");
		buf[n++] = (char)c;
	}
	if (ferror(f))
		return hpc_seterr("'%s': %s", r->path, strerror(errno));
	if (c == EOF)
		return n ? textrec_bad(r, "truncated (no newline at the end)")
			 : 0;
	if (!n)
		r->lineno++;
	buf[n] = '\0';
	return split(r, buf, sep) ? -1 : 1;
}

static long read_sep(const char *path, uint64_t max_bytes, size_t max_line,
		     const char *what,
		     int (*line)(struct textrec *r, void *arg), void *arg,
		     int sep)
{
	struct strbuf sb = STRBUF_INIT;
	struct textrec r;
	char *c, *nl;
	int ret = 0;

	if (infile_read(path, max_bytes, what, &sb))
		return -1;
	memset(&r, 0, sizeof(r));
	r.path = path;
	if (memchr(sb.buf, '\0', sb.len))
		ret = hpc_seterr("'%s': not %s (binary data)", path, what);
	for (c = sb.buf; !ret && c < sb.buf + sb.len; c = nl + 1) {
		nl = strchr(c, '\n');
		r.lineno++;
		if (!nl) {
			ret = textrec_bad(&r, "truncated (no newline at the "
					  "end)");
			break;
		}
		if ((size_t)(nl - c) > max_line) {
			ret = textrec_bad(&r, "line too long");
			break;
		}
		*nl = '\0';
		ret = split(&r, c, sep) ? -1 : line(&r, arg);
	}
	strbuf_release(&sb);
	return ret ? -1 : (long)r.lineno;
}

long textrec_read(const char *path, uint64_t max_bytes, size_t max_line,
		 const char *what, int (*line)(struct textrec *r, void *arg),
		 void *arg)
{
	return read_sep(path, max_bytes, max_line, what, line, arg, ' ');
}

long textrec_read_tsv(const char *path, uint64_t max_bytes, size_t max_line,
		      const char *what,
		      int (*line)(struct textrec *r, void *arg), void *arg)
{
	return read_sep(path, max_bytes, max_line, what, line, arg, '\t');
}

int textrec_define(const struct textrec *r, struct hmap *index, uint32_t id,
		   size_t n, const char *zero, const char *what)
{
	if (!id)
		return textrec_bad(r, zero);
	if (hmap_get(index, &id, sizeof(id)))
		return textrec_bad(r, what);
	hmap_put(index, &id, sizeof(id), (void *)(uintptr_t)n);
	return 0;
}

char *textrec_path_for(const char *profile, const char *suffix)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(profile);

	if (n > 7 && !strcmp(profile + n - 7, ".hpcrun"))
		n -= 7;
	strbuf_add(&sb, profile, n);
	strbuf_addstr(&sb, suffix);
	return strbuf_detach(&sb, NULL);
}
