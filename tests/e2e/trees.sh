#!/bin/sh
# End-to-end: every kernel a user tests.  Real builds and real guests.
#
# - Two Debian tarballs in turn in one cache: each guest prints the version
#   of the tarball named (the cache keys trees by version), and one tree's
#   runs of two series are never compared.
# - A nightly config with both Debian trees: every cell of both meets its
#   expectation, and the history keeps them apart.
# - A git tree made from 6.1 with the 486 choices removed from Kconfig.cpu
#   (tests/fixtures/patches/kconfig-no-486.patch) and the fsave regression:
#   it builds for the lowest family left, its 486 cell is a skip, and the
#   other FSAVE setups, pentium among them, still catch the regression.
# - Trees the bench cannot build are refused before anything is built.
#
# Usage: trees.sh [FPUBENCH]; the cache is $E2E_TREES_CACHE, else the
# bench's own.  Cold, it builds five kernels (about 20 minutes on 2 cores).
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/fpubench-trees.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CACHE=${E2E_TREES_CACHE:-${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}}
T61=${E2E_TARBALL_61:-/usr/src/linux-source-6.1.tar.xz}
T612=${E2E_TARBALL_612:-/usr/src/linux-source-6.12.tar.xz}
RESULTS="$WORK/results"
HISTORY="$WORK/history.db"
FSAVE_CPU=pentium2,-fxsr

. "$ROOT/tests/e2e/lib.sh"

version_of() {	# version_of TARBALL: the version its top Makefile gives, read here on our own
	tar -xO --auto-compress -f "$1" --wildcards --no-wildcards-match-slash --occurrence=1 '*/Makefile' |
		awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
			$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
			END { print v "." p "." s e }'
}

