/* xmlsafe.c - see xmlsafe.h. */
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "error.h"
#include "strbuf.h"
#include "xmlsafe.h"

/* First error seen on this reader, kept until xmlsafe_error() reports it. */
static __thread char first_error[512];

static xmlParserInputPtr refuse_entity(const char *url, const char *id,
				       xmlParserCtxtPtr ctx)
{
	(void)ctx;
	if (!first_error[0])
		snprintf(first_error, sizeof(first_error),
			 "external entity '%s' refused", url ? url : id ? id : "?");
	return NULL;
}

static void on_error(void *arg, xmlErrorPtr err)
{
	size_t n;

	(void)arg;
	if (first_error[0] || !err || err->level < XML_ERR_ERROR)
		return;
	snprintf(first_error, sizeof(first_error), "%d: %s", err->line,
		 err->message ? err->message : "parse error");
	n = strlen(first_error);
	while (n && (first_error[n - 1] == '\n' || first_error[n - 1] == ' '))
		first_error[--n] = 0;
}

xmlTextReaderPtr xmlsafe_open(const char *path)
{
	xmlTextReaderPtr r;

	xmlSetExternalEntityLoader(refuse_entity);
	first_error[0] = 0;
	r = xmlReaderForFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING);
	if (!r) {
		hpc_seterr("'%s': cannot open XML file", path);
		return NULL;
	}
	xmlTextReaderSetStructuredErrorHandler(r, on_error, NULL);
	return r;
}

int xmlsafe_error(xmlTextReaderPtr r, const char *path)
{
	(void)r;
	if (!first_error[0])
		return hpc_seterr("%s: malformed XML", path);
	if (first_error[0] >= '0' && first_error[0] <= '9')
		return hpc_seterr("%s:%s", path, first_error);
	return hpc_seterr("%s: %s", path, first_error);
}

char *xmlsafe_attr(xmlTextReaderPtr r, const char *name)
{
	xmlChar *v = xmlTextReaderGetAttribute(r, (const xmlChar *)name);
	char *s;

	if (!v)
		return NULL;
	s = xstrdup((const char *)v);
	xmlFree(v);
	return s;
}
