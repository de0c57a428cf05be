#!/bin/sh
# kill.sh BENCH [N]: kills the bench at random points N times (default 20).
#
# Each round starts a run of the matrix and sends SIGKILL, SIGTERM or SIGINT
# after a random delay.  A last run goes to the end.  Afterwards no qemu of
# the bench may remain, every run in the history must be complete or
# interrupted, the database must pass PRAGMA integrity_check, every
# results.json that exists must be whole, and the embedded libvirt root must
# hold no state of the bench's domains (libvirt would wait 30 s on each at
# every later start).
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROUNDS=${2:-20}
WORK=$(mktemp -d /tmp/fpubench-kill.XXXXXX)
# A copy, so that a rebuild meanwhile cannot pull the binary from under the
# runs; beside the original, where it finds its data (runtime_data_path()).
COPY="$FPUBENCH.kill-$$"
trap 'rm -rf "$WORK" "$COPY"' EXIT
cp "$FPUBENCH" "$COPY"
FPUBENCH="$COPY"
HISTORY="$WORK/history.db"
RUN="$FPUBENCH run --results $WORK/results --history $HISTORY --cpu pentium2,-fxsr --cpu qemu32"
failed=0

CACHE=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}
# Only this cache's guests: qemu names its embedded root's files; other benches
# on a shared machine run guests of their own.
bench_qemus() {
	pgrep -f "[q]emu-system-i386.*guest=fpubench-.*$CACHE/libvirt/" || true
}

i=1
while [ "$i" -le "$ROUNDS" ]; do
	# 0.2 to 12 s: connecting, booting, writing cells, writing results.
	delay=$(awk -v seed="$$$i" 'BEGIN { srand(seed); printf "%.1f", 0.2 + rand() * 11.8 }')
	sig=$(echo "KILL KILL TERM INT" | awk -v seed="$i$$" '{ srand(seed); print $(1 + int(rand() * 4)) }')
	$RUN >"$WORK/out.$i" 2>&1 &
	pid=$!
	sleep "$delay"
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid"
	echo "# round $i: SIG$sig after $delay s, exit $?"
	i=$((i + 1))
done

# The next start finds what the killed ones left: it kills their qemu, forgets
# their domains and marks their runs interrupted.
$RUN >"$WORK/out.last" 2>&1 || { echo "not ok - the last run failed"; tail -n 5 "$WORK/out.last"; failed=1; }

left=$(bench_qemus)
if [ -n "$left" ]; then
	echo "not ok - qemu of the bench left running: $left"
	failed=1
else
	echo "ok - no qemu of the bench left running"
fi

state=$(ls "$CACHE/libvirt/run/qemu" 2>/dev/null | grep '^fpubench-' || true)
if [ -z "$state" ]; then
	echo "ok - no domain state of the bench left in the libvirt root"
else
	echo "not ok - domain state left in $CACHE/libvirt/run/qemu: $state"
	failed=1
fi

bad=$(sqlite3 "$HISTORY" "SELECT count(*) FROM runs WHERE status NOT IN ('complete', 'interrupted')")
runs=$(sqlite3 "$HISTORY" "SELECT count(*) FROM runs")
if [ "$bad" = 0 ] && [ "$runs" -ge 1 ]; then
	echo "ok - all $runs runs are complete or interrupted"
else
	echo "not ok - $bad of $runs runs are neither complete nor interrupted"
	failed=1
fi

check=$(sqlite3 "$HISTORY" "PRAGMA integrity_check")
if [ "$check" = ok ]; then
	echo "ok - the history passes integrity_check"
else
	echo "not ok - integrity_check: $check"
	failed=1
fi

if python3 - "$WORK/results" <<'PY'
import glob, json, sys
for path in glob.glob(sys.argv[1] + "/2*/results.json"):
    json.load(open(path))
PY
then
	echo "ok - every results.json is whole"
else
	echo "not ok - a results.json is cut"
	failed=1
fi

[ "$failed" -eq 0 ]
