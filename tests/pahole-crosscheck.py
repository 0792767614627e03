#!/usr/bin/env python3
"""Cross-check abidiff-uapi's dump and show of whole-UAPI objects against
pahole (dwarves), an independent DWARF reader, run once per object:

- dump: every named struct and union that both list must have the same
  size, and every member that pahole prints (members of anonymous structs
  and unions included, at absolute offsets) the same bit offset and, for
  bitfields, the same width;
- show (`show --all --format=json`, one run per object): every member pahole
  prints, also inside named members of anonymous type under its dotted path
  (kvm_run's io.port, as pahole -C kvm_run prints it), and every such named
  member itself, must be a row of show with the same absolute bit offset and
  the same size (bitfields: the same width too), and each type the same size.

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
BITS = re.compile(r":\s*(\d+)$")
DIMS = re.compile(r"(?:\[[^\]]*\]\s*)+$")


def declarator_name(decl):
    """(name, bit width or None) of "type name[4][2]" or "type name:3", read from its end with
    anchored matches: a regex searched over the whole line costs seconds per object."""
    decl = decl.rstrip()
    bits = BITS.search(decl)
    if bits:
        decl = decl[:bits.start()].rstrip()
    dims = DIMS.search(decl) if decl.endswith("]") else None
    if dims:
        decl = decl[:dims.start()].rstrip()
    i = len(decl)
    while i > 0 and (decl[i - 1].isalnum() or decl[i - 1] == "_"):
        i -= 1
    return (decl[i:] or None), (bits.group(1) if bits else None)


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
        name, bits = declarator_name(decl)
        if not name:
            return None
    off = int(m.group("off")) * 8 + int(m.group("bit") or 0)
    return name, (off, int(bits) if bits else None)


def run_pahole(obj):
    return subprocess.run(["pahole", obj], capture_output=True, text=True, check=True).stdout


def type_blocks(out):
    """(name, lines) of each struct and union pahole prints: the lines after its head, up to its
    closing "};", or up to the next head (a closing line with attributes, "} __attribute__((...));",
    does not end it). A name printed twice (a duplicate definition) is read once, the first."""
    seen, name, lines = set(), None, []
    for line in out.splitlines() + [None]:
        m = HEAD.match(line) if line is not None else None
        if name is not None and (m or line is None or line == "};"):
            if name not in seen:
                seen.add(name)
                yield name, lines
            name = None
        if m:
            name, lines = "%s %s" % (m.group(1), m.group(2)), []
        elif name is not None:
            lines.append(line)


def pahole_types(out):
    """Named members reachable by name, as C sees them: members of anonymous
    struct/union members are lifted into their parent; the inside of a named
    member's anonymous type (union {...} u;) is not."""
    types = {}
    for name, block in type_blocks(out):
        cur = types[name] = {"size": None, "members": {}}
        stack = [cur["members"]]
        for line in block:
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


ATTR = re.compile(r"\s*__attribute__\(\((?:[^()]|\([^()]*\))*\)\)")
COMMENT = re.compile(r"/\*\s*(?P<off>\d+)(?::\s*(?P<bit>\d+))?\s+(?P<size>\d+)\s*\*/\s*$")


def pahole_paths(out):
    """{type: {"size": N, "paths": {path: (bit_offset, size, bits)}}}: every member pahole prints,
    by the path C code reaches it with: through anonymous members as if they were not there,
    through a named member of anonymous type (struct {...} io;) as io.port. The inside of an
    array of anonymous structs (} arr[4];) is left out: C reaches it through an index."""
    types = {}
    for name, block in type_blocks(out):
        cur = types[name] = {"size": None, "paths": {}}
        frames = [{}]
        for line in block:
            m = SIZE.search(line)
            if m and len(frames) == 1 and line.lstrip().startswith("/* size:"):
                cur["size"] = int(m.group(1))
                continue
            clean = ATTR.sub("", line)
            if OPEN.match(clean):
                frames.append({})
                continue
            c = CLOSE.match(clean)
            if c and len(frames) > 1:
                inner = frames.pop()
                cm = COMMENT.search(clean)
                if not cm:
                    continue  # g++ nests type definitions: printed as blocks, no member
                if not c.group("name"):
                    for k, v in inner.items():
                        frames[-1].setdefault(k, v)
                    continue
                # pahole 1.24 sizes a member of empty struct type by its members, 0, where the DWARF
                # (and sizeof in C++) says 1; the hole it prints after it is 1 byte too long. Only its
                # place is compared then.
                size = None if not inner and int(cm.group("size")) == 0 else int(cm.group("size"))
                frames[-1].setdefault(c.group("name"), (int(cm.group("off")) * 8, size, None))
                if not c.group("dims"):
                    for k, v in inner.items():
                        frames[-1].setdefault(c.group("name") + "." + k, v)
                continue
            mm = parse_member(clean)
            cm = COMMENT.search(clean)
            if mm and cm:
                name_, (off, bits) = mm
                frames[-1].setdefault(name_, (off, int(cm.group("size")), bits))
        cur["paths"] = frames[0]
    return types


def show_paths(tool, obj):
    """The same from show --all: {type: {"size": N, "paths": {path: (bit_offset, size, bits)}}}."""
    out = subprocess.run([tool, "show", "--all", "--format=json", obj], capture_output=True, text=True,
                         check=True).stdout
    types = {}
    for t in json.loads(out)["types"]:
        if not t["name"].startswith(("struct ", "union ")):
            continue  # a typedef'd anonymous aggregate: pahole prints no such name
        side = t["sides"][0]
        paths = {}
        for r in t["rows"]:
            if r["row"] == "member" and r["path"]:
                paths.setdefault(r["path"], (r["bit_offset"], r["size"], r.get("bit_size")))
        types[t["name"]] = {"size": side["size"], "paths": paths}
    return types


def check_show(tool, obj, pahole_out):
    theirs, ours = pahole_paths(pahole_out), show_paths(tool, obj)
    common = sorted(set(theirs) & set(ours))
    problems, rows = [], 0
    for name in common:
        a, b = theirs[name], ours[name]
        if a["size"] is not None and a["size"] != b["size"]:
            problems.append("show %s: size pahole %s, show %s" % (name, a["size"], b["size"]))
        for path, (off, size, bits) in a["paths"].items():
            rows += 1
            got = b["paths"].get(path)
            if got is None:
                problems.append("show %s: no row %s (pahole: bit %d, size %s)" % (name, path, off, size))
            elif got[0] != off or (size is not None and got[1] != size) or (bits is not None and got[2] != bits):
                problems.append("show %s.%s: pahole bit %d size %s%s, show bit %d size %d%s" % (
                    name, path, off, size, ":%d" % bits if bits else "", got[0], got[1],
                    ":%s" % got[2] if got[2] else ""))
    dotted = sum(1 for n in common for p in theirs[n]["paths"] if "." in p)
    if len(set(theirs) ^ set(ours)) > 0.01 * max(len(theirs), 1):
        problems.append("show: type sets differ: %d only in pahole, %d only in show" % (
            len(set(theirs) - set(ours)), len(set(ours) - set(theirs))))
    print("%s: show: %d structs/unions, %d rows compared (%d by dotted path), %d disagreements" % (
        obj, len(common), rows, dotted, len(problems)))
    for p in problems[:40]:
        print("    " + p)
    return not problems and len(common) > 0 and rows > 0


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
    pahole_out = run_pahole(obj)
    theirs, ours = pahole_types(pahole_out), our_types(tool, obj)
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
    shown = check_show(tool, obj, pahole_out)
    return not problems and len(common) > 0 and shown


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
