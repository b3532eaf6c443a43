/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The database's schema (tools/docs/cluster.md documents it), shared by writer and readers. */
#ifndef HEAPTAP_STORE_SCHEMA_H
#define HEAPTAP_STORE_SCHEMA_H

/* Kinds of groups (column kind of groups). */
enum store_kind { STORE_TOTAL = 0, STORE_THREAD = 1, STORE_LIBRARY = 2, STORE_FUNCTION = 3 };

/* Lists of owner_sites (column kind). */
enum store_owner_list {
	STORE_OUTSTANDING = 0,
	STORE_PEAK = 1,
	STORE_ALLOCATED = 2,
	STORE_OOM = 3, /* what each site held when the OOM killer chose the process */
};

/* The call counts' columns, in enum ht_func order. */
#define STORE_CALL_COLUMNS                                                                    \
	"malloc, calloc, realloc, reallocarray, free, memalign, posix_memalign, "            \
	"aligned_alloc, valloc, pvalloc"

/*
 * Schema 2: who holds the memory, per process (its newest Owner message): the totals, and
 * its largest sites, kind 0 outstanding at the end, 1 at the peak; frames a JSON array as
 * the reports write them. A schema-1 file gains these tables when a collector opens it.
 * Schema 3: the frees of blocks allocated before tracing (freed_*, NULL when the agent did
 * not send them), and kind 2, the sites that allocated the most while traced; a schema-2
 * file gains the columns (STORE_OWNER_FREED_COLUMNS) when a collector opens it.
 */
#define STORE_OWNER_FREED_COLUMNS                                                             \
	"ALTER TABLE owner ADD COLUMN freed_calls INTEGER;"                                   \
	"ALTER TABLE owner ADD COLUMN freed_bytes INTEGER;"                                   \
	"ALTER TABLE owner ADD COLUMN freed_bytes_known INTEGER;"

/*
 * Schema 5: each process's user (uid, user_name: its real uid and that uid's name where
 * its agent ran; NULL when unknown); a schema-4 file gains the columns when a collector
 * opens it.
 */
#define STORE_PROCESS_USER_COLUMNS                                                            \
	"ALTER TABLE processes ADD COLUMN uid INTEGER;"                                       \
	"ALTER TABLE processes ADD COLUMN user_name TEXT;"

/*
 * Schema 6: the OOM killer's choice (oom_time seconds into tracing, NULL: not chosen;
 * oom_blocks, oom_bytes the total then; oom_cgroup the memory cgroup's figures as JSON,
 * {"version", "path", "usage_bytes", "limit_bytes", "max_usage_bytes"}), and kind 3, the
 * sites that held the most then; a schema-5 file gains the columns when a collector opens it.
 */
#define STORE_OWNER_OOM_COLUMNS                                                               \
	"ALTER TABLE owner ADD COLUMN oom_time REAL;"                                         \
	"ALTER TABLE owner ADD COLUMN oom_blocks INTEGER;"                                    \
	"ALTER TABLE owner ADD COLUMN oom_bytes INTEGER;"                                     \
	"ALTER TABLE owner ADD COLUMN oom_cgroup TEXT;"

/*
 * Schema 7: each process's --sample-bytes R (sample_bytes; NULL: every call traced, its
 * figures exact; else they are estimates); a schema-6 file gains the column when a
 * collector opens it.
 */
#define STORE_PROCESS_SAMPLE_COLUMNS "ALTER TABLE processes ADD COLUMN sample_bytes INTEGER;"

#define STORE_OWNER_SCHEMA                                                                    \
	"CREATE TABLE IF NOT EXISTS owner ("                                                  \
	"  process INTEGER PRIMARY KEY REFERENCES processes(id), blocks INTEGER,"            \
	"  bytes INTEGER, peak_blocks INTEGER, peak_bytes INTEGER, freed_calls INTEGER,"     \
	"  freed_bytes INTEGER, freed_bytes_known INTEGER, oom_time REAL, oom_blocks INTEGER," \
	"  oom_bytes INTEGER, oom_cgroup TEXT);"                                  \
	"CREATE TABLE IF NOT EXISTS owner_sites ("                                            \
	"  process INTEGER NOT NULL REFERENCES processes(id), kind INTEGER NOT NULL,"        \
	"  position INTEGER NOT NULL, frames TEXT NOT NULL, blocks INTEGER, bytes INTEGER,"  \
	"  requested INTEGER, likely_leak INTEGER, growth_bytes_per_second REAL,"            \
	"  PRIMARY KEY (process, kind, position)) WITHOUT ROWID;"

/*
 * Schema 4: each process's OS view (its newest Mappings message) and --allocator accounts
 * (its newest AllocatorApis): groups by kind as in groups (a: the thread's tid; library and
 * function by text, '' where none), allocator APIs by name. A schema-3 file gains these
 * tables when a collector opens it.
 */
