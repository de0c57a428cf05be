#!/bin/sh
# bench.sh: `make bench` (issue 8).  Measures fpubench against what a user
# would run instead (direct QEMU, make, git), side by side, and prints the
# table; writes it with the machine, the commands and the profiles to
# bench/RESULTS.md.
#
# Needs a warm cache (`make run` first).  Each figure alternates its runs
# (ours, reference, ours, ...) so that a noisy machine slows both sides
# alike, and reports medians; ratios are taken pair by pair.
#
# Environment:
#   BENCH_QUICK=1      2 repetitions of everything and no cold run: for
#                      development; writes build/bench-RESULTS.md instead
#   BENCH_ONLY="..."   only these figures: cell matrix patch cold bisect
#                      provenance mutant failfast lab (memory comes with matrix; lab
#                      only as root with lava-run installed)
#   BENCH_MUTANTS=N    generated mutants in figure 8 (default 6, quick 3)
#   BENCH_FF_MUTANTS="K S"  figure 8c's killed and surviving mutants of the
#                      store (default "4 2", quick "2 1")
#   BENCH_RESULTS=FILE where the report goes
#   BENCH_LOCK_WAIT=S  how long to wait for a cache another fpubench holds
#                      (default 1800)
#   BENCH_KEEP=1       keep the work directory (logs, samples) for a look
#   FPUBENCH_CACHE     the cache, as for fpubench
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FPUBENCH=$ROOT/build/fpubench
CACHE=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}
# The cache keys Debian's tree by its version, and builds by the tree (docs/fpubench-run.md, "Kernel trees").
TREE=$(ls -d "$CACHE"/trees/debian-6.1.* 2>/dev/null | tail -n 1)
KEY=${TREE##*/}
BUILDS=$CACHE/build/$KEY
TARBALL=${FPUBENCH_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
QUICK=${BENCH_QUICK:-0}
ONLY=${BENCH_ONLY:-cell matrix patch cold bisect provenance mutant failfast}
# 9: a boot through a LAVA lab, where lava-run can run (make check-lava installs it).
if [ -z "${BENCH_ONLY:-}" ] && [ "$(id -u)" -eq 0 ] && command -v lava-run >/dev/null; then
	ONLY="$ONLY lab"
fi
# 8c judges mutants of the store that only `scripts/mutants.sh --generate` fills
# (hours): a machine without one measures the rest and says so in the table.
NO_FF=
if [ -z "${BENCH_ONLY:-}" ] && [ ! -s "$CACHE/mutants.db" ]; then
	ONLY=$(echo "$ONLY" | sed 's/ failfast//')
	NO_FF="no mutant store '$CACHE/mutants.db' (scripts/mutants.sh --generate)"
	echo "bench: 8c-8e left out: $NO_FF" >&2
fi
LOCK_WAIT=${BENCH_LOCK_WAIT:-1800}
JOBS=$(nproc)
GUESTS=$((2 * JOBS))	# the bench's default: two guests per core (bench/boot/guest.c)
HISTORY_REF=refs/fpubench/bench-history
BISECT_CPU=pentium2,-fxsr
PROV_COMMITS=1500
QEMU_TIMEOUT=120

if [ "$QUICK" = 1 ]; then
	GUEST_RUNS=2 BIG_RUNS=2 MUT_SAMPLE=${BENCH_MUTANTS:-3} FF_MUTANTS=${BENCH_FF_MUTANTS:-2 1}
	FF_MODES="1 0"
	OUT=${BENCH_RESULTS:-$ROOT/build/bench-RESULTS.md}
	ONLY=$(echo "$ONLY" | sed 's/cold//')
else
	GUEST_RUNS=10 BIG_RUNS=5 MUT_SAMPLE=${BENCH_MUTANTS:-6} FF_MUTANTS=${BENCH_FF_MUTANTS:-4 2}
	FF_MODES="1 0 0 1"
	OUT=${BENCH_RESULTS:-$ROOT/bench/RESULTS.md}
fi

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -x "$FPUBENCH" ] || die "fpubench '$FPUBENCH' is missing (run 'make')"
# Stamps come and go while another session rebuilds: the directories say "warm".
[ -n "$TREE" ] && [ -d "$TREE/.git" ] && [ -d "$BUILDS/patched" ] && [ -d "$BUILDS/unpatched" ] ||
	die "cache '$CACHE' is not warm (run 'make run' first)"

WORK=$(mktemp -d /tmp/fpubench-bench.XXXXXX)
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
LOG=$WORK/log	# every command's stdout and stderr
S=$WORK/samples	# one file per series, one value a line
mkdir -p "$LOG" "$S"
NOTES=$WORK/notes	# per-figure text for RESULTS.md
mkdir -p "$NOTES"
LOCK_RETRIES=0

wants() {	# wants FIGURE: the figure is selected
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'; }
put() { echo "$2" >>"$S/$1"; }	# put SERIES VALUE
note() { printf '%s\n' "$2" >>"$NOTES/$1"; }	# note FIGURE LINE

median() {	# median SERIES
	[ -s "$S/$1" ] || { echo "n/a"; return 0; }
	sort -g "$S/$1" | awk '{ a[NR] = $1 }
		END { printf "%.3f\n", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
spread() {	# spread SERIES: "min–max"
	[ -s "$S/$1" ] || { echo "n/a"; return 0; }
	sort -g "$S/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f–%.2f\n", lo, hi }'
}
count() { [ -s "$S/$1" ] && wc -l <"$S/$1" || echo 0; }
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.3f\n", s / n; else print "n/a" }' "$S/$1"; }	# mean SERIES
pairs() {	# pairs OURS REF NAME: the pair-by-pair ratios OURS/REF as series NAME
	[ -s "$S/$1" ] && [ -s "$S/$2" ] || return 0
	paste "$S/$1" "$S/$2" | awk '$2 > 0 { printf "%.4f\n", $1 / $2 }' >"$S/$3"
}
calc() { awk "BEGIN { printf \"%.3f\n\", $* }"; }	# calc EXPR, on numbers only
# cpu_of TIMEFILE: user + sys, the last two fields of /usr/bin/time's last line
cpu_of() { tail -n 1 "$1" | awk '{ printf "%.3f\n", $(NF - 1) + $NF }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }
fmt_s() { [ "$1" = n/a ] && echo n/a || awk -v a="$1" 'BEGIN { printf "%.2f s\n", a }'; }

# The peak RSS of process PID (or of its first child, with "child": the
# process under /usr/bin/time), from VmHWM, into FILE until it exits.
sample_hwm() {
	target=$1
	if [ "${3:-}" = child ]; then
		while target=$(pgrep -P "$1" | head -n 1); [ -z "$target" ]; do
			[ -d "/proc/$1" ] || return 0
			sleep 0.02
		done
	fi
	while [ -r "/proc/$target/status" ]; do
		v=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$target/status" 2>/dev/null) || true
		[ -z "$v" ] || echo "$v" >"$2"
		sleep 0.1
	done
}

# run_cmd NAME COMMAND...: runs COMMAND with its stdout and stderr in
# $LOG/NAME.out and .err; sets RC, T0, T1 and SECS.  While another fpubench
# holds the cache (exit 133, "in use"), waits and runs it again: only the
# run that got the cache is timed.  With HWM=self or HWM=child, samples the
# peak RSS of the command (or of its child) into $LOG/NAME.hwm.
run_cmd() {
	name=$1
	shift
	waited=0
	while :; do
		rm -f "$LOG/$name.hwm"
		T0=$(now)
		"$@" >"$LOG/$name.out" 2>"$LOG/$name.err" &
		pid=$!
		spid=
		case ${HWM:-} in
		self) sample_hwm "$pid" "$LOG/$name.hwm" & spid=$! ;;
		child) sample_hwm "$pid" "$LOG/$name.hwm" child & spid=$! ;;
		esac
		RC=0
		wait "$pid" || RC=$?
		T1=$(now)
		if [ -n "$spid" ]; then
			kill "$spid" 2>/dev/null || true
			wait "$spid" 2>/dev/null || true
		fi
		if [ "$RC" -eq 133 ] && grep -q 'in use' "$LOG/$name.err"; then
			[ "$waited" -lt "$LOCK_WAIT" ] ||
				die "cache '$CACHE' stayed in use by another fpubench for $LOCK_WAIT s"
			LOCK_RETRIES=$((LOCK_RETRIES + 1))
			sleep 5
			waited=$((waited + 5))
			continue
		fi
		break
	done
	SECS=$(sub "$T0" "$T1")
}

expect_rc() {	# expect_rc WANT NAME: the last run_cmd exited WANT, or stop
	[ "$RC" -eq "$1" ] && return 0
	sed 's/^/  /' "$LOG/$2.err" | tail -n 20 >&2
	die "'$2' exited $RC, expected $1 (see above)"
}

rebuilt() {	# rebuilt NAME: the run built a kernel (someone changed the cache meanwhile)
	grep -q "fpubench: building variant" "$LOG/$1.err"
}
# warm_cmd FIGURE NAME COMMAND...: run_cmd, again (up to 3 times) while the
# run had to rebuild a kernel: other sessions share the cache, and a figure
# of a warm cache must not time their changes.
warm_cmd() {
	fig=$1
	shift
	tries=1
	while run_cmd "$@" && rebuilt "$1" && [ "$tries" -lt 3 ]; do
		note "$fig" "- run $1 had to rebuild a kernel (another session changed the shared cache): run again"
		tries=$((tries + 1))
	done
	if rebuilt "$1"; then note "$fig" "- run $1 rebuilt a kernel 3 times in a row: kept as it is"; fi
	return 0
}

run_dir() { echo "$1/$(readlink "$1/latest")"; }	# run_dir RESULTS: the latest run
run_id() { readlink "$1/latest"; }

# --- libvirt's domain logs: one per boot, with the qemu command line and
# the times qemu was started and reaped.
domain_logs() {	# domain_logs RUN-ID: this run's domain logs
	ls "$CACHE/libvirt/log/qemu/fpubench-$1-"*.log 2>/dev/null || true
}
# A line may start with the half of a message qemu was writing when it was
# killed (bench/boot/reaper.c, reaper_qemu_end), so the stamp is looked for anywhere.
dom_time() {	# dom_time LOG WHAT: epoch seconds of the "…+0000: WHAT" line
	ts=$(sed -n "s/^.*\([0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\} [0-9:.]*+0000\): $2.*/\1/p" "$1" | tail -n 1)
	[ -n "$ts" ] || die "no '$2' line in domain log '$1'"
	date -d "$ts" +%s.%N
}
logarg() {	# logarg LOG OPTION: OPTION's argument on the logged qemu command line
	sed -n -e "s/^$2 '\(.*\)' \\\\\$/\1/p" -e "s/^$2 \([^' ]*\) \\\\\$/\1/p" "$1" | head -n 1
}
# saved_spans T0 T1: "START STOP" (epoch seconds) of every qemu life in
# [T0, T1] of the restored guests' domains, which are named by their save
# (bench/boot/restore.c), not by the run, and log every boot to one file.
saved_spans() {
	python3 - "$1" "$2" "$CACHE"/libvirt/log/qemu/fpubench-saved-*.log <<'PY'
import datetime, re, sys
t0, t1 = float(sys.argv[1]), float(sys.argv[2])
stamp = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\+0000: (starting up|shutting down)")
for path in sys.argv[3:]:
    start = None
    try:
        lines = open(path, errors="replace")
    except OSError:
        continue
    for line in lines:
        m = stamp.search(line)
        if not m:
            continue
        t = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        if m.group(2) == "starting up":
            start = t
        elif start is not None:
            if t0 <= start and t <= t1:
                print("%.6f %.6f" % (start, t))
            start = None
PY
}
# dom_summary RUN-ID T0 T1: sets BOOTS, GUEST_S (sum of the qemu lifetimes),
# FIRST (first start - T0) and LAST (T1 - last reaping), over the run's own
# domains and the restored ones that lived within [T0, T1].
dom_summary() {
	BOOTS=0 GUEST_S=0 first= last=
	{ for f in $(domain_logs "$1"); do
		echo "$(dom_time "$f" "starting up") $(dom_time "$f" "shutting down")"
	  done; saved_spans "$2" "$3"; } >"$WORK/spans"
	while read -r a b; do
		BOOTS=$((BOOTS + 1))
		GUEST_S=$(calc "$GUEST_S + $b - $a")
		if [ -z "$first" ] || le "$a" "$first"; then first=$a; fi
		if [ -z "$last" ] || le "$last" "$b"; then last=$b; fi
	done <"$WORK/spans"
	[ "$BOOTS" -gt 0 ] || die "no domain logs for run '$1' in '$CACHE/libvirt/log/qemu'"
	FIRST=$(sub "$2" "$first")
	LAST=$(sub "$last" "$3")
}

# replay LOG NAME: the reference for one boot: plain qemu with the kernel,
# initramfs, cmdline, CPU and memory that libvirt gave qemu, until it exits.
# Sets SECS and CPU (qemu's user + sys).
replay() {
	cpu=$(logarg "$1" -cpu)
	mem=$(logarg "$1" -m)
	kernel=$(logarg "$1" -kernel)
	initrd=$(logarg "$1" -initrd)
	append=$(logarg "$1" -append)
	[ -n "$cpu" ] && [ -n "$mem" ] && [ -n "$kernel" ] && [ -n "$initrd" ] && [ -n "$append" ] ||
		die "cannot read the qemu command line in domain log '$1'"
	t0=$(now)
	rc=0
	/usr/bin/time -f '%U %S' -o "$LOG/$2.time" timeout "$QEMU_TIMEOUT" qemu-system-i386 -nographic -no-reboot -m "$mem" -cpu "$cpu" \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		</dev/null >"$LOG/$2.console" 2>"$LOG/$2.err" || rc=$?
	t1=$(now)
	[ "$rc" -eq 0 ] || die "direct qemu for '$1' exited $rc; see '$LOG/$2.err'"
	SECS=$(sub "$t0" "$t1")
	CPU=$(cpu_of "$LOG/$2.time")
}

# span FIRST LAST T0 T1: from FIRST's birth to LAST's mtime, if both fall in
# [T0, T1] (else another run has rewritten them since: nothing).  The bench
# makes its build logs anew for every build, so this times its builds.
span() {
	[ -e "$1" ] && [ -e "$2" ] || return 0
	b=$(stat -c %.9W "$1")
	e=$(stat -c %.9Y "$2")
	if le "$3" "$b" && le "$e" "$4"; then sub "$b" "$e"; fi
	return 0
}
# kmod_secs VARIANT T0 T1: this run's test module build (make M=), from its
# log's creation to its last line (an incremental build may leave the .ko as it was)
kmod_secs() {
	span "$BUILDS/$1/fpubench-kmod/build.log" "$BUILDS/$1/fpubench-kmod/build.log" "$2" "$3"
}

have_perf() { command -v perf >/dev/null 2>&1 && perf stat -e cpu-clock true >/dev/null 2>&1; }
# perf_profile NAME SORT COMMAND...: CPU time by SORT (comm, or dso,sym) of
# COMMAND and its children, top 12 lines, into $NOTES/NAME.
perf_profile() {
	name=$1 sort=$2
	data=$WORK/$name.perf
	shift 2
	if ! have_perf; then
		echo "(perf is not usable here: no profile)" >"$NOTES/$name"
		return 0
	fi
	run_cmd "$name" perf record -q -e cpu-clock -F 999 -o "$data" -- "$@"
	perf report -i "$data" --stdio --sort "$sort" -g none -n 2>/dev/null |
		awk -v hz=999 '/^#/ || NF == 0 { next }
			{ pct = $1; n = $2; $1 = ""; $2 = ""; sub(/^ +/, "");
			  printf "    %6s  %6.2f s  %s\n", pct, n / hz, $0 }' | head -n 12 >"$NOTES/$name"
}

echo "bench: work directory $WORK; $GUEST_RUNS runs a guest figure, $BIG_RUNS a big one" >&2
START_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
LOAD_START=$(cut -d ' ' -f 1-3 /proc/loadavg)
OTHERS_START=$(pgrep -c -f '^[^ ]*fpubench (run|test|bisect)' || true)

cells_setups() {	# cells_setups RESULTS_JSON: "CELLS SETUPS" of a run
	python3 -c 'import json, sys
cells = json.load(open(sys.argv[1]))
print(len(cells), len({c["cpu"] + ":" + (c["cmdline"] or "") for c in cells}))' "$1"
}

# --- 1. One cell: `fpubench test --cpu qemu32` (patched, every test, one
# boot) against plain qemu booting the same kernel, initramfs and cmdline.
if wants cell; then
	echo "bench: 1. one cell" >&2
	run_cmd cell-warm "$FPUBENCH" test --cpu qemu32 --results "$WORK/r-cell"
	expect_rc 0 cell-warm
	CELL_TESTS=$(cells_setups "$(run_dir "$WORK/r-cell")/results.json" | cut -d ' ' -f 1)
	i=1
	while [ "$i" -le "$GUEST_RUNS" ]; do
		warm_cmd cell "cell-$i" "$FPUBENCH" test --cpu qemu32 --results "$WORK/r-cell"
		expect_rc 0 "cell-$i"
		id=$(run_id "$WORK/r-cell")
		dom_summary "$id" "$T0" "$T1"
		put cell.ours "$SECS"
		put cell.life "$GUEST_S"
		put cell.pre "$FIRST"
		put cell.post "$LAST"
		# The same cell booted cold: its domain log is the reference's command line.
		warm_cmd cell "cell-cold-$i" "$FPUBENCH" test --no-restore --cpu qemu32 --results "$WORK/r-cell"
		expect_rc 0 "cell-cold-$i"
		id=$(run_id "$WORK/r-cell")
		dom_summary "$id" "$T0" "$T1"
		put cell.cold "$SECS"
		replay "$(domain_logs "$id")" "cell-ref-$i"
		put cell.ref "$SECS"
		grep -q '^# fpubench: done' "$LOG/cell-ref-$i.console" ||
			die "direct qemu did not finish the tests; see '$LOG/cell-ref-$i.console'"
		# A short boot, as the matrix's resumptions after a crash are: one test.
		for mode in short shortcold; do
			flag=
			[ "$mode" = short ] || flag=--no-restore
			warm_cmd cell "cell-$mode-$i" "$FPUBENCH" test $flag --cpu qemu32 --test fpu_seed \
				--results "$WORK/r-cell"
			expect_rc 0 "cell-$mode-$i"
			dom_summary "$(run_id "$WORK/r-cell")" "$T0" "$T1"
			put "cell.$mode" "$GUEST_S"
		done
		i=$((i + 1))
	done
	pairs cell.ours cell.ref cell.ratio
	pairs cell.life cell.ref cell.liferatio
	pairs cell.short cell.shortcold cell.resumed
	perf_profile cell-profile comm "$FPUBENCH" test --cpu qemu32 --results "$WORK/r-cell"
fi

# --- 2 and 7. The warm default matrix against the sum of its boots done
# one after the other with plain qemu; the peak RSS of the bench process.
if wants matrix; then
	echo "bench: 2. warm default matrix" >&2
	run_cmd matrix-warm "$FPUBENCH" run --results "$WORK/r-matrix" --history "$WORK/history.db"
	i=1
	while [ "$i" -le "$BIG_RUNS" ]; do
		HWM=child
		warm_cmd matrix "matrix-$i" /usr/bin/time -f '%M %U %S' -o "$LOG/matrix-$i.time" \
			"$FPUBENCH" run --results "$WORK/r-matrix" --history "$WORK/history.db"
		HWM=
		[ "$RC" -eq 0 ] || note matrix "- run $i exited $RC (a cell missed its expectation)"
		[ "$RC" -le 1 ] || expect_rc 0 "matrix-$i"
		id=$(run_id "$WORK/r-matrix")
		dom_summary "$id" "$T0" "$T1"
		put matrix.ours "$SECS"
		put matrix.boots "$BOOTS"
		put matrix.guest "$GUEST_S"
		put matrix.pre "$FIRST"
		put matrix.post "$LAST"
		[ ! -s "$LOG/matrix-$i.hwm" ] || put mem.hwm "$(calc "$(cat "$LOG/matrix-$i.hwm") / 1024")"
		if [ -s "$LOG/matrix-$i.time" ]; then
			put mem.rusage "$(calc "$(tail -n 1 "$LOG/matrix-$i.time" | cut -d ' ' -f 1) / 1024")"
			put matrix.cpu "$(cpu_of "$LOG/matrix-$i.time")"
		fi
		# Setups and cells grow with the matrix; figure 2b is per cell.
		cells_setups "$(run_dir "$WORK/r-matrix")/results.json" >"$LOG/matrix-$i.shape"
		put matrix.cells "$(cut -d ' ' -f 1 "$LOG/matrix-$i.shape")"
		put matrix.setups "$(cut -d ' ' -f 2 "$LOG/matrix-$i.shape")"
		# 2d: the same restored boots with plain qemu, as many at once.
		"$ROOT"/scripts/bench-restore-replay.py "$CACHE" "$(run_dir "$WORK/r-matrix")" "$T0" "$T1" \
			"$GUESTS" "$WORK/restore-replay" >"$LOG/matrix-plain-$i" ||
			die "the plain-qemu replay of run '$id' failed"
		replayed=$(cut -d ' ' -f 3 "$LOG/matrix-plain-$i")
		if [ "$replayed" -eq "$BOOTS" ]; then
			put matrix.plainrestore "$(cut -d ' ' -f 1 "$LOG/matrix-plain-$i")"
			put matrix.plaincpu "$(cut -d ' ' -f 2 "$LOG/matrix-plain-$i")"
			put matrix.plainours "$(tail -n 1 "$S/matrix.ours")"
		else
			note matrix "- run $i: plain qemu could replay $replayed of its $BOOTS boots (the others were cold or saved in the run): not in row 2d"
		fi
		# The slowest test of a passing boot, from the guest's own timing.
		awk -F'"' '/"test":/ { t = $4 } /"kernel":/ { k = $4 }
			/"duration_s":/ { if (k == "patched") { split($3, a, /[:,]/); s[t] += a[2]; n[t]++ } }
			END { for (t in s) printf "%.3f %s\n", s[t] / n[t], t }' \
			"$(run_dir "$WORK/r-matrix")/results.json" | sort -gr | head -n 1 >>"$S/matrix.slowtest"
		sum=0 cpusum=0
		# The same matrix booted cold; its domain logs are the reference's boots.
		warm_cmd matrix "matrix-cold-$i" "$FPUBENCH" run --no-restore --results "$WORK/r-matrix" \
			--history "$WORK/history.db"
		[ "$RC" -le 1 ] || expect_rc 0 "matrix-cold-$i"
		put matrix.cold "$SECS"
		id=$(run_id "$WORK/r-matrix")
		j=0
		for f in $(domain_logs "$id"); do
			j=$((j + 1))
			replay "$f" "matrix-ref-$i-$j"
			sum=$(calc "$sum + $SECS")
			cpusum=$(calc "$cpusum + $CPU")
		done
		put matrix.ref "$sum"
		put matrix.refcpu "$cpusum"
		# Plain qemu keeps its core busy: its boots need this much on JOBS cores.
		put matrix.bound "$(calc "$sum / $JOBS")"
		i=$((i + 1))
	done
	pairs matrix.ours matrix.ref matrix.ratio
	pairs matrix.ours matrix.cold matrix.restoreratio
	pairs matrix.plainours matrix.plainrestore matrix.plainratio
	pairs matrix.ref matrix.ours matrix.speedup
	pairs matrix.cpu matrix.refcpu matrix.cpuratio
	perf_profile matrix-profile comm "$FPUBENCH" run --results "$WORK/r-matrix" --history "$WORK/history.db"
fi

# --- 3. `fpubench test --patch P`, P a one-line change to core.c made
# against the tree's base, against `make bzImage` alone after the same change
# in a scratch copy of the tree (git archive of the same commit, its own O=
# directory): the cached tree and build directories are not touched.  Every
# run's P is new, so every run really rebuilds (no build id or ccache hit).
CORE=arch/x86/kernel/fpu/core.c
tag_line() { echo "static const char fpubench_bench_tag[] __used = \"$1\";"; }
make_patch() {	# make_patch TAG FILE: P, in `diff -u` form with a/ and b/
	d=$WORK/patch-src
	rm -rf "$d"
	mkdir -p "$d/a/${CORE%/*}" "$d/b/${CORE%/*}"
	git -C "$TREE" show "refs/fpubench/base:$CORE" >"$d/a/$CORE"
	{ cat "$d/a/$CORE"; tag_line "$1"; } >"$d/b/$CORE"
	rc=0
	(cd "$d" && diff -u --label "a/$CORE" --label "b/$CORE" "a/$CORE" "b/$CORE") >"$2" || rc=$?
	[ "$rc" -eq 1 ] || die "cannot make the one-line patch '$2' (diff exited $rc)"
}
REF_ENV="CCACHE_DIR=$CACHE/ccache CCACHE_READONLY=1 KBUILD_BUILD_USER=fpubench KBUILD_BUILD_HOST=fpubench KBUILD_BUILD_TIMESTAMP=2011-04-06"
ref_make() {	# ref_make TARGET: make in the scratch tree, as the bench makes (ccache read-only)
	# shellcheck disable=SC2086
	env $REF_ENV CCACHE_BASEDIR="$WORK/ref/trees/$KEY" make -C "$WORK/ref/trees/$KEY" ARCH=i386 \
		O="$WORK/ref/build/$KEY/test" -j"$JOBS" LOCALVERSION= "CC=ccache gcc" "$@"
}
ref_setup() {	# ref_setup COMMIT: the scratch tree, configured as the bench does, built once
	# The cache's layout (build/KEY/VARIANT beside trees/KEY): with CCACHE_BASEDIR
	# the same relative paths, so the full build is mostly ccache hits.  The
	# fragment is the one the bench fitted to the tree (its processor family).
	mkdir -p "$WORK/ref/trees/$KEY" "$WORK/ref/build/$KEY/test"
	git -C "$TREE" archive "$1" | tar -x -C "$WORK/ref/trees/$KEY"
	make -C "$WORK/ref/trees/$KEY" ARCH=i386 O="$WORK/ref/build/$KEY/test" tinyconfig
	"$WORK/ref/trees/$KEY/scripts/kconfig/merge_config.sh" -m -O "$WORK/ref/build/$KEY/test" \
		"$WORK/ref/build/$KEY/test/.config" "$BUILDS/test/fpubench.fragment"
	make -C "$WORK/ref/trees/$KEY" ARCH=i386 O="$WORK/ref/build/$KEY/test" olddefconfig
	# The same kernel as the bench's, or the comparison means nothing.
	grep -v '^#' "$WORK/ref/build/$KEY/test/.config" | sort >"$WORK/ref/config.ours"
	grep -v '^#' "$BUILDS/test/.config" | sort >"$WORK/ref/config.bench"
	cmp -s "$WORK/ref/config.ours" "$WORK/ref/config.bench" ||
		{ echo "bench: the scratch .config differs from '$BUILDS/test/.config'" >&2; return 1; }
	ref_make bzImage
}
stamp=$(date +%s)-$$
if wants patch; then
	echo "bench: 3. test --patch (the scratch reference tree takes a minute first)" >&2
	make_patch "$stamp-0" "$WORK/p0.diff"
	run_cmd patch-warm "$FPUBENCH" test --patch "$WORK/p0.diff" --results "$WORK/r-patch"
	expect_rc 0 patch-warm
	testcommit=$(sed -n 's/^ *"commit": "\([0-9a-f]*\)",$/\1/p' "$(run_dir "$WORK/r-patch")/results.json" | head -n 1)
	patched=$(git -C "$TREE" rev-parse "$testcommit^")
	run_cmd patch-refsetup ref_setup "$patched"
	expect_rc 0 patch-refsetup
	note patch "- the scratch tree (git archive + configure + full build, ccache read-only) took $(fmt_s "$SECS")"
	git -C "$TREE" show "$patched:$CORE" >"$WORK/core.c.patched"
	i=1
	while [ "$i" -le "$BIG_RUNS" ]; do
		make_patch "$stamp-$i" "$WORK/p$i.diff"
		run_cmd "patch-$i" "$FPUBENCH" test --patch "$WORK/p$i.diff" --results "$WORK/r-patch"
		expect_rc 0 "patch-$i"
		id=$(run_id "$WORK/r-patch")
		dom_summary "$id" "$T0" "$T1"
		put patch.ours "$SECS"
		put patch.pre "$FIRST"
		put patch.guests "$(sub "$FIRST" "$(sub "$LAST" "$SECS")")"
		put patch.boots "$BOOTS"
		make_patch "$stamp-$i-cold" "$WORK/p$i-cold.diff"
		run_cmd "patch-cold-$i" "$FPUBENCH" test --no-restore --patch "$WORK/p$i-cold.diff" --results "$WORK/r-patch"
		expect_rc 0 "patch-cold-$i"
		put patch.cold "$SECS"
		k=$(span "$BUILDS/test/build.log" "$BUILDS/test/build.log" "$T0" "$T1")
		[ -z "$k" ] || put patch.make "$k"
		k=$(kmod_secs test "$T0" "$T1")
		[ -z "$k" ] || put patch.kmod "$k"
		{ cat "$WORK/core.c.patched"; tag_line "$stamp-$i"; } >"$WORK/ref/trees/$KEY/$CORE"
		run_cmd "patch-ref-$i" ref_make bzImage
		expect_rc 0 "patch-ref-$i"
		grep -q "CC *arch/x86/kernel/fpu/core.o" "$LOG/patch-ref-$i.out" ||
			die "the reference did not recompile core.c; see '$LOG/patch-ref-$i.out'"
		put patch.ref "$SECS"
		i=$((i + 1))
	done
	pairs patch.ours patch.ref patch.ratio
	rm -rf "$WORK/ref/trees/$KEY"
fi

# --- 4. Cold `make run` (an empty cache of our own, so a cold ccache and a
# fresh libvirt root) against extract + tinyconfig + build by hand.  Once
# each: about 6 minutes apiece.
by_hand() {	# by_hand DIR: what a user does without the bench
	mkdir -p "$1/linux" "$1/build"
	tar -xf "$TARBALL" -C "$1/linux" --strip-components=1
	make -C "$1/linux" ARCH=i386 O="$1/build" tinyconfig
	"$1/linux/scripts/kconfig/merge_config.sh" -m -O "$1/build" "$1/build/.config" \
		"$BUILDS/patched/fpubench.fragment"
	make -C "$1/linux" ARCH=i386 O="$1/build" olddefconfig
	make -C "$1/linux" ARCH=i386 O="$1/build" -j"$JOBS" bzImage
}
stamp_lines() {	# prefixes every line with the time
	while IFS= read -r line; do printf '%s %s\n' "$(now)" "$line"; done
}
cold_run() {	# make run on an empty cache, its stderr stamped line by line
	{ rc=0
	  env FPUBENCH_CACHE="$WORK/cold" make -C "$ROOT" run 2>&1 >"$LOG/cold.stdout" || rc=$?
	  echo "$rc" >"$WORK/cold.rc"; } | stamp_lines
	return "$(cat "$WORK/cold.rc")"
}
if wants cold; then
	echo "bench: 4. cold make run (about 12 minutes)" >&2
	run_cmd cold cold_run
	expect_rc 0 cold
	put cold.ours "$SECS"
	t0=$T0
	# The phases: every line but the progress lines, and of each kind of
	# progress line (extracting, building VARIANT, booting) the first and the last.
	awk '$2 == "extracting:" || $2 == "booting:" { k = $2 } $2 == "building:" { k = $2 " " $3 }
	     k != "" { if (!(k in first)) first[k] = $0; last[k] = $0; k = ""; next } { print }
	     END { for (k in first) { print first[k]; if (last[k] != first[k]) print last[k] } }' \
		"$LOG/cold.out" |
		sort -g | awk -v t0="$t0" 'NF > 1 { printf "    %7.1f s  %s\n", $1 - t0, substr($0, index($0, " ") + 1) }' |
		grep -v '^ *[0-9.]* s  *$' | head -n 40 >"$NOTES/cold-phases"
	printf '    %7.1f s  (end)\n' "$SECS" >>"$NOTES/cold-phases"
	rm -rf "$WORK/cold"
	run_cmd cold-ref by_hand "$WORK/hand"
	expect_rc 0 cold-ref
	put cold.ref "$SECS"
	rm -rf "$WORK/hand"
	pairs cold.ours cold.ref cold.ratio
fi

# --- 5. Bisect over a 64-commit synthetic history in the cached tree
# (scripts/make-history.sh, refs of our own), against ceil(log2 64) = 6
# times (an incremental build + one cell), those two from figures 3 and 1.
if wants bisect; then
	echo "bench: 5. bisect over 64 commits" >&2
	sh "$ROOT/scripts/make-history.sh" "$TREE" 64 "$HISTORY_REF"
	culprit=$(git -C "$TREE" rev-parse "$HISTORY_REF-culprit")
	i=1
	while [ "$i" -le "$BIG_RUNS" ]; do
		run_cmd "bisect-$i" "$FPUBENCH" bisect --repo "$TREE" --good refs/fpubench/base \
			--bad "$HISTORY_REF" --cpu "$BISECT_CPU" --test fpu_seed --results "$WORK/r-bisect"
		expect_rc 0 "bisect-$i"
		j=$(run_dir "$WORK/r-bisect")/bisect.json
		grep -q "\"culprit\": \"$culprit\"" "$j" || die "bisect $i did not name $culprit; see '$j'"
		put bisect.ours "$SECS"
		put bisect.steps "$(sed -n 's/.*"step_count": \([0-9]*\).*/\1/p' "$j")"
		run_cmd "bisect-cold-$i" "$FPUBENCH" bisect --no-restore --repo "$TREE" --good refs/fpubench/base \
			--bad "$HISTORY_REF" --cpu "$BISECT_CPU" --test fpu_seed --results "$WORK/r-bisect"
		expect_rc 0 "bisect-cold-$i"
		put bisect.cold "$SECS"
		# Where the time went: the ends, the steps and the verification.
		python3 - "$j" >>"$S/bisect.split" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ends = [d["good"], d["bad"]]
# The verification reuses the verdicts of commits the bisection tested: count only its own.
tested = {x["commit"] for x in d["steps"] + ends}
ver = [v["step"] for v in d.get("verification", {}).values()
       if isinstance(v, dict) and "step" in v and v["step"]["commit"] not in tested]
t = lambda xs: sum((x.get("build_s") or 0) + (x.get("test_s") or 0) for x in xs)
bad = [x["test_s"] for x in d["steps"] if x["verdict"] == "bad"]
good = [x["test_s"] for x in d["steps"] if x["verdict"] == "good"]
b = sorted(x["build_s"] for x in d["steps"])
print("%.1f %.1f %.1f %.1f %.1f %.1f" % (t(ends), t(d["steps"]), t(ver), b[len(b) // 2],
      sorted(good)[len(good) // 2] if good else 0, sorted(bad)[len(bad) // 2] if bad else 0))
PY
		i=$((i + 1))
	done
fi

# --- 6. Provenance over a generated repository of 1,500 commits
# (scripts/bench-provenance-repo.sh) against git's trailers and patch-ids.
# What git alone gives, trailers and patch-ids; a script, so /usr/bin/time can run it.
GIT_REFERENCE='git -C "$1" log --format="%(trailers)" bench-base..main >/dev/null &&
git -C "$1" log -p bench-base..main | git -C "$1" patch-id --stable >"$2"'
if wants provenance; then
	echo "bench: 6. provenance over $PROV_COMMITS commits" >&2
	sh "$ROOT/scripts/bench-provenance-repo.sh" "$WORK/prov" "$PROV_COMMITS"
	i=1
	while [ "$i" -le "$GUEST_RUNS" ]; do
		run_cmd "prov-$i" /usr/bin/time -f '%U %S' -o "$LOG/prov-$i.time" \
			"$FPUBENCH" provenance --repo "$WORK/prov" bench-base..main
		expect_rc 0 "prov-$i"
		put prov.ours "$SECS"
		put prov.ours.cpu "$(cpu_of "$LOG/prov-$i.time")"
		run_cmd "prov-ref-$i" /usr/bin/time -f '%U %S' -o "$LOG/prov-ref-$i.time" \
			sh -c "$GIT_REFERENCE" sh "$WORK/prov" "$WORK/git-patch-ids"
		expect_rc 0 "prov-ref-$i"
		put prov.ref "$SECS"
		put prov.ref.cpu "$(cpu_of "$LOG/prov-ref-$i.time")"
		i=$((i + 1))
	done
	pairs prov.ours prov.ref prov.ratio
	pairs prov.ours.cpu prov.ref.cpu prov.cpuratio
	# The same answers: every patch-id agrees with git's.
	sed -n 's/^ *Patch-id: *\([0-9a-f]*\)$/\1/p' "$LOG/prov-1.out" | sort >"$WORK/ours-ids"
	cut -d ' ' -f 1 "$WORK/git-patch-ids" | sort >"$WORK/git-ids"
	PROV_AGREE=$(comm -12 "$WORK/ours-ids" "$WORK/git-ids" | wc -l)
	PROV_GIT=$(wc -l <"$WORK/git-ids")
	perf_profile prov-profile dso "$FPUBENCH" provenance --repo "$WORK/prov" bench-base..main
	perf_profile prov-profile-git dso sh -c "$GIT_REFERENCE" sh "$WORK/prov" "$WORK/git-patch-ids"
fi

# --- 8. Generated mutants (tests/mutants/README.md): what one costs, the
# compile check and, for one that is not dropped there, `fpubench test
# --patch` on the FSAVE setups first; and what the whole generated set would
# take at those costs.  A fixed sample (seed "bench", judged again each
# time) in a store of our own, with the hand-written mutants left out.
if wants mutant; then
	echo "bench: 8. $MUT_SAMPLE generated mutants" >&2
	run_cmd mutant env MUTANTS= SAMPLE="$MUT_SAMPLE" SEED=bench RETEST=all \
		MUTANTS_DB="$WORK/mutants.db" sh "$ROOT/scripts/mutants.sh" --generate "$FPUBENCH"
	expect_rc 0 mutant
	put mutant.run "$SECS"
	# One line a mutant: "ID SECONDS s  VERDICT [DETAIL]".
	awk '$3 == "s" && ($4 == "killed" || $4 == "survived") { print $2 }' "$LOG/mutant.out" >>"$S/mutant.booted"
	awk '$3 == "s" && ($4 == "equivalent" || $4 == "duplicate" || $4 == "unbuilt") { print $2 }' \
		"$LOG/mutant.out" >>"$S/mutant.dropped"
	MUT_GENERATED=$(sed -n 's/^mutants: generated \([0-9]*\).*/\1/p' "$LOG/mutant.out")
	MUT_REACHED=$(sed -n 's/^mutants: generated [0-9]*, \([0-9]*\) on lines.*/\1/p' "$LOG/mutant.out")
	MUT_REACHED=${MUT_REACHED:-$MUT_GENERATED}
	MUT_VERDICTS=$(awk '$3 == "s" { n[$4]++ } END { for (v in n) printf "%s %d, ", v, n[v] }' \
		"$LOG/mutant.out" | sed 's/, $//')
fi

# --- 8c. Stopping at the first killing cell (`test --fail-fast`): one
# generated mutant's cost, compile check, incremental build and boots, as
# mutants.sh runs it (MUTANTS_FAIL_FAST=1) and with every cell run (=0), in
# turns (1 0 0 1: the second run of a kernel parks and restores its guests
# where the first booted cold), on the store's first K killed and S
# surviving reached mutants by id, judged again in a copy of the store; and
# the whole generated set at those costs, in the shares the store's
# outcomes give.
if wants failfast; then
	echo "bench: 8c. generated mutants with and without --fail-fast" >&2
	[ -s "$CACHE/mutants.db" ] || die "no mutant store '$CACHE/mutants.db' (scripts/mutants.sh --generate)"
	cp "$CACHE/mutants.db" "$WORK/ff.db"
	# shellcheck disable=SC2086 # "K S"
	python3 - "$WORK/ff.db" $FF_MUTANTS >"$WORK/ff.ids" 2>"$S/ff.shares" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tree = "(SELECT tree FROM mutants ORDER BY last_seen DESC LIMIT 1)"
latest = db.execute("""
    SELECT m.id, o.outcome, o.seconds FROM mutants m JOIN outcomes o ON o.mutant_id = m.id
    WHERE m.reached = 1 AND m.tree = """ + tree + """
      AND o.rowid = (SELECT rowid FROM outcomes WHERE mutant_id = m.id ORDER BY at DESC, rowid DESC
                     LIMIT 1)
    ORDER BY m.id""").fetchall()
for outcome, n in (("killed", int(sys.argv[2])), ("survived", int(sys.argv[3]))):
    for i in [i for i, o, _ in latest if o == outcome][:n]:
        print(i)
# The judged reached mutants' shares: killed, survived (and error), dropped before a boot
# (equivalent, duplicate, unbuilt: their cost, the compile check or a failed build, is the
# same with --fail-fast, so the store's mean stands for it).
k = sum(o == "killed" for _, o, _ in latest)
s = sum(o in ("survived", "error") for _, o, _ in latest)
dropped = [t or 0 for _, o, t in latest if o in ("equivalent", "duplicate", "unbuilt")]
reached = db.execute("SELECT count(*) FROM mutants WHERE reached = 1 AND tree = " + tree).fetchone()[0]
print(k, s, len(dropped), reached, "%.1f" % (sum(dropped) / len(dropped) if dropped else 1),
      file=sys.stderr)
PY
	i=1
	for mode in $FF_MODES; do
		run_cmd "ff-$i" env MUTANTS= RETEST=all MUTANTS_IDS="$WORK/ff.ids" MUTANTS_DB="$WORK/ff.db" \
			MUTANTS_FAIL_FAST="$mode" sh "$ROOT/scripts/mutants.sh" --generate "$FPUBENCH"
		# 1: a listed mutant survived, as the survivors do.
		[ "$RC" -le 1 ] || die "8c: scripts/mutants.sh exited $RC (see $LOG/ff-$i.out)"
		for v in killed survived; do
			awk -v v="$v" '$3 == "s" && $4 == v { print $2 }' "$LOG/ff-$i.out" >>"$S/ff.$mode.$v"
		done
		i=$((i + 1))
	done
fi

# 9: one boot (15 cells) through lava-run, and a server's [lab] with
# BENCH_LAB_CONFIG and BENCH_LAB, beside the same boot under libvirt
# (scripts/bench-lab.sh): "NAME median spread ratio" lines.
if wants lab; then
	echo "bench: 9. a boot through a LAVA lab" >&2
	sh "$ROOT/scripts/bench-lab.sh" "$FPUBENCH" "$BIG_RUNS" "$WORK/lab" >"$S/lab.lines"
fi

LOAD_END=$(cut -d ' ' -f 1-3 /proc/loadavg)
END_DATE=$(date -u '+%Y-%m-%d %H:%M UTC')

# ---------------------------------------------------------------- the table
ROWS=$WORK/rows
: >"$ROWS"
row() {	# row FIGURE OURS REFERENCE RATIO TARGET STATUS
	printf '| %s | %s | %s | %s | %s | %s |\n' "$@" >>"$ROWS"
}
status() {	# status VALUE LIMIT UNIT: "met" or how far it is
	[ "$1" = n/a ] && { echo "not measured"; return 0; }
	if le "$1" "$2"; then echo "met"; else
		awk -v v="$1" -v l="$2" -v u="$3" 'BEGIN { printf "missed by %.2f%s (%.0f %%)\n", v - l, u, (v - l) * 100 / l }'
	fi
}

if wants cell; then
	o=$(median cell.ours) r=$(median cell.ref) q=$(median cell.ratio)
	row "1. one cell: \`fpubench test --cpu qemu32\`, whole invocation" "$(fmt_s "$o")" \
		"$(fmt_s "$r") plain qemu" "$q" "ratio ≤ 1.10" "$(status "$q" 1.10 "")"
	l=$(median cell.life) lq=$(median cell.liferatio)
	row "1b. the same cell, libvirt domain only (qemu started → reaped)" "$(fmt_s "$l")" \
		"$(fmt_s "$r") plain qemu" "$lq" "ratio ≤ 1.10" "$(status "$lq" 1.10 "")"
	row "1c. fpubench around the domain (before + after)" \
		"$(fmt_s "$(calc "$(median cell.pre) + $(median cell.post)")")" "—" "—" "—" "see gaps"
	row "1d. the same cell with \`--no-restore\` (every guest cold), whole invocation" \
		"$(fmt_s "$(median cell.cold)")" "$(fmt_s "$r") plain qemu" "—" "—" "—"
	rq=$(median cell.resumed)
	row "1e. a resumed boot against a cold one: \`--test fpu_seed\`, domain lives, restored / \`--no-restore\`" \
		"$(fmt_s "$(median cell.short)")" "$(fmt_s "$(median cell.shortcold)") cold domain" "$rq" "ratio ≤ 0.45" \
		"$(status "$rq" 0.45 "")"
fi
if wants matrix; then
	o=$(median matrix.ours) r=$(median matrix.ref)
	cells=$(median matrix.cells | cut -d. -f1)
	row "2. warm default matrix (2 variants × $(median matrix.setups | cut -d. -f1) setups, $cells cells, $(median matrix.boots | cut -d. -f1) boots)" \
		"$(fmt_s "$o") wall" "$(fmt_s "$r") sum of direct-qemu boots" \
		"$(median matrix.ratio) (speed-up $(median matrix.speedup)×)" "wall ≤ 10 s" "$(status "$o" 10 " s")"
	row "2c. the same matrix with \`--no-restore\`" "$(fmt_s "$(median matrix.cold)") wall" \
		"$(fmt_s "$r") sum of direct-qemu boots" "$(median matrix.restoreratio) restored / cold" "—" "—"
	pr=$(median matrix.plainrestore)
	row "2d. the same restored boots with plain qemu, $GUESTS at once (no libvirt, no bench)" \
		"$(fmt_s "$o") wall" "$(fmt_s "$pr") wall, $(fmt_s "$(median matrix.plaincpu)") of qemu CPU" \
		"$(median matrix.plainratio)" "—" \
		"$(if le 10 "$pr"; then echo "plain qemu alone is over 10 s"; else echo "—"; fi)"
	# The 10 s target was set for 7 setups and 15 tests (210 cells): per cell it is 0.0476 s.
	pc=$(calc "$o / $cells")
	row "2b. the same matrix per cell (wall / cells)" "$pc s" "—" "—" "≤ 0.0476 s (10 s / 210 cells)" \
		"$(status "$pc" 0.0476 " s")"
	m=$(median mem.hwm)
	mx=$(sort -g "$S/mem.hwm" 2>/dev/null | tail -n 1)
	row "7. peak memory of the bench process during the matrix (VmHWM)" \
		"$(awk -v a="$m" -v b="${mx:-0}" 'BEGIN { printf "%.1f MB (max %.1f)", a, b }')" "—" "—" "≤ 100 MB" \
		"$(status "${mx:-n/a}" 100 " MB")"
	# The saved guests (bench/boot/saved_guest.h) kept to SAVED_STORE_MAX_BYTES, 1 GiB.
	sv=$(du -sm "$CACHE/saves" 2>/dev/null | cut -f 1)
	row "7b. the cache's saved guests on disk after the figures ($(ls "$CACHE/saves" 2>/dev/null | wc -l) saves)" \
		"${sv:-0} MB" "—" "—" "≤ 1024 MB (the store's limit)" "$(status "${sv:-0}" 1024 " MB")"
fi
if wants patch; then
	o=$(median patch.ours) r=$(median patch.ref)
	row "3. \`fpubench test --patch P\` (one-line change to core.c, 7 setups)" "$(fmt_s "$o")" \
		"$(fmt_s "$r") \`make bzImage\`" "$(median patch.ratio)" "wall ≤ 12 s" "$(status "$o" 12 " s")"
	row "3b. the same with \`--no-restore\`" "$(fmt_s "$(median patch.cold)")" "—" "—" "—" "—"
fi
if wants cold; then
	o=$(median cold.ours) r=$(median cold.ref)
	row "4. cold \`make run\` (empty cache)" "$(fmt_s "$o")" "$(fmt_s "$r") extract + tinyconfig + build" \
		"$(median cold.ratio)" "≤ 360 s" "$(status "$o" 360 " s")"
else
	row "4. cold \`make run\` (empty cache)" "—" "—" "—" "≤ 360 s" "not measured (quick mode)"
fi
if wants bisect; then
	o=$(median bisect.ours) st=$(median bisect.steps | cut -d. -f1)
	bref=n/a bq=n/a
	if [ -s "$S/patch.ref" ] && [ -s "$S/cell.ref" ]; then
		bref=$(calc "6 * ($(median patch.ref) + $(median cell.ref))")
		bq=$(calc "$o / $bref")
	fi
	stat_steps=$(status "$st" 8 " steps")
	stat_wall=$(status "$o" 90 " s")
	row "5. bisect, 64-commit synthetic history" "$st steps, $(fmt_s "$o")" \
		"6 steps, $(fmt_s "$bref") = 6 × (build + cell)" "$bq" "steps ≤ 8, wall ≤ 90 s" \
		"steps: $stat_steps; wall: $stat_wall"
	row "5b. the same bisect with \`--no-restore\`" "$(fmt_s "$(median bisect.cold)")" "—" "—" "—" "—"
fi
if wants provenance; then
	o=$(median prov.ours) r=$(median prov.ref) q=$(median prov.ratio)
	row "6. provenance, $PROV_COMMITS commits (trailers + patch-ids)" "$(fmt_s "$o")" \
		"$(fmt_s "$r") git log + git patch-id" "$q" "ratio ≤ 1.0" "$(status "$q" 1.0 "")"
fi
if wants lab; then
	v=$(awk '$1 == "libvirt" { print $2 }' "$S/lab.lines")
	while read -r name med spread ratio; do
		[ "$name" = libvirt ] && continue
		row "9. one boot of 15 cells through a LAVA lab ($name), whole \`fpubench test\`" \
			"$(fmt_s "$med") ($spread)" "$(fmt_s "$v") libvirt" "$ratio" "—" "measured"
	done <"$S/lab.lines"
fi

if wants mutant; then
	b=$(median mutant.booted) d=$(median mutant.dropped)
	nb=$(count mutant.booted) nd=$(count mutant.dropped)
	[ "$b" != n/a ] || b=0
	[ "$d" != n/a ] || d=0
	# The whole set at the sample's costs and its share of mutants dropped before a build.
	whole=n/a
	[ $((nb + nd)) -eq 0 ] || whole=$(calc "$MUT_REACHED * ($nb * $b + $nd * $d) / ($nb + $nd)")
	row "8. one generated mutant: compile check, then \`test --patch\` (FSAVE setups first)" \
		"$(fmt_s "$b") booted (n = $nb), $(fmt_s "$d") dropped by the compile check (n = $nd)" \
		"—" "—" "—" "see 8b"
	row "8b. every generated mutant ($MUT_REACHED), at those costs" \
		"$(awk -v s="$whole" 'BEGIN { if (s == "n/a") print s; else printf "%.1f h\n", s / 3600 }')" \
		"—" "—" "≤ 10 h (overnight)" "$(status "$whole" 36000 " s")"
fi

if wants failfast; then
	read -r FF_K FF_S FF_D FF_REACHED ffd <"$S/ff.shares"
	ffk1=$(median ff.1.killed) ffk0=$(median ff.0.killed) ffs1=$(median ff.1.survived) ffs0=$(median ff.0.survived)
	# A sum over the set: the sample's means, not its medians (a kill by timeouts is long).
	mk1=$(mean ff.1.killed) mk0=$(mean ff.0.killed) ms1=$(mean ff.1.survived) ms0=$(mean ff.0.survived)
	# A sample whose survivors were killed since has no survivor's figure: n/a, not a guess.
	ratio() { case "$1$2" in *n/a*) echo n/a ;; *) calc "$1 / $2" ;; esac; }
	hours() { case "$1" in *n/a*) echo n/a ;; *) awk -v s="$1" 'BEGIN { printf "%.1f h\n", s / 3600 }' ;; esac; }
	row "8c. one killed generated mutant: compile check, build, \`test --patch --fail-fast\`" \
		"$(fmt_s "$ffk1") (n = $(count ff.1.killed))" "$(fmt_s "$ffk0") every cell" \
		"$(ratio "$ffk1" "$ffk0")" "—" "measured"
	row "8d. one surviving generated mutant, the same" "$(fmt_s "$ffs1") (n = $(count ff.1.survived))" \
		"$(fmt_s "$ffs0") every cell" "$(ratio "$ffs1" "$ffs0")" "—" "measured"
	ffn=$((FF_K + FF_S + FF_D))
	ffwhole1=n/a ffwhole0=n/a
	case "$mk1 $mk0 $ms1 $ms0" in
	*n/a*)	;;
	*)	ffwhole1=$(calc "$FF_REACHED * ($FF_K * $mk1 + $FF_S * $ms1 + $FF_D * $ffd) / $ffn")
		ffwhole0=$(calc "$FF_REACHED * ($FF_K * $mk0 + $FF_S * $ms0 + $FF_D * $ffd) / $ffn") ;;
	esac
	row "8e. the whole generated set ($FF_REACHED reached mutants) at the costs of 8c and 8d" \
		"$(hours "$ffwhole1")" "$(hours "$ffwhole0") every cell" "$(ratio "$ffwhole1" "$ffwhole0")" \
		"≤ 10 h (overnight)" "$(status "$ffwhole1" 36000 " s")"
