// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "report_read.h"

/* How many processes a report holds (its cut fields are counted in that order). */
static size_t processes_in(json_object *root)
{
	json_object *list = NULL;

	return json_object_object_get_ex(root, "processes", &list) &&
			       json_object_is_type(list, json_type_array) ?
		       json_object_array_length(list) :
		       0;
}

json_object *report_parse_last(char *text, size_t size, const char *name, const char *keep,
			       const char *const drop[], const char *give, struct report_cut *cut,
			       size_t *first)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *last = NULL, *o;
	size_t at = 0, before = 0;
	int err = !tok ? -ENOMEM : 0;
	bool whole = true;

	if (!err)
		err = report_scan__cut(text, size, keep, drop, cut);
	if (err || size > INT32_MAX) {
		log_error("cannot read %s: %s", name, err ? strerror(-err) : "over 2 GB");
		goto cleanup;
	}
	while (at < size) {
		at += strspn(text + at, " \t\r\n");
		if (at == size)
			break;
		json_tokener_reset(tok);
		if (!(o = json_tokener_parse_ex(tok, text + at, (int)(size - at)))) {
			whole = false;
			break;
		}
		if (last)
			before += processes_in(last);
		json_object_put(last);
		last = o;
		if (first)
			*first = before;
		at += json_tokener_get_parse_end(tok);
	}
	if (!last && size)
		log_error("cannot read %s: not JSON, or cut short: give %s", name, give);
	else if (!last)
		log_error("cannot read %s: empty", name);
	else if (!whole)
		log_info("%s: its last snapshot is cut short; the one before it is reported", name);
cleanup:
	json_tokener_free(tok);
	return last;
}

json_object *report_read_last(const char *path, const char *keep, const char *const drop[],
			      const char *give, struct report_cut *cut, size_t *first)
{
	size_t size = 0;
	char *text = report_scan__slurp(path, &size);
	json_object *root;

	if (!text) {
		log_error("cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	root = report_parse_last(text, size, path, keep, drop, give, cut, first);
	free(text);
	return root;
}
