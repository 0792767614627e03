#!/bin/bash
# run.sh ARCH KERNEL: `uapi-check --arch ARCH --kernel KERNEL` passes with the series: exit 0,
# report.json says pass and names the architecture, no tested header fails as C or as C++ after
# the series, and the units are really objects of that architecture (readelf's machine and byte
# order, an independent reader).
set -eu
. "$(dirname "$0")/../pipeline/lib.sh"
arch=${1:?usage: run.sh ARCH KERNEL}
kernel=${2:?usage: run.sh ARCH KERNEL}
echo "checks: uapi-check --arch $arch --kernel $kernel exits 0, the report names $arch, 0 failing headers after the series"
out=$root/build/arch/$kernel-$arch   # kept for a warm rerun and for the docs' figures
set +e
"$check" --kernel "$kernel" --arch "$arch" --out "$out" --jobs 2 >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
tail -n 3 "$work/stdout"
[ "$rc" -eq 0 ] || tail -n 20 "$work/stderr"
expect "exit status 0 (got $rc)" [ "$rc" -eq 0 ]
r=$out/report.json
if [ -f "$r" ]; then
	expect "report.json verdict pass" [ "$(json_get "$r" 'r["verdict"]')" = pass ]
	agree "$out" "$rc"
	deb=$(json_get "$r" 'r["arch"]["debian"]')
	expect "report.json names the architecture ($deb)" [ -n "$deb" ]
	expect "report.txt's headline names it" grep -q "^uapi-check: PASS .*$deb (ARCH=" "$out/report.txt"
	expect "report.html's headline names it" grep -q "$deb (ARCH=" "$out/report.html"
	for lang in c cxx; do
		n=$(json_get "$r" "len(r['steps']['headers']['after']['failed']['$lang'])")
		expect "after the series, $n headers fail as $lang" [ "$n" -eq 0 ]
	done
	echo "  before the series: $(json_get "$r" "'C %d, C++ %d failing of %d tested' % (len(r['steps']['headers']['before']['failed']['c']), len(r['steps']['headers']['before']['failed']['cxx']), r['steps']['headers']['before']['tested'])")"
	machine=$(json_get "$r" 'r["arch"]["triplet"]')
	endian=$(json_get "$r" 'r["arch"]["endian"]')
	hdr=$(LC_ALL=C readelf -h "$out/obj/c-after.o")
	case $machine in
	x86_64*) m="X86-64" ;; i686*) m="80386" ;; aarch64*) m="AArch64" ;; arm-*) m="ARM" ;;
	riscv64*) m="RISC-V" ;; s390x*) m="IBM S/390" ;; powerpc64le*) m="PowerPC64" ;; *) m="?" ;;
	esac
	expect "obj/c-after.o is an $m object (readelf)" grep -q "Machine:.*$m" <<<"$hdr"
	expect "obj/c-after.o is $endian-endian (readelf)" grep -q "Data: .*$endian endian" <<<"$hdr"
fi
finish
