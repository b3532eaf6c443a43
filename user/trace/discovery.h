/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --mpi without a command: every MPI rank on this node. Running ranks are attached to;
 * MPI launchers (mpirun, orted, hydra_pmi_proxy, slurmstepd...) are followed, so that the
 * ranks they start later are traced from their first instruction.
 */
#ifndef HEAPTAP_DISCOVERY_H
#define HEAPTAP_DISCOVERY_H

#include "session.h"

/* Watch for launchers as they start, and take in what runs now. 0 or -errno. */
int discovery_start(struct session *s);
/* Take in ranks and launchers that appeared some other way (a launcher on another node
 * starting ranks here through ssh). Cheap enough to call every second. */
void discovery_rescan(struct session *s);

#endif
