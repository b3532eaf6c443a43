// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A stored report's outstanding, peak and allocated lists read into a heap profile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/redirect.h>
#include "heap_profile.h"
#include "report_input.h"

TestSuite(profile_input);

#define BAL                                                                                  \
	"\"current\": 0, \"min\": 0, \"max\": 0, \"requested\": 0, \"calls\": {}"
#define LEAK_FRAMES                                                                          \
	"[ {\"function\": \"malloc\", \"library\": \"/lib/libc.so.6\"},"                        \
	"  {\"function\": \"leaf\", \"library\": \"/app\", \"file\": \"a.c\", \"line\": 5,"     \
	"   \"inlined\": true},"                                                               \
	"  {\"function\": \"main\", \"library\": \"/app\", \"file\": \"a.c\", \"line\": 9} ]"
#define FREED_FRAMES                                                                         \
	"[ {\"function\": \"calloc\", \"library\": \"/lib/libc.so.6\"},"                        \
	"  {\"function\": \"main\", \"library\": \"/app\"} ]"

/* Two ranks: rank 0 leaks 3 blocks of its 5 at leaf; rank 1 allocated once and freed it. */
static const char report[] =
	"{ \"heaptap\": 1, \"attribution\": \"entry\", \"processes\": ["
	"{ \"pid\": 100, \"rank\": 0, \"world_size\": 2, \"command\": \"./app\", \"total\": {" BAL "},"
	"  \"allocated\": [ {\"frames\": " LEAK_FRAMES ", \"blocks\": 5, \"bytes\": 5000},"
	"                   {\"frames\": " FREED_FRAMES ", \"blocks\": 2, \"bytes\": 64} ],"
	"  \"outstanding\": [ {\"frames\": " LEAK_FRAMES ", \"blocks\": 3, \"bytes\": 3000,"
	"                     \"requested\": 2990, \"likely_leak\": true,"
	"                     \"growth_bytes_per_second\": 12.5} ],"
	"  \"peak\": { \"bytes\": 5064, \"blocks\": 7, \"sites\": ["
	"     {\"frames\": " LEAK_FRAMES ", \"blocks\": 5, \"bytes\": 5000},"
	"     {\"frames\": " FREED_FRAMES ", \"blocks\": 2, \"bytes\": 64} ] } },"
	"{ \"pid\": 101, \"rank\": 1, \"world_size\": 2, \"command\": \"./app\", \"total\": {" BAL "},"
	"  \"allocated\": [ {\"frames\": " FREED_FRAMES ", \"blocks\": 1, \"bytes\": 32} ],"
	"  \"outstanding\": [], \"peak\": { \"bytes\": 32, \"blocks\": 1, \"sites\": ["
	"     {\"frames\": " FREED_FRAMES ", \"blocks\": 1, \"bytes\": 32} ] } } ] }";

static char *write_temp(const char *text)
{
	char *path = strdup("/tmp/heaptap-profile-input-XXXXXX");
	int fd = mkstemp(path);

	cr_assert(ge(int, fd, 0));
	cr_assert(eq(sz, (size_t)write(fd, text, strlen(text)), strlen(text)));
	close(fd);
	return path;
}

static void assert_values(const struct profile_sample *s, int64_t ab, int64_t aB, int64_t ib,
			  int64_t iB, int64_t pb, int64_t pB)
{
	cr_assert(eq(i64, s->values[PROFILE_ALLOC_BLOCKS], ab));
	cr_assert(eq(i64, s->values[PROFILE_ALLOC_BYTES], aB));
	cr_assert(eq(i64, s->values[PROFILE_INUSE_BLOCKS], ib));
	cr_assert(eq(i64, s->values[PROFILE_INUSE_BYTES], iB));
	cr_assert(eq(i64, s->values[PROFILE_PEAK_BLOCKS], pb));
	cr_assert(eq(i64, s->values[PROFILE_PEAK_BYTES], pB));
}

