/*
 * config.h - the metric configuration file (-M), hpcprof-config.dtd: root
 * HPCPROF (or the older HPCVIEW), TITLE, PATH, REPLACE, STRUCTURE, METRIC
 * with FILE (a measured metric, possibly from another measurement run) or
 * COMPUTE (MathML: cn, ci, apply with plus minus times divide power min max
 * mean sdev).  COMPUTE is translated to the infix syntax of formula.h, with
 * every name braced, so one evaluator serves both.
 *
 * Read by the policy of xmlread.h (a regular file of at most 16 MiB, no
 * network, no entities, at most 256 levels deep).  Errors are one line,
 * "'FILE': line N: what was expected".
 */
#ifndef HPCPROF_CONFIG_H
#define HPCPROF_CONFIG_H

#include <stddef.h>
#include <stdint.h>

struct config_metric {
	char *name;		/* METRIC name= (how formulas refer to it) */
	char *display_name;
	int display, percent;
	char *file;		/* FILE name=: measurement dir or profile */
	char *select;		/* FILE select=: metric name or index; NULL all */
	char *compute;		/* COMPUTE as infix text */
};

struct config {
	char *title;
	char **paths;		size_t npaths;
	char **replace_from, **replace_to;	size_t nreplace;
	char **structures;	size_t nstructures;
	struct config_metric *metrics;	size_t nmetrics;
};

/* Reads path into c (zeroed first); -1 with hpc_lasterr() "FILE:LINE: ...". */
int config_read(const char *path, struct config *c);
/* Frees c's contents; c may be all zero. */
void config_release(struct config *c);

/*
 * 1 when the FILE metric m takes metric (name, index) of the profile at
 * profile_path (which lies in m->file or is m->file).
 */
int config_metric_selects(const struct config_metric *m,
			  const char *profile_path, const char *name,
			  uint32_t index);

#endif
