# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Programs the integration tests and the demo trace. Built with frame pointers, without
# tail calls, so that every frame is on the stack for the frame-pointer unwinder.
TARGET_DIR := $(OUTPUT)/targets
TARGET_CFLAGS := -O1 -g -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls
TARGET_RPATH := -Wl,-rpath,'$$ORIGIN'

TEST_TARGETS := $(TARGET_DIR)/libgt.so $(TARGET_DIR)/groundtruth $(TARGET_DIR)/mpi_rank \
	$(TARGET_DIR)/demo $(TARGET_DIR)/groundtruth_static $(TARGET_DIR)/dlopener \
	$(TARGET_DIR)/libplugin.so $(TARGET_DIR)/libgt_nofp.so $(TARGET_DIR)/groundtruth_nofp \
	$(TARGET_DIR)/stack_chains $(TARGET_DIR)/libmix.so $(TARGET_DIR)/mpi_checksum \
	$(TARGET_DIR)/checksum_loop $(TARGET_DIR)/gtchild $(TARGET_DIR)/spawner \
	$(TARGET_DIR)/busy_threads $(TARGET_DIR)/mpi_tree $(TARGET_DIR)/mpi_workers $(TARGET_DIR)/env_rank
TEST_TARGETS += $(TARGET_DIR)/export_sites $(TARGET_DIR)/rank_sites $(TARGET_DIR)/rss_peak \
	$(TARGET_DIR)/rss_grow
TEST_TARGETS += $(TARGET_DIR)/libcpool.so $(TARGET_DIR)/pool_user $(TARGET_DIR)/cpool.spec \
	$(TARGET_DIR)/tbb_user
TEST_TARGETS += $(TARGET_DIR)/oom_grow $(TARGET_DIR)/node_phases
DEMO_TARGET := $(TARGET_DIR)/demo

$(TARGET_DIR):
	$(Q)mkdir -p $@

$(TARGET_DIR)/oom_grow: tests/targets/oom_grow.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

$(TARGET_DIR)/node_phases: tests/targets/node_phases.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

$(TARGET_DIR)/libgt.so: tests/targets/gtlib.c tests/targets/gtlib.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -fPIC -shared $< -pthread -o $@

$(TARGET_DIR)/groundtruth: tests/targets/groundtruth.c $(TARGET_DIR)/libgt.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -lgt $(TARGET_RPATH) \
		-pthread -o $@

# The same program linked statically, libgt and glibc inside: malloc is in the program.
$(TARGET_DIR)/groundtruth_static: tests/targets/groundtruth.c tests/targets/gtlib.c \
		tests/targets/gtlib.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -static -Itests/targets tests/targets/groundtruth.c \
		tests/targets/gtlib.c -pthread -o $@

$(TARGET_DIR)/mpi_rank: tests/targets/mpi_rank.c $(TARGET_DIR)/libgt.so
	$(call msg,MPICC,$@)
	$(Q)mpicc $(TARGET_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -lgt $(TARGET_RPATH) -o $@

$(TARGET_DIR)/mpi_tree: tests/targets/mpi_tree.c | $(TARGET_DIR)
	$(call msg,MPICC,$@)
	$(Q)mpicc $(TARGET_CFLAGS) $< -o $@

$(TARGET_DIR)/mpi_workers: tests/targets/mpi_workers.c $(TARGET_DIR)/libgt.so
	$(call msg,MPICC,$@)
	$(Q)mpicc $(TARGET_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -lgt $(TARGET_RPATH) \
		-pthread -o $@

# The same work in a program without MPI: its rank from SLURM_PROCID (or mpirun's variable).
$(TARGET_DIR)/env_rank: tests/targets/env_rank.c $(TARGET_DIR)/libgt.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -lgt $(TARGET_RPATH) -o $@

$(TARGET_DIR)/rss_peak: tests/targets/rss_peak.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

$(TARGET_DIR)/rss_grow: tests/targets/rss_grow.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

$(TARGET_DIR)/demo: tests/targets/demo.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -pthread -o $@

# Code without frame pointers, as Debian builds it: only .eh_frame unwinds through it.
# No sibling calls, so that the frames the tests expect are not tail-called away.
NOFP_CFLAGS := -O2 -g -D_GNU_SOURCE -Wall -Wextra -Werror -fomit-frame-pointer \
	-fno-optimize-sibling-calls

$(TARGET_DIR)/libplugin.so: tests/targets/plugin.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -fPIC -shared $< -o $@

$(TARGET_DIR)/dlopener: tests/targets/dlopener.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) $< -ldl -o $@

# The ground truth again, program and library, as a distribution would build them.
$(TARGET_DIR)/libgt_nofp.so: tests/targets/gtlib.c tests/targets/gtlib.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -fPIC -shared $< -pthread -o $@

$(TARGET_DIR)/groundtruth_nofp: tests/targets/groundtruth.c $(TARGET_DIR)/libgt_nofp.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -l:libgt_nofp.so \
		$(TARGET_RPATH) -pthread -o $@

$(TARGET_DIR)/stack_chains: tests/targets/stack_chains.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) $< -lz -pthread -o $@

