/* capability.c - see capability.h. */
#include <stdlib.h>
#include <string.h>

#include "capability.h"
#include "error.h"
#include "experiment.h"
#include "strbuf.h"

const struct prof_capability *const prof_capabilities[NCAPS] = {
	[CAP_MIX] = &mix_capability,
	[CAP_PHASES] = &phases_capability,
	[CAP_DATA] = &data_capability,
	[CAP_SHARING] = &sharing_capability,
	[CAP_TRACE] = &trace_capability,
	[CAP_PYTHON] = &python_capability,
};

int prof_mergeable(struct experiment *const *ws, size_t n)
{
	size_t c;

	for (c = 0; c < NCAPS; c++)
		if (prof_capabilities[c]->mergeable &&
		    !prof_capabilities[c]->mergeable(ws, n))
			return 0;
	return 1;
}

/* Side file c of in, NULL once dropped. */
static const void *side_of(const struct prof_input *in,
			   const struct prof_said *s, size_t c)
{
	return (s->drop >> c) & 1 ? NULL : in->side[c];
}

void prof_thread_add(struct experiment *w, size_t t,
		     const struct prof_input *in, struct prof_said *s)
{
	struct hpcrun_profile *p = hpcrun_fmt_read(in->path);
	size_t c;

	if (!p) {
		s->err = xstrdup(hpc_lasterr());
		s->failed = 1;
		s->drop = (1u << NCAPS) - 1;
		return;
	}
	w->nthreads = t;	/* the thread's number (datatree.h) */
	for (c = 0; c < NCAPS; c++) {
		const struct prof_capability *cap = prof_capabilities[c];
		struct strbuf sb = STRBUF_INIT;

		if (!cap->thread_begin ||
		    !cap->thread_begin(w, t, side_of(in, s, c), p, in->proc))
			continue;
		strbuf_addf(&sb, "%s; %s", hpc_lasterr(), cap->ignored);
		s->said[s->nsaid++] = strbuf_detach(&sb, NULL);
		s->drop |= 1u << c;
		s->failed = 1;
	}
	experiment_add_profile(w, p, in->map);
	for (c = NCAPS; c-- > 0;) {
		const struct prof_capability *cap = prof_capabilities[c];
		char *said = NULL;

		if (cap->thread_end &&
		    cap->thread_end(w, t, side_of(in, s, c), in->path,
				    in->proc, &said))
			s->failed = 1;
		if (said)
			s->said[s->nsaid++] = said;
	}
	hpcrun_profile_free(p);
}

void prof_said_release(struct prof_said *s)
{
	size_t k;

	free(s->err);
	for (k = 0; k < s->nsaid; k++)
		free(s->said[k]);
	memset(s, 0, sizeof(*s));
}

int prof_thread_say(struct prof_said *s, void **side)
{
	int failed = s->failed;
	size_t k, c;

	if (s->err)
		hpc_warn("%s; skipping it", s->err);
	for (k = 0; k < s->nsaid; k++)
		hpc_warn("%s", s->said[k]);
	for (c = 0; side && c < NCAPS; c++)
		if ((s->drop >> c) & 1 && side[c]) {
			prof_capabilities[c]->side_free(side[c]);
			side[c] = NULL;
		}
	prof_said_release(s);
	return failed;
}
