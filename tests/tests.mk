# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Unit tests (Criterion, no root), integration tests (Criterion, drive ./heaptap as a user
# would; they skip with a reason when BPF cannot be loaded) and the programs they trace.

include tests/targets/targets.mk

UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(patsubst tests/%.c,$(OUTPUT)/tests/%.o,$(UNIT_SRCS))
INTEG_SRCS := $(wildcard tests/integration/*.c)
INTEG_OBJS := $(patsubst tests/%.c,$(OUTPUT)/tests/%.o,$(INTEG_SRCS))
UNIT_BIN := $(OUTPUT)/tests/unit_tests
INTEG_BIN := $(OUTPUT)/tests/integration_tests

$(OUTPUT)/tests/%.o: tests/%.c $(SKEL) $(PROTO_H) $(PROFILE_PROTO_H)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests -c $< -o $@

$(UNIT_OBJS) $(INTEG_OBJS) $(filter-out $(DEMO_TARGET),$(TEST_TARGETS)): | check-deps-test

$(UNIT_BIN): $(UNIT_OBJS) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(PKG_LIBS) -lcriterion -o $@

$(INTEG_BIN): $(INTEG_OBJS) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(PKG_LIBS) -lcriterion -o $@

# Re-run make after `deps-test` so that pkg-config sees freshly installed packages.
test:
	$(Q)$(MAKE) --no-print-directory deps-test
	$(Q)$(MAKE) --no-print-directory unit-test integration-test

# Everything the tests need, built but not run (for running one suite by hand:
# .output/tests/integration_tests --filter 'groundtruth/*', with HEAPTAP and TARGETS set).
.PHONY: test-build
test-build: heaptap $(UNIT_BIN) $(INTEG_BIN) $(TEST_TARGETS) docs deb

unit-test: $(UNIT_BIN)
	$(Q)$(UNIT_BIN)

integration-test: heaptap $(INTEG_BIN) $(TEST_TARGETS) docs deb
	$(Q)HEAPTAP=$(abspath heaptap) TARGETS=$(abspath $(TARGET_DIR)) $(INTEG_BIN) --jobs 1

# The picture of report --html in tools/docs/reports.md: the screenshot html/job_page takes
# of its synthetic 8-rank job in headless chromium.
.PHONY: report-screenshot
report-screenshot: heaptap $(INTEG_BIN)
	$(Q)mkdir -p tools/docs
	$(Q)HEAPTAP=$(abspath heaptap) TARGETS=$(abspath $(TARGET_DIR)) \
		HEAPTAP_SCREENSHOT=$(abspath tools/docs/report-page.png) \
		$(INTEG_BIN) --jobs 1 --filter 'html/job_page'
	@echo "  SHOT     tools/docs/report-page.png"
