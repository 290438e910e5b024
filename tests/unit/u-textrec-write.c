/*
 * u-textrec-write.c - unit tests for the line-record writer
 * (lib/textrec-write.c): numbers are spelled as printf spells them, in
 * every case hpcrun's writers meet; a failed write is returned, and kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "textrec.h"
#include "unit.h"

static char path[64];

static void put_seconds(struct textrec_out *o, const void *x)
{
	textrec_field_seconds(o, *(const double *)x);
}

static void put_numbers(struct textrec_out *o, const void *x)
{
	const uint64_t *v = x;

	textrec_put_u64(o, v[0]);
	textrec_field_u64(o, v[0]);
	textrec_field_i64(o, (int64_t)v[0]);
	textrec_field_hex(o, v[0]);
}

static void check_seconds(double x)
{
	char want[64], *got;

	snprintf(want, sizeof(want), " %.9f", x);
	got = unit_written(path, put_seconds, &x);
	if (!got || strcmp(got, want))
		unit_fail(__FILE__, __LINE__, "%a: \"%s\", printf \"%s\"", x,
			  got ? got : "(null)", want);
	free(got);
}

static void seconds_as_printf(void)
{
	static const double edge[] = {
		0, 1e-9, 0.5e-9, 1.5e-9, 2.5e-9, 0.0009765625, 0x1p-31,
		0x1p-32, 0x1p-33, 0.1, 0.5, 1, 999999999.9999999995, 1e7,
		9999999.9999999995, 123456.123456789, 0x1p62, 0x1.fffffffffffffp62,
		DBL_MIN, DBL_TRUE_MIN, 4194304.0000000005, 8388607.999999999,
	};
	size_t i;

	for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		check_seconds(edge[i]);
	for (i = 0; i < 20000; i++) {
		uint64_t ns = unit_random() >> (unit_random() % 64);
		uint64_t bits = unit_random() & ~(UINT64_C(1) << 63);
		double d;

		check_seconds((double)ns / 1e9);	/* hpcrun's */
		memcpy(&d, &bits, sizeof(d));
		if (d < 0x1p63)
			check_seconds(d);
	}
}

static void seconds_out_of_range_are_zero(void)
{
	double v[] = { -1.0, 0x1p63, 1e300, -0.0 }, nan = 0.0 / 0.0;
	size_t i;
	char *got;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		got = unit_written(path, put_seconds, &v[i]);
		CHECK_STR(got, " 0.000000000");
		free(got);
	}
	got = unit_written(path, put_seconds, &nan);
	CHECK_STR(got, " 0.000000000");
	free(got);
}

static void integers_as_printf(void)
{
	uint64_t v[] = { 0, 1, 9, 10, UINT32_MAX, INT64_MAX, UINT64_MAX,
			 (uint64_t)INT64_MIN, (uint64_t)-1 - 5 };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]) + 1000; i++) {
		uint64_t x = i < sizeof(v) / sizeof(v[0]) ? v[i] : unit_random() >> (i % 64);
		char want[128], *got;

		snprintf(want, sizeof(want), "%llu %llu %lld 0x%llx",
			 (unsigned long long)x, (unsigned long long)x,
			 (long long)x, (unsigned long long)x);
		got = unit_written(path, put_numbers, &x);
		CHECK_STR(got, want);
		free(got);
	}
}

static void put_many(struct textrec_out *o, const void *x)
{
	uint64_t i;

	(void)x;
	for (i = 0; i < 20000; i++) {
		textrec_put(o, "n");
		textrec_field_u64(o, i * 7919);
		textrec_put(o, "\n");
	}
}

static void more_than_a_buffer_comes_out_whole(void)
{
	struct strbuf want = STRBUF_INIT;
	char *got;
	uint64_t i;

	for (i = 0; i < 20000; i++)
		strbuf_addf(&want, "n %llu\n", (unsigned long long)(i * 7919));
	got = unit_written(path, put_many, NULL);
	CHECK(want.len > 2 * sizeof(((struct textrec_out *)0)->buf));
	CHECK_STR(got, want.buf);
	free(got);
	strbuf_release(&want);
}

static void a_failed_write_is_returned(void)
{
	static struct textrec_out o;
	int fd = open("/dev/full", O_WRONLY);

	if (fd < 0)
		return;
	textrec_out_init(&o, fd);
	textrec_put(&o, "record");
	textrec_field_u64(&o, 1);
	CHECK_INT(textrec_flush(&o), -ENOSPC);
	textrec_put(&o, "more");
	CHECK_INT(textrec_flush(&o), -ENOSPC);
	close(fd);
}

int main(void)
{
	snprintf(path, sizeof(path), "u-textrec-write-%d.txt", (int)getpid());
	unit_run("seconds are spelled as printf's %.9f", seconds_as_printf);
	unit_run("seconds no measurement has are 0", seconds_out_of_range_are_zero);
	unit_run("integers are spelled as printf's", integers_as_printf);
	unit_run("more than a buffer comes out whole",
		 more_than_a_buffer_comes_out_whole);
	unit_run("a failed write is returned, and kept", a_failed_write_is_returned);
	unlink(path);
	return unit_done();
}
