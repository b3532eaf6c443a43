// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <ncurses.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>
#include "clock.h"
#include "stop_signal.h"
#include "human_bytes.h"
#include "top_remote.h"
#include "viewer.h"

struct top_rate {
	char key[300]; /* host '/' pid */
	uint64_t allocs, frees;
	double alloc_rate, free_rate;
	UT_hash_handle hh;
};

uint64_t top_total_calls(const struct balance *b)
{
	uint64_t n = 0;

	for (int f = 0; f < HT_NR_FUNCS; f++)
		n += b->calls[f];
	return n;
}

static struct top_rate *rate_of(struct top_rates *r, const char *host, pid_t pid, bool add)
{
	struct top_rate *rate;
	char key[300];

	snprintf(key, sizeof(key), "%s/%d", host, pid);
	HASH_FIND_STR(r->rates, key, rate);
	if (rate || !add || !(rate = calloc(1, sizeof(*rate))))
		return rate;
	snprintf(rate->key, sizeof(rate->key), "%s", key);
	HASH_ADD_STR(r->rates, key, rate);
	return rate;
}

void top_rates__update(struct top_rates *r, const struct report_run *run)
{
	double t = now(), dt = r->last ? t - r->last : 0;

	for (size_t i = 0; i < run->nr; i++) {
		const struct balance *b = &run->targets[i]->stats.total;
		struct top_rate *rate = rate_of(r, run->facts[i].host, run->targets[i]->pid, true);
		uint64_t frees = b->calls[HT_FREE], allocs = top_total_calls(b) - frees;

		if (!rate)
			continue;
		if (dt > 0) {
			rate->alloc_rate = (allocs - rate->allocs) / dt;
			rate->free_rate = (frees - rate->frees) / dt;
		}
		rate->allocs = allocs;
		rate->frees = frees;
	}
	r->last = t;
}

void top_rates__of(struct top_rates *r, const char *host, const struct target *t,
		   double *alloc_rate, double *free_rate)
{
	struct top_rate *rate = rate_of(r, host, t->pid, false);

	*alloc_rate = rate ? rate->alloc_rate : 0;
	*free_rate = rate ? rate->free_rate : 0;
}

void top_rates__free(struct top_rates *r)
{
	struct top_rate *rate, *tmp;

	HASH_ITER(hh, r->rates, rate, tmp) {
		HASH_DEL(r->rates, rate);
		free(rate);
	}
}

struct screen {
	struct top_rates rates;
	struct run_view run, opened;
	struct report_run report;
	size_t selected, first;
	int64_t opened_id; /* 0: the table */
	int tab;	   /* threads, libraries, functions */
};

/* Bytes as the table shows them; "-" when the collector has no owner figures of it. */
static const char *held_text(bool known, uint64_t bytes, char *buf, size_t size)
{
	return known ? human_bytes((int64_t)bytes, buf, size) : "-";
}

static void draw_table(struct screen *sc)
{
	const struct report_run *r = &sc->report;
	char cur[16], max[16], rank[16], held[16], peak[16];

	mvprintw(0, 0, "heaptap top - run %" PRId64 "%s%s: %zu processes", r->id,
		 r->job ? ", job " : "", r->job ? r->job : "", r->nr);
	attron(A_REVERSE);
	mvprintw(2, 0, "%-16s %5s %8s %8s %8s %8s %8s %9s %9s %10s  %-10s", "HOST", "RANK",
		 "PID", "CURRENT", "MAX", "HELD", "PEAK", "ALLOC/s", "FREE/s", "CALLS", "STATE");
	attroff(A_REVERSE);
	if (sc->selected >= r->nr)
		sc->selected = r->nr ? r->nr - 1 : 0;
	if (sc->selected < sc->first)
		sc->first = sc->selected;
	if (LINES > 5 && sc->selected >= sc->first + (size_t)(LINES - 5))
		sc->first = sc->selected - (LINES - 6);
	for (size_t i = sc->first; i < r->nr && (int)(i - sc->first) + 3 < LINES - 1; i++) {
		const struct target *t = r->targets[i];
		const struct process_facts *pf = &r->facts[i];
		double ar, fr;

		top_rates__of(&sc->rates, pf->host, t, &ar, &fr);
		snprintf(rank, sizeof(rank), t->mpi.rank >= 0 ? "%d" : "-", t->mpi.rank);
		if (i == sc->selected)
			attron(A_BOLD | A_UNDERLINE);
		mvprintw(3 + i - sc->first, 0, "%-16.16s %5s %8d %8s %8s %8s %8s %9.0f %9.0f %10"
			 PRIu64 "  %-10s", pf->host, rank, t->pid,
			 human_bytes(t->stats.total.current, cur, sizeof(cur)),
			 human_bytes(t->stats.total.max, max, sizeof(max)),
			 held_text(pf->held_known, pf->held_bytes, held, sizeof(held)),
			 held_text(pf->held_known, pf->held_peak_bytes, peak, sizeof(peak)), ar, fr,
			 top_total_calls(&t->stats.total),
			 t->oom.killed ? "OOM-killed" : pf->state ? pf->state :
			 t->exited ? "exited" : "running");
		attroff(A_BOLD | A_UNDERLINE);
	}
	mvprintw(LINES - 1, 0, "Up/Down select  Enter open  q quit");
}

