"""pytest: tests/drift/check-labels.py on small hand-written tool outputs and labels.

A stand-in tool (a Python script written per test) prints the JSON we give it and records the
arguments it was called with, so the checker's whole path is exercised: running the tool,
reading labels, comparing, the report and the exit status.
"""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tests", "drift", "check-labels.py")
LABELS = os.path.join(ROOT, "tests", "drift", "labels-6.1-6.12.tsv")
CONSTANTS = os.path.join(ROOT, "tests", "drift", "labels-constants-6.1-6.12.tsv")

spec = importlib.util.spec_from_file_location("check_labels", SCRIPT)
check_labels = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_labels)

HEAD = "# a comment\ntype\tlabel\treasons\theader\tnote\tunit\n"


def finding(name, status, severity=None, reasons=()):
    f = {"name": name, "kind": name.split()[0], "status": status, "file": "linux/x.h", "changes": []}
    if severity:
        f["severity"] = severity
        f["reasons"] = list(reasons)
    return f


@pytest.fixture
def env(tmp_path):
    """Returns run(labels_text, findings, rc=1, extra_args=(), raw=None) -> CompletedProcess."""
    old = tmp_path / "old.o"
    new = tmp_path / "new.o"
    old.write_bytes(b"\x7fELF")
    new.write_bytes(b"\x7fELF")
    tool = tmp_path / "tool"
    tool.write_text(
        "#!/usr/bin/env python3\n"
        "import json, os, sys\n"
        "open(os.environ['FAKE_ARGS'], 'w').write(json.dumps(sys.argv[1:]))\n"
        "sys.stdout.write(open(os.environ['FAKE_OUT']).read())\n"
        "sys.stderr.write(os.environ.get('FAKE_ERR', ''))\n"
        "sys.exit(int(os.environ['FAKE_RC']))\n")
    tool.chmod(0o755)

    def run(labels_text, findings, rc=1, extra_args=(), raw=None, err=""):
        labels = tmp_path / "labels.tsv"
        labels.write_text(labels_text)
        out = tmp_path / "out.json"
        out.write_text(raw if raw is not None else json.dumps({"verdict": "x", "types": findings}))
        e = dict(os.environ, FAKE_OUT=str(out), FAKE_RC=str(rc), FAKE_ARGS=str(tmp_path / "args"),
                 FAKE_ERR=err)
        p = subprocess.run([sys.executable, SCRIPT, *extra_args, str(tool), str(old), str(new), str(labels)],
                           capture_output=True, text=True, env=e)
        p.args_seen = json.loads((tmp_path / "args").read_text()) if (tmp_path / "args").exists() else None
        p.paths = (str(old), str(new), str(labels))
        return p
    return run


