// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "clock.h"
#include "human_bytes.h"
#include "printable.h"
#include "top_held.h"
#include "top_tree.h"
#include "top_view.h"

enum sort_key { SORT_CURRENT, SORT_MAX, SORT_CALLS, SORT_RATE };
static const char *const sort_names[] = { "current", "max", "calls", "rate" };
enum tab { TAB_THREADS, TAB_LIBRARIES, TAB_FUNCTIONS, TAB_TREE, TAB_HELD, NR_TABS };

/* Width of the name column in the opened process: 80 columns less four figures. */
#define NAME_WIDTH 40
static const char *const tab_names[] = { "threads", "libraries", "functions", "tree",
					 "held by" };

/* What a process looked like at the last refresh, for its rates. */
struct rate {
	pid_t pid;
	uint64_t allocs, frees;
	double alloc_rate, free_rate;
};

struct top_view {
	double interval;
	enum sort_key sort;
	bool paused, help, redraw;
	size_t selected;  /* row in the process table */
	pid_t opened;	  /* the process shown in detail, 0 for the table */
	enum tab tab;
	struct top_tree *tree; /* the tree tab's state */
	struct rate *rates;
	size_t nr_rates;
	/* For the header: events and heaptap's own CPU over the last refresh. */
	double last_refresh, cpu_seconds, events_rate, cpu_share;
	uint64_t events;
};

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static long rss_kib(void)
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

struct top_view *top_view__new(double interval)
{
	struct top_view *v;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || !initscr())
		return NULL;
	v = calloc(1, sizeof(*v));
	if (v && !(v->tree = top_tree__new())) {
		free(v);
		v = NULL;
	}
	if (!v) {
		endwin();
		return NULL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE); /* getch() must not block the event loop */
	curs_set(0);
	v->interval = interval;
	v->redraw = true;
	v->last_refresh = now();
	v->cpu_seconds = cpu_seconds();
	return v;
}

void top_view__free(struct top_view *v)
{
	if (!v)
		return;
	endwin();
	top_tree__free(v->tree);
	free(v->rates);
	free(v);
}

static uint64_t total_calls(const struct balance *b)
{
	uint64_t n = 0;

	for (int f = 0; f < HT_NR_FUNCS; f++)
		n += b->calls[f];
	return n;
}

static struct rate *rate_of(struct top_view *v, pid_t pid)
{
	struct rate *grown;

	for (size_t i = 0; i < v->nr_rates; i++) {
		if (v->rates[i].pid == pid)
			return &v->rates[i];
	}
	grown = realloc(v->rates, (v->nr_rates + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	v->rates = grown;
	memset(&v->rates[v->nr_rates], 0, sizeof(*grown));
	v->rates[v->nr_rates].pid = pid;
	return &v->rates[v->nr_rates++];
}

/* Rates and heaptap's own figures, once per refresh. */
static void measure(struct top_view *v, struct session *s, struct target **targets, size_t n)
{
	double t = now(), dt = t - v->last_refresh, cpu = cpu_seconds();

	if (dt <= 0)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct balance *b = &targets[i]->stats.total;
		uint64_t frees = b->calls[HT_FREE], allocs = total_calls(b) - frees;
		struct rate *r = rate_of(v, targets[i]->pid);

		if (!r)
			continue;
		r->alloc_rate = (allocs - r->allocs) / dt;
		r->free_rate = (frees - r->frees) / dt;
		r->allocs = allocs;
		r->frees = frees;
	}
	v->events_rate = (session__events(s) - v->events) / dt;
	v->events = session__events(s);
	v->cpu_share = (cpu - v->cpu_seconds) / dt * 100;
	v->cpu_seconds = cpu;
	v->last_refresh = t;
}

static double sort_value(struct top_view *v, const struct balance *b, pid_t pid)
{
	struct rate *r;

	switch (v->sort) {
	case SORT_MAX:
		return b->max;
	case SORT_CALLS:
		return total_calls(b);
	case SORT_RATE:
		r = pid ? rate_of(v, pid) : NULL;
		return r ? r->alloc_rate + r->free_rate : total_calls(b);
	default:
		return b->current;
	}
}

static struct top_view *sorting_view; /* qsort has no context argument */

static int by_sort_key(const void *a, const void *b)
{
	const struct target *x = *(struct target *const *)a, *y = *(struct target *const *)b;
	double vx = sort_value(sorting_view, &x->stats.total, x->pid);
	double vy = sort_value(sorting_view, &y->stats.total, y->pid);

	return vx < vy ? 1 : vx > vy ? -1 : x->pid - y->pid;
}

static void draw_header(struct top_view *v, struct target **targets, size_t n,
			struct session *s)
{
	size_t live = 0;
	uint64_t lost = 0, sample_bytes = 0;

