/*
 * u-sharing-classify.c - unit tests for hpcprof/sharing.c's classifier
 * (sharing.h invariants 3 and 4): synthetic concurrent access sequences
 * of one 64-byte line for every label, the evidence they need, the
 * ownership transfers, the padded pair, latent false sharing, and the
 * pooled label of a large object whose lines are each too thin.
 */
#include <string.h>

#include "hpcshare.h"
#include "sharing.h"
#include "unit.h"

#define R HPCSHARE_R
#define W HPCSHARE_W
#define U HPCSHARE_U

static uint64_t moved;
static size_t shared;	/* pooled: lines two threads write */
static size_t top, second;	/* pooled: lines of the two top writers */

/* "T RW OFF SIZE" quadruples, the sequence reps times, times 1, 2, ...
 * in order. */
static int label_of(const int (*q)[4], size_t n, size_t reps)
{
	struct share_access a[64];
	size_t i;

	memset(a, 0, sizeof(a));
	for (i = 0; i < n * reps; i++) {
		a[i].time = i + 1;
		a[i].thread = (uint32_t)q[i % n][0];
		a[i].rw = (uint8_t)q[i % n][1];
		a[i].addr = 0x1000 + (uint64_t)q[i % n][2];
		a[i].size = (uint8_t)q[i % n][3];
	}
	return sharing_line_label(a, n * reps, &moved);
}

#define LABEL(q) label_of(q, sizeof(q) / sizeof(q[0]), 4)

static void every_label(void)
{
	static const int priv[][4] = { { 0, W, 0, 8 }, { 0, R, 8, 8 },
				       { 0, U, 8, 8 } };
	static const int read[][4] = { { 1, R, 0, 8 }, { 2, R, 8, 8 },
				       { 1, R, 16, 8 } };
	static const int prod[][4] = { { 0, W, 0, 8 }, { 1, R, 0, 8 },
				       { 0, W, 0, 8 }, { 2, R, 0, 8 } };
	static const int mig[][4] = { { 0, R, 0, 8 }, { 0, U, 0, 8 },
				      { 1, R, 0, 8 }, { 1, U, 0, 8 },
				      { 2, R, 0, 8 }, { 2, U, 0, 8 } };
	static const int wsh[][4] = { { 0, W, 0, 8 }, { 1, W, 0, 8 },
				      { 0, W, 0, 8 }, { 1, W, 0, 8 } };
	static const int fs[][4] = { { 0, W, 0, 8 }, { 1, W, 8, 8 },
				     { 0, R, 8, 8 }, { 1, W, 8, 8 } };
	/* unknown sizes: one byte each, disjoint */
	static const int fs0[][4] = { { 0, W, 0, 0 }, { 1, W, 1, 0 } };
	/* overlapping bytes (0-7 and 4-11) are true sharing */
	static const int overlap[][4] = { { 0, W, 0, 8 }, { 1, W, 4, 8 } };

	CHECK_INT(LABEL(priv), SHARE_PRIVATE);
	CHECK_INT(LABEL(read), SHARE_READ);
	CHECK_INT(LABEL(prod), SHARE_PRODCONS);
	CHECK_INT(LABEL(mig), SHARE_MIGRATORY);
	CHECK_INT(LABEL(wsh), SHARE_WRITE);
	CHECK_INT(LABEL(fs), SHARE_FALSE);
	CHECK_INT(LABEL(fs0), SHARE_FALSE);
	CHECK_INT(LABEL(overlap), SHARE_WRITE);
	/* one thread's single access among another's makes it no sharer */
	{
		static const int stray[][4] = { { 0, W, 0, 8 }, { 0, W, 0, 8 },
						{ 0, W, 0, 8 }, { 0, W, 0, 8 },
						{ 0, W, 0, 8 }, { 0, W, 0, 8 },
						{ 0, W, 0, 8 }, { 1, W, 8, 8 } };

		CHECK_INT(label_of(stray, 8, 1), SHARE_PRIVATE);
	}
	/* fewer than SHARE_MIN_ACCESSES: too few samples */
	CHECK_INT(label_of(fs, 4, 1), SHARE_TOO_FEW);
	/* fs x 4: each access of a thread without a copy since the other's
	 * write moves the line: 2 in the first round, 3 in each other
	 * (thread 1's second write finds the line its own) */
	CHECK_INT(LABEL(fs), SHARE_FALSE);
	CHECK_INT(moved, 11);
	CHECK_STR(sharing_label_name(SHARE_PRODCONS), "producer-consumer");
	CHECK_STR(sharing_label_name(SHARE_FALSE), "false-sharing");
}

/* Counters 128 bytes apart: each line has one writer -> private; and
 * no alignment of a heap block brings them into one line. */
