"""The judge: what the findings of abidiff-uapi mean for each named check of the run."""
import json

from .model import CheckResult, Failure, Finding

# C++ keywords and alternative tokens: a C member with one of these names cannot be used from C++.
CXX_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export extern
false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public register reinterpret_cast requires return short signed
sizeof static static_assert static_cast struct switch template this thread_local throw true try
typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq
""".split())

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
    "drift": [
        ("drift", "no incompatible layout drift between the two trees"),
    ],
}


def member_desc(m):
    if not m:
        return "?"
    where = f"offset {m.get('offset')}"
    if "bit_size" in m:
        where = f"bit {m.get('bit_offset')}:{m.get('bit_size')}"
    return f"{m.get('type', '?')} {m.get('name', '?')} ({where}, size {m.get('size')})"


def same_slot(a, b):
    keys = ("bit_offset", "size", "bit_size", "type")
    return bool(a and b) and all(a.get(k) == b.get(k) for k in keys)


def is_layout_change(c):
    """Does a change move or resize something (not a name or a type name alone)?"""
    kind = c.get("change")
    if kind in ("size", "alignment", "member_removed", "enumerator_value", "enumerator_removed"):
        return True
    if kind == "member":
        return bool(set(c.get("what", [])) & {"offset", "bit_size", "size"})
    return False


def is_flex_filler(m):
    """The empty struct that 6.1's __DECLARE_FLEX_ARRAY puts before a flexible array."""
    return (str(m.get("name", "")).startswith("__empty_") and m.get("size", 99) <= 1
            and str(m.get("type", "")).startswith("struct {"))


def describe_change(c):
    kind = c.get("change")
    if kind in ("size", "alignment"):
        return f"{kind} {c.get('old')} -> {c.get('new')}"
    if kind == "member":
        return (f"member {c.get('member')} ({', '.join(c.get('what', []))}): "
                f"{member_desc(c.get('old'))} -> {member_desc(c.get('new'))}")
    if kind == "member_removed":
        return f"member {member_desc(c.get('old'))} removed"
    if kind == "enumerator_value":
        return f"enumerator {c.get('enumerator')} {c.get('old')} -> {c.get('new')}"
    if kind == "enumerator_removed":
        return f"enumerator {c.get('enumerator')} = {c.get('old')} removed"
    return json.dumps(c, sort_keys=True)


def judge_change(role, c):
    """One finding for one change: (severity, check, text). Severity: fail, ok or note."""
    kind = c.get("change")
    if kind == "alias_added":
        return ("ok", "aliases-share-layout",
                f"alias {member_desc(c.get('new'))} of {c.get('alias_of')}")
    if kind == "alias_removed":
        if role in ("cross", "cross-series"):
            return ("ok", "c-cxx-same-layout",
                    f"{c.get('old', {}).get('name')} (alias of {c.get('alias_of')}) exists only in C")
        return ("fail", "c-names-kept" if role == "series-c" else "cxx-names-kept",
                f"alias {member_desc(c.get('old'))} removed")
    if kind == "renamed":
        old, new = c.get("old") or {}, c.get("new") or {}
        text = f"{member_desc(old)} is {new.get('name')} in the new"
        if role in ("cross", "cross-series"):
            if not same_slot(old, new):
                return ("fail", "c-cxx-same-layout", text + " with another layout")
            if old.get("name") in CXX_KEYWORDS:
                return ("ok", "aliases-share-layout", text + f" (C++ keyword '{old.get('name')}')")
            return ("note", "c-cxx-same-layout", text + " (same layout, not a C++ keyword)")
        return ("fail", "c-names-kept" if role == "series-c" else "cxx-names-kept", text)
    if kind == "member_added":
        new = c.get("new")
        if role == "series-c":
            return ("fail", "aliases-share-layout",
                    f"member {member_desc(new)} added: not an alias sharing offset, size and type")
        return ("note", "c-cxx-same-layout" if role.startswith("cross") else "drift",
                f"member {member_desc(new)} added")
    if kind == "enumerator_added":
        return ("note", "c-layout-unchanged", f"enumerator {c.get('enumerator')} = {c.get('new')} added")
    if kind == "embedded":
        return ("note", "c-layout-unchanged", f"member {c.get('member')} embeds changed {c.get('type')}")
    # size, alignment, member, member_removed, enumerator_value, enumerator_removed
    text = describe_change(c)
    if role == "series-c":
        names = kind in ("member_removed", "enumerator_removed")
        return ("fail", "c-names-kept" if names else "c-layout-unchanged", text)
    if role == "series-cxx":
        if kind == "member_removed" and is_flex_filler(c.get("old") or {}):
            # __DECLARE_FLEX_ARRAY's empty struct: no storage in C, 1 byte in
            # C++. Dropping it from C++ is the fix that makes C++ match C (the
            # cross comparisons prove the match); no user names it.
            return ("note", "cxx-layout", text + " (empty __DECLARE_FLEX_ARRAY filler, 0 bytes in C)")
        if kind in ("member_removed", "enumerator_removed"):
            return ("fail", "cxx-names-kept", text)
        # The series may change C++ layouts to match C; the cross comparisons check that.
        return ("note", "cxx-layout", text)
    if role in ("cross", "cross-series"):
        if is_layout_change(c):
            return ("fail", "c-cxx-same-layout", text)
        return ("note", "c-cxx-same-layout", text)
    return ("fail" if is_layout_change(c) or kind == "member_removed" else "note", "drift", text)


def judge_type(role, t):
    """Findings for one type entry of the tool's output."""
    status = t.get("status")

    def finding(severity, check, text, change=None):
        return Finding(t.get("name"), t.get("kind"), status, t.get("file"), t.get("old_size"),
                       t.get("new_size"), severity, check, text, change)

    if status == "removed":
        check = {"series-c": "c-names-kept", "series-cxx": "cxx-names-kept"}.get(role, "c-cxx-same-layout")
        if role == "drift":
            check = "drift"
        return [finding("fail", check, f"{t.get('name')} removed")]
    if status == "added":
        return [finding("ok", "added", f"{t.get('name')} added")]
    findings = []
    for c in t.get("changes", []):
        findings.append(finding(*judge_change(role, c), change=c))
    if not findings:
        sev = "fail" if status in ("changed", "removed", "renamed") else "note"
        findings.append(finding(sev, "c-cxx-same-layout" if role.startswith("cross")
                                else "c-layout-unchanged", f"{status} (no details)"))
    return findings


def judge_comparison(role, types):
    findings = []
    for t in types:
        findings.extend(judge_type(role, t))
    return findings


def evaluate_checks(mode, headers, comparisons):
    """Each check: pass/fail and its failing findings."""
    results = []
    after = headers.revs["after"]
    for check, text in CHECKS[mode]:
        failing = []
        seen = set()  # a left-out header's own unit repeats the types of the headers it includes
        for name, comp in comparisons.items():
            for f in comp.findings:
                if f.check == check and f.severity == "fail":
                    sig = (comp.base or name, f.type, f.file, f.text)
                    if sig not in seen:
                        seen.add(sig)
                        failing.append(Failure(f.text, finding=f, comparison=name))
        lang = {"cxx-headers-compile": "cxx", "c-headers-compile": "c"}.get(check)
        if lang:
            for h, err in sorted(after.failed[lang].items()):
                failing.append(Failure(f"{h}: {err}", header=h, error=err))
        results.append(CheckResult(check, text, failing))
    return results
