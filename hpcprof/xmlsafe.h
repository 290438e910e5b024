/*
 * xmlsafe.h - open XML input for hpcprof without network, external entities
 * or entity expansion, and report parse errors as "FILE:LINE: message".
 *
 * Every XML file hpcprof reads (structure files, metric configurations) goes
 * through xmlsafe_open(): libxml2's reader with XML_PARSE_NONET, without
 * XML_PARSE_NOENT / DTDLOAD / DTDATTR, and an external-entity loader that
 * refuses everything, so a hostile file cannot reach the network or the
 * file system, and entity references stay unexpanded.
 */
#ifndef HPCPROF_XMLSAFE_H
#define HPCPROF_XMLSAFE_H

#include <libxml/xmlreader.h>

/*
 * A reader for path, or NULL with hpc_lasterr() set.  Free with
 * xmlFreeTextReader().  After xmlTextReaderRead() returns -1, call
 * xmlsafe_error() for the message.
 */
xmlTextReaderPtr xmlsafe_open(const char *path);

/* Sets hpc_lasterr() to the reader's first error, "FILE:LINE: ..."; -1. */
int xmlsafe_error(xmlTextReaderPtr r, const char *path);

/* Attribute value as a malloc'ed string or NULL (caller frees with free). */
char *xmlsafe_attr(xmlTextReaderPtr r, const char *name);

#endif
