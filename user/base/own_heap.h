/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * heaptap's own heap in transparent huge pages. Tracing an MPI job's start, heaptap
 * allocates ~60 MB in small pieces (stack records, call trees, caches of named stacks);
 * faulting that in 4 KiB at a time costs a tenth of its CPU where page faults are dear (a
 * virtual machine: ~16,000 faults of ~15 µs). The heap is grown once by a large span of
 * address space (only what is touched is memory) and that span is advised huge pages,
 * as glibc's own glibc.malloc.hugetlb tunable would, which only the environment can set.
 */
#ifndef HEAPTAP_OWN_HEAP_H
#define HEAPTAP_OWN_HEAP_H

/* Before heaptap allocates much. Where huge pages are off, only the span is made. */
void own_heap_in_huge_pages(void);

#endif
