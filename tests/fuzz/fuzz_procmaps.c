// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* /proc/PID/maps parsing: lines of start-end perms offset major:minor inode [path]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "procmaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct procmaps pm;

	if (!text)
		return 0;
	/* procfs_read hands the parser a NUL-terminated copy of the file. */
	memcpy(text, data, size);
	text[size] = '\0';
	if (procmaps__parse(text, &pm) == 0) {
		for (size_t i = 0; i < pm.nr; i++) {
			const struct mapping *m = &pm.maps[i];

			/* Lookups at each mapping's edges, whatever the text said they are. */
			(void)strlen(m->path);
			procmaps__find(&pm, m->start);
			procmaps__find(&pm, m->end - 1);
		}
		procmaps__find(&pm, 0);
		procmaps__find(&pm, UINT64_MAX);
		procmaps__clear(&pm);
	}
	free(text);
	return 0;
}
