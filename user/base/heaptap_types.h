/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The BPF ABI (include/heaptap.h) for userspace, with its layout checked. */
#ifndef HEAPTAP_TYPES_H
#define HEAPTAP_TYPES_H

#include <linux/types.h>
#include "heaptap.h"

_Static_assert(sizeof(struct ht_call_event) ==
		       HT_CALL_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE +
			       HT_MAX_FRAMES * sizeof(__u64),
	       "ABI: ht_call_event header");
_Static_assert(sizeof(struct ht_custom_event) ==
		       HT_CUSTOM_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE +
			       HT_MAX_FRAMES * sizeof(__u64),
	       "ABI: ht_custom_event header");
_Static_assert(sizeof(struct ht_os_event) ==
		       HT_OS_EVENT_HEADER_SIZE + HT_STACK_HEADER_SIZE +
			       HT_MAX_FRAMES * sizeof(__u64),
	       "ABI: ht_os_event header");
_Static_assert(sizeof(struct ht_libs_event) == 32, "ABI: ht_libs_event");
_Static_assert(sizeof(struct ht_exit_event) == 144, "ABI: ht_exit_event");
_Static_assert(sizeof(struct ht_oom_event) == 56, "ABI: ht_oom_event");
_Static_assert(sizeof(struct ht_hold) == 16, "ABI: ht_hold");
_Static_assert(sizeof(struct ht_hold_control) == 24, "ABI: ht_hold_control");
_Static_assert(sizeof(struct ht_unwind_row) == 16, "ABI: ht_unwind_row");
_Static_assert(sizeof(struct ht_mapping) == 56, "ABI: ht_mapping");
_Static_assert(sizeof(struct ht_unwind_index) == sizeof(struct ht_unwind_row),
	       "ABI: a page index slot is a row slot");

/* Report names of the entry points, in enum ht_func order. */
extern const char *const ht_func_names[HT_NR_FUNCS];

#endif
