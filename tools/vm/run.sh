#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Run one command on another Linux kernel: Debian's kernel package of that version, booted
# in QEMU, with this machine's / shared read-only and the work tree writable at its own
# path; the command runs chrooted into that, in the current folder, and its exit status is
# this script's. Kernels are downloaded once (apt-get download) into .output/vm/.
#
#   tools/vm/run.sh [-m MEM] [-t SECONDS] VERSION -- COMMAND [ARG...]
#   tools/vm/run.sh 6.1 -- ./heaptap --version
#
# VERSION: 6.1 (Debian 12's linux-image-6.1.0-NN-amd64-unsigned, the newest apt knows), 6.12
# (bookworm-security's linux-image-6.12.NN+deb12-amd64-unsigned), or a package's full name.
# Exit status: the command's; 124 when it ran out of time; 125 when the VM could not run it.
set -euo pipefail

usage() {
	echo "usage: tools/vm/run.sh [-m MEM_MIB] [-t SECONDS] VERSION -- COMMAND [ARG...]" \
		"(VERSION: 6.1, 6.12 or a linux-image package's name)" >&2
	exit 125
}

die() {
	echo "tools/vm/run.sh: $*" >&2
	exit 125
}

mem=2048
timeout_s=900
while getopts m:t:h opt; do
	case $opt in
	m) mem=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] && [ "$2" = -- ] || usage
version=$1
shift 2

top=$(cd "$(dirname "$0")/../.." && pwd)
vmdir=$top/.output/vm
mkdir -p "$vmdir/debs"

# The package: the newest of that version apt knows (flavours cloud and rt left out).
case $version in
linux-image-*) package=$version ;;
*)
	[[ $version =~ ^[0-9]+\.[0-9]+$ ]] || usage
	minor=${version/./\\.}
	package=$(apt-cache search --names-only "^linux-image-$minor[.-].*-amd64-unsigned\$" \
		2>/dev/null | cut -d' ' -f1 | grep -v -e '-cloud-' -e '-rt-' | sort -V | tail -n1 || true)
	if [ -z "$package" ]; then
		# apt's lists may be gone or stale: a kernel downloaded before still serves.
		package=$(cd "$vmdir" && ls -d "linux-image-$version"[.-]*-amd64-unsigned 2>/dev/null |
			sort -V | tail -n1 || true)
	fi
	[ -n "$package" ] || die "no Linux $version kernel package found (apt-cache search" \
		"linux-image-$version; run apt-get update)"
	;;
esac

kdir=$vmdir/$package
if [ ! -e "$kdir/ready" ]; then
	rm -rf "$kdir"
	mkdir -p "$kdir"
	if ! (cd "$vmdir/debs" && apt-get download -q "$package" >"$kdir/download.log" 2>&1); then
		why=$(grep -m1 -E '^(E|W):' "$kdir/download.log" || tail -n1 "$kdir/download.log")
		rm -rf "$kdir"
		die "cannot download $package: $why"
	fi
	deb=$(ls "$vmdir/debs/${package}_"*.deb | tail -n1)
	dpkg-deb -x "$deb" "$kdir/root"
	rm -f "$deb"
	# depmod -b wants lib/modules under its base: newer packages put them in usr/lib.
	base= kver=
	for b in "$kdir/root" "$kdir/root/usr"; do
		for d in "$b"/lib/modules/*/; do
			[ -d "$d" ] && base=$b && kver=$(basename "$d")
		done
	done
	[ -n "$kver" ] || die "$package holds no modules"
	depmod -b "$base" "$kver"

	# The initramfs: busybox, /init, and the modules that reach the 9p shares.
	initrd=$kdir/initramfs
	mkdir -p "$initrd"/{bin,dev,proc,sys,newroot,modules}
	cp /bin/busybox "$initrd/bin/busybox"
	ln -s busybox "$initrd/bin/sh"
	modprobe -d "$base" -S "$kver" -a --show-depends virtio_pci 9pnet_virtio 9p |
		awk '$1 == "insmod" { print $2 }' | while read -r ko; do
			name=$(basename "$ko")
			case $name in
			*.ko) cp "$ko" "$initrd/modules/$name" ;;
			*.ko.xz) name=${name%.xz}; xz -dc "$ko" >"$initrd/modules/$name" ;;
			*.ko.zst) name=${name%.zst}; zstd -qdc "$ko" >"$initrd/modules/$name" ;;
			*) die "cannot unpack module $ko" ;;
			esac
			grep -qx "$name" "$initrd/modules/order" 2>/dev/null ||
				echo "$name" >>"$initrd/modules/order"
		done
	ln -sf "root/$(cd "$kdir/root" && ls boot/vmlinuz-*)" "$kdir/vmlinuz"
	touch "$kdir/ready"
fi
# /init is this folder's init.sh, as it is now.
if [ ! -e "$kdir/initramfs.cpio" ] || [ "$top/tools/vm/init.sh" -nt "$kdir/initramfs.cpio" ]; then
	install -m 0755 "$top/tools/vm/init.sh" "$kdir/initramfs/init"
	(cd "$kdir/initramfs" && find . | busybox cpio -o -H newc 2>/dev/null) \
		>"$kdir/initramfs.cpio"
fi

# The command, written where the VM can read it; its status comes back beside it.
run=$vmdir/runs/$$
rm -rf "$run"
mkdir -p "$run"
trap 'rm -rf "$run"' EXIT
# Quoted for sh (printf %q may quote the bash way, $'...').
quote() {
	local q="'\\''"
	printf " '%s'" "${1//\'/$q}"
}
{
	printf 'cd%s || exit 125\n' "$(quote "$PWD")"
	printf 'export HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n'
	printf 'exec'
	for arg; do quote "$arg"; done
	printf '\n'
} >"$run/command"

# TCG, single-threaded: /dev/kvm here may be a paravirtual one that runs no stock kernel,
# and multi-threaded TCG has crashed a 6.12 boot. KVM where kvm_intel or kvm_amd drives it.
accel="-accel tcg,thread=single"
if [ -w /dev/kvm ] && [ -d /sys/module/kvm_intel -o -d /sys/module/kvm_amd ]; then
	accel="-accel kvm"
fi
status=0
timeout --foreground -k 10 "$timeout_s" qemu-system-x86_64 $accel -cpu max -smp 2 -m "$mem" \
	-nodefaults -no-user-config -no-reboot -display none -serial stdio -monitor none \
	-kernel "$kdir/vmlinuz" -initrd "$kdir/initramfs.cpio" \
	-append "console=ttyS0 quiet loglevel=3 panic=-1 ht.run=$run ht.work=$top" \
	-virtfs local,path=/,mount_tag=root,security_model=passthrough,readonly=on,multidevs=remap \
	-virtfs "local,path=$top,mount_tag=work,security_model=passthrough,multidevs=remap" \
	-device virtio-rng-pci </dev/null |
	# The one line every reboot prints, whatever the log level.
	sed -u '/\] reboot: Restarting system\r*$/d' || status=${PIPESTATUS[0]}
if [ $status -eq 124 ]; then
	echo "tools/vm/run.sh: the command ran out of its $timeout_s s on $package" >&2
	exit 124
fi
[ -s "$run/status" ] || die "the VM ($package) stopped without the command's exit status" \
	"(qemu exit $status; its console is above)"
exit "$(cat "$run/status")"
