"""The layouts report.html draws: `abidiff-uapi show --all OLD NEW --format=json` (schema
abidiff-uapi/schema/show.schema.json), run once per comparison that has a break or review finding
of a struct or union (or, in a series check, a C++ layout the series changed), and only those
types kept. The tool draws nothing here and judges nothing: its rows (offsets, sizes, holes,
padding, the marks of rows that differ) are what html.py turns into boxes."""
import json

from .judge import FAIL
from .verdict import groups
from .util import run

KINDS = ("struct", "union")


def wanted(report):
    """{comparison name: {type name}}: what report.html draws."""
    out = {}
    for g in groups(report.comparisons):
        if not str(g.type).split(" ")[0] in KINDS:
            continue
        series_cxx = g.comparison.role == "series-cxx" and g.status != "removed"
        if g.worst() == FAIL or series_cxx or any(f.tool_severity == "review" for f in g.findings):
            out.setdefault(g.comparison.name, set()).add(g.type)
    return out


def step_layouts(opts, tool, report, progress):
    """{(comparison name, type name): the tool's VIEW}; a comparison whose show fails draws nothing
    (the report says so by the drawing's absence, and the run goes on: pictures are no verdict)."""
    views = {}
    for name, types in sorted(wanted(report).items()):
        c = report.comparisons[name]
        # The unit objects, not their archives (obj/NAME.a): show draws structs and unions only,
        # the same from either, and an archive's #define constants cost a second read.
        args = [tool, "show", "--all", f"obj/{c.old_object}.o", f"obj/{c.new_object}.o",
                "--headers", "include/before", "--headers", "include/after", "--format=json"]
        rc, out, err = run(args, cwd=opts.out)
        if rc != 0:
            progress.step(f"  layouts of {name}: abidiff-uapi show failed: {(err.strip().splitlines() or ['?'])[-1]}")
            continue
        for v in json.loads(out).get("types", []):
            if v.get("name") in types:
                views[(name, v["name"])] = v
    return views
