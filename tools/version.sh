#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# heaptap's version from git, as a Debian version: a tag vX.Y gives X.Y, and X.Y+N.gHASH
# N commits after it; with no tag, 0.1+N.gHASH (N commits in all). Without git: 0.1.
base=0.1
if d=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	echo "$d" | sed -e 's/^v//' -e 's/-\([0-9]*\)-g\([0-9a-f]*\)$/+\1.g\2/'
elif h=$(git rev-parse --short=7 HEAD 2>/dev/null); then
	echo "$base+$(git rev-list --count HEAD).g$h"
else
	echo "$base"
fi
