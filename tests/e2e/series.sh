#!/bin/sh
# End-to-end: patch files as `git am -3` takes them (issue 29), on Debian's
# 6.1 tree with the cache's builds.  A two-patch series whose second patch
# is the fsave bug must fail as unpatched does (it used to pass, cut to its
# first patch); the one-line fsave patch with its @@ lines 2 too high must
# apply at offset -2; an mbox with a reply in it is refused by name before
# anything is built.  Two incremental builds and two boots.  Fixtures:
# tests/fixtures/patches/series/make-fixtures.sh.
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SERIES="$ROOT/tests/fixtures/patches/series/e2e"
WORK=$(mktemp -d /tmp/fpubench-series.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FSAVE_CPU=${E2E_FSAVE_CPU:-pentium2,-fxsr}
RESULTS="$WORK/results"

. "$ROOT/tests/e2e/lib.sh"

# The test kernel's fpu_seed cell: "status crash", then a line per patch the
# bench applied: "subject: placed offset" for each of its hunks.
cell_and_patches() {
	python3 - "$RESULTS/latest/results.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1])):
    if c["kernel"] == "test" and c["test"] == "fpu_seed":
        print(c["status"], c["crash"] or "-")
        for p in (c["provenance"] or {}).get("applied", []):
            for h in p["hunks"]:
                print("%s: %s %s" % (p["subject"], h["placed"], h.get("offset", "")))
PY
}

echo "# e2e series: a series is applied whole"
check "test --patch of a 2-patch series whose patch 2 is the fsave bug exits 1" \
	status_is 1 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --test fpu_seed \
	--patch "$SERIES/two.mbx"
check "the bench said how it applied each of the two" sh -c "
	grep -q \"applied patch '.*two.mbx' (1/2 .x86/fpu: Reword the comment.*: its hunk exact\$\" '$WORK/err' &&
	grep -q \"applied patch '.*two.mbx' (2/2 .x86/fpu: Save the legacy state with fsave.*: its hunk exact\$\" '$WORK/err'"
cell_and_patches >"$WORK/cell"
check "its fpu_seed cell crashes as unpatched does" \
	grep -qx "crash fpu exception in save_fpregs_to_fpstate" "$WORK/cell"
check "results.json records both patches, placed exactly" sh -c "
	grep -qx 'x86/fpu: Reword the comment on the legacy FPU save: exact ' '$WORK/cell' &&
	grep -qx 'x86/fpu: Save the legacy state with fsave: exact ' '$WORK/cell'"

echo "# e2e series: a hunk 2 lines off"
check "test --patch of the fsave patch with its @@ lines 2 too high applies (and crashes: exit 1)" \
	status_is 1 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --test fpu_seed \
	--patch "$SERIES/offset2.patch"
check "the bench says where the hunk went" \
	grep -q "applied patch '.*offset2.patch' as [0-9a-f]*: arch/x86/kernel/fpu/core.c hunk 1 at offset -2\$" "$WORK/err"
cell_and_patches >"$WORK/cell"
check "results.json records the offset" grep -qx "x86/fpu: Save the legacy state with fsave: offset -2" "$WORK/cell"

echo "# e2e series: a patch written against a later kernel (6.12)"
check "test --patch of a patch made on 6.12's core.c applies to 6.1 at an offset and passes" \
	status_is 0 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --test fpu_sicode \
	--patch "$SERIES/later-kernel.patch"
check "the bench says the hunk went 52 lines up" \
	grep -q "applied patch '.*later-kernel.patch' as [0-9a-f]*: arch/x86/kernel/fpu/core.c hunk 1 at offset -52\$" "$WORK/err"

echo "# e2e series: junk in an mbox"
check "test --patch of an mbox holding a reply is refused as bad input" \
	status_is 128 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --test fpu_seed \
	--patch "$SERIES/junk.mbx"
check "the error names the file and the message" \
	grep -q "^fpubench: patch '.*junk.mbx' message 3 (\"Re: \[PATCH 2/2\] x86/fpu: Save the legacy state with fsave\") is neither a patch nor a cover letter\$" "$WORK/err"

summary
