/*
 * shm.c - the shared-memory transport: every rank maps every rank's window
 * area, so put/get are memcpy and notify is one atomic on the peer's cell.
 *
 * Waiting is adaptive (docs/design.md, "notify and wait"): spin with pause
 * while there are no more ranks than CPUs, yield a little while there are
 * at most 4 a CPU, then FUTEX_WAIT on the cell itself.  A waiter announces itself on its board slot (wait_off, then
 * sleeping = 1, both seq_cst) and re-reads the cell before sleeping; a
 * notifier does its seq_cst RMW on the cell and then reads the peer's
 * sleeping flag, so one of the two always sees the other (no lost wake-up)
 * and the fast path of notify makes no system call.
 */
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "futex.h"
#include "seg.h"
#include "shm.h"
#include "transport.h"
#include "xmalloc.h"

struct shm_priv {
	struct seg *seg;
	int spin;   /* pause iterations before yielding */
	int yields; /* sched_yield()s before sleeping */
};

/* A board counter: one writer (this rank), no RMW needed. */
static inline void
count(_Atomic uint64_t *c)
{
	atomic_store_explicit(c,
	    atomic_load_explicit(c, memory_order_relaxed) + 1,
	    memory_order_relaxed);
}

static struct seg *
seg_of(struct transport *t)
{
	return ((struct shm_priv *)t->priv)->seg;
}

static uint8_t *
shm_area(struct transport *t, int r)
{
	return seg_area(seg_of(t), r);
}

static int
shm_notify(struct transport *t, int peer, uint64_t off, int32_t v,
    enum notify_op op)
{
	struct seg *s = seg_of(t);
	_Atomic int32_t *cell = (_Atomic int32_t *)(seg_area(s, peer) + off);
	struct seg_rank *b = seg_board(s, peer);

	if (op == NOTIFY_SET)
		atomic_store(cell, v);
	else
		atomic_fetch_add(cell, v);
	if (atomic_load(&b->sleeping) && atomic_load(&b->wait_off) == off) {
		struct seg_rank *me = seg_board(s, t->rank);

		futex_wake((void *)cell, INT_MAX);
		count(&me->n_wake);
	}
	return 0;
}

/* PTO CPU-sim semantics: poll every 10 us (woken early by a notify); after
 * the limit, give up as if satisfied. */
static int
wait_giveup(struct seg *s, struct seg_rank *b, _Atomic int32_t *cell,
    enum wait_cmp cmp, int32_t expected, int32_t *vp)
{
	uint32_t limit = atomic_load(&s->h->wait_giveup), polls = 0;
	int32_t v;

	for (;;) {
		atomic_store(&b->sleeping, 1);
		v = atomic_load(cell);
		if (wait_cmp_holds(cmp, v, expected))
			break;
		if (atomic_load(&b->interrupt)) {
			atomic_store(&b->sleeping, 0);
			*vp = v;
			return WAIT_INTERRUPTED;
		}
		if (polls++ >= limit) {
			atomic_store(&b->sleeping, 0);
			*vp = v;
			return WAIT_GAVEUP;
		}
		futex_wait((void *)cell, (uint32_t)v, 10000);
	}
	atomic_store(&b->sleeping, 0);
	*vp = v;
	return WAIT_OK;
}

