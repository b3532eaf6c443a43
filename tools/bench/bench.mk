# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# make bench: the call tree's cost per call (20 frames deep); eight processes at full speed
# (events lost?) and the live view's own cost;
# each entry point's probe cost at its entry and at heaptap's site, and a single-stepped
# hit against an emulated one; unwinding ~20 frames through code without frame pointers,
# tables vs frame pointers vs empty probes vs probes on entries, and the table build cost
# of an MPI rank's libraries; attaching to and detaching from many processes, and
# following 100 short commands; an MPI job's start, and its JSON report's bytes per rank
# and read speed; heaptap's BPF run time per call at 7 and
# 20 frames (kernel BPF statistics: no trap in it); the consumer's CPU per event (perf
# stat of heaptap over a malloc+free loop); then heaptap's cost per malloc+free
# pair next to untraced and empty probes at entries and at sites. Each section ends with
# its ratio or figure line. First
# the cluster's: a collector's ingest from simulated agents, an agent's CPU next to attach's.
BENCH_DIR := $(OUTPUT)/bench
MPICC ?= mpicc

$(BENCH_DIR):
	$(Q)mkdir -p $@

$(BENCH_DIR)/malloc_loop: tools/bench/malloc_loop.c | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer $< -o $@

# The same loop as a distribution would build it: only .eh_frame unwinds through it.
$(BENCH_DIR)/malloc_loop_nofp: tools/bench/malloc_loop.c | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls $< -o $@

$(BENCH_DIR)/hold_blocks: tools/bench/hold_blocks.c | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g $< -o $@

$(BENCH_DIR)/entry_loop: tools/bench/entry_loop.c | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -g -D_GNU_SOURCE $< -o $@

$(BENCH_DIR)/mpi_start: tools/bench/mpi_start.c | $(BENCH_DIR)
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) -O2 -g $< -o $@

$(BENCH_DIR)/unwind_cost: tools/bench/unwind_cost.c $(LIB_OBJS) | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) -o $@

$(BENCH_DIR)/ingest: tools/bench/ingest.c $(LIB_OBJS) | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) -o $@

$(BENCH_DIR)/calltree_cost: tools/bench/calltree_cost.c $(LIB_OBJS) | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) -o $@

$(BENCH_DIR)/live_block_cost: tools/bench/live_block_cost.c $(LIB_OBJS) | $(BENCH_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LIB_OBJS) $(PKG_LIBS) -o $@

$(BENCH_DIR)/empty.bpf.o: tools/bench/empty.bpf.c vmlinux.h | $(BENCH_DIR)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BENCH_DIR)/empty.skel.h: $(BENCH_DIR)/empty.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name empty_bpf > $@

$(BENCH_DIR)/empty_probes: tools/bench/empty_probes.c $(BENCH_DIR)/empty.skel.h $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(BENCH_DIR) $< $(LIB_OBJS) $(PKG_LIBS) -o $@

# The other figures first, so that the run ends with the per-pair heaptap/empty line.
bench: heaptap $(BENCH_DIR)/malloc_loop $(BENCH_DIR)/malloc_loop_nofp $(BENCH_DIR)/empty_probes \
		$(BENCH_DIR)/unwind_cost $(BENCH_DIR)/mpi_start $(BENCH_DIR)/entry_loop \
		$(BENCH_DIR)/calltree_cost $(BENCH_DIR)/ingest $(BENCH_DIR)/hold_blocks \
		$(BENCH_DIR)/live_block_cost $(TEST_TARGETS)
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/owner.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) TARGETS=$(TARGET_DIR) tools/bench/cluster.sh
	$(Q)$(BENCH_DIR)/calltree_cost
	$(Q)$(BENCH_DIR)/live_block_cost
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/many.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/sites.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/depth.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/attach.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/mpi_start.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/mpi_burst.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) RANKS=64 ROUNDS=1 tools/bench/mpi_burst.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/report_size.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) CC=$(CC) tools/bench/os_view.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/bpf_cost.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/consumer.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/sampled.sh
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/run.sh

# The consumer's CPU per event over a malloc+free loop, alone (a section of bench).
.PHONY: bench-consumer
bench-consumer: heaptap $(BENCH_DIR)/malloc_loop
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/consumer.sh

# --sample-bytes 512K: an unsampled pair's BPF time, and the sampled run next to empty
# probes at heaptap's sites, with session uprobes and without (a section of bench).
.PHONY: bench-sampled
bench-sampled: heaptap $(BENCH_DIR)/malloc_loop $(BENCH_DIR)/empty_probes
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/sampled.sh

# heaptap's own BPF run time per call at 7 and 20 frames, alone (a section of bench).
.PHONY: bench-bpf
bench-bpf: heaptap $(BENCH_DIR)/malloc_loop_nofp $(BENCH_DIR)/empty_probes
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/bpf_cost.sh

# The collector's ingest into SQLite and PostgreSQL, and the agent's CPU (a section of bench).
.PHONY: bench-cluster
bench-cluster: heaptap $(BENCH_DIR)/ingest $(BENCH_DIR)/malloc_loop $(TEST_TARGETS)
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) TARGETS=$(TARGET_DIR) tools/bench/cluster.sh

# What a stack new to a process costs at an MPI start, 1 and 4 ranks (needs perf): not in bench.
.PHONY: bench-stacks
bench-stacks: heaptap $(BENCH_DIR)/mpi_start
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/stack_cost.sh 1 4

# Where an MPI job's start under heaptap spends its time (one run, needs perf): not in bench.
.PHONY: bench-profile
bench-profile: heaptap $(BENCH_DIR)/mpi_start
	$(Q)HEAPTAP=./heaptap BENCH_DIR=$(BENCH_DIR) tools/bench/mpi_profile.sh
