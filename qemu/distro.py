#!/usr/bin/env python3
"""distro: host-side helpers for qemu/run --distro-kernel, on a Debian kernel package unpacked with
dpkg-deb -x (nothing here installs or loads anything).

  distro.py vmlinux BZIMAGE OUT
      Write the ELF vmlinux inside a bzImage (the payload named by the boot protocol's setup header,
      xz, zstd or gzip) to OUT, so that its .BTF section can be read without booting.
  distro.py modules ROOT VMLINUX UAPI_NAMES OUTDIR [MAX_LOAD]
      Read every module under ROOT/lib/modules/*/ (.ko, .ko.xz, .ko.zst): its name, its dependencies
      (.modinfo depends=) and the names of the types its own split BTF defines (the .BTF section,
      split on VMLINUX's). Select the modules that define a type named in UAPI_NAMES (one name a line,
      as abidiff-uapi names them: "struct kvm_run"), add their dependencies, and write into OUTDIR:
      the selected modules uncompressed (OUTDIR/ko/NAME.ko), load-order.txt (dependencies first) and
      modules.json (every module's name, path, dependencies and UAPI type names). Split BTF is split
      on vmlinux only, so a type is defined again by every module that uses it: the selection is a
      greedy cover (the module whose dependencies and itself add the most new names first), stopped
      when all are covered or when MAX_LOAD modules would be loaded.

Exit 0 on success, 2 with one line naming the file and the reason on bad input.
"""
import json
import lzma
import os
import struct
import subprocess
import sys
import zlib

# One atomic writer for the project: the driver's.
from uapi_check.util import write_atomic

BTF_MAGIC = 0xEB9F


class BadInput(Exception):
    pass


def decompress(data, what):
    """xz, zstd or gzip data (with trailing bytes allowed) -> bytes."""
    if data[:6] == b"\xfd7zXZ\x00":
        d = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        return d.decompress(data)
    if data[:4] == b"\x28\xb5\x2f\xfd":
        p = subprocess.run(["zstd", "-dcq"], input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if not p.stdout:
            raise BadInput("%s: zstd cannot decompress it: %s" % (what, p.stderr.decode(errors="replace").strip()))
        return p.stdout
    if data[:2] == b"\x1f\x8b":
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data)
    raise BadInput("%s: neither xz, zstd nor gzip data" % what)


def cmd_vmlinux(bzimage, out):
    with open(bzimage, "rb") as f:
        img = f.read()
    # The boot protocol: "HdrS" at 0x202, setup_sects at 0x1f1, payload_offset/length at 0x248 (2.08+).
    if len(img) < 0x250 or img[0x202:0x206] != b"HdrS":
        raise BadInput("%s: not a bzImage (no HdrS setup header)" % bzimage)
    version = struct.unpack_from("<H", img, 0x206)[0]
    if version < 0x208:
        raise BadInput("%s: boot protocol %x.%02x has no payload fields" % (bzimage, version >> 8, version & 0xff))
    setup_sects = img[0x1F1] or 4
    off, length = struct.unpack_from("<II", img, 0x248)
    start = (setup_sects + 1) * 512 + off
    payload = img[start:start + length]
    if len(payload) != length or length == 0:
        raise BadInput("%s: payload (offset %d, %d bytes) is outside the file" % (bzimage, start, length))
    # The kernel's build appends the uncompressed size (4 bytes) after the compressed stream.
    try:
        elf = decompress(payload, bzimage)
    except (lzma.LZMAError, zlib.error) as e:
        raise BadInput("%s: cannot decompress the payload: %s" % (bzimage, e))
    if elf[:4] != b"\x7fELF":
        # zstd may refuse the trailing size: try without it.
        elf = decompress(payload[:-4], bzimage)
    if elf[:4] != b"\x7fELF":
        raise BadInput("%s: the payload is not an ELF vmlinux" % bzimage)
    write_atomic(out, elf)


