#!/usr/bin/env python3
"""distro-agrees: the comparison without booting (qemu/distro-check) agrees with the guest's
(qemu/run --distro-kernel): the BTF that the running kernel exports in /sys/kernel/btf is byte for byte
the .BTF section of the package's vmlinux and .ko files, and for vmlinux and every module the guest
loaded, both count the same types compared and find the same differing types. A module that only the
host compared must be one that the guest failed to load.

Usage: distro-agrees.py GUEST_OUT HOST_OUT DISTRO_SELECTION_DIR PACKAGE_DIR
(GUEST_OUT: qemu/run's --out, HOST_OUT: qemu/distro-check's --out). Exit 0 agree, 1 not, 2 bad input.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "qemu"))
import distro  # noqa: E402


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print("distro-agrees: %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)


def btf_section(path):
    with open(path, "rb") as f:
        data = f.read()
    return distro.elf_sections(data, path).get(".BTF")


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    guest_out, host_out, sel, pkg = argv[1:]
    guest = load(os.path.join(guest_out, "guest-report.json"))
    host = load(os.path.join(host_out, "host-report.json"))
    problems, checked_bytes = [], 0
    gper, hper = guest["btf"]["per_btf"], host["btf"]["per_btf"]
    failed = set((guest.get("modules") or {}).get("failed") or {})
    if "vmlinux" not in gper or "vmlinux" not in hper:
        problems.append("vmlinux is missing from a report")
    for name in sorted(set(gper) | set(hper)):
        if name not in hper:
            problems.append("%s: the guest compared it, the host did not" % name)
            continue
        if name not in gper:
            if name not in failed:
                problems.append("%s: only the host compared it, and the guest did not fail to load it" % name)
            continue
        for key in ("types_defined",):
            if gper[name].get(key) != hper[name].get(key):
                problems.append("%s: %s %s (guest) != %s (host)" % (name, key, gper[name].get(key), hper[name].get(key)))
        for lang in ("c", "cxx"):
            g, h = gper[name].get(lang) or {}, hper[name].get(lang) or {}
            for key in ("types_compared", "differences"):
                if g.get(key) != h.get(key):
                    problems.append("%s (%s): %s %s (guest) != %s (host)" % (name, lang, key, g.get(key), h.get(key)))
    # The bytes: /sys/kernel/btf/NAME as the guest exported it, and the package's .BTF sections.
    sysbtf = os.path.join(guest_out, "work", "results", "sysbtf")
    for name in sorted(gper):
        exported = os.path.join(sysbtf, name)
        if not os.path.isfile(exported):
            problems.append("%s: not exported by the guest (%s)" % (name, exported))
            continue
        src = os.path.join(pkg, "vmlinux") if name == "vmlinux" else os.path.join(sel, "ko", name + ".ko")
        with open(exported, "rb") as f:
            got = f.read()
        want = btf_section(src)
        if got != want:
            problems.append("%s: /sys/kernel/btf/%s (%d bytes) is not the .BTF section of %s (%s bytes)" % (
                name, name, len(got), src, len(want) if want is not None else "no"))
        checked_bytes += 1
    if guest["btf"]["types_compared"] < 1 or host["btf"]["types_compared"] < guest["btf"]["types_compared"]:
        problems.append("types compared: guest %d, host %d (the host compares every module the guest loaded, and more)" % (
            guest["btf"]["types_compared"], host["btf"]["types_compared"]))
    both = sorted(set(gper) & set(hper))
    print("distro-agrees: %d BTF files compared by both (vmlinux and %d modules), %d byte-identical checks; "
          "types compared: guest %d, host %d; modules only the host compared: %s" % (
              len(both), len(both) - 1, checked_bytes, guest["btf"]["types_compared"], host["btf"]["types_compared"],
              ", ".join(sorted(set(hper) - set(gper))) or "none"))
    for p in problems:
        print("  DISAGREE: %s" % p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
