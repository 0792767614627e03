#!/usr/bin/env python3
"""Cross-check abidiff-uapi's dump of whole-UAPI objects against pahole
(dwarves), an independent DWARF reader: every named struct and union that
both list must have the same size, and every member that pahole prints
(members of anonymous structs and unions included, at absolute offsets) the
same bit offset and, for bitfields, the same width.

Usage: pahole-crosscheck.py ABIDIFF_UAPI OBJECT...
Prints per object what was compared; exits 1 on any disagreement, or if the
two tools do not agree on which types exist (more than 1% apart).
"""
import json
import re
import subprocess
import sys

HEAD = re.compile(r"^(struct|union) (\w+) \{$")
SIZE = re.compile(r"/\* size: (\d+),")
MEMBER = re.compile(r"^\t+(?P<decl>.*?);\s*/\*\s*(?P<off>\d+)(?::\s*(?P<bit>\d+))?\s+(?P<size>\d+)\s*\*/$")
NAME = re.compile(r"(?:\(\s*\*\s*(\w+)\s*\)|(\w+))\s*(?:\[[^\]]*\])*\s*(?::\s*(\d+))?\s*$")


OPEN = re.compile(r"^\t+(struct|union)\s*(\w+\s*)?\{$")
CLOSE = re.compile(r"^\t+\}\s*(?P<name>\w+)?(?P<dims>(?:\[[^\]]*\])*)\s*;")


def parse_member(line):
    m = MEMBER.match(line)
    if not m or m.group("decl").startswith("}"):
        return None
    decl = m.group("decl")
    # The declarator before the comment: "type name[4]", "type name:3", "ret (*fn)(args)".
    fn = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(.*\)$", decl)
    if fn:
        name, bits = fn.group(1), None
    else:
        n = NAME.search(decl)
        if not n:
            return None
        name, bits = n.group(2), n.group(3)
    off = int(m.group("off")) * 8 + int(m.group("bit") or 0)
    return name, (off, int(bits) if bits else None)


def pahole_types(obj):
    """Named members reachable by name, as C sees them: members of anonymous
    struct/union members are lifted into their parent; the inside of a named
    member's anonymous type (union {...} u;) is not."""
    out = subprocess.run(["pahole", obj], capture_output=True, text=True, check=True).stdout
    types, cur, stack = {}, None, []
    for line in out.splitlines():
        m = HEAD.match(line)
        if m:
            cur = {"size": None, "members": {}}
            stack = [cur["members"]]
            name = "%s %s" % (m.group(1), m.group(2))
            if name in types:
                cur = {"size": None, "members": {}}  # a duplicate: parse, keep the first
                stack = [cur["members"]]
            else:
                types[name] = cur
            continue
        if cur is None:
            continue
        if line == "};":
            cur = None
            continue
        m = SIZE.search(line)
        if m and len(stack) == 1:
            cur["size"] = int(m.group(1))
            continue
        if OPEN.match(line):
            stack.append({})
            continue
        m = CLOSE.match(line)
        if m and len(stack) > 1:
            inner = stack.pop()
            if "/*" not in line:
                continue  # g++ nests anonymous type definitions; pahole prints them as blocks, not members
            if not m.group("name"):
                for k, v in inner.items():
                    stack[-1].setdefault(k, v)
            else:
                mm = parse_member(line.replace("}", "T", 1))
                if mm:
                    stack[-1].setdefault(mm[0], mm[1])
            continue
        mm = parse_member(line)
        if mm:
            stack[-1].setdefault(mm[0], mm[1])
    return types


def our_types(tool, obj):
    out = subprocess.run([tool, "dump", "--format=json", obj], capture_output=True, text=True, check=True).stdout
    types = {}
    for t in json.loads(out)["types"]:
        if t["kind"] == "enum" or not (t["name"].startswith("struct ") or t["name"].startswith("union ")):
            continue
        members = {}

        def walk(ms):
            for m in ms:
                if m.get("members") is not None and m["name"] is None:
                    walk(m["members"])
                elif m["name"]:
                    members.setdefault(m["name"], (m["bit_offset"], m.get("bit_size")))

        walk(t["members"])
        types[t["name"]] = {"size": t["size"], "members": members}
    return types


def check(tool, obj):
    theirs, ours = pahole_types(obj), our_types(tool, obj)
    common = sorted(set(theirs) & set(ours))
    problems = []
    members = 0
    for name in common:
        a, b = theirs[name], ours[name]
        if a["size"] is not None and a["size"] != b["size"]:
            problems.append("%s: size pahole %s, abidiff-uapi %s" % (name, a["size"], b["size"]))
        for mname, (off, bits) in a["members"].items():
            members += 1
            got = b["members"].get(mname)
            if got is None:
                problems.append("%s: member %s missing" % (name, mname))
            elif got[0] != off or (bits is not None and got[1] != bits):
                problems.append("%s.%s: pahole bit %d%s, abidiff-uapi bit %d%s" % (
                    name, mname, off, ":%d" % bits if bits else "", got[0], ":%s" % got[1] if got[1] else ""))
    only_pahole = len(set(theirs) - set(ours))
    only_ours = len(set(ours) - set(theirs))
    if only_pahole + only_ours > 0.01 * max(len(theirs), 1):
        problems.append("type sets differ: %d only in pahole, %d only in abidiff-uapi (e.g. %s)" % (
            only_pahole, only_ours, sorted(set(theirs) ^ set(ours))[:5]))
    print("%s: %d structs/unions (pahole %d, abidiff-uapi %d), %d member offsets compared, %d disagreements" % (
        obj, len(common), len(theirs), len(ours), members, len(problems)))
    for p in problems[:40]:
        print("    " + p)
    return not problems and len(common) > 0


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    tool, objs = sys.argv[1], sys.argv[2:]
    results = [check(tool, o) for o in objs]
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
