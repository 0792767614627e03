"""Architectures: Debian's name and the kernel's for each one uapi-check covers, the cross
toolchain that compiles for it, and the install-deps group that installs that toolchain.

  amd64/x86_64 (the default: the build machine's gcc), i386, arm64, armhf/arm, riscv64/riscv,
  s390x/s390 (big-endian), ppc64el/powerpc.

Every architecture but amd64 uses Debian's gcc-12 cross toolchain (gcc-12-TRIPLET, g++-12-TRIPLET,
libc6-dev-DEBARCH-cross); i386 too, with i686-linux-gnu (gcc -m32 would need the multilib
packages, and one compiler per architecture keeps every command the same)."""
import os
import shutil
from dataclasses import dataclass
from typing import Dict, Optional

from .util import Fatal

DEFAULT = "amd64"
GCC_VERSION = "12"


@dataclass(frozen=True)
class Arch:
    debian: str             # Debian's name: amd64, armhf...
    kernel: str             # make's ARCH=: x86_64, arm...
    srcarch: str            # the kernel's arch/ directory: x86, arm...
    triplet: Optional[str]  # the cross toolchain's GNU triplet; None: the build machine's gcc
    bits: int
    big_endian: bool = False

    @property
    def default(self) -> bool:
        return self.debian == DEFAULT

    @property
    def group(self) -> Optional[str]:
        """scripts/install-deps group of the cross toolchain (None: the tool group's gcc)."""
        return None if self.triplet is None else f"cross-{self.debian}"

    def compiler_names(self) -> Dict[str, str]:
        """{lang: compiler command} for this architecture."""
        if self.triplet is None:
            return {"c": "gcc", "cxx": "g++"}
        return {"c": f"{self.triplet}-gcc-{GCC_VERSION}", "cxx": f"{self.triplet}-g++-{GCC_VERSION}"}

    def describe(self) -> str:
        """'arm64 (ARCH=arm64, aarch64-linux-gnu, little-endian)', for reports."""
        endian = "big-endian" if self.big_endian else "little-endian"
        target = self.triplet or "x86_64-linux-gnu"
        return f"{self.debian} (ARCH={self.kernel}, {target}, {self.bits}-bit {endian})"

    def to_json(self) -> dict:
        return {"debian": self.debian, "kernel": self.kernel, "srcarch": self.srcarch,
                "triplet": self.triplet or "x86_64-linux-gnu", "bits": self.bits,
                "endian": "big" if self.big_endian else "little"}


ARCHES = {a.debian: a for a in (
    Arch("amd64", "x86_64", "x86", None, 64),
    Arch("i386", "i386", "x86", "i686-linux-gnu", 32),
    Arch("arm64", "arm64", "arm64", "aarch64-linux-gnu", 64),
    Arch("armhf", "arm", "arm", "arm-linux-gnueabihf", 32),
    Arch("riscv64", "riscv", "riscv", "riscv64-linux-gnu", 64),
    Arch("s390x", "s390", "s390", "s390x-linux-gnu", 64, big_endian=True),
    Arch("ppc64el", "powerpc", "powerpc", "powerpc64le-linux-gnu", 64),
)}
# The kernel's names, and the usual others, for the same architectures.
ALIASES = {"x86_64": "amd64", "x86-64": "amd64", "i686": "i386", "x86": "amd64", "aarch64": "arm64",
           "arm": "armhf", "riscv": "riscv64", "s390": "s390x", "powerpc": "ppc64el",
           "ppc64le": "ppc64el"}
# --compat: the 64-bit architecture whose kernel runs the 32-bit one's programs.
COMPAT = {"i386": "amd64", "armhf": "arm64"}


def names() -> str:
    return ", ".join(f"{a.debian}/{a.kernel}" if a.kernel != a.debian else a.debian for a in ARCHES.values())


def lookup(name: str) -> Arch:
    """The architecture a Debian or kernel name stands for; Fatal for an unknown one."""
    key = ALIASES.get(name, name)
    if key not in ARCHES:
        raise Fatal(f"unknown architecture '{name}' (one of: {names()})")
    return ARCHES[key]


def compat_pair(name: str):
    """(64-bit Arch, 32-bit Arch) for --compat ARCH32."""
    a32 = lookup(name)
    if a32.debian not in COMPAT:
        raise Fatal(f"--compat takes a 32-bit architecture with a 64-bit kernel: "
                    f"{', '.join(sorted(COMPAT))} (not {name})")
    return ARCHES[COMPAT[a32.debian]], a32


def compiler_commands(arch: Arch, environ=None) -> Dict[str, str]:
    """The compilers for an architecture: CC/CXX for the default one (as before), the cross
    toolchain for the others (UAPI_CHECK_CC_<DEBARCH> / UAPI_CHECK_CXX_<DEBARCH> override them)."""
    environ = os.environ if environ is None else environ
    names = arch.compiler_names()
    if arch.default:
        return {"c": environ.get("CC") or names["c"], "cxx": environ.get("CXX") or names["cxx"]}
    return {"c": environ.get(f"UAPI_CHECK_CC_{arch.debian}") or names["c"],
            "cxx": environ.get(f"UAPI_CHECK_CXX_{arch.debian}") or names["cxx"]}


def compiler_variable(arch: Arch, lang: str) -> str:
    """The environment variable that names the compiler of a language for an architecture."""
    if arch.default:
        return "CC" if lang == "c" else "CXX"
    return f"UAPI_CHECK_{'CC' if lang == 'c' else 'CXX'}_{arch.debian}"


def have_toolchain(arch: Arch) -> bool:
    return all(shutil.which(c) for c in compiler_commands(arch).values())
