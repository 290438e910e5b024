/*
 * database.h - the experiment database directory (hpcprof-database(5)):
 * experiment.xml (DTD 2.2, streamed through lib/xmlw), per-thread values,
 * copies of the source files and of the metric configuration.
 *
 * Life cycle: database_create() makes the directory (never reusing an
 * existing one) and opens the per-thread files, which fill while profiles
 * are added; database_finish() writes experiment.xml and src/ and closes
 * everything.
 */
#ifndef HPCPROF_DATABASE_H
#define HPCPROF_DATABASE_H

#include "cct.h"

extern const char experiment_dtd[];

struct source_paths {
	const char **include;	size_t ninclude;	/* -I and PATH */
	const char **from;	/* -R and REPLACE: prefix from -> to */
	const char **to;	size_t nreplace;
};

struct database;

/*
 * Creates dir (it must not exist) and DIR/thread-values.tsv; connects the
 * per-thread callback of e.  Returns NULL with hpc_lasterr() set.
 */
struct database *database_create(const char *dir, struct experiment *e);

/* Records thread number t's profile path and identity (threads.tsv). */
void database_thread(struct database *db, size_t t, const char *path,
		     const struct hpcrun_profile *p);

/*
 * Writes experiment.xml, copies sources into src/ and the metric config (if
 * any) into the database, closes and frees db.  Returns 0, or -1 with
 * hpc_lasterr() set.  title names the database (Header n=).
 */
int database_finish(struct database *db, const char *title,
		    const struct source_paths *paths, const char *config_path);

/* Frees db after an error, leaving the directory as it is. */
void database_abort(struct database *db);

#endif
