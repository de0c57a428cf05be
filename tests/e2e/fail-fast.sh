#!/bin/sh
# fail-fast.sh BENCH: --fail-fast on a kernel known to be bad.  `unpatched`
# crashes in its first test on the FSAVE setups; under a config with no
# [expect] rows that is an unmet cell, and the run must stop there: with one
# guest at a time, exactly one boot, the crash's cell, a not-run cell for
# every pair (the crashed one's later tests too), run.json's stopped_early,
# exit 1.  With four guests at once the boots still running are destroyed,
# and nothing is left behind: no qemu, no domain state, no saved guest half
# written, the cache lock free.  Last, `test --patch` of a regression exits 1
# and says it stopped early, as scripts/mutants.sh runs it.  Needs the cache's
# `unpatched` and `patched` builds (it builds what is missing).  Under the
# default config, whose [expect] rows expect unpatched's crashes, the same
# run is met and goes to its end.
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX="$ROOT/tests/fixtures"
WORK=$(mktemp -d /tmp/fpubench-e2e-fail-fast.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CACHE=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}
RESULTS="$WORK/results"

. "$ROOT/tests/e2e/lib.sh"

# Two FSAVE setups first, then two FXSAVE ones; no [expect]: every cell is to pass.
cat >"$WORK/bad.conf" <<EOF
[run]
series = $ROOT/patches
[cpu]
setup = 486
setup = pentium2,-fxsr
setup = pentium3
setup = qemu32
EOF
RUN="$FPUBENCH run --config $WORK/bad.conf --variant unpatched --results $RESULTS --history $WORK/history.db --fail-fast"

# cells_are STATE...: the latest run's cells, "cpu:test:status:met:not_run" each, in order.
cells_are() {
	got=$(python3 - "$RESULTS/latest/results.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1])):
    print("%s:%s:%s:%s:%s" % (c["cpu"], c["test"], c["status"], c["met"], c["not_run"]))
PY
)
	want=$(printf '%s\n' "$@")
	[ "$got" = "$want" ] || { echo "# got:"; echo "$got" | sed 's/^/#   /'; return 1; }
}

run_json_is() {	# run_json_is KEY VALUE: run.json's KEY, as Python prints it
	got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$RESULTS/latest/run.json" "$1")
	[ "$got" = "$2" ] || { echo "# run.json $1: $got"; return 1; }
}

echo "# e2e: one guest at a time, the first crash ends the run"
check "unpatched on FSAVE with --fail-fast exits 1" status_is 1 $RUN --jobs 1
check "one boot: no other pair, nor the crashed pair's next boot" \
	test "$(ls "$RESULTS/latest/console" | wc -l)" -eq 1
check "results.json: the crash, then a not-run cell for every pair" cells_are \
	"486:fpu_addr:crash:False:False" "486:boot:skip:False:True" \
	"pentium2,-fxsr:boot:skip:False:True" "pentium3:boot:skip:False:True" "qemu32:boot:skip:False:True"
check "run.json: stopped early, not complete" sh -c "$(cat <<EOF
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not (r["stopped_early"] and not r["complete"]))' '$RESULTS/latest/run.json'
EOF
)"
check "the summary lists the crash, and says the run stopped early" sh -c "
	grep -q '^  unpatched  486  *fpu_addr  *crash  *expected pass' '$WORK/out' &&
	grep -q '^stopped early (--fail-fast): 4 kernel-setup pairs not run to the end$' '$WORK/out' &&
	! grep -q ' boot  *skip' '$WORK/out'"
check "the history keeps it as interrupted, not complete" sh -c \
	"sqlite3 '$WORK/history.db' 'select status from runs' | grep -qx interrupted"

echo "# e2e: four guests at once, the boots running are destroyed"
check "exits 1" status_is 1 $RUN --jobs 4
check "run.json: stopped early" run_json_is stopped_early True
check "every pair has cells, and a not-run one is never met" python3 - "$RESULTS/latest/results.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))
pairs = {c["cpu"] for c in cells}
bad = [c for c in cells if c["not_run"] and (c["met"] or c["status"] != "skip")]
sys.exit(not (pairs == {"486", "pentium2,-fxsr", "pentium3", "qemu32"} and not bad and
              any(c["not_run"] for c in cells)))
PY
check "no qemu of the bench left" sh -c \
	"! pgrep -f '[q]emu-system-i386.*guest=fpubench-.*$CACHE/libvirt/' >/dev/null"
check "no domain state left in the libvirt root" sh -c \
	"! ls '$CACHE/libvirt/run/qemu' 2>/dev/null | grep -q '^fpubench-'"
check "no saved guest half written, no guest socket" sh -c \
	"! ls '$CACHE/saves' 2>/dev/null | grep -q -e '\.tmp-' -e '\.sock$'"
check "the cache lock is free" flock -n "$CACHE/lock" true

echo "# e2e: an expected crash is met, and does not stop the run"
check "the default config (unpatched's crashes expected) runs to the end" status_is 0 \
	"$FPUBENCH" run --fail-fast --variant unpatched --cpu 486 --cpu pentium3 --results "$RESULTS" \
	--history "$WORK/history.db"
check "run.json: complete, not stopped early" sh -c "$(cat <<EOF
python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(not (r["complete"] and not r["stopped_early"]))' '$RESULTS/latest/run.json'
EOF
)"

echo "# e2e: test --patch --fail-fast, as mutants.sh runs it"
check "a regression exits 1" status_is 1 "$FPUBENCH" test --fail-fast --results "$RESULTS" \
	--cpu 486 --cpu pentium3 --jobs 1 --patch "$FIX/patches/fsave-regression.diff"
check "it names the crash and says it stopped early" sh -c "
	grep -q '^  test  486  *fpu_[a-z]*  *crash' '$WORK/out' &&
	grep -q '^stopped early (--fail-fast): 2 kernel-setup pairs not run to the end$' '$WORK/out'"
check "the pristine kernel runs to the end and exits 0" status_is 0 "$FPUBENCH" test \
	--fail-fast --results "$RESULTS" --cpu 486 --cpu pentium3
check "run.json: not stopped early" run_json_is stopped_early False

summary
