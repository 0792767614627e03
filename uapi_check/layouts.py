"""The layouts report.html draws: `abidiff-uapi show --all OLD NEW --format=json` (schema
abidiff-uapi/schema/show.schema.json), run once per comparison that has a break or review finding
of a struct or union (or, in a series check, a C++ layout the series changed), and only those
types kept. The tool draws nothing here and judges nothing: its rows (offsets, sizes, holes,
padding, the marks of rows that differ) are what html.py turns into boxes."""
import json

from .judge import FAIL
from .verdict import groups
from .util import in_background, run

KINDS = ("struct", "union")


def wanted(comparisons):
    """{comparison name: {type name}}: what report.html draws."""
    out = {}
    for g in groups(comparisons):
        if not str(g.type).split(" ")[0] in KINDS:
            continue
        series_cxx = g.comparison.role == "series-cxx" and g.status != "removed"
        if g.worst() == FAIL or series_cxx or any(f.tool_severity == "review" for f in g.findings):
            out.setdefault(g.comparison.name, set()).add(g.type)
    return out


# The tool's limit of --type options in one run; more types than this are shown with --all alone.
MAX_TYPES = 64


def _show(opts, tool, c, types):
    """`show --all` of one comparison's unit objects, only types (--type) where they are few: the
    whole pair's JSON is about 9 MB, which costs more to parse than to make. Returns (exit
    status, output, errors). The unit objects, not their archives (obj/NAME.a): show draws
    structs and unions only, the same from either, and an archive's #define constants cost a
    second read."""
    args = [tool, "show", "--all", f"obj/{c.old_object}.o", f"obj/{c.new_object}.o",
            "--headers", "include/before", "--headers", "include/after", "--format=json"]
    if len(types) <= MAX_TYPES:
        rc, out, err = run([*args, *(f"--type={t}" for t in sorted(types))], cwd=opts.out)
        if rc == 0:
            return rc, out, err
    # A type that --type does not find (not under --headers, say) is not drawn; the others are.
    return run(args, cwd=opts.out)


def start_layouts(opts, tool, comparisons):
    """The `show` runs of step_layouts, in a thread of their own, as soon as the comparisons
    exist: the driver runs them while it waits for the ioctl numbers (step 4b), which a one-header
    commit waits for longest. They run for what the comparisons want drawn now; step_layouts
    draws what they want once the waivers and the baseline are applied (a part of this, as those
    only accept findings) and runs what is missing."""
    todo = wanted(comparisons)
    return in_background(lambda: {name: (types, _show(opts, tool, comparisons[name], types))
                                  for name, types in sorted(todo.items())})


def step_layouts(opts, tool, report, progress, started=None):
    """{(comparison name, type name): the tool's VIEW}; a comparison whose show fails draws nothing
    (the report says so by the drawing's absence, and the run goes on: pictures are no verdict).
    started: start_layouts' future."""
    shown = started.result() if started else {}
    views = {}
    for name, types in sorted(wanted(report.comparisons).items()):
        # What start_layouts showed, unless the waivers and the baseline left other types.
        rc, out, err = (shown[name][1] if name in shown and types <= shown[name][0]
                        else _show(opts, tool, report.comparisons[name], types))
        if rc != 0:
            progress.step(f"  layouts of {name}: abidiff-uapi show failed: {(err.strip().splitlines() or ['?'])[-1]}")
            continue
        for v in json.loads(out).get("types", []):
            if v.get("name") in types:
                views[(name, v["name"])] = v
    return views
