# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# heaptap on other kernels, booted in QEMU from Debian's packages (tools/vm/run.sh):
# Linux 6.1 (Debian 12's, no uprobe_multi links) and 6.12 (bookworm-security's), plus
# the perf event fallback forced on this machine's kernel. make test runs it.

# Only the VM tests need these: QEMU, busybox for the initramfs, kmod's depmod and
# modprobe, xz and zstd for compressed modules.
VM_PACKAGES := qemu-system-x86 busybox-static kmod xz-utils zstd
VM_KERNELS ?= 6.1 6.12

.PHONY: vm-test
vm-test: heaptap $(INTEG_BIN) $(TEST_TARGETS)
	$(call install_missing,$(VM_PACKAGES))
	$(Q)tools/vm/kernel_tests.sh $(VM_KERNELS)

# Attach and detach on those kernels, with and without uprobe_multi links (not in test).
.PHONY: vm-bench
vm-bench: heaptap
	$(call install_missing,$(VM_PACKAGES))
	$(Q)tools/vm/attach_cost.sh $(VM_KERNELS)
