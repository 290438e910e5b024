/* u-xmlread.c - unit tests for lib/infile.c and lib/xmlread.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "infile.h"
#include "strbuf.h"
#include "unit.h"
#include "xmlread.h"

static char dir[4096];

/* dir/name, written with text when text is not NULL; a static buffer. */
static const char *file(const char *name, const char *text)
{
	static char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (text && (f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
	}
	return path;
}

/*
 * The error of reading path to its end as fmt, without its leading "'DIR/"
 * (so "NAME': ..."), or "" when there is none.
 */
static const char *read_all(const char *path, const struct xmlread_format *fmt)
{
	static char err[600];
	struct xmlread *x = xmlread_open(path, fmt);
	size_t n = strlen(dir);
	int rc = -1;

	if (x) {
		while ((rc = xmlread_next(x)) == 1)
			;
		xmlread_close(x);
	}
	snprintf(err, sizeof(err), "%s", rc < 0 ? hpc_lasterr() : "");
	if (err[0] == '\'' && !strncmp(err + 1, dir, n) && err[n + 1] == '/')
		return err + n + 2;
	return err;
}

static void infile_takes_regular_files_only(void)
{
	struct strbuf sb = STRBUF_INIT;
	char expect[4400];
	const char *p;

	p = file("ok.txt", "0123456789");
	CHECK_INT(infile_read(p, 10, "a test file", &sb), 0);
	CHECK_STR(sb.buf, "0123456789");
	strbuf_reset(&sb);
	CHECK_INT(infile_read(p, 9, "a test file", &sb), -1);
	snprintf(expect, sizeof(expect),
		 "'%s': larger than a test file may be (9 bytes)", p);
	CHECK_STR(hpc_lasterr(), expect);
	CHECK_INT(infile_open(dir, 10, "a test file", NULL), -1);
	snprintf(expect, sizeof(expect),
		 "'%s': is a directory, not a test file", dir);
	CHECK_STR(hpc_lasterr(), expect);
	p = file("fifo", NULL);
	CHECK_INT(mkfifo(p, 0600), 0);
	CHECK(infile_fopen(p, 10, "a test file") == NULL);
	snprintf(expect, sizeof(expect),
		 "'%s': not a regular file (a FIFO), not a test file", p);
	CHECK_STR(hpc_lasterr(), expect);
	CHECK_INT(infile_read("/dev/zero", UINT64_MAX, "a test file", &sb), -1);
	CHECK_STR(hpc_lasterr(), "'/dev/zero': not a regular file (a character "
		  "device), not a test file");
	unlink(p);
	strbuf_release(&sb);
}

static void entities_are_refused(void)
{
	CHECK_STR(read_all(file("e.xml", "<!DOCTYPE A [ <!ENTITY e \"x\"> ]>\n"
				"<A n=\"&e;\"/>\n"), &xmlread_config),
		  "e.xml': declares the entity 'e' (entities are refused)");
	CHECK_STR(read_all(file("p.xml", "<!DOCTYPE A [ <!ENTITY % p \"\"> ]>\n"
				"<A n=\"&lt;&#65;\"/>\n"), &xmlread_config), "");
}

static void depth_is_the_format_s(void)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	for (i = 0; i < 300; i++)
		strbuf_addstr(&sb, "<A>");
	for (i = 0; i < 300; i++)
		strbuf_addstr(&sb, "</A>");
	file("deep.xml", sb.buf);
	CHECK_STR(read_all(file("deep.xml", NULL), &xmlread_structure), "");
	CHECK_STR(read_all(file("deep.xml", NULL), &xmlread_config),
		  "deep.xml': line 1: elements nested deeper than 256");
	strbuf_release(&sb);
}

/* read_all() of long.xml: head, unit repeated to size bytes, tail. */
static const char *long_xml(struct strbuf *sb, const char *head,
			    const char *unit, size_t size, const char *tail,
			    const struct xmlread_format *fmt)
{
	strbuf_reset(sb);
	strbuf_addstr(sb, head);
	while (sb->len < size)
		strbuf_addstr(sb, unit);
	strbuf_addstr(sb, tail);
	return read_all(file("long.xml", sb->buf), fmt);
}

