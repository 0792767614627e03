#!/bin/bash
# install.sh: meson install into a scratch DESTDIR (never onto the system), then check what was
# installed: the programs, the driver package and its data, the man pages (man --warnings renders
# them with nothing on stderr), bash completion, and that the installed uapi-check runs from there
# (its package, its install-deps and its abidiff-uapi are the installed ones, not the checkout's).
# Usage: tests/install.sh BUILDDIR
set -eu
build=$(cd "$1" && pwd)
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
echo "install.sh: meson install into $dest"
meson install -C "$build" --no-rebuild --destdir "$dest" >"$dest.log" 2>&1 || { cat "$dest.log"; rm -f "$dest.log"; exit 1; }
rm -f "$dest.log"
prefix=$(meson introspect "$build" --buildoptions | python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
root=$dest$prefix
for f in bin/abidiff-uapi bin/uapi-check share/abidiff-uapi/uapi_check/cli.py share/abidiff-uapi/uapi_check/html.py \
	share/abidiff-uapi/schema/sarif-subset.schema.json share/abidiff-uapi/patches/apply \
	share/abidiff-uapi/patches/linux-6.1/series share/abidiff-uapi/scripts/install-deps \
	share/abidiff-uapi/scripts/kernel-tree share/man/man1/abidiff-uapi.1 share/man/man1/uapi-check.1 \
	share/bash-completion/completions/abidiff-uapi share/bash-completion/completions/uapi-check; do
	[ -e "$root/$f" ] || bad "$f not installed"
done
for x in bin/abidiff-uapi bin/uapi-check share/abidiff-uapi/patches/apply share/abidiff-uapi/scripts/install-deps; do
	[ -x "$root/$x" ] || bad "$x not executable"
done
[ -z "$(find "$root" -name __pycache__)" ] || bad "__pycache__ installed"
# The installed kernel-tree --headers takes its tar patterns from the installed package's fileset.py
# (its ../uapi_check/), the same as the checkout's.
src=$(cd "$(dirname "$0")/.." && pwd)
[ "$(cd / && env -u PYTHONPATH python3 "$root/share/abidiff-uapi/scripts/../uapi_check/fileset.py" --tar-args 2>&1)" = \
	"$(python3 "$src/uapi_check/fileset.py" --tar-args)" ] || bad "installed fileset.py --tar-args differs or fails"
for page in abidiff-uapi uapi-check; do
	err=$(MANWIDTH=80 man --warnings -l "$root/share/man/man1/$page.1" 2>&1 >"$dest/$page.txt") || bad "man $page: exit $?"
	[ -z "$err" ] || bad "man --warnings $page: $err"
	grep -q "EXIT STATUS" "$dest/$page.txt" || bad "man $page: no EXIT STATUS section"
done
"$root/bin/abidiff-uapi" --version | grep -q "$(meson introspect "$build" --projectinfo | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')" \
	|| bad "abidiff-uapi --version"
# The installed wrapper imports the installed package, from any directory, with the checkout
# nowhere on the path; its data and tool are the installed ones.
where=$(cd / && env -u PYTHONPATH /usr/bin/python3 -c "
import runpy, sys
sys.argv = ['uapi-check']
g = runpy.run_path('$root/bin/uapi-check', run_name='not-main')
import uapi_check.config as c, uapi_check.env as e
print(c.__file__, c.INSTALLED, c.TOOL, e.INSTALL_DEPS, sep='\n')")
[ "$(echo "$where" | sed -n 1p)" = "$root/share/abidiff-uapi/uapi_check/config.py" ] || bad "package imported from $(echo "$where" | sed -n 1p)"
[ "$(echo "$where" | sed -n 2p)" = True ] || bad "config.INSTALLED is not True"
[ "$(echo "$where" | sed -n 3p)" = "$root/bin/abidiff-uapi" ] || bad "tool is $(echo "$where" | sed -n 3p)"
[ "$(echo "$where" | sed -n 4p)" = "$root/share/abidiff-uapi/scripts/install-deps" ] || bad "install-deps is $(echo "$where" | sed -n 4p)"
# A run that cannot start says why in one line and exits 2, leaving no output folder: a kernel
# version the project does not know (it has no series and no install-deps group for it).
rc=0
out=$(cd "$dest" && env -u ABIDIFF_UAPI_TOOL "$root/bin/uapi-check" --kernel 0.0 --out "$dest/out" 2>&1) || rc=$?
[ "$rc" = 2 ] || bad "uapi-check --kernel 0.0: exit $rc, not 2: $out"
echo "$out" | grep -q "error: --kernel 0.0: not a version this project knows (6.1, 6.12)" || bad "uapi-check --kernel 0.0 said: $out"
[ ! -e "$dest/out" ] || bad "uapi-check --kernel 0.0 left $dest/out behind"
# bash completion: both commands complete.
comp=$(bash -c ". '$root/share/bash-completion/completions/uapi-check'; complete -p uapi-check abidiff-uapi") || bad "completion does not load"
echo "$comp" | grep -q "_uapi_check uapi-check" || bad "no completion for uapi-check"
echo "$comp" | grep -q "_abidiff_uapi abidiff-uapi" || bad "no completion for abidiff-uapi"
words=$(bash -c ". '$root/share/bash-completion/completions/abidiff-uapi'; COMP_WORDS=(abidiff-uapi diff --format=sa); COMP_CWORD=2; _abidiff_uapi; echo \"\${COMPREPLY[*]}\"")
[ "$words" = sarif ] || bad "completion of --format=sa gave '$words'"
[ "$fail" = 0 ] && echo "install.sh: PASS"
exit "$fail"
