#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# /init of the VM's initramfs (tools/vm/run.sh builds it): load the virtio and 9p modules,
# mount the host's / read-only and the work tree writable at its own path, chroot into it
# to run the one command run.sh wrote, write its exit status beside it, and power off.
# Runs under busybox; the kernel command line says where the command is (ht.run=DIR) and
# which folder is writable (ht.work=DIR).

/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

run= work=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	ht.run=*) run=${arg#ht.run=} ;;
	ht.work=*) work=${arg#ht.work=} ;;
	esac
done

fail() {
	echo "vm init: $*" >/dev/console
	reboot -f
}

# The modules' order is their dependencies' (run.sh wrote it with modprobe --show-depends).
while read -r module; do
	insmod "/modules/$module" 2>/dev/null || fail "cannot load $module"
done </modules/order

# cache=loose: a file keeps one inode however often it is looked up, as uprobes need (they
# are placed on the inode a path names, and fire on the inode a process mapped).
opts=trans=virtio,version=9p2000.L,msize=512000,cache=loose
mkdir -p /newroot
mount -t 9p -o "$opts,ro" root /newroot || fail "cannot mount the host's / over 9p"

# What a booted system has, and what heaptap needs: bpffs, tracefs, debugfs.
mount -t proc proc /newroot/proc
mount -t sysfs sysfs /newroot/sys
mount -t devtmpfs devtmpfs /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
ln -s /proc/self/fd /newroot/dev/fd
ln -s /proc/self/fd/0 /newroot/dev/stdin
ln -s /proc/self/fd/1 /newroot/dev/stdout
ln -s /proc/self/fd/2 /newroot/dev/stderr
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
mount -t tmpfs tmpfs /newroot/tmp
mount -t tmpfs tmpfs /newroot/run
mount -t tmpfs tmpfs /newroot/var/tmp
mount -t tmpfs tmpfs /newroot/root
# After those: a work tree under /tmp or /root would be hidden by their tmpfs (a clean
# checkout in /tmp was), and its directory is made in the tmpfs.
mkdir -p "/newroot$work" 2>/dev/null
mount -t 9p -o "$opts" work "/newroot$work" || fail "cannot mount $work over 9p"
mount -t bpf bpf /newroot/sys/fs/bpf
mount -t tracefs tracefs /newroot/sys/kernel/tracing
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup 2>/dev/null
ip link set lo up
hostname vm

# The command's output goes to the serial console, which run.sh copies to its own output.
stty -onlcr 2>/dev/null </dev/console
chroot /newroot /bin/sh "$run/command" </dev/null >/dev/console 2>&1
echo $? >"/newroot$run/status"
sync
umount "/newroot$work" 2>/dev/null
reboot -f
