/* mix.c - instruction-mix metrics (see mix.h). */
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "formula.h"
#include "mix.h"
#include "strbuf.h"

enum metric_kind { NOT_SPLIT, TIME, INSTRUCTIONS };

static const char *const group_words[MIX_NGROUPS] = {
	"floating-point", "memory (load and store)", "integer", "branch",
};

/* What kind of metric name is, from its event name (perf::, a unit in
 * parentheses and HPCToolkit's PAPI spellings aside). */
static enum metric_kind kind_of(const char *name, const char *desc)
{
	static const char *const times[] = {
		"cycles", "cpu-cycles", "ref-cycles", "cpu-clock", "task-clock",
		"CPUTIME", "REALTIME", "PAPI_TOT_CYC", "PAPI_REF_CYC",
		"PERF_COUNT_HW_CPU_CYCLES", "PERF_COUNT_HW_REF_CPU_CYCLES",
		"PERF_COUNT_SW_CPU_CLOCK", "PERF_COUNT_SW_TASK_CLOCK", NULL,
	};
	static const char *const counts[] = {
		"instructions", "PAPI_TOT_INS", "PERF_COUNT_HW_INSTRUCTIONS",
		NULL,
	};
	const char *words[2] = { name, desc };

	for (int w = 0; w < 2; w++) {
		const char *s = words[w];
		size_t n;

		if (!s)
			continue;
		if (!strncmp(s, "perf::", 6))
			s += 6;
		n = strcspn(s, " (@:");
		for (size_t i = 0; times[i]; i++)
			if (strlen(times[i]) == n && !strncmp(s, times[i], n))
				return TIME;
		for (size_t i = 0; counts[i]; i++)
			if (strlen(counts[i]) == n && !strncmp(s, counts[i], n))
				return INSTRUCTIONS;
	}
	return NOT_SPLIT;
}

static int any_mix(struct structure *const *structs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (structs[i]->has_mix)
			return 1;
	return 0;
}

/* The derived metric NAME.GROUP_share = 100 * NAME.GROUP / NAME. */
static void add_share(struct metrics *m, size_t raw, size_t split,
		      enum mix_group g)
{
	struct formula *ratio[2] = { formula_raw(split), formula_raw(raw) };
	struct formula *args[2];
	struct derived_metric *d;
	struct strbuf sb = STRBUF_INIT;

	args[0] = formula_number(100);
	args[1] = formula_apply(F_DIV, ratio, 2);
	HPC_GROW(m->derived, m->nderived + 1, m->derived_alloc);
	d = &m->derived[m->nderived++];
	memset(d, 0, sizeof(*d));
	strbuf_addf(&sb, "%s.%s_share", m->raw[raw].name, mix_group_names[g]);
	d->name = strbuf_detach(&sb, NULL);
	strbuf_addf(&sb, "100 * {%s} / {%s}", m->raw[split].name,
		    m->raw[raw].name);
	d->text = strbuf_detach(&sb, NULL);
	d->f = formula_apply(F_MUL, args, 2);
	d->show = 1;
	d->percent = 0;
}

void mix_register(struct metrics *m, struct structure *const *structs,
		 size_t nstructs)
{
	size_t nraw = m->nraw, i;

	if (!any_mix(structs, nstructs) || !nraw)
		return;
	m->nmix = nraw;
	m->mix = xmalloc(nraw * sizeof(*m->mix));
	for (i = 0; i < nraw; i++) {
		enum metric_kind k = kind_of(m->raw[i].name,
					     m->raw[i].description);

		m->mix[i] = -1;
		if (k == NOT_SPLIT)
			continue;
		for (int g = 0; g < MIX_NGROUPS; g++) {
			struct strbuf name = STRBUF_INIT, desc = STRBUF_INIT;
			size_t idx;

			strbuf_addf(&name, "%s.%s", m->raw[i].name,
				    mix_group_names[g]);
			if (k == TIME)
				strbuf_addf(&desc, "%s", m->raw[i].description);
			else
				strbuf_addf(&desc, "estimated retired %s "
					    "instructions", group_words[g]);
			idx = metrics_raw(m, name.buf, desc.buf,
					  m->raw[i].integer);
			if (g == 0)
				m->mix[i] = (long)idx;
			m->raw[idx].period = m->raw[i].period;
			m->raw[idx].nthreads = m->raw[i].nthreads;
			m->raw[idx].hidden = 1;
			if (m->raw[i].display) {
				strbuf_reset(&name);
				strbuf_addf(&name, "%s.%s", m->raw[i].display,
					    mix_group_names[g]);
				metrics_set_display(m, idx, name.buf);
			}
			strbuf_release(&name);
			strbuf_release(&desc);
		}
	}
	for (i = 0; i < nraw; i++)
		for (int g = 0; m->mix[i] >= 0 && g < MIX_NGROUPS; g++)
			add_share(m, i, (size_t)m->mix[i] + (size_t)g,
				  (enum mix_group)g);
}

/* The profile being added: the class of the node last asked about. */
struct mix_walk {
	uint64_t k;
	int cls;
};

/*
 * The instruction class (insn-mix.h) of the sample at profile node k, when
 * its module's structure file has a mix there; else -1.  The sample's
 * address is the next instruction to run, so the time was held by the one
 * that retired before it: the instruction ending at the address
 * (invariant 2).  When none ends there, or the one that does is a branch
 * or other (a jump or padding before a branch target, not what ran), the
 * instruction at the address.
 */
static int leaf_class(const struct profile_walk *w, uint64_t k)
{
	const struct hpcrun_node *nd = &w->p->nodes[k];
	int cls;

	if (nd->lm == 0 || nd->lm >= w->nmods || !w->mods[nd->lm])
		return -1;
	cls = structure_insn_class_ending(w->mods[nd->lm]->st, nd->addr);
	if (cls < 0 || cls == IC_BRANCH || cls == IC_OTHER)
		cls = structure_insn_class(w->mods[nd->lm]->st, nd->addr);
	return cls;
}

/* Profiles of an experiment with mix metrics (invariant 1). */
static int mix_begin(struct profile_walk *w, void **state)
{
	struct mix_walk *mw;

	if (!w->e->metrics.mix)
		return 0;
	mw = xcalloc(1, sizeof(*mw));
	mw->k = UINT64_MAX;
	*state = mw;
	return 1;
}

/* A code sample: its value again in the mix metric of its class. */
static void mix_sample(void *state, struct profile_walk *w, uint64_t k,
		       size_t raw, double d)
{
	struct mix_walk *mw = state;
	long split;

	if (!w->leaves[k])
		return;
	if (mw->k != k) {
		mw->k = k;
		mw->cls = leaf_class(w, k);
	}
	split = mix_metric(&w->e->metrics, raw, mw->cls);
	if (split >= 0)
		experiment_add_leaf_sample(w, k, (size_t)split, d);
}

static void mix_end(void *state, struct profile_walk *w)
{
	(void)w;
	free(state);
}

const struct profile_hook mix_profile_hook = {
	.begin = mix_begin,
	.sample = mix_sample,
	.end = mix_end,
};

/* The capability (capability.h): the mix metrics of the structures'
 * instruction classes, split off as the profiles are walked. */
static void cap_metrics(void *state, struct experiment *e, int any)
{
	(void)state;
	(void)any;
	mix_register(&e->metrics, e->structs, e->nstructs);
}

const struct prof_capability mix_capability = {
	.name = "mix",
	.metrics = cap_metrics,
	.walk = &mix_profile_hook,
};