Test(profile_input, lists_meet_in_one_sample_per_stack_and_process)
{
	char *path = write_temp(report);
	const struct profile_sample *const *s;
	struct loaded_report r;

	cr_assert(eq(int, loaded_report__read_json_with_profile(path, &r), 0));
	cr_assert(eq(sz, r.nr, 2));
	cr_assert(eq(sz, heap_profile__samples(r.profile, &s), 3));
	cr_assert(eq(int, s[0]->labels.pid, 100));
	cr_assert(eq(int, s[0]->labels.rank, 0));
	cr_assert(eq(int, s[0]->labels.tid, 0));
	cr_assert(eq(sz, s[0]->nr, 3));
	cr_assert(eq(str, (char *)s[0]->frames[1].function, "leaf"));
	cr_assert(eq(str, (char *)s[0]->frames[1].file, "a.c"));
	cr_assert(eq(int, s[0]->frames[1].line, 5));
	cr_assert(s[0]->frames[1].inlined);
	cr_assert(not(s[0]->frames[2].inlined));
	cr_assert(eq(str, (char *)s[0]->frames[0].library, "/lib/libc.so.6"));
	assert_values(s[0], 5, 5000, 3, 3000, 5, 5000);
	assert_values(s[1], 2, 64, 0, 0, 2, 64);
	cr_assert(eq(int, s[2]->labels.pid, 101));
	cr_assert(eq(int, s[2]->labels.rank, 1));
	assert_values(s[2], 1, 32, 0, 0, 1, 32);
	cr_assert(heap_profile__inline_known(r.profile));
	cr_assert(not(heap_profile__per_thread(r.profile)));
	cr_assert(eq(sz, heap_profile__keep_rank(r.profile, 1), 1));
	loaded_report__clear(&r);
	cr_assert(eq(ptr, r.profile, NULL));
	unlink(path);
	free(path);
}

Test(profile_input, older_reports_have_no_figures)
{
	char *path = write_temp("{ \"heaptap\": 1, \"processes\": [ { \"pid\": 5, \"rank\": null,"
				" \"world_size\": null, \"total\": {" BAL "} } ] }");
	const struct profile_sample *const *s;
	struct loaded_report r;

	cr_assert(eq(int, loaded_report__read_json_with_profile(path, &r), 0));
	cr_assert(eq(sz, heap_profile__samples(r.profile, &s), 0));
	cr_assert(eq(u32, heap_profile__known(r.profile), 0));
	loaded_report__clear(&r);
	unlink(path);
	free(path);
}

/* A bad list is an error naming it, not figures made up. */
Test(profile_input, bad_lists_are_refused, .init = cr_redirect_stderr)
{
	static const char *const bad[] = {
		"\"outstanding\": {}",
		"\"outstanding\": [ {\"frames\": {}, \"blocks\": 1, \"bytes\": 1} ]",
		"\"allocated\": [ {\"frames\": " FREED_FRAMES ", \"blocks\": -1, \"bytes\": 1} ]",
		"\"allocated\": [ {\"frames\": [ {\"function\": \"f\"} ], \"blocks\": 1, "
		"\"bytes\": 1} ]",
		"\"peak\": [ ]",
		"\"peak\": { \"sites\": [ {\"frames\": " FREED_FRAMES ", \"blocks\": 1} ] }",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[2048];
		char *path;
		struct loaded_report r;

		snprintf(text, sizeof(text), "{ \"heaptap\": 1, \"processes\": [ { \"pid\": 5, "
			 "\"rank\": null, \"world_size\": null, \"total\": {" BAL "}, %s } ] }",
			 bad[i]);
		path = write_temp(text);
		cr_assert(eq(int, loaded_report__read_json_with_profile(path, &r), -EINVAL),
			  "accepted: %s", bad[i]);
		unlink(path);
		free(path);
	}
}

/* Calls whose stacks were not recorded (no frames) still count, under one named frame. */
Test(profile_input, unrecorded_stacks_count_under_one_frame)
{
	char *path = write_temp("{ \"heaptap\": 1, \"processes\": [ { \"pid\": 5, \"rank\": null,"
				" \"world_size\": null, \"total\": {" BAL "},"
				" \"allocated\": [ {\"frames\": [], \"blocks\": 4, \"bytes\": 128} ],"
				" \"outstanding\": [ {\"frames\": [], \"blocks\": 1, \"bytes\": 32} ]"
				" } ] }");
	const struct profile_sample *const *s;
	struct loaded_report r;

	cr_assert(eq(int, loaded_report__read_json_with_profile(path, &r), 0));
	cr_assert(eq(sz, heap_profile__samples(r.profile, &s), 1));
	cr_assert(eq(sz, s[0]->nr, 1));
	cr_assert(eq(str, (char *)s[0]->frames[0].function, PROFILE_UNRECORDED));
	cr_assert(eq(int, s[0]->labels.rank, -1));
	assert_values(s[0], 4, 128, 1, 32, 0, 0);
	loaded_report__clear(&r);
	unlink(path);
	free(path);
}
