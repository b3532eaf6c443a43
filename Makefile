# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# make            build ./heaptap
# make demo       build, trace the bundled demo workload, print its report
# make test       install missing Debian packages, build, run unit and integration tests,
#                 and the VM tests (make vm-test: heaptap on Linux 6.1 and 6.12 in QEMU)
# make bench      print the overhead figures (traced vs. empty probes vs. untraced)
# make fuzz       fuzz every parser of a target's bytes, FUZZ_SECONDS (30) each
# make install    install the binary, its man pages, bash and zsh completion (PREFIX=/usr/local)
# make docs       the man pages and the bash and zsh completion, in .output/man, .output/completion
# make deb        build the Debian package .output/heaptap_VERSION_amd64.deb
# make report-screenshot  redraw tools/docs/report-page.png, the picture of report --html
# V=1 shows full commands.

OUTPUT ?= .output
PREFIX ?= /usr/local
CLANG ?= clang
BPFTOOL ?= bpftool
CC ?= cc
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

# Debian packages. `make deps` installs those that building heaptap, its Debian package
# (dpkg-shlibdeps) and `make demo` need, the libraries heaptap links against among them;
# `make deps-test` adds those only the tests need (`make test` runs both).
BUILD_PACKAGES := clang llvm make pkg-config bpftool gcc libc6-dev libbpf-dev libelf-dev \
	libdw-dev zlib1g-dev liblzma-dev libiberty-dev libjson-c-dev uthash-dev libncurses-dev \
	libcap-dev libzydis-dev protobuf-c-compiler libprotobuf-c-dev libsqlite3-dev libssl-dev \
	dpkg-dev
# The collector's PostgreSQL store (libpq), its /metrics endpoint (libmicrohttpd), MUNGE
# credentials for agents at sites that run munged (agent/collect --munge).
BUILD_PACKAGES += libpq-dev libmicrohttpd-dev libmunge-dev

# The tests' programs (C++, MPI), Criterion, tmux for top's screen, users and capabilities
# (setpriv, useradd, setcap), glibc's symbols for the budgets' tests.
TEST_PACKAGES := g++ libcriterion-dev openmpi-bin libopenmpi-dev tmux libc6-dbg libcap2-bin \
	util-linux passwd
# go tool pprof reads back what --pprof writes (the exports' tests).
TEST_PACKAGES += golang-go
# make deb's tests: lintian, man's --warnings (groff), bash and zsh completion.
TEST_PACKAGES += lintian man-db groff-base bash-completion zsh debconf
# The README's examples (docs/readme_examples): a Python loop stands in for a running rank.
TEST_PACKAGES += python3
# What the cluster's tests start for real: PostgreSQL's server (initdb, postgres), the
# Prometheus server and promtool, a one-node Slurm cluster with MUNGE, curl to ask them.
TEST_PACKAGES += postgresql prometheus munge slurmctld slurmd slurm-client curl
# The allocators heaptap knows the size classes of (user/trace/size_classes.c), validated
# against the real libraries by the unit tests, and traced by the integration tests.
TEST_PACKAGES += libjemalloc2 libtcmalloc-minimal4 libgoogle-perftools4 libmimalloc2.0 \
	libtbbmalloc2
# The web pages' tests open them in a real browser, headless (tests/integration/browser.c).
TEST_PACKAGES += chromium

ifeq ($(V),1)
	Q =
	msg =
else
	Q = @
	msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# clang -target bpf does not see the system's multiarch include directory by itself.
CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

# libpsx before libcap: then libcap changes capabilities in every thread, not just one.
LIBS_PKG := libbpf libelf libdw zlib liblzma json-c ncurses libpsx libcap libprotobuf-c sqlite3 \
	libcrypto libpq libmicrohttpd munge
PKG_CFLAGS = $(shell pkg-config --cflags $(LIBS_PKG) 2>/dev/null)
# libiberty (the demangler binutils and GDB use) and Zydis (probe sites' disassembler) have
# no .pc file.
PKG_LIBS = $(shell pkg-config --libs $(LIBS_PKG) 2>/dev/null) -liberty -lZydis -lm


# Frame pointers: perf shows where heaptap itself spends its time.
CFLAGS ?= -O2 -g -fno-omit-frame-pointer
WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
# user/ holds the commands; its folders hold the stages of an event's way (DESIGN.md).
USER_DIRS := $(patsubst %/,%,$(wildcard user/*/))
USER_INCLUDES := -Iuser $(addprefix -I,$(USER_DIRS))
ALL_CFLAGS := $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -MMD -MP \
	-Iinclude $(USER_INCLUDES) -I$(OUTPUT) -I$(OUTPUT)/proto $(PKG_CFLAGS)
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) -MMD -MP \
	-I. -Iinclude $(CLANG_BPF_SYS_INCLUDES)

BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
USER_SRCS := $(wildcard user/*.c user/*/*.c)
# The wire protocol's messages, generated from the .proto by protoc-c.
PROTO := user/cluster/proto/heaptap.proto
PROTO_C := $(OUTPUT)/proto/heaptap.pb-c.c
PROTO_H := $(OUTPUT)/proto/heaptap.pb-c.h
PROTO_OBJ := $(OUTPUT)/proto/heaptap.pb-c.o
# pprof's profile format, which --pprof writes (user/report/profile_pprof.c).
PROFILE_PROTO_H := $(OUTPUT)/proto/profile.pb-c.h
PROFILE_PROTO_OBJ := $(OUTPUT)/proto/profile.pb-c.o
# The web pages' scripts and styles (tools/report/, uPlot vendored there), built in.
HTML_ASSETS := $(wildcard tools/report/*.js tools/report/*.css tools/report/vendor/*/*)
HTML_ASSETS_OBJ := $(OUTPUT)/user/report/html_assets.o
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS)) $(PROTO_OBJ) \
	$(PROFILE_PROTO_OBJ) $(HTML_ASSETS_OBJ)
