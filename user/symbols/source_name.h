/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * From a linker's symbol to the name the source uses: GCC's clone and split suffixes
 * folded (foo.constprop.0, foo.isra.0.cold: foo), C++ and Rust demangled (libiberty).
 * Pure string work on one name; which symbol names a frame is naming.h's business.
 */
#ifndef HEAPTAP_SOURCE_NAME_H
#define HEAPTAP_SOURCE_NAME_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Length of raw without its compiler-made suffixes: .constprop.N, .isra.N, .part.N,
 * .cold[.N], .lto_priv.N, .clone.N, .localalias, .llvm.N, .__uniq.N, in any combination.
 * A dot not followed by such suffixes up to the end (foo.bar) stays.
 */
size_t source_name__base_len(const char *raw);

/*
 * The source name of raw, malloc'd: suffixes folded, then demangled with parameter types
 * ("ns::Pool::grab(unsigned long)"); a C name stays as it is. NULL when out of memory.
 */
char *source_name__of(const char *raw);

/*
 * Is raw (a mangled name, suffixes allowed) one of C++'s operator new, new[], delete or
 * delete[], in any of their sized, aligned or nothrow forms? Those are the allocator's
 * entry points as far as attribution goes.
 */
bool source_name__is_cxx_allocator(const char *raw);

/*
 * Between two symbols at one address, does a name the other's P-prefixed profiling alias
 * (PMPI_Send for MPI_Send)? Then the other is the public name.
 */
bool source_name__is_profiling_alias(const char *name, const char *other);

#endif
