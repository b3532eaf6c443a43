/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Bytes heaptap may keep for what it reads from a target's files: a limit per file and one
 * for all files together. Every file a target maps is the target user's to craft; without
 * these, a program mapping thousands of libraries, or one with a huge .eh_frame or symbol
 * table, would make heaptap's memory grow as it pleases. A file that does not fit is
 * skipped (and said so), never half-read.
 */
#ifndef HEAPTAP_BUDGET_H
#define HEAPTAP_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Unwind tables (--table-budget): a real MPI rank maps about 75 files whose rows take 2.6
 * MiB (libc 442 KiB, libpmix 410 KiB, libmpi 330 KiB); the largest file here, libLLVM-15,
 * takes 15.3 MiB, and a libxul-sized library about twice that. The total sizes the BPF row
 * map, preallocated in kernel memory.
 */
#define TABLE_BUDGET_FILE (32ULL << 20)
#define TABLE_BUDGET_TOTAL (64ULL << 20)
/* The BPF unwinder's binary search covers 2^24 rows of 16 bytes. */
#define TABLE_BUDGET_MAX (256ULL << 20)
/* Call trees of processes that ended, kept for the report (session.h). */
#define TREE_BUDGET_ENDED (64ULL << 20)
#define TREE_BUDGET_MAX (64ULL << 30)
/*
 * Symbols and call sites (--symbol-budget): the same MPI job's files take 1.3 MiB, libc's
 * debug symbols included; node, the largest program here, 17 MiB (libLLVM-15 alone 8).
 * What one file keeps stays until heaptap exits, whatever number of processes map it.
 */
#define SYMBOL_BUDGET_FILE (64ULL << 20)
#define SYMBOL_BUDGET_TOTAL (256ULL << 20)
#define SYMBOL_BUDGET_MAX (1ULL << 40)

struct budget_limits {
	uint64_t per_file; /* bytes one file may take */
	uint64_t total;	   /* bytes all files together may take */
};

/* Which limit refused a file. */
enum budget_verdict {
	BUDGET_OK,
	BUDGET_FILE,  /* the file alone is larger than the per-file limit */
	BUDGET_TOTAL, /* what is left of the total is too small for it */
};

struct budget {
	struct budget_limits limits;
	uint64_t used;		 /* bytes taken now, by every file */
	uint64_t files_refused;	 /* files that did not get all they needed */
};

/* Bytes a file that already holds `held` may still take (0: none). */
uint64_t budget__room(const struct budget *b, uint64_t held);
/* Which limit, if any, a file holding `held` would exceed by taking `bytes` more. */
enum budget_verdict budget__check(const struct budget *b, uint64_t held, uint64_t bytes);
/*
 * Take bytes for a file holding *held: BUDGET_OK, *held and the budget's use grown; or the
 * limit it would exceed, nothing taken.
 */
enum budget_verdict budget__take(struct budget *b, uint64_t *held, uint64_t bytes);
/* Give back bytes a file held (at most what it holds). */
void budget__give_back(struct budget *b, uint64_t *held, uint64_t bytes);
/*
 * Which limit set the room of a file holding `held` (budget__room): the one a refusal is
 * blamed on.
 */
enum budget_verdict budget__why(const struct budget *b, uint64_t held);
/* "per-file budget" / "total budget" (NULL for BUDGET_OK). */
const char *budget_verdict_name(enum budget_verdict v);

/*
 * bytes as the options write sizes: "64M" when exact, else "1.5M", "12.3K", "100" (bytes).
 * Returns buf.
 */
const char *budget_size_text(uint64_t bytes, char *buf, size_t size);
/*
 * A size: digits with an optional K, M or G (powers of 1024), e.g. 512K, 64M. 0, -EINVAL
 * for anything else, -ERANGE beyond max.
 */
int budget_size_parse(const char *s, size_t len, uint64_t max, uint64_t *out);
/*
 * "PER_FILE[,TOTAL]" or ",TOTAL": sizes greater than 0 and at most max; what is left out
 * keeps its value in *out. 0, -EINVAL or -ERANGE; *out unchanged then.
 */
int budget_limits_parse(const char *arg, uint64_t max, struct budget_limits *out);

#endif
