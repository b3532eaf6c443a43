#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# Stage heaptap's package tree and build it with dpkg-deb (make deb calls this):
#   build-deb.sh VERSION DATE STAGE_DIR OUT.deb BINARY BASH_COMPLETION ZSH_COMPLETION MAN_PAGE...
# Its library dependencies come from dpkg-shlibdeps; the files from tools/package and
# tools/systemd (the units run /usr/sbin/heaptap and read /etc/default/heaptap).
set -eu
version=$1 date=$2 stage=$3 out=$4 binary=$5 completion=$6 zsh_completion=$7
shift 7
here=$(dirname "$0")
top=$here/../..
maintainer=${DEB_MAINTAINER:-$(git -C "$top" log -1 --format='%an <%ae>' 2>/dev/null ||
	echo 'heaptap maintainers <heaptap@users.noreply.github.com>')}
# Staged where dpkg-shlibdeps expects a package's files: debian/PACKAGE of a source tree.
root=$stage/debian/heaptap

rm -rf "$stage"
mkdir -p "$root/DEBIAN" "$root/usr/sbin" "$root/usr/share/man/man1" \
	"$root/usr/share/man/man8" "$root/usr/share/bash-completion/completions" \
	"$root/usr/share/zsh/vendor-completions" \
	"$root/usr/share/doc/heaptap" "$root/lib/systemd/system" "$root/etc/default"

# Stripped as dh_strip does it: a package carries no debug information.
install -m 0755 "$binary" "$root/usr/sbin/heaptap"
strip --remove-section=.comment --remove-section=.note --strip-unneeded \
	"$root/usr/sbin/heaptap"
for page in "$@"; do
	section=${page##*.}
	gzip -9n < "$page" > "$root/usr/share/man/man$section/$(basename "$page").gz"
done
install -m 0644 "$completion" "$root/usr/share/bash-completion/completions/heaptap"
install -m 0644 "$zsh_completion" "$root/usr/share/zsh/vendor-completions/_heaptap"
for unit in "$top"/tools/systemd/*.service; do
	sed 's|/usr/local/sbin/heaptap|/usr/sbin/heaptap|' "$unit" \
		> "$root/lib/systemd/system/$(basename "$unit")"
done
install -m 0644 "$here/default" "$root/etc/default/heaptap"
install -m 0644 "$here/copyright" "$root/usr/share/doc/heaptap/copyright"
printf 'heaptap (%s) unstable; urgency=medium\n\n  * Built from heaptap %s.\n\n -- %s  %s\n' \
	"$version" "$version" "$maintainer" "$(date -R -u -d "$date 12:00")" |
	gzip -9n > "$root/usr/share/doc/heaptap/changelog.gz"
find "$root" -type d -exec chmod 0755 {} +
find "$root/usr/share" "$root/lib" "$root/etc" -type f -exec chmod 0644 {} +

# dpkg-shlibdeps reads debian/control of the source package: a minimal one.
printf 'Source: heaptap\n\nPackage: heaptap\nArchitecture: amd64\n' > "$stage/debian/control"
depends=$(cd "$stage" && dpkg-shlibdeps -O -e debian/heaptap/usr/sbin/heaptap 2>shlibdeps.err |
	sed -n 's/^shlibs:Depends=//p')
# It warns that the binary is not where a package's are, wrongly: the rest is shown.
grep -v 'should already be installed' "$stage/shlibdeps.err" >&2 || true
[ -n "$depends" ] || { echo "build-deb.sh: dpkg-shlibdeps found no dependency" >&2; exit 1; }

install -m 0755 "$here/postinst" "$here/postrm" "$here/config" "$root/DEBIAN/"
install -m 0644 "$here/templates" "$root/DEBIAN/templates"
echo /etc/default/heaptap > "$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@MAINTAINER@|$maintainer|" -e "s|@SIZE@|$size|" \
	-e "s|@DEPENDS@|$depends|" "$here/control.in" > "$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -print |
	sed 's|^\./||' | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/conffiles" "$root/DEBIAN/control"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
