#!/bin/bash
# readers.sh: the DWARF reader reads what real builds produce, or refuses it
# with exit 2 and one line naming the file; it never reads less and exits 0.
# Every object is built here, at test time, with gcc, g++, clang, dwz and
# objcopy. The independent reference for each layout is the same source built
# the plain way (-g, one unit, no dwz): the dump of every variant must equal
# the reference's dump, and a planted change (int -> unsigned deep inside)
# must make diff exit 1 naming the changed type.
#   - type units: -fdebug-types-section, DWARF 4 (.debug_types) and 5, C and C++
#   - split DWARF: -gsplit-dwarf, .dwo found via DW_AT_comp_dir or beside the
#     object, a .dwo given directly, a missing .dwo
#   - dwz supplements: dwz -m, found beside the file or with --alt, missing, holding only .debug_str
#   - deep typedef chains and anonymous nesting; typedef struct {...} *Ptr
#   - gcc's assembly edited: void as a base type, signed char named char (icc), corrupt references
#   - archives (every member), and inputs: FIFOs (also --btf), slim LTO, truncated files, -o over
#     non-regular files and the mode of a replaced file
# Usage: tests/readers.sh ABIDIFF_UAPI_BINARY
set -eu
tool=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -f err.txt ] && sed 's/^/    /' err.txt | head -5; true; }

# expect_error NAME SUBSTRING ARGS...: exit 2, one stderr line containing SUBSTRING.
expect_error() {
	local name=$1 want=$2 rc=0
	shift 2
	timeout 10 "$tool" "$@" > out.txt 2> err.txt || rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l < err.txt)" = 1 ] && grep -qF -- "$want" err.txt && [ ! -s out.txt ]; then
		ok "$name: $(cat err.txt)"
	else
		bad "$name: exit $rc (want 2 and one line containing '$want')"
	fi
}

# same_dump NAME REF OBJ [ARGS...]: OBJ reads exactly as REF does.
same_dump() {
	local name=$1 ref=$2 obj=$3 rc=0
	shift 3
	"$tool" dump "$ref" > ref.txt
	"$tool" dump "$obj" "$@" > got.txt 2> err.txt || rc=$?
	if [ "$rc" = 0 ] && cmp -s ref.txt got.txt && [ "$(grep -c '^struct \|^union \|^enum \|^typedef ' got.txt)" -ge 5 ]; then
		ok "$name: same layouts as the plain build ($(grep -c '^struct \|^union \|^enum \|^typedef ' got.txt) types)"
	else
		bad "$name: exit $rc, dump differs from the plain build"
		diff ref.txt got.txt | head -10 | sed 's/^/    /'
	fi
}

# finds_change NAME OLD NEW TYPE [ARGS...]: diff exits 1 and reports TYPE as changed.
finds_change() {
	local name=$1 old=$2 new=$3 type=$4 rc=0
	shift 4
	"$tool" diff "$old" "$new" --format=json "$@" > diff.json 2> err.txt || rc=$?
	if [ "$rc" = 1 ] && [ ! -s err.txt ] && python3 -c '
import json, sys
d = json.load(open("diff.json"))
sys.exit(0 if any(t["name"] == sys.argv[1] and t["status"] == "changed" for t in d["types"]) else 1)' "$type"; then
		ok "$name: diff finds $type changed"
	else
		bad "$name: exit $rc, $type not reported as changed"
	fi
}

cat > old.h <<'EOF'
struct inner { int a; short b; };
struct outer { struct inner in; long c; struct inner arr[2]; };
typedef struct { int x; struct inner i; } anon_t;
union u { int i; float f; };
enum e { E1, E2 = 5 };
struct user { anon_t t; union u uu; enum e ee; };
EOF
sed 's/struct inner { int a;/struct inner { unsigned a;/' old.h > new.h
printf '#include "old.h"\n' > old.c
printf '#include "new.h"\n' > new.c
cp old.c old.cc
cp new.c new.cc
keep=-fno-eliminate-unused-debug-types

# --- type units
# (clang makes type units for C++ only.)
for cc in "gcc -gdwarf-4" "gcc -gdwarf-5" "g++ -gdwarf-4" "g++ -gdwarf-5" "clang++ -gdwarf-4" "clang++ -gdwarf-5"; do
	ext=c
	case "$cc" in *++*) ext=cc ;; esac
	tag=$(echo "$cc" | tr -d ' -')
	$cc $keep -c "old.$ext" -o "ref-$tag.o"
	for side in old new; do
		$cc $keep -fdebug-types-section -c "$side.$ext" -o "tu-$side-$tag.o"
	done
	# The variant really has type units (else this test proves nothing).
	if readelf -S -W "tu-old-$tag.o" | grep -q '\.debug_types' || readelf --debug-dump=info "tu-old-$tag.o" 2>/dev/null | grep -q 'DW_UT_type'; then
		ok "type units: $cc -fdebug-types-section makes type units"
	else
		bad "type units: $cc -fdebug-types-section made none"
	fi
	same_dump "type units: $cc" "ref-$tag.o" "tu-old-$tag.o"
	finds_change "type units: $cc" "tu-old-$tag.o" "tu-new-$tag.o" "struct inner"
