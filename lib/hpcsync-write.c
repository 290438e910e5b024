/*
 * hpcsync-write.c - the .hpcsync vocabulary and writer (see hpcsync.h,
 * man/hpcrun.5 "Synchronization files").  Linked into libhpcrun.so:
 * async-signal-safe, everything through textrec-write.c.
 */
#include "hpcsync.h"
#include "textrec.h"

static const char *const kind_names[HPCSYNC_NKINDS] = {
	[HPCSYNC_BARRIER] = "barrier", [HPCSYNC_OMP_BARRIER] = "omp-barrier",
	[HPCSYNC_OMP_LOOP_END] = "omp-loop-end",
	[HPCSYNC_OMP_SECTIONS_END] = "omp-sections-end",
	[HPCSYNC_OMP_SINGLE_END] = "omp-single-end",
	[HPCSYNC_OMP_JOIN] = "omp-join", [HPCSYNC_KMP_BARRIER] = "kmp-barrier",
	[HPCSYNC_KMP_JOIN] = "kmp-join", [HPCSYNC_MPI_BARRIER] = "mpi-barrier",
	[HPCSYNC_MUTEX] = "mutex", [HPCSYNC_COND] = "cond",
	[HPCSYNC_SEM] = "sem",
};

static const char *const kind_functions[HPCSYNC_NKINDS] = {
	[HPCSYNC_BARRIER] = "pthread_barrier_wait",
	[HPCSYNC_OMP_BARRIER] = "GOMP_barrier",
	[HPCSYNC_OMP_LOOP_END] = "GOMP_loop_end",
	[HPCSYNC_OMP_SECTIONS_END] = "GOMP_sections_end",
	[HPCSYNC_OMP_SINGLE_END] = "GOMP_single_copy_end",
	[HPCSYNC_OMP_JOIN] = "GOMP_parallel",
	[HPCSYNC_KMP_BARRIER] = "__kmpc_barrier",
	[HPCSYNC_KMP_JOIN] = "__kmpc_fork_call",
	[HPCSYNC_MPI_BARRIER] = "MPI_Barrier",
	[HPCSYNC_MUTEX] = "pthread_mutex_lock",
	[HPCSYNC_COND] = "pthread_cond_wait", [HPCSYNC_SEM] = "sem_wait",
};

const char *hpcsync_kind_name(enum hpcsync_kind k)
{
	return (unsigned)k < HPCSYNC_NKINDS ? kind_names[k] : "?";
}

const char *hpcsync_kind_function(enum hpcsync_kind k)
{
	return (unsigned)k < HPCSYNC_NKINDS ? kind_functions[k] : "?";
}

void hpcsync_write_head(struct textrec_out *o, const struct hpcsync *s)
{
	textrec_put(o, HPCSYNC_MAGIC);
	textrec_field(o, HPCSYNC_VERSION);
	textrec_put(o, "\n");
	if (s->thread >= 0) {
		textrec_put(o, HPCSYNC_THREAD);
		textrec_field_i64(o, s->thread);
		textrec_put(o, "\n");
	}
	if (s->rank >= 0) {
		textrec_put(o, HPCSYNC_RANK);
		textrec_field_i64(o, s->rank);
		textrec_put(o, "\n");
	}
	if (s->clock != HPCSYNC_CLOCK_NONE) {
		textrec_put(o, HPCSYNC_CLOCK);
		textrec_field_i64(o, s->clock_offset);
		textrec_field_u64(o, s->clock_err);
		textrec_field(o, s->clock == HPCSYNC_CLOCK_SAME_HOST ?
			      HPCSYNC_SAME_HOST : HPCSYNC_OTHER_HOST);
		textrec_put(o, "\n");
	}
}

void hpcsync_write_site(struct textrec_out *o, const struct hpcsync_site *x)
{
	textrec_put(o, HPCSYNC_SITE);
	textrec_field_u64(o, x->id);
	textrec_field(o, hpcsync_kind_name(x->kind));
	textrec_field_hex(o, x->object);
	textrec_field_u64(o, x->node);
	textrec_field_u64(o, x->nthreads);
	textrec_put(o, "\n");
}

void hpcsync_write_sync(struct textrec_out *o, const struct hpcsync_sync *x)
{
	uint32_t k;

	textrec_put(o, HPCSYNC_SYNC);
	textrec_field_u64(o, x->site);
	textrec_field_u64(o, x->episodes);
	textrec_field_seconds(o, x->wait);
	textrec_field_seconds(o, x->completion);
	textrec_field_u64(o, x->last);
	textrec_put(o, " ");
	if (!x->norders)
		textrec_put(o, "-");
	for (k = 0; k < x->norders && k < HPCSYNC_MAX_ORDERS; k++) {
		if (k)
			textrec_put(o, ",");
		textrec_put_u64(o, x->orders[k]);
	}
	textrec_put(o, "\n");
}

void hpcsync_write_lock(struct textrec_out *o, const struct hpcsync_lock *x)
{
	textrec_put(o, HPCSYNC_LOCK);
	textrec_field_u64(o, x->site);
	textrec_field_u64(o, x->calls);
	textrec_field_u64(o, x->blocked);
	textrec_field_seconds(o, x->wait);
	textrec_put(o, "\n");
}

void hpcsync_write_phase(struct textrec_out *o, const struct hpcsync_phase *x)
{
	textrec_put(o, HPCSYNC_PHASE);
	textrec_field_u64(o, x->start);
	textrec_field_u64(o, x->end);
	textrec_field_u64(o, x->count);
	textrec_field_seconds(o, x->work);
	textrec_field_seconds(o, x->wall);
	textrec_put(o, "\n");
}

void hpcsync_write_episode(struct textrec_out *o,
			   const struct hpcsync_episode *x)
{
	textrec_put(o, HPCSYNC_EPISODE);
	textrec_field_u64(o, x->site);
	textrec_field_u64(o, x->n);
	textrec_field_u64(o, x->arrive);
	textrec_field_u64(o, x->depart);
	textrec_field_u64(o, x->lastarr);
	textrec_field_i64(o, x->order);
	textrec_field_u64(o, x->cpu_arrive);
	textrec_field_u64(o, x->cpu_depart);
	textrec_put(o, "\n");
}

void hpcsync_write_tail(struct textrec_out *o, const struct hpcsync *s)
{
	textrec_put(o, HPCSYNC_EPISODES);
	textrec_field_u64(o, s->kept);
	textrec_field_u64(o, s->total);
	textrec_put(o, "\n");
}

void hpcsync_write(struct textrec_out *o, const struct hpcsync *s)
{
	size_t i;

	hpcsync_write_head(o, s);
	for (i = 0; i < s->nsites; i++)
		hpcsync_write_site(o, &s->sites[i]);
	for (i = 0; i < s->nsyncs; i++)
		hpcsync_write_sync(o, &s->syncs[i]);
	for (i = 0; i < s->nlocks; i++)
		hpcsync_write_lock(o, &s->locks[i]);
	for (i = 0; i < s->nphases; i++)
		hpcsync_write_phase(o, &s->phases[i]);
	for (i = 0; i < s->nepisodes; i++)
		hpcsync_write_episode(o, &s->episodes[i]);
	hpcsync_write_tail(o, s);
}
