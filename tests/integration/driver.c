// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "driver.h"
#include "procs.h"
#include "report_shape.h"

void require_bpf(void)
{
	if (geteuid() != 0)
		cr_skip_test("needs root and BPF");
}

const char *heaptap_path(void)
{
	const char *p = getenv("HEAPTAP");

	cr_assert(p, "HEAPTAP is not set: run the tests with make test");
	return p;
}

const char *target_path(const char *name, char *buf, size_t size)
{
	const char *dir = getenv("TARGETS");

	cr_assert(dir, "TARGETS is not set: run the tests with make test");
	snprintf(buf, size, "%s/%s", dir, name);
	return buf;
}

const char *scratch_dir(void)
{
	static char dir[64];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/heaptap-test-XXXXXX");
		cr_assert(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	}
	return dir;
}

const char *scratch_file(const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", scratch_dir(), name);
	return buf;
}

const char *scratch_subdir(const char *name, char *buf, size_t size)
{
	scratch_file(name, buf, size);
	cr_assert(mkdir(buf, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", buf, strerror(errno));
	return buf;
}

pid_t spawn_limited(char *const argv[], const char *out, const char *err, long nofile)
{
	pid_t pid = fork();

	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		struct rlimit lim = { nofile, nofile };

		dup2(o, 1);
		dup2(e, 2);
		setpgid(0, 0); /* a timeout kills the whole group: mpirun's children too */
		if (nofile > 0 && setrlimit(RLIMIT_NOFILE, &lim)) {
			dprintf(2, "setrlimit(RLIMIT_NOFILE, %ld): %s\n", nofile, strerror(errno));
			_exit(126);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

pid_t spawn(char *const argv[], const char *out, const char *err)
{
	return spawn_limited(argv, out, err, 0);
}

pid_t spawn_at_pid(pid_t want, char *const argv[], const char *out, const char *err)
{
	int fd = open("/proc/sys/kernel/ns_last_pid", O_RDWR | O_CLOEXEC);
	pid_t got = -1;

	cr_assert(fd >= 0, "cannot open /proc/sys/kernel/ns_last_pid: %s", strerror(errno));
	/* The lock CRIU takes too: two pid forcers do not undo each other. */
	flock(fd, LOCK_EX);
	for (int tries = 0; tries < 400 && got != want; tries++) {
		char last[16];
		int len = snprintf(last, sizeof(last), "%d", want - 1);
		pid_t pid;

		if (pwrite(fd, last, len, 0) != len)
			break;
		pid = fork();
		if (pid == 0) {
			int o, e;

			if (getpid() != want)
				_exit(0); /* somebody forked in between: try again */
			o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
			e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
			dup2(o, 1);
			dup2(e, 2);
			setpgid(0, 0);
			execvp(argv[0], argv);
			_exit(127);
		}
		if (pid == want)
			got = pid;
		else if (pid > 0)
			waitpid(pid, NULL, 0);
		if (got != want && tries % 20 == 19)
			sleep_ms(50); /* the pid is in use: let its holder go */
	}
	flock(fd, LOCK_UN);
	close(fd);
	return got;
}

int wait_status(pid_t pid, int timeout_s)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	int status;

	for (int waited = 0; waited < timeout_s * 50; waited++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
		nanosleep(&pause, NULL);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = strdup("");
	}
	fclose(f);
	return buf;
}

bool wait_for_text_while(const char *file, const char *text, pid_t pid, int timeout_s)
{
	for (int waited = 0; waited < timeout_s * 50; waited++) {
		char *content = slurp(file);
		bool found = content && strstr(content, text);
		char state;

		free(content);
		if (found)
			return true;
		state = pid > 0 ? proc_state(pid) : 'R';
		if (!state || state == 'Z')
			return false;
		sleep_ms(20);
	}
	return false;
}

bool wait_for_text(const char *file, const char *text, int timeout_s)
{
	return wait_for_text_while(file, text, 0, timeout_s);
}

void expect_attached(pid_t tracer, pid_t target, const char *err)
{
	char said[64];

	snprintf(said, sizeof(said), "heaptap: attached to PID %d", target);
	if (wait_for_text(err, said, 30))
		return;
	kill(target, SIGKILL);
	wait_status(tracer, 5);
	cr_assert(false, "heaptap never said it attached: %s", slurp(err));
}

struct printed_calls printed_calls_of(const char *output, const char *label)
{
	struct printed_calls c;
	const char *line;
	char *pattern;

	cr_assert(asprintf(&pattern, "%s malloc ", label) > 0);
	line = strstr(output, pattern);
	free(pattern);
	cr_assert(line != NULL, "the program printed no '%s' line: %s", label, output);
	cr_assert(sscanf(line + strlen(label), " malloc %ld calloc %ld realloc %ld free %ld",
			 &c.malloc, &c.calloc, &c.realloc, &c.free) == 4,
		  "'%s' line unreadable", label);
	cr_assert(c.malloc > 0 && c.free > 0, "%s made no calls", label);
	return c;
}

long calls_of(json_object *entry, const char *name)
{
	return json_object_get_int64(get(get(entry, "calls"), name));
}

int lines_with(const char *text, const char *a, const char *b)
{
	int n = 0;

	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *copy = strndup(line, len);

		n += strstr(copy, a) && (!b || strstr(copy, b));
		free(copy);
		line = end ? end + 1 : NULL;
	}
	return n;
}

size_t count_text(const char *file, const char *text)
{
	char *content = slurp(file);
	size_t n = 0;

	for (const char *p = content; p && (p = strstr(p, text)); p += strlen(text))
		n++;
	free(content);
	return n;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

json_object *load_json(const char *path)
{
	json_object *o = json_object_from_file(path), *version = NULL;

	cr_assert(o, "cannot parse %s as JSON: %s", path, json_util_get_last_err());
	/* A report: the tests read schema 2's frames and nodes as schema 1 had them. */
	if (json_object_is_type(o, json_type_object) &&
	    json_object_object_get_ex(o, "heaptap", &version) && json_object_get_int(version) == 2)
		report_v1_shape(o);
	return o;
}

json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no \"%s\" in %s", key,
		  json_object_to_json_string(o));
	return v;
}

json_object *get_opt(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

bool json_flag(json_object *o, const char *key)
{
	json_object *v = get_opt(o, key);

	return v && json_object_get_boolean(v);
}

size_t processes_of(json_object *report, pid_t pid, json_object **out, size_t max)
{
	json_object *processes = get(report, "processes");
	size_t n = 0;

	for (size_t i = 0; i < json_object_array_length(processes); i++) {
		json_object *p = json_object_array_get_idx(processes, i);

		if (json_object_get_int64(get(p, "pid")) == pid && n < max)
			out[n++] = p;
	}
	return n;
}

json_object *find_by_int(json_object *array, const char *key, long long value)
{
	for (size_t i = 0; i < json_object_array_length(array); i++) {
		json_object *e = json_object_array_get_idx(array, i), *v;

		if (json_object_object_get_ex(e, key, &v) && json_object_get_int64(v) == value)
			return e;
	}
	return NULL;
}

json_object *find_by_str(json_object *array, const char *key, const char *value)
{
	for (size_t i = 0; i < json_object_array_length(array); i++) {
		json_object *e = json_object_array_get_idx(array, i), *v;

		if (json_object_object_get_ex(e, key, &v) &&
		    !strcmp(json_object_get_string(v), value))
			return e;
	}
	return NULL;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

json_object *find_function(json_object *functions, const char *function, const char *suffix)
{
	for (size_t i = 0; i < json_object_array_length(functions); i++) {
		json_object *e = json_object_array_get_idx(functions, i);

		if (!strcmp(json_object_get_string(get(e, "function")), function) &&
		    ends_with(json_object_get_string(get(e, "library")), suffix))
			return e;
	}
	return NULL;
}

void assert_fields(json_object *got, json_object *truth, const char *const fields[],
		   const char *what)
{
	for (const char *const *f = fields; *f; f++) {
		long long want = json_object_get_int64(get(truth, *f));
		long long have = json_object_get_int64(get(got, *f));

		cr_expect(have == want, "%s: %s is %lld, truth %lld", what, *f, have, want);
	}
}

void assert_balance(json_object *got, json_object *truth, const char *const fields[],
		    const char *what)
{
	json_object *got_calls = get(got, "calls"), *truth_calls = get(truth, "calls");

	assert_fields(got, truth, fields, what);
	json_object_object_foreach(truth_calls, name, count) {
		long long want = json_object_get_int64(count);
		long long have = json_object_get_int64(get(got_calls, name));

		cr_expect(have == want, "%s: %s calls %lld, truth %lld", what, name, have, want);
	}
}

void assert_threads(json_object *threads, json_object *truth_threads, const char *label)
{
	static const char *const every_field[] = { "current", "min", "max", "requested", NULL };
	char what[256];

	for (size_t i = 0; i < json_object_array_length(truth_threads); i++) {
		json_object *want = json_object_array_get_idx(truth_threads, i);
		long long tid = json_object_get_int64(get(want, "tid"));
		json_object *got = find_by_int(threads, "tid", tid);

		cr_assert(got != NULL, "%s: thread %lld missing from the report", label, tid);
		cr_expect(!strcmp(json_object_get_string(get(got, "name")),
				  json_object_get_string(get(want, "name"))),
			  "%s: thread %lld is named %s", label, tid,
			  json_object_get_string(get(got, "name")));
		snprintf(what, sizeof(what), "%s: thread %lld", label, tid);
		assert_balance(got, want, every_field, what);
	}
}

void assert_libgt_functions(json_object *functions, json_object *truth_functions,
			    const char *label)
{
	static const char *const every_field[] = { "current", "min", "max", "requested", NULL };
	char what[256];

	for (size_t i = 0; i < json_object_array_length(truth_functions); i++) {
		json_object *want = json_object_array_get_idx(truth_functions, i);
		const char *name = json_object_get_string(get(want, "function"));
		json_object *got = find_function(functions, name, "/libgt.so");

		if (!got) /* the build without frame pointers */
			got = find_function(functions, name, "/libgt_nofp.so");

		cr_assert(got != NULL, "%s: %s (libgt.so) missing from the report", label, name);
		snprintf(what, sizeof(what), "%s: %s", label, name);
		assert_balance(got, want, every_field, what);
	}
}

void assert_libgt_library(json_object *process, json_object *truth, const char *const fields[],
			  const char *label)
{
	json_object *libraries = get(process, "libraries"), *libgt = NULL;

	for (size_t i = 0; i < json_object_array_length(libraries); i++) {
		json_object *l = json_object_array_get_idx(libraries, i);

		if (strstr(json_object_get_string(get(l, "library")), "/libgt"))
			libgt = l;
	}
	cr_assert(libgt != NULL, "%s: libgt.so missing from the libraries", label);
	assert_balance(libgt, get(truth, "library"), fields, label);
}
