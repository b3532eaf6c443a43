/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The text report's owner sections ("Still allocated at the end", "At the peak"), one
 * format for a live run's figures (report_owner.c) and a stored run's (stored_owner.c):
 * each section's heading and total, each site's line and its short stack.
 */
#ifndef HEAPTAP_OWNER_TEXT_H
#define HEAPTAP_OWNER_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "stack_records.h"

/* Sites shown in each section, largest first. */
#define OWNER_TEXT_SITES 10

/* One site as a section shows it. */
struct owner_text_site {
	const struct stack_frame *frames; /* [0] the allocator's entry point, outwards */
	size_t nr;			  /* 0: its stack was not recorded */
	uint64_t blocks, bytes;
	bool outstanding; /* then also: */
	uint64_t requested;
	bool likely_leak;
	double growth_bytes_per_second;
};

/* Frames shown per site (--site-depth; 0 counts as 1). */
void owner_text_set_depth(unsigned frames);
/* "----- TITLE, by allocation site -----" and the section's total. */
void owner_text_heading(FILE *out, const char *title, uint64_t bytes, uint64_t blocks);
/*
 * The site's line, then its short stack: from its innermost frame outside allocator (the
 * library whose frames are skipped; NULL: none) outwards, to main or a thread's start.
 */
void owner_text_site(FILE *out, const struct owner_text_site *s, const char *allocator);
/* The frees of blocks allocated before tracing, when there were any. */
void owner_text_freed_before(FILE *out, uint64_t calls, uint64_t bytes, bool bytes_known);

#endif
