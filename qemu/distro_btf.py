"""distro_btf: judge the comparison of a Debian kernel's BTF (vmlinux and each module's split BTF) with the
C and C++ whole-UAPI objects, the same way for the guest's results (qemu/run --distro-kernel) and for the
comparison without booting (qemu/distro-check).

A results directory holds btf/NAME-LANG.{json,rc,err} (abidiff-uapi diff --btf ... --common-only --strict
--format=json) and btf/NAME.names (the type names that BTF defines, from abidiff-uapi dump), for NAME
vmlinux and each module. A difference is a type that the tool grades break or review under --strict;
the expected ones are in qemu/btf-expected-distro-<v>.txt, one a line:

    TYPE<TAB>MEMBERS<TAB>reason

MEMBERS is the comma-separated, sorted list of the members and enumerators that the tool's findings
name (or "-" when they name none). A difference not listed, an entry whose type no longer differs, and
an entry whose members are not those the findings name each fail the run.
"""
import json
import os
import sys

from uapi_check.util import read_text

COMPARED = ("unchanged", "changed", "renamed", "aliased", "extended")
DIFFERENT = ("break", "review")


def load_names(path):
    return {line.strip() for line in (read_text(path, "") or "").splitlines() if line.strip()}


def load_expected(kernel, path=None):
    path = path or os.environ.get("QEMU_DISTRO_BTF_EXPECTED") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "btf-expected-distro-%s.txt" % kernel)
    expected, errors = {}, []
    for n, line in enumerate((read_text(path, "") or "").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 3 or not fields[2].strip():
            errors.append("%s:%d: not TYPE<TAB>MEMBERS<TAB>reason" % (path, n))
            continue
        members = "" if fields[1].strip() == "-" else fields[1].strip()
        expected[fields[0].strip()] = {"members": members, "reason": fields[2].strip()}
    return expected, errors


def finding_members(t):
    names = set()
    for c in t.get("changes") or []:
        if isinstance(c, dict) and c.get("severity") in DIFFERENT:
            for k in ("member", "enumerator"):
                if c.get(k):
                    names.add(str(c[k]))
    return ",".join(sorted(names))


def judge(results, kernel, names_c, names_cxx, expected_path=None):
    """-> (btf section of the report, list of failure reasons)."""
    bdir = os.path.join(results, "btf")
    reasons = []
    lang_names = {"c": names_c, "cxx": names_cxx}
    btfs = sorted({f.rsplit(".", 1)[0] for f in os.listdir(bdir) if f.endswith(".names")}) if os.path.isdir(bdir) else []
    if "vmlinux" not in btfs:
        reasons.append("no comparison of vmlinux's BTF in the results")
    per_btf, compared, diffs = {}, {"c": set(), "cxx": set()}, {}
    for name in btfs:
        defined = load_names(os.path.join(bdir, name + ".names"))
        entry = {"types_defined": len(defined)}
        for lang in ("c", "cxx"):
            base = os.path.join(bdir, "%s-%s" % (name, lang))
            rc = (read_text(base + ".rc", "") or "").strip()
            common = defined & lang_names[lang]
            if rc == "none":
                # distro-compare found no name on both sides and did not compare (--common-only
                # would select nothing): the names must agree.
                if common:
                    reasons.append("%s (%s): not compared, but %d names are on both sides" % (name, lang, len(common)))
                entry[lang] = {"types_compared": 0, "differences": [], "exit": None}
                continue
            try:
                doc = json.loads(read_text(base + ".json", "") or "")
            except ValueError:
                doc = None
            if rc not in ("0", "1") or not isinstance(doc, dict) or not isinstance(doc.get("counts"), dict):
                err = (read_text(base + ".err", "") or "").strip().splitlines()
                reasons.append("%s (%s): abidiff-uapi exited %s: %s" % (name, lang, rc or "?", err[0] if err else "no JSON"))
                entry[lang] = {"error": err[:3], "exit": rc}
                continue
            # With --common-only, new_types counts the object's types that found a partner in the BTF:
            # the tool pairs by name, so it must be the names both sides define. (old_types can be one
            # more: two anonymous enums of the kernel may pair with one of userspace's.)
            n = doc["counts"].get("new_types", -1)
            if n != len(common):
                reasons.append("%s (%s): the tool compared %d of the object's types, but %d names are on both sides" % (
                    name, lang, n, len(common)))
            compared[lang] |= common
            found = []
            for t in doc.get("types") or []:
                if isinstance(t, dict) and t.get("severity") in DIFFERENT:
                    found.append(t["name"])
                    d = diffs.setdefault(t["name"], {"type": t["name"], "members": set(), "severity": set(),
                                                     "reasons": set(), "where": set()})
                    d["members"].add(finding_members(t))
                    d["severity"].add(t["severity"])
                    d["reasons"].update(t.get("reasons") or [])
                    d["where"].add("%s:%s" % (name, lang))
            entry[lang] = {"types_compared": n, "differences": sorted(found), "exit": int(rc)}
        per_btf[name] = entry

    # The guest compared vmlinux's BTF itself: the host's comparison of the exported copy must agree.
    on_target = {}
    gdir = os.path.join(results, "btf-guest")
    if os.path.isdir(gdir):
        for lang in ("c", "cxx"):
            docs = []
            for d in (gdir, bdir):
                try:
                    doc = json.loads(read_text(os.path.join(d, "vmlinux-%s.json" % lang), "") or "")
                except ValueError:
                    doc = None
                if isinstance(doc, dict):
                    doc.pop("old", None)
                    doc.pop("new", None)
                docs.append((doc, (read_text(os.path.join(d, "vmlinux-%s.rc" % lang), "") or "").strip()))
            same = docs[0][0] is not None and docs[0] == docs[1]
            on_target[lang] = "identical" if same else "DIFFERENT"
            if not same:
                reasons.append("vmlinux (%s): the guest's own comparison differs from the host's of the exported BTF" % lang)
    expected, errors = load_expected(kernel, expected_path)
    reasons.extend(errors)
    differences, matched = [], []
    for tname in sorted(diffs):
        d = diffs[tname]
        members = sorted(d["members"])
        item = {"type": tname, "members": members[0] if len(members) == 1 else members,
                "severity": sorted(d["severity"]), "reasons": sorted(d["reasons"]),
                "where": sorted(d["where"], key=lambda w: (not w.startswith("vmlinux:"), w))}
        if tname not in expected:
            reasons.append("unexpected difference between the kernel's BTF and the headers: %s (%s; in %s)" % (
                tname, ", ".join(item["reasons"]), ", ".join(item["where"][:3])))
        elif len(members) != 1 or members[0] != expected[tname]["members"]:
            reasons.append("%s: the findings name members %s, qemu/btf-expected-distro-%s.txt says %s" % (
                tname, "/".join(m or "-" for m in members), kernel, expected[tname]["members"] or "-"))
        else:
            item["why"] = expected[tname]["reason"]
            matched.append(tname)
        differences.append(item)
    stale = sorted(set(expected) - set(diffs))
    for tname in stale:
        reasons.append("stale entry in qemu/btf-expected-distro-%s.txt: %s no longer differs" % (kernel, tname))
    section = {
        "types_compared": len(compared["c"] | compared["cxx"]),
        "types_compared_by_language": {lang: len(compared[lang]) for lang in ("c", "cxx")},
        "vmlinux_types_compared": {lang: per_btf.get("vmlinux", {}).get(lang, {}).get("types_compared")
                                   for lang in ("c", "cxx")},
        "modules_compared": len([b for b in btfs if b != "vmlinux"]),
        "module_only_types_compared": len((compared["c"] | compared["cxx"]) -
                                          {n for lang in ("c", "cxx") for n in
                                           (load_names(os.path.join(bdir, "vmlinux.names")) & lang_names[lang])}),
        "vmlinux_on_target_vs_host": on_target,
        "differences": differences,
        "expected": [{"type": t, "members": expected[t]["members"] or "-", "why": expected[t]["reason"]}
                     for t in sorted(expected)],
        "stale_expected": stale,
        "per_btf": per_btf,
    }
    return section, reasons


def summary_lines(section):
    lines = ["  btf: %d UAPI types compared (C %d, C++ %d): vmlinux %s/%s (C/C++), %d modules add %d" % (
        section["types_compared"], section["types_compared_by_language"]["c"],
        section["types_compared_by_language"]["cxx"], section["vmlinux_types_compared"]["c"],
        section["vmlinux_types_compared"]["cxx"], section["modules_compared"],
        section["module_only_types_compared"])]
    for d in section["differences"]:
        lines.append("    %s %s [%s] in %s" % ("expected" if d.get("why") else "DIFFERS", d["type"],
                                              ", ".join(d["reasons"]), ", ".join(d["where"][:4]) +
                                              (" and %d more" % (len(d["where"]) - 4) if len(d["where"]) > 4 else "")))
        if d.get("why"):
            lines.append("      why: %s" % d["why"])
    return lines


def main(argv=None):
    """python3 qemu/distro_btf.py RESULTS KERNEL NAMES_C NAMES_CXX OUT.json: judge a results directory
    (qemu/distro-check's) and write {"passed", "reasons", "btf"} to OUT.json; exit 0 passed, 1 not."""
    import sys
    import tempfile
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 5:
        print(main.__doc__, file=sys.stderr)
        return 2
    results, kernel, nc, ncxx, out = argv
    for f in (nc, ncxx):
        if not os.path.isfile(f):
            print("distro_btf.py: %s: no such file" % f, file=sys.stderr)
            return 2
    section, reasons = judge(results, kernel, load_names(nc), load_names(ncxx))
    doc = {"kernel": kernel, "passed": not reasons, "reasons": reasons, "btf": section}
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)), prefix=".tmp-")
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(tmp, out)
    print("\n".join(["distro_btf: linux %s: %s" % (kernel, "PASS" if not reasons else "FAIL")] +
                    ["  reason: %s" % r for r in reasons] + summary_lines(section)))
    return 0 if not reasons else 1


if __name__ == "__main__":
    import sys
    sys.exit(main())
