/*
 * database.h - the experiment database directory (hpcprof-database(5)):
 * experiment.xml (DTD 2.2, streamed through lib/xmlw), per-thread values,
 * copies of the source files and of the metric configuration.
 *
 * Life cycle: database_create() makes a temporary directory beside the
 * database's path and opens the per-thread files in it, which fill while
 * profiles are added; database_finish() writes experiment.xml and src/,
 * then renames the directory to the database's path.  So a database is
 * complete or absent: after any error the temporary directory is removed.
 * A database already at the path is renamed to the first free PATH.N at
 * that moment (nothing is lost); anything else there, other than an empty
 * directory, is refused by database_create().  Errors name the database's file
 * by the path the user gave ("'db/experiment.xml': write error: ...").
 */
#ifndef HPCPROF_DATABASE_H
#define HPCPROF_DATABASE_H

#include "experiment.h"

extern const char experiment_dtd[];

struct source_paths {
	const char **include;	size_t ninclude;	/* -I and PATH */
	const char **from;	/* -R and REPLACE: prefix from -> to */
	const char **to;	size_t nreplace;
};

struct database;

/*
 * Checks that a database may be written at dir (see above), creates the
 * temporary directory and its thread-values.tsv and threads.tsv; connects
 * the per-thread callback of e.  thread_columns (NULL: none) are more
 * columns of threads.tsv, "\tNAME..." (phases.h adds the synchronization
 * columns).  Returns NULL with hpc_lasterr() set.
 */
struct database *database_create(const char *dir, struct experiment *e,
				 const char *thread_columns);

/* Writes experiment.xml's calling context tree on n threads (hpcprof -j;
 * the same bytes as one writes, the default). */
void database_set_jobs(struct database *db, unsigned n);

/*
 * Records thread number t's profile path and identity (threads.tsv): the
 * identity tuple, program, process, rank and thread id, then columns
 * ("\tVALUE...", one per thread_column; NULL: none).
 */
void database_thread(struct database *db, size_t t, const char *path,
		     const struct hpcrun_profile *p, const char *columns);

/*
 * Flushes the per-thread values added so far (thread-values.tsv): 0, or
 * -1 with hpc_lasterr() naming the file and why when a write of it
 * failed.  Called once the profiles are added, before the capabilities
 * write their files, so that the first file to fail is the one named.
 */
int database_values_flush(struct database *db);

/*
 * Another file of the database, rel below its directory ("phases.tsv",
 * "traces/0.hpctrace": the directories above it made), created in the
 * temporary directory; NULL with hpc_lasterr() naming it.
 * database_close_file() closes it: 0, or -1 naming it on a write error.
 */
FILE *database_open_file(struct database *db, const char *rel);
int database_close_file(struct database *db, FILE *f, const char *rel);

/*
 * Writes experiment.xml, copies sources into src/ and the metric config (if
 * any) into the database, puts the database in place and frees db.
 * Returns 0, setting *aside to where a previous database at the path was
 * moved (caller frees) or NULL; or -1 with hpc_lasterr() set, the database
 * absent and any previous one left where it was.  title names the database
 * (Header n=).
 */
int database_finish(struct database *db, const char *title,
		    const struct source_paths *paths, const char *config_path,
		    char **aside);

/* Removes the temporary directory and frees db (NULL accepted). */
void database_abort(struct database *db);

/*
 * A line of thread-values.tsv into buf (at most THREAD_LINE_MAX bytes):
 * thread's value v of (raw metric, ie) at node, whose metrics are m; its
 * length.  What the database's own lines are (e->thread_lines), for
 * hpcprof-mpi's ranks that write their lines for rank 0.
 */
size_t database_value_line(const struct metrics *m, char *buf,
			   uint32_t thread, uint32_t node, size_t raw, int ie,
			   double v);

#endif
