/*
 * mpi.h - the mpi transport (mpi.c) over a loaded MPI plugin.
 * mpi_transport_init() binds t to the rank's own segment `local` (made by
 * seg_create_local(); it gives the rank and the sizes) and to its window
 * at base; both must outlive the transport; release with t->ops->close(t)
 * (the window and MPI stay: the plugin's finalize() ends them).
 */
#ifndef COLLDB_MPI_H
#define COLLDB_MPI_H

#include <stdint.h>

#include "mpi-plugin.h"
#include "seg.h"
#include "transport.h"

void mpi_transport_init(struct transport *t, const struct mpi_plugin *p,
    struct seg *local, uint8_t *base);

#endif
