/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Where a traced process's file has its separate debug file, looked for where gdb looks,
 * in the process's mount namespace (the file's path reaches it through /proc/PID/root).
 */
#ifndef HEAPTAP_DEBUG_FILE_H
#define HEAPTAP_DEBUG_FILE_H

#include "elfsyms.h"

/* The length of the target's root at the start of path ("/proc/PID/root"), 0 when none. */
int debug_file__root_len(const char *path);
/*
 * The debug file of the file at open_path, whose symbols are syms: by build id under
 * /usr/lib/debug/.build-id (Debian's -dbg packages), then the file its .gnu_debuglink
 * names (its CRC32 checked) beside it, in .debug/ beside it, or under /usr/lib/debug.
 * A path to free, or NULL when none is found.
 */
char *debug_file__find(const struct elfsyms *syms, const char *open_path);

#endif
