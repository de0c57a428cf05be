#!/bin/sh
# End-to-end: guests that misbehave (guest-tests/misbehave, README.md there).
#
# Boots each misbehaving /init with `fpubench test --guest-dir` on the warm
# cached "patched" kernel and checks the verdict and reason of its cells in
# results.json, the exit status, that nothing of a guest's console reaches
# results.json or the terminal raw, that a flood leaves memory and disk
# bounded, and that no guest of these runs is left running.  Each check
# prints "ok N - what" or "not ok N - what"; the closing line counts them.
# About 90 s, most of it the flood (16 MiB at about 0.5 MB/s) and the two
# 10 s time limits.
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GUESTS=${E2E_MISBEHAVE_DIR:-$ROOT/build/guest/misbehave}
WORK=$(mktemp -d /tmp/fpubench-misbehave.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CPU=${E2E_CPU:-qemu32}
CPU2=${E2E_FSAVE_CPU:-pentium2,-fxsr}
CACHE=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}
CAP=16777216		# GUEST_CONSOLE_MAX
RSS_MAX_KB=102400

. "$ROOT/tests/e2e/lib.sh"

# bench NAME WANT TIMEOUT [OPTION]...: boots payload NAME into $WORK/NAME,
# compares the exit status with WANT and records the peak RSS in $WORK/NAME.rss.
bench() {
	name=$1 want=$2 timeout=$3
	shift 3
	/usr/bin/time -f %M -o "$WORK/$name.rss" "$FPUBENCH" test --guest-dir "$GUESTS/$name" \
		--cpu "$CPU" --timeout "$timeout" --results "$WORK/$name" "$@" \
		>"$WORK/$name.out" 2>"$WORK/$name.err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "# expected exit $want, got $got from $name"
		sed 's/^/# /' "$WORK/$name.out" "$WORK/$name.err" | tail -n 20
		return 1
	fi
	return 0
}

# cell NAME TEST STATUS REASON [CRASH] [CPU]: the cell of TEST in NAME's
# results.json has STATUS, a reason that contains REASON and a crash title
# that contains CRASH ("-": none).
cell() {
	python3 - "$WORK/$1/latest/results.json" "$2" "$3" "$4" "${5:--}" "${6:-$CPU}" <<'PY'
import json, sys
path, test, status, reason, crash, cpu = sys.argv[1:]
cells = [c for c in json.load(open(path)) if c["test"] == test and c["cpu"] == cpu]
if len(cells) != 1:
    sys.exit("# %d cells for %s on %s" % (len(cells), test, cpu))
c = cells[0]
ok = (c["status"] == status and reason in (c["reason"] or "") and
      (c["crash"] is None if crash == "-" else crash in (c["crash"] or "")))
if not ok:
    sys.exit("# %s: got %r, %r, %r" % (test, c["status"], c["reason"], c["crash"]))
PY
}

cells_are() {	# cells_are NAME TEST...: NAME's cells, in order
	name=$1
	shift
	got=$(python3 -c 'import json, sys; print(" ".join(c["test"] for c in json.load(open(sys.argv[1]))))' \
		"$WORK/$name/latest/results.json")
	[ "$got" = "$*" ] || { echo "# $name: cells '$got', expected '$*'"; return 1; }
}

boots_are() {	# boots_are NAME N: the run booted N guests
	got=$(ls "$WORK/$1/latest/console" | wc -l)
	[ "$got" -eq "$2" ] || { echo "# $1: $got boots, expected $2"; return 1; }
}

# The raw console bytes stay in the log, never in what the bench writes or prints.
escaped() {	# escaped FILE: strict UTF-8 without control bytes but newlines
	python3 - "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
data.decode("utf-8")
bad = sorted({b for b in data if b < 0x20 and b != 0x0a or b == 0x7f})
if bad:
    sys.exit("# %s: control bytes %s" % (sys.argv[1], bad))
PY
}

has_raw_bytes() {	# has_raw_bytes FILE: the console really held ESC, NUL and 0xff
	python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(not all(b in d for b in (b"\x1b[2J", b"\0", b"\xff")))' "$1"
}

rss_below() {	# rss_below NAME KB
	rss=$(tail -n 1 "$WORK/$1.rss")
	echo "# $1: peak RSS $rss KB"
	[ "$rss" -lt "$2" ]
}

