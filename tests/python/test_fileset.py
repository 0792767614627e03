"""uapi_check/fileset.py: the one description of the files headers_install reads (tests/fileset.py
checks it against GNU tar on whole trees; these are the small cases)."""
import os
import subprocess
import sys

from uapi_check import fileset

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_tar_takes_what_is_needed_and_what_tar_wider_adds():
    needed = ["Makefile", "scripts/Makefile.headersinst", "arch/x86/Makefile_32.cpu",
              "arch/riscv/kernel/Makefile.syscalls", "include/uapi/linux/a.h"]
    assert [p for p in needed if not fileset.tar_takes(p)] == []
    # arch/*/kernel/Makefile.syscalls is taken from a tarball as arch/*/kernel/Makefile*
    assert fileset.tar_takes("arch/riscv/kernel/Makefile") and not fileset.needed("arch/riscv/kernel/Makefile")
    # a star never matches a slash
    for p in ["arch/x86/kernel/cpu/Makefile", "drivers/scripts/x", "x/Makefile", "arch/x86/boot/Makefile"]:
        assert not fileset.tar_takes(p) and not fileset.needed(p), p


def test_script_prints_the_tar_args_kernel_tree_uses():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "uapi_check", "fileset.py"), "--tar-args"],
                       capture_output=True, text=True, check=True)
    assert p.stdout.splitlines() == fileset.tar_args()
    assert fileset.tar_args()[:2] == ["--wildcards", "--no-wildcards-match-slash"]
    assert len(fileset.tar_args()) == 2 + len(fileset.PARTS)
    bad = subprocess.run([sys.executable, os.path.join(ROOT, "uapi_check", "fileset.py")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "usage" in bad.stderr
