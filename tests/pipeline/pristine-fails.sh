#!/bin/bash
# pristine-fails.sh: pristine 6.1 with an empty series exits 1, names the 11 headers that
# fail alone in C++, the 24 structs whose size differs between C and C++, and the 17 KVM ioctl
# numbers that differ with them.
set -eu
. "$(dirname "$0")/lib.sh"
echo "checks: pristine 6.1 + empty series -> exit 1, 11 C++ failing headers, 24 C/C++ size differences"
mkdir -p "$work/empty"
: >"$work/empty/series"
set +e
"$check" --kernel 6.1 --patches "$work/empty" --out "$work/out" >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
expect "exit status 1 (got $rc)" [ "$rc" -eq 1 ]
r=$work/out/report.json
if [ ! -f "$r" ]; then bad "report.json written"; cat "$work/stderr"; finish; fi
expect "verdict fail" [ "$(json_get "$r" 'r["verdict"]')" = fail ]
agree "$work/out" "$rc"
want="drm/i810_drm.h drm/msm_drm.h linux/auto_dev-ioctl.h linux/ioprio.h linux/netfilter/xt_sctp.h linux/target_core_user.h linux/vhost.h linux/vhost_types.h linux/virtio_net.h linux/virtio_ring.h scsi/fc/fc_els.h"
got=$(json_get "$r" '" ".join(sorted(r["steps"]["headers"]["after"]["failed"]["cxx"]))')
expect "the 11 headers that fail in C++ (got: $got)" [ "$got" = "$want" ]
for h in $want; do
	expect "report.txt names $h" grep -q "$h" "$work/out/report.txt"
done
n=$(json_get "$r" 'len(r["size_differences"]["c-after_cxx-after"])')
expect "24 structs differ in size between C and C++ (got $n)" [ "$n" -eq 24 ]
expect "kvm_cpuid is 8 bytes in C, 12 in C++" \
	[ "$(json_get "$r" '[(d["c"], d["cxx"]) for d in r["size_differences"]["c-after_cxx-after"] if d["type"] == "struct kvm_cpuid"]')" = "[(8, 12)]" ]
expect "kvm_xsave is 4096 bytes in C, 4100 in C++" \
	[ "$(json_get "$r" '[(d["c"], d["cxx"]) for d in r["size_differences"]["c-after_cxx-after"] if d["type"] == "struct kvm_xsave"]')" = "[(4096, 4100)]" ]
expect "report.txt lists struct kvm_xsave" grep -q "struct kvm_xsave" "$work/out/report.txt"
# The same bug in ioctl numbers: 17 KVM requests whose argument is 8 bytes in C and 12 in C++.
n=$(json_get "$r" 'len(r["ioctls"]["c-after_cxx-after"])')
expect "17 ioctl numbers differ between C and C++ (got $n)" [ "$n" -eq 17 ]
expect "KVM_SET_CPUID is 0x4008ae8a in C, 0x400cae8a in C++" \
	[ "$(json_get "$r" '[(i["old_hex"], i["new_hex"]) for i in r["ioctls"]["c-after_cxx-after"] if i["ioctl"] == "KVM_SET_CPUID"]')" = "[('0x4008ae8a', '0x400cae8a')]" ]
expect "every differing ioctl is a KVM request" \
	[ "$(json_get "$r" 'all(i["ioctl"].startswith("KVM_") for i in r["ioctls"]["c-after_cxx-after"])')" = True ]
failed=$(json_get "$r" '" ".join(c["check"] for c in r["checks"] if not c["pass"])')
expect "failing checks are the C++ ones (got: $failed)" [ "$failed" = "c-cxx-same-layout cxx-headers-compile" ]
expect "C: no layout change with an empty series" \
	[ "$(json_get "$r" 'r["steps"]["compare"]["c-before_c-after"]["verdict"]')" = compatible ]
expect "terminal summary printed" grep -q "headers tested" "$work/stdout"
finish