elif [ -n "$NO_FF" ]; then
	row "8c–8e. generated mutants with and without \`--fail-fast\`" "not measured: $NO_FF" \
		"—" "—" "≤ 10 h (overnight)" "not measured"
fi

TABLE=$WORK/table
{
	echo "| figure | ours | reference | ratio | target | status |"
	echo "|---|---|---|---|---|---|"
	cat "$ROWS"
} >"$TABLE"

# ------------------------------------------------------------- the report
shared=no
if [ "${OTHERS_START:-0}" -gt 0 ] || ! le "$(echo "$LOAD_START" | cut -d ' ' -f 1)" 0.5; then
	shared="yes: load average $LOAD_START at the start and $LOAD_END at the end; other fpubench processes at the start: $OTHERS_START; the cache was busy $LOCK_RETRIES times (retried after 5 s)"
fi
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mem_total=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
qemu_version=$(qemu-system-i386 --version | head -n 1)
mode="full: $GUEST_RUNS runs of a guest figure, $BIG_RUNS of a big one, the cold run once"
[ "$QUICK" = 1 ] && mode="quick (BENCH_QUICK=1): 2 runs each, no cold run: not a measurement"

section() { [ -s "$NOTES/$1" ] && cat "$NOTES/$1"; return 0; }
zlib_s() { awk '/libz/ { print $2; exit }' "$NOTES/$1" 2>/dev/null || true; }
nrun() { echo "n = $(count "$1"), $(spread "$1") s"; }