console_below() {	# console_below NAME BYTES: every console log of NAME is smaller
	for f in "$WORK/$1"/latest/console/*.log; do
		size=$(stat -c %s "$f")
		echo "# $1: console $size bytes"
		[ "$size" -lt "$2" ] || return 1
	done
}

# A guest booted to be saved, or restored, is named by its save (bench/boot/restore.c),
# not by the run: the run's libvirt.log names every domain it warned about.
run_domains() {	# run_domains NAME: the domains of NAME's run, first booted first
	grep -o "name='fpubench-[^']*'" "$WORK/$1/latest/libvirt.log" 2>/dev/null | cut -d "'" -f 2 | awk '!seen[$0]++'
}

qemu_line() {	# qemu_line NAME: the QEMU command line libvirt logged for NAME's first guest
	cat "$CACHE/libvirt/log/qemu/$(run_domains "$1" | head -n 1).log" 2>/dev/null
}

no_network_or_host_files() {	# no_network_or_host_files NAME
	qemu_line "$1" >"$WORK/qemu.log"
	grep -q -- '-nodefaults' "$WORK/qemu.log" || { echo "# no QEMU command line for $1"; return 1; }
	! grep -E -- '-(netdev|nic|net|drive|blockdev|fsdev|virtfs|hda|cdrom) |virtio-9p|vhost' "$WORK/qemu.log"
}

none_left() {	# none_left: no QEMU of these runs is still running
	for d in "$WORK"/*/latest; do
		for dom in $(run_domains "$(basename "$(dirname "$d")")"); do
			if pgrep -f "[q]emu-system.*guest=$dom," >/dev/null; then
				echo "# guest $dom of $d is still running"
				return 1
			fi
		done
	done
}

[ -x "$GUESTS/silent/init" ] || { echo "# no payloads in $GUESTS: run 'make'"; exit 1; }

echo "# misbehave: silent, stall"
check "silent: exits 125 (init never spoke)" bench silent 125 10
check "silent: the boot times out" cell silent boot timeout "init printed no KTAP"
check "silent: the embedded root is private" test "$(stat -c %a "$CACHE/libvirt")" = 700
check "silent: no network device and no host filesystem" no_network_or_host_files silent
# Two setups, one guest at a time: a guest that hangs does not hold up the next.
check "stall: exits 1" bench stall 1 10 --cpu "$CPU2" --jobs 1
for cpu in "$CPU" "$CPU2"; do
	check "stall on $cpu: the result before the stall passes" cell stall stall_first pass "" - "$cpu"
	check "stall on $cpu: then the boot times out" cell stall boot timeout "init stopped between tests" - "$cpu"
done

echo "# misbehave: flood"
check "flood: exits 1" bench flood 1 120
check "flood: the test fails for the flood" cell flood flood fail "console flood: over 16 MiB"
check "flood: the guest was stopped near the cap" console_below flood $((CAP + 1048576))
check "flood: memory stayed bounded" rss_below flood $RSS_MAX_KB

echo "# misbehave: garbage"
check "garbage: exits 1" bench garbage 1 10
check "garbage: the console holds escapes, NULs and invalid UTF-8" \
	has_raw_bytes "$WORK/garbage/latest/console/patched-$CPU-1.1.log"
check "garbage: the hostile name passes, escaped" cell garbage \
	'garbage?[2J?[H?]0;pwned??]52;c;cm0gLXJmIH4K??[31m?????????name' pass ""
check "garbage: the failing subtest is the reason, escaped" cell garbage garbage_diag fail \
	'sub?[2J?[H?]0;pwned??]52;c;cm0gLXJmIH4K??[31m?????????test: expected 1?[2J'
check "garbage: the forged report crashes the test, escaped" cell garbage garbage_crash crash "" \
	'BUG: unable to handle page fault?[2J?[H?]NUM;pwned?'
check "garbage: results.json is escaped" escaped "$WORK/garbage/latest/results.json"
check "garbage: results.ktap is escaped" escaped "$WORK/garbage/latest/results.ktap"
check "garbage: stdout is escaped" escaped "$WORK/garbage.out"
check "garbage: stderr is escaped" escaped "$WORK/garbage.err"

echo "# misbehave: reboot, triple fault"
check "reboot: exits 125 (init never spoke)" bench reboot 125 10
check "reboot: the boot is a crash" cell reboot boot crash "init printed no KTAP, then the guest rebooted"
check "reboot: booted once" boots_are reboot 1
check "triple: exits 1" bench triple 1 10
check "triple: the test crashed with the panic" cell triple triple crash "the guest ended while it ran" \
	"kernel panic: Attempted to kill init!"
check "triple: booted once" boots_are triple 1

echo "# misbehave: plans that do not match"
check "plan-missing: exits 1" bench plan-missing 1 10
check "plan-missing: the results pass" cells_are plan-missing plan_first plan_second ktap_plan
check "plan-missing: the plan fails, naming the test" cell plan-missing ktap_plan fail \
	"the plan announced 3 tests, the guest reported 2; missing: 3"
check "plan-extra: exits 1" bench plan-extra 1 10
check "plan-extra: the plan fails, naming the test" cell plan-extra ktap_plan fail \
	"the plan announced 2 tests, the guest reported 3; extra: 3 'plan_third'"

check "no guest of these runs is left running" none_left

summary