static int
shm_wait(struct transport *t, uint64_t off, enum wait_cmp cmp, int32_t expected,
    int32_t *seen)
{
	struct shm_priv *pv = t->priv;
	struct seg *s = pv->seg;
	struct seg_rank *b = seg_board(s, t->rank);
	_Atomic int32_t *cell = (_Atomic int32_t *)(seg_area(s, t->rank) + off);
	int32_t v = atomic_load_explicit(cell, memory_order_acquire);
	int rc = WAIT_OK;

	if (wait_cmp_holds(cmp, v, expected))
		goto out;
	if (t->nonblock) {
		rc = WAIT_PENDING;
		goto out;
	}
	/* Spin quietly first: a peer a little behind releases us before
	 * anybody needs to see us blocked (no board write, no clock read). */
	for (int i = 0; i < pv->spin; i++) {
		cpu_relax();
		v = atomic_load_explicit(cell, memory_order_acquire);
		if (wait_cmp_holds(cmp, v, expected))
			goto out;
		if ((i & 15) == 15 &&
		    atomic_load_explicit(&b->interrupt, memory_order_relaxed))
			break;
	}
	atomic_store_explicit(&b->wait_off, off, memory_order_relaxed);
	atomic_store_explicit(&b->wait_cmp, (uint32_t)cmp, memory_order_relaxed);
	atomic_store_explicit(&b->wait_expected, expected, memory_order_relaxed);
	transport_before_block(t, 0);
	seg_set_state(b, RS_BLOCKED);
	if (atomic_load(&s->h->wait_giveup) != 0) {
		rc = wait_giveup(s, b, cell, cmp, expected, &v);
		goto woke;
	}
	/* then yield (a rank sharing our CPU may be the one we wait for) */
	for (int i = 0; i < pv->yields; i++) {
		sched_yield();
		count(&b->n_yield);
		v = atomic_load_explicit(cell, memory_order_acquire);
		if (wait_cmp_holds(cmp, v, expected))
			goto woke;
		if (atomic_load_explicit(&b->interrupt, memory_order_relaxed))
			break;
	}
	/* then sleep */
	for (;;) {
		atomic_store(&b->sleeping, 1);
		v = atomic_load(cell);
		if (wait_cmp_holds(cmp, v, expected))
			break;
		if (atomic_load(&b->interrupt)) {
			rc = WAIT_INTERRUPTED;
			break;
		}
		count(&b->n_sleep);
		futex_wait((void *)cell, (uint32_t)v, 0);
		atomic_store(&b->sleeping, 0);
	}
	atomic_store(&b->sleeping, 0);
woke:
	if (rc == WAIT_OK || rc == WAIT_GAVEUP)
		seg_set_state(b, RS_RUNNING);
out:
	*seen = v;
	return rc;
}

static int
shm_put(struct transport *t, int peer, uint64_t dst, const void *src, size_t bytes)
{
	/* a rank's put onto its own window may overlap: memmove */
	memmove(seg_area(seg_of(t), peer) + dst, src, bytes);
	return 0;
}

static int
shm_put_add(struct transport *t, int peer, uint64_t dst, const void *src,
    size_t count, enum dtype dt)
{
	dtype_atomic_add(dt, seg_area(seg_of(t), peer) + dst, src, count);
	return 0;
}

static int
shm_get(struct transport *t, int peer, uint64_t src, void *dst, size_t bytes)
{
	memmove(dst, seg_area(seg_of(t), peer) + src, bytes); /* may overlap */
	return 0;
}

static void
shm_close(struct transport *t)
{
	free(t->priv);
	t->priv = NULL;
}

const struct transport_ops transport_shm_ops = {
	.name = "shm",
	.area = shm_area,
	.notify = shm_notify,
	.wait = shm_wait,
	.put = shm_put,
	.put_add = shm_put_add,
	.get = shm_get,
	.close = shm_close,
};

void
shm_transport_init(struct transport *t, struct seg *s, int rank)
{
	struct shm_priv *pv = xcalloc(1, sizeof *pv);
	int cpus = get_nprocs();

	pv->seg = s;
	/* Spinning only pays when every rank can own a CPU; yielding while
	 * a few share one (the peer we wait for may be the one beside us).
	 * Beyond that a yield mostly hands the CPU to another rank that
	 * cannot go on either: sleep at once (docs/design.md, "Pinning"). */
	pv->spin = s->nranks <= cpus ? 3000 : 0;
	pv->yields = s->nranks <= cpus ? 64 : s->nranks <= 4 * cpus ? 4 : 0;
	memset(t, 0, sizeof *t);
	t->ops = &transport_shm_ops;
	t->rank = rank;
	t->nranks = s->nranks;
	t->area_size = s->area_size;
	t->priv = pv;
}
