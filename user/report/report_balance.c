// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A balance as the schema's BAL: what the process, thread, library, function and
 * allocator sections of the JSON report share.
 */
#include <json-c/json.h>
#include "report.h"

void report_json_balance(json_object *o, const struct balance *b)
{
	json_object *calls = json_object_new_object();

	json_object_object_add(o, "current", json_object_new_int64(b->current));
	json_object_object_add(o, "min", json_object_new_int64(b->min));
	json_object_object_add(o, "max", json_object_new_int64(b->max));
	json_object_object_add(o, "requested", json_object_new_uint64(b->requested));
	for (int f = 0; f < HT_NR_FUNCS; f++)
		json_object_object_add(calls, ht_func_names[f], json_object_new_uint64(b->calls[f]));
	json_object_object_add(o, "calls", calls);
}
