/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A report's text cut before json-c parses it: json-c makes an object of every value, and a
 * rank's call tree alone is tens of thousands of them. A scan of the text finds each
 * process's fields (root, processes, process: depth 3), makes null those a reader does not
 * read, and keeps aside the text of the one it reads by hand (the call tree's rows).
 */
#ifndef HEAPTAP_REPORT_SCAN_H
#define HEAPTAP_REPORT_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* The whole file, NUL-terminated; NULL with errno. */
char *report_scan__slurp(const char *path, size_t *size);

struct report_cut {
	char **kept; /* per process, in order: the text of its field keep, or NULL */
	size_t nr;
};

/*
 * Every process's field keep copied into out and made null in text, and each field of a
 * process or of the root named in drop (NULL-terminated, may be NULL) made null. 0 or
 * -ENOMEM.
 */
int report_scan__cut(char *text, size_t size, const char *keep, const char *const drop[],
		     struct report_cut *out);
void report_cut__clear(struct report_cut *c);

/*
 * The next row of a list of rows of whole numbers ("[[1,2],[3,4]]"): *at starts at the
 * list's '[' (then the first row) or after a row. 1 with the row's numbers in v (at most
 * max; *nr of them), 0 at the list's end, -EINVAL when the text is not such a list.
 */
int report_scan__row(const char *text, size_t *at, int64_t *v, size_t max, size_t *nr);

#endif
