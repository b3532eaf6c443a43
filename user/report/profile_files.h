/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The files --pprof and --folded name, written from one heap profile by run, attach, report. */
#ifndef HEAPTAP_PROFILE_FILES_H
#define HEAPTAP_PROFILE_FILES_H

#include "heap_profile.h"
#include "profile_folded.h"
#include "report.h"

/*
 * Write p into whichever of the two files is open, and close them. -1 after one line for
 * each file that could not be written (saying what it lacks, or why), else 0.
 */
int profile_write_files(const struct heap_profile *p, struct report_file *pprof,
			struct report_file *folded, enum folded_weight weight);

#endif