static void padded_pair(void)
{
	static const int line0[][4] = { { 0, W, 0, 8 }, { 0, W, 0, 8 } };
	struct share_write w[2] = { { 0, 0, 8 }, { 128, 1, 8 } };

	CHECK_INT(LABEL(line0), SHARE_PRIVATE);
	CHECK_INT(sharing_false_alignments(w, 2, 0x601000, 0), 0);
	CHECK_INT(sharing_false_alignments(w, 2, 0x7f0000001000, 1), 0);
}

/* Thread 0 writes bytes 48-63, thread 1 64-79 of a 64-aligned block:
 * apart now, one line at alignments 16, 32 and 48. */
static void latent(void)
{
	struct share_write w[4] = { { 48, 0, 8 }, { 56, 0, 8 },
				    { 64, 1, 8 }, { 72, 1, 8 } };
	struct share_write one[2] = { { 48, 0, 8 }, { 56, 0, 8 } };
	uint64_t m = sharing_false_alignments(w, 4, 0x7f0000001000, 1);

	CHECK_INT(m, (1ull << 16) | (1ull << 32) | (1ull << 48));
	/* observed at alignment 16: bit 16 set, so not latent there */
	CHECK(sharing_false_alignments(w, 4, 0x7f0000001010, 1) >> 16 & 1);
	/* a static variable aligned to 64 has no other alignment */
	CHECK_INT(sharing_false_alignments(w, 4, 0x601000, 0), 0);
	/* one aligned to 16: 0, 16, 32, 48 are its candidates */
	CHECK_INT(sharing_false_alignments(w, 4, 0x601010, 0),
		  (1ull << 16) | (1ull << 32) | (1ull << 48));
	/* one thread alone never shares */
	CHECK_INT(sharing_false_alignments(one, 2, 0x7f0000001000, 1), 0);
}

/* The writes of latent() sampled again and again, in another order,
 * and a write of both threads to one byte: repeats change nothing, the
 * common byte makes every placement write-shared. */
static void latent_repeated(void)
{
	struct share_write w[400], common = { 60, 1, 1 };
	static const struct share_write once[4] = { { 48, 0, 8 },
		{ 56, 0, 8 }, { 64, 1, 8 }, { 72, 1, 8 } };
	size_t i;

	for (i = 0; i < 400; i++)
		w[i] = once[(i * 7) % 4];
	CHECK_INT(sharing_false_alignments(w, 400, 0x7f0000001000, 1),
		  (1ull << 16) | (1ull << 32) | (1ull << 48));
	w[399] = common;	/* thread 1 writes byte 60 too */
	w[398] = (struct share_write){ 60, 0, 1 };
	CHECK_INT(sharing_false_alignments(w, 400, 0x7f0000001000, 1), 0);
}

/* "T RW OFF" triples of an object at 0x10000, times 1, 2, ... in order:
 * its pooled label; the label of its line at offset 0 alone in
 * *first. */
static int pooled_of(const int (*q)[3], size_t n, int *first)
{
	struct share_access a[128];
	struct share_access line[128];
	size_t i, j, k;
	uint64_t t;

	memset(a, 0, sizeof(a));
	for (i = 0; i < n; i++) {
		a[i].time = i + 1;
		a[i].thread = (uint32_t)q[i][0];
		a[i].rw = (uint8_t)q[i][1];
		a[i].addr = 0x10000 + (uint64_t)q[i][2];
		a[i].size = 8;
	}
	for (j = k = 0; j < n; j++)
		if (a[j].addr / 64 == 0x10000 / 64)
			line[k++] = a[j];
	*first = sharing_line_label(line, k, &t);
	struct share_pooled p;
	enum share_label l = sharing_pooled_label(a, n, &p);

	moved = p.transfers;
	shared = p.shared;
	top = p.top_lines;
	second = p.second_lines;
	return l;
}

static int line0;

#define POOLED(q) pooled_of(q, sizeof(q) / sizeof(q[0]), &line0)

/* The shapes of sharing.h invariant 3's pooled rules, each a few sampled
 * accesses a line over many lines. */
