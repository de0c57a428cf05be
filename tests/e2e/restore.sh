#!/bin/sh
# End-to-end: restored guests (bench/boot/restore.h).  Runs the default
# matrix through the cache's saved guests and again with --no-restore, and
# compares the two runs' cells one by one (status and reason); then damages
# a saved guest (its header; its memory, keeping size and mtime), which must
# give a boot that parks anew and a new save, never a restore of the damage.  Needs a warm cache (its kernels built); it makes the saves it
# lacks on the first run.
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/fpubench-e2e-restore.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CACHE=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}
SAVES=$CACHE/saves

. "$ROOT/tests/e2e/lib.sh"

# The restored guest's own line (guest-tests/init.c, init_park); the console ends lines with CR LF.
RESTORED='^# fpubench: restored'

consoles_restored() {	# consoles_restored RESULTS: "RESTORED OF" over the latest run's consoles
	d="$1/latest/console"
	echo "$(grep -l "$RESTORED" "$d"/*.log | wc -l) $(ls "$d"/*.log | wc -l)"
}

all_restored() {	# all_restored RESULTS: every boot of the run was restored
	set -- $(consoles_restored "$1")
	[ "$1" -eq "$2" ] && [ "$2" -gt 0 ] || { echo "# $1 of $2 boots restored"; return 1; }
}

none_restored() {	# none_restored RESULTS: every boot was cold, and none parked
	d="$1/latest/console"
	! grep -lq "$RESTORED" "$d"/*.log && ! grep -lq 'fpubench_park=' "$d"/*.log
}

same_cells() {	# same_cells RESULTS_A RESULTS_B: every cell has the same status and reason
	python3 - "$1/latest/results.json" "$2/latest/results.json" <<'PY'
import json, sys
def cells(path):
    return {(c["kernel"], c["cpu"], c.get("cmdline") or "", c["test"]): (c["status"], c.get("reason"))
            for c in json.load(open(path))}
a, b = cells(sys.argv[1]), cells(sys.argv[2])
bad = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
for k in bad:
    print("# %s: restored %s, cold %s" % (" ".join(k), a.get(k), b.get(k)))
print("# %d cells compared, %d differ" % (len(a), len(bad)))
sys.exit(1 if bad or not a else 0)
PY
}

echo "# e2e: the default matrix restored and cold, cell by cell"
# The first run makes the saves the cache lacks (a key is saved at its second
# boot); the second restores every boot, parking those it has not saved yet.
check "a run through the saved guests meets every expectation" \
	status_is 0 "$FPUBENCH" run --results "$WORK/first" --history "$WORK/history.db"
check "a second run restores every boot" sh -c "
	'$FPUBENCH' run --results '$WORK/restored' --history '$WORK/history.db' >'$WORK/out' 2>&1"
check "every boot of the second run was restored" all_restored "$WORK/restored"
check "its console holds the saved boot: the kernel's version and FPU path" sh -c "
	grep -lq 'Linux version' '$WORK/restored/latest/console/'*.log &&
	! grep -L 'x87 FPU will use' '$WORK/restored/latest/console/'*.log | grep -q ."
check "--no-restore boots every guest cold" sh -c "
	'$FPUBENCH' run --no-restore --results '$WORK/cold' --history '$WORK/history.db' >'$WORK/out' 2>&1"
check "no boot of the cold run was restored or parked" none_restored "$WORK/cold"
check "restored and cold cells are the same, one by one" same_cells "$WORK/restored" "$WORK/cold"

echo "# e2e: a damaged save is never restored: the boot saves anew"
# A key is saved at its second boot (bench/boot/saved_guest.h): boot it twice first.
"$FPUBENCH" test --cpu qemu32 --test fpu_seed --results "$WORK/t0" >/dev/null 2>&1
"$FPUBENCH" test --cpu qemu32 --test fpu_seed --results "$WORK/t0" >/dev/null 2>&1
entry=$(ls -t "$SAVES"/*/meta | head -n 1)
entry=${entry%/meta}
check "the test's boot was restored" all_restored "$WORK/t0"

recorded() {	# recorded: the image hash the entry's meta holds
	sed -n 's/^image-hash //p' "$entry/meta"
}
# damaged N WHAT: with the damage at byte N the test passes and the entry holds
# a new image, the one its meta records
damaged() {
	"$FPUBENCH" test --cpu qemu32 --test fpu_seed --results "$WORK/t$1" >"$WORK/t$1.out" 2>&1 ||
		{ echo "# the test failed with its save damaged ($2)"; return 1; }
	[ "$(dd if="$entry/image" bs=1 skip="$1" count=7 2>/dev/null)" != damaged ] ||
		{ echo "# the damaged image is still the save ($2)"; return 1; }
	[ "$(git hash-object "$entry/image")" = "$(recorded)" ] ||
		{ echo "# the new image is not the one its meta records ($2)"; return 1; }
}
# libvirt's header, which libvirt itself would refuse
printf 'damaged' | dd of="$entry/image" bs=1 seek=0 conv=notrunc 2>/dev/null
check "a damaged header: the test passes, saved anew" damaged 0 header
# the guest's memory, of the same size and with the old mtime: only the content hash tells
old=$(recorded)
cp -p "$entry/image" "$WORK/image"
printf 'damaged' | dd of="$entry/image" bs=1 seek=4000000 conv=notrunc 2>/dev/null
touch -r "$WORK/image" "$entry/image"
check "damaged memory of the same size: the test passes, saved anew" damaged 4000000 memory
check "the new save is another image" sh -c "[ '$old' != \"\$(sed -n 's/^image-hash //p' '$entry/meta')\" ]"
new=$(recorded)
check "the next boot restores the new save, as it is" sh -c "
	'$FPUBENCH' test --cpu qemu32 --test fpu_seed --results '$WORK/t2' >/dev/null 2>&1 &&
	grep -q '$RESTORED' '$WORK/t2/latest/console/'*.log &&
	[ \"\$(sed -n 's/^image-hash //p' '$entry/meta')\" = '$new' ]"

summary
