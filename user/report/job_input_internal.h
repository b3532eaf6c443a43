/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What job_input.c, job_input_json.c and job_input_db.c share. */
#ifndef HEAPTAP_JOB_INPUT_INTERNAL_H
#define HEAPTAP_JOB_INPUT_INTERNAL_H

#include "job_input.h"

/*
 * The processes of a report (schema "heaptap": 1 or 2, checked) into j; source names the
 * file. 0, or -errno after one logged line.
 */
int job_input_add_report(struct job *j, json_object *root, const char *source);
/* Free what a rank holds and zero it. */
void job_rank__clear(struct job_rank *r);
/* Run run_id (0: the newest) of the database at path into j. 0, or -errno after one line. */
int job_input_read_db(struct job *j, const char *path, int64_t run_id);

#endif