done
# A .o with a single type unit: its one .debug_types section is still in a COMDAT group, which
# libdw does not read; it is taken out of the group like several are (it was read as no types).
printf 'struct only { int a; long b; };\nstruct only g;\n' > tu1.c
gcc -gdwarf-4 $keep -c tu1.c -o tu1-ref.o
gcc -gdwarf-4 $keep -fdebug-types-section -c tu1.c -o tu1.o
[ "$(readelf -S -W tu1.o | grep -c ' \.debug_types ')" = 1 ] && readelf -S -W tu1.o | grep ' \.debug_types ' | grep -q ' G ' &&
	ok "type units: one grouped .debug_types section" || bad "type units: tu1.o is not a single grouped .debug_types"
"$tool" dump tu1-ref.o > tu1-ref.txt
"$tool" dump tu1.o > tu1.txt 2> err.txt && cmp -s tu1-ref.txt tu1.txt && grep -q '^struct only {' tu1.txt &&
	ok "type units: a single type unit reads as the plain build" || bad "type units: a single type unit is not read"
# Compressed (-gz) type-unit sections in a .o (the assembler compresses a
# section only when that saves space: enough variables for the unit's DIEs).
for i in $(seq 1 200); do echo "struct big$i { int a$i; long b$i; struct inner in$i; }; struct big$i g$i;"; done > big.h
printf '#include "old.h"\n#include "big.h"\n' > big.c
gcc -gdwarf-5 $keep -c big.c -o big-ref.o
gcc -gdwarf-5 -gz=zlib $keep -fdebug-types-section -c big.c -o tu-gz.o
if readelf -S -W tu-gz.o | grep -qE '\.debug_info +PROGBITS .* [A-Z]*C[A-Z]* +[0-9]+ +[0-9]+ +[0-9]+$'; then
	ok "type units: -gz compressed a .debug_info section of the object"
else
	bad "type units: -gz made no compressed .debug_info"
fi
same_dump "type units: gcc -gdwarf-5 -gz=zlib" big-ref.o tu-gz.o
# Linked: the linker merges the units' sections.
gcc -g $keep -fdebug-types-section -shared -fPIC -nostdlib old.c -o tu-old.so
gcc -g $keep -shared -fPIC -nostdlib old.c -o ref.so
same_dump "type units: shared object" ref.so tu-old.so

# --- split DWARF
for cc in "gcc -gdwarf-4" "gcc -gdwarf-5"; do
	tag=$(echo "$cc" | tr -d ' -')
	mkdir -p "split-$tag"
	(cd "split-$tag" && for side in old new; do
		$cc $keep -gsplit-dwarf -c "../$side.c" -o "$side.o"
	done)
	$cc $keep -c old.c -o "ref-split-$tag.o"
	same_dump "split DWARF: $cc" "ref-split-$tag.o" "split-$tag/old.o"
	finds_change "split DWARF: $cc" "split-$tag/old.o" "split-$tag/new.o" "struct inner"
done
# clang 14 names the .dwo of a .o with DW_FORM_strx, which libdw 0.188 cannot
# read in a skeleton unit: refused, not read as empty.
mkdir split-clang
(cd split-clang && clang -gdwarf-5 $keep -gsplit-dwarf -c ../old.c -o old.o)
expect_error "split DWARF: clang .o (libdw cannot name its .dwo)" "split DWARF unit at 0x0 names its .dwo" dump split-clang/old.o
# Moved away from DW_AT_comp_dir: the .dwo is found beside the object.
mv split-gccgdwarf5 moved
same_dump "split DWARF: moved, .dwo beside the object" ref-split-gccgdwarf5.o moved/old.o
# A .dwo given directly (it records no declaring files: compare the layouts).
"$tool" dump moved/old.dwo > dwo.txt 2> err.txt && "$tool" dump ref-split-gccgdwarf5.o | grep -v '^/\* .*:[0-9]* \*/$' > ref-nofile.txt &&
	cmp -s dwo.txt ref-nofile.txt && ok "split DWARF: a .dwo given directly" || { bad "split DWARF: a .dwo given directly"; diff ref-nofile.txt dwo.txt | head -5; }
