/* xmlread.c - see xmlread.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>

#include "infile.h"
#include "strbuf.h"
#include "xmlread.h"

const struct xmlread_format xmlread_structure = {
	"a structure file", (uint64_t)4 << 30, 4096,
};
const struct xmlread_format xmlread_config = {
	"a metric configuration", (uint64_t)16 << 20, 256,
};
const struct xmlread_format xmlread_experiment = {
	"an experiment database", (uint64_t)64 << 30, 1u << 20,
};

static int report(const struct xmlread *x)
{
	return hpc_seterr("'%s': %s", x->path, x->err);
}

static void record(struct xmlread *x, long line, const char *fmt, ...)
	HPC_PRINTF(3, 4);

/* Keeps the first error: "line N: MESSAGE" (line 0: "MESSAGE"). */
static void record(struct xmlread *x, long line, const char *fmt, ...)
{
	size_t n = 0;
	char *nl;
	va_list ap;

	if (x->failed)
		return;
	x->failed = 1;
	if (line > 0)
		n = (size_t)snprintf(x->err, sizeof(x->err), "line %ld: ", line);
	va_start(ap, fmt);
	vsnprintf(x->err + n, sizeof(x->err) - n, fmt, ap);
	va_end(ap);
	n = strlen(x->err);
	while (n && strchr("\n ", x->err[n - 1]))
		x->err[--n] = 0;
	while ((nl = strchr(x->err, '\n')))	/* one line, whoever wrote it */
		*nl = ' ';
}

static int starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/*
 * 1 when e says the document ended early: libxml2 says "Extra content at
 * the end of the document" when the input ends with elements still open
 * or inside the prolog, "Premature end of data in tag", or whatever a cut
 * left unfinished (then the file's last byte, blanks aside, is not the '>'
 * of the root element's end tag).
 */
static int cut_short(const struct xmlread *x, xmlErrorPtr e)
{
	xmlParserCtxtPtr ctxt = e->domain == XML_FROM_PARSER ? e->ctxt : NULL;

	if (!x->eof)
		return 0;
	if (x->last != '>' || e->code == XML_ERR_TAG_NOT_FINISHED)
		return 1;
	return e->code == XML_ERR_DOCUMENT_END && ctxt &&
	       (ctxt->nameNr > 0 || ctxt->instate != XML_PARSER_EPILOG);
}

/* libxml2's errors, said in our words where its own are unclear. */
static void on_error(void *arg, xmlErrorPtr e)
{
	struct xmlread *x = arg;
	const char *msg = e->message ? e->message : "malformed XML";
	const char *bytes = strstr(msg, "Bytes:");

	if (e->level < XML_ERR_ERROR)
		return;
	if (cut_short(x, e))
		record(x, 0, "the file ends early (truncated?)");
	else if (starts(msg, "Excessive depth"))
		record(x, e->line, "elements nested deeper than %u",
		       x->fmt->max_depth);
	else if (e->code == XML_ERR_ENTITY_LOOP)
		record(x, 0, "entity expansion beyond libxml2's limits "
		       "(entities are refused)");
	else if (starts(msg, "Input is not proper UTF-8") && bytes)
		record(x, e->line, "not UTF-8 (bytes%.*s)",
		       (int)strcspn(bytes + 6, "\n"), bytes + 6);
	else if (e->code == XML_ERR_DOCUMENT_EMPTY)
		record(x, e->line, "not XML (no element found)");
	else
		record(x, e->line, "%s", msg);
}

static xmlParserInputPtr refuse_entity(const char *url, const char *id,
				       xmlParserCtxtPtr ctx)
{
	(void)ctx;
	(void)url;
	(void)id;
	return NULL;
}

/*
 * libxml2 reads through here: no more than the format allows, and no more
 * than MAX_PROLOG bytes before the root element has started.  The push
 * parser looks for the end of the internal subset from its start again
 * after each chunk while inside a quoted literal, so a DTD of megabytes of
 * quoted '>' took minutes; our formats' DTDs are a few KiB.
 */
#define MAX_PROLOG (256 << 10)

/*
 * The same retrying makes a long tag, comment, processing instruction or
 * CDATA section quadratic, but only through its '>' bytes: each 512-byte
 * piece that brings a '>' not ending it has libxml2 scan all of it again
 * (megabytes of '>' in one attribute value took minutes).  Our writers
 * and HPCToolkit's write '>' in a value as "&gt;", so such a '>' is
 * allowed only in markup of at most MAX_GT_RUN bytes, and then the
 * rescans cost at most MAX_GT_RUN^2/512 byte reads.  libxml2 checks a
 * new attribute against all earlier ones of its tag (100,000 attributes
 * took 10 s); our formats have a handful per element.  Without
 * XML_PARSE_HUGE libxml2 refuses more than 10,000,000 bytes of one
 * token; MAX_RUN, below that, says it in our words.  Markup without a
 * '>' inside, of any size up to MAX_RUN, costs linear time: a structure
 * hpcstruct wrote with a name of megabytes is read.
 */