#define STORE_OS_SCHEMA                                                                       \
	"CREATE TABLE IF NOT EXISTS mapping_groups ("                                         \
	"  process INTEGER NOT NULL REFERENCES processes(id), kind INTEGER NOT NULL,"        \
	"  a INTEGER NOT NULL, library TEXT NOT NULL, function TEXT NOT NULL, name TEXT,"    \
	"  current INTEGER, min INTEGER, max INTEGER, anonymous INTEGER, file INTEGER,"      \
	"  brk INTEGER, malloc_own INTEGER, mmap_calls INTEGER, munmap_calls INTEGER,"       \
	"  mremap_calls INTEGER, brk_calls INTEGER, madvise_calls INTEGER,"                  \
	"  released_calls INTEGER, released_bytes INTEGER, before_tracing_calls INTEGER,"   \
	"  before_tracing_bytes INTEGER,"                                                     \
	"  PRIMARY KEY (process, kind, a, library, function)) WITHOUT ROWID;"                \
	"CREATE TABLE IF NOT EXISTS mapping_rss ("                                            \
	"  process INTEGER PRIMARY KEY REFERENCES processes(id), rss INTEGER,"               \
	"  rss_max INTEGER);"                                                                  \
	"CREATE TABLE IF NOT EXISTS allocators ("                                             \
	"  process INTEGER NOT NULL REFERENCES processes(id), allocator TEXT NOT NULL,"      \
	"  position INTEGER NOT NULL, library TEXT, freed_unknown INTEGER,"                  \
	"  PRIMARY KEY (process, allocator)) WITHOUT ROWID;"                                  \
	"CREATE TABLE IF NOT EXISTS allocator_groups ("                                       \
	"  process INTEGER NOT NULL REFERENCES processes(id), allocator TEXT NOT NULL,"      \
	"  kind INTEGER NOT NULL, a INTEGER NOT NULL, library TEXT NOT NULL,"                \
	"  function TEXT NOT NULL, name TEXT, current INTEGER, min INTEGER, max INTEGER,"    \
	"  requested INTEGER, malloc INTEGER, calloc INTEGER, realloc INTEGER, free INTEGER," \
	"  memalign INTEGER, posix_memalign INTEGER, brk INTEGER,"                           \
	"  PRIMARY KEY (process, allocator, kind, a, library, function)) WITHOUT ROWID;"

/* The query of the view that names the groups, on both backends. */
#define STORE_BALANCES_VIEW                                                                   \
	"  SELECT g.process, CASE g.kind WHEN 0 THEN 'total' WHEN 1 THEN 'thread'"           \
	"    WHEN 2 THEN 'library' ELSE 'function' END AS kind,"                              \
	"    CASE g.kind WHEN 1 THEN g.a END AS tid,"                                          \
	"    CASE g.kind WHEN 2 THEN l.text WHEN 3 THEN l.text END AS library,"               \
	"    CASE g.kind WHEN 3 THEN f.text WHEN 1 THEN g.name END AS name,"                  \
	"    g.current, g.min, g.max, g.requested, " STORE_CALL_COLUMNS                         \
	"  FROM groups g LEFT JOIN names l ON g.kind IN (2, 3) AND l.id = g.a"                \
	"  LEFT JOIN names f ON g.kind = 3 AND f.id = g.b;"

#define STORE_SCHEMA                                                                          \
	"CREATE TABLE IF NOT EXISTS agents ("                                                 \
	"  id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, host TEXT, command TEXT,"       \
	"  pid INTEGER, attribution TEXT, first_seen REAL, last_seen REAL,"                  \
	"  last_seq INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT 'connected',"     \
	"  dropped_messages INTEGER NOT NULL DEFAULT 0);"                                     \
	"CREATE TABLE IF NOT EXISTS runs ("                                                   \
	"  id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, job TEXT, command TEXT,"        \
	"  started REAL, attribution TEXT);"                                                  \
	"CREATE TABLE IF NOT EXISTS processes ("                                              \
	"  id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id),"                \
	"  agent INTEGER NOT NULL REFERENCES agents(id), key INTEGER NOT NULL,"              \
	"  host TEXT, pid INTEGER, rank INTEGER, world_size INTEGER, local_rank INTEGER,"    \
	"  job TEXT, command TEXT, allocator TEXT, usable_known INTEGER,"                    \
	"  first_seen REAL, last_seen REAL, state TEXT NOT NULL DEFAULT 'running',"          \
	"  exit_status INTEGER, signal INTEGER, lost_events INTEGER DEFAULT 0,"              \
	"  incomplete_stacks INTEGER DEFAULT 0, holds_skipped INTEGER DEFAULT 0,"            \
	"  unsupported_unwinds INTEGER DEFAULT 0, uid INTEGER, user_name TEXT,"              \
	"  sample_bytes INTEGER, UNIQUE (agent, key));"                     \
	"CREATE INDEX IF NOT EXISTS processes_of_run ON processes (run);"                     \
	"CREATE TABLE IF NOT EXISTS names (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);" \
	"CREATE TABLE IF NOT EXISTS groups ("                                                 \
	"  process INTEGER NOT NULL REFERENCES processes(id), kind INTEGER NOT NULL,"        \
	"  a INTEGER NOT NULL, b INTEGER NOT NULL, name TEXT,"                               \
	"  current INTEGER, min INTEGER, max INTEGER, requested INTEGER,"                    \
	"  malloc INTEGER, calloc INTEGER, realloc INTEGER, reallocarray INTEGER,"           \
	"  free INTEGER, memalign INTEGER, posix_memalign INTEGER, aligned_alloc INTEGER,"   \
	"  valloc INTEGER, pvalloc INTEGER,"                                                 \
	"  PRIMARY KEY (process, kind, a, b)) WITHOUT ROWID;"                                 \
	"CREATE TABLE IF NOT EXISTS samples ("                                                \
	"  process INTEGER NOT NULL REFERENCES processes(id), t REAL NOT NULL,"              \
	"  current INTEGER NOT NULL, max INTEGER NOT NULL);"                                  \
	"CREATE INDEX IF NOT EXISTS samples_of_process ON samples (process, t);"             \
	STORE_OWNER_SCHEMA                                                                     \
	STORE_OS_SCHEMA                                                                        \
	"CREATE VIEW IF NOT EXISTS balances AS" STORE_BALANCES_VIEW

#endif
