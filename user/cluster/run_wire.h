/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Balances, processes and runs between their wire form and the report writers' structs. */
#ifndef HEAPTAP_RUN_WIRE_H
#define HEAPTAP_RUN_WIRE_H

#include "accountant.h"
#include "arena.h"
#include "heaptap.pb-c.h"
#include "run_view.h"

Heaptap__Balance *wire_balance(struct arena *a, const struct balance *b);
void balance_from_wire(const Heaptap__Balance *w, struct balance *b);
/* Who a target is: pid, MPI identity, command, allocator. NULL when out of memory. */
Heaptap__Identity *wire_identity(struct arena *a, const struct target *t);
/* A target's groups into p (every one of them). 0 or -ENOMEM. */
int wire_groups(struct arena *a, const struct process_stats *ps, Heaptap__Process *p);

/* The run as a RunView, in a's memory. NULL when out of memory. */
Heaptap__RunView *run_wire__encode(struct arena *a, const struct run_view *v);
/* A collector's RunView into v (emptied first). 0 or -ENOMEM. */
int run_wire__decode(const Heaptap__RunView *rv, struct run_view *v);

#endif