# Checksum targets: work whose result does not depend on being traced, and loader events.
$(TARGET_DIR)/libmix.so: tests/targets/mixplugin.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -fPIC -shared $< -o $@

CKSUM_SRCS := tests/targets/cksum.c tests/targets/cksum.h

$(TARGET_DIR)/mpi_checksum: tests/targets/mpi_checksum.c $(CKSUM_SRCS) $(TARGET_DIR)/libmix.so
	$(call msg,MPICC,$@)
	$(Q)mpicc $(TARGET_CFLAGS) -Itests/targets $< tests/targets/cksum.c -ldl -o $@

$(TARGET_DIR)/checksum_loop: tests/targets/checksum_loop.c $(CKSUM_SRCS) $(TARGET_DIR)/libmix.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -Itests/targets $< tests/targets/cksum.c -ldl -o $@

$(TARGET_DIR)/gtchild: tests/targets/gtchild.c $(TARGET_DIR)/libgt.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -lgt $(TARGET_RPATH) \
		-pthread -o $@

$(TARGET_DIR)/spawner: tests/targets/spawner.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

$(TARGET_DIR)/busy_threads: tests/targets/busy_threads.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -pthread -o $@

# Sites of known figures for --pprof and --folded (tests/integration/test_exports.c).
$(TARGET_DIR)/export_sites: tests/targets/export_sites.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -pthread -o $@

# A rank with allocation sites of known figures (tests/integration/test_cluster_owner.c).
$(TARGET_DIR)/rank_sites: tests/targets/rank_sites.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

# A library with crafted sections (tests/integration/test_hostile_elf.c): built as Debian
# would, then copied by corrupt_elf, one corruption per copy; libhostile_good.so is intact.
HOSTILE_KINDS := truncated-eh-frame cie-loop whole-address-space unterminated-strtab \
	sizes-beyond-file
HOSTILE_LIBS := $(TARGET_DIR)/libhostile_good.so \
	$(patsubst %,$(TARGET_DIR)/libhostile_%.so,$(HOSTILE_KINDS))
TEST_TARGETS += $(TARGET_DIR)/hostile $(HOSTILE_LIBS)

$(TARGET_DIR)/corrupt_elf: tests/targets/corrupt_elf.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

$(TARGET_DIR)/libhostile.so: tests/targets/hostile_lib.c tests/targets/hostile.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -fPIC -shared $< -o $@

$(TARGET_DIR)/libhostile_good.so: $(TARGET_DIR)/libhostile.so
	$(call msg,CP,$@)
	$(Q)cp $< $@

$(TARGET_DIR)/libhostile_%.so: $(TARGET_DIR)/libhostile.so $(TARGET_DIR)/corrupt_elf
	$(call msg,CORRUPT,$@)
	$(Q)$(TARGET_DIR)/corrupt_elf $* $< $@

$(TARGET_DIR)/hostile: tests/targets/hostile.c tests/targets/hostile.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) $< -ldl -o $@

# Budgets (tests/integration/test_budget.c): libbigeh.so's .eh_frame (48000 FDEs, 1.1 MB)
# and rows (2.2 MiB) exceed the per-file budget the test gives; libbudget_small.so is the
# control. libmany.so, 4000 named functions, is copied hundreds of times by the test.
BUDGET_LIB_SRCS := tests/targets/budget_lib.c tests/targets/budget.h
TEST_TARGETS += $(TARGET_DIR)/bigeh $(TARGET_DIR)/manylibs $(TARGET_DIR)/libmany.so

$(TARGET_DIR)/libbudget_small.so: $(BUDGET_LIB_SRCS) | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -DPAD_FUNCTIONS=0 -DALLOC_FN=small_alloc -fPIC -shared $< -o $@

$(TARGET_DIR)/libbigeh.so: $(BUDGET_LIB_SRCS) | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -DPAD_FUNCTIONS=48000 -DALLOC_FN=big_alloc -fPIC -shared $< -o $@

$(TARGET_DIR)/libmany.so: $(BUDGET_LIB_SRCS) | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -DPAD_FUNCTIONS=4000 -DALLOC_FN=many_alloc -fPIC -shared $< -o $@

