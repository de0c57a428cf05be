#!/bin/sh
# bench-lab.sh: the figure `make bench` calls "lab" (issue 32).  What one
# boot of the matrix (a kernel on a CPU setup: 15 cells) costs through a
# LAVA lab beside the same boot through libvirt: `fpubench test` of the
# patched kernel on qemu32, under the embedded libvirt driver and through
# `--lab local` (Debian's lava-run on this machine), alternated, and with
# BENCH_LAB_CONFIG=FILE BENCH_LAB=NAME also through that config's [lab]
# (a LAVA server).  Prints "NAME median-seconds spread ratio-to-libvirt"
# lines, the ratios taken pair by pair; the wall time of the whole command
# on each side, so its fixed costs (the cache's checks, the payload) are in
# both.
# Usage: scripts/bench-lab.sh FPUBENCH RUNS WORKDIR
set -eu

FPUBENCH=$1
RUNS=$2
W=$3
mkdir -p "$W"
now() { date +%s.%N; }

timed() {	# timed SERIES COMMAND...: appends the command's wall time to $W/SERIES
	series=$1
	shift
	t0=$(now)
	"$@" >"$W/$series.out" 2>"$W/$series.err" || { echo "bench-lab: $series failed:" >&2; tail -n 5 "$W/$series.err" >&2; exit 1; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }' >>"$W/$series"
}

set -- libvirt lava-run
[ -n "${BENCH_LAB_CONFIG:-}" ] && set -- "$@" server
for i in $(seq "$RUNS"); do
	timed libvirt "$FPUBENCH" test --cpu qemu32 --results "$W/r"
	timed lava-run "$FPUBENCH" test --cpu qemu32 --lab local --results "$W/r"
	if [ -n "${BENCH_LAB_CONFIG:-}" ]; then
		timed server "$FPUBENCH" run --config "$BENCH_LAB_CONFIG" --lab "$BENCH_LAB" \
			--cpu qemu32 --variant patched --results "$W/r" --history "$W/history.db"
	fi
done
for s in "$@"; do
	paste "$W/$s" "$W/libvirt" | awk '{ print $1 / $2 }' >"$W/$s.ratio"
	med=$(sort -g "$W/$s" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	ratio=$(sort -g "$W/$s.ratio" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	spread="$(sort -g "$W/$s" | head -n 1)-$(sort -g "$W/$s" | tail -n 1)"
	printf '%s %.2f %s %.2f\n' "$s" "$med" "$spread" "$ratio"
done