static void cut_and_long_inputs_are_named(void)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	CHECK_STR(read_all(file("cut.xml", "<A>\n<B/>\n"), &xmlread_config),
		  "cut.xml': the file ends early (truncated?)");
	CHECK_STR(read_all(file("cut.xml", "<A>\n<B n=\"x"), &xmlread_config),
		  "cut.xml': the file ends early (truncated?)");
	CHECK_STR(read_all(file("two.xml", "<A/>\n<A/>\n"), &xmlread_config),
		  "two.xml': line 2: Extra content at the end of the document");
	CHECK_STR(read_all(file("empty.xml", ""), &xmlread_config),
		  "empty.xml': empty file, not a metric configuration");
	CHECK_STR(long_xml(&sb, "<A>\n<B n=\"", ">>>>>>>>", 300000,
			   "\"/></A>\n", &xmlread_config),
		  "long.xml': line 2: a tag of more than 262144 bytes with "
		  "a '>' inside");
	CHECK_STR(long_xml(&sb, "<A>\n<!--", "<->>", 300000, "-->\n</A>\n",
			   &xmlread_config),
		  "long.xml': line 2: a comment of more than 262144 bytes with "
		  "a '>' inside");
	CHECK_STR(long_xml(&sb, "<A>\n<B n=\"", "f&lt;g&gt;", (8 << 20) + 16,
			   "\"/></A>\n", &xmlread_structure),
		  "long.xml': line 2: a tag or text longer than 8388608 bytes");
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "<A>\n<B");
	for (i = 0; i < 1025; i++)
		strbuf_addf(&sb, " a%d='x'", i);
	strbuf_addstr(&sb, "/>\n</A>\n");
	CHECK_STR(read_all(file("long.xml", sb.buf), &xmlread_config),
		  "long.xml': line 2: a tag with more than 1024 attributes");
	strbuf_release(&sb);
}

/*
 * hpcstruct writes a C++ name as it demangles (libnvJitLink.so has names
 * past 256 KiB), '>' escaped: a value, comment or text of megabytes
 * without a raw '>' is read whole.
 */
static void megabyte_values_are_read(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct xmlread *x;
	const char *v;
	size_t n = 0;

	strbuf_addstr(&sb, "<A>\n<!-- a comment --><B n=\"");
	while (sb.len < (3 << 20))
		strbuf_addstr(&sb, "std::map&lt;int, T&lt;'c'&gt;&gt; ");
	strbuf_addstr(&sb, "\" l='1'/>\n<C>");
	while (sb.len < (6 << 20))
		strbuf_addstr(&sb, "text >> more text ");
	strbuf_addstr(&sb, "</C>\n</A>\n");
	x = xmlread_open(file("big.xml", sb.buf), &xmlread_structure);
	CHECK(x != NULL);
	if (!x) {
		strbuf_release(&sb);
		return;
	}
	while (xmlread_next(x) == 1)
		if ((v = xmlread_attr(x, "n")))
			n = strlen(v);
	CHECK_STR(xmlread_check(x) ? hpc_lasterr() : "", "");
	CHECK(n > (3 << 20) / 34 * 22 - 64 && n < (3 << 20));
	xmlread_close(x);
	strbuf_release(&sb);
}

static void caller_errors_name_file_and_line(void)
{
	struct xmlread *x = xmlread_open(file("f.xml", "<A>\n<B n=\"v\"/>\n</A>\n"),
					 &xmlread_config);
	char expect[4400];

	CHECK(x != NULL);
	if (!x)
		return;
	CHECK_INT(xmlread_next(x), 1);
	CHECK_INT(xmlread_next(x), 1);
	CHECK_STR(xmlread_attr(x, "n"), "v");
	CHECK(xmlread_attr(x, "m") == NULL);
	CHECK_INT(xmlread_fail(x, NULL, "<%s> is wrong", "B"), -1);
	snprintf(expect, sizeof(expect), "'%s/f.xml': line 2: <B> is wrong", dir);
	CHECK_STR(hpc_lasterr(), expect);
	CHECK_INT(xmlread_next(x), -1);		/* the first error stays */
	CHECK_STR(hpc_lasterr(), expect);
	xmlread_close(x);
}

int main(void)
{
	static const char *const made[] = {
		"ok.txt", "e.xml", "p.xml", "deep.xml", "cut.xml", "two.xml",
		"empty.xml", "long.xml", "f.xml", "big.xml",
	};
	size_t i;

	snprintf(dir, sizeof(dir), "%s/u-xmlread-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	unit_run("infile takes regular files of bounded size only",
		 infile_takes_regular_files_only);
	unit_run("a declared entity is refused; predefined ones are not",
		 entities_are_refused);
	unit_run("nesting depth is the format's", depth_is_the_format_s);
	unit_run("cut, empty and over-long inputs are named",
		 cut_and_long_inputs_are_named);
	unit_run("values of megabytes without a raw '>' are read",
		 megabyte_values_are_read);
	unit_run("caller errors name the file and line, first one kept",
		 caller_errors_name_file_and_line);
	for (i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		unlink(file(made[i], NULL));
	rmdir(dir);
	return unit_done();
}