rm moved/old.dwo
expect_error "split DWARF: missing .dwo" "old.dwo, which was not found" dump moved/old.o
# A .dwp package (binutils' dwp; it crashes on gcc 12's DWARF 5, hence DWARF 4):
# libdw 0.188 cannot read it, so the executable is refused, saying why.
mkdir dwp
printf '#include "../old.h"\nint main(void) { return 0; }\n' > dwp/m.c
(cd dwp && gcc -gdwarf-4 -gsplit-dwarf $keep m.c -o m && dwp -e m -o m.dwp && rm -f ./*.dwo)
expect_error "split DWARF: a .dwp package" "its .dwp package is not read by this libdw" dump dwp/m

# --- dwz supplements (dwz works on linked objects)
mkdir dwz
for side in old new; do
	sed "s/^/ /" "$side.h" > /dev/null
	printf '#include "../%s.h"\nstruct only_%s { int z; };\n' "$side" "$side" > "dwz/$side.c"
	gcc -g $keep -shared -fPIC -nostdlib "dwz/$side.c" -o "dwz/$side.so"
	cp "dwz/$side.so" "dwz/$side-plain.so"
	printf '#include "../%s.h"\nstruct only2_%s { long z; };\n' "$side" "$side" > "dwz/$side-2.c"
	gcc -g $keep -shared -fPIC -nostdlib "dwz/$side-2.c" -o "dwz/$side-2.so"
	(cd dwz && dwz -m "$side-common.debug" -M "$side-common.debug" "$side.so" "$side-2.so")
done
if readelf -S -W dwz/old.so | grep -q gnu_debugaltlink; then ok "dwz: dwz -m made a supplement"; else bad "dwz: no .gnu_debugaltlink"; fi
same_dump "dwz: supplement beside the object" dwz/old-plain.so dwz/old.so
finds_change "dwz: a change in a type that moved to the supplement" dwz/old.so dwz/new.so "struct inner"
mkdir elsewhere
mv dwz/old-common.debug elsewhere/renamed.debug
expect_error "dwz: missing supplement" "old-common.debug was not found" dump dwz/old.so
same_dump "dwz: supplement given with --alt" dwz/old-plain.so dwz/old.so --alt elsewhere/renamed.debug
expect_error "dwz: --alt with the wrong supplement" "old-common.debug was not found" dump dwz/old.so --alt dwz/new-common.debug
# A supplement that holds only .debug_str: two objects share long member names and no type
# (libdw alone refuses such a file: "no DWARF information"). Every name resolves through it.
mkdir dwzstr
for side in old new; do
	for obj in a b; do
		for i in 1 2 3 4 5; do
			# No type in common (dwz would move it to the supplement's .debug_info).
			t=int e=short
			[ "$side/$obj/$i" = new/a/3 ] && t=unsigned
			[ "$obj" = b ] && t=long e="unsigned char"
			echo "struct ${obj}_type$i { $t a_rather_long_member_name_that_both_objects_share_$i; $e another_long_member_name_the_objects_share_$i[$i]; };"
			echo "struct ${obj}_type$i ${obj}_var$i;"
		done > "dwzstr/$side-$obj.c"
		gcc -g -shared -fPIC -nostdlib "dwzstr/$side-$obj.c" -o "dwzstr/$side-$obj.so"
		cp "dwzstr/$side-$obj.so" "dwzstr/$side-$obj-plain.so"
	done
	(cd dwzstr && dwz -m "$side-common.debug" -M "$side-common.debug" "$side-a.so" "$side-b.so")
done
readelf -S -W dwzstr/old-common.debug > dwzstr/sections.txt
if grep -q ' \.debug_str ' dwzstr/sections.txt && ! grep -q ' \.debug_info ' dwzstr/sections.txt &&
	readelf -S -W dwzstr/old-a.so | grep -q gnu_debugaltlink &&
	readelf --debug-dump=info dwzstr/old-a.so | grep -q 'DW_FORM_GNU_strp_alt\|(alt indirect string'; then
	ok "dwz: a strings-only supplement (.debug_str, no .debug_info), used by the object"
else
	bad "dwz: dwz -m made no strings-only supplement (the next checks prove nothing)"
	sed 's/^/    /' dwzstr/sections.txt | head -20
fi
same_dump "dwz: strings-only supplement, first object" dwzstr/old-a-plain.so dwzstr/old-a.so
same_dump "dwz: strings-only supplement, second object" dwzstr/old-b-plain.so dwzstr/old-b.so
finds_change "dwz: strings-only supplement, a planted change" dwzstr/old-a.so dwzstr/new-a.so "struct a_type3"
# Any other supplement without DWARF is still refused: here one without its strings.
objcopy --remove-section .debug_str dwzstr/old-common.debug dwzstr/nostr.debug
expect_error "dwz: a supplement with no DWARF and no strings" "nostr.debug has unreadable DWARF" dump dwzstr/old-a.so --alt dwzstr/nostr.debug
gcc -g -gdwarf-5 $keep -shared -fPIC -nostdlib dwz/old.c -o dwz/v5.so
gcc -g -gdwarf-5 $keep -shared -fPIC -nostdlib dwz/old-2.c -o dwz/v5-2.so
(cd dwz && dwz -5 -m v5.debug -M v5.debug v5.so v5-2.so)
expect_error "dwz -5: .debug_sup refused, not misread" "DWARF 5 supplement v5.debug" dump dwz/v5.so

# --- depth: a 60-deep typedef chain, 30 levels of anonymous nesting
{
	echo "typedef int t0;"
	for i in $(seq 1 60); do echo "typedef t$((i - 1)) t$i;"; done
	echo "struct deep_typedef { t60 v; char c; };"
	printf 'struct deep_anon { '
	for i in $(seq 1 30); do printf 'struct { '; done
	printf 'int leaf; '
	for i in $(seq 1 30); do printf '}; '; done
	echo 'long tail; };'
	echo "typedef struct { int pa; short pb; } *ptr_t;"
	echo "struct holder { ptr_t p; };"
} > deep-old.h
sed -e 's/^typedef int t0;/typedef unsigned t0;/' -e 's/int leaf;/unsigned leaf;/' -e 's/int pa;/long pa;/' deep-old.h > deep-new.h
printf '#include "deep-old.h"\n' > deep-old.c
printf '#include "deep-new.h"\n' > deep-new.c
gcc -g $keep -c deep-old.c -o deep-old.o
gcc -g $keep -c deep-new.c -o deep-new.o
"$tool" dump deep-old.o > deep.txt
if grep -q 'int  *leaf;.*/\*  *0  *4 \*/' deep.txt && grep -q 't60  *v;.*/\*  *0  *4 \*/' deep.txt && ! grep -q '?' deep.txt; then
	ok "depth: a 60-deep typedef chain and 30 nested anonymous structs read in full"
else
	bad "depth: deep types read wrong"; head -40 deep.txt | sed 's/^/    /'
fi
finds_change "depth: int -> unsigned at the end of a 60-deep typedef chain" deep-old.o deep-new.o "struct deep_typedef"
finds_change "depth: int -> unsigned 30 anonymous levels down" deep-old.o deep-new.o "struct deep_anon"
finds_change "typedef struct {...} *Ptr: the pointee is compared" deep-old.o deep-new.o "*ptr_t"

# --- C++: namespaces, base classes, reference kinds
cat > cxx-old.h <<'EOF'
namespace ns { struct S { int a; }; namespace inner { struct T { long b; }; } }
namespace { struct Hidden { char c; }; }
struct A { int a; }; struct B { long b; }; struct C { char c; };
struct D : A, B, C { int d; };
struct V { virtual ~V(); int v; };
struct VB : virtual A { int x; };
struct R { int &l; int &&r; };
struct U { ns::S s; ns::inner::T t; Hidden h; };
EOF
sed -e 's/struct S { int a; }/struct S { unsigned a; }/' -e 's/struct D : A, B, C/struct D : B, A, C/' \
	-e 's/int &&r;/int \&r;/' cxx-old.h > cxx-new.h
for side in old new; do
	printf '#include "cxx-%s.h"\nV::~V() {}\nD d; VB vb; U u; R *r;\n' "$side" > "cxx-$side.cc"
	g++ -g $keep -Wno-subobject-linkage -c "cxx-$side.cc" -o "cxx-$side.o"
done
"$tool" dump cxx-old.o > cxx.txt
for want in 'struct ns::S {' 'struct ns::inner::T {' 'struct (anonymous namespace)::Hidden {' \
	'struct A  *base A;  */\*  *0  *4 \*/' 'struct B  *base B;  */\*  *8  *8 \*/' 'struct C  *base C;  */\*  *16  *1 \*/' \
	'struct A  *virtual base A;' '_vptr (vtable pointer);' 'int &&  *r;'; do
	if grep -q -- "$want" cxx.txt; then ok "C++: dump shows '$want'"; else bad "C++: dump lacks '$want'"; fi
done
# A member type defined out of its class (DW_AT_specification) keeps the class as its scope.
printf 'struct Outer { struct Inner; int o; };\nstruct Outer::Inner { long i; };\nOuter::Inner oi; Outer oo;\n' > ool.cc
g++ -g $keep -c ool.cc -o ool.o
"$tool" dump --format=json ool.o | python3 -c '
import json, sys
t = {x["name"]: x for x in json.load(sys.stdin)["types"]}
sys.exit(0 if t["struct Inner"].get("scope") == "struct Outer" and t["struct Inner"]["size"] == 8 else 1)' &&
	ok "C++: struct Outer::Inner defined out of line is scoped in struct Outer" || bad "C++: out-of-line nested type lost its scope"
# Two classes nesting a type of one name, in one unit: two types A::Node and B::Node.
printf 'struct A { struct Node { int a; } n; };\nstruct B { struct Node { long b; char c; } n; };\nA ga; B gb;\n' > nn-old.cc
sed 's/long b; char c;/long b; short c;/' nn-old.cc > nn-new.cc
g++ -g -c nn-old.cc -o nn-old.o
g++ -g -c nn-new.cc -o nn-new.o
"$tool" dump --format=json nn-old.o | python3 -c '
import json, sys
t = {x["name"]: x["size"] for x in json.load(sys.stdin)["types"]}
sys.exit(0 if t.get("struct A::Node") == 4 and t.get("struct B::Node") == 16 and "struct Node" not in t else 1)' &&
	ok "C++: A::Node and B::Node in one unit are two types" || bad "C++: same-named nested types not both read"
finds_change "C++: a change in B::Node" nn-old.o nn-new.o "struct B::Node"
# Templates: g++ and clang++ spell their arguments differently (0ul / 0UL, "STR&&" / "STR &&",
# "char*" / "char *"); the names normalise to one spelling, so the same header pairs and is no change.
cat > tmpl-old.h <<'EOF'
struct STR { int x; };
template <unsigned long I, typename T, bool B> struct _Head_base { T h; long pad; };
template <typename T> struct Box { T v; };
struct holder { _Head_base<0, STR &&, false> a; _Head_base<1, int, true> b; Box<Box<char *> > c; };
EOF
sed 's/T h; long pad;/T h; int pad;/' tmpl-old.h > tmpl-new.h
for side in old new; do printf '#include "tmpl-%s.h"\nholder *hp;\n' "$side" > "tmpl-$side.cc"; done
g++ -g $keep -c tmpl-old.cc -o tmpl-gcc.o
clang++ -g $keep -c tmpl-old.cc -o tmpl-clang.o
clang++ -g $keep -c tmpl-new.cc -o tmpl-clang-new.o
readelf --debug-dump=info tmpl-gcc.o | grep -q '_Head_base<0, STR&&, false>' &&
	readelf --debug-dump=info tmpl-clang.o | grep -q '_Head_base<0UL, STR &&, false>' &&
	ok "templates: g++ and clang++ spell _Head_base's arguments differently" || bad "templates: the compilers now agree on the spelling (the test proves nothing)"
rc=0
"$tool" diff tmpl-gcc.o tmpl-clang.o --format=json > tmpl.json 2> err.txt || rc=$?
[ "$rc" = 0 ] && python3 -c '
import json, sys
d = json.load(open("tmpl.json"))
sys.exit(0 if d["types"] == [] and d["counts"]["unchanged"] == d["counts"]["old_types"] == 6 else 1)' &&
	ok "templates: g++ against clang++ of one header pairs all 6 types, no change" || bad "templates: g++ against clang++: exit $rc, types not paired"
"$tool" dump tmpl-gcc.o | grep -q '^struct _Head_base<0, STR&&, false> {' && ok "templates: dump shows the one spelling" || bad "templates: dump spelling"
finds_change "templates: a change inside _Head_base, g++ against clang++" tmpl-gcc.o tmpl-clang-new.o "struct _Head_base<0, STR&&, false>"
# A compiled program confirms the base offsets read from DWARF.
printf '#include "cxx-old.h"\n#include <cstdio>\nV::~V() {}\nint main() { D d; std::printf("%%td %%td\\n", (char *)static_cast<B *>(&d) - (char *)&d, (char *)static_cast<C *>(&d) - (char *)&d); }\n' > cxx-check.cc
g++ -Wno-subobject-linkage cxx-check.cc -o cxx-check 2> err.txt && [ "$(./cxx-check)" = "8 16" ] && ok "C++: a compiled program confirms base offsets 8 and 16" || bad "C++: base offsets $(./cxx-check 2>/dev/null)"
finds_change "C++: a change inside a namespace" cxx-old.o cxx-new.o "struct ns::S"
finds_change "C++: base classes reordered" cxx-old.o cxx-new.o "struct D"
python3 -c '
import json, sys
d = json.load(open("diff.json"))
moved = {c.get("member") for t in d["types"] if t["name"] == "struct D" for c in t["changes"] if c["change"] == "member"}
sys.exit(0 if {"base A", "base B"} <= moved else 1)' && ok "C++: the bases themselves are reported moved" || bad "C++: base moves not reported"
finds_change "C++: T&& -> T&" cxx-old.o cxx-new.o "struct R"

# --- one name, two layouts in one object (two units of a shared library)
mkdir odr
printf 'struct dup { int a; };\nstruct same { int s; };\nstruct dup d1; struct same s1;\n' > odr/a.c
printf 'struct dup { long a; char b; };\nstruct same { int s; };\nstruct dup d2; struct same s2;\n' > odr/b.c
printf 'struct dup { int a; };\nstruct same { int s; };\nstruct dup d2; struct same s2;\n' > odr/b0.c
for f in a b b0; do gcc -g -fPIC -c "odr/$f.c" -o "odr/$f.o"; done
gcc -shared -nostdlib odr/a.o odr/b.o -o odr/ab.so
gcc -shared -nostdlib odr/b.o odr/a.o -o odr/ba.so
gcc -shared -nostdlib odr/a.o odr/b0.o -o odr/ab0.so
"$tool" dump odr/ab.so > odr.txt
[ "$(grep -c '^struct dup {' odr.txt)" = 2 ] && grep -q 'another definition of struct dup' odr.txt &&
	ok "ODR: both definitions of struct dup are kept" || bad "ODR: dump does not show both definitions"
rc1=0 rc2=0
"$tool" diff odr/ab.so odr/ba.so --format=json > odr1.json || rc1=$?
"$tool" diff odr/ba.so odr/ab.so --format=json > odr2.json || rc2=$?
if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && python3 -c '
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    assert d["types"] == [] and d["verdict"] == "compatible", p
' odr1.json odr2.json; then
	ok "ODR: the same two layouts linked in the other order are no change (exit 0 both ways)"
else
	bad "ODR: link order changes the result ($rc1 vs $rc2, want 0 and no finding)"
fi
# The same set of layouts on both sides, from archives with the members in either order.
ar rc odr/ab.a odr/a.o odr/b.o
ar rc odr/ba.a odr/b.o odr/a.o
rc=0
"$tool" diff odr/ab.a odr/ba.a --format=json > odr-ar.json || rc=$?
[ "$rc" = 0 ] && python3 -c 'import json, sys; sys.exit(0 if json.load(open("odr-ar.json"))["types"] == [] else 1)' &&
	ok "ODR: archives with the same two layouts in another member order are no change" || bad "ODR: archive member order: exit $rc"
# Another set of two layouts: still a conflict, a break, and what holds it by value breaks too.
printf 'struct dup { long a; short b; };\nstruct same { int s; };\nstruct dup d2; struct same s2;\n' > odr/b2.c
gcc -g -fPIC -c odr/b2.c -o odr/b2.o
gcc -shared -nostdlib odr/a.o odr/b2.o -o odr/ab2.so
rc=0
"$tool" diff odr/ab.so odr/ab2.so --format=json > odr4.json || rc=$?
[ "$rc" = 1 ] && python3 -c '
import json, sys
d = json.load(open("odr4.json"))
ch = [c for t in d["types"] if t["name"] == "struct dup" for c in t["changes"] if c["change"] == "odr_conflict"]
sys.exit(0 if ch and ch[0]["reasons"] == ["odr-conflict"] and ch[0]["old"] == 2 and ch[0]["new"] == 2 else 1)' &&
	ok "ODR: a different set of two layouts is odr-conflict (exit 1)" || bad "ODR: a new set of layouts is missed (exit $rc)"
"$tool" diff odr/ab0.so odr/ab.so --format=json > odr3.json || true
python3 -c '
import json, sys
d = json.load(open("odr3.json"))
ch = [c for t in d["types"] if t["name"] == "struct dup" for c in t["changes"] if c["change"] == "odr_conflict"]
sys.exit(0 if ch and ch[0]["severity"] == "break" and ch[0]["reasons"] == ["odr-conflict"] and ch[0]["new"] == 2 and ch[0]["old"] == 1 and d["verdict"] == "incompatible" else 1)' &&
	ok "ODR: a second unit changing struct dup is a break (odr-conflict)" || bad "ODR: the change in the second unit is missed"

# --- objects edited in their assembly (gcc -S -dA): what other compilers write, or corruption
# void spelled as a base type (as the Intel compiler writes it): still void.
printf 'struct vs { int *p; };\nstruct vs g;\n' > void-base.c
printf 'struct vs { void *p; };\nstruct vs g;\n' > void-gcc.c
gcc -g -S -dA void-base.c -o void-base.s
gcc -g -c void-gcc.c -o void-gcc.o
python3 - <<'EOF'
import re
s = open("void-base.s").read()
assert s.count('.ascii "int\\0"') == 1, "gcc no longer spells int inline"
s = s.replace('.ascii "int\\0"', '.ascii "void\\0"')
# One byte longer: the unit's length grows by one (the base type is its last DIE but the variable).
s = re.sub(r'\.long\t0x([0-9a-f]+)\t# Length of Compilation Unit Info',
           lambda m: '.long\t0x%x\t# Length of Compilation Unit Info' % (int(m.group(1), 16) + 1), s, count=1)
open("void-base.s", "w").write(s)
EOF
gcc -c void-base.s -o void-base.o
readelf --debug-dump=info void-base.o | grep -q 'DW_AT_name *: void' && ok "void base type: the edited object has a base type named void" || bad "void base type: edit failed"
rc=0
"$tool" diff void-gcc.o void-base.o > void.txt 2> err.txt || rc=$?
[ "$rc" = 0 ] && grep -q 'void \*  *p;' <("$tool" dump void-base.o) && ok "void base type: void * equals gcc's void *" || bad "void base type: exit $rc"
# A 1-byte DW_ATE_signed_char named "char" (as the Intel compiler names gcc's signed char): the
# same type as gcc's "signed char", since plain char is signed in that object; no finding at all.
# signed char -> unsigned char is still a change.
printf 'struct sc { signed char c; signed char name[4]; signed char *p; struct { signed char in; } a; int x; };\nstruct sc g;\n' > schar.c
sed 's/signed char/unsigned char/g' schar.c > uchar.c
gcc -g -S -dA schar.c -o schar-icc.s
gcc -g -c schar.c -o schar-gcc.o
gcc -g -c uchar.c -o uchar-gcc.o
python3 - <<'PY'
s = open("schar-icc.s").read()
assert s.count('.string\t"signed char"') == 1, "gcc no longer puts signed char in .debug_str"
open("schar-icc.s", "w").write(s.replace('.string\t"signed char"', '.string\t"char"'))
PY
gcc -c schar-icc.s -o schar-icc.o
readelf --debug-dump=info schar-icc.o > schar-icc.txt
grep -A2 'DW_AT_encoding *: 6[[:space:]]*(signed char)' schar-icc.txt | grep -q 'DW_AT_name *: .*: char$' &&
	! grep -q 'DW_AT_name *:.*: signed char$' schar-icc.txt && ok "char as signed char: the edited object names its DW_ATE_signed_char type char" ||
	bad "char as signed char: edit failed"
for pair in "schar-gcc.o schar-icc.o" "schar-icc.o schar-gcc.o"; do
	rc=0
	"$tool" diff $pair --format=json > schar.json 2> err.txt || rc=$?
	[ "$rc" = 0 ] && [ ! -s err.txt ] && python3 -c '
import json, sys
d = json.load(open("schar.json"))
sys.exit(0 if d["types"] == [] and d["counts"]["unchanged"] == d["counts"]["old_types"] >= 1 else 1)' &&
		ok "char as signed char: diff $pair: no finding (exit 0)" || bad "char as signed char: diff $pair: exit $rc, or a finding"
done
finds_change "char as signed char: signed char -> unsigned char is still a change" schar-icc.o uchar-gcc.o "struct sc"
python3 -c '
import json, sys
d = json.load(open("diff.json"))
ch = {c.get("member"): c["reasons"] for t in d["types"] for c in t["changes"] if c["change"] == "member"}
sys.exit(0 if ch.get("c") == ["retyped"] and ch.get("name") == ["retyped"] and ch.get("a.in") == ["retyped"] else 1)' &&
	ok "char as signed char: char (signed) -> unsigned char is retyped" || bad "char as signed char: char -> unsigned char not retyped"
# A member's type reference pointing at another member's DIE: an error, not a garbage name.
printf 'struct bad { int a; int b; };\nstruct bad g;\n' > badref.c
gcc -g -S -dA badref.c -o badref.s
python3 - <<'EOF'
import re
lines = open("badref.s").read().split("\n")
members = [int(m.group(1), 16) for l in lines for m in [re.search(r'\(DIE \((0x[0-9a-f]+)\) DW_TAG_member\)', l)] if m]
assert len(members) == 2
# The second member's DW_AT_type now names the first member.
after = next(i for i, l in enumerate(lines) if "(DIE (0x%x) DW_TAG_member)" % members[1] in l)
i = next(i for i in range(after, len(lines)) if lines[i].endswith("# DW_AT_type"))
lines[i] = "\t.long\t0x%x\t# DW_AT_type" % members[0]
open("badref.s", "w").write("\n".join(lines))
EOF
gcc -c badref.s -o badref.o
expect_error "corrupt type reference to a member DIE" "which is no type" dump badref.o

# --- a side with no aggregate: readable debug information that defines no struct, union or enum is an
# empty model, compared like any other (issue 26); only an input with no readable DWARF is refused.
printf 'int counter;\nint next(int x) { return x + counter; }\n' > notypes.c
gcc -g -c notypes.c -o notypes.o
rc=0
"$tool" dump --format=json notypes.o > notypes.json 2> err.txt || rc=$?
[ "$rc" = 0 ] && [ ! -s err.txt ] && python3 -c 'import json, sys; sys.exit(0 if json.load(open("notypes.json"))["types"] == [] else 1)' &&
	ok "no aggregate: a unit of functions dumps as no types (exit 0)" || bad "no aggregate: dump of a unit of functions: exit $rc"
# A struct only declared in OLD and defined in NEW: added; the other way: removed.
printf 'struct later;\nstruct later *p;\n' > decl-only.c
printf 'struct later { int a; long b; };\nstruct later *p;\n' > defined.c
gcc -g -c decl-only.c -o decl-only.o
gcc -g -c defined.c -o defined.o
readelf --debug-dump=info decl-only.o | grep -q DW_AT_declaration && ok "no aggregate: OLD declares struct later only" || bad "no aggregate: OLD has no declaration"
# diff_status NAME OLD NEW TYPE STATUS RC: diff exits RC and reports TYPE with STATUS, nothing else.
diff_status() {
	local name=$1 old=$2 new=$3 type=$4 status=$5 want=$6 rc=0
	"$tool" diff "$old" "$new" --format=json > diff.json 2> err.txt || rc=$?
	if [ "$rc" = "$want" ] && [ ! -s err.txt ] && python3 -c '
import json, sys
d = json.load(open("diff.json"))
sys.exit(0 if [(t["name"], t["status"]) for t in d["types"]] == [(sys.argv[1], sys.argv[2])] else 1)' "$type" "$status"; then
		ok "$name: $type $status (exit $rc)"
	else
		bad "$name: exit $rc (want $want), $type not the one finding with status $status"
	fi
}
diff_status "no aggregate: declared only -> defined" decl-only.o defined.o "struct later" added 0
diff_status "no aggregate: defined -> declared only" defined.o decl-only.o "struct later" removed 1
# An enum no longer emitted (its last use gone): removed.
printf 'enum mode { M_A, M_B };\nenum mode m;\n' > enum-used.c
printf 'enum mode { M_A, M_B };\nint m;\n' > enum-gone.c
gcc -g -c enum-used.c -o enum-used.o
gcc -g -c enum-gone.c -o enum-gone.o
readelf --debug-dump=info enum-gone.o | grep -q DW_TAG_enumeration_type && bad "no aggregate: gcc emitted the unused enum" ||
	ok "no aggregate: gcc emits no unused enum"
diff_status "no aggregate: enum no longer emitted" enum-used.o enum-gone.o "enum mode" removed 1
diff_status "no aggregate: enum emitted again" enum-gone.o enum-used.o "enum mode" added 0
# (bad-input.sh: an object with no DWARF, or stripped, is still exit 2.)

# --- inputs
mkfifo fifo
expect_error "FIFO with no writer" "fifo: is a pipe" dump fifo
expect_error "FIFO with no writer, --btf" "fifo: is a pipe" dump --btf fifo
(exec 3<> fifo; sleep 3) &
sleep 0.2
expect_error "FIFO with a writer, --btf" "fifo: is a pipe" dump --btf fifo
wait
# Archives: every member read into one model; a member without DWARF is named.
# (The running kernel's BTF from sysfs, short reads: tests/host-btf.sh, a test of its own that meson
# counts as skipped on a kernel without BTF.)
cp ref-gccgdwarf5.o member.o
gcc -g $keep -fdebug-types-section -c dwz/old-2.c -o member2.o
ar rc lib.a member.o member2.o
gcc -g $keep -c dwz/old-2.c -o member2-plain.o
"$tool" dump member.o > m1.txt
"$tool" dump member2-plain.o > m2.txt
"$tool" dump lib.a > lib.txt
if python3 -c '
import sys
def types(path):
    out, cur = {}, []
    for line in open(path):
        cur.append(line)
        if line.startswith("}"):
            block = "".join(cur).strip()
            out[block.split("{")[0].split("*/")[-1].strip()] = block
            cur = []
    return out
a, b, lib = types("m1.txt"), types("m2.txt"), types("lib.txt")
sys.exit(0 if lib == {**a, **b} and len(lib) >= 6 else 1)'; then
	ok "archive: both members read (one with type units), as each alone"
else
	bad "archive: lib.a does not read as its members"
fi
# A kernel without memfd_create (a tiny guest: CONFIG_MEMFD_CREATE off) or a sandbox that forbids
# it: the reader's private copies (archive members, merged sections) go to an unlinked file in
# $TMPDIR. A shim makes memfd_create fail with ENOSYS; the archive must read the same.
cat > nomemfd.c <<'SHIM'
#include <errno.h>
int memfd_create(const char *name, unsigned int flags) { (void)name; (void)flags; errno = ENOSYS; return -1; }
SHIM
gcc -shared -fPIC -o nomemfd.so nomemfd.c
mkdir -p tmpdir
rc=0
# (An AddressSanitizer build must be told that another library comes first.)
asan="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
ASAN_OPTIONS=$asan LD_PRELOAD=$PWD/nomemfd.so TMPDIR=$PWD/tmpdir "$tool" dump lib.a > lib-nomemfd.txt 2> err.txt || rc=$?
if [ "$rc" = 0 ] && cmp -s lib.txt lib-nomemfd.txt && [ -z "$(ls -A tmpdir)" ]; then
	ok "archive without memfd_create: read through an unlinked file in \$TMPDIR, the same dump, nothing left behind"
else
	bad "archive without memfd_create: exit $rc, dump differs or files left in \$TMPDIR"
fi
rc=0
ASAN_OPTIONS=$asan LD_PRELOAD=$PWD/nomemfd.so TMPDIR=$PWD/no-such-dir "$tool" dump lib.a > /dev/null 2> err.txt || rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l < err.txt)" = 1 ] && grep -q 'lib.a(member.o)' err.txt; then
	ok "archive with neither memfd nor a temporary directory: exit 2, one line: $(cat err.txt)"
