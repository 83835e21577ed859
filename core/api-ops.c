/*
 * api-ops.c - libcolldb's operations: notify, wait, put, get and the
 * collectives, each checked, built as a program and run by api_run().
 */
#define CDB_NO_LOCATION
#include <stdlib.h>
#include <string.h>

#include "api-int.h"
#include "colldb.h"

static int
peer_ok(struct rank_ctx *rc, const char *what, int peer)
{
	if (peer < 0 || peer >= rc->seg.nranks)
		return api_fail(CDB_ERR_ARG,
		    "%s %d out of range (world has %d ranks)", what, peer,
		    rc->seg.nranks);
	return CDB_OK;
}

/* An i32 cell: the window and its byte offset. */
static int
cell_ok(struct rank_ctx *rc, const void *cell, uint64_t *off)
{
	struct seg_window *w;
	int err = api_region(rc, "cell", cell, 1, &w, off);

	if (err == CDB_OK && w->dtype != DT_I32)
		err = api_fail(CDB_ERR_SHAPE,
		    "cell is in '%s', which is %s; signal cells must be i32",
		    w->name,
		    w->flags & WIN_BYTES ? "untyped bytes" :
					   dtype_name((enum dtype)w->dtype));
	return err;
}

int
cdb_notify(int peer, int32_t *cell, int32_t value, enum cdb_notify_op op)
{
	API_BEGIN(rc, "cdb_notify");
	struct uop u;
	uint64_t off;
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if ((err = peer_ok(rc, "peer", peer)) != CDB_OK ||
	    (err = cell_ok(rc, cell, &off)) != CDB_OK)
		return err;
	if (op != CDB_ADD && op != CDB_SET)
		return api_fail(CDB_ERR_ARG,
		    "bad notify op %d (CDB_ADD or CDB_SET)", (int)op);
	memset(&u, 0, sizeof u);
	u.kind = UOP_NOTIFY;
	u.dtype = DT_I32;
	u.op = (uint8_t)op;
	u.peer = peer;
	u.value = value;
	u.dst = off;
	u.count = 1;
	return api_run_op(rc, &u);
}

int
cdb_wait(const int32_t *cell, enum cdb_cmp cmp, int32_t expected)
{
	API_BEGIN(rc, "cdb_wait");
	struct uop u;
	uint64_t off;
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if ((err = cell_ok(rc, cell, &off)) != CDB_OK)
		return err;
	if (cmp != CDB_EQ && cmp != CDB_GE)
		return api_fail(CDB_ERR_ARG,
		    "bad comparison %d (CDB_EQ or CDB_GE)", (int)cmp);
	memset(&u, 0, sizeof u);
	u.kind = UOP_WAIT;
	u.dtype = DT_I32;
	u.op = (uint8_t)cmp;
	u.value = expected;
	u.dst = off;
	u.count = 1;
	return api_run_op(rc, &u);
}

static int
xfer(const char *fn, enum uop_kind kind, void *dst, int peer, const void *src,
    size_t count, unsigned flags)
{
	API_BEGIN(rc, fn);
	struct seg_window *wd, *ws;
	struct uop u;
	uint64_t doff, soff;
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if ((err = peer_ok(rc, "peer", peer)) != CDB_OK ||
	    (err = api_region(rc, "dst", dst, count, &wd, &doff)) != CDB_OK ||
	    (err = api_region(rc, "src", src, count, &ws, &soff)) != CDB_OK)
		return err;
	if (flags & ~CDB_PUT_ADD)
		return api_fail(CDB_ERR_ARG,
		    "unknown flags 0x%x (CDB_PUT_ADD only)",
		    flags & ~CDB_PUT_ADD);
	if (wd->dtype != ws->dtype)
		return api_fail(CDB_ERR_SHAPE,
		    "dtype mismatch: dst is in '%s' (%s), src in '%s' (%s)",
		    wd->name, dtype_name((enum dtype)wd->dtype), ws->name,
		    dtype_name((enum dtype)ws->dtype));
	if ((flags & CDB_PUT_ADD) && !dtype_atomic_add_ok((enum dtype)wd->dtype))
		return api_fail(CDB_ERR_SHAPE,
		    "CDB_PUT_ADD needs f32, f16, bf16, i32, i16 or i8; '%s' is %s",
		    wd->name, dtype_name((enum dtype)wd->dtype));
	if (count == 0)
		return CDB_OK;
	memset(&u, 0, sizeof u);
	u.kind = (uint8_t)kind;
	u.dtype = wd->dtype;
	u.op = flags & CDB_PUT_ADD ? ATOMIC_ADD : ATOMIC_NONE;
	u.peer = peer;
	u.dst = doff;
	u.src = soff;
	u.count = count;
	return api_run_op(rc, &u);
}

int
cdb_put(void *dst, int peer, const void *src, size_t count, unsigned flags)
{
	return xfer("cdb_put", UOP_PUT, dst, peer, src, count, flags);
}

int
cdb_get(void *dst, int peer, const void *src, size_t count)
{
	return xfer("cdb_get", UOP_GET, dst, peer, src, count, 0);
}

/* ---- collectives -------------------------------------------------------------- */

