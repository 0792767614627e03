#!/bin/bash
# fuzz.sh: run a libFuzzer target (fuzz-dwarf: object files; fuzz-btf: raw BTF) for a bounded
# time, from a corpus seeded with objects built from the fixture headers (gcc, clang, DWARF 4,
# -m32, compressed) and their BTF (pahole -J), and with OLD+NEW pairs that the target diffs.
# Any crash, leak or sanitizer report fails.
# Usage: tests/fuzz.sh BUILD_FUZZ_DIR TARGET SECONDS [CORPUS_DIR]
#   e.g. tests/fuzz.sh build-fuzz fuzz-dwarf 60
# A longer campaign: tests/fuzz.sh build-fuzz fuzz-dwarf 1800 build/fuzz-corpus/fuzz-dwarf
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bdir=$(realpath "$1") target=$2 seconds=$3
corpus=${4:-$root/build/fuzz-corpus/$target}
bin=$bdir/abidiff-uapi/$target
[ -x "$bin" ] || { echo "fuzz.sh: $bin: not built (CC=clang meson setup build-fuzz -Dfuzz=true)" >&2; exit 2; }
mkdir -p "$corpus"
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
if [ -z "$(ls -A "$corpus")" ]; then
	echo "fuzz.sh: seeding $corpus from the fixtures"
	i=0
	for h in "$root"/fixtures/cases/*/*.h; do
		i=$((i + 1))
		printf '#include "%s"\n' "$h" > "$seeds/s$i.c"
		for v in "gcc -g" "clang -g" "gcc -gdwarf-4" "gcc -g -m32" "gcc -g -gz=zlib" "gcc -g -fdebug-types-section" \
			"gcc -gdwarf-4 -fdebug-types-section"; do
			o=$seeds/s$i-$(echo "$v" | tr -c 'a-z0-9' _).o
			$v -fno-eliminate-unused-debug-types -c "$seeds/s$i.c" -o "$o" 2>/dev/null || continue
			if [ "$target" = fuzz-btf ]; then
				pahole -J --btf_gen_floats "$o" 2>/dev/null && objcopy --dump-section .BTF="$o.btf" "$o" 2>/dev/null &&
					cp "$o.btf" "$corpus/" || true
			else
				cp "$o" "$corpus/"
			fi
		done
	done
	# OLD+NEW pairs (the target splits at the second magic number and diffs
	# the two): each case's old and new header, gcc.
	for d in "$root"/fixtures/cases/*/; do
		[ -f "$d/new.h" ] || continue
		i=$((i + 1))
		for side in old new; do
			printf '#include "%s"\n' "$d/$side.h" > "$seeds/p$i-$side.c"
			gcc -g -fno-eliminate-unused-debug-types -c "$seeds/p$i-$side.c" -o "$seeds/p$i-$side.o" 2>/dev/null || continue 2
		done
		if [ "$target" = fuzz-btf ]; then
			for side in old new; do
				pahole -J --btf_gen_floats "$seeds/p$i-$side.o" 2>/dev/null &&
					objcopy --dump-section .BTF="$seeds/p$i-$side.btf" "$seeds/p$i-$side.o" 2>/dev/null || continue 2
			done
			cat "$seeds/p$i-old.btf" "$seeds/p$i-new.btf" > "$corpus/pair$i.btf"
		else
			cat "$seeds/p$i-old.o" "$seeds/p$i-new.o" > "$corpus/pair$i.o"
		fi
	done
fi
echo "fuzz.sh: $target for $seconds s, corpus $corpus ($(ls "$corpus" | wc -l) inputs)"
artifacts=$root/build/fuzz-artifacts/$target
mkdir -p "$artifacts"
rc=0
# FUZZ_RUNS=N (what CI uses): a fixed seed and N executions, so a run is
# reproducible and CI cannot fail at random on a new finding; SECONDS then
# only caps the time. Without it: a campaign of SECONDS.
limit=()
[ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS" -seed="${FUZZ_SEED:-1}")
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	"$bin" ${limit[@]+"${limit[@]}"} -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
	-print_final_stats=1 -artifact_prefix="$artifacts/" "$corpus" > "$artifacts/log.txt" 2>&1 || rc=$?
grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*(DONE|cov:))' "$artifacts/log.txt" | tail -3
if [ "$rc" != 0 ]; then
	echo "fuzz.sh: $target FAILED (exit $rc); artifacts in $artifacts:"
	grep -E 'ERROR|SUMMARY|Test unit written' "$artifacts/log.txt" | head -10
	echo "0 passed, 1 failed"
	exit 1
fi
echo "1 passed, 0 failed"
