"""The judge: what abidiff-uapi's findings mean for each named check of a run.

The tool decides what a change is: each change carries its kind ("change"), its severity
(break, review, safe) and its reasons (docs/severities.md, "Severities and reasons"). The judge never looks at
display types or re-derives a layout; it maps (role of the comparison, kind, severity) to a
verdict for one named check:

  drift       (two releases, the evolution idioms apply): break fails; review fails only with
              --fail-on=review.
  series-c    (C before/after the series, --strict): an alias the tool pairs with an old name is
              fine; any other added member, lost name or layout change fails.
  series-cxx  (C++ before/after, --strict): names must stay; layouts may change (to match C, which
              the cross comparisons check). A name the tool calls flex-filler (the empty struct
              6.1's __DECLARE_FLEX_ARRAY puts before a flexible array) may go: no program names it.
  commit      (two revisions of a git tree): as drift; and a header that compiled alone before and
              fails after fails its language's headers-compile check.
  cross, cross-series (C vs C++, --strict): any break fails; a C++-keyword rename the tool calls
              safe (cxx-keyword) is fine, and so is a name only C has (an alias of a keyword).
"""
from .model import CheckResult, Failure, Finding

CHECKS = {
    "series": [
        ("c-layout-unchanged", "the series changes no layout in C"),
        ("c-cxx-same-layout", "every struct has the same size and member offsets in C and C++ after the series"),
        ("aliases-share-layout", "every alias added by the series shares offset, size and type with the old name"),
        ("c-names-kept", "every old C name is still present in C"),
        ("cxx-headers-compile", "no header fails in C++ after the series"),
        ("c-headers-compile", "no header fails in C after the series"),
        ("cxx-names-kept", "every old C++ name is still present in C++"),
    ],
    # Two releases: layouts by the evolution idioms, and no header that compiled alone before may
    # fail after (a header that already failed, or did not exist, is not the drift's fault).
    "drift": [
        ("drift", "no incompatible layout drift between the two trees"),
        ("c-headers-compile", "no header that compiled alone in C before fails after"),
        ("cxx-headers-compile", "no header that compiled alone in C++ before fails after"),
    ],
    # Two revisions of a git tree (--git, --each-commit): drift's rules for layouts, and no header
    # that compiled alone before may fail after (one that failed before is not this change's).
    "commit": [
        ("drift", "no incompatible layout change between the two revisions"),
        ("c-headers-compile", "no header that compiled alone in C before fails after"),
        ("cxx-headers-compile", "no header that compiled alone in C++ before fails after"),
    ],
}
# Driver verdicts of one finding. Only "fail" makes a check fail.
FAIL, REVIEW, OK, NOTE, WAIVED, BASELINED = "fail", "review", "ok", "note", "waived", "baselined"
# Changes that take a name away from programs.
NAME_KINDS = ("member_removed", "renamed", "enumerator_removed", "alias_removed")
CROSS = ("cross", "cross-series")


def change_text(c):
    """A change for people: the tool's own words ("text") and its reasons."""
    reasons = c.get("reasons") or []
    return c.get("text", c.get("change", "?")) + (f" [{', '.join(reasons)}]" if reasons else "")


def judge_change(role, c, fail_on="break"):
    """(verdict, check) for one change of the tool, by the comparison's role, the change's kind
    and its severity."""
    kind, sev = c.get("change"), c.get("severity", "break")
    reasons = c.get("reasons") or []
    if role == "drift":
        if sev == "break" or (sev == "review" and fail_on == "review"):
            return FAIL, "drift"
        return (REVIEW if sev == "review" else OK), "drift"
    if role == "series-c":
        if kind == "alias_added":
            return OK, "aliases-share-layout"
        if kind == "member_added":
            return FAIL, "aliases-share-layout"   # not an alias sharing offset, size and type
        if kind in NAME_KINDS:
            return (OK if sev == "safe" else FAIL), "c-names-kept"
        if kind in ("embedded", "enumerator_added"):
            return NOTE, "c-layout-unchanged"      # the embedded type is judged on its own
        return (FAIL if sev in ("break", "review") else OK), "c-layout-unchanged"
    if role == "series-cxx":
        if kind in NAME_KINDS and sev != "safe":
            if kind == "member_removed" and "flex-filler" in reasons:
                return NOTE, "cxx-layout"   # the tool's flex-filler: no program names it
            return FAIL, "cxx-names-kept"
        # The series may change C++ layouts to match C; the cross comparisons check that.
        return NOTE, "cxx-layout"
    if role in CROSS:
        if kind == "renamed":
            # class -> _class in the same slot: the tool says safe, reason cxx-keyword.
            return (OK, "aliases-share-layout") if sev == "safe" else (FAIL, "c-cxx-same-layout")
        if kind in ("alias_removed", "alias_added"):
            return OK, "c-cxx-same-layout"       # a name only one language has, in a shared slot
        if kind == "member_added":
            return (FAIL if "overlap" in reasons or sev == "break" else NOTE), "c-cxx-same-layout"
        if kind in ("embedded", "enumerator_added"):
            return NOTE, "c-cxx-same-layout"
        return (FAIL if sev in ("break", "review") else OK), "c-cxx-same-layout"
    raise ValueError(f"unknown comparison role {role}")