#define MAX_GT_RUN (256 << 10)
#define MAX_ATTRS 1024
#define MAX_RUN (8 << 20)

/* What scan() is inside of: markup starts at '<'. */
enum { IN_TEXT, IN_OPEN, IN_BANG, IN_DASH, IN_TAG, IN_COMMENT, IN_PI,
       IN_CDATA, IN_DECL };

static const char *markup_name(int in)
{
	switch (in) {
	case IN_COMMENT: return "a comment";
	case IN_PI: return "a processing instruction";
	case IN_CDATA: return "a CDATA section";
	case IN_DECL: return "a declaration";
	default: return "a tag";
	}
}

/*
 * The markup state after byte c; x->prev holds the two bytes before it
 * inside the markup's body, so the "--" of "<!--" does not end "<!-->".
 */
static void lex(struct xmlread *x, char c)
{
	int ends = 0;

	switch (x->in) {
	case IN_OPEN:
		x->in = c == '?' ? IN_PI : c == '!' ? IN_BANG : IN_TAG;
		x->prev[0] = x->prev[1] = 0;
		if (x->in != IN_TAG)
			return;
		break;
	case IN_BANG:
		x->in = c == '-' ? IN_DASH : c == '[' ? IN_CDATA : IN_DECL;
		if (c == '-' || c == '[')
			return;
		break;
	case IN_DASH:
		x->in = IN_COMMENT;
		return;
	case IN_TAG:
		if (x->quote) {
			if (c == x->quote)
				x->quote = 0;
		} else if (c == '"' || c == '\'') {
			x->quote = c;
			x->attrs++;
		}
		if (c == '>' && !x->quote)
			ends = 1;
		break;
	case IN_COMMENT:
		ends = c == '>' && x->prev[0] == '-' && x->prev[1] == '-';
		break;
	case IN_PI:
		ends = c == '>' && x->prev[1] == '?';
		break;
	case IN_CDATA:
		ends = c == '>' && x->prev[0] == ']' && x->prev[1] == ']';
		break;
	case IN_DECL:
		ends = c == '>';
		break;
	}
	if (x->in != IN_TEXT && c == '>') {
		if (ends)
			x->in = IN_TEXT;
		else
			x->gt_inside = 1;
	}
	x->prev[0] = x->prev[1];
	x->prev[1] = c;
}

/*
 * Checks each byte against the bounds above and notes the lines read and
 * the file's last byte, blanks aside.  A '<' starts markup unless it is
 * inside a comment, processing instruction or CDATA section; run counts
 * the bytes since the last markup started, text after it included.
 */
static int scan(struct xmlread *x, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int in = x->in;

		if (buf[i] == '<' && in != IN_COMMENT && in != IN_PI &&
		    in != IN_CDATA) {
			x->in = IN_OPEN;
			x->quote = 0;
			x->attrs = 0;
			x->gt_inside = 0;
			x->run = 0;
			x->run_line = x->line;
		} else {
			lex(x, buf[i]);
			x->run++;
		}
		if (x->run > MAX_RUN) {
			record(x, x->run_line, "a tag or text longer than %d "
			       "bytes", MAX_RUN);
			return -1;
		}
		if (x->gt_inside && x->in != IN_TEXT && x->run > MAX_GT_RUN) {
			record(x, x->run_line, "%s of more than %d bytes with "
			       "a '>' inside", markup_name(x->in), MAX_GT_RUN);
			return -1;
		}
		if (x->attrs > MAX_ATTRS) {
			record(x, x->run_line, "a tag with more than %d "
			       "attributes", MAX_ATTRS);
			return -1;
		}
		if (buf[i] == '\n')
			x->line++;
		if (!strchr(" \t\r\n", buf[i]))
			x->last = buf[i];
	}
	return 0;
}

static int read_cb(void *arg, char *buf, int len)
{
	struct xmlread *x = arg;
	uint64_t left = x->fmt->max_bytes - x->nread;
	ssize_t n;

	if (x->mem) {
		n = (ssize_t)(x->memlen - x->mempos < (size_t)len ?
			      x->memlen - x->mempos : (size_t)len);
		memcpy(buf, x->mem + x->mempos, (size_t)n);
		x->mempos += (size_t)n;
	} else {
		do
			n = read(x->fd, buf, left < (uint64_t)len ?
				 (size_t)left + 1 : (size_t)len);
		while (n < 0 && errno == EINTR);
	}
	if (n < 0) {
		record(x, 0, "%s", strerror(errno));
		return -1;
	}
	x->nread += (uint64_t)n;
	x->eof = n == 0;
	if (scan(x, buf, (size_t)n))
		return -1;
	if (!x->started && x->nread > MAX_PROLOG) {
		record(x, 0, "more than %d bytes before the root element "
		       "(the DTD is too large)", MAX_PROLOG);
		return -1;
	}
	if (x->nread > x->fmt->max_bytes) {
		record(x, 0, "larger than %s may be (%" PRIu64 " bytes)",
		       x->fmt->what, x->fmt->max_bytes);
		return -1;
	}
	return (int)n;
}

