// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Who holds each process's memory, in the database: written from Owner messages, read back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "store_sql.h"
#include "store_owner.h"
#include "store_schema.h"
#include "wire.h"

/* The frames as the JSON reports write them, as text. NULL when out of memory. */
static char *frames_text(const Heaptap__OwnerSite *s)
{
	json_object *frames = json_object_new_array();
	char *text;

	for (size_t i = 0; frames && i < s->n_frames; i++) {
		const Heaptap__SiteFrame *fr = s->frames[i];
		json_object *f = json_object_new_object();

		json_object_object_add(f, "library", json_object_new_string(fr->library));
		json_object_object_add(f, "function", json_object_new_string(fr->function));
		if (fr->file)
			json_object_object_add(f, "file", json_object_new_string(fr->file));
		if (fr->has_line && fr->line)
			json_object_object_add(f, "line", json_object_new_int64(fr->line));
		json_object_array_add(frames, f);
	}
	text = frames ? strdup(json_object_to_json_string_ext(frames, JSON_C_TO_STRING_PLAIN))
		      : NULL;
	json_object_put(frames);
	return text;
}

static int put_sites(struct store *st, int64_t process, enum store_owner_list kind,
		     Heaptap__OwnerSite *const *sites, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct db_stmt *s = store_stmt(st, OWNER_SITE_ADD);
		char *frames = frames_text(sites[i]);
		int err;

		if (!frames) {
			log_error("database: out of memory for a site's frames");
			return -ENOMEM;
		}
		db_bind_int64(s, 1, process);
		db_bind_int(s, 2, kind);
		db_bind_int64(s, 3, (int64_t)i);
		db_bind_text(s, 4, frames);
		free(frames);
		db_bind_int64(s, 5, (int64_t)sites[i]->blocks);
		db_bind_int64(s, 6, (int64_t)sites[i]->bytes);
		if (kind == STORE_OUTSTANDING) {
			db_bind_int64(s, 7, (int64_t)sites[i]->requested);
			db_bind_int(s, 8, sites[i]->likely_leak);
			db_bind_double(s, 9, sites[i]->growth_bytes_per_second);
		}
		if ((err = store_run(st, s, "store an allocation site")))
			return err;
	}
	return 0;
}

/* The OOM kill's memory cgroup as the JSON reports write it. NULL: none, or no memory. */
static char *cgroup_text(const Heaptap__OomKill *k)
{
	json_object *c;
	char *text;

	if (!k->has_cgroup_version || !(c = json_object_new_object()))
		return NULL;
	json_object_object_add(c, "version", json_object_new_int((int)k->cgroup_version));
	json_object_object_add(c, "path", json_object_new_string(k->cgroup_path ? k->cgroup_path
										 : ""));
	json_object_object_add(c, "usage_bytes", k->has_cgroup_usage ?
				json_object_new_uint64(k->cgroup_usage) : NULL);
	json_object_object_add(c, "limit_bytes", k->has_cgroup_limit ?
				json_object_new_uint64(k->cgroup_limit) : NULL);
	json_object_object_add(c, "max_usage_bytes", k->has_cgroup_max_usage ?
				json_object_new_uint64(k->cgroup_max_usage) : NULL);
	text = strdup(json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN));
	json_object_put(c);
	return text;
}

int store_owner__put(struct store *st, int64_t process, const Heaptap__Owner *m)
{
	struct db_stmt *s = store_stmt(st, OWNER_PUT);
	char *cgroup = m->oom ? cgroup_text(m->oom) : NULL;

	db_bind_int64(s, 1, process);
	db_bind_int64(s, 2, (int64_t)m->blocks);
	db_bind_int64(s, 3, (int64_t)m->bytes);
	db_bind_int64(s, 4, (int64_t)m->peak_blocks);
	db_bind_int64(s, 5, (int64_t)m->peak_bytes);
	if (m->freed_before_tracing) { /* else NULL: an agent that did not send them */
		db_bind_int64(s, 6, (int64_t)m->freed_before_tracing->calls);
		db_bind_int64(s, 7, (int64_t)m->freed_before_tracing->bytes);
		db_bind_int(s, 8, m->freed_before_tracing->bytes_known);
	}
	if (m->oom) { /* else NULL: not chosen by the OOM killer */
		db_bind_double(s, 9, m->oom->time);
		db_bind_int64(s, 10, (int64_t)m->oom->blocks);
		db_bind_int64(s, 11, (int64_t)m->oom->bytes);
		if (cgroup)
			db_bind_text(s, 12, cgroup);
	}
	free(cgroup);
	if (store_run(st, s, "store who holds the memory"))
		return -EIO;
	s = store_stmt(st, OWNER_SITES_CLEAR);
	db_bind_int64(s, 1, process);
	if (store_run(st, s, "clear allocation sites") ||
	    put_sites(st, process, STORE_OUTSTANDING, m->outstanding, m->n_outstanding) ||
	    put_sites(st, process, STORE_PEAK, m->peak, m->n_peak) ||
	    put_sites(st, process, STORE_ALLOCATED, m->allocated, m->n_allocated) ||
	    (m->oom && put_sites(st, process, STORE_OOM, m->oom->sites, m->oom->n_sites)))
		return -EIO;
	return 0;
}

/* What 128 frames of three names of 4 KiB each take as JSON, and more. */
#define FRAMES_TEXT_MAX (2u << 20)