$(TARGET_DIR)/bigeh: tests/targets/bigeh.c tests/targets/budget.h \
		$(TARGET_DIR)/libbudget_small.so $(TARGET_DIR)/libbigeh.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -l:libbudget_small.so \
		-l:libbigeh.so $(TARGET_RPATH) -o $@

$(TARGET_DIR)/manylibs: tests/targets/manylibs.c tests/targets/budget.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(NOFP_CFLAGS) $< -ldl -o $@

# Names (tests/integration/test_names.c): a library as -O2 -g builds it, with clones, a
# split-off cold part, an inlined helper, tail calls to malloc and C++ (names_c.c says which).
NAMES_CFLAGS := -O2 -g -Wall -Wextra -Werror -fPIC
TEST_TARGETS += $(TARGET_DIR)/names $(TARGET_DIR)/libnames.so

$(TARGET_DIR)/libnames.so: tests/targets/names_c.c tests/targets/names_cpp.cc \
		tests/targets/names.h | $(TARGET_DIR)
	$(call msg,CXX,$@)
	$(Q)$(CC) $(NAMES_CFLAGS) -Itests/targets -c tests/targets/names_c.c -o $@.c.o
	$(Q)g++ $(NAMES_CFLAGS) -Itests/targets -c tests/targets/names_cpp.cc -o $@.cc.o
	$(Q)g++ -shared $@.c.o $@.cc.o -o $@
	$(Q)rm -f $@.c.o $@.cc.o

$(TARGET_DIR)/names: tests/targets/names.cc tests/targets/names.h $(TARGET_DIR)/libnames.so
	$(call msg,CXX,$@)
	$(Q)g++ -O2 -g -Wall -Wextra -Werror -Itests/targets $< -L$(TARGET_DIR) -lnames \
		$(TARGET_RPATH) -o $@

# Who holds the memory (test_owner.c): built without frame pointers, so that only
# .eh_frame unwinding finds its allocation sites.
TEST_TARGETS += $(TARGET_DIR)/owner_truth
$(TARGET_DIR)/owner_truth: tests/targets/owner_truth.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -g -D_GNU_SOURCE -Wall -Wextra -Werror -fomit-frame-pointer \
		-fno-optimize-sibling-calls $< -pthread -o $@
# Allocator APIs beyond the malloc family (--allocator): a pool on top of malloc with a
# brk-like global heap, described by cpool.spec; and TBB's scalable API, called directly.
$(TARGET_DIR)/libcpool.so: tests/targets/cpool.c tests/targets/cpool.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -fPIC -shared $< -o $@

$(TARGET_DIR)/cpool.spec: tests/targets/cpool.spec | $(TARGET_DIR)
	$(Q)cp $< $@

$(TARGET_DIR)/pool_user: tests/targets/pool_user.c tests/targets/api_truth.h \
		tests/targets/launcher_rank.h $(TARGET_DIR)/libcpool.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -lcpool $(TARGET_RPATH) \
		-pthread -o $@

$(TARGET_DIR)/tbb_user: tests/targets/tbb_user.c tests/targets/api_truth.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -Itests/targets $< -l:libtbbmalloc.so.2 -pthread -o $@
# The OS view (tests/integration/test_mappings.c): mapping calls of known sizes from the
# program, from libmaps, from a thread, and malloc's own; and an MPI rank that maps.
TEST_TARGETS += $(TARGET_DIR)/mappings $(TARGET_DIR)/libmaps.so $(TARGET_DIR)/mpi_mappings

$(TARGET_DIR)/libmaps.so: tests/targets/maplib.c tests/targets/maplib.h | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -fPIC -shared $< -o $@

$(TARGET_DIR)/mappings: tests/targets/mappings.c tests/targets/launcher_rank.h $(TARGET_DIR)/libmaps.so
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) -Itests/targets $< -L$(TARGET_DIR) -lmaps $(TARGET_RPATH) \
		-pthread -o $@

$(TARGET_DIR)/mpi_mappings: tests/targets/mpi_mappings.c | $(TARGET_DIR)
	$(call msg,MPICC,$@)
	$(Q)mpicc $(TARGET_CFLAGS) $< -ldl -o $@

# Sites holding known bytes, for --sample-bytes' estimates (test_sampling.c).
TEST_TARGETS += $(TARGET_DIR)/sample_truth
$(TARGET_DIR)/sample_truth: tests/targets/sample_truth.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -o $@

TEST_TARGETS += $(TARGET_DIR)/thread_calls
$(TARGET_DIR)/thread_calls: tests/targets/thread_calls.c | $(TARGET_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(TARGET_CFLAGS) $< -pthread -o $@