def removed_check(role):
    return {"series-c": "c-names-kept", "series-cxx": "cxx-names-kept", "drift": "drift"}.get(
        role, "c-cxx-same-layout")


def judge_type(role, t, fail_on="break"):
    """Findings for one type entry of the tool's output: one per change."""
    status = t.get("status")
    tsev = t.get("severity")

    def finding(verdict, check, text, change=None):
        c = change or {}
        return Finding(t.get("name"), t.get("kind"), status, t.get("file"), t.get("old_size"),
                       t.get("new_size"), verdict, check, text, change,
                       tool_severity=c.get("severity", tsev), reasons=list(c.get("reasons") or t.get("reasons") or []))

    if status == "removed":
        return [finding(FAIL, removed_check(role), f"{t.get('name')} removed")]
    if status == "added":
        return [finding(OK, "added", f"{t.get('name')} added")]
    changes = t.get("changes") or []
    findings = [finding(*judge_change(role, c, fail_on), change_text(c), change=c) for c in changes]
    if not findings:
        verdict = FAIL if tsev == "break" or (tsev == "review" and fail_on == "review") else NOTE
        findings.append(finding(verdict, "c-cxx-same-layout" if role in CROSS else
                                "drift" if role == "drift" else "c-layout-unchanged", f"{status} (no details)"))
    return findings


def judge_comparison(role, types, fail_on="break"):
    findings = []
    for t in types:
        findings.extend(judge_type(role, t, fail_on))
    return findings


def type_fails(t, fail_on="break"):
    """Does one type finding of a drift comparison fail?"""
    return t.get("severity") == "break" or (fail_on == "review" and t.get("severity") == "review")


def one_abi_fails(t):
    """Does one type finding fail where both sides must have one ABI, as C and C++ after the series
    must (the cross role)? qemu/report.py judges the kernel's BTF against the C and C++ objects so:
    a name that only C can spell (C++'s keyword alias left out) is no mismatch, any break is."""
    return any(f.severity == FAIL for f in judge_type("cross", t))


def evaluate_checks(mode, headers, comparisons, baseline_headers=frozenset()):
    """Each check: its failing findings, and those a waiver or the baseline accepts."""
    results = []
    after = headers.revs["after"]
    for check, text in CHECKS[mode]:
        failing, accepted = [], []
        seen = set()  # a left-out header's own unit repeats the types of the headers it includes
        for name, comp in comparisons.items():
            for f in comp.findings:
                if f.check == check and f.severity in (FAIL, WAIVED, BASELINED):
                    sig = (comp.base or name, f.type, f.file, f.text)
                    if sig not in seen:
                        seen.add(sig)
                        (failing if f.severity == FAIL else accepted).append(
                            Failure(f.text, finding=f, comparison=name))
        lang = {"cxx-headers-compile": "cxx", "c-headers-compile": "c"}.get(check)
        if lang:
            before = headers.revs["before"].failed[lang] if mode == "commit" else {}
            compiled_before = set(headers.revs["before"].compiles[lang]) if mode == "drift" else None
            for h, err in sorted(after.failed[lang].items()):
                if h in before or (compiled_before is not None and h not in compiled_before):
                    continue
                (accepted if (check, h) in baseline_headers else failing).append(
                    Failure(f"{h}: {err}", header=h, error=err))
        results.append(CheckResult(check, text, failing, accepted))
    return results