static void draw_row(int y, const char *name, const struct balance *b)
{
	char cur[16], max[16], min[16];

	mvprintw(y, 0, "%-40.40s %8s %8s %8s %10" PRIu64, name,
		 human_bytes(b->current, cur, sizeof(cur)), human_bytes(b->min, min, sizeof(min)),
		 human_bytes(b->max, max, sizeof(max)), top_total_calls(b));
}

static void draw_opened(struct screen *sc)
{
	static const char *const tabs[] = { "threads", "libraries", "functions" };
	struct run_process *p = sc->opened.nr ? sc->opened.processes[0] : NULL;
	int y = 3;

	if (!p) {
		mvprintw(0, 0, "that process is gone from the run");
		return;
	}
	mvprintw(0, 0, "%s pid %d rank %d: %s", p->host, p->t.pid, p->t.mpi.rank, p->t.command);
	for (int i = 0; i < 3; i++) {
		if (i == sc->tab)
			attron(A_REVERSE);
		mvprintw(1, i * 12, " %s ", tabs[i]);
		attroff(A_REVERSE);
	}
	attron(A_BOLD);
	mvprintw(2, 0, "%-40s %8s %8s %8s %10s", "NAME", "CURRENT", "MIN", "MAX", "CALLS");
	attroff(A_BOLD);
	if (sc->tab == 0) {
		for (struct thread_stats *t = p->t.stats.threads; t && y < LINES - 1; t = t->hh.next) {
			char name[64];

			snprintf(name, sizeof(name), "%u %s", t->tid, t->name);
			draw_row(y++, name, &t->bal);
		}
	} else if (sc->tab == 1) {
		for (struct library_stats *l = p->t.stats.libraries; l && y < LINES - 1;
		     l = l->hh.next)
			draw_row(y++, l->library, &l->bal);
	} else {
		for (struct function_stats *f = p->t.stats.functions; f && y < LINES - 1;
		     f = f->hh.next)
			draw_row(y++, f->function, &f->bal);
	}
	mvprintw(LINES - 1, 0, "Tab next tab  Esc back  q quit");
}

/* Fetch what the screen shows. 0, or -errno (the connection failed). */
static int refresh_data(struct screen *sc, struct viewer *v, long run_id)
{
	int err = viewer__query(v, run_id, 0, false, &sc->run);

	if (err && err != -ENOENT)
		return err;
	if (!err && !run_view__report(&sc->run, &sc->report))
		top_rates__update(&sc->rates, &sc->report);
	if (sc->opened_id) {
		run_view__clear(&sc->opened);
		err = viewer__query(v, sc->run.id, sc->opened_id, false, &sc->opened);
		if (!err)
			accountant__sort(&sc->opened.processes[0]->t.stats);
	}
	return err == -ENOENT ? 0 : err;
}

int top_remote_screen(struct viewer *v, long run_id, double interval)
{
	struct screen sc = {};
	double next = 0;
	int status = EXIT_OK;

	if (!initscr()) {
		return EXIT_FAILURE_INTERNAL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	timeout(50);
	curs_set(0);
	while (!stop_requested) {
		int key = getch();

		if (key == 'q')
			break;
		if (key == KEY_UP && sc.selected > 0)
			sc.selected--;
		else if (key == KEY_DOWN)
			sc.selected++;
		else if ((key == '\n' || key == KEY_ENTER) && !sc.opened_id &&
			 sc.selected < sc.report.nr)
			sc.opened_id = sc.run.processes[sc.selected]->id, next = 0;
		else if (key == '\t' || key == KEY_RIGHT)
			sc.tab = (sc.tab + 1) % 3;
		else if (key == 27 || key == KEY_BACKSPACE || key == 127)
			sc.opened_id = 0;
		if (now() >= next) {
			if (refresh_data(&sc, v, run_id)) {
				status = EXIT_FAILURE_INTERNAL;
				break;
			}
			next = now() + interval;
		} else if (key == ERR) {
			continue;
		}
		erase();
		if (sc.opened_id)
			draw_opened(&sc);
		else
			draw_table(&sc);
		refresh();
	}
	endwin();
	run_view__clear(&sc.run);
	run_view__clear(&sc.opened);
	top_rates__free(&sc.rates);
	return status;
}
