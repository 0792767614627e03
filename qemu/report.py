#!/usr/bin/env python3
"""report: turn the guest's results (extracted from the serial log by qemu/run) into guest-report.json
and summary.txt in --out, and print nothing else. Exit 0 when the guest passed every check and the host
saw no failure reason (--reason), 1 otherwise.

The results directory holds checks.tsv (NAME, pass|fail, detail), uname, btf-{c,cxx}.{json,txt,err,rc},
the program outputs, and matrix/NAME.* for each comparison whose output differed from the host's.
"""
import argparse
import json
import os
import sys


def read(path, default=None):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def find_key(doc, names):
    """The first value stored under one of names, searched breadth-first through nested objects."""
    queue = [doc]
    while queue:
        node = queue.pop(0)
        if isinstance(node, dict):
            for name in names:
                if name in node:
                    return node[name]
            queue.extend(v for v in node.values() if isinstance(v, (dict, list)))
    return None


# abidiff-uapi's statuses of a type found on both sides, and those that are no layout mismatch.
COMPARED = ("unchanged", "changed", "renamed", "aliased", "extended")
# Compatible statuses; renamed is not (a name that programs use is gone).
HARMLESS = ("unchanged", "aliased", "extended", "added")


def is_mismatch(t):
    if not isinstance(t, dict):
        return True
    changes = t.get("changes") or []
    return t.get("status") not in HARMLESS or any(isinstance(c, dict) and c.get("breaking") for c in changes)


def btf_result(results, lang):
    """What abidiff-uapi --btf said about obj/LANG-after.o: exit status, counts, every mismatch."""
    rc = read(os.path.join(results, "btf-%s.rc" % lang))
    if rc is None:
        return None
    text = read(os.path.join(results, "btf-%s.json" % lang), "")
    entry = {"exit": int(rc.strip() or -1), "stderr": read(os.path.join(results, "btf-%s.err" % lang), "")}
    try:
        doc = json.loads(text)
    except ValueError:
        entry["json_error"] = "abidiff-uapi --format=json printed no valid JSON"
        entry["output"] = text[:4000]
        doc = None
    if doc is not None:
        entry["output"] = doc
        entry["verdict"] = doc.get("verdict") if isinstance(doc, dict) else None
        counts = doc.get("counts") if isinstance(doc, dict) else None
        if isinstance(counts, dict):
            entry["counts"] = counts
            # Types on both sides: the BTF's and the object's (abidiff-uapi's counts split them by status).
            entry["structs_compared"] = sum(counts.get(k, 0) for k in COMPARED)
        else:
            compared = find_key(doc, ["structs_compared", "compared", "types_compared"])
            entry["structs_compared"] = len(compared) if isinstance(compared, list) else compared
        types = doc.get("types") if isinstance(doc, dict) else None
        if isinstance(types, list):
            entry["mismatches"] = [t for t in types if is_mismatch(t)]
        else:
            mismatches = find_key(doc, ["mismatches", "findings", "differences"])
            entry["mismatches"] = mismatches if isinstance(mismatches, list) else []
    entry["text"] = read(os.path.join(results, "btf-%s.txt" % lang), "")
    return entry


def load_expected(kernel):
    """qemu/btf-expected-KERNEL.txt: TYPE<TAB>reason lines, the differences
    between the kernel's BTF and userspace that the headers make on purpose."""
    # QEMU_BTF_EXPECTED: another list, for the harness tests' stand-in tool.
    path = os.environ.get("QEMU_BTF_EXPECTED") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "btf-expected-%s.txt" % kernel)
    expected = {}
    for line in (read(path, "") or "").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition("\t")
            expected[name.strip()] = reason.strip()
    return expected


def judge_btf(lang, entry, expected, checks):
    """A BTF check passes when the tool ran (exit 0 or 1) and its mismatches are
    exactly the expected ones: one more is a finding, one fewer a stale entry."""
    if entry is None or entry["exit"] not in (0, 1) or "json_error" in entry:
        return
    names = {m.get("name") for m in entry.get("mismatches", []) if isinstance(m, dict)}
    unexpected = sorted(n for n in names if n not in expected)
    stale = sorted(n for n in expected if n not in names)
    entry["expected"] = {n: expected[n] for n in sorted(names) if n in expected}
    entry["unexpected"] = unexpected
    entry["stale_expected"] = stale
    ok = not unexpected and not stale
    detail = "%s types compared with the kernel's BTF; %d expected kernel-only differences" % (
        entry.get("structs_compared", "?"), len(entry["expected"]))
    if unexpected:
        detail += "; UNEXPECTED: " + ", ".join(unexpected)
    if stale:
        detail += "; expected but now equal (update qemu/btf-expected-*.txt): " + ", ".join(stale)
    for c in checks:
        if c["name"] == "btf:" + lang:
            c["status"] = "pass" if ok else "fail"
            c["detail"] = detail


