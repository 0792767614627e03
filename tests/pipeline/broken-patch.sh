#!/bin/bash
# broken-patch.sh: a patch that does not apply gives exit 2, a message naming the patch,
# and no report left behind (not even a stale one from an earlier run).
set -eu
. "$(dirname "$0")/lib.sh"
echo "checks: a series whose patch does not apply -> exit 2, names the patch, no report"
mkdir -p "$work/series" "$work/out"
cat >"$work/series/0001-broken.patch" <<'PATCH'
From: Nobody <nobody@example.org>
Subject: [PATCH] broken: a hunk that matches nothing

--- a/include/uapi/linux/virtio_net.h
+++ b/include/uapi/linux/virtio_net.h
@@ -1,3 +1,3 @@
-this line is not in the file
+nor is this one
 neither is this
PATCH
echo 0001-broken.patch >"$work/series/series"
echo '{"verdict": "pass"}' >"$work/out/report.json"
echo stale >"$work/out/report.txt"
set +e
"$check" --kernel 6.1 --patches "$work/series" --out "$work/out" >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
sed 's/^/  stderr: /' "$work/stderr" | tail -n 3
expect "exit status 2 (got $rc)" [ "$rc" -eq 2 ]
expect "the message names the patch" grep -q "0001-broken.patch" "$work/stderr"
expect "the message says it does not apply" grep -q "does not apply" "$work/stderr"
expect "no report.json left" [ ! -e "$work/out/report.json" ]
expect "no report.txt left" [ ! -e "$work/out/report.txt" ]
expect "no temporary report left" [ -z "$(find "$work/out" -maxdepth 1 -name '.report*')" ]
pristine=$("$root/scripts/kernel-tree" --headers 6.1 2>/dev/null)  # the part uapi-check uses
expect "the pristine tree is untouched" grep -q "struct virtio_net_ctrl_hdr" "$pristine/include/uapi/linux/virtio_net.h"
finish
