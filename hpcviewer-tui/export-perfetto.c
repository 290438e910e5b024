/*
 * export-perfetto.c - Chrome trace-event JSON of the traces (export.h):
 * {"traceEvents": [...]}, a process_name and a thread_name metadata event
 * per thread, then each thread's slices as complete ("X") events, each
 * written when its slice ends, so a callee's comes before its caller's.
 * Begin and end events would be as streamable, but readers order the two
 * at one time differently (speedscope nests a slice that begins where its
 * sibling ends inside it); a complete event says both ends at once.  pid
 * is the thread's process (1 when unknown), tid its thread number in the
 * database.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export.h"
#include "jsonout.h"
#include "model.h"
#include "traceview.h"

struct open_frame {
	uint32_t scope;
	int wait;
	uint64_t begin;
};

struct pf {
	const struct traceview *tv;
	FILE *out;
	long pid;
	size_t tid;
	int first;		/* no event written yet */
	long slices;		/* written */
};

static double micros(const struct pf *w, uint64_t t)
{
	return (double)(t - w->tv->t0) / 1e3;
}

/* The slice of f, which ends at time t. */
static void slice(struct pf *w, const struct open_frame *f, uint64_t t)
{
	const struct model *m = w->tv->m;
	struct strbuf where = STRBUF_INIT;

	fprintf(w->out, "%s\n{\"ph\":\"X\",\"pid\":%ld,\"tid\":%zu,\"ts\":%.3f,"
		"\"dur\":%.3f,\"name\":", w->first ? "" : ",", w->pid, w->tid,
		micros(w, f->begin), micros(w, t) - micros(w, f->begin));
	jsonout_str(w->out, model_str(m, m->scopes[f->scope].name));
	fprintf(w->out, ",\"cat\":\"%s\",\"args\":{\"src\":",
		f->wait ? "wait" : "cpu");
	traceview_where(w->tv, f->scope, &where);
	jsonout_str(w->out, where.buf);
	fputs("}}", w->out);
	w->first = 0;
	w->slices++;
	strbuf_release(&where);
}

static void metadata(struct pf *w, const char *what, const char *name)
{
	fprintf(w->out, "%s\n{\"ph\":\"M\",\"pid\":%ld,\"tid\":%zu,\"name\":\"%s\","
		"\"args\":{\"name\":", w->first ? "" : ",", w->pid, w->tid, what);
	jsonout_str(w->out, name);
	fputs("}}", w->out);
	w->first = 0;
}

/* One thread's slices (export.h, invariants 1, 2, 4). */
static void thread_slices(struct pf *w, const struct trace_row *row,
			  size_t depth, uint32_t *path, struct open_frame *open)
{
	const struct hpctrace *t = row->trace;
	size_t nopen = 0, n, k;
	uint64_t i, first, end, stop = w->tv->to;

	traceview_span(w->tv, (size_t)(row - w->tv->rows), &first, &end);
	if (end == t->nrecords && t->tmax < stop)
		stop = t->tmax;	/* the trace ends in the window */
	for (i = first; i < end; i++) {
		struct hpctrace_rec r = hpctrace_get(t, i);
		uint32_t s;

		if (r.time >= w->tv->to)
			break;
		if (r.time < w->tv->from)
			r.time = w->tv->from;
		enum trace_state st = traceview_record(w->tv, r, &s);
		int wait = st == TRACE_WAIT;

		n = 0;
		if (st != TRACE_IDLE) {
			n = traceview_frames(w->tv, s, path);
			if (depth && n > depth)
				n = depth;
		}
		for (k = 0; k < n && k < nopen && open[k].scope == path[k] &&
			    open[k].wait == (wait && k == n - 1); k++)
			;
		while (nopen > k) {
			nopen--;
			slice(w, &open[nopen], r.time);
		}
		for (; k < n; k++) {
			open[k].scope = path[k];
			open[k].wait = wait && k == n - 1;
			open[k].begin = r.time;
			nopen++;
		}
	}
	while (nopen--)
		slice(w, &open[nopen], stop);
}

long export_perfetto(const struct traceview *tv, size_t depth, FILE *out)
{
	uint32_t *path = xmalloc(tv->max_frames * sizeof(*path));
	struct open_frame *open = xmalloc(tv->max_frames * sizeof(*open));
	struct pf w = { tv, out, 0, 0, 1, 0 };
	struct strbuf name = STRBUF_INIT;
	size_t r;

	fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":"
	      "\"hpcviewer-tui\",\"experiment\":", out);
	jsonout_str(out, tv->m->title ? tv->m->title : "");
	fputs("},\n\"traceEvents\":[", out);
	for (r = 0; r < tv->nrows; r++) {
		const struct trace_row *row = &tv->rows[r];

		w.pid = row->process >= 0 ? row->process : 1;
		w.tid = row->thread;
		strbuf_reset(&name);
		strbuf_addstr(&name, tv->m->title ? tv->m->title : "program");
		if (row->process >= 0)
			strbuf_addf(&name, " (process %ld)", row->process);
		metadata(&w, "process_name", name.buf);
		metadata(&w, "thread_name", row->name);
		thread_slices(&w, row, depth, path, open);
	}
	fputs("\n]}\n", out);
	strbuf_release(&name);
	free(open);
	free(path);
	if (fflush(out) || ferror(out))
		return hpc_seterr("%s", strerror(errno));
	return w.slices;
}
