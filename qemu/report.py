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

# The driver's judge decides what a finding of abidiff-uapi means; this script has no rules of its own.
from uapi_check.judge import one_abi_fails
from uapi_check.util import read_text as read

# abidiff-uapi's statuses of a type found on both sides (its counts split them by status).
COMPARED = ("unchanged", "changed", "renamed", "aliased", "extended")


def schema_error(doc):
    """Why a document is not abidiff-uapi's diff output (None when it is)."""
    if not isinstance(doc, dict) or doc.get("tool") != "abidiff-uapi":
        return 'no "tool": "abidiff-uapi"'
    if not isinstance(doc.get("counts"), dict):
        return "no counts"
    if not isinstance(doc.get("types"), list) or not all(isinstance(t, dict) for t in doc["types"]):
        return "no list of types"
    return None


def btf_result(results, lang):
    """What abidiff-uapi --btf said about obj/LANG-after.o: exit status, counts, every mismatch
    (a type finding the driver's judge fails where both sides must have one ABI)."""
    rc = read(os.path.join(results, "btf-%s.rc" % lang))
    if rc is None:
        return None
    text = read(os.path.join(results, "btf-%s.json" % lang), "")
    entry = {"exit": int(rc.strip() or -1), "stderr": read(os.path.join(results, "btf-%s.err" % lang), "")}
    try:
        doc = json.loads(text)
        why = schema_error(doc)
    except ValueError:
        doc, why = None, "not JSON"
    if why:
        entry["json_error"] = "abidiff-uapi --format=json printed no diff report (%s)" % why
        entry["output"] = text[:4000]
    else:
        entry["output"] = doc
        entry["verdict"] = doc.get("verdict")
        entry["counts"] = doc["counts"]
        entry["types_compared"] = sum(doc["counts"].get(k, 0) for k in COMPARED)
        entry["mismatches"] = [t for t in doc["types"] if one_abi_fails(t)]
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
    names = {m.get("name") for m in entry.get("mismatches", [])}
    unexpected = sorted(n for n in names if n not in expected)
    stale = sorted(n for n in expected if n not in names)
    entry["expected"] = {n: expected[n] for n in sorted(names) if n in expected}
    entry["unexpected"] = unexpected
    entry["stale_expected"] = stale
    ok = not unexpected and not stale
    detail = "%s types compared with the kernel's BTF; %d expected kernel-only differences" % (
        entry["types_compared"], len(entry["expected"]))
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
    if "name" in finding and "status" in finding:
        parts = ["%s %s (%s)" % (finding["name"], finding["status"], finding.get("severity"))]
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


def distro_report(res, args, reasons):
    """The BTF of Debian's kernel and its modules against the objects (distro_btf), and which modules
    the guest loaded. Appends its failure reasons to reasons."""
    import distro_btf  # beside this script, so on sys.path
    names = {lang: distro_btf.load_names(getattr(args, "uapi_names_" + lang)) for lang in ("c", "cxx")}
    section, why = distro_btf.judge(res, args.kernel, names["c"], names["cxx"])
    reasons.extend(why)
    try:
        with open(args.distro, encoding="utf-8") as f:
            chosen = json.load(f)
    except (OSError, ValueError):
        chosen = {}
    status = {}
    for line in (read(os.path.join(res, "modules.tsv"), "") or "").splitlines():
        fields = line.split("\t") + ["", ""]
        status[fields[0]] = {"status": fields[1], "error": fields[2]}
    per = section["per_btf"]
    modules = {
        "in_package": chosen.get("modules"), "defining_uapi_types": chosen.get("defining_uapi_types"),
        "chosen": chosen.get("selected"), "to_load": len(status),
        "loaded": sum(1 for s in status.values() if s["status"] == "loaded"),
        "failed": {m: s["error"] for m, s in sorted(status.items()) if s["status"] != "loaded"},
        "counts": {m: {"types_defined": e.get("types_defined"),
                       "c": e.get("c", {}).get("types_compared"), "cxx": e.get("cxx", {}).get("types_compared")}
                   for m, e in sorted(per.items())},
    }
    summary = distro_btf.summary_lines(section)
    summary.insert(0, "  modules: %d of %d loaded (%d in the package, %d define UAPI types)" % (
        modules["loaded"], modules["to_load"], modules["in_package"] or 0, modules["defining_uapi_types"] or 0))
    for m, e in list(modules["failed"].items())[:20]:
        summary.insert(1, "    not loaded: %s: %s" % (m, e))
    return {"btf": section, "modules": modules, "summary": summary}


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
    # qemu/run --distro-kernel: the modules chosen (modules.json of qemu/distro.py) and the type names
    # of the C and C++ objects; the BTF is then judged by distro_btf.
    ap.add_argument("--distro")
    ap.add_argument("--uapi-names-c")
    ap.add_argument("--uapi-names-cxx")
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
    distro = None
    if args.distro:
        distro = distro_report(res, args, reasons)
        btf = distro["btf"]
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
    if distro:
        report["distro_package"] = args.key
        report["modules"] = distro["modules"]
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
    if distro:
        lines.extend(distro["summary"])
    for lang, entry in ({} if distro else btf).items():
        if entry is None:
            lines.append("  btf %s: not run" % lang)
            continue
        lines.append("  btf %s: exit %d, %s types compared with the kernel's BTF, %d mismatches" % (
            lang, entry["exit"], entry.get("types_compared", "?"), len(entry.get("mismatches", []))))
        for m in entry.get("mismatches", []):
            why = entry.get("expected", {}).get(m.get("name"))
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


if __name__ == "__main__":
    sys.exit(main())
