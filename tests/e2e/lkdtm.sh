#!/bin/sh
# End-to-end: a real kernel's crash reports get the community's titles.
#
# Builds the "patched" kernel with tests/e2e/lkdtm.config on top of
# patches/fpu.config (a copy of patches/ whose fpu.config has both: `test`
# takes its fragment from --patches), in its own cache so that the shared
# builds are untouched, and boots guest-tests/misbehave/lkdtm.c, which
# writes LKDTM=TYPE from the kernel command line to LKDTM's DIRECT file.
# Checks that `fpubench test` calls each boot a crash with the expected
# title, and that `fpubench console` gives the same title to the console
# it kept.  Cold: one kernel build (4 min on 2 quiet cores, 27 min on loaded
# ones); warm: about 25 s (the hung task needs its 5-10 s detector).
#
# Usage: tests/e2e/lkdtm.sh [FPUBENCH]; LKDTM_CACHE overrides the cache
# (default ~/.cache/fpubench-lkdtm).
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${LKDTM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench-lkdtm}
WORK=$(mktemp -d /tmp/fpubench-lkdtm.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

. "$ROOT/tests/e2e/lib.sh"

cp -r "$ROOT/patches" "$WORK/patches"
cat "$ROOT/patches/fpu.config" "$ROOT/tests/e2e/lkdtm.config" >"$WORK/patches/fpu.config"

# KIND and the title its report must have (syzkaller's convention).
KINDS="WARNING|WARNING in lkdtm_WARNING
BUG|kernel BUG in lkdtm_BUG
EXCEPTION|BUG: unable to handle kernel NULL pointer dereference in lkdtm_EXCEPTION
HUNG_TASK|INFO: task hung in direct_entry"

set --
while IFS='|' read -r kind title; do
	set -- "$@" --cpu "486:LKDTM=$kind LKDTM_WAIT_MS=12000"
done <<EOF2
$KINDS
EOF2
timeout 3000 "$FPUBENCH" test --cache "$CACHE" --patches "$WORK/patches" \
	--guest-dir "$ROOT/build/guest/misbehave/lkdtm" --results "$WORK/results" --timeout 40 \
	"$@" >"$WORK/test.out" 2>"$WORK/test.err"
status=$?
check "fpubench test exits 1 (the boots crashed), got $status" [ "$status" -eq 1 ]

# crash_of KIND: the crash title of the boot with LKDTM=KIND in results.json.
crash_of() {
	python3 - "$WORK/results/latest/results.json" "$1" <<'PY'
import json, sys
path, kind = sys.argv[1:]
for c in json.load(open(path)):
    if "LKDTM=%s " % kind in c["cmdline"] + " ":
        print(c["crash"] or "")
        break
PY
}

while IFS='|' read -r kind title; do
	got=$(crash_of "$kind")
	check "$kind: the test's crash is '$title' (got '$got')" [ "$got" = "$title" ]
	log=$(grep -l "LKDTM=$kind" "$WORK"/results/latest/console/* 2>/dev/null | head -n 1)
	got=$("$FPUBENCH" console "${log:-/nonexistent}" 2>&1)
	check "$kind: fpubench console says '$title'" [ "$got" = "$log: $title" ]
done <<EOF2
$KINDS
EOF2

summary
