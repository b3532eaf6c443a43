# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# libFuzzer targets (ASan + UBSan) for every parser of bytes a traced process controls.
# `make fuzz FUZZ_SECONDS=N` builds them and runs each for N seconds; see tests/fuzz/run.sh.
FUZZ_DIR := $(OUTPUT)/fuzz
FUZZ_SECONDS ?= 30
# clang's fuzzer runtime: Debian ships it apart from the compiler.
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev binutils
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -g -O1 -fno-omit-frame-pointer $(FUZZ_SAN) $(WARN) -std=gnu11 -D_GNU_SOURCE \
	-MMD -MP -Iinclude $(USER_INCLUDES) -I$(OUTPUT)/proto -Itests/fuzz $(PKG_CFLAGS)

# Each fuzzer: the parser files it drives (and helpers of tests/fuzz/), its seed corpus, its
# longest input.
FUZZ_elfsyms_SRCS := symbols/elfsyms symbols/elfsyms_debug symbols/elfsyms_order \
	symbols/elfsyms_sections symbols/symcache symbols/answer_table symbols/debug_file \
	symbols/callsite symbols/naming symbols/frame_names symbols/source_name \
	symbols/funcstarts symbols/inlines symbols/strpool \
	symbols/cfi host/procmaps host/procfs symbols/elf_limits symbols/budget
FUZZ_elfsyms_EXTRA := quiet_log
FUZZ_elfsyms_SEEDS := elf:40960
FUZZ_callsite_SRCS := symbols/callsite symbols/elf_limits
FUZZ_callsite_SEEDS := elf:40960
FUZZ_unwind_table_SRCS := trace/unwind_table symbols/cfi symbols/cfi_program symbols/elf_limits
FUZZ_unwind_table_SEEDS := elf:40960
FUZZ_procmaps_SRCS := host/procmaps host/procfs
FUZZ_procmaps_SEEDS := procmaps:65536
FUZZ_rank_SRCS := host/rank host/procfs
FUZZ_rank_SEEDS := rank:16384
FUZZ_procfs_SRCS := host/procfs
FUZZ_procfs_SEEDS := procfs:65536
# The collector's decoder: frames from the network, and the messages' own objects.
FUZZ_wire_SRCS := cluster/wire cluster/os_wire_check cluster/run_wire cluster/run_view \
	cluster/arena account/stored_owner \
	account/accountant symbols/attribution
FUZZ_wire_EXTRA := quiet_log
FUZZ_wire_OBJS := $(FUZZ_DIR)/proto/heaptap.pb-c.o
FUZZ_wire_SEEDS := wire:16384

FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_NAMES))
FUZZ_SEEDED := $(FUZZ_DIR)/corpus/seeds/.done

.PHONY: fuzz-deps fuzz-build

fuzz-deps:
	$(call install_missing,$(FUZZ_PACKAGES))

# Parser objects built for fuzzing: instrumented for coverage and the sanitizers.
$(FUZZ_DIR)/obj/%.o: user/%.c | $(PROTO_H)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# The fuzzers, and their helpers (quiet_log.c: user/base/log.c's messages formatted, then dropped).
$(FUZZ_DIR)/%.o: tests/fuzz/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

# The wire's generated code, instrumented like the rest (not held to our warnings).
$(FUZZ_DIR)/proto/heaptap.pb-c.o: $(PROTO_C)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(PKG_CFLAGS) -c $< -o $@

define FUZZER_RULE
$(FUZZ_DIR)/fuzz_$(1): $(FUZZ_DIR)/fuzz_$(1).o $(patsubst %,$(FUZZ_DIR)/obj/%.o,$(FUZZ_$(1)_SRCS)) \
		$(patsubst %,$(FUZZ_DIR)/%.o,$(FUZZ_$(1)_EXTRA)) $(FUZZ_$(1)_OBJS)
	$$(call msg,FUZZER,$$@)
	$$(Q)$$(CLANG) $$(FUZZ_SAN) -fsanitize=fuzzer $$^ $$(PKG_LIBS) -o $$@
endef
$(foreach n,$(FUZZ_NAMES),$(eval $(call FUZZER_RULE,$(n))))

$(FUZZ_SEEDED): tests/fuzz/seeds.sh
	$(call msg,SEEDS,$(@D))
	$(Q)tests/fuzz/seeds.sh $(@D) && touch $@

# The wire's seeds: frames of a real conversation, written by a program that encodes them.
WIRE_SEEDS_OBJS := $(FUZZ_DIR)/wire_seeds.o $(patsubst %,$(FUZZ_DIR)/obj/%.o,$(FUZZ_wire_SRCS)) \
	$(FUZZ_DIR)/quiet_log.o $(FUZZ_wire_OBJS)
$(FUZZ_DIR)/wire_seeds: $(WIRE_SEEDS_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) $(FUZZ_SAN) $^ $(PKG_LIBS) -o $@

$(FUZZ_DIR)/corpus/seeds/wire/.done: $(FUZZ_DIR)/wire_seeds
	$(call msg,SEEDS,$(@D))
	$(Q)mkdir -p $(@D) && $< $(@D) && touch $@

fuzz-build: $(FUZZ_BINS) $(FUZZ_SEEDED) $(FUZZ_DIR)/corpus/seeds/wire/.done

# Re-run make after fuzz-deps so that a freshly installed runtime is seen.
fuzz:
	$(Q)$(MAKE) --no-print-directory fuzz-deps
	$(Q)$(MAKE) --no-print-directory fuzz-build
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_DIR) \
		$(foreach n,$(FUZZ_NAMES),fuzz_$(n):$(FUZZ_$(n)_SEEDS))

-include $(wildcard $(FUZZ_DIR)/obj/*.d $(FUZZ_DIR)/obj/*/*.d)