/* Frames as stored, checked: an array of at most 128 objects naming function and library. */
static json_object *frames_of(const char *text, int bytes)
{
	json_object *frames = text && bytes <= (int)FRAMES_TEXT_MAX ? json_tokener_parse(text)
								     : NULL;
	size_t nr;

	if (!frames || !json_object_is_type(frames, json_type_array) ||
	    (nr = json_object_array_length(frames)) > WIRE_MAX_SITE_FRAMES)
		goto bad;
	for (size_t i = 0; i < nr; i++) {
		json_object *f = json_object_array_get_idx(frames, i), *v;

		if (!json_object_object_get_ex(f, "function", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    !json_object_object_get_ex(f, "library", &v) ||
		    !json_object_is_type(v, json_type_string))
			goto bad;
	}
	return frames;
bad:
	json_object_put(frames);
	return NULL;
}

static int load_site(struct db_stmt *s, struct stored_owner *o)
{
	int kind = db_column_int(s, 0);
	uint32_t *nr = kind == STORE_OUTSTANDING ? &o->nr_outstanding :
		       kind == STORE_PEAK	 ? &o->nr_peak :
		       kind == STORE_OOM	 ? &o->nr_oom :
						   &o->nr_allocated;
	struct stored_site **sites = kind == STORE_OUTSTANDING ? &o->outstanding :
				     kind == STORE_PEAK	       ? &o->peak :
				     kind == STORE_OOM	       ? &o->oom_sites :
								 &o->allocated;
	struct stored_site *grown, *site;

	if (kind < STORE_OUTSTANDING || kind > STORE_OOM || *nr >= WIRE_MAX_OWNER_SITES)
		return -EINVAL;
	grown = realloc(*sites, (*nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	*sites = grown;
	site = &grown[*nr];
	*site = (struct stored_site){
		.frames = frames_of(db_column_text(s, 1),
				    db_column_bytes(s, 1)),
		.blocks = db_column_int64(s, 2),
		.bytes = db_column_int64(s, 3),
		.requested = db_column_int64(s, 4),
		.likely_leak = db_column_int(s, 5),
		.growth_bytes_per_second = db_column_double(s, 6),
	};
	if (!site->frames)
		return -EINVAL;
	(*nr)++;
	return 0;
}

int store_owner__load(struct store *st, int64_t process, bool totals_only,
		      struct stored_owner **out)
{
	struct db *db = store__db(st);
	struct stored_owner *o = NULL;
	struct db_stmt *s = NULL;
	int rc, err = 0;

	*out = NULL;
	/*
	 * A schema-1 file, never opened by a collector since: nothing stored. Schema 2: no
	 * frees before tracing (read as none sent). Before 6: no OOM kill (read as none).
	 */
	if (!(s = db__prepare(db, "SELECT blocks, bytes, peak_blocks, peak_bytes, freed_calls, "
				   "freed_bytes, freed_bytes_known, oom_time, oom_blocks, "
				   "oom_bytes, oom_cgroup FROM owner WHERE process = ?1", 0)) &&
	    (!strstr(db__errmsg(db), "no such column") ||
	     !(s = db__prepare(db, "SELECT blocks, bytes, peak_blocks, peak_bytes, freed_calls, "
				    "freed_bytes, freed_bytes_known, NULL, NULL, NULL, NULL "
				    "FROM owner WHERE process = ?1", 0))) &&
	    (!strstr(db__errmsg(db), "no such column") ||
	     !(s = db__prepare(db, "SELECT blocks, bytes, peak_blocks, peak_bytes, NULL, NULL, "
				    "NULL, NULL, NULL, NULL, NULL FROM owner "
				    "WHERE process = ?1", 0))))
		return strstr(db__errmsg(db), "no such table") ? 0 :
			store_db_error(st, "read who holds the memory");
	db_bind_int64(s, 1, process);
	if ((rc = db_step(s)) == DB_ROW && (o = calloc(1, sizeof(*o)))) {
		o->blocks = db_column_int64(s, 0);
		o->bytes = db_column_int64(s, 1);
		o->peak_blocks = db_column_int64(s, 2);
		o->peak_bytes = db_column_int64(s, 3);
		o->freed_known = !db_column_null(s, 4);
		o->freed_calls = db_column_int64(s, 4);
		o->freed_bytes = db_column_int64(s, 5);
		o->freed_bytes_known = db_column_int(s, 6);
		o->oom_killed = !db_column_null(s, 7);
		o->oom_time = db_column_double(s, 7);
		o->oom_blocks = db_column_int64(s, 8);
		o->oom_bytes = db_column_int64(s, 9);
		if (!db_column_null(s, 10))
			o->oom_cgroup = json_tokener_parse(db_column_text(s, 10));
	}
	db_stmt__finalize(s);
	if (rc != DB_ROW)
		return rc == DB_DONE ? 0 : store_db_error(st, "read who holds the memory");
	if (!o)
		return -ENOMEM;
	if (totals_only) {
		*out = o;
		return 0;
	}
	if (!(s = db__prepare(db, "SELECT kind, frames, blocks, bytes, requested, likely_leak, "
				   "growth_bytes_per_second FROM owner_sites WHERE process = ?1 "
				   "ORDER BY kind, position", 0))) {
		stored_owner__free(o);
		return store_db_error(st, "read allocation sites");
	}
	db_bind_int64(s, 1, process);
	while (!err && (rc = db_step(s)) == DB_ROW)
		err = load_site(s, o);
	db_stmt__finalize(s);
	if (err == -EINVAL)
		log_error("the database's allocation sites of process %ld are damaged: give the "
			  "file heaptap collect --db wrote", (long)process);
	else if (!err && rc != DB_DONE)
		err = store_db_error(st, "read allocation sites");
	if (err) {
		stored_owner__free(o);
		return err == -EINVAL ? -EIO : err;
	}
	*out = o;
	return 0;
}
