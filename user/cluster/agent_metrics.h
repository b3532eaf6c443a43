/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * An agent's own /metrics (agent --metrics): its traced processes' figures, under the
 * collector's names and labels, for a Prometheus that scrapes the nodes themselves.
 */
#ifndef HEAPTAP_AGENT_METRICS_H
#define HEAPTAP_AGENT_METRICS_H

#include "metrics.h"
#include "session.h"

/* Bring m up to date with every traced process of s; ended ones leave it. */
void agent_metrics__update(struct metrics *m, struct session *s, const char *host);

#endif
