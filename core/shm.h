/*
 * shm.h - the shared-memory transport over a session segment.
 * shm_transport_init() binds t to segment s as rank `rank`; the segment
 * must outlive the transport; release with t->ops->close(t).
 */
#ifndef COLLDB_SHM_H
#define COLLDB_SHM_H

#include "seg.h"
#include "transport.h"

void shm_transport_init(struct transport *t, struct seg *s, int rank);

#endif
