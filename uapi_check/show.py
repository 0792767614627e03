"""uapi-check --show TYPE: one type's layout in the run's own objects, side by side, without a
full run (steps 1 to 3 only: trees, headers, the all-headers units, all cached as usual; no
constants, no comparison, no report written).

The tool draws it (`abidiff-uapi show TYPE OLD NEW`, every anonymous member expanded by its
dotted path, differing rows marked); this module only picks the pairs of objects:
  - a series check: C before the series against C after it, then C against C++ after it;
  - --old/--new and --git: C old against C new, then C++ old against C++ new;
each on the run's architecture (--arch). --format json gives the tool's JSON, one document per
pair, in a JSON list.
"""
import json
import os
import sys

from .env import check_environment, ensure_tool
from .headers import step_headers
from .trees import step_trees
from .units import step_units
from .util import Fatal, Progress, run as run_command


def pairs(opts):
    """[(title, old unit key, new unit key)] for the run's mode."""
    if opts.drift:
        return [("C, old -> new", "c-before", "c-after"), ("C++, old -> new", "cxx-before", "cxx-after")]
    return [("C, before -> after the series", "c-before", "c-after"),
            ("C -> C++, after the series", "c-after", "cxx-after")]


def show(opts, progress, type_name, fmt):
    """Build the units and print the type's layouts; the exit status: 0, or the tool's 2 (no such
    type in either object, said in its one line)."""
    compilers = check_environment(opts)
    trees = step_trees(opts, progress)
    headers = step_headers(opts, compilers, trees, progress)
    units = step_units(opts, compilers, trees, headers, progress)
    tool = ensure_tool(progress)
    docs, texts = [], []
    for title, old, new in pairs(opts):
        a, b = units[old], units[new]
        incs = sorted({os.path.relpath(trees.revisions[u.rev].include, opts.out) for u in (a, b)})
        args = [tool, "show", type_name, a.object, b.object, *[f"--headers={i}" for i in incs]]
        if fmt == "json":
            args.append("--format=json")
        rc, out, err = run_command(args, cwd=opts.out)
        if rc != 0:
            line = (err.strip().splitlines() or [f"exit {rc}"])[-1]
            raise Fatal(f"--show {type_name}: {line}")
        if fmt == "json":
            docs.append({"title": title, "old": old, "new": new, "show": json.loads(out)})
        else:
            texts.append(f"== {title} ({old} against {new}) ==\n{out}")
    sys.stdout.write(json.dumps(docs, indent=1) + "\n" if fmt == "json" else "\n".join(texts))
    return 0


def run(opts, lock, remove_out):
    """The whole of --show: lock(created) holds the output folder as for a run (cli.out_lock),
    remove_out(out) takes away a folder this run made when it fails. Exit status 0 or 2."""
    created = not os.path.isdir(opts.out)
    os.makedirs(opts.out, exist_ok=True)
    try:
        with lock(created):
            try:
                return show(opts, Progress(True), opts.show, opts.show_format)
            except Fatal as e:
                if created:
                    remove_out(opts.out)
                print(f"uapi-check: error: {e}", file=sys.stderr)
                return 2
    except Fatal as e:      # --no-wait
        print(f"uapi-check: error: {e}", file=sys.stderr)
        return 2