def test_all_agree_exit_0_and_the_tool_gets_diff_headers_json(env):
    labels = HEAD + ("struct a\tbreak\tmoved\tlinux/x.h\tx moved\tmain\n"
                     "struct b\treview\ttail-growth\tlinux/x.h\tgrew\tmain\n"
                     "enum c\tsafe\tsentinel\tlinux/x.h\tMAX moved\tmain\n"
                     "struct d\tnone\t\tlinux/x.h\tsame canonical type\tmain\n")
    p = env(labels, [finding("struct a", "changed", "break", ["moved"]),
                     finding("struct b", "changed", "review", ["tail-growth"]),
                     finding("enum c", "changed", "safe", ["sentinel"]),
                     finding("struct new", "added", "safe", ["added"])],
            extra_args=("--headers", "/h/before", "--headers", "/h/after"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "4 labelled types, 4 tool findings, 0 disagreements" in p.stdout
    old, new, _ = p.paths
    assert p.args_seen == ["diff", old, new, "--headers", "/h/before", "--headers", "/h/after", "--format=json"]


def test_a_different_severity_fails_and_shows_in_the_table_and_matrix(env):
    labels = HEAD + ("struct a\tsafe\treserved-reuse\tlinux/x.h\treserved[4] -> flags + reserved[3]\tmain\n"
                     "struct b\tbreak\tmoved\tlinux/x.h\tmoved\tmain\n")
    p = env(labels, [finding("struct a", "changed", "break", ["moved"]),
                     finding("struct b", "changed", "break", ["moved"])])
    assert p.returncode == 1
    assert "1 disagreements" in p.stdout
    row = [l for l in p.stdout.splitlines() if l.startswith("struct a ")]
    assert len(row) == 1 and "safe" in row[0] and "break" in row[0] and "severity differs" in row[0]
    assert "reserved[4] -> flags" in row[0]
    m = matrix(p.stdout)
    assert m["safe"]["break"] == 1 and m["break"]["break"] == 1


def matrix(text):
    lines = text.splitlines()
    i = lines.index("confusion matrix (rows: label, columns: tool severity)")
    cols = lines[i + 1].split()
    out = {}
    for l in lines[i + 2:]:
        parts = l.split()
        out[parts[0]] = dict(zip(cols, map(int, parts[1:])))
    return out


def test_a_labelled_type_that_is_not_reported_fails(env):
    p = env(HEAD + "enum {FOO_A}\tbreak\tenumerator-value\tlinux/x.h\tFOO_B 5 -> 37\tmain\n", [])
    assert p.returncode == 1
    assert "labelled but not reported" in p.stdout
    assert matrix(p.stdout)["break"]["absent"] == 1


def test_label_none_accepts_absent_or_safe_but_not_break(env):
    labels = HEAD + ("struct a\tnone\t\tlinux/x.h\tno change\tmain\n"
                     "struct b\tnone\t\tlinux/x.h\tno change\tmain\n")
    assert env(labels, [finding("struct b", "changed", "safe", ["alias"])]).returncode == 0
    p = env(labels, [finding("struct b", "changed", "review", ["overlap"])])
    assert p.returncode == 1 and "no ABI change, but reported as review" in p.stdout


def test_an_unlabelled_finding_fails_unless_it_is_added(env):
    labels = HEAD + "struct a\tbreak\tremoved\tlinux/x.h\tgone\tmain\n"
    ok = env(labels, [finding("struct a", "removed", "break", ["removed"]),
                      finding("struct fresh", "added", "safe", ["added"])])
    assert ok.returncode == 0, ok.stdout
    p = env(labels, [finding("struct a", "removed", "break", ["removed"]),
                     finding("struct other", "extended", "safe", ["enumerator-added"])])
    assert p.returncode == 1
    assert "struct other" in p.stdout and "finding not labelled" in p.stdout
    assert matrix(p.stdout)["unlabelled"]["safe"] == 1


def test_a_finding_without_severity_fails(env):
    # the tool before severities existed: every labelled finding disagrees
    p = env(HEAD + "struct a\tbreak\tmoved\tlinux/x.h\tmoved\tmain\n", [finding("struct a", "changed")])
    assert p.returncode == 1 and "finding has no severity" in p.stdout
    assert matrix(p.stdout)["break"]["no-severity"] == 1


def test_units_select_their_rows_and_a_5_column_row_is_main(env):
    labels = HEAD + ("struct a\tbreak\tmoved\tlinux/x.h\tin main\n"
                     "struct t\tbreak\tremoved\tlinux/time.h\tonly through linux/signal.h\tlinux-signal\n")
    assert env(labels, [finding("struct a", "changed", "break")]).returncode == 0
    p = env(labels, [finding("struct t", "removed", "break")], extra_args=("--unit", "linux-signal"))
    assert p.returncode == 0, p.stdout
    assert "unit linux-signal: 1 labelled types" in p.stdout
    # struct a is not labelled in unit linux-signal
    p = env(labels, [finding("struct t", "removed", "break"), finding("struct a", "changed", "break")],
            extra_args=("--unit", "linux-signal"))
    assert p.returncode == 1 and "finding not labelled" in p.stdout


def test_several_findings_of_one_name_count_as_the_most_severe(env):
    labels = HEAD + "enum {X_A}\tbreak\tenumerator-removed\tlinux/x.h\tX_B removed\tmain\n"
    p = env(labels, [finding("enum {X_A}", "extended", "safe", ["enumerator-added"]),
                     finding("enum {X_A}", "changed", "break", ["enumerator-removed"])])
    assert p.returncode == 0, p.stdout


@pytest.mark.parametrize("text, why", [
    (HEAD + "struct a\tbad\tmoved\tlinux/x.h\tnote\tmain\n", ":3: label 'bad' is not one of"),
    (HEAD + "struct a\tbreak\tmoved\n", ":3: 3 columns, expected 5 or 6"),
    (HEAD + "struct a\tbreak\tm\th\tn\tmain\nstruct a\tsafe\tm\th\tn\tmain\n", ":4: struct a (unit main) labelled twice (first at line 3)"),
    ("struct a\tbreak\tm\th\tn\n", ":1: expected the column line"),
    ("# only comments\n", ": no column line"),
    (HEAD + "\tbreak\tm\th\tn\tmain\n", ":3: empty type"),
])
def test_bad_labels_exit_2_naming_file_and_line(env, text, why):
    p = env(text, [])
    assert p.returncode == 2
    assert p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and p.paths[2] + why in lines[0], p.stderr


def test_tool_failure_or_bad_json_exit_2(env):
    p = env(HEAD, [], rc=2, err="abidiff-uapi: old.o: not an ELF file\n")
    assert p.returncode == 2 and "exit 2: abidiff-uapi: old.o: not an ELF file" in p.stderr
    p = env(HEAD, [], rc=0, raw="not json")
    assert p.returncode == 2 and "output is not JSON" in p.stderr
    p = env(HEAD, [], rc=0, raw='{"verdict": "compatible"}')
    assert p.returncode == 2 and 'no "types" list' in p.stderr


def test_missing_object_exit_2(env, tmp_path):
    p = env(HEAD, [])
    labels = p.paths[2]
    r = subprocess.run([sys.executable, SCRIPT, "true", str(tmp_path / "nope.o"), p.paths[1], labels],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "nope.o: no such object" in r.stderr


# The repository's corpus itself: well formed, reasons from the contract's vocabulary, a note on
# every row, breaks that are not removals named in the README.
VOCAB = {
    "break": {"moved", "resized", "retyped", "member-removed", "renamed", "removed", "enumerator-value",
              "enumerator-removed", "size-changed", "kind-changed", "alignment-changed", "contains-break",
              "constant-value", "constant-removed"},
    "review": {"tail-growth", "overlap", "sentinel-removed", "member-added", "contains-review",
               "version-increased"},
    "safe": {"sentinel", "reserved-reuse", "padding-reuse", "pad-renamed", "new-alternative", "alias",
             "flexible-spelling", "flex-filler", "contains-safe-change", "added", "enumerator-added", "cxx-keyword",
             "constant-added", "constant-moved"},
}


def corpus_rows(path=LABELS):
    rows = []
    with open(path) as f:
        for line in f:
            if (line.startswith("#") and not line.startswith("#define ")) or line.startswith("type\t"):
                continue
            rows.append(line.rstrip("\n").split("\t"))
    return rows


@pytest.mark.parametrize("path", [LABELS, CONSTANTS], ids=["layouts", "constants"])
def test_the_corpus_is_well_formed(path):
    rows = corpus_rows(path)
    units = {r[5] for r in rows}
    for u in units:
        check_labels.read_labels(path, u)  # raises on duplicates or bad labels
    assert "main" in units
    allwords = set().union(*VOCAB.values())
    for r in rows:
        assert len(r) == 6, r
        typ, label, reasons, header, note, unit = r
        assert note, typ
        words = [w for w in reasons.split(",") if w]
        assert set(words) <= allwords, (typ, words)
        if label == "none":
            assert not words, typ
            continue
        # the label is the most severe of its reasons' severities
        worst = max((s for s in VOCAB for w in words if w in VOCAB[s]), key=check_labels.RANK.get)
        assert worst == label, (typ, label, words)
    keys = [(r[0], r[5]) for r in rows]
    assert keys == sorted(keys, key=lambda k: (k[0], k[1] != "main", k[1]))


def test_no_type_is_labelled_in_both_corpora():
    layouts = {(r[0], r[5]) for r in corpus_rows(LABELS)}
    constants = {(r[0], r[5]) for r in corpus_rows(CONSTANTS)}
    assert constants and all(t.startswith("#define ") for t, _ in constants)
    assert not layouts & constants


@pytest.mark.parametrize("path", [LABELS, CONSTANTS], ids=["layouts", "constants"])
def test_the_readme_lists_every_real_break(path):
    readme = open(os.path.join(ROOT, "tests", "drift", "README.md")).read()
    for typ, label, reasons, header, note, unit in corpus_rows(path):
        if label == "break" and reasons not in ("removed", "constant-removed") and not note.startswith(("all ", "header ")):
            assert f"`{typ}`" in readme, typ
