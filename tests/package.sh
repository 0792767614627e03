#!/bin/bash
# package.sh: build the Debian package from a copy of the tracked files (dpkg-buildpackage -us -uc
# -b), check it with lintian (no tag but debian/abidiff-uapi.lintian-overrides'), unpack it into a
# scratch root with dpkg -x (never onto this system), and run the fast tool suites against the
# installed binary: tests/fixtures.py and tests/schema.py with ROOT/usr/bin/abidiff-uapi, man
# --warnings on the packaged man pages, and the packaged uapi-check importing its own package. Prints the build time. (Tracked files and
# new ones git does not ignore are copied: build dirs and caches never are.)
# The build skips debian/rules' own tests (DEB_BUILD_OPTIONS=nocheck): they are the same suites.
# Usage: tests/package.sh [KEEPDIR]     (KEEPDIR: where to leave the .deb and lintian's output)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
keep=${1:-}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
missing=$("$src/scripts/install-deps" --check package) || { echo "package.sh: missing packages: $missing (scripts/install-deps package)"; exit 1; }

echo "package.sh: copying the tracked files to $work/src"
mkdir "$work/src"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src")
version=$(sed -n '1s/^abidiff-uapi (\([^)]*\)).*/\1/p' "$src/debian/changelog")
project=$(sed -n "s/^  version: '\\(.*\\)',$/\\1/p" "$src/meson.build")
[ "$version" = "$project" ] || { echo "FAIL: debian/changelog says $version, meson.build $project"; exit 1; }
echo "package.sh: dpkg-buildpackage -us -uc -b (version $version)"
start=$(date +%s)
# nocheck: debian/rules runs the unit and fixture suites at build time, against the build tree;
# this script runs the fixtures against the installed binary below, which is the check that counts,
# and CI runs the unit suite itself. (dpkg-buildpackage without it runs them: debian/rules.)
if ! (cd "$work/src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck" \
	dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1); then
	tail -40 "$work/build.log"
	echo "FAIL: dpkg-buildpackage"
	exit 1
fi
echo "package.sh: built in $(( $(date +%s) - start )) s"
deb=$work/abidiff-uapi_${version}_amd64.deb
[ -f "$deb" ] || { ls "$work"; echo "FAIL: $deb not built"; exit 1; }

echo "package.sh: lintian (fails on any error, warning or informational tag not overridden)"
# As README.md says: nothing but the overrides of debian/abidiff-uapi.lintian-overrides, each with
# its reason there. An override that no longer matches is a tag too (unused-override). Not
# --show-overrides: with it, lintian counts the overridden tags for --fail-on as well.
lrc=0
lintian --fail-on error,warning,info --display-info --tag-display-limit 0 "$deb" >"$work/lintian.txt" 2>&1 || lrc=$?
sed 's/^/  /' "$work/lintian.txt"
[ "$lrc" = 0 ] || bad "lintian exit $lrc: a tag not overridden (or lintian failed)"
grep -q '^[EWI]: ' "$work/lintian.txt" && bad "lintian reports tags not overridden"

root=$work/root
dpkg -x "$deb" "$root"
tool=$root/usr/bin/abidiff-uapi
for f in usr/bin/abidiff-uapi usr/bin/uapi-check usr/share/abidiff-uapi/uapi_check/cli.py \
	usr/share/abidiff-uapi/patches/apply usr/share/abidiff-uapi/scripts/install-deps \
	usr/share/abidiff-uapi/schema/sarif-subset.schema.json usr/share/man/man1/abidiff-uapi.1.gz \
	usr/share/man/man1/uapi-check.1.gz usr/share/bash-completion/completions/uapi-check; do
	[ -e "$root/$f" ] || bad "$f not in the package"
done
for page in abidiff-uapi uapi-check; do
	err=$(MANWIDTH=80 man --warnings -l "$root/usr/share/man/man1/$page.1.gz" 2>&1 >/dev/null) || bad "man $page"
	[ -z "$err" ] || bad "man --warnings $page: $err"
done
got=$(cd / && /usr/bin/python3 -c "
import runpy, sys
runpy.run_path('$root/usr/bin/uapi-check', run_name='not-main')
import uapi_check.config as c
print(c.__file__, c.TOOL)")
[ "$got" = "$root/usr/share/abidiff-uapi/uapi_check/config.py $tool" ] || bad "packaged uapi-check uses: $got"

echo "package.sh: fixtures.py against $tool"
python3 "$src/tests/fixtures.py" "$tool" >"$work/fixtures.log" 2>&1 || { tail -20 "$work/fixtures.log"; bad "fixtures.py"; }
tail -1 "$work/fixtures.log"
echo "package.sh: schema.py against $tool"
/usr/bin/python3 "$src/tests/schema.py" "$tool" >"$work/schema.log" 2>&1 || { tail -20 "$work/schema.log"; bad "schema.py"; }
tail -1 "$work/schema.log"
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$deb" "$work/lintian.txt" "$keep/"
fi
[ "$fail" = 0 ] && echo "package.sh: PASS"
exit "$fail"
