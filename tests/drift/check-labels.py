#!/usr/bin/env python3
"""Compare the tool's drift severities with a hand-triaged labelled corpus.

Usage: check-labels.py [--unit NAME] [--headers DIR]... TOOL OLD.o NEW.o LABELS...

Several LABELS files are read as one corpus (the layouts' and the #define constants'); a type
labelled in two of them is bad input.

Runs `TOOL diff OLD.o NEW.o [--headers DIR]... --format=json` and compares the `severity` of
every type finding with the label of the same type in LABELS (rows of the given unit, default
`main`; see tests/drift/README.md for the format). It fails when
  - a labelled type is not reported, or is reported with another severity (label `none`: the
    type has no ABI change, so the tool must report nothing or report it as `safe`);
  - a finding that is not `added` has no label.
Prints the disagreements and the confusion matrix (label x tool severity).
Exit 0: all agree; 1: some disagreement; 2: bad input (labels file, objects, the tool's output).
"""
import argparse
import json
import os
import subprocess
import sys

LABELS = ("break", "review", "safe", "none")
SEVERITIES = ("break", "review", "safe")
RANK = {"safe": 0, "review": 1, "break": 2}


class BadInput(Exception):
    pass


def read_labels(path, unit):
    """Rows of `unit` in a labels file: {type: (label, reasons, header, note, line)}."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput(f"{path}: {e.strerror}")
    rows = {}
    seen_header = False
    for n, line in enumerate(lines, 1):
        # '#' starts a comment line, but '#define NAME' is a constant's row.
        if not line.strip() or (line.startswith("#") and not line.startswith("#define ")):
            continue
        cols = line.split("\t")
        if not seen_header:
            if cols[:5] != ["type", "label", "reasons", "header", "note"]:
                raise BadInput(f"{path}:{n}: expected the column line 'type<TAB>label<TAB>reasons<TAB>header<TAB>note[<TAB>unit]'")
            seen_header = True
            continue
        if len(cols) not in (5, 6):
            raise BadInput(f"{path}:{n}: {len(cols)} columns, expected 5 or 6 (type, label, reasons, header, note[, unit])")
        typ, label, reasons, header, note = cols[:5]
        row_unit = cols[5] if len(cols) == 6 else "main"
        if not typ:
            raise BadInput(f"{path}:{n}: empty type")
        if label not in LABELS:
            raise BadInput(f"{path}:{n}: label '{label}' is not one of {', '.join(LABELS)}")
        if not row_unit:
            raise BadInput(f"{path}:{n}: empty unit")
        if row_unit != unit:
            continue
        if typ in rows:
            raise BadInput(f"{path}:{n}: {typ} (unit {unit}) labelled twice (first at line {rows[typ][4]})")
        rows[typ] = (label, reasons, header, note, n)
    if not seen_header:
        raise BadInput(f"{path}: no column line 'type<TAB>label<TAB>...'")
    return rows


def run_tool(tool, old, new, headers):
    for p in (old, new):
        if not os.path.isfile(p):
            raise BadInput(f"{p}: no such object")
    cmd = [tool, "diff", old, new]
    for h in headers:
        cmd += ["--headers", h]
    cmd.append("--format=json")
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise BadInput(f"{tool}: {e.strerror}")
    if r.returncode not in (0, 1):
        first = (r.stderr.strip().splitlines() or [f"exit {r.returncode}"])[0]
        raise BadInput(f"{tool} diff {old} {new}: exit {r.returncode}: {first}")
    try:
        data = json.loads(r.stdout)
    except ValueError as e:
        raise BadInput(f"{tool} diff {old} {new}: output is not JSON ({e})")
    if not isinstance(data, dict) or not isinstance(data.get("types"), list):
        raise BadInput(f"{tool} diff {old} {new}: no \"types\" list in its JSON")
    return data


def tool_findings(data):
    """{name: (severity or None, status, reasons)}; several findings of one name: the most severe."""
    out = {}
    for t in data["types"]:
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise BadInput("tool JSON: a finding without a name")
        sev = t.get("severity")
        if sev not in SEVERITIES:
            sev = None
        cur = out.get(t["name"])
        if cur is None or RANK.get(sev, -1) > RANK.get(cur[0], -1):
            out[t["name"]] = (sev, t.get("status", "?"), ",".join(t.get("reasons") or []))
    return out


def compare(labels, found):
    """Returns (disagreements, matrix). A disagreement: (type, label, severity, status, why)."""
    cols = SEVERITIES + ("absent", "no-severity")
    matrix = {r: {c: 0 for c in cols} for r in LABELS + ("unlabelled",)}
    bad = []
    for typ in sorted(labels):
        label = labels[typ][0]
        if typ not in found:
            matrix[label]["absent"] += 1
            if label != "none":
                bad.append((typ, label, "-", "-", "labelled but not reported"))
            continue
        sev, status, _ = found[typ]
        matrix[label][sev or "no-severity"] += 1
        if label == "none":
            if sev != "safe":
                bad.append((typ, label, sev or "?", status, "no ABI change, but reported as " + (sev or "no severity")))
        elif sev != label:
            bad.append((typ, label, sev or "?", status, "severity differs" if sev else "finding has no severity"))
    for typ in sorted(set(found) - set(labels)):
        sev, status, _ = found[typ]
        if status == "added":
            continue
        matrix["unlabelled"][sev or "no-severity"] += 1
        bad.append((typ, "-", sev or "?", status, "finding not labelled"))
    return bad, matrix


def print_report(unit, labels, found, bad, matrix, out):
    cols = list(SEVERITIES) + ["absent", "no-severity"]
    out.write(f"unit {unit}: {len(labels)} labelled types, {len(found)} tool findings, "
              f"{len(bad)} disagreements\n")
    if bad:
        w = max(len(b[0]) for b in bad)
        out.write(f"\n{'type':<{w}}  {'label':<7} {'tool':<7} {'status':<9} why\n")
        for typ, label, sev, status, why in bad:
            note = labels[typ][3] if typ in labels else ""
            out.write(f"{typ:<{w}}  {label:<7} {sev:<7} {status:<9} {why}" + (f" ({note[:70]})" if note else "") + "\n")
    out.write("\nconfusion matrix (rows: label, columns: tool severity)\n")
    out.write(f"{'':<11}" + "".join(f"{c:>12}" for c in cols) + "\n")
    for r in matrix:
        if sum(matrix[r].values()) == 0:
            continue
        out.write(f"{r:<11}" + "".join(f"{matrix[r][c]:>12}" for c in cols) + "\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unit", default="main", help="rows of LABELS to use (default main)")
    ap.add_argument("--headers", action="append", default=[], metavar="DIR",
                    help="passed to the tool's diff (repeatable)")
    ap.add_argument("tool")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("labels", nargs="+")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        labels = {}
        for path in a.labels:
            for typ, row in read_labels(path, a.unit).items():
                if typ in labels:
                    raise BadInput(f"{path}:{row[-1]}: {typ} is labelled in another file too")
                labels[typ] = row
        found = tool_findings(run_tool(a.tool, a.old, a.new, a.headers))
    except BadInput as e:
        print(f"check-labels: {e}", file=sys.stderr)
        return 2
    bad, matrix = compare(labels, found)
    print_report(a.unit, labels, found, bad, matrix, sys.stdout)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