static void pooled(void)
{
	/* a table main filled, read by three threads */
	static const int table[][3] = { { 1, R, 0 }, { 2, R, 4096 },
		{ 3, R, 8192 }, { 1, R, 640 }, { 2, R, 64 }, { 3, R, 128 },
		{ 1, R, 192 }, { 2, R, 256 }, { 3, R, 320 } };
	/* a buffer thread 0 fills, thread 1 reads, round after round */
	static const int buffer[][3] = { { 0, W, 0 }, { 0, W, 64 },
		{ 0, W, 128 }, { 1, R, 0 }, { 1, R, 64 }, { 1, R, 192 },
		{ 0, W, 256 }, { 0, W, 320 }, { 1, R, 256 }, { 1, R, 384 } };
	/* a record each thread reads and updates whole in turn */
	static const int record[][3] = { { 0, R, 0 }, { 0, W, 64 },
		{ 0, W, 128 }, { 1, R, 64 }, { 1, W, 0 }, { 1, W, 128 },
		{ 0, W, 192 }, { 0, W, 0 }, { 1, W, 192 }, { 1, W, 64 } };
	/* the same with no load sampled: threads overwrite each other */
	static const int overwrite[][3] = { { 0, W, 0 }, { 0, W, 64 },
		{ 1, W, 64 }, { 1, W, 0 }, { 0, W, 128 }, { 1, W, 128 },
		{ 0, W, 192 }, { 1, W, 192 } };
	/* a queue: thread 0 fills the items (lines 1-5) and both take the
	 * lock in line 0 (u); thread 1 reads the items */
	static const int queue[][3] = { { 0, U, 0 }, { 0, W, 64 },
		{ 0, W, 72 }, { 1, U, 0 }, { 1, R, 64 }, { 0, W, 128 },
		{ 0, W, 136 }, { 1, U, 0 }, { 1, R, 128 }, { 0, W, 192 },
		{ 0, W, 200 }, { 1, U, 0 }, { 1, R, 192 }, { 0, W, 256 },
		{ 0, W, 264 }, { 1, R, 256 }, { 0, U, 0 }, { 1, U, 0 },
		{ 1, U, 0 }, { 1, U, 0 } };
	/* a work queue's records: threads 0 and 1 fill records of their
	 * own, threads 2 and 3 read them; no writer reads */
	static const int jobs[][3] = { { 0, W, 0 }, { 1, W, 128 },
		{ 0, W, 64 }, { 2, R, 0 }, { 1, W, 192 }, { 3, R, 128 },
		{ 2, R, 64 }, { 0, W, 256 }, { 3, R, 192 }, { 1, W, 320 },
		{ 2, R, 256 }, { 3, R, 320 } };
	/* per-thread counters in one line, thread 0's writes sampled
	 * three times as often as thread 1's: false sharing, whichever
	 * writes more */
	static const int counters[][3] = { { 0, R, 0 }, { 0, W, 0 },
		{ 1, R, 8 }, { 0, R, 0 }, { 0, W, 0 }, { 1, W, 8 },
		{ 0, R, 0 }, { 0, W, 0 }, { 1, R, 8 }, { 0, W, 0 },
		{ 1, W, 8 }, { 0, W, 0 }, { 0, W, 0 }, { 0, W, 0 } };
	/* each thread writes lines of its own, no other thread's */
	static const int parts[][3] = { { 0, W, 0 }, { 1, W, 256 },
		{ 0, W, 64 }, { 1, W, 320 }, { 0, R, 128 }, { 1, R, 384 },
		{ 0, W, 192 }, { 1, W, 448 } };

	CHECK_INT(POOLED(table), SHARE_READ);
	CHECK_INT(line0, SHARE_TOO_FEW);	/* every line is too thin */
	CHECK_INT(moved, 0);
	CHECK_INT(POOLED(buffer), SHARE_PRODCONS);
	/* the reads of lines 0, 64 and 256 find them thread 0's */
	CHECK_INT(moved, 3);
	CHECK_INT(line0, SHARE_TOO_FEW);
	CHECK_INT(POOLED(record), SHARE_MIGRATORY);
	CHECK_INT(line0, SHARE_TOO_FEW);
	CHECK_INT(shared, 4);		/* each line, by both */
	CHECK_INT(POOLED(overwrite), SHARE_WRITE);
	/* two producers, each half the writes, and consumers only reading:
	 * no migration, data flowing one way */
	CHECK_INT(POOLED(jobs), SHARE_PRODCONS);
	CHECK_INT(line0, SHARE_TOO_FEW);
	/* the lock's line alone is migratory, the queue is not */
	CHECK_INT(POOLED(queue), SHARE_PRODCONS);
	CHECK_INT(line0, SHARE_MIGRATORY);
	CHECK_INT(top, 5);		/* the producer: the lock, 4 items */
	CHECK_INT(second, 1);		/* the consumer: the lock */
	CHECK_INT(POOLED(parts), SHARE_PRIVATE);
	CHECK_INT(shared, 0);
	CHECK_INT(POOLED(counters), SHARE_MIGRATORY);
	CHECK_INT(line0, SHARE_FALSE);
	CHECK_INT(shared, 1);
	/* fewer than SHARE_MIN_ACCESSES in all: too few samples */
	CHECK_INT(pooled_of(table, SHARE_MIN_ACCESSES - 1, &line0),
		  SHARE_TOO_FEW);
}

int main(void)
{
	unit_run("every label from a synthetic line", every_label);
	unit_run("the padded pair is private at every alignment", padded_pair);
	unit_run("latent false sharing at the other alignments", latent);
	unit_run("repeated writes predict what one of each does",
		 latent_repeated);
	unit_run("a large object's pooled label", pooled);
	return unit_done();
}
