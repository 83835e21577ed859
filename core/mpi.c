/*
 * mpi.c - the mpi transport: MPI-3 RMA on one window per session, through
 * the MPI plugin (mpi-plugin.h), for a rank whose peers may be on other
 * hosts (docs/design.md, "The mpi transport").
 *
 * Only the rank's own area is addressable; the executor reaches peers
 * through put/get.  notify: every put not yet flushed is completed
 * (MPI_Win_flush_all), this rank's own stores are synced, then an
 * MPI_Accumulate on the peer's cell and a flush, so the data is there
 * before the cell says so (release; a single peer's puts are completed
 * with MPI_Win_flush, the faster call on MPICH).  wait: polls the own cell
 * (the plugin's poll: MPI_Iprobe then MPI_Win_sync, then a load)
 * CDB_MPI_SPIN times, quietly as shm spins, then publishes the wait on the
 * board, on MPICH polls with a sched_yield() between polls for the first
 * CDB_MPI_YIELD_NS of the wait (mpi-plugin.h says why), then every 100 us
 * (not backing off as an idle rank does: a peer's one-sided writes into
 * this rank move only while it polls, and a 64 MiB put is many of them);
 * an interrupt ends it.  An own-rank put or
 * get is a memory copy.
 *
 * Which thread: the rank's main thread only (the plugin's rule).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi-plugin.h"
#include "mpi.h"
#include "seg.h"
#include "xmalloc.h"

struct mpi_priv {
	const struct mpi_plugin *p;
	struct seg *seg;   /* the rank's own segment: its board */
	uint8_t *base;	   /* the window: this rank's area */
	uint64_t yield_ns; /* the plugin's wait_yield_ns() */
	int dirty;	   /* puts not flushed yet: the one peer they went
			  * to + 1, or DIRTY_MANY */
	uint8_t *tmp;	   /* f16/bf16 adds: the peer's elements */
	size_t tmp_cap;
};

static struct mpi_priv *
priv(struct transport *t)
{
	return t->priv;
}

static uint8_t *
mpi_area(struct transport *t, int r)
{
	return r == t->rank ? priv(t)->base : NULL;
}

#define DIRTY_MANY (-1)

static void
dirty(struct mpi_priv *pv, int peer)
{
	pv->dirty =
	    pv->dirty == 0 || pv->dirty == peer + 1 ? peer + 1 : DIRTY_MANY;
}

static void
complete(struct mpi_priv *pv)
{
	if (pv->dirty) {
		/* MPICH's flush_all is slower than one flush (bench/mpi.sh) */
		pv->p->flush(pv->dirty == DIRTY_MANY ? -1 : pv->dirty - 1);
		pv->dirty = 0;
	}
	pv->p->sync();
}

static int
mpi_notify(struct transport *t, int peer, uint64_t off, int32_t v,
    enum notify_op op)
{
	struct mpi_priv *pv = priv(t);

	complete(pv);
	return pv->p->notify(peer, off, v, op == NOTIFY_SET);
}

static void
nap(uint64_t ns)
{
	struct timespec ts = { 0, (long)ns };

	nanosleep(&ts, NULL);
}

static int
mpi_wait(struct transport *t, uint64_t off, enum wait_cmp cmp, int32_t expected,
    int32_t *seen)
{
	struct mpi_priv *pv = priv(t);
	struct seg_rank *b = seg_board(pv->seg, t->rank);
	_Atomic int32_t *cell = (_Atomic int32_t *)(pv->base + off);
	uint32_t giveup = atomic_load(&pv->seg->h->wait_giveup);
	int32_t v;
	int rc = WAIT_OK, slept = 0;
	uint64_t i = 0, yield_end = 0;

	pv->p->poll();
	v = atomic_load_explicit(cell, memory_order_acquire);
	if (wait_cmp_holds(cmp, v, expected))
		goto out;
	if (t->nonblock) {
		rc = WAIT_PENDING;
		goto out;
	}
	/* Poll quietly first, as shm spins: a peer a little behind releases
	 * us before anybody needs to see us blocked (no board write, no
	 * clock read on the way out). */
	if (giveup == 0) {
		uint64_t quiet_end = 0;

		for (; i < CDB_MPI_SPIN; i++) {
			pv->p->poll();
			v = atomic_load_explicit(cell, memory_order_acquire);
			if (wait_cmp_holds(cmp, v, expected))
				goto out;
			if ((i & 15) != 15)
				continue;
			if (atomic_load_explicit(&b->interrupt,
				memory_order_relaxed))
				break;
			/* An MPI poll may yield (Open MPI's
			 * mpi_yield_when_idle): on a loaded machine each
			 * yield gives up a time slice, and 2000 of them kept
			 * a rank from being seen blocked for seconds.  The
			 * quiet polls end after CDB_MPI_QUIET_NS too (the
			 * clock is read from the 16th poll on only). */
			if (quiet_end == 0) {
				quiet_end = mono_ns() + CDB_MPI_QUIET_NS;
			} else if (mono_ns() > quiet_end) {
				i = CDB_MPI_SPIN;
				break;
			}
		}
	}
	atomic_store_explicit(&b->wait_off, off, memory_order_relaxed);
	atomic_store_explicit(&b->wait_cmp, (uint32_t)cmp, memory_order_relaxed);
	atomic_store_explicit(&b->wait_expected, expected, memory_order_relaxed);
	transport_before_block(t, 0);
	seg_set_state(b, RS_BLOCKED);
	for (;; i++) {
		pv->p->poll();
		v = atomic_load_explicit(cell, memory_order_acquire);
		if (wait_cmp_holds(cmp, v, expected))
			break;
		if (atomic_load_explicit(&b->interrupt, memory_order_relaxed)) {
			rc = WAIT_INTERRUPTED;
			break;
		}
		if (giveup != 0) {
			/* PTO's CPU-sim: poll every 10 us, then give up */
			if (i >= giveup) {
				rc = WAIT_GAVEUP;
				break;
			}
			nap(10000);
		} else if (i >= CDB_MPI_SPIN) {
			if (yield_end == 0)
				yield_end = mono_ns() + pv->yield_ns;
			if (!slept && mono_ns() < yield_end) {
				sched_yield();
				continue;
			}
			if (!slept) {
				atomic_store(&b->sleeping, 1);
				slept = 1;
			}
			nap(100000);
		}
	}
	if (slept)
		atomic_store(&b->sleeping, 0);
	if (rc == WAIT_OK || rc == WAIT_GAVEUP)
		seg_set_state(b, RS_RUNNING);
out:
	*seen = v;
	return rc;
}