# Everything but main(), for the unit tests to link against.
LIB_OBJS := $(filter-out $(OUTPUT)/user/main.o,$(USER_OBJS))
SKEL := $(OUTPUT)/heaptap.skel.h

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps deps-test check-deps check-deps-test demo test unit-test integration-test bench fuzz install clean docs deb FORCE

# `git describe` of the tree built, as a Debian version (tools/version.sh); a build without
# git (a package's source) gives VERSION=... itself. The pages' date: the commit's.
VERSION ?= $(shell tools/version.sh)
VERSION_DATE ?= $(shell git log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null || \
	date -u +%Y-%m-%d)

all: heaptap

# Install those of the Debian packages $(1) that are missing (make deps, make fuzz).
define install_missing
	$(Q)missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' \
			|| echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     installing:" $$missing; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=300 -y -q \
			$$missing >/dev/null; \
	fi
endef

deps:
	$(call install_missing,$(BUILD_PACKAGES))

deps-test: deps
	$(call install_missing,$(TEST_PACKAGES))

# Which of the Debian packages $(1) are not installed, asked of dpkg when a recipe needs it
# (never where the Makefile is read: `make deps` runs without them); none without dpkg.
# Installed with triggers pending (t, W: while another dpkg runs) counts as installed.
missing_packages = $(if $(shell command -v dpkg-query),$(filter-out \
	$(shell dpkg-query -W -f='$${db:Status-Abbrev}$${Package}\n' $(1) 2>/dev/null \
		| sed -n 's/^.[itW]. *//p'),$(1)))

# Before compiling anything, one line if a package is missing, not a compiler's error about a
# header: the objects of heaptap wait for check-deps, those of the tests for check-deps-test.
check-deps:
	$(if $(call missing_packages,$(BUILD_PACKAGES)),$(error missing Debian packages: \
		$(call missing_packages,$(BUILD_PACKAGES)); run `make deps` (as root) first))
check-deps-test: check-deps
	$(if $(call missing_packages,$(TEST_PACKAGES)),$(error missing Debian packages the \
		tests need: $(call missing_packages,$(TEST_PACKAGES)); run `make deps-test` (as \
		root) first))

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c vmlinux.h | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# Every BPF concern is its own object; they link into one skeleton.
$(OUTPUT)/heaptap.bpf.o: $(BPF_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(SKEL): $(OUTPUT)/heaptap.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name heaptap_bpf > $@

vpath %.proto $(dir $(PROTO)) user/report
$(OUTPUT)/proto/%.pb-c.c $(OUTPUT)/proto/%.pb-c.h: %.proto
	$(call msg,PROTOC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)protoc-c --proto_path=$(<D) --c_out=$(@D) $(<F)

# Generated code: not held to the warnings of ours.
$(OUTPUT)/proto/%.pb-c.o: $(OUTPUT)/proto/%.pb-c.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -std=gnu11 -MMD -MP $(PKG_CFLAGS) -c $< -o $@

$(OUTPUT)/user/%.o: user/%.c $(SKEL) $(PROTO_H) $(PROFILE_PROTO_H)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# Rewritten only when the version changes, so that only version.o is rebuilt then.
$(OUTPUT)/version_string.h: FORCE | $(OUTPUT)
	$(Q)echo '#define HEAPTAP_VERSION "$(VERSION)"' > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
$(OUTPUT)/user/host/version.o: $(OUTPUT)/version_string.h

$(HTML_ASSETS_OBJ): user/report/html_assets.S $(HTML_ASSETS)
	$(call msg,AS,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -c $< -o $@

$(BPF_OBJS) $(USER_OBJS) $(PROTO_C) $(PROTO_H) $(PROFILE_PROTO_H): | check-deps

heaptap: $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(PKG_LIBS) -o $@

include tools/man/man.mk
include tools/package/package.mk
include tests/tests.mk
include tools/vm/vm.mk
include tests/fuzz/fuzz.mk
include tools/bench/bench.mk

# `deps` first, then a make of its own, which reads pkg-config's flags once the packages
# are there (this make computed them before).
demo:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory heaptap $(DEMO_TARGET)
	./heaptap run -- $(DEMO_TARGET)

install: heaptap docs
	install -D -m 0755 heaptap $(DESTDIR)$(PREFIX)/sbin/heaptap
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 $(filter %.1,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 $(filter %.8,$(MAN_PAGES)) $(DESTDIR)$(PREFIX)/share/man/man8/
	install -D -m 0644 $(COMPLETION) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/heaptap
	install -D -m 0644 $(ZSH_COMPLETION) $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_heaptap

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) heaptap

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/*/*.d $(OUTPUT)/*/*/*.d)