TMP=$OUT.tmp.$$
KEEP_MARK='<!-- the part make bench writes ends here -->'
mkdir -p "$(dirname "$OUT")"
{
	echo "# fpubench benchmark results"
	echo
	echo "Written by \`make bench\` (scripts/bench.sh) from $START_DATE to $END_DATE."
	echo "Generated: each \`make bench\` rewrites this file down to the line \"End of the part"
	echo "\`make bench\` writes\", and keeps what follows it (records of other measurements, each"
	echo "saying how it was made)."
	echo
	echo "- Machine: $JOBS cores, $cpu_model, $mem_total, Linux $(uname -r); $qemu_version, TCG."
	echo "- Shared with other work: $shared."
	echo "- Mode: $mode."
	echo "- Medians; a ratio is the median of the pair-by-pair ratios of runs done in"
	echo "  alternating order (ours, reference, ours, ...)."
	echo
	cat "$TABLE"
	echo
	echo "## How each figure is measured"
	if wants cell; then
		cat <<EOF

**1. One cell.** Ours: \`fpubench test --cpu qemu32\`, timed from exec to exit: the cache
lock and open, the series (already applied), the build-id check (no build), the payload
(the selftests and the test module are built once per kernel build id: no build here), the
initramfs, one boot through libvirt's embedded driver with all $CELL_TESTS tests (restored
from the guest that the first, unmeasured run saved at /init), the verdicts and
results.json. The reference replays the same boot with plain \`qemu-system-i386 -nographic
-no-reboot\` and the \`-kernel\`, \`-initrd\`, \`-append\`, \`-cpu\` and \`-m\` that libvirt gave
qemu (read from the domain log), until qemu exits, and checks that the tests finished.
Row 1b is the domain's life from libvirt's domain log ("starting up" to "shutting down",
qemu started to qemu reaped). Ours $(nrun cell.ours); domain $(nrun cell.life); plain qemu
$(nrun cell.ref). Before the domain: $(fmt_s "$(median cell.pre)"); after: $(fmt_s "$(median cell.post)").
EOF
		section cell
	fi
	if wants matrix; then
		cat <<EOF

**2. Warm default matrix.** Ours: \`fpubench run\` with nothing to rebuild (private
\`--results\` and \`--history\`), timed from exec to exit, $GUESTS guests at once (the default
on $JOBS cores). It boots
$(median matrix.boots | cut -d. -f1) guests: $((2 * $(median matrix.setups | cut -d. -f1))) (variant, setup) boots plus one more after each
crash the "unpatched" kernel is expected to have on its FSAVE setups. The reference
replays every one of those boots with plain qemu (as in 1), one after the other, and
sums them. Speed-up = that sum / our wall. Ours $(nrun matrix.ours); reference
$(nrun matrix.ref). Plain qemu keeps a core busy, so its boots alone need at least
$(fmt_s "$(median matrix.bound)") on $JOBS cores. The domains' lives add up to $(fmt_s "$(median matrix.guest)"):
a domain keeps its core only about half busy, hence $GUESTS at once. The first
domain starts $(fmt_s "$(median matrix.pre)") after exec, and the process exits
$(fmt_s "$(median matrix.post)") after the last one is reaped.
Row 2d replays the restored run's own boots right after it with plain qemu
(scripts/bench-restore-replay.py): the argv libvirt logged for each, its descriptors
replaced by files, the same save image (after libvirt's header, as \`-incoming fd:N\`),
\`cont\` once it is loaded, and the line the bench gives a restored guest with that boot's
start index; $GUESTS at once. It is what qemu alone needs for these boots here, with no
libvirt and no bench: $(nrun matrix.plainrestore), $(fmt_s "$(median matrix.plaincpu)") of qemu CPU.

**7. Peak memory.** The bench process's own VmHWM from /proc/PID/status, sampled every
0.1 s during each matrix run ($(nrun mem.hwm | sed 's/ s$/ MB/')). For comparison,
\`/usr/bin/time\`'s maximum RSS of the same runs is $(median mem.rusage) MB: it is
getrusage's, which counts the qemu processes the bench reaps as a subreaper, so it
measures qemu, not the bench.
EOF
		section matrix
	fi
	if wants patch; then
		cat <<EOF

**3. \`fpubench test --patch P\`.** P appends one line
(\`static const char fpubench_bench_tag[] __used = "…";\`) to $CORE, made with
\`diff -u\` against refs/fpubench/base; every run's P is new, so each run applies it,
checks the commit out, rebuilds for real (no build-id or ccache hit), builds the module
and the initramfs, and boots the 6 default setups ($(median patch.boots | cut -d. -f1) boots). Timed
from exec to exit: $(nrun patch.ours); of it $(fmt_s "$(median patch.pre)") before the
first guest (of which its kernel build, \`make bzImage modules\` timed from its build
log, $(fmt_s "$(median patch.make)"), and the test module $(fmt_s "$(median patch.kmod)")) and
$(fmt_s "$(median patch.guests)") of guests. The reference is
\`make bzImage\` alone after the same change to $CORE, in a scratch copy of the tree
(\`git archive\` of the same commit, its own O= directory built once beforehand, the same
make variables and ccache, read-only): $(nrun patch.ref).
EOF
		section patch
	fi
	if wants cold; then
		cat <<EOF

**4. Cold \`make run\`.** Ours: \`FPUBENCH_CACHE=<empty dir> make run\` (packages
installed, the bench built): extract, commit the tree, configure, two builds with a cold
ccache, a fresh libvirt root, the matrix. The reference, by hand: \`tar -xf\`,
\`make tinyconfig\`, \`merge_config.sh\` with patches/fpu.config, \`olddefconfig\`,
\`make -j$JOBS bzImage\` (no ccache). Once each. Where ours spent its time (stderr lines,
stamped):

\`\`\`
$(section cold-phases)
\`\`\`
EOF
	fi
	if wants bisect; then
		split=$(sort -g "$S/bisect.split" | awk '{ for (i = 1; i <= NF; i++) s[i] += $i } END { for (i = 1; i <= NF; i++) printf "%.1f ", s[i] / NR }')
		set -- $split
		cat <<EOF

**5. Bisect.** \`scripts/make-history.sh\` makes $HISTORY_REF: 64 commits on
refs/fpubench/base, the fsave regression in the middle, a commit that does not build
right after it, fixed by the next. Ours: \`fpubench bisect --good refs/fpubench/base
--bad $HISTORY_REF --cpu $BISECT_CPU --test fpu_seed\` in the cached tree, from exec
to exit, culprit checked: $(nrun bisect.ours), steps $(spread bisect.steps). It includes
checking both ends and the verification (parent, culprit, revert). From bisect.json,
on average: the ends ${1:-?} s, the steps ${2:-?} s, the verification ${3:-?} s; one
step's build ${4:-?} s, a good step's boot ${5:-?} s, a bad step's boots ${6:-?} s. The
reference is computed, not run: ceil(log2 64) = 6 × (figure 3's incremental
\`make bzImage\` + figure 1's plain-qemu cell).
EOF
	fi
	if wants provenance; then
		cat <<EOF

**6. Provenance.** \`scripts/bench-provenance-repo.sh\` makes a repository of
$PROV_COMMITS linear commits on 400 C files (1–5 files and 1–4 hunks a commit, some
added, renamed and deleted files, kernel-style trailers: Signed-off-by chains,
Reviewed-by, Link in lore, patch.msgid.link and lkml forms, Fixes, Cc: stable,
Reported-by + Closes, Message-ID, Change-Id) with \`git fast-import\`. Ours:
\`fpubench provenance --repo R bench-base..main\` (text to a file): $(nrun prov.ours).
The reference: \`git log --format='%(trailers)'\` plus \`git log -p | git patch-id
--stable\` over the same range: $(nrun prov.ref). CPU time (user + sys, children
included): ours $(median prov.ours.cpu) s, git $(median prov.ref.cpu) s, ratio $(median prov.cpuratio).
Patch-ids agreeing with git's: ${PROV_AGREE:-?} of ${PROV_GIT:-?}.
EOF
	fi

	if wants mutant; then
		cat <<EOF

**8. Generated mutants.** \`MUTANTS= SAMPLE=$MUT_SAMPLE SEED=bench RETEST=all
scripts/mutants.sh --generate\` with a store of its own: the pristine check, the
generation ($MUT_GENERATED mutants of the x87 code; $MUT_REACHED on reached lines, all of
them when no coverage file is given), then each mutant of the fixed sample, timed by the
script from its compile check to its verdict: ${MUT_VERDICTS:-none}. A booted mutant costs
what figure 3 measures (an incremental build of one file, the module, the boots), here on
the FSAVE setups and on the FXSR ones only when the FSAVE ones do not kill it; an
equivalent, duplicate or unbuilt one costs its compile check only. The whole run took
$(fmt_s "$(median mutant.run)"). Row 8b multiplies the reached mutants by the sample's mean cost.
EOF
	fi
	if wants failfast; then
		cat <<EOF

**8c–8e. Stopping at the first killing cell.** \`MUTANTS= RETEST=all MUTANTS_IDS=F
MUTANTS_FAIL_FAST=1 scripts/mutants.sh --generate\` (each mutant's \`test --patch\` with
\`--fail-fast\`, as the script runs them) and the same with \`MUTANTS_FAIL_FAST=0\` (every
cell), in the order $FF_MODES, on the store's first $(echo "$FF_MUTANTS" | cut -d ' ' -f 1)
killed and $(echo "$FF_MUTANTS" | cut -d ' ' -f 2) surviving reached mutants by id, each
timed by the script from its compile check to its verdict (whole seconds): killed
$(nrun ff.1.killed) with, $(nrun ff.0.killed) without; survived $(nrun ff.1.survived) with,
$(nrun ff.0.survived) without. Row 8e takes the sample's means (killed $(fmt_s "$mk1") with,
$(fmt_s "$mk0") without; survived $(fmt_s "$ms1") and $(fmt_s "$ms0")) in the shares of
the store's judged reached mutants ($FF_K killed, $FF_S survived or error, $FF_D dropped
before a boot at the store's mean of $(fmt_s "$ffd")) over its $FF_REACHED reached
mutants, all setups of each group (no coverage cut).
EOF
	fi
	echo
	echo "## Gaps: profiles and leads"
	gaps=0
	if wants cell && ! le "$(median cell.ratio)" 1.10; then
		gaps=1
		pre=$(median cell.pre) post=$(median cell.post)
		cat <<EOF

**1. One cell** is $(median cell.ratio) × plain qemu. Wall: $(fmt_s "$pre") before the domain
starts, $(fmt_s "$(median cell.life)") of domain ($(median cell.liferatio) × plain qemu), $(fmt_s "$post")
after. CPU by command (\`perf record -e cpu-clock\`, one more run, children included):

\`\`\`
$(section cell-profile)
\`\`\`

The domain itself is close to plain qemu since the bench ends and reaps qemu on the
guest's shutdown event, so that libvirt's stop mostly skips the 200 ms it sleeps in
virProcessKillPainfully (bench/OPTIMISATIONS.md, 6). What is left is the bench around
the domain, a fixed cost that a faster machine makes a larger share. Timed step by step
on 2026-12-05 (bench/OPTIMISATIONS.md, "Leads not taken"): the process start with its 63
shared libraries about 25 ms, libgit2's initialisation 7 ms (mbedTLS loads the CA
certificates), the series, build-id and provenance checks 8 ms, the embedded driver's
connection 19 ms and its CPU model list 7 ms, the payload and initramfs 4 ms, then
libvirt's own domain start. The connection cannot start before the cache lock is held,
so overlapping it with the rest would hide only about 12 ms.
EOF
	fi
	if wants matrix && ! le "$(median matrix.ours)" 10; then
		gaps=1
		cat <<EOF

**2. Warm matrix** takes $(fmt_s "$(median matrix.ours)"), $(calc "$(median matrix.ours) - 10") s over 10 s.
Plain qemu restoring the same saves, with no libvirt and no bench, takes $(fmt_s "$(median matrix.plainrestore)") (row 2d).
Plain qemu's $(median matrix.boots | cut -d. -f1) boots need $(fmt_s "$(median matrix.bound)") on $JOBS cores: the target is
that close to what the guests alone take. The matrix is CPU-bound: its processes use
$(fmt_s "$(median matrix.cpu)") of CPU (user + sys, qemu included), $(median matrix.cpuratio) × the $(fmt_s "$(median matrix.refcpu)") of the
plain boots, and $(fmt_s "$(median matrix.cpu)") on $JOBS cores cannot take less than $(fmt_s "$(calc "$(median matrix.cpu) / $JOBS")"). The first
domain starts $(fmt_s "$(median matrix.pre)") after exec and the process exits $(fmt_s "$(median matrix.post)") after the last is
reaped. CPU by command (\`perf record -e cpu-clock\`, one more run, children included):

\`\`\`
$(section matrix-profile)
\`\`\`

"CPU 0/TCG" is the guests' own work; it is more than the plain boots' because $GUESTS
guests share $JOBS cores and their caches (fewer at once was measured as slower or no
faster: bench/OPTIMISATIONS.md, 3). "qemu-system-i38" is each
qemu's main thread: its start, the QMP talk libvirt has with it, and its end.
"fpubench" holds libvirt's embedded driver, which forks the bench to start every qemu.
The slowest test of a passing boot is
$(sort -g "$S/matrix.slowtest" | awk '{ a[NR] = $0 } END { split(a[int((NR + 1) / 2)], f, " "); printf "%s, %.2f s", f[2], f[1] }').
$(calc "$(median matrix.boots) - 12" | cut -d. -f1) of the boots are resumptions after the crashes "unpatched" is expected to
have on FSAVE: an oops in the FPU switch takes the kernel down, so each crashing test
costs a boot. Where a passing boot's time goes, plain qemu on qemu32 with its console
stamped on the host (2026-12-05): qemu's own start 0.15 s, SeaBIOS and the LZ4 kernel's
decompression 0.08 s, the kernel to /init 0.19 s (half of it free_initmem's poisoning
under TCG, which no option avoids), the 13 tests 0.67 s (fpu_load 0.42 s, whose length
is its stress). bench/OPTIMISATIONS.md lists what was cut (8, 9) and what was measured and
dropped: a quiet kernel console, qboot, three guests per core.
EOF
	fi
	if wants matrix && [ -s "$S/mem.hwm" ] && ! le "$(sort -g "$S/mem.hwm" | tail -n 1)" 100; then
		gaps=1
		echo
		echo "**7. Peak memory** is over 100 MB."
	fi
	if wants patch && ! le "$(median patch.ours)" 30; then
		gaps=1
		echo
		echo "**3. test --patch** is over 30 s: $(fmt_s "$(median patch.pre)") before the first guest, $(fmt_s "$(median patch.guests)") of guests."
	fi
	if wants cold && ! le "$(median cold.ours)" 360; then
		gaps=1
		echo
		echo "**4. Cold make run** is over 6 minutes; see its phases above."
	fi
	if wants bisect && { ! le "$(median bisect.steps)" 8 || ! le "$(median bisect.ours)" 120; }; then
		gaps=1
		echo
		cat <<EOF
**5. Bisect** takes $(fmt_s "$(median bisect.ours)"), $(calc "$(median bisect.ours) - 120") s over 2 minutes. The reference counts
6 steps; ours also tests both ends before it starts and, once it has a culprit, BAD with
the culprit reverted (its parent and the culprit were steps): 9 kernels, each an
incremental build (figure 3 puts $(fmt_s "$(median patch.make)") on \`make bzImage modules\` alone) and one
boot of the judged test (bench/OPTIMISATIONS.md, 12 and 13).
EOF
	fi
	if wants provenance && ! le "$(median prov.ratio)" 1.0; then
		gaps=1
		cat <<EOF

**6. Provenance** is $(median prov.ratio) × git in wall time and $(median prov.cpuratio) × in CPU
time. Ours spreads the commits over two threads, git runs two processes (log -p into
patch-id): on a quiet machine the threads hide the extra CPU, on a busy one they cannot. CPU by library (\`perf record -e cpu-clock\`, one more run
each), ours:

\`\`\`
$(section prov-profile)
\`\`\`

git:

\`\`\`
$(section prov-profile-git)
\`\`\`

Ours spends $(zlib_s prov-profile) s in zlib, git $(zlib_s prov-profile-git) s. The repository's blobs are
fast-import deltas with chains up to 50 deep, and libgit2 rebuilds them in its pack
delta-base cache (16 MiB, shared by the threads, emptied when full). Contiguous chunks per
thread and a blob cache were measured and made it worse (bench/OPTIMISATIONS.md). Leads: a
larger delta-base cache, which libgit2 1.5 does not expose; on a repacked copy ours and
git are level in wall time.
EOF
	fi
	[ "$gaps" = 1 ] || { echo; echo "Every target is met."; }

	echo
	echo "## Samples"
	echo
	echo "Every series, in the order measured (seconds, MB for mem.*, counts for *.boots and *.steps):"
	echo
	echo '```'
	for f in "$S"/*; do
		if [ -e "$f" ]; then printf '%-18s %s\n' "${f##*/}" "$(tr '\n' ' ' <"$f")"; fi
	done
	echo '```'

	echo
	echo "## Commands"
	echo
	echo "CACHE is $CACHE (warm), WORK a temporary directory, R the generated repository."
	echo
	echo '```sh'
	cat <<EOF