static int
mpi_put(struct transport *t, int peer, uint64_t dst, const void *src, size_t bytes)
{
	struct mpi_priv *pv = priv(t);

	if (peer == t->rank) {
		memmove(pv->base + dst, src, bytes);
		return 0;
	}
	dirty(pv, peer);
	return pv->p->put(peer, dst, src, bytes);
}

static int
elem_of(enum dtype dt, int *elem)
{
	switch (dt) {
	case DT_I8:
		*elem = ME_I8;
		return 0;
	case DT_I16:
		*elem = ME_I16;
		return 0;
	case DT_I32:
		*elem = ME_I32;
		return 0;
	case DT_I64:
		*elem = ME_I64;
		return 0;
	case DT_F32:
		*elem = ME_F32;
		return 0;
	case DT_F64:
		*elem = ME_F64;
		return 0;
	default:
		return -1; /* no MPI type: f16, bf16 */
	}
}

static int
mpi_put_add(struct transport *t, int peer, uint64_t dst, const void *src,
    size_t count, enum dtype dt)
{
	struct mpi_priv *pv = priv(t);
	size_t bytes = count * dtype_size(dt);
	int elem, rc;

	dirty(pv, peer);
	if (elem_of(dt, &elem) == 0)
		return pv->p->put_add(peer, dst, src, count, elem);
	/* a read-modify-write under the peer's colldb lock */
	if (bytes > pv->tmp_cap) {
		free(pv->tmp);
		pv->tmp = xmalloc(bytes);
		pv->tmp_cap = bytes;
	}
	complete(pv);
	pv->p->lock(peer);
	rc = pv->p->get(peer, dst, pv->tmp, bytes);
	if (rc == 0) {
		reduce_apply(dt, RED_SUM, pv->tmp, src, count);
		rc = pv->p->put(peer, dst, pv->tmp, bytes);
		if (rc == 0)
			rc = pv->p->flush(peer);
	}
	pv->p->unlock(peer);
	return rc;
}

static int
mpi_get(struct transport *t, int peer, uint64_t src, void *dst, size_t bytes)
{
	struct mpi_priv *pv = priv(t);

	if (peer == t->rank) {
		memmove(dst, pv->base + src, bytes);
		return 0;
	}
	return pv->p->get(peer, src, dst, bytes);
}

static void
mpi_flush(struct transport *t)
{
	complete(priv(t));
}

static void
mpi_progress(struct transport *t)
{
	priv(t)->p->poll();
}

static void
mpi_close(struct transport *t)
{
	struct mpi_priv *pv = priv(t);

	if (pv != NULL) {
		free(pv->tmp);
		free(pv);
	}
	t->priv = NULL;
}

const struct transport_ops transport_mpi_ops = {
	.name = "mpi",
	.area = mpi_area,
	.notify = mpi_notify,
	.wait = mpi_wait,
	.put = mpi_put,
	.put_add = mpi_put_add,
	.get = mpi_get,
	.flush = mpi_flush,
	.progress = mpi_progress,
	.close = mpi_close,
};

void
mpi_transport_init(struct transport *t, const struct mpi_plugin *p,
    struct seg *local, uint8_t *base)
{
	struct mpi_priv *pv = xcalloc(1, sizeof *pv);

	pv->p = p;
	pv->yield_ns = p->wait_yield_ns();
	pv->seg = local;
	pv->base = base;
	memset(t, 0, sizeof *t);
	t->ops = &transport_mpi_ops;
	t->rank = local->own_rank;
	t->nranks = local->nranks;
	t->area_size = local->area_size;
	t->priv = pv;
}
