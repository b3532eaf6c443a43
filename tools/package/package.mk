# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# make deb: the Debian package, staged under $(OUTPUT)/deb and built with dpkg-deb by
# tools/package/build-deb.sh (its dependencies from dpkg-shlibdeps).
DEB := $(OUTPUT)/heaptap_$(VERSION)_amd64.deb
PACKAGE_FILES := $(wildcard tools/package/*) $(wildcard tools/systemd/*)

deb: $(DEB)
	@echo "  DEB      $(DEB)"

$(DEB): heaptap $(MAN_PAGES) $(COMPLETION) $(ZSH_COMPLETION) $(PACKAGE_FILES)
	$(call msg,DPKG,$@)
	$(Q)rm -f $(OUTPUT)/heaptap_*_amd64.deb
	$(Q)tools/package/build-deb.sh "$(VERSION)" "$(VERSION_DATE)" $(OUTPUT)/deb $@ heaptap \
		$(COMPLETION) $(ZSH_COMPLETION) $(MAN_PAGES)