static struct xmlread *open_reader(struct xmlread *x)
{
	const char *path = x->path;

	x->line = x->run_line = 1;
	xmlSetExternalEntityLoader(refuse_entity);
	xmlSetStructuredErrorFunc(x, on_error);
	xmlParserMaxDepth = x->fmt->max_depth;
	x->r = xmlReaderForIO(read_cb, NULL, x, path, NULL,
			      XML_PARSE_NONET | XML_PARSE_NOBLANKS |
			      XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			      XML_PARSE_BIG_LINES);
	if (!x->r) {
		record(x, 0, "cannot start the XML parser");
		report(x);
		xmlread_close(x);
		return NULL;
	}
	xmlTextReaderSetStructuredErrorHandler(x->r, on_error, x);
	return x;
}

struct xmlread *xmlread_open(const char *path,
			     const struct xmlread_format *fmt)
{
	struct xmlread *x;
	uint64_t size;
	int fd = infile_open(path, fmt->max_bytes, fmt->what, &size);

	if (fd < 0)
		return NULL;
	if (!size) {
		close(fd);
		hpc_seterr("'%s': empty file, not %s", path, fmt->what);
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->path = path;
	x->fmt = fmt;
	x->fd = fd;
	return open_reader(x);
}

struct xmlread *xmlread_open_mem(const char *path, const char *buf,
				 size_t len, const struct xmlread_format *fmt)
{
	struct xmlread *x;

	if (!len || len > fmt->max_bytes) {
		hpc_seterr("'%s': %s document, not %s", path,
			   len ? "too large a" : "an empty", fmt->what);
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->path = path;
	x->fmt = fmt;
	x->fd = -1;
	x->mem = buf;
	x->memlen = len;
	return open_reader(x);
}

void xmlread_close(struct xmlread *x)
{
	if (!x)
		return;
	if (x->r)
		xmlFreeTextReader(x->r);
	xmlSetStructuredErrorFunc(NULL, NULL);
	if (x->fd >= 0)
		close(x->fd);
	free(x);
}

static void first_entity(void *payload, void *data, const xmlChar *name)
{
	const char **first = data;

	(void)payload;
	if (!*first || strcmp((const char *)name, *first) < 0)
		*first = (const char *)name;
}

/* Policy 3: runs once the prolog (and with it the DTD) has been read. */
static void check_entities(struct xmlread *x)
{
	xmlNodePtr n = xmlTextReaderCurrentNode(x->r);
	xmlDtdPtr dtd = n && n->doc ? n->doc->intSubset : NULL;
	const char *name = NULL;

	if (!dtd || !dtd->entities)
		return;
	xmlHashScan(dtd->entities, first_entity, &name);
	if (name)
		record(x, 0, "declares the entity '%s' (entities are refused)",
		       name);
}

static int after_move(struct xmlread *x, int rc)
{
	if (rc == 1 && !x->started) {
		x->started = 1;
		check_entities(x);
	}
	if (rc < 0 && !x->failed)
		record(x, 0, "malformed XML");
	return x->failed ? report(x) : rc;
}

int xmlread_next(struct xmlread *x)
{
	if (x->failed)
		return report(x);
	return after_move(x, xmlTextReaderRead(x->r));
}

int xmlread_skip(struct xmlread *x)
{
	if (x->failed)
		return report(x);
	return after_move(x, xmlTextReaderNext(x->r));
}

xmlNodePtr xmlread_expand(struct xmlread *x)
{
	xmlNodePtr n;

	if (x->failed) {
		report(x);
		return NULL;
	}
	n = xmlTextReaderExpand(x->r);
	if (!n && !x->failed)
		record(x, 0, "malformed XML");
	if (x->failed) {
		report(x);
		return NULL;
	}
	return n;
}

const char *xmlread_attr(struct xmlread *x, const char *name)
{
	const char *v = NULL;

	if (xmlTextReaderMoveToAttribute(x->r, (const xmlChar *)name) == 1)
		v = (const char *)xmlTextReaderConstValue(x->r);
	xmlTextReaderMoveToElement(x->r);
	return v;
}

int xmlread_fail(struct xmlread *x, xmlNodePtr n, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!n)
		n = xmlTextReaderCurrentNode(x->r);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	record(x, n ? xmlGetLineNo(n) : 0, "%s", sb.buf);
	strbuf_release(&sb);
	return report(x);
}

int xmlread_check(struct xmlread *x)
{
	return x->failed ? report(x) : 0;
}
