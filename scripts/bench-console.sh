#!/bin/sh
# bench-console.sh: how fast `fpubench console` scans a big log, and in how
# much memory (issue 22).  Builds a log of SIZE_MB megabytes (default 100)
# from the real reports in tests/fixtures/console (crashes amid ordinary
# boot lines, as a long CI log is), scans it BENCH_RUNS times (default 3)
# and prints the median MB/s and the peak resident memory (GNU time's
# maximum RSS), with the reports found.
#
# Usage: scripts/bench-console.sh [SIZE_MB]
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FPUBENCH=$ROOT/build/fpubench
SIZE_MB=${1:-100}
RUNS=${BENCH_RUNS:-3}
WORK=$(mktemp -d /tmp/fpubench-bench-console.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

[ -x "$FPUBENCH" ] || { echo "bench-console: build first (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench-console: needs GNU time (apt-get install time)" >&2; exit 1; }

# One block: every real report (headers dropped) and a good boot's console.
block=$WORK/block.log
for f in "$ROOT"/tests/fixtures/console/real/*; do
	case $f in *README.md) continue ;; esac
	sed '1,/^$/d' "$f" >>"$block"
done
cat "$ROOT"/tests/fixtures/console/synth-good-486.log >>"$block"
log=$WORK/big.log
want=$((SIZE_MB * 1024 * 1024))
: >"$log"
while [ "$(stat -c %s "$log")" -lt "$want" ]; do
	cat "$block" "$block" "$block" "$block" "$block" "$block" "$block" "$block" >>"$log"
done
truncate -s "$want" "$log"

i=0
while [ "$i" -lt "$RUNS" ]; do
	/usr/bin/time -f "%e %M %U" -o "$WORK/time.$i" "$FPUBENCH" console --json "$WORK/out.json" "$log" \
		>/dev/null || [ $? -eq 1 ]
	i=$((i + 1))
done
reports=$(grep -c '"title"' "$WORK/out.json")
for t in "$WORK"/time.*; do tail -n 1 "$t"; done | sort -n | awk -v mb="$SIZE_MB" -v n="$RUNS" -v r="$reports" '
	{ t[NR] = $1; u[NR] = $3; if ($2 > rss) rss = $2 }
	END {
		m = t[int((n + 1) / 2)]
		printf "console: %d MB scanned in %.2f s wall, %.2f s user (median of %d): %.0f MB/s, peak RSS %.1f MB, %d reports kept\n",
		       mb, m, u[int((n + 1) / 2)], n, (m > 0 ? mb / m : 0), rss / 1024, r
	}'
