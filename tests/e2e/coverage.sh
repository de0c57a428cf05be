#!/bin/sh
# End-to-end: `fpubench test --coverage` on one FSAVE and one FXSAVE setup.
#
# Builds (or reuses) the patched-gcov variant in the cache, boots it on the
# 486 and the pentium3 with every test, and checks what DIR holds: each
# setup's tracefile, fsave.info, all.info, the HTML and summary.txt; that
# the FSAVE tracefile ran frstor() and never fxrstor() while the FXSAVE one
# ran fxrstor(); that the boots were coverage boots and passed; and that
# it built no other variant (the uninstrumented `patched` is left alone); that
# the checked-in list of unreached lines explains some and has no stale
# entry.  Cold: one kernel build (2-4 min here); warm: about a minute.
#
# Usage: tests/e2e/coverage.sh [FPUBENCH]; COVERAGE_CACHE overrides the
# cache (default: fpubench's own).
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/fpubench-coverage.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

. "$ROOT/tests/e2e/lib.sh"

set --
[ -n "${COVERAGE_CACHE:-}" ] && set -- --cache "$COVERAGE_CACHE"

check "--coverage with --tree is refused" \
	status_is 129 "$FPUBENCH" test --coverage "$WORK/x" --tree "$ROOT"
check "the refusal names both options" grep -q "takes --coverage or --tree, not both" "$WORK/err"
check "--coverage without an FSAVE setup is refused" \
	status_is 129 "$FPUBENCH" test "$@" --coverage "$WORK/x" --cpu qemu32 --results "$WORK/results"
check "the refusal says why" grep -q -- "--coverage needs an FSAVE setup" "$WORK/err"

timeout 3000 "$FPUBENCH" test "$@" --coverage "$WORK/cov" --results "$WORK/results" \
	--cpu 486 --cpu pentium3 >"$WORK/test.out" 2>"$WORK/test.err"
status=$?
check "fpubench test --coverage exits 0, got $status" [ "$status" -eq 0 ]
[ "$status" -eq 0 ] || tail -n 20 "$WORK/test.err" | sed 's/^/# /'

for f in 486.info pentium3.info fsave.info all.info summary.txt html/index.html html/fsave/index.html \
	html/fsave/unreached.html; do
	check "DIR/$f is written" [ -s "$WORK/cov/$f" ]
done

# hits FILE FUNCTION: how often the tracefile says FUNCTION of legacy.h ran.
hits() {
	awk -v fn="$2" '/^SF:/ { in_file = ($0 == "SF:arch/x86/kernel/fpu/legacy.h") }
		in_file && $0 ~ "^FNDA:[0-9]+," fn "$" { split($0, a, /[:,]/); print a[2]; found = 1 }
		END { if (!found) print "none" }' "$WORK/cov/$1"
}
check "the 486 restored with frstor ($(hits 486.info frstor) times)" [ "$(hits 486.info frstor)" -gt 0 ]
check "the 486 never ran fxrstor" [ "$(hits 486.info fxrstor)" = 0 ]
check "the FSAVE setups together never ran fxrstor" [ "$(hits fsave.info fxrstor)" = 0 ]
check "the pentium3 restored with fxrstor ($(hits pentium3.info fxrstor) times)" \
	[ "$(hits pentium3.info fxrstor)" -gt 0 ]
check "sources are relative to the tree" grep -q '^SF:arch/x86/kernel/fpu/core.c$' "$WORK/cov/all.info"
check "the summary lists the FXSAVE-only lines of legacy.h" \
	sh -c "sed -n '/^Lines only the FXSAVE/,/^Lines no setup/p' '$WORK/cov/summary.txt' | grep -q 'arch/x86/kernel/fpu/legacy.h'"
check "the summary has each setup's table" \
	sh -c "grep -qx '486 (FSAVE)' '$WORK/cov/summary.txt' && grep -qx 'pentium3 (FXSAVE)' '$WORK/cov/summary.txt'"
check "the summary explains legacy.h's fxrstor() by patches/gcov/unreached.list" \
	sh -c "sed -n '/^Lines no FSAVE setup executes, explained/,/^Lines no FSAVE setup executes that/p' '$WORK/cov/summary.txt' | grep -A2 'arch/x86/kernel/fpu/legacy.h' | grep -q '^    fxsr ('"
check "the unreached page links legacy.h's lines to genhtml's page" \
	grep -q 'href="arch/x86/kernel/fpu/legacy.h.gcov.html#' "$WORK/cov/html/fsave/unreached.html"
check "the summary lists no stale entry of the list" \
	sh -c "sed -n '/^Entries of .* that explain no line:/,/^Reasons:/p' '$WORK/cov/summary.txt' | grep -qx '  none'"
check "no setup was left out" sh -c "! grep -q 'left out' '$WORK/test.err' '$WORK/cov/summary.txt'"
check "every cell was a coverage boot, and none failed" python3 - "$WORK/results/latest/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cells = r["cells"] if isinstance(r, dict) else r
sys.exit(not cells or any("fpubench_gcov=1" not in c["cmdline"] or c["status"] not in ("pass", "skip")
                          or c["kernel"] != "patched-gcov" for c in cells))
PY
# The cache is shared: another bench may rebuild `patched` meanwhile, so ask what this one built.
check "no variant but patched-gcov was built" \
	sh -c "! grep \"building variant '\" '$WORK/test.err' | grep -v \"variant 'patched-gcov'\""

summary