def elf_sections(data, what):
    """{name: bytes} of a 64-bit little-endian ELF file's sections."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise BadInput("%s: not a 64-bit little-endian ELF file" % what)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0 or shentsize < 64 or shoff + shnum * shentsize > len(data) or shstrndx >= shnum:
        raise BadInput("%s: bad section header table" % what)
    hdrs = []
    for i in range(shnum):
        name, typ, _flags, _addr, off, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        hdrs.append((name, typ, off, size))
    _, _, stroff, strsize = hdrs[shstrndx]
    names = data[stroff:stroff + strsize]
    out = {}
    for name, typ, off, size in hdrs:
        if typ == 8:  # SHT_NOBITS
            continue
        end = names.find(b"\0", name)
        n = names[name:end if end >= 0 else None].decode(errors="replace")
        if off + size > len(data):
            raise BadInput("%s: section %s is outside the file" % (what, n))
        out[n] = data[off:off + size]
    return out


def btf_header(btf, what):
    if len(btf) < 24:
        raise BadInput("%s: .BTF is too short" % what)
    magic, _ver, _flags, hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<HBBIIIII", btf, 0)
    if magic != BTF_MAGIC:
        raise BadInput("%s: .BTF has no BTF magic" % what)
    return hdr_len, type_off, type_len, str_off, str_len


# Bytes that follow a btf_type (12 bytes) of each kind, by vlen.
EXTRA = {1: lambda v: 4, 3: lambda v: 12, 4: lambda v: 12 * v, 5: lambda v: 12 * v, 6: lambda v: 8 * v,
         13: lambda v: 8 * v, 14: lambda v: 4, 15: lambda v: 12 * v, 17: lambda v: 4, 19: lambda v: 12 * v}


def btf_own_names(btf, base_str_len, what):
    """The names abidiff-uapi gives the struct, union, enum and typedef types this split BTF defines."""
    hdr_len, type_off, type_len, str_off, str_len = btf_header(btf, what)
    types = btf[hdr_len + type_off:hdr_len + type_off + type_len]
    strs = btf[hdr_len + str_off:hdr_len + str_off + str_len]

    def name(off):
        if off == 0:
            return None
        if off < base_str_len:
            return ("base", off)
        off -= base_str_len
        end = strs.find(b"\0", off)
        return strs[off:end].decode(errors="replace") if end > off else None

    out = []
    pos = 0
    while pos + 12 <= len(types):
        name_off, info, _ = struct.unpack_from("<III", types, pos)
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        pos += 12 + EXTRA.get(kind, lambda v: 0)(vlen)
        n = name(name_off)
        if not isinstance(n, str):
            n = base_names.get(n[1]) if n else None
        if not n:
            continue
        if kind == 4:
            out.append("struct " + n)
        elif kind == 5:
            out.append("union " + n)
        elif kind in (6, 19):
            out.append("enum " + n)
        elif kind == 8:
            out.append(n)
    return out


base_names = {}


def modinfo(sections):
    """.modinfo's fields; alias and softdep may repeat, so each value is a list."""
    info = {}
    for field in sections.get(".modinfo", b"").split(b"\0"):
        k, sep, v = field.partition(b"=")
        if sep:
            info.setdefault(k.decode(errors="replace"), []).append(v.decode(errors="replace"))
    return info


def softdep_pre(info):
    """The modules a softdep= field asks to load first ("pre: crc32c"): libcrc32c's init needs
    the crc32c algorithm, which nothing in the guest would load on request (no modprobe)."""
    pre = []
    for value in info.get("softdep", []):
        words, mode = value.split(), None
        for w in words:
            if w in ("pre:", "post:"):
                mode = w
            elif mode == "pre:":
                pre.append(w)
    return pre


