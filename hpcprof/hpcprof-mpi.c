/*
 * hpcprof-mpi.c - hpcprof on the ranks of an MPI job: each rank reads and
 * correlates its own contiguous range of the profiles (on -j threads, as
 * hpcprof does), the ranks' trees are merged up a binomial tree over MPI
 * point-to-point messages (experiment-wire.h), and rank 0 writes the database,
 * the very one hpcprof writes.
 *
 * Invariants:
 *  1. Every rank runs hpcprof's pipeline (run.c) up to the correlation, so
 *     all hold the same modules, structures and metrics (experiment-wire.h 1);
 *     only rank 0 writes or prints, the other ranks' stderr is closed
 *     until they have something of their own to say.
 *  2. Rank r holds profiles [n*r/R, n*(r+1)/R).  In the reduction, rank r
 *     merges the tree of rank r + 1, then r + 2's (holding r + 3's), then
 *     r + 4's and so on: the trees are merged in rank order, hence in
 *     profile order, and the merged tree is hpcprof's (parallel.h 2).
 *  3. Rank 0 sends the merged tree to every rank, which finds its own
 *     nodes' ids in it.  Each rank then folds its own per-thread values
 *     into sums by those ids, and formats its own lines of the report on
 *     a thread of its own, all ranks at once.  Rank 0 adds the other
 *     ranks' sums to its own in rank order: where a (metric, ie) has only
 *     exact values and no sum reaches 2^53, that is bit for bit folding
 *     every value in thread order (metrics.h, accum_add).  The values of
 *     a (metric, ie) with an inexact value on any rank are not summed on
 *     the other ranks but folded by rank 0, after its own, in rank order;
 *     those of one whose sum reaches 2^53 rank 0 folds again, its own and
 *     then each rank's: all in thread order (parallel.h 3).  The other
 *     ranks' lines follow rank 0's in rank order: the report's bytes are
 *     hpcprof's.
 *  4. Every rank exits with rank 0's status.
 *  5. What a rank says about its profiles (par_failures) rank 0 says, in
 *     rank order, hence in profile order, as hpcprof would; a side file a
 *     rank dropped (capability.h, invariant 3) is dropped on rank 0 too.
 *  6. Data trees travel with the trees (experiment-wire.h 6).  When two
 *     objects of different identities share a name (prof_mergeable)
 *     within a rank's workers or across the trees a rank merges, every
 *     rank learns it before anything is said, and rank 0 adds the
 *     profiles on one thread, as hpcprof does (PAR_ONE_THREAD).
 *  7. Rank 0 alone recovers the live files that killed processes left in
 *     a measurement directory (hpcrun-live.h) and says what it recovered,
 *     as hpcprof does; the other ranks wait for it at a barrier before
 *     they list the directory's profiles.
 */
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "database.h"
#include "error.h"
#include "experiment-wire.h"
#include "opts.h"
#include "parallel.h"
#include "run.h"
#include "steptime.h"

static const char *const usage[] = {
	"[options] MEASUREMENT-DIR-OR-PROFILE...",
	NULL,
};

static const struct opts_program prog = {
	"hpcprof-mpi", usage,
	"Correlate measurements with program structure on the ranks of an MPI\n"
	"job (mpirun -np N hpcprof-mpi ...) and write, from rank 0, the\n"
	"database hpcprof writes (hpcprof-database(5)).",
};

static int rank, nranks;
static int correlating;		/* rank 0 reached mpi_correlate */
static int saved_stderr = -1;	/* a rank's own stderr while it is closed */