	for (size_t i = 0; i < n; i++) {
		live += !targets[i]->exited;
		lost += session__lost_events(s, targets[i]);
		if (targets[i]->owner.sample_bytes)
			sample_bytes = targets[i]->owner.sample_bytes;
	}
	mvprintw(0, 0, "heaptap top - %zu targets (%zu live)  %.0f events/s  lost %" PRIu64, n,
		 live, v->events_rate, lost);
	/* --sample-bytes: the bytes, blocks and calls shown are estimates. */
	if (sample_bytes)
		printw("  sampled: 1 per %" PRIu64 " bytes, figures estimated", sample_bytes);
	mvprintw(1, 0, "heaptap: cpu %.1f%%, rss %ld MiB   sort: %s%s", v->cpu_share,
		 rss_kib() / 1024, sort_names[v->sort], v->paused ? "   [paused]" : "");
}

/* "/usr/bin/app --size 4" -> "app --size 4": the table has 20 columns for it. */
static const char *program_name(const char *command)
{
	const char *end = command + strcspn(command, " "), *slash = command;

	for (const char *p = command; p < end; p++) {
		if (*p == '/')
			slash = p + 1;
	}
	return slash;
}

static void draw_table(struct top_view *v, struct target **targets, size_t n)
{
	char cur[16], max[16];

	attron(A_REVERSE);
	mvprintw(3, 0, "%-5s %7s %-20s %8s %8s %8s %8s %9s", "RANK", "PID", "COMMAND", "CURRENT",
		 "MAX", "ALLOC/s", "FREE/s", "CALLS");
	attroff(A_REVERSE);
	if (v->selected >= n)
		v->selected = n ? n - 1 : 0;
	for (size_t i = 0; i < n && (int)i + 4 < LINES - 1; i++) {
		const struct target *t = targets[i];
		const struct balance *b = &t->stats.total;
		struct rate *r = rate_of(v, t->pid);
		char rank[16] = "-", command[40], shown[PRINTABLE_SIZE(sizeof(t->command))];

		if (t->mpi.rank >= 0)
			snprintf(rank, sizeof(rank), "%d", t->mpi.rank);
		/* An exited process keeps its row, its final figures, and says so. */
		snprintf(command, sizeof(command), "%s%.20s",
			 t->oom.killed ? "(OOM-killed) " : t->exited ? "(exited) " : "",
			 printable(program_name(t->command), shown, sizeof(shown)));
		if (i == v->selected)
			attron(A_BOLD | A_UNDERLINE);
		mvprintw(4 + i, 0, "%-5s %7d %-20.20s %8s %8s %8.0f %8.0f %9" PRIu64, rank, t->pid,
			 command, human_bytes(b->current, cur, sizeof(cur)), human_bytes(b->max, max, sizeof(max)),
			 r ? r->alloc_rate : 0, r ? r->free_rate : 0, total_calls(b));
		attroff(A_BOLD | A_UNDERLINE);
	}
	mvprintw(LINES - 1, 0, "Enter open  c/m/n/r sort  p pause  q quit  ? help");
}

/* A path too long for its column keeps its tail, where the file's name is:
 * "/long/checkout/dir/libgt.so" -> "...eckout/dir/libgt.so". */
static const char *path_tail(const char *path, char *buf, size_t width)
{
	size_t len = strlen(path);

	if (len <= width)
		return path;
	snprintf(buf, width + 1, "...%s", path + len - (width - 3));
	return buf;
}

/* One row of the opened process: a name and its balance. */
struct row {
	const char *name;
	const struct balance *bal;
};

static int by_row_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double vx = sort_value(sorting_view, x->bal, 0), vy = sort_value(sorting_view, y->bal, 0);

	return vx < vy ? 1 : vx > vy ? -1 : strcmp(x->name, y->name);
}