def describe(finding):
    """One line for a differing type: its name, status, sizes and each member change."""
    if not isinstance(finding, dict):
        return str(finding)
    if "name" in finding and "status" in finding:
        parts = ["%s %s" % (finding["name"], finding["status"])]
        if finding.get("old_size") != finding.get("new_size"):
            parts.append("size %s -> %s" % (finding.get("old_size"), finding.get("new_size")))
        for c in finding.get("changes") or []:
            if not isinstance(c, dict):
                continue
            old, new = c.get("old"), c.get("new")
            what = c.get("change", "?")
            if c.get("member"):
                what += " " + str(c["member"])
            if isinstance(old, dict) and isinstance(new, dict):
                keys = c.get("what") or ["type", "offset", "size"]
                what += " (%s)" % ", ".join("%s %s -> %s" % (k, old.get(k), new.get(k)) for k in keys)
            elif isinstance(old, dict) or isinstance(new, dict):
                side = old or new
                what += " (%s, offset %s, size %s)" % (side.get("type"), side.get("offset"), side.get("size"))
            elif old is not None or new is not None:
                what += " (%s -> %s)" % (old, new)
            parts.append(what)
        where = " [%s:%s]" % (finding["file"], finding.get("line")) if finding.get("file") else ""
        return "; ".join(parts) + where
    return json.dumps(finding, sort_keys=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--verdict", default="")
    ap.add_argument("--boot-seconds", type=int, default=0)
    ap.add_argument("--total-seconds", type=int, default=0)
    ap.add_argument("--reason", action="append", default=[])
    args = ap.parse_args()
    res = args.results

    checks = []
    for line in (read(os.path.join(res, "checks.tsv"), "") or "").splitlines():
        fields = line.split("\t", 2) + ["", ""]
        checks.append({"name": fields[0], "status": fields[1], "detail": fields[2]})
    failed = [c for c in checks if c["status"] != "pass"]

    matrix = [c for c in checks if c["name"].startswith("matrix:")]
    differing = []
    for c in matrix:
        if c["status"] != "pass":
            name = c["name"][len("matrix:"):]
            differing.append({
                "name": name,
                "detail": c["detail"],
                "json_diff": read(os.path.join(res, "matrix", name + ".json.diff")),
                "text_diff": read(os.path.join(res, "matrix", name + ".txt.diff")),
            })

    programs = {}
    for prog in ("keyctl-dh-c", "keyctl-dh-cxx", "ioprio-c", "ioprio-cxx"):
        output = read(os.path.join(res, prog + ".out"))
        if output is not None:
            programs[prog] = output

    btf = {lang: btf_result(res, lang) for lang in ("c", "cxx")}
    expected = load_expected(args.kernel)
    for lang, entry in btf.items():
        judge_btf(lang, entry, expected, checks)
    failed = [c for c in checks if c["status"] != "pass"]
    reasons = list(args.reason)
    if not checks and not reasons:
        reasons.append("the guest ran no checks")
    if failed:
        reasons.append("%d of %d guest checks failed: %s" % (len(failed), len(checks),
                                                             ", ".join(c["name"] for c in failed)))
    # The guest's own verdict counts its BTF checks by exit status; those are
    # judged here, so a completed guest (PASS or FAIL) passes on the checks.
    if args.verdict not in ("PASS", "FAIL") and not reasons:
        reasons.append("the guest's verdict is %s" % (args.verdict or "missing"))
    passed = not reasons

    report = {
        "kernel": args.kernel,
        "uname": (read(os.path.join(res, "uname"), "") or "").strip() or None,
        "cache_key": args.key,
        "passed": passed,
        "verdict": args.verdict or None,
        "reasons": reasons,
        "checks": checks,
        "matrix": {"comparisons": len(matrix), "identical": len(matrix) - len(differing),
                   "differing": differing},
        "btf": btf,
        "programs": programs,
        "seconds": {"boot_and_checks": args.boot_seconds, "total": args.total_seconds},
    }
    with open(os.path.join(args.out, "guest-report.json"), "w") as f:
        json.dump(report, f, indent=2, sort_keys=False)
        f.write("\n")

    lines = ["qemu/run: linux %s (%s): %s" % (args.kernel, report["uname"] or "no uname",
                                               "PASS" if passed else "FAIL")]
    for r in reasons:
        lines.append("  reason: %s" % r)
    lines.append("  matrix: %d comparisons, %d identical to the host" % (len(matrix), len(matrix) - len(differing)))
    for d in differing:
        lines.append("    differs: %s (%s)" % (d["name"], d["detail"]))
    for lang, entry in btf.items():
        if entry is None:
            lines.append("  btf %s: not run" % lang)
            continue
        lines.append("  btf %s: exit %d, %s types compared with the kernel's BTF, %d mismatches" % (
            lang, entry["exit"], entry.get("structs_compared", "?"), len(entry.get("mismatches", []))))
        for m in entry.get("mismatches", []):
            why = entry.get("expected", {}).get(m.get("name") if isinstance(m, dict) else None)
            lines.append("    %s: %s" % ("expected" if why else "mismatch", describe(m)))
            if why:
                lines.append("      why: %s" % why)
        if "json_error" in entry:
            lines.append("    %s" % entry["json_error"])
    for c in checks:
        if not c["name"].startswith("matrix:"):
            lines.append("  %s %s: %s" % (c["status"], c["name"], c["detail"]))
    lines.append("  time: %d s boot and checks, %d s in all" % (args.boot_seconds, args.total_seconds))
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0 if passed else 1


sys.exit(main())
