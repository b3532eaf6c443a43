// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include "log.h"
#include "profile_files.h"
#include "profile_pprof.h"

/*
 * Write one export into rf and close it; says why in one line when it cannot. Without the
 * figures it needs the file is left as it was (removed if heaptap created it).
 */
static int write_one(struct report_file *rf, const char *option, const char *figures,
		     bool has_figures,
		     int (*write)(FILE *f, const struct heap_profile *p, enum folded_weight w),
		     const struct heap_profile *p, enum folded_weight w)
{
	FILE *f = has_figures ? report_file__begin(rf) : NULL;
	int err = !has_figures ? -ENODATA : f ? write(f, p, w) : -errno;

	if (report_file__close(rf) && !err)
		err = -EIO;
	if (err == -ENODATA)
		log_error("cannot write %s %s: no process has %s figures (stored by a heaptap "
			  "that did not keep them?)", option, rf->path, figures);
	else if (err)
		log_error("cannot write %s %s: %s", option, rf->path, strerror(-err));
	return err ? -1 : 0;
}

static int write_pprof(FILE *f, const struct heap_profile *p, enum folded_weight w)
{
	(void)w;
	return profile_write_pprof(f, p);
}

int profile_write_files(const struct heap_profile *p, struct report_file *pprof,
			struct report_file *folded, enum folded_weight weight)
{
	unsigned int known = heap_profile__known(p);
	int status = 0;

	if (pprof->f && write_one(pprof, "--pprof", "allocated, outstanding or peak", known != 0,
				  write_pprof, p, weight))
		status = -1;
	if (folded->f && write_one(folded, "--folded", folded_weight_name(weight),
				   known & PROFILE_VALUE(folded_weight_value(weight)),
				   profile_write_folded, p, weight))
		status = -1;
	return status;
}