booted() {	# booted VERSION: the latest run's guests all printed "Linux version VERSION "
	logs=$(ls "$RESULTS"/latest/console/*.log) || return 1
	for log in $logs; do
		grep -q "Linux version $1 " "$log" ||
			{ echo "# $log: $(grep -a -m1 'Linux version' "$log")"; return 1; }
	done
}

json_versions() {	# json_versions RUN_DIR: the kernel_version of its cells, sorted, unique
	python3 -c 'import json, sys
print(" ".join(sorted({c["kernel_version"] for c in json.load(open(sys.argv[1]))})))' "$1/results.json"
}

V61=$(version_of "$T61")
V612=$(version_of "$T612")
echo "# e2e trees: $T61 is Linux $V61, $T612 is Linux $V612, cache $CACHE"

echo "# e2e trees: two tarballs in turn, one cache"
for pass in 1 2; do
	for t in "$T61" "$T612"; do
		v=$(version_of "$t")
		check "pass $pass: test --tarball $(basename "$t") exits 0" \
			status_is 0 "$FPUBENCH" test --cache "$CACHE" --tarball "$t" --results "$RESULTS" \
			--cpu "$FSAVE_CPU" --test fpu_seed
		check "pass $pass: the guest printed Linux version $v" booted "$v"
		check "pass $pass: results.json names $v" test "$(json_versions "$RESULTS/latest")" = "$v"
	done
done
check "the cache holds one tree per version" \
	test -d "$CACHE/trees/debian-$V61/.git" -a -d "$CACHE/trees/debian-$V612/.git"

echo "# e2e trees: a nightly over both Debian trees"
sed -e "s|^# results = .*|results = $RESULTS|" -e "s|^# series = .*|series = $ROOT/patches|" \
	-e "s|^# cache = .*|cache = $CACHE|" \
	-e "s|^# tarball = /usr/src/linux-source-6.1.tar.xz|tarball = $T61|" \
	-e 's|^# \[tree debian-6.12\]|[tree debian-6.12]|' \
	-e '/^\[tree debian-6.12\]/,/^$/s|^# ||' \
	-e "s|^tarball = /usr/src/linux-source-6.12.tar.xz|tarball = $T612|" \
	"$ROOT/bench/fpubench.conf" >"$WORK/nightly.conf"
ls -d "$RESULTS"/2* >"$WORK/before"
check "run --config over both trees exits 0" \
	status_is 0 "$FPUBENCH" run --config "$WORK/nightly.conf" --history "$HISTORY"
sed 's/^/# /' "$WORK/out" | grep -v ' pass  *pass' | head -n 40
ls -d "$RESULTS"/2* | grep -vxF -f "$WORK/before" >"$WORK/runs"
check "one run per tree" test "$(wc -l <"$WORK/runs")" -eq 2
check "the runs tested $V61 and $V612" \
	test "$(for r in $(cat "$WORK/runs"); do json_versions "$r"; done | sort | tr '\n' ' ')" = \
	"$(printf '%s\n%s\n' "$V61" "$V612" | sort | tr '\n' ' ')"
all_met() {	# every cell of both runs met its expectation, and there are 2 x 2 x 7 x tests of them
	python3 - $(cat "$WORK/runs") <<'PY'
import json, sys
cells = [c for d in sys.argv[1:] for c in json.load(open(d + "/results.json"))]
unmet = [c for c in cells if not c["met"]]
for c in unmet[:10]:
    print("# unmet:", c["kernel_version"], c["kernel"], c["cpu"], c["cmdline"], c["test"], c["status"], c["reason"])
print("# %d cells, %d unmet" % (len(cells), len(unmet)))
sys.exit(1 if unmet or len(cells) < 2 * 2 * 7 * 11 else 0)
PY
}
check "every cell of both trees meets its expectation" all_met
history_apart() {	# the history has a line per tree, each run's kernels of its own version
	python3 - "$HISTORY" "$V61" "$V612" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT r.line, group_concat(DISTINCT k.kernel_version) FROM runs r"
                  " JOIN kernels k ON k.run_id = r.id GROUP BY r.id ORDER BY r.id").fetchall()
print("# history:", rows)
lines = {line.split(" ")[0] for line, _ in rows}
versions = sorted(v for _, v in rows)
sys.exit(0 if len(rows) == 2 and len(lines) == 2 and versions == sorted(sys.argv[2:]) else 1)
PY
}
check "the history keeps the two trees apart" history_apart
check "report.html names both versions" sh -c "grep -q 'Linux $V61' $(sed 's|$|/report.html|' "$WORK/runs" | tr '\n' ' ') &&
	grep -q 'Linux $V612' $(sed 's|$|/report.html|' "$WORK/runs" | tr '\n' ' ')"

echo "# e2e trees: one tree pointed at another tarball's series"
# The default tree "debian" and one config: the line differs only by the series.
SERIES_DB="$WORK/series.db"
i=1
for t in "$T61" "$T612" "$T61"; do
	check "run $i, --tarball $(basename "$t"), exits 0" \
		status_is 0 "$FPUBENCH" run --cache "$CACHE" --tarball "$t" --results "$RESULTS" \
		--cpu "$FSAVE_CPU" --test fpu_seed --history "$SERIES_DB"
	cp "$WORK/out" "$WORK/series-$i.out"
	[ "$i" -ne 1 ] || RUN1=$(basename "$(readlink -f "$RESULTS/latest")")
	i=$((i + 1))
done
NONE='no previous complete run to compare with'
check "run 1 ($V61) has nothing to compare with" grep -qx "$NONE" "$WORK/series-1.out"
check "run 2 ($V612) is not compared with $V61's" grep -qx "$NONE" "$WORK/series-2.out"
check "run 3 ($V61) is compared with run 1" grep -q "^compared with run $RUN1: " "$WORK/series-3.out"

echo "# e2e trees: 6.1 without the 486 choices, as a git tree"
NO486="$WORK/no486"
git clone -q --shared --no-checkout "$CACHE/trees/debian-$V61" "$NO486" &&
	git -C "$NO486" fetch -q origin refs/fpubench/base &&
	git -C "$NO486" checkout -q -b no486 FETCH_HEAD &&
	git -C "$NO486" apply "$ROOT/patches/0001-x86-fpu-save-legacy-state-with-fsave-again.patch" \
		"$ROOT/tests/fixtures/patches/kconfig-no-486.patch" &&
	git -C "$NO486" -c user.name=fpubench -c user.email=fpubench@localhost \
		commit -q -a -m "the fsave regression, on a tree without the 486 choices"
check "the no-486 tree is made" git -C "$NO486" show-ref -q --verify refs/heads/no486
cat >"$WORK/no486.conf" <<EOF
[run]
results = $RESULTS
cache = $CACHE
series = $ROOT/patches
[tree no486]
source = git
repo = $NO486
branch = no486
[cpu]
setup = 486
setup = pentium
setup = $FSAVE_CPU
setup = qemu32,-sse,-sse2,-fxsr
setup = qemu32
[tests]
test = fpu_seed
test = fpu_survive
[expect]
no486 fsave fpu_seed    = crash
no486 fsave fpu_survive = crash
*     any   *           = pass
EOF
check "run over the no-486 tree exits 0" \
	status_is 0 "$FPUBENCH" run --config "$WORK/no486.conf" --history "$HISTORY"
sed 's/^/# /' "$WORK/out"
row() {	# row CPU TEST WANT: the latest results.json cell's "status reason-prefix"
	python3 - "$RESULTS/latest/results.json" "$1" "$2" "$3" <<'PY'
import json, sys
path, cpu, test, want = sys.argv[1:]
for c in json.load(open(path)):
    if c["cpu"] + (":" + c["cmdline"] if c["cmdline"] else "") == cpu and c["test"] == test:
        got = "%s %s" % (c["status"], c["crash"] or c["reason"] or "-")
        if got.startswith(want):
            sys.exit(0)
        print("# %s %s: expected '%s...', got '%s'" % (cpu, test, want, got))
        sys.exit(1)
print("# %s %s: no cell" % (cpu, test))
sys.exit(1)
PY
}
check "it was built for the lowest family left, M586" \
	sh -c "grep -qx 'CONFIG_M586=y' '$CACHE'/build/git-*/no486/.config"
check "486: skip, the kernel requires an i586" row 486 boot "skip kernel requires an i586 CPU, and '486' is an i486"
check "pentium catches the regression" row pentium fpu_seed "crash fpu exception in save_fpregs_to_fpstate"
check "pentium takes the FSAVE path" sh -c "grep -q 'x87 FPU will use FSAVE' '$RESULTS'/latest/console/no486-pentium-*.log"
check "$FSAVE_CPU catches the regression" row "$FSAVE_CPU" fpu_seed "crash fpu exception in save_fpregs_to_fpstate"
check "qemu32,-sse,-sse2,-fxsr catches the regression" \
	row qemu32,-sse,-sse2,-fxsr fpu_seed "crash fpu exception in save_fpregs_to_fpstate"
check "qemu32 (FXSAVE) passes" row qemu32 fpu_seed "pass"

echo "# e2e trees: what the bench cannot build is refused first"
mkdir -p "$WORK/not-a-tree"
check "test --tree on a directory with no kernel exits 128" \
	status_is 128 "$FPUBENCH" test --cache "$CACHE" --results "$RESULTS" --tree "$WORK/not-a-tree"
check "the error says it is not a kernel tree" \
	grep -qx "fpubench: '$WORK/not-a-tree' is not a kernel tree: it has no Makefile" "$WORK/err"
printf 'VERSION = 4\nPATCHLEVEL = 19\nSUBLEVEL = 0\nEXTRAVERSION =\n' >"$WORK/not-a-tree/Makefile"
check "test --tree on a 4.19 tree exits 128" \
	status_is 128 "$FPUBENCH" test --cache "$CACHE" --results "$RESULTS" --tree "$WORK/not-a-tree"
check "the error names the version" grep -q "is Linux 4.19.0, older than 5.10" "$WORK/err"
# The cache names a --tree's builds after the hash of its path, as git hash-object does.
DIRKEY=dir-$(printf %s "$WORK/not-a-tree" | git hash-object --stdin | cut -c1-8)
check "nothing was built for them" test ! -e "$CACHE/build/$DIRKEY"

echo "# e2e trees: an option the tree does not know is a warning"
mkdir -p "$WORK/patches"
cp "$ROOT"/patches/* "$WORK/patches/"
echo 'CONFIG_PTRACE=y' >>"$WORK/patches/fpu.config"
check "run with an unknown option in the fragment exits 0" \
	status_is 0 "$FPUBENCH" run --cache "$CACHE" --tarball "$T61" --results "$RESULTS" \
	--patches "$WORK/patches" --cpu "$FSAVE_CPU" --test fpu_seed --history "$HISTORY"
check "stderr warns with the option and the version" \
	grep -q "^fpubench: warning: config option 'CONFIG_PTRACE=y' from '$WORK/patches/fpu.config' was dropped by Linux $V61" "$WORK/err"
check "report.html lists it" grep -q "CONFIG_PTRACE=y" "$RESULTS/latest/report.html"

summary
