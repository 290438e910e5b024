/*
 * units.c - the unit a metric's values are shown in (units.h).
 */
#include <string.h>

#include "units.h"

/* The ":Statistic" part of a metric name ("perf::cpu-clock:Sum (I)"), not
 * a "::" namespace separator, or NULL. */
static const char *statistic(const char *name)
{
	const char *c = strrchr(name, ':');

	return c && c > name && c[-1] != ':' ? c : NULL;
}

struct unit units_of(const char *name, const char *desc, double period,
		     const char *valtype)
{
	const char *stat = statistic(name);
	struct unit u = { NULL, 1 };

	if ((valtype && !strcmp(valtype, "derived")) ||
	    (stat && !strncmp(stat + 1, "CoefVar", 7)) || !desc)
		return u;
	if (!strcmp(desc, "PERF_COUNT_SW_CPU_CLOCK") ||
	    !strcmp(desc, "PERF_COUNT_SW_TASK_CLOCK")) {
		u.name = "s";
		u.scale = (period >= 1 ? period : 1) * 1e-9;
	}
	return u;
}

void units_heading(const char *name, struct unit u, struct strbuf *out)
{
	const char *stat = statistic(name);

	if (!u.name) {
		strbuf_addstr(out, name);
		return;
	}
	if (!stat)
		stat = name + strlen(name);
	strbuf_add(out, name, (size_t)(stat - name));
	strbuf_addf(out, " (%s)%s", u.name, stat);
}
