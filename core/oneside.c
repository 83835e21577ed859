/* oneside.c - a program run by the shell as a rank; see oneside.h. */
#include <stdlib.h>

#include "exec.h"
#include "oneside.h"
#include "shm.h"

/* A store the shell made for rank r may satisfy the wait it sleeps in:
 * notify wakes its waiter itself, a plain store (set, fill) does not. */
static void
wake_after_fill(struct exec *ex, const struct uop *u, void *arg)
{
	struct seg *sg = arg;
	struct seg_rank *b = seg_board(sg, ex->t->rank);
	uint64_t off = atomic_load(&b->wait_off);

	if (atomic_load(&b->sleeping) && off >= u->dst &&
	    off < u->dst + u->count * dtype_size((enum dtype)u->dtype))
		seg_cell_wake(sg, ex->t->rank, off);
}

int
oneside_check(const struct prog *p, int nranks, uint64_t area_size, char **cause)
{
	if (p->gen != NULL)
		BUG("a described program run by the shell");
	for (size_t i = 0; i < p->nmops; i++) {
		if (exec_check(&p->mops[i], nranks, area_size, p->acc_bytes,
			cause) != 0)
			return -1;
	}
	return 0;
}

int
oneside_run(struct seg *sg, int r, const struct prog *p, char **cause)
{
	struct transport t;
	struct exec ex;
	int rc = -1;

	shm_transport_init(&t, sg, r);
	t.nonblock = 1;
	exec_init(&ex, &t);
	ex.after_op = wake_after_fill;
	ex.after_arg = sg;
	exec_reserve(&ex, p->acc_bytes);
	if (oneside_check(p, (int)sg->h->nranks, sg->area_size, cause) != 0)
		goto out;
	for (size_t i = 0; i < p->nmops; i++) {
		int32_t seen;
		int x = exec_uop(&ex, &p->mops[i], &seen, cause);

		if (x == EXEC_PENDING) {
			cause_set(cause, "the shell cannot wait for rank %d", r);
			goto out;
		}
		if (x != EXEC_OK)
			goto out;
	}
	rc = 0;
out:
	exec_release(&ex);
	t.ops->close(&t);
	return rc;
}
