/*
 * export-firefox.c - the Firefox Profiler's Gecko profile of the traces
 * (export.h): {"meta": ..., "libs": [], "threads": [...]}, a thread per
 * trace with its samples (one per record, at the record's time) and its
 * own stack, frame and string tables.  A stack is a frame scope of the
 * experiment (a calling context ends in a frame): stack i, frame i and
 * string i are one frame, whose location "NAME (FILE:LINE)" the profiler
 * reads as a function of that file and line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "export.h"
#include "jsonout.h"
#include "model.h"
#include "traceview.h"

/* The frame a record is drawn at: its path's frame at depth (export.h,
 * invariant 2), or MODEL_NONE for no activity. */
static uint32_t record_frame(const struct traceview *tv, struct hpctrace_rec r,
			     size_t depth, uint32_t *path)
{
	uint32_t s;
	size_t n;

	if (traceview_record(tv, r, &s) == TRACE_IDLE)
		return MODEL_NONE;
	n = traceview_frames(tv, s, path);
	return path[(depth && depth < n ? depth : n) - 1];
}

static int by_scope(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Numbers the frames row's records reach, with their callers, in scope
 * order (parents first): index[s] = its stack, or UINT32_MAX.  Returns
 * their number; list[] holds them in order. */
static uint32_t number_frames(const struct traceview *tv,
			      const struct trace_row *row, size_t depth,
			      uint32_t *path, uint32_t *index, uint32_t *list)
{
	const struct model *m = tv->m;
	uint32_t n = 0, i;
	uint64_t k, first, end;

	traceview_span(tv, (size_t)(row - tv->rows), &first, &end);
	for (k = first; k < end; k++) {
		uint32_t f = record_frame(tv, hpctrace_get(row->trace, k),
					  depth, path);

		for (; f != MODEL_NONE && index[f] == UINT32_MAX;
		     f = model_caller_frame(m, f)) {
			index[f] = 0;
			list[n++] = f;
		}
	}
	/* scope order puts every caller before its callees */
	qsort(list, n, sizeof(*list), by_scope);
	for (i = 0; i < n; i++)
		index[list[i]] = i;
	return n;
}

/* Thread row's object; adds its samples to *samples. */
static void write_thread(const struct traceview *tv, const struct trace_row *row,
			size_t depth, uint32_t *path, uint32_t *index,
			uint32_t *list, long *samples, FILE *out)
{
	const struct model *m = tv->m;
	uint32_t n = number_frames(tv, row, depth, path, index, list), i;
	struct strbuf loc = STRBUF_INIT;
	uint64_t k, first, end;

	fputs("{\"name\":", out);
	jsonout_str(out, row->name);
	fputs(",\"processType\":\"default\",\"processName\":", out);
	jsonout_str(out, m->title ? m->title : "program");
	fprintf(out, ",\"pid\":%ld,\"tid\":%zu,\"registerTime\":0,"
		"\"unregisterTime\":null,\n\"markers\":{\"schema\":{\"name\":0,"
		"\"startTime\":1,\"endTime\":2,\"phase\":3,\"category\":4,"
		"\"data\":5},\"data\":[]},\n", row->process >= 0 ? row->process : 1,
		row->thread);
	fputs("\"samples\":{\"schema\":{\"stack\":0,\"time\":1,\"eventDelay\":2},"
	      "\"data\":[", out);
	traceview_span(tv, (size_t)(row - tv->rows), &first, &end);
	for (k = first; k < end; k++) {
		struct hpctrace_rec r = hpctrace_get(row->trace, k);
		uint32_t f = record_frame(tv, r, depth, path);

		if (r.time < tv->from)
			r.time = tv->from;
		if (k > first)
			putc(',', out);
		*samples += 1;
		if (f == MODEL_NONE)
			fputs("\n[null,", out);
		else
			fprintf(out, "\n[%u,", index[f]);
		fprintf(out, "%.6f,0]", (double)(r.time - tv->t0) / 1e6);
	}
	fputs("]},\n\"stackTable\":{\"schema\":{\"prefix\":0,\"frame\":1},"
	      "\"data\":[", out);
	for (i = 0; i < n; i++) {
		uint32_t caller = model_caller_frame(m, list[i]);

		if (caller == MODEL_NONE || index[caller] == UINT32_MAX)
			fprintf(out, "%s\n[null,%u]", i ? "," : "", i);
		else
			fprintf(out, "%s\n[%u,%u]", i ? "," : "", index[caller], i);
	}
	fputs("]},\n\"frameTable\":{\"schema\":{\"location\":0,\"relevantForJS\":1,"
	      "\"innerWindowID\":2,\"implementation\":3,\"line\":4,\"column\":5,"
	      "\"category\":6,\"subcategory\":7},\"data\":[", out);
	for (i = 0; i < n; i++) {
		const struct scope *sc = &m->scopes[list[i]];

		fprintf(out, "%s\n[%u,false,0,null,", i ? "," : "", i);
		if (sc->line)
			fprintf(out, "%u", sc->line);
		else
			fputs("null", out);
		fputs(",null,0,0]", out);
	}
	fputs("]},\n\"stringTable\":[", out);
	for (i = 0; i < n; i++) {
		strbuf_reset(&loc);
		strbuf_addstr(&loc, model_str(m, m->scopes[list[i]].name));
		strbuf_addstr(&loc, " (");
		traceview_where(tv, list[i], &loc);
		strbuf_addch(&loc, ')');
		fputs(i ? ",\n" : "\n", out);
		jsonout_str(out, loc.buf);
	}
	fputs("]}", out);
	for (i = 0; i < n; i++)
		index[list[i]] = UINT32_MAX;
	strbuf_release(&loc);
}

long export_firefox(const struct traceview *tv, size_t depth, FILE *out)
{
	const struct model *m = tv->m;
	size_t ns = m->nscopes ? m->nscopes : 1, r;
	uint32_t *path = xmalloc(tv->max_frames * sizeof(*path));
	uint32_t *index = xmalloc(ns * sizeof(*index));
	uint32_t *list = xmalloc(ns * sizeof(*list));
	uint64_t records = 0;
	double interval = 1;
	long samples = 0;

	memset(index, 0xff, ns * sizeof(*index));
	for (r = 0; r < tv->nrows; r++)
		records += tv->rows[r].trace->nrecords;
	if (records > tv->nrows && tv->t1 > tv->t0)	/* a mean period, ms */
		interval = (double)(tv->t1 - tv->t0) / 1e6 /
			   (double)(records - tv->nrows) * (double)tv->nrows;
	fprintf(out, "{\"meta\":{\"version\":24,\"startTime\":0,"
		"\"shutdownTime\":null,\"interval\":%.6f,\"processType\":0,"
		"\"product\":", interval);
	jsonout_str(out, m->title ? m->title : "hpcviewer-tui");
	fputs(",\"stackwalk\":1,\"debug\":0,\"gcpoison\":0,\"asyncstack\":0,"
	      "\"presymbolicated\":true,\"categories\":[{\"name\":\"Other\","
	      "\"color\":\"grey\",\"subcategories\":[\"Other\"]}],"
	      "\"markerSchema\":[]},\n\"libs\":[],\"pausedRanges\":[],"
	      "\"processes\":[],\n\"threads\":[", out);
	for (r = 0; r < tv->nrows; r++) {
		if (r)
			fputs(",\n", out);
		write_thread(tv, &tv->rows[r], depth, path, index, list,
			     &samples, out);
	}
	fputs("]}\n", out);
	free(list);
	free(index);
	free(path);
	if (fflush(out) || ferror(out))
		return hpc_seterr("%s", strerror(errno));
	return samples;
}
