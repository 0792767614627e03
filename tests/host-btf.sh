#!/bin/bash
# host-btf.sh: sysfs hands out a page or so per read: the running kernel's BTF must still read
# whole (dump --btf /sys/kernel/btf/vmlinux). A kernel without BTF cannot run it: exit 77, meson's
# skip (the QEMU suite reads a guest's BTF).
# Usage: tests/host-btf.sh ABIDIFF_UAPI_BINARY
set -eu
tool=$1
btf=${HOST_BTF:-/sys/kernel/btf/vmlinux}
if [ ! -r "$btf" ]; then
	echo "SKIP --btf $btf: this kernel has no BTF (the QEMU suite reads a guest's)"
	exit 77
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if "$tool" dump --btf "$btf" --type "struct list_head" > "$out" && grep -q 'struct list_head \*  *next;' "$out"; then
	echo "ok   --btf $btf reads whole (short reads): struct list_head found"
else
	echo "FAIL --btf $btf: no struct list_head with its next pointer"
	exit 1
fi
