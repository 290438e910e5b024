/* u-strbuf.c - unit tests for lib/strbuf.c. */
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "unit.h"

static void empty_is_terminated(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(sb.len, 0);
	CHECK_STR(sb.buf, "");
	strbuf_release(&sb);
	strbuf_release(NULL);
}

static void add_and_format(void)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	strbuf_addstr(&sb, "abc");
	strbuf_addch(&sb, '-');
	strbuf_addf(&sb, "%d:%s", 42, "x");
	CHECK_STR(sb.buf, "abc-42:x");
	CHECK_INT(sb.len, 8);
	strbuf_reset(&sb);
	for (i = 0; i < 10000; i++)
		strbuf_addf(&sb, "%04d", i % 10000);
	CHECK_INT(sb.len, 40000);
	CHECK(!memcmp(sb.buf + 39996, "9999", 4));
	CHECK_INT(sb.buf[sb.len], 0);
	strbuf_release(&sb);
}

static void detach_transfers_ownership(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *s;

	strbuf_addstr(&sb, "hello");
	s = strbuf_detach(&sb, &len);
	CHECK_STR(s, "hello");
	CHECK_INT(len, 5);
	CHECK_INT(sb.len, 0);
	CHECK_STR(sb.buf, "");
	free(s);
}

static void grow_array(void)
{
	int *a = NULL;
	size_t alloc = 0, i;

	for (i = 0; i < 1000; i++) {
		HPC_GROW(a, i + 1, alloc);
		a[i] = (int)i;
	}
	CHECK(alloc >= 1000);
	CHECK_INT(a[999], 999);
	free(a);
}

int main(void)
{
	unit_run("an empty strbuf is a valid empty string", empty_is_terminated);
	unit_run("add, addch and addf append and grow", add_and_format);
	unit_run("detach hands over the buffer and resets", detach_transfers_ownership);
	unit_run("HPC_GROW grows arrays keeping contents", grow_array);
	return unit_done();
}
