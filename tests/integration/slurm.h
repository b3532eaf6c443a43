/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A one-node Slurm cluster for a test (tests/integration/slurm_cluster.sh). */
#ifndef HEAPTAP_TEST_SLURM_H
#define HEAPTAP_TEST_SLURM_H

#include <stddef.h>

/*
 * Start it in the test's scratch directory on two free ports of 127.0.0.1 and wait until
 * its node is idle; SLURM_CONF is then set for the programs the test starts. Fails the
 * test with the one line that says why it could not start.
 */
void slurm_start(void);
/*
 * munged alone, as the cluster has it (its own key, its socket in a directory of its own
 * under /tmp): the socket's path into socket. Fails the test with the one line that says
 * why it could not start. slurm_stop() stops it.
 */
void munge_start(char *socket, size_t size);
/* Cancel its jobs and stop its daemons (nothing if it was not started). */
void slurm_stop(void);
/*
 * Allocate tasks (salloc --no-shell, overcommitting the node's CPUs): the job id, for
 * srun --jobid. Fails the test if Slurm does not grant it.
 */
int slurm_allocate(int tasks);

#endif
