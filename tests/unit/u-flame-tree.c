/* u-flame-tree.c - unit tests for hpcviewer-tui's flame tree (flame.c)
 * and folded stacks (folded.c): merging, self values, rounding, names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../hpcviewer-tui/flame.h"
#include "../../hpcviewer-tui/folded.h"
#include "strbuf.h"
#include "unit.h"

static void check_name(const char *in, int inl, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	folded_frame_name(in, inl, &sb);
	CHECK_STR(sb.buf, want);
	strbuf_release(&sb);
}

static void frame_names(void)
{
	check_name("main", 0, "main");
	check_name("a;b;c", 0, "a:b:c");
	check_name("x\ty\n", 0, "x_y_");
	check_name("loop at line 12", 0, "loop at line_12");
	check_name("v 1.5", 0, "v_1.5");
	check_name("v 1.", 0, "v_1.");
	check_name("v 1.2.3", 0, "v 1.2.3");	/* no count: ".3" follows "." */
	check_name("f2", 0, "f2");
	check_name("x 12 ", 0, "x 12 ");
	check_name("v .5", 0, "v .5");
	check_name("12", 0, "12");
	check_name("vec_add", 1, "vec_add_[i]");
	check_name("", 0, "");
}

/* main calls a, b and c (twice: one frame); each a third of 1 s. */
static const char db_xml[] =
	"<?xml version=\"1.0\"?>\n"
	"<HPCToolkitExperiment version=\"2.2\"><Header n=\"t\"/>"
	"<SecCallPathProfile i=\"0\" n=\"t\"><SecHeader><MetricTable>"
	"<Metric i=\"0\" n=\"time (sec):Sum (I)\" v=\"derived-incr\" t=\"inclusive\"/>"
	"</MetricTable></SecHeader><SecCallPathProfileData><M n=\"0\" v=\"1\"/>"
	"<PF n=\"main\" f=\"m.c\" l=\"1\"><M n=\"0\" v=\"1\"/>"
	"<C l=\"2\"><PF n=\"c\" l=\"30\"><M n=\"0\" v=\"0.1666666666666667\"/></PF></C>"
	"<C l=\"3\"><PF n=\"b\" l=\"20\"><M n=\"0\" v=\"0.3333333333333333\"/></PF></C>"
	"<C l=\"4\"><PF n=\"a\" l=\"10\"><M n=\"0\" v=\"0.3333333333333333\"/>"
	"<C l=\"11\"><PF n=\"too-big\" l=\"40\"><M n=\"0\" v=\"0.5\"/></PF></C></PF></C>"
	"<C l=\"5\"><PF n=\"c\" l=\"30\"><M n=\"0\" v=\"0.1666666666666667\"/></PF></C>"
	"</PF></SecCallPathProfileData></SecCallPathProfile></HPCToolkitExperiment>\n";

static struct model *load(const char *xml)
{
	char path[] = "/tmp/u-flame-XXXXXX";
	int fd = mkstemp(path);
	struct model *m;
	FILE *f;

	CHECK(fd >= 0);
	f = fdopen(fd, "w");
	fputs(xml, f);
	fclose(f);
	m = model_load(path);
	unlink(path);
	return m;
}

static uint32_t child(const struct flame *f, uint32_t n, size_t k)
{
	return f->kids[f->nodes[n].child_start + k];
}

static void tree_and_folded(void)
{
	struct model *m = load(db_xml);
	struct browser *b;
	struct flame *f;
	uint32_t mainf, c;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(m != NULL);
	if (!m)
		return;
	b = browser_new(m);
	CHECK_INT(flame_metric(b, NULL), 0);
	f = flame_build(b, 0);
	CHECK_INT(f->nnodes, 6);	/* all main a b c too-big */
	CHECK_INT(f->nodes[0].nchildren, 1);
	mainf = child(f, 0, 0);
	CHECK_STR(flame_label(f, mainf), "main");
	CHECK_INT(f->nodes[mainf].nchildren, 3);	/* c merged */
	CHECK_STR(flame_label(f, child(f, mainf, 0)), "a");
	CHECK_STR(flame_label(f, child(f, mainf, 1)), "b");
	c = child(f, mainf, 2);
	CHECK_STR(flame_label(f, c), "c");
	CHECK(f->nodes[c].total > 0.333333 && f->nodes[c].total < 0.333334);
	/* a child worth more than its parent: the parent's self is 0 */
	CHECK(f->nodes[child(f, mainf, 0)].self == 0);
	/* rounding noise below a nanosecond writes no line for main */
	CHECK(f->nodes[mainf].self < 1e-9);
	out = open_memstream(&text, &len);
	CHECK_INT(folded_write(f, out), 0);
	fclose(out);
	CHECK_STR(text, "main;a;too-big 500000000\n"
			"main;b 333333333\n"
			"main;c 333333334\n");
	free(text);
	flame_free(f);
	browser_free(b);
	model_free(m);
}

int main(void)
{
	unit_run("frame names the tools split back as written", frame_names);
	unit_run("siblings merged, self values, folded values rounded as a sum",
		 tree_and_folded);
	return unit_done();
}