def cmd_modules(root, vmlinux, uapi_names_file, outdir, max_load=1000000):
    with open(vmlinux, "rb") as f:
        vdata = f.read()
    vbtf = elf_sections(vdata, vmlinux).get(".BTF")
    if vbtf is None:
        raise BadInput("%s: no .BTF section" % vmlinux)
    hdr_len, _, _, str_off, str_len = btf_header(vbtf, vmlinux)
    vstrs = vbtf[hdr_len + str_off:hdr_len + str_off + str_len]
    base_str_len = str_len

    class BaseNames(dict):
        def get(self, off, default=None):
            end = vstrs.find(b"\0", off)
            return vstrs[off:end].decode(errors="replace") if end > off else default
    global base_names
    base_names = BaseNames()

    with open(uapi_names_file, encoding="utf-8") as f:
        uapi = {line.strip() for line in f if line.strip()}
    moddirs = sorted(os.path.join(root, "lib/modules", d) for d in os.listdir(os.path.join(root, "lib/modules")))
    if not moddirs:
        raise BadInput("%s: no lib/modules/<version>/" % root)
    modules = {}
    for moddir in moddirs:
        for dirpath, _dirs, files in os.walk(moddir):
            for fn in sorted(files):
                if not (fn.endswith(".ko") or fn.endswith(".ko.xz") or fn.endswith(".ko.zst")):
                    continue
                path = os.path.join(dirpath, fn)
                with open(path, "rb") as f:
                    data = f.read()
                if not fn.endswith(".ko"):
                    try:
                        data = decompress(data, path)
                    except (lzma.LZMAError, zlib.error) as e:
                        raise BadInput("%s: cannot decompress: %s" % (path, e))
                secs = elf_sections(data, path)
                info = modinfo(secs)
                # The kernel's module names have "_" where file names and depends= may have "-".
                name = (info.get("name", [None])[0] or fn.split(".ko")[0]).replace("-", "_")
                btf = secs.get(".BTF")
                names = btf_own_names(btf, base_str_len, path) if btf else []
                modules[name] = {
                    "name": name,
                    "path": os.path.relpath(path, root),
                    "depends": [d.replace("-", "_") for d in info.get("depends", [""])[0].split(",") if d],
                    "softdep_pre": softdep_pre(info),
                    "aliases": info.get("alias", []),
                    "btf": btf is not None,
                    "uapi_types": sorted(set(names) & uapi),
                    "_data": data,
                }
    # A softdep names a module or an alias ("crc32c", "crypto-crc32c"): the first module with that
    # name or alias (in name order, so the generic implementation comes before crc32c_intel's) loads
    # first, like a hard dependency.
    alias_of = {}
    for m in sorted(modules):
        for a in modules[m].pop("aliases"):
            alias_of.setdefault(a.replace("-", "_"), m)
    for m in modules.values():
        for w in m["softdep_pre"]:
            w = w.replace("-", "_")
            dep = w if w in modules else alias_of.get(w) or alias_of.get("crypto_" + w)
            if dep and dep != m["name"] and dep not in m["depends"]:
                m["depends"].append(dep)
    # Split BTF is split on vmlinux only: a type that snd_pcm defines is defined again in every module
    # that uses it. Load a small set of modules that together define every UAPI type that any module
    # defines: greedily, the module whose dependency closure adds the most names not yet covered.
    closure = {}

    def deps_of(m, seen):
        for d in modules[m]["depends"] if m in modules else []:
            if d not in seen:
                seen.add(d)
                deps_of(d, seen)
        return seen

    for m in modules:
        closure[m] = deps_of(m, {m})
    covered, selected, chosen, gains = set(), [], set(), []
    candidates = [m for m in sorted(modules) if modules[m]["uapi_types"]]
    cnames = {m: {n for d in closure[m] if d in modules for n in modules[d]["uapi_types"]} for m in candidates}
    while len(chosen) < max_load:
        best, best_gain, best_cost = None, 0, 0
        for m in candidates:
            if m in chosen:
                continue
            gain = len(cnames[m] - covered)
            cost = len(closure[m] - chosen)
            if gain > best_gain or (gain == best_gain and gain and cost < best_cost):
                best, best_gain, best_cost = m, gain, cost
        if best is None or len(chosen | closure[best]) > max_load:
            break
        selected.append(best)
        gains.append([best, best_gain, best_cost])
        chosen |= closure[best]
        covered |= cnames[best]
    order, state = [], {}

    def visit(m, chain):
        if state.get(m) == "done":
            return
        if state.get(m) == "busy":
            raise BadInput("%s: dependency cycle: %s" % (root, " -> ".join(chain + [m])))
        if m not in modules:
            raise BadInput("%s: module %s needs %s, which the package does not have" % (root, chain[-1], m))
        state[m] = "busy"
        for d in modules[m]["depends"]:
            visit(d, chain + [m])
        state[m] = "done"
        order.append(m)

    for m in selected:
        visit(m, [])
    kodir = os.path.join(outdir, "ko")
    os.makedirs(kodir, exist_ok=True)
    for m in order:
        write_atomic(os.path.join(kodir, m + ".ko"), modules[m]["_data"])
    for m in modules.values():
        del m["_data"]
        m["selected"] = m["name"] in selected
        m["loaded_as_dependency"] = m["name"] in order and m["name"] not in selected
    write_atomic(os.path.join(outdir, "load-order.txt"), "".join(m + "\n" for m in order).encode())
    write_atomic(os.path.join(outdir, "modules.json"),
                 (json.dumps({"modules": len(modules), "with_btf": sum(m["btf"] for m in modules.values()),
                              "defining_uapi_types": len(candidates), "uapi_types_covered": len(covered),
                              "selected": len(selected), "greedy": gains, "load_order": order,
                              "by_name": modules}, indent=1, sort_keys=True) + "\n").encode())
    print("distro.py: %d modules (%d with BTF), %d define UAPI types; %d of them cover all %d such types,"
          " %d modules to load with their dependencies" % (
              len(modules), sum(m["btf"] for m in modules.values()), len(candidates), len(selected), len(covered),
              len(order)), file=sys.stderr)


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "vmlinux":
            cmd_vmlinux(argv[2], argv[3])
        elif len(argv) in (6, 7) and argv[1] == "modules":
            if len(argv) == 7 and not argv[6].isdigit():
                raise BadInput("MAX_LOAD must be a number, not %r" % argv[6])
            cmd_modules(*argv[2:6], *([int(argv[6])] if len(argv) == 7 else []))
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    except BadInput as e:
        print("distro.py: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("distro.py: %s: %s" % (e.filename, e.strerror), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
