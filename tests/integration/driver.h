/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Drive the real heaptap binary as a user would, and compare its JSON with the truth
 * the traced programs record about themselves.
 */
#ifndef HEAPTAP_TEST_DRIVER_H
#define HEAPTAP_TEST_DRIVER_H

#include <stdbool.h>
#include <sys/types.h>
#include <json-c/json.h>

/* Skip the calling test unless it can load BPF. */
void require_bpf(void);

/* $HEAPTAP, and $TARGETS/name. */
const char *heaptap_path(void);
const char *target_path(const char *name, char *buf, size_t size);
/* A fresh scratch directory for this test; files in it by name. */
const char *scratch_dir(void);
const char *scratch_file(const char *name, char *buf, size_t size);
/* The same, made a directory (one that exists already will do). */
const char *scratch_subdir(const char *name, char *buf, size_t size);

/* Start argv with stdout and stderr in files (NULL: /dev/null). */
pid_t spawn(char *const argv[], const char *out, const char *err);
/* The same with RLIMIT_NOFILE's soft and hard limits set to nofile first (ulimit -n). */
pid_t spawn_limited(char *const argv[], const char *out, const char *err, long nofile);
/*
 * The same, started on pid `want` (through ns_last_pid, retrying while others take it):
 * a process that reuses an exited one's pid. -1 if the pid could not be had.
 */
pid_t spawn_at_pid(pid_t want, char *const argv[], const char *out, const char *err);
/* Its exit status (128+N for signal N), or -1 after timeout_s (it is killed). */
int wait_status(pid_t pid, int timeout_s);
/* Wait until file contains text. */
bool wait_for_text(const char *file, const char *text, int timeout_s);/*
 * Wait until heaptap (tracer) says on err that it attached to target; else kill target,
 * reap tracer and fail the test.
 */
void expect_attached(pid_t tracer, pid_t target, const char *err);
/* What a program counted of its own calls. */
struct printed_calls {
	long malloc, calloc, realloc, free;
};

/*
 * The line "LABEL malloc N calloc N realloc N free N" the program printed; fails the test
 * if there is none, or if it made no calls.
 */
struct printed_calls printed_calls_of(const char *output, const char *label);
/* An entry of heaptap's report: its calls of one entry point. */
long calls_of(json_object *entry, const char *name);
/* How many lines of text contain a, and b unless NULL. */
int lines_with(const char *text, const char *a, const char *b);
/* The same, but gives up (false) as soon as pid is gone or a zombie. */
bool wait_for_text_while(const char *file, const char *text, pid_t pid, int timeout_s);
/* The whole file, malloc'ed, or NULL. */
char *slurp(const char *path);
/* How many times text occurs in the file. */
size_t count_text(const char *file, const char *text);

/* CLOCK_MONOTONIC in seconds (the clock the targets' own logs use), and a pause. */
double now_s(void);
void sleep_ms(int ms);

/* Parse a JSON file; fails the test if it cannot. */
json_object *load_json(const char *path);
json_object *get(json_object *o, const char *key);
/* The key's value, or NULL when it is absent (a field older heaptaps do not write). */
json_object *get_opt(json_object *o, const char *key);
/* The key's boolean value; false when it is absent. */
bool json_flag(json_object *o, const char *key);
/* The entries of the report's processes[] with this pid (a pid's images, reused pids). */
size_t processes_of(json_object *report, pid_t pid, json_object **out, size_t max);
/* The element of array whose key has the integer value / string value. */
json_object *find_by_int(json_object *array, const char *key, long long value);
json_object *find_by_str(json_object *array, const char *key, const char *value);
/* The element of heaptap's functions[] named function whose library ends in suffix. */
json_object *find_function(json_object *functions, const char *function, const char *suffix);

/* Assert that got has the truth's value for each of the given balance fields. */
void assert_fields(json_object *got, json_object *truth, const char *const fields[],
		   const char *what);

/*
 * Assert that got has the truth's value for each of the given balance fields (a
 * NULL-terminated list of "current", "min", "max", "requested") and every call count.
 */
void assert_balance(json_object *got, json_object *truth, const char *const fields[],
		    const char *what);

/*
 * Assert that every thread of the truth (truth_threads[]) appears in the report's
 * threads[] by tid, with its name, every balance field and every call count equal.
 */
void assert_threads(json_object *threads, json_object *truth_threads, const char *label);

/*
 * Assert that every function of the truth (truth_functions[]) appears in the report's
 * functions[] under libgt.so with every balance field and call count equal. label
 * prefixes the messages.
 */
void assert_libgt_functions(json_object *functions, json_object *truth_functions,
			    const char *label);
/* Assert that the process's libgt.so row has the truth's "library" balance in fields[]. */
void assert_libgt_library(json_object *process, json_object *truth, const char *const fields[],
			  const char *label);

#endif
