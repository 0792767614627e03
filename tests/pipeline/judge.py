#!/usr/bin/env python3
"""judge.py: unit tests of how uapi-check judges abidiff-uapi's JSON findings, on hand-written
samples (no kernel tree, no compiler)."""
import importlib.machinery
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
loader = importlib.machinery.SourceFileLoader("uapi_check", os.path.join(ROOT, "abidiff-uapi", "uapi-check"))
spec = importlib.util.spec_from_loader("uapi_check", loader)
uc = importlib.util.module_from_spec(spec)
loader.exec_module(uc)


def member(name, offset, size, type_, bit_size=None):
    m = {"name": name, "offset": offset, "bit_offset": offset * 8, "size": size, "type": type_}
    if bit_size is not None:
        m["bit_size"] = bit_size
    return m


def entry(status, changes, name="struct x", old_size=8, new_size=8):
    return {"name": name, "kind": "struct", "status": status, "file": "linux/x.h",
            "old_size": old_size, "new_size": new_size, "changes": changes}


CASES = [
    # (what, role, entry, expected [(severity, check)])
    ("an alias added in C is fine", "series-c",
     entry("aliased", [{"change": "alias_added", "new": member("_class", 0, 1, "__u8"), "alias_of": "class"}]),
     [("ok", "aliases-share-layout")]),
    ("a member added in C that is not an alias fails", "series-c",
     entry("extended", [{"change": "member_added", "new": member("_class", 0, 2, "__u16")}]),
     [("fail", "aliases-share-layout")]),
    ("a renamed C member fails: the old name must remain", "series-c",
     entry("renamed", [{"change": "renamed", "old": member("class", 0, 1, "__u8"),
                        "new": member("_class", 0, 1, "__u8")}]),
     [("fail", "c-names-kept")]),
    ("a removed C type fails", "series-c", entry("removed", []), [("fail", "c-names-kept")]),
    ("an added C type is fine", "series-c", entry("added", []), [("ok", "added")]),
    ("a C size change fails", "series-c",
     entry("changed", [{"change": "size", "old": 8, "new": 12}], old_size=8, new_size=12),
     [("fail", "c-layout-unchanged")]),
    ("a keyword member renamed across C and C++ is fine", "cross-series",
     entry("renamed", [{"change": "renamed", "old": member("class", 0, 1, "__u8"),
                        "new": member("_class", 0, 1, "__u8")}]),
     [("ok", "aliases-share-layout")]),
    ("a keyword rename that moves the member fails", "cross",
     entry("renamed", [{"change": "renamed", "old": member("class", 0, 1, "__u8"),
                        "new": member("_class", 4, 1, "__u8")}]),
     [("fail", "c-cxx-same-layout")]),
    ("a C/C++ size difference fails", "cross",
     entry("changed", [{"change": "size", "old": 8, "new": 12},
                       {"change": "member", "member": "entries", "what": ["offset"],
                        "old": member("entries", 8, 0, "struct e[]"),
                        "new": member("entries", 12, 0, "struct e[]")}], old_size=8, new_size=12),
     [("fail", "c-cxx-same-layout"), ("fail", "c-cxx-same-layout")]),
    ("a type name that differs alone across C and C++ is a note", "cross",
     entry("changed", [{"change": "member", "member": "b", "what": ["type"],
                        "old": member("b", 0, 1, "_Bool"), "new": member("b", 0, 1, "bool")}]),
     [("note", "c-cxx-same-layout")]),
    ("an alias only C has is fine across C and C++", "cross",
     entry("aliased", [{"change": "alias_removed", "old": member("class", 0, 1, "__u8"), "alias_of": "_class"}]),
     [("ok", "c-cxx-same-layout")]),
    ("a C++ member removed by the series fails", "series-cxx",
     entry("changed", [{"change": "member_removed", "old": member("virt", 8, 8, "void *")}]),
     [("fail", "cxx-names-kept")]),
    ("a C++ size change by the series is a note (checked against C elsewhere)", "series-cxx",
     entry("changed", [{"change": "size", "old": 12, "new": 8}], old_size=12, new_size=8),
     [("note", "cxx-layout")]),
]

failed = 0
for what, role, e, want in CASES:
    got = [(f["severity"], f["check"]) for f in uc.judge_type(role, e)]
    if got == want:
        print(f"ok: {what}")
    else:
        print(f"FAIL: {what}: got {got}, want {want}")
        failed += 1

# The collision parser on a gcc transcript with an elided include chain.
stderr = """In file included from include/before/linux/if.h:28,
                 from work/c.c:111:
/usr/include/x86_64-linux-gnu/bits/types/sigset_t.h:7:20: error: conflicting types for \u2018sigset_t\u2019; have \u2018__sigset_t\u2019
In file included from work/c.c:44:
include/before/asm/signal.h:16:23: note: previous declaration of \u2018sigset_t\u2019 with type \u2018sigset_t\u2019
"""
col = uc.parse_first_collision(stderr, "work/c.c", "/nonexistent")
included = [f"h{i}.h" for i in range(1, 200)]
included[43] = "asm/signal.h"
included[110] = "linux/atmbr2684.h"
culprit = uc.blame(col, included, "include/before", "work/c.c")
for what, cond in (("collision symbol is sigset_t", col["symbol"] == "sigset_t"),
                   ("the UAPI header defining the C library name is blamed", culprit == "asm/signal.h")):
    print(("ok: " if cond else "FAIL: ") + what)
    failed += not cond

print(f"{len(CASES) + 2 - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