else
	bad "archive with neither memfd nor a temporary directory: exit $rc"
fi
gcc -c -x c /dev/null -o nodebug-member.o
ar rc libbad.a member.o nodebug-member.o
expect_error "archive: a member without DWARF" "libbad.a(nodebug-member.o): no DWARF" dump libbad.a
ar rc libodr.a odr/a.o odr/b.o
finds_change "archive: two members disagree on struct dup (ODR)" odr/a.o libodr.a "struct dup"
gcc -flto -g -c old.c -o lto.o
expect_error "slim LTO object" "LTO-only object" dump lto.o
head -c 2000 ref-gccgdwarf5.o > trunc.o
expect_error "truncated object" "trunc.o: truncated" dump trunc.o
# -o: never replaces what is not a regular file; keeps a replaced file's mode.
echo keep > target.txt
ln -s target.txt link.txt
expect_error "-o onto a symlink" "link.txt: is a symbolic link: not replaced" dump ref.so -o link.txt
[ -L link.txt ] && [ "$(cat target.txt)" = keep ] && ok "-o: the symlink and its target are untouched" || bad "-o: symlink replaced"
expect_error "-o onto a FIFO" "fifo: is a pipe (FIFO): not replaced" dump ref.so -o fifo
[ -p fifo ] && ok "-o: the FIFO is still a FIFO" || bad "-o: FIFO replaced"
chmod 0640 target.txt
"$tool" dump ref.so -o target.txt
[ "$(stat -c %a target.txt)" = 640 ] && grep -q '^struct inner' target.txt && ok "-o: a replaced file keeps its mode 0640" ||
	bad "-o: mode $(stat -c %a target.txt) after replacing a 0640 file"
(umask 022 && "$tool" dump ref.so -o new-report.txt)
[ "$(stat -c %a new-report.txt)" = 644 ] && ok "-o: a new file gets 0666 & ~umask" || bad "-o: new file has mode $(stat -c %a new-report.txt)"
# Nothing left behind by the refused writes.
[ -z "$(ls ./*.tmp* 2>/dev/null)" ] && ok "-o: no temporary files left" || bad "-o: temporary files left"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