static void draw_process(struct top_view *v, const struct target *t)
{
	const struct thread_stats *th, *tht;
	const struct library_stats *l, *lt;
	const struct function_stats *f, *ft;
	char names[512][64], cur[16], min[16], max[16];
	char shown[PRINTABLE_SIZE(sizeof(t->command))];
	struct row rows[512];
	size_t n = 0;

	if (t->oom.killed)
		mvprintw(3, 0, "PID %d (killed by the OOM killer at %.1f s, holding %llu bytes)  "
			 "%.40s", t->pid, t->oom.seconds, (unsigned long long)t->oom.bytes,
			 printable(t->command, shown, sizeof(shown)));
	else
		mvprintw(3, 0, "PID %d%s  %.60s", t->pid, t->exited ? " (exited)" : "",
			 printable(t->command, shown, sizeof(shown)));
	for (int tab = 0; tab < NR_TABS; tab++) {
		if (tab == (int)v->tab)
			attron(A_REVERSE);
		mvprintw(4, tab * 12, " %s ", tab_names[tab]);
		attroff(A_REVERSE);
	}
	if (v->tab == TAB_TREE) {
		top_tree__draw(v->tree, &t->tree, 6, LINES - 1);
		mvprintw(LINES - 1, 0, "Up/Down select  Enter expand  Tab next  Esc back  q quit");
		return;
	}
	if (v->tab == TAB_HELD) {
		top_held__draw(t, 6, LINES - 1);
		mvprintw(LINES - 1, 0, "Tab next  Esc back  p pause  q quit  ? help");
		return;
	}
	if (v->tab == TAB_THREADS) {
		HASH_ITER(hh, t->stats.threads, th, tht) {
			if (n == 512)
				break;
			snprintf(names[n], sizeof(names[n]), "%u %s", th->tid, th->name);
			rows[n] = (struct row){ names[n], &th->bal };
			n++;
		}
	} else if (v->tab == TAB_LIBRARIES) {
		HASH_ITER(hh, t->stats.libraries, l, lt) {
			if (n == 512)
				break;
			rows[n] = (struct row){ path_tail(l->library, names[n], NAME_WIDTH), &l->bal };
			n++;
		}
	} else {
		HASH_ITER(hh, t->stats.functions, f, ft) {
			if (n == 512)
				break;
			snprintf(names[n], sizeof(names[n]), "%.40s (%.20s)", f->function,
				 strrchr(f->library, '/') ? strrchr(f->library, '/') + 1 : f->library);
			rows[n] = (struct row){ names[n], &f->bal };
			n++;
		}
	}
	sorting_view = v;
	qsort(rows, n, sizeof(rows[0]), by_row_key);
	attron(A_REVERSE);
	mvprintw(6, 0, "%-*s %8s %8s %8s %10s", NAME_WIDTH, "NAME", "CURRENT", "MIN", "MAX", "CALLS");
	attroff(A_REVERSE);
	for (size_t i = 0; i < n && (int)i + 7 < LINES - 1; i++)
		mvprintw(7 + i, 0, "%-*.*s %8s %8s %8s %10" PRIu64, NAME_WIDTH, NAME_WIDTH, rows[i].name,
			 human_bytes(rows[i].bal->current, cur, sizeof(cur)),
			 human_bytes(rows[i].bal->min, min, sizeof(min)),
			 human_bytes(rows[i].bal->max, max, sizeof(max)), total_calls(rows[i].bal));
	mvprintw(LINES - 1, 0, "Tab next  Esc back  c/m/n sort  p pause  q quit  ? help");
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"heaptap top keys",
		"",
		"  Up/Down   select a process      Enter  open it",
		"  Tab       next tab (threads, libraries, functions, tree, held by)",
		"  tree tab: Up/Down select, Enter or Space expand/collapse, + -",
		"  Esc, Backspace   back to the process table",
		"  c  sort by current bytes        m  by maximum bytes",
		"  n  sort by calls                r  by call rate",
		"  p  pause (figures freeze)       q  quit",
		"",
		"Bytes are usable bytes; current/min/max follow DMATP.",
		"Press any key.",
	};

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		mvprintw(3 + i, 2, "%s", lines[i]);
}

void top_view__draw(struct top_view *v, struct session *s)
{
	struct target **targets;
	size_t n = session__targets(s, &targets);
	const struct target *opened = NULL;

	if (v->paused && !v->redraw)
		return;
	if (!v->paused)
		measure(v, s, targets, n);
	v->redraw = false;
	sorting_view = v;
	qsort(targets, n, sizeof(*targets), by_sort_key);
	erase();
	draw_header(v, targets, n, s);
	for (size_t i = 0; i < n && v->opened; i++) {
		if (targets[i]->pid == v->opened)
			opened = targets[i];
	}
	if (v->help)
		draw_help();
	else if (opened)
		draw_process(v, opened);
	else
		draw_table(v, targets, n);
	refresh();
}

bool top_view__keys(struct top_view *v, struct session *s)
{
	struct target **targets;
	int key;

	while ((key = getch()) != ERR) {
		v->redraw = true;
		if (v->help) {
			v->help = false;
			continue;
		}
		if (v->opened && v->tab == TAB_TREE && top_tree__key(v->tree, key))
			continue;
		switch (key) {
		case 'q':
			return false;
		case '?':
			v->help = true;
			break;
		case 'p':
			v->paused = !v->paused;
			break;
		case 'c': v->sort = SORT_CURRENT; break;
		case 'm': v->sort = SORT_MAX; break;
		case 'n': v->sort = SORT_CALLS; break;
		case 'r': v->sort = SORT_RATE; break;
		case KEY_UP:
			if (v->selected > 0)
				v->selected--;
			break;
		case KEY_DOWN:
			v->selected++;
			break;
		case '\n':
		case KEY_ENTER:
			if (!v->opened) {
				size_t n = session__targets(s, &targets);

				sorting_view = v;
				qsort(targets, n, sizeof(*targets), by_sort_key);
				if (v->selected < n)
					v->opened = targets[v->selected]->pid;
				v->tab = TAB_THREADS;
				top_tree__reset(v->tree);
			}
			break;
		case '\t':
		case KEY_RIGHT:
			v->tab = (v->tab + 1) % NR_TABS;
			break;
		case KEY_LEFT:
			v->tab = (v->tab + NR_TABS - 1) % NR_TABS;
			break;
		case 27: /* Esc */
		case KEY_BACKSPACE:
		case 127:
			v->opened = 0;
			break;
		case KEY_RESIZE:
			break; /* ncurses has the new size: the redraw does the rest */
		}
	}
	return true;
}

bool top_view__wants_redraw(const struct top_view *v)
{
	return v->redraw;
}
