#!/bin/sh
# flake.sh BENCH N: runs the default matrix N times and reports, per cell,
# the statuses seen.  Exits 1 when any cell saw more than one status.
set -eu

FPUBENCH=$(realpath "$1")
N=$2
WORK=$(mktemp -d /tmp/fpubench-flake.XXXXXX)
# A copy, so that a rebuild meanwhile cannot pull the binary from under the
# runs; beside the original, where it finds its data (runtime_data_path()).
COPY="$FPUBENCH.flake-$$"
trap 'rm -rf "$WORK" "$COPY"' EXIT
cp "$FPUBENCH" "$COPY"
FPUBENCH="$COPY"
HISTORY="$WORK/history.db"

i=1
while [ "$i" -le "$N" ]; do
	start=$(date +%s)
	# A run's own exit status says whether it met its expectations; the
	# question here is only whether every run says the same.
	"$FPUBENCH" run --results "$WORK/results" --history "$HISTORY" >"$WORK/out" 2>&1 || true
	grep -q '^results: ' "$WORK/out" || { echo "flake: run $i did not finish:"; tail -n 5 "$WORK/out"; exit 1; }
	echo "flake: run $i of $N: $(( $(date +%s) - start )) s"
	i=$((i + 1))
done

sqlite3 -separator ' ' "$HISTORY" "
	SELECT k.variant, c.cpu, c.test, count(*), group_concat(DISTINCT c.status)
	FROM cells c JOIN kernels k ON k.id = c.kernel_id
	GROUP BY k.variant, c.cpu, c.test ORDER BY k.variant, c.cpu, c.test" >"$WORK/cells"
awk '{ printf "%-10s %-24s %-16s %2d runs: %s\n", $1, $2, $3, $4, $5 }' "$WORK/cells"
flaky=$(awk '$5 ~ /,/' "$WORK/cells" | wc -l)
cells=$(wc -l <"$WORK/cells")
# The cells that differed come last, each run's status and reason with them,
# so that the tail of a CI log says which cell it was and why.
sqlite3 -separator ' ' "$HISTORY" "
	SELECT k.variant, c.cpu, c.test, c.run_id, c.status, round(c.duration_s, 1),
	       coalesce(c.crash, c.reason, '')
	FROM cells c JOIN kernels k ON k.id = c.kernel_id
	WHERE (k.variant, c.cpu, c.test) IN (
		SELECT k2.variant, c2.cpu, c2.test
		FROM cells c2 JOIN kernels k2 ON k2.id = c2.kernel_id
		GROUP BY k2.variant, c2.cpu, c2.test HAVING count(DISTINCT c2.status) > 1)
	ORDER BY k.variant, c.cpu, c.test, c.run_id" |
	awk '{ printf "flaky: %s %s %s run %s: %s after %s s:", $1, $2, $3, $4, $5, $6
	       for (i = 7; i <= NF; i++) printf " %s", $i; printf "\n" }'
echo "flake: $cells cells over $N runs, $flaky with more than one status"
[ "$flaky" -eq 0 ]
