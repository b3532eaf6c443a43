# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
bench:
	@echo "bench: not written yet" >&2; exit 1