/* Says what is wrong on this rank (not rank 0) and ends the job. */
static void die(const char *what)
{
	dprintf(saved_stderr >= 0 ? saved_stderr : 2,
		"hpcprof-mpi: rank %d: %s\n", rank, what);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* Message tags: trees, per-thread values, what ranks say, a rank's sums,
 * its lines of the report. */
enum { TAG_TREE, TAG_VALUES, TAG_SAID, TAG_SUMS, TAG_LINES };

/* Sends len bytes in pieces MPI counts can hold. */
static void send_bytes(const char *buf, size_t len, int to, int tag)
{
	uint64_t n = len;

	MPI_Send(&n, 1, MPI_UINT64_T, to, tag, MPI_COMM_WORLD);
	while (len) {
		int k = len > INT_MAX ? INT_MAX : (int)len;

		MPI_Send(buf, k, MPI_BYTE, to, tag, MPI_COMM_WORLD);
		buf += k;
		len -= (size_t)k;
	}
}

/* Receives what send_bytes sent; caller frees. */
static char *recv_bytes(int from, int tag, size_t *len)
{
	uint64_t n;
	char *buf, *p;

	MPI_Recv(&n, 1, MPI_UINT64_T, from, tag, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	buf = p = xmalloc(n ? n : 1);
	*len = n;
	while (n) {
		int k = n > INT_MAX ? INT_MAX : (int)n;

		MPI_Recv(p, k, MPI_BYTE, from, tag, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		p += k;
		n -= (uint64_t)k;
	}
	return buf;
}

/*
 * Merges the trees of the ranks below this one in the binomial tree into
 * g, in rank order, then sends g up (invariant 2).  Returns 1 when two of
 * the trees merged here had data trees that cannot be merged
 * (invariant 6).
 */
static int reduce(struct experiment *e, struct experiment *g)
{
	int mask, unmergeable = 0;

	for (mask = 1; mask < nranks; mask <<= 1) {
		if (rank & mask) {
			struct strbuf sb = STRBUF_INIT;

			experiment_wire_write(g, &sb, 0);
			send_bytes(sb.buf, sb.len, rank - mask, TAG_TREE);
			strbuf_release(&sb);
			break;
		}
		if (rank + mask < nranks) {
			size_t len;
			char *buf = recv_bytes(rank + mask, TAG_TREE, &len);
			struct experiment *d =
				experiment_wire_read(e, buf, len);
			struct experiment *pair[2] = { g, d };

			if (!d)
				die(hpc_lasterr());
			unmergeable |= !prof_mergeable(pair, 2);
			free(experiment_merge(g, d));
			experiment_free(d);
			free(buf);
		}
	}
	return unmergeable;
}

/* A per-thread value on its way to rank 0: node is the merged tree's id. */
struct value {
	uint32_t thread, node, k, pad;
	double v;
};

#define VALUES 4096

/* Merges from into to; returns the ids of from's nodes in to, by id. */
static uint32_t *merge_ids(struct experiment *to,
			   const struct experiment *from)
{
	struct node **map = experiment_merge(to, from);
	uint32_t *ids = xcalloc((size_t)from->next_id + 1, sizeof(*ids));
	uint32_t i;

	for (i = 1; i <= from->next_id; i++)
		ids[i] = map[i]->id;
	free(map);
	return ids;
}

struct sender {
	uint32_t *ids;		/* this rank's tree -> the merged tree's */
	const uint8_t *only;	/* [k]: send the values of (metric, ie) k */
	struct value buf[VALUES];
	int n;
};

static void flush_values(struct sender *s)
{
	MPI_Send(s->buf, s->n * (int)sizeof(s->buf[0]), MPI_BYTE, 0,
		 TAG_VALUES, MPI_COMM_WORLD);
	s->n = 0;
}

static void send_value(void *arg, uint32_t thread, struct node *n,
		       uint32_t k, double v)
{
	struct sender *s = arg;

	if (!s->only[k])
		return;
	if (s->n == VALUES)
		flush_values(s);
	s->buf[s->n++] = (struct value){ thread, s->ids[n->id], k, 0, v };
}

/* Another rank: what waits in file f (NULL: nothing) to rank 0 in pieces
 * of at most max bytes, with tag; an empty piece ends them. */
static void send_file(FILE *f, char *buf, size_t max, int tag)
{
	size_t got;

	if (f) {
		if (fflush(f) || ferror(f))
			die("temporary file: write error");
		rewind(f);
		while ((got = fread(buf, 1, max, f)) > 0)
			MPI_Send(buf, (int)got, MPI_BYTE, 0, tag,
				 MPI_COMM_WORLD);
		if (ferror(f))
			die("temporary file: read error");
	}
	MPI_Send(buf, 0, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
}

/*
 * Rank 0's report (thread-values.tsv), written on a thread of its own
 * while rank 0 folds (invariant 3): the values, by e's ids, reach it in
 * chunks, in order, at most QUEUED of them waiting; without that thread,
 * on rank 0's.
 */
#define QUEUED 16
struct chunk {
	struct chunk *next;
	int n;
	struct value v[VALUES];
};

struct reporter {
	struct experiment *e;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* a chunk queued or taken, or the end */
	struct chunk *head, *tail, *spare, *cur;
	int queued, done, started;
	pthread_t t;
};

static void report_chunk(const struct experiment *e, const struct chunk *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		const struct value *x = &c->v[i];

		if (e->thread_id_cb)
			e->thread_id_cb(e->thread_arg, x->thread, x->node,
					x->k / 2, (int)(x->k % 2), x->v);
		else
			e->thread_cb(e->thread_arg, x->thread,
				     e->nodes[x->node - 1], x->k / 2,
				     (int)(x->k % 2), x->v);
	}
}

static void *report_thread(void *arg)
{
	struct reporter *r = arg;
	struct chunk *c;

	pthread_mutex_lock(&r->mu);
	for (;;) {
		while (!r->head && !r->done)
			pthread_cond_wait(&r->cv, &r->mu);
		c = r->head;
		if (!c)
			break;
		r->head = c->next;
		if (!r->head)
			r->tail = NULL;
		pthread_mutex_unlock(&r->mu);
		report_chunk(r->e, c);
		pthread_mutex_lock(&r->mu);
		c->next = r->spare;
		r->spare = c;
		r->queued--;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* The chunk filled, to the report; the next one to fill. */
static void hand_over(struct reporter *r)
{
	struct chunk *c = r->cur;

	if (!r->started) {
		report_chunk(r->e, c);
		c->n = 0;
		return;
	}
	pthread_mutex_lock(&r->mu);
	c->next = NULL;
	if (r->tail)
		r->tail->next = c;
	else
		r->head = c;
	r->tail = c;
	r->queued++;
	pthread_cond_broadcast(&r->cv);
	while (r->queued >= QUEUED)
		pthread_cond_wait(&r->cv, &r->mu);
	c = r->spare;
	if (c)
		r->spare = c->next;
	pthread_mutex_unlock(&r->mu);
	r->cur = c ? c : xmalloc(sizeof(*c));
	r->cur->n = 0;
}

static void reporter_start(struct reporter *r, struct experiment *e)
{
	memset(r, 0, sizeof(*r));
	r->e = e;
	r->cur = xmalloc(sizeof(*r->cur));
	r->cur->n = 0;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->started = !pthread_create(&r->t, NULL, report_thread, r);
}

/* A value, by e's id x, to the report. */
static void report_value(struct reporter *r, uint32_t thread, uint32_t x,
			 uint32_t k, double v)
{
	struct chunk *c = r->cur;

	c->v[c->n++] = (struct value){ thread, x, k, 0, v };
	if (c->n == VALUES)
		hand_over(r);
}

/* Reports what is left and waits for the report to be written. */
static void reporter_end(struct reporter *r)
{
	struct chunk *c;

	if (r->cur->n)
		hand_over(r);
	if (r->started) {
		pthread_mutex_lock(&r->mu);
		r->done = 1;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		pthread_join(r->t, NULL);
	}
	free(r->cur);
	while ((c = r->spare)) {
		r->spare = c->next;
		free(c);
	}
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
}

/*
 * Another rank's own values (invariant 3): folded into sums by the merged
 * tree's ids (f's block of accumulators), but those of the (metric, ie)
 * that some rank has an inexact value of (apart), which wait in a
 * temporary file for rank 0 to fold in thread order; and, when rank 0
 * writes a report (eids: the merged tree's ids -> rank 0's e's), handed
 * to a reporter whose thread formats them as lines into another
 * (f->thread_id_cb, text_line).
 */
#define LINES_BUF ((size_t)1 << 20)
struct own {
	struct experiment *f;
	uint32_t *ids;		/* this rank's tree -> f's */
	const uint32_t *eids;
	const uint8_t *apart;	/* [k] */
	struct reporter *r;	/* NULL: rank 0 writes no report */
	FILE *vals;		/* the main thread's */
	struct value v[VALUES];
	size_t nv;
	int vals_err;
	FILE *text;		/* the reporter's */
	char *buf;
	size_t used;
	int text_err;
};

static void flush_text(struct own *o)
{
	if (o->used && fwrite(o->buf, 1, o->used, o->text) != o->used)
		o->text_err = 1;
	o->used = 0;
}

static void text_line(void *arg, uint32_t thread, uint32_t node, size_t raw,
		      int ie, double v)
{
	struct own *o = arg;

	if (o->used > LINES_BUF - THREAD_LINE_MAX)
		flush_text(o);
	o->used += database_value_line(&o->f->metrics, o->buf + o->used,
				       thread, node, raw, ie, v);
}

static void flush_vals(struct own *o)
{
	if (o->nv && fwrite(o->v, sizeof(o->v[0]), o->nv, o->vals) != o->nv)
		o->vals_err = 1;
	o->nv = 0;
}

static void own_value(void *arg, uint32_t thread, struct node *n, uint32_t k,
		      double v)
{
	struct own *o = arg;
	uint32_t id = o->ids[n->id];

	if (!o->apart[k]) {
		accum_fold_value(experiment_acc_of(o->f, id), k, v);
	} else {
		if (o->nv == VALUES)
			flush_vals(o);
		o->v[o->nv++] = (struct value){ thread, id, k, 0, v };
	}
	if (o->r)
		report_value(o->r, thread, o->eids[id], k, v);
}

/*
 * Rank 0's fold, as hpcprof -j folds by id (parallel.h 3): id (the merged
 * tree's) is e's node ids[id]; the value goes into e's block of
 * accumulators and, by e's id, to the report (r; NULL: none), touching no
 * node.
 */
struct fold {
	struct experiment *e;
	uint32_t *ids;
	struct reporter *r;
	const uint8_t *only;	/* [k]: fold only these; NULL: all */
};

static void fold_id(const struct fold *f, uint32_t thread, uint32_t id,
		    uint32_t k, double v)
{
	uint32_t x = f->ids[id];

	if (f->only && !f->only[k])
		return;
	accum_fold_value(experiment_acc_of(f->e, x), k, v);
	if (f->r)
		report_value(f->r, thread, x, k, v);
}

/* Rank 0: the values of rank from, folded (ids of the merged tree). */
static void fold_values(const struct fold *f, int from)
{
	struct value *buf = xmalloc(VALUES * sizeof(*buf));
	int bytes, i;

	do {
		MPI_Status st;

		MPI_Recv(buf, VALUES * (int)sizeof(*buf), MPI_BYTE, from,
			 TAG_VALUES, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_BYTE, &bytes);
		for (i = 0; i < bytes / (int)sizeof(*buf); i++)
			fold_id(f, buf[i].thread, buf[i].node, buf[i].k,
				buf[i].v);
	} while (bytes);
	free(buf);
}

/* Rank 0's own values: n is a node of the merged tree. */
static void fold_own(void *arg, uint32_t thread, struct node *n, uint32_t k,
		     double v)
{
	fold_id(arg, thread, n->id, k, v);
}

/*
 * Rank 0: each other rank's sums added to e's, in rank order; returns
 * which (metric, ie) must be folded again (invariant 3), a sum having
 * reached 2^53, their sums in e cleared.  count and stride are the merged
 * tree's block of accumulators.
 */
static uint8_t *add_sums(const struct fold *f, size_t count, size_t stride)
{
	struct experiment *e = f->e;
	size_t nk = 2 * e->metrics.nraw, k, i, len;
	uint8_t *again = xcalloc(nk + 1, 1);
	int r, any;

	for (r = 1; r < nranks; r++) {
		char *sums = recv_bytes(r, TAG_SUMS, &len);

		if (len != count * stride)
			die("a rank's sums are malformed");
		for (i = 1; i < count; i++) {
			const struct accum *a =
				(const struct accum *)(void *)(sums + i * stride);

			if (!accum_empty(a))
				accum_add(experiment_acc_of(e, f->ids[i]), a,
					  e->metrics.stats, again);
		}
		free(sums);
	}
	any = memchr(again, 1, nk) != NULL;
	for (i = 0; any && i < e->acc_count; i++) {
		struct accum *a = experiment_acc_of(e, (uint32_t)i);

		for (k = 0; k < nk; k++)
			if (again[k])
				memset(a->v[k], 0, sizeof(a->v[k]));
	}
	return again;
}

/* Rank 0: the other ranks' lines after its own, in rank order. */
static int append_lines(struct experiment *e)
{
	const struct thread_lines *tl = e->thread_lines;
	char *buf = xmalloc(LINES_BUF);
	uint64_t at = 0;
	int r, bytes;

	if (tl->begin(e->thread_arg)) {
		free(buf);
		return -1;
	}
	for (r = 1; r < nranks; r++)
		do {
			MPI_Status st;

			MPI_Recv(buf, (int)LINES_BUF, MPI_BYTE, r, TAG_LINES,
				 MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &bytes);
			if (bytes)
				tl->pwrite(e->thread_arg, buf, (size_t)bytes,
					   at);
			at += (uint64_t)bytes;
		} while (bytes);
	free(buf);
	return tl->end(e->thread_arg, at);
}

/* Rank 0 to all: the merged tree; returns each rank's copy of it. */
static struct experiment *share_tree(struct experiment *e,
				     struct experiment *g)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t len;
	struct experiment *d, *f;

	if (rank == 0)
		experiment_wire_write(g, &sb, 1);
	len = sb.len;
	MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	strbuf_grow(&sb, len);
	{
		char *p = sb.buf;
		uint64_t left = len;

		while (left) {
			int k = left > INT_MAX ? INT_MAX : (int)left;

			MPI_Bcast(p, k, MPI_BYTE, 0, MPI_COMM_WORLD);
			p += k;
			left -= (uint64_t)k;
		}
	}
	if (rank == 0) {
		strbuf_release(&sb);
		return NULL;
	}
	d = experiment_wire_read(e, sb.buf, len);
	strbuf_release(&sb);
	if (!d)
		die(hpc_lasterr());
	f = experiment_new_worker(e);
	free(experiment_merge(f, d));
	experiment_free(d);
	return f;
}

/* The side files in has (bit c: capability c's, capability.h). */
static char sides(const struct prof_input *in)
{
	unsigned c, bits = 0;

	for (c = 0; c < NCAPS; c++)
		bits |= (in->side[c] != NULL) << c;
	return (char)bits;
}

/*
 * Another rank's par_failures: what it says goes to rank 0 (invariant 5),
 * with a byte per profile of [lo, hi): bit c set when its side file of
 * capability c was dropped.
 */
static long failures_to_rank0(struct par_job *j, const struct prof_input *in,
			      size_t lo, size_t hi)
{
	struct strbuf said = STRBUF_INIT;
	char *dropped = xcalloc(hi - lo + 1, 1);
	FILE *t = tmpfile();
	int closed = dup(2);
	long failed;
	size_t i, got;
	char buf[4096];

	for (i = lo; i < hi; i++)
		dropped[i - lo] = sides(&in[i]);
	if (t && closed >= 0)
		dup2(fileno(t), 2);
	failed = par_failures(j);
	fflush(stderr);
	if (closed >= 0) {
		dup2(closed, 2);
		close(closed);
	}
	if (t) {
		rewind(t);
		while ((got = fread(buf, 1, sizeof(buf), t)) > 0)
			strbuf_add(&said, buf, got);
		fclose(t);
	}
	for (i = lo; i < hi; i++)
		dropped[i - lo] &= (char)~sides(&in[i]);
	send_bytes(said.buf ? said.buf : "", said.len, 0, TAG_SAID);
	send_bytes(dropped, hi - lo, 0, TAG_SAID);
	strbuf_release(&said);
	free(dropped);
	return failed;
}

/* Rank 0: what the other ranks' par_failures said, in rank order, and the
 * side files they dropped dropped here too. */
/* Drops in's side files of the capabilities in bits. */
static void drop(const struct prof_input *in, unsigned bits)
{
	unsigned c;

	for (c = 0; c < NCAPS; c++)
		if ((bits >> c) & 1 && in->side[c]) {
			prof_capabilities[c]->side_free(in->side[c]);
			in->side[c] = NULL;
		}
}

static void failures_of_ranks(const struct prof_input *in, size_t n)
{
	size_t len, i, lo;
	char *buf;
	int r;

	for (r = 1; r < nranks; r++) {
		buf = recv_bytes(r, TAG_SAID, &len);
		fwrite(buf, 1, len, stderr);
		free(buf);
		buf = recv_bytes(r, TAG_SAID, &len);
		lo = n * (size_t)r / (size_t)nranks;
		for (i = 0; i < len && lo + i < n; i++)
			drop(&in[lo + i], (unsigned char)buf[i]);
		free(buf);
	}
}

/*
 * Another rank's values, after the merged tree (invariant 3): its own,
 * folded and formatted here (struct own; f is its copy of the merged tree,
 * g its own tree), then to rank 0: its sums, the values of the (metric,
 * ie) in apart, those of the ones rank 0 says to fold again, and, when
 * rank 0 writes a report (want), its lines.
 */
static void values_to_rank0(struct par_job *j, struct experiment *f,
			    const struct experiment *g, const uint32_t *eids,
			    const uint8_t *apart, int want)
{
	size_t nk = 2 * f->metrics.nraw;
	int any_apart = memchr(apart, 1, nk) != NULL;
	uint8_t *again = xcalloc(nk + 1, 1);
	struct own *o = xcalloc(1, sizeof(*o));
	struct reporter rep;

	o->f = f;
	o->ids = merge_ids(f, g);
	o->eids = eids;
	o->apart = apart;
	o->buf = xmalloc(LINES_BUF);
	experiment_acc_block(f);
	if ((want && !(o->text = tmpfile())) ||
	    (any_apart && !(o->vals = tmpfile())))
		die("cannot create a temporary file");
	if (want) {
		f->thread_id_cb = text_line;
		f->thread_arg = o;
		reporter_start(&rep, f);
		o->r = &rep;
	}
	if (par_records(j, own_value, o))
		die(hpc_lasterr());
	if (o->r)
		reporter_end(o->r);
	if (o->text)
		flush_text(o);
	if (o->vals)
		flush_vals(o);
	if (o->text_err || o->vals_err)
		die("temporary file: write error");
	send_bytes(f->acc_block, f->acc_count * f->acc_stride, 0, TAG_SUMS);
	MPI_Bcast(again, (int)nk, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (any_apart)
		send_file(o->vals, o->buf, VALUES * sizeof(struct value),
			  TAG_VALUES);
	if (memchr(again, 1, nk)) {
		struct sender *s = xcalloc(1, sizeof(*s));

		s->ids = o->ids;
		s->only = again;
		if (par_records(j, send_value, s))
			die(hpc_lasterr());
		if (s->n)
			flush_values(s);
		flush_values(s);	/* the end */
		free(s);
	}
	if (want)
		send_file(o->text, o->buf, LINES_BUF, TAG_LINES);
	if (o->text)
		fclose(o->text);
	if (o->vals)
		fclose(o->vals);
	free(o->ids);
	free(o->buf);
	free(o);
	free(again);
	experiment_free(f);
}

/*
 * Rank 0's values and the other ranks' (invariant 3): its own folded into
 * e's block (g the merged tree, eids its ids in e) and reported by a
 * thread of its own; the ranks' sums added, the values apart folded in
 * rank order, those of a sum past 2^53 folded again; the ranks' lines
 * after its own.  0, or -1 when a temporary file or the report failed.
 */
static int values_of_ranks(struct par_job *j, struct experiment *e,
			   struct experiment *g, uint32_t *eids,
			   uint64_t count, const uint8_t *apart, int want)
{
	size_t nk = 2 * e->metrics.nraw;
	struct reporter rep;
	struct fold fold = { e, eids, NULL, NULL };
	uint8_t *again;
	int r, ret = 0;

	experiment_merge_fallbacks(e, g);
	experiment_acc_block(e);
	if (want) {
		reporter_start(&rep, e);
		fold.r = &rep;
	}
	if (par_records(j, fold_own, &fold))
		ret = -1;
	again = add_sums(&fold, count, e->acc_stride);
	MPI_Bcast(again, (int)nk, MPI_BYTE, 0, MPI_COMM_WORLD);
	if (memchr(apart, 1, nk)) {
		struct fold in_order = { e, eids, NULL, apart };

		for (r = 1; r < nranks; r++)
			fold_values(&in_order, r);
	}
	if (memchr(again, 1, nk)) {
		struct fold refold = { e, eids, NULL, again };

		if (par_records(j, fold_own, &refold))
			ret = -1;
		for (r = 1; r < nranks; r++)
			fold_values(&refold, r);
	}
	if (fold.r)
		reporter_end(fold.r);
	if (want && append_lines(e))
		ret = -1;
	experiment_acc_attach(e);
	steptime_mark("fold per-thread values, thread-values.tsv");
	free(again);
	return ret;
}

/* Rank 0 recovers a measurement directory's live files and says so; the
 * other ranks list its profiles only after that (invariant 7). */
static void mpi_recovered(void)
{
	MPI_Barrier(MPI_COMM_WORLD);
}

static long mpi_correlate(struct experiment *e, const struct prof_input *in,
			  size_t n, unsigned jobs)
{
	size_t lo = n * (size_t)rank / (size_t)nranks;
	size_t hi = n * (size_t)(rank + 1) / (size_t)nranks;
	struct par_job *j = par_start(e, in, lo, hi, jobs);
	long failed, total = 0;
	struct experiment *g = experiment_new_worker(e), *f;
	int want = 0, unmergeable = !par_mergeable(j);
	size_t nk = 2 * e->metrics.nraw;
	uint8_t *apart = xcalloc(nk + 1, 1);	/* inexact: fold in order */
	uint32_t *eids = NULL;
	uint64_t count = 0;

	correlating = 1;
	steptime_mark("correlate (workers)");
	par_merge(j, g);
	steptime_mark("merge the workers' trees");
	unmergeable |= reduce(e, g);
	MPI_Allreduce(MPI_IN_PLACE, &unmergeable, 1, MPI_INT, MPI_LOR,
		      MPI_COMM_WORLD);
	steptime_mark("merge the ranks' trees");
	if (unmergeable) {
		experiment_free(g);
		par_free(j);
		free(apart);
		return PAR_ONE_THREAD;
	}
	if (rank) {
		failed = failures_to_rank0(j, in, lo, hi);
	} else {
		failed = par_failures(j);
		failures_of_ranks(in, n);
	}
	if (failed < 0)
		die(hpc_lasterr());
	f = share_tree(e, g);
	MPI_Reduce(&failed, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	/* the merged tree's ids -> e's, for the lines, and whether rank 0
	 * writes them (the database sets e's thread_lines, thread_id_cb and
	 * thread_cb together) */
	if (rank == 0) {
		eids = merge_ids(e, g);
		count = (uint64_t)g->next_id + 1;
		want = e->thread_lines != NULL;
	}
	MPI_Bcast(&count, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	MPI_Bcast(&want, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (count > INT_MAX || (rank && count != (uint64_t)f->next_id + 1))
		die("the merged tree differs from rank 0's");
	if (rank)
		eids = xcalloc(count, sizeof(*eids));
	if (want)
		MPI_Bcast(eids, (int)count, MPI_UINT32_T, 0, MPI_COMM_WORLD);
	par_inexact(j, apart);
	MPI_Allreduce(MPI_IN_PLACE, apart, (int)nk, MPI_UNSIGNED_CHAR, MPI_BOR,
		      MPI_COMM_WORLD);
	steptime_mark("send the merged tree to every rank");
	if (rank) {
		values_to_rank0(j, f, g, eids, apart, want);
	} else {
		if (values_of_ranks(j, e, g, eids, count, apart, want))
			total = -1;
		e->nthreads = n;
		e->metrics.nthreads = n;
	}
	free(apart);
	free(eids);
	experiment_free(g);
	par_free(j);
	return total;
}

int main(int argc, char **argv)
{
	struct hpcprof_options o = { 0 };
	struct hpcprof_args a = { 0 };
	int first, status, cpus;
	const struct opt opts[] = {
		HPCPROF_INPUT_OPTS(o, a),
		OPT_STRING(0, "text", &o.text, "FILE",
			   "also write a text report of the hot spots to FILE (- = stdout)"),
		OPT_INT(0, "top", &o.top, "N",
			"rows per table of the text report (default 20)"),
		OPT_STRING('j', "jobs", &a.jobs, "N",
			"threads per rank (default: its CPUs, at most 16)"),
		OPT_END(),
	};

	hpc_set_progname(argv[0]);
	first = opts_parse(argc, argv, &prog, opts, 0);
	if (first < 0)
		return 2;
	if (first == argc && !o.config) {
		hpc_error("no measurement directory given (see 'hpcprof-mpi "
			  "--help')");
		return 2;
	}
	if (hpcprof_args_apply(&o, &a, argv + first, argc - first))
		return 2;
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		hpc_error("MPI_Init failed");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (rank) {
		int null = open("/dev/null", O_WRONLY);

		saved_stderr = dup(2);
		if (null >= 0) {
			dup2(null, 2);
			dup2(null, 1);
			close(null);
		}
	}
	cpus = (int)par_allowed_cpus();
	MPI_Allreduce(MPI_IN_PLACE, &cpus, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rank == 0 && o.jobs > (unsigned)cpus)
		fprintf(stderr, "%s: -j %u, but a rank may run on %d CPU%s only "
			"(mpirun binds each rank to a core by default), so its "
			"threads share %s: give ranks CPUs with mpirun "
			"--bind-to none or --map-by ...:PE=%u\n", hpc_progname(),
			o.jobs, cpus, cpus == 1 ? "" : "s",
			cpus == 1 ? "it" : "them", o.jobs);
	o.correlate = mpi_correlate;
	o.reader_only = rank != 0;
	o.recovered = mpi_recovered;
	status = hpcprof_run(&o);
	/* rank 0 stopped before the others' trees could reach it: they
	 * wait for it, so end the job (its message is said) */
	if (rank == 0 && !correlating && nranks > 1 && status)
		MPI_Abort(MPI_COMM_WORLD, status);
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	hpcprof_args_release(&a);
	MPI_Finalize();
	return status;
}