/* ptr must be the start of a window: describe it in ref. */
static int
whole(struct rank_ctx *rc, const char *what, const void *ptr, struct win_ref *ref)
{
	struct seg_window *w;
	uint64_t off;
	int err = api_region(rc, what, ptr, 0, &w, &off);

	if (err != CDB_OK)
		return err;
	if (off != w->off)
		return api_fail(CDB_ERR_WINDOW,
		    "%s must be the start of a window ('%s' starts %llu bytes earlier)",
		    what, w->name, (unsigned long long)(off - w->off));
	seg_win_ref(w, ref);
	return CDB_OK;
}

static int
coll_run(struct rank_ctx *rc, struct coll_args *a, unsigned flags,
    unsigned allowed)
{
	enum coll_arg bad;
	char *cause = NULL;
	int nranks = rc->seg.nranks, err;

	if (flags & ~allowed)
		return api_fail(CDB_ERR_ARG, "unknown flags 0x%x%s",
		    flags & ~allowed,
		    (flags & ~allowed & CDB_RING) ?
			" (CDB_RING is for cdb_allreduce)" :
			"");
	a->impl = flags & CDB_BUILTIN ? IMPL_BUILTIN : IMPL_COMPOSITE;
	a->strict = !(flags & CDB_LOOSE);
	a->has_sig = true;
	if (coll_validate(a, nranks, &cause, &bad) != 0) {
		err = api_fail(CDB_ERR_SHAPE, "%s", cause);
		free(cause);
		return err;
	}
	return api_run(rc, coll_build(a, nranks, rc->rank), a);
}

static int
reduce_ok(enum cdb_reduce op)
{
	if ((unsigned)op > CDB_PROD)
		return api_fail(CDB_ERR_ARG,
		    "bad reduce op %d (CDB_SUM, CDB_MAX, CDB_MIN or CDB_PROD)",
		    (int)op);
	return CDB_OK;
}

/* allreduce and reduce_scatter: one buffer reduced in place */
static int
reducing(const char *fn, enum coll_kind kind, void *buf, int32_t *sig,
    enum cdb_reduce op, unsigned flags, unsigned allowed)
{
	API_BEGIN(rc, fn);
	struct coll_args a = { .kind = kind };
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if ((err = whole(rc, "buf", buf, &a.buf)) != CDB_OK ||
	    (err = whole(rc, "sig", sig, &a.sig)) != CDB_OK ||
	    (err = reduce_ok(op)) != CDB_OK)
		return err;
	a.op = (enum reduce_op)op;
	a.mode = flags & CDB_RING ? MODE_RING : MODE_MESH;
	return coll_run(rc, &a, flags, allowed);
}

int
cdb_allreduce(void *buf, int32_t *sig, enum cdb_reduce op, unsigned flags)
{
	return reducing("cdb_allreduce", COLL_ALLREDUCE, buf, sig, op, flags,
	    CDB_RING | CDB_BUILTIN | CDB_LOOSE);
}

int
cdb_barrier(int32_t *sig, unsigned flags)
{
	API_BEGIN(rc, "cdb_barrier");
	struct coll_args a = { .kind = COLL_BARRIER };
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if ((err = whole(rc, "sig", sig, &a.sig)) != CDB_OK)
		return err;
	return coll_run(rc, &a, flags, CDB_BUILTIN | CDB_LOOSE);
}

int
cdb_broadcast(void *buf, int32_t *sig, int root, unsigned flags)
{
	API_BEGIN(rc, "cdb_broadcast");
	struct coll_args a = { .kind = COLL_BROADCAST, .root = root };
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if ((err = whole(rc, "buf", buf, &a.buf)) != CDB_OK ||
	    (err = whole(rc, "sig", sig, &a.sig)) != CDB_OK ||
	    (err = peer_ok(rc, "root", root)) != CDB_OK)
		return err;
	return coll_run(rc, &a, flags, CDB_BUILTIN | CDB_LOOSE);
}

static int
two_window(const char *fn, enum coll_kind kind, const void *src, void *dst,
    int32_t *sig, unsigned flags)
{
	API_BEGIN(rc, fn);
	struct coll_args a = { .kind = kind };
	int err;

	if (rc == NULL)
		return CDB_ERR_INIT;
	if ((err = whole(rc, "src", src, &a.src)) != CDB_OK ||
	    (err = whole(rc, "dst", dst, &a.buf)) != CDB_OK ||
	    (err = whole(rc, "sig", sig, &a.sig)) != CDB_OK)
		return err;
	return coll_run(rc, &a, flags, CDB_BUILTIN | CDB_LOOSE);
}

int
cdb_allgather(const void *src, void *dst, int32_t *sig, unsigned flags)
{
	return two_window("cdb_allgather", COLL_ALLGATHER, src, dst, sig, flags);
}

int
cdb_all_to_all(const void *src, void *dst, int32_t *sig, unsigned flags)
{
	return two_window("cdb_all_to_all", COLL_ALL_TO_ALL, src, dst, sig,
	    flags);
}

int
cdb_reduce_scatter(void *buf, int32_t *sig, enum cdb_reduce op, unsigned flags)
{
	return reducing("cdb_reduce_scatter", COLL_REDUCE_SCATTER, buf, sig, op,
	    flags, CDB_BUILTIN | CDB_LOOSE);
}
