#!/bin/bash
# btf-split.sh: split BTF (--btf-base) and BTF in an ELF .BTF section, as a kernel module's .ko holds it
# on top of vmlinux's. pahole encodes a base object's BTF and a second object's split BTF on it
# (--btf_base); then abidiff-uapi must read only the types the split defines, lay them out as pahole
# (the independent instrument) and the object's own DWARF do, find a planted change, and refuse a split
# without its base with one line naming the file.
# Usage: tests/btf-split.sh ABIDIFF_UAPI
set -eu
tool=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
fail() { echo "FAIL btf-split: $*"; fails=$((fails + 1)); }
ok() { echo "ok   btf-split: $*"; }

cat > base.c <<'C'
struct point { int x, y; };
struct point base_var;
C
cat > split.c <<'C'
struct point { int x, y; };
struct segment { struct point a, b; unsigned char flags; long long len; };
union pick { struct segment s; int n; };
struct segment seg_var; union pick pick_var; struct point pt_var;
C
sed 's/long long len;/int len;/' split.c > planted.c
for f in base split planted; do gcc -g -c "$f.c" -o "$f.o"; done
cp split.o split-dwarf.o
pahole -J base.o
pahole -J --btf_base base.o split.o
pahole -J --btf_base base.o planted.o

# 1. Only the split's own types: struct point is the base's.
"$tool" dump --btf split.o --btf-base base.o --format=json > split.json
names=$(sed -n 's/^{"name":"\([^"]*\)".*/\1/p' split.json | tr '\n' ',')
[ "$names" = "struct segment,union pick," ] && ok "the split defines struct segment and union pick" ||
	fail "the split's types are '$names', not struct segment and union pick"
# ...and the base alone, read from its ELF .BTF section, defines struct point.
"$tool" dump --btf base.o --format=json > base.json
names=$(sed -n 's/^{"name":"\([^"]*\)".*/\1/p' base.json | tr '\n' ',')
[ "$names" = "struct point," ] && ok "the base's .BTF section defines struct point" || fail "the base's types are '$names'"

# 2. pahole's layout of the split BTF (sizes and offsets) against the tool's.
pahole -F btf --btf_base base.o split.o > pahole.txt
python3 - split.json pahole.txt <<'PY' && ok "sizes and member offsets equal pahole's" || fail "the layout differs from pahole's"
import json, re, sys
types = {}
for line in open(sys.argv[1]):
    line = line.strip().rstrip(",")
    if line.startswith('{"name"'):
        t = json.loads(line)
        types[t["name"]] = t
text = open(sys.argv[2]).read()
bad = 0
for name, t in types.items():
    m = re.search(r"^%s \{\n(.*?)^\};" % re.escape(name), text, re.S | re.M)
    if not m:
        print("pahole does not show", name); bad = 1; continue
    body = m.group(1)
    # pahole prints no size line for a union.
    sm = re.search(r"/\* size: (\d+)", body)
    size = int(sm.group(1)) if sm else t["size"]
    offs = {mm.group(1): int(mm.group(2)) for mm in re.finditer(r"(\w+);\s+/\*\s+(\d+)\s+\d+ \*/", body)}
    mine = {m_["name"]: m_["offset"] for m_ in t.get("members", [])}
    if size != t["size"] or offs != mine:
        print(name, "pahole", size, offs, "tool", t["size"], mine); bad = 1
sys.exit(bad)
PY

# 3. Against the object's own DWARF: both compared, no difference; the planted change is found.
set +e
"$tool" diff --btf split.o --btf-base base.o split-dwarf.o --common-only --strict > same.txt; rc=$?
"$tool" diff --btf planted.o --btf-base base.o split-dwarf.o --common-only --strict > planted.txt; prc=$?
set -e
grep -q '2 compared: 2 unchanged' same.txt && [ "$rc" = 0 ] && ok "split BTF equals the DWARF (2 compared, exit 0)" ||
	fail "split BTF against its own DWARF: exit $rc, $(grep summary same.txt)"
grep -q 'struct segment' planted.txt && [ "$prc" = 1 ] && ok "the planted int len is found (exit 1)" ||
	fail "the planted change: exit $prc, $(grep summary planted.txt)"

# 4. Bad input: exit 2 and one line naming the file.
check_bad() { # WHAT EXPECTED-FILE ARGS...
	local what=$1 file=$2 rc
	shift 2
	set +e
	"$tool" "$@" > out.txt 2> err.txt; rc=$?
	set -e
	if [ "$rc" = 2 ] && [ "$(wc -l < err.txt)" -ge 1 ] && head -n 1 err.txt | grep -qF "$file"; then
		ok "$what: exit 2, '$(head -n 1 err.txt)'"
	else
		fail "$what: exit $rc, stderr '$(head -n 2 err.txt | tr '\n' ' ')'"
	fi
}
check_bad "a split without its base" split.o dump --btf split.o
check_bad "a missing base" nonexistent.o dump --btf split.o --btf-base nonexistent.o
check_bad "a base that is not BTF" split.c dump --btf split.o --btf-base split.c
check_bad "--btf-base without --btf" btf-base diff split-dwarf.o split-dwarf.o --btf-base base.o
[ "$fails" = 0 ] || exit 1
