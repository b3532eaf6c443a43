#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Seed corpora for the fuzzers, from this machine's own files: small Debian libraries and a
# program, their separate debug files, slices of libc, and real /proc files.
# Usage: seeds.sh CORPUS_DIR (one subdirectory per fuzzer; existing ones are kept).
set -eu
out=$1
lib=/lib/x86_64-linux-gnu

mkdir -p "$out/elf" "$out/procmaps" "$out/rank" "$out/procfs"

elf_seed() { # NAME FILE: a copy, if this machine has the file
	[ -r "$2" ] && cp "$2" "$out/elf/$1" || echo "seeds: no $2, seed $1 skipped" >&2
}
debug_of() { # FILE: its separate debug file (libc6-dbg), by build id
	id=$(readelf -n "$1" 2>/dev/null | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] &&
		echo "/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
}

# Whole files: small glibc libraries and what their -dbg files hold.
for f in libdl.so.2 libutil.so.1 libBrokenLocale.so.1; do
	elf_seed "$f" "$lib/$f"
	elf_seed "$f.debug" "$(debug_of "$lib/$f")"
done
# Bigger files, sliced to what the parsers read (the fuzzers take inputs up to 40 KiB, to
# run fast): symbols, relocations, PLT and GOT, unwind tables, notes, interpreter.
for f in "$lib/libz.so.1" /usr/bin/true; do
	objcopy -j .interp -j .note.gnu.build-id -j .dynsym -j .dynstr -j .rela.dyn \
		-j .rela.plt -j .plt -j .plt.got -j .plt.sec -j .got -j .got.plt \
		-j .eh_frame_hdr -j .eh_frame "$f" "$out/elf/$(basename "$f").slice" 2>/dev/null
done
# libc itself: its first 40 KiB (headers, notes, hash table and symbols, the section table
# cut off), and its section table alone (every allocated section made NOBITS: sizes with
# no bytes behind them).
head -c 40960 "$lib/libc.so.6" >"$out/elf/libc-head"
objcopy --only-keep-debug "$lib/libc.so.6" "$out/elf/libc-sections"

# /proc files of real processes: a shell, cat, a program whose name holds ") (".
cat /proc/self/maps >"$out/procmaps/cat"
cat "/proc/$$/maps" >"$out/procmaps/sh"
# A process with many libraries, when this one may read it.
cat /proc/1/maps >"$out/procmaps/init" 2>/dev/null && [ -s "$out/procmaps/init" ] ||
	rm -f "$out/procmaps/init"
cat /proc/self/environ >"$out/rank/plain"
env -i OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_LOCAL_RANK=1 \
	OMPI_MCA_ess_base_jobid=4242 PATH=/usr/bin cat /proc/self/environ >"$out/rank/ompi"
env -i PMI_RANK=5 PMI_SIZE=6 MPI_LOCALRANKID=0 PMIX_NAMESPACE=job.7 PMIX_RANK=5 \
	SLURM_PROCID=5 SLURM_NTASKS=6 SLURM_LOCALID=2 SLURM_JOB_ID=123 \
	cat /proc/self/environ >"$out/rank/pmi"
odd=$(mktemp -d)
ln -s "$(command -v cat)" "$odd/x) R (y"
"$odd/x) R (y" /proc/self/stat >"$out/procfs/stat-odd-name"
rm -r "$odd"
cat /proc/self/stat >"$out/procfs/stat"
cat /proc/self/status >"$out/procfs/status"
cat "/proc/$$/maps" >"$out/procfs/maps"