# 1: ours, then the reference with the domain log's arguments
build/fpubench test --cpu qemu32 --results WORK/r-cell
qemu-system-i386 -nographic -no-reboot -m 64 -cpu qemu32 -kernel CACHE/build/$KEY/patched/arch/x86/boot/bzImage \\
    -initrd WORK/r-cell/RUN/initramfs-patched.cpio -append 'console=ttyS0 panic=-1 oops=panic'
# 2 and 7 (each boot of the run replayed as in 1)
/usr/bin/time -f %M build/fpubench run --results WORK/r-matrix --history WORK/history.db
# 3
build/fpubench test --patch WORK/pN.diff --results WORK/r-patch
make -C WORK/ref/trees/$KEY ARCH=i386 O=WORK/ref/build/$KEY/test -j$JOBS LOCALVERSION= 'CC=ccache gcc' bzImage
# 4
FPUBENCH_CACHE=WORK/cold make run
tar -xf $TARBALL -C WORK/hand/linux --strip-components=1
make -C WORK/hand/linux ARCH=i386 O=WORK/hand/build tinyconfig
WORK/hand/linux/scripts/kconfig/merge_config.sh -m -O WORK/hand/build WORK/hand/build/.config CACHE/build/$KEY/patched/fpubench.fragment
make -C WORK/hand/linux ARCH=i386 O=WORK/hand/build olddefconfig
make -C WORK/hand/linux ARCH=i386 O=WORK/hand/build -j$JOBS bzImage
# 5
scripts/make-history.sh CACHE/trees/$KEY 64 $HISTORY_REF
build/fpubench bisect --repo CACHE/trees/$KEY --good refs/fpubench/base --bad $HISTORY_REF \\
    --cpu $BISECT_CPU --test fpu_seed --results WORK/r-bisect
# 6
scripts/bench-provenance-repo.sh R $PROV_COMMITS
build/fpubench provenance --repo R bench-base..main
git -C R log --format='%(trailers)' bench-base..main; git -C R log -p bench-base..main | git -C R patch-id --stable
# 8
MUTANTS= SAMPLE=$MUT_SAMPLE SEED=bench RETEST=all MUTANTS_DB=WORK/mutants.db scripts/mutants.sh --generate build/fpubench
# 8c-8e (F: the store's first K killed and S surviving reached mutants; M: 1 0 0 1)
MUTANTS= RETEST=all MUTANTS_IDS=F MUTANTS_DB=WORK/ff.db MUTANTS_FAIL_FAST=M scripts/mutants.sh --generate build/fpubench
# 9 (as root, with lava-dispatcher)
scripts/bench-lab.sh build/fpubench $BIG_RUNS WORK/lab
EOF
	echo '```'
	echo
	echo "End of the part \`make bench\` writes."
	echo "$KEEP_MARK"
	# What follows the mark in the file being replaced was written by hand: kept.
	[ -f "$OUT" ] && sed -n "/^$KEEP_MARK\$/,\$p" "$OUT" | tail -n +2
} >"$TMP"
mv "$TMP" "$OUT"

cat "$TABLE"
echo
echo "bench: report in $OUT"
