#!/bin/sh
# End-to-end: real kernel builds and real QEMU guests through libvirt.
#
# Builds both variants in the cache and boots them on one FSAVE and one
# FXSAVE setup, then checks results.json, `fpubench test` and its exit codes
# for the bad inputs.  Each check prints "ok N - what" or "not ok N - what";
# the closing line counts them.
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX="$ROOT/tests/fixtures"
WORK=$(mktemp -d /tmp/fpubench-e2e.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FSAVE_CPU=${E2E_FSAVE_CPU:-pentium2,-fxsr}
FXSAVE_CPU=${E2E_FXSAVE_CPU:-qemu32}

. "$ROOT/tests/e2e/lib.sh"

cell() {	# cell KERNEL CPU TEST: prints "status crash" of a results.json cell
	python3 - "$1" "$2" "$3" "$RESULTS/latest/results.json" <<'PY'
import json, sys
kernel, cpu, test, path = sys.argv[1:]
for c in json.load(open(path)):
    if c["kernel"] == kernel and c["cpu"] == cpu and c["test"] == test:
        print(c["status"], c["crash"] or "-")
        break
else:
    print("missing")
PY
}

cell_is() {	# cell_is KERNEL CPU TEST WANT
	got=$(cell "$1" "$2" "$3")
	[ "$got" = "$4" ] || { echo "# $1 $2 $3: expected '$4', got '$got'"; return 1; }
}

RESULTS="$WORK/results"

echo "# e2e: run on $FSAVE_CPU and $FXSAVE_CPU, on a terminal as make run is"
check "run meets every expectation" \
	on_tty 0 "$FPUBENCH" run --results "$RESULTS" --cpu "$FSAVE_CPU" --cpu "$FXSAVE_CPU"
tr '\r' '\n' <"$WORK/tty" | grep -av '^ *$' | sed 's/^/# /'
# libvirt's format: "TIME: PID: LEVEL : FUNCTION:LINE : MESSAGE"; it warns of every embedded guest.
check "no libvirt log line reaches the terminal" \
	sh -c "! grep -aqE '(info|warning|error) : ' '$WORK/tty'"
check "they are in the run directory's libvirt.log" \
	grep -qE '[0-9]+: warning : .* is tainted' "$RESULTS/latest/libvirt.log"
check "the run ends with its summary, not the matrix" sh -c "
	grep -aq '^[0-9]* cells, all met their expectation' '$WORK/tty' &&
	grep -aq '^results: $RESULTS/2' '$WORK/tty' && grep -aq '^report: $RESULTS/2.*/report.html' '$WORK/tty' &&
	! grep -aq 'cpu setup  *test' '$WORK/tty'"
check "the progress line stays within the terminal's 80 columns" python3 -c '
import re, sys
rows = re.split(r"[\r\n]", open(sys.argv[1], errors="replace").read())
sys.exit(any(len(r.replace("\x1b[K", "")) > 79 for r in rows
             if r.startswith(("extracting:", "building:", "booting:"))))' "$WORK/tty"
check "results.json: patched passes on FSAVE" cell_is patched "$FSAVE_CPU" fpu_seed "pass -"
check "results.json: patched passes on FXSAVE" cell_is patched "$FXSAVE_CPU" fpu_seed "pass -"
check "results.json: unpatched crashes on FSAVE" \
	cell_is unpatched "$FSAVE_CPU" fpu_seed "crash fpu exception in save_fpregs_to_fpstate"
check "results.json: unpatched passes on FXSAVE" cell_is unpatched "$FXSAVE_CPU" fpu_seed "pass -"
check "results.ktap is KTAP" grep -q '^KTAP version 1$' "$RESULTS/latest/results.ktap"

# Nightly: the history, the comparison and the reports, over two libvirt hosts: the
# embedded driver, and a private libvirtd that gets its files staged through libvirt's
# storage API as a remote host would.  The second run is compared with the first.
HISTORY="$WORK/history.db"
NIGHTLY="$WORK/nightly"
DAEMON_DIR="$WORK/libvirtd"
DAEMON_URI=$("$ROOT/scripts/libvirtd-local.sh" start "$DAEMON_DIR") &&
	trap '"$ROOT/scripts/libvirtd-local.sh" stop "$DAEMON_DIR" >/dev/null 2>&1; rm -rf "$WORK"' EXIT
EMBED_URI="qemu:///embed?root=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}/libvirt"
# The default config, which holds the expectations, with the two hosts.
{
	grep -v '^\(results\|series\) = ' "$ROOT/bench/fpubench.conf"
	printf '[host embedded]\nuri = %s\njobs = 2\n[host daemon]\nuri = %s\njobs = 2\nstage = %s\n' \
		"$EMBED_URI" "$DAEMON_URI" "$WORK/stage"
} >"$WORK/nightly.conf"
nightly() {	# nightly: one run of the matrix over both hosts
	status_is 0 "$FPUBENCH" run --config "$WORK/nightly.conf" --patches "$ROOT/patches" \
		--results "$NIGHTLY" --history "$HISTORY" --cpu "$FSAVE_CPU" --cpu "$FXSAVE_CPU"
}
hosts_used() {	# both hosts ran cells
	python3 - "$NIGHTLY/latest/results.json" <<'PY'
import json, sys
hosts = {c["host"] for c in json.load(open(sys.argv[1]))}
sys.exit(0 if len(hosts) == 2 else print("# hosts:", hosts) or 1)
PY
}
check "nightly run 1 over two hosts" nightly
check "run 1 has nothing to compare with" grep -q "no previous complete run" "$WORK/out"
check "nightly run 2 over two hosts" nightly
sed 's/^/# /' "$WORK/out" | tail -n 8
check "run 2 is compared with run 1, by its directory's name" \
	grep -q "compared with run [0-9]\{8\}-[0-9]\{6\}-[0-9]*: new failures 0" "$WORK/out"
check "run 2 has no new failure" sh -c "! grep -q '^new failure:' '$WORK/out'"
check "cells are spread over both hosts" hosts_used
check "the daemon's consoles came back and left the stage" sh -c "ls '$WORK/stage' | grep -q bzImage &&
	! ls '$WORK/stage' | grep -q '\\.log$'"
check "the history holds both runs" sh -c "'$FPUBENCH' history --history '$HISTORY' --cpu '$FSAVE_CPU' --test fpu_seed |
	grep -c '^run ' | grep -qx 2"
check "junit.xml validates" \
	xmllint --noout --schema "$ROOT/tests/schemas/junit.xsd" "$NIGHTLY/latest/junit.xml"
# KernelCI's published schema (tests/schemas/README.md says where it comes from).
KCIDB_SCHEMA="$ROOT/tests/schemas/kcidb-io.schema.v5.3.json"
check "kcidb.json validates against KCIDB 5.3" "$ROOT/tests/schemas/validate-json" \
	"$NIGHTLY/latest/kcidb.json" "$KCIDB_SCHEMA"
check "kcidb.json names its version" python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["version"] != {"major": 5, "minor": 3})' "$NIGHTLY/latest/kcidb.json"
check "report.html renders with the matrix in Chromium" \
	"$ROOT/tests/e2e/report-browser.sh" "$NIGHTLY/latest"
# Run 2's report and its screenshot stay as CI artefacts.
mkdir -p "$ROOT/build/e2e-report" && cp -r "$NIGHTLY/latest/." "$ROOT/build/e2e-report/"
# The daemon dies under its guests: their boots become errors, are booted again on the
# embedded driver, and the run still meets every expectation.
lose_daemon() {
	"$FPUBENCH" run --config "$WORK/nightly.conf" --patches "$ROOT/patches" --results "$WORK/lost" \
		--history "$WORK/lost.db" --cpu "$FSAVE_CPU" --cpu "$FXSAVE_CPU" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	i=0
	while [ "$i" -lt 200 ] && ! pgrep -f "[q]emu-system-i386.*$WORK/stage" >/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 "$(cat "$DAEMON_DIR/libvirtd.pid")"
	wait "$pid"
	got=$?
	[ "$got" -eq 0 ] || { echo "# exit $got"; tail -n 5 "$WORK/err" | sed 's/^/# /'; return 1; }
}
check "a daemon killed under its guests: the other host boots them" lose_daemon
check "the bench says it lost the daemon" grep -q "^fpubench: lost the connection to 'qemu+unix" "$WORK/err"
# A "patched" that is the regression, under a config that expects its crash: every
# expectation is met, yet the cell went from pass to crash, and that fails the run.
mkdir -p "$WORK/swapped"
cp "$ROOT"/patches/*.patch "$ROOT/patches/series" "$ROOT/patches/fpu.config" "$WORK/swapped/"
sed -n 's/^unpatched /patched /p' "$ROOT/patches/variants" >"$WORK/swapped/variants"
cat >"$WORK/swapped.conf" <<EOF
[run]
series = swapped
[cpu]
setup = $FSAVE_CPU
[tests]
test = fpu_seed
[expect]
patched fsave fpu_seed = crash
EOF
check "a new failure fails a run that met its expectations" \
	status_is 1 "$FPUBENCH" run --config "$WORK/swapped.conf" --results "$NIGHTLY" --history "$HISTORY"
check "the comparison names the new failure" \
	grep -q "new failure: patched $FSAVE_CPU fpu_seed: pass -> crash" "$WORK/out"
check "its cells met their expectations" sh -c "grep -q '\"met\": true' '$NIGHTLY/latest/results.json' &&
	! grep -q '\"met\": false' '$NIGHTLY/latest/results.json'"

check "test exits 0 on patched" status_is 0 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU"
for f in fsave-regression.mbox fsave-regression.diff fsave-regression.plain.diff; do
	check "test --patch $f exits 1" \
		status_is 1 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --patch "$FIX/patches/$f"
done
check "its summary names the crash and the console it is in" sh -c "
	grep -q '^  test  $FSAVE_CPU  *fpu_seed  *crash  *expected pass: fpu exception in save_fpregs_to_fpstate' '$WORK/out' &&
	grep -q '^    console: $RESULTS/2.*/console/test-.*\.log$' '$WORK/out'"
check "test --patch that does not apply exits 125" \
	status_is 125 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --patch "$FIX/patches/does-not-apply.patch"
check "the error names the patch and the file" \
	grep -q "cannot apply patch '.*does-not-apply.patch' to 'arch/x86/kernel/fpu/core.c'" "$WORK/err"

echo "# e2e: the test module is built again only as far as the kernel's change reaches it"
# kmod-header.diff changes a comment of asm/fpu/api.h, which the module includes;
# kmod-header-core.diff also one of core.c, which it does not (both: git diff in a
# repository of 6.1.192's two files).
CACHE=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}
kmod_log() {	# the module build's log of test --patch's kernel
	echo "$(ls -d "$CACHE"/build/debian-6.1.*/test | tail -n 1)/fpubench-kmod/build.log"
}
for f in kmod-header.diff kmod-header-core.diff; do
	check "test --patch $f --test fpu_kmod passes" \
		status_is 0 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --test fpu_kmod \
		--patch "$FIX/patches/$f"
	cp "$(kmod_log)" "$WORK/kmod-$f.log"
done
check "a header the module includes changed: the module was compiled again" \
	grep -q 'CC \[M\] .*/fpu_kmod\.o$' "$WORK/kmod-kmod-header.diff.log"
check "only core.c changed: the module went through modpost for the new kernel, not compiled" sh -c "
	grep -q 'MODPOST .*/Module\.symvers$' '$WORK/kmod-kmod-header-core.diff.log' &&
	! grep -q 'CC \[M\] .*/fpu_kmod\.o$' '$WORK/kmod-kmod-header-core.diff.log'"

echo "# e2e: test --test boots only the tests it judges"
check "test --test fpu_seed passes" \
	status_is 0 "$FPUBENCH" test --results "$RESULTS" --cpu "$FSAVE_CPU" --test fpu_seed
check "its results hold fpu_seed's cell and no other" sh -c "python3 -c '
import json, sys
tests = [c[\"test\"] for c in json.load(open(sys.argv[1]))]
sys.exit(tests != [\"fpu_seed\"])' '$RESULTS/latest/results.json'"
check "the guest skipped the others as not selected" \
	grep -q "^ok 1 fpu_addr # SKIP not selected" "$RESULTS"/latest/console/*.log
check "the initramfs has no test module" sh -c "cpio -it --quiet <'$RESULTS'/latest/initramfs-patched.cpio | grep -qx init &&
	! cpio -it --quiet <'$RESULTS'/latest/initramfs-patched.cpio | grep -qx fpu_kmod.ko"
check "test without --cpu boots the default config's setups" \
	status_is 0 "$FPUBENCH" test --results "$RESULTS" --test fpu_seed
check "one fpu_seed cell per [cpu] setup of bench/fpubench.conf" sh -c "python3 -c '
import json, sys
want = [l.split(\"=\", 1)[1].strip() for l in open(sys.argv[2]) if l.startswith(\"setup = \")]
cells = json.load(open(sys.argv[1]))
got = [c[\"cpu\"] + (\":\" + c[\"cmdline\"].replace(\" \", \",\") if c[\"cmdline\"] else \"\") for c in cells]
sys.exit(len(want) != 7 or sorted(got) != sorted(want))' '$RESULTS/latest/results.json' '$ROOT/bench/fpubench.conf'"
check "a test name that is not a word exits 129" status_is 129 "$FPUBENCH" test --test "fpu_seed,x"
check "the error names the test" grep -q "test name 'fpu_seed,x' is not letters" "$WORK/err"

echo "# e2e: bisect over a synthetic history of 33 commits"
# The cache keys Debian's tree by its version (trees/debian-6.1.192).
TREE=$(ls -d "$CACHE"/trees/debian-6.1.* | tail -n 1)
sh "$ROOT/scripts/make-history.sh" "$TREE" 33 refs/fpubench/history "$WORK/archive.mbox"
CULPRIT=$(git -C "$TREE" rev-parse refs/fpubench/history-culprit)
printf '[report]\nfrom = Fpu Bench <fpubench@example.net>\n' >"$WORK/report.conf"
check "bisect names and verifies the culprit" \
	status_is 0 "$FPUBENCH" bisect --repo "$TREE" --good refs/fpubench/base \
	--bad refs/fpubench/history --cpu "$FSAVE_CPU" --test fpu_seed --results "$RESULTS" \
	--archive "$WORK/archive.mbox" --config "$WORK/report.conf"
sed 's/^/# /' "$WORK/out" | grep -v '^# *[A-Z ]*  ' | tail -n 12
check "bisect.json names the culprit" grep -q "\"culprit\": \"$CULPRIT\"" "$RESULTS/latest/bisect.json"
# The culprit has no Link:; the archive holds its v1, a review of v1 and v2 (its patch).
# No remote of the tree holds it: not public, so no regzbot line.
check "regression.eml replies to v2, to the author, every reviewer and list, says the culprit is not public, attaches the .config and console, names no path of this machine" \
	"$ROOT/tests/e2e/check-regression-mail.py" "$RESULTS/latest/regression.eml" "$CULPRIT" \
	--reply --not-public --no-path "$CACHE" --no-path "$TREE" --no-path "$RESULTS"
steps=$(sed -n 's/.*"step_count": \([0-9]*\).*/\1/p' "$RESULTS/latest/bisect.json")
# The ends, the steps and the revert: within ceil(log2 34) + 3 builds.
check "bisect took at most 9 builds ($steps steps + the ends + the revert)" test "$((steps + 3))" -le 9
check "bisect.log replays in git" sh -c "cd '$TREE' && { git bisect reset >/dev/null 2>&1; true; } && git bisect replay '$RESULTS/latest/bisect.log' >/dev/null &&
	test \"\$(git rev-parse refs/bisect/bad)\" = '$CULPRIT'; status=\$?; git bisect reset >/dev/null 2>&1; exit \$status"
check "git bisect run with 'test --tree .' ends on the culprit" sh -c "cd '$TREE' &&
	{ git bisect reset >/dev/null 2>&1; true; } && git bisect start refs/fpubench/history refs/fpubench/base >/dev/null &&
	git bisect run '$FPUBENCH' test --tree . --cpu '$FSAVE_CPU' --test fpu_seed --results '$RESULTS' >'$WORK/gbr' 2>&1;
	bad=\$(git rev-parse refs/bisect/bad); git bisect reset >/dev/null 2>&1; test \"\$bad\" = '$CULPRIT'"
tail -n 3 "$WORK/gbr" | sed 's/^/# /'
runs_before=$(ls "$RESULTS" | wc -l)
check "bisect with the ends swapped exits 128 before anything is built" \
	status_is 128 "$FPUBENCH" bisect --repo "$TREE" --good refs/fpubench/history \
	--bad refs/fpubench/base --cpu "$FSAVE_CPU" --test fpu_seed --results "$RESULTS"
check "the error has git's words, says the ends look swapped and suggests --fixed" \
	grep -q "^fpubench: some good revs are not ancestors of the bad rev: the ends look swapped, BAD 'refs/fpubench/base' is an ancestor of GOOD 'refs/fpubench/history'; .*add --fixed$" "$WORK/err"
check "and made no run directory" test "$(ls "$RESULTS" | wc -l)" -eq "$runs_before"
git init -q "$WORK/not-a-kernel" && echo hi >"$WORK/not-a-kernel/README" &&
	git -C "$WORK/not-a-kernel" add README &&
	git -C "$WORK/not-a-kernel" -c user.name=e2e -c user.email=e2e@example.org commit -qm one &&
	git -C "$WORK/not-a-kernel" -c user.name=e2e -c user.email=e2e@example.org commit -qm two --allow-empty
check "bisect of a repository that holds no kernel exits 128, naming it, before the cache has a work tree of it" \
	sh -c "'$FPUBENCH' bisect --cache '$WORK/nk-cache' --repo '$WORK/not-a-kernel' --good HEAD~1 --bad HEAD \
	--cpu '$FSAVE_CPU' --test fpu_seed --results '$RESULTS' 2>'$WORK/nk.err'; [ \$? = 128 ] &&
	grep -q \"^fpubench: '$WORK/not-a-kernel at [0-9a-f]*' is not a kernel tree\" '$WORK/nk.err' &&
	! test -e '$WORK/nk-cache/worktrees'"
check "bisect whose GOOD fails exits 3" \
	status_is 3 "$FPUBENCH" bisect --repo "$TREE" --good "$CULPRIT" \
	--bad refs/fpubench/history --cpu "$FSAVE_CPU" --test fpu_seed --results "$RESULTS"
check "the error says GOOD does not pass" grep -q "GOOD '$CULPRIT' does not pass" "$WORK/err"
# A fix to find: the culprit reverted on top of the history, then three harmless commits.
# Plumbing on an index of its own, with fixed dates: the same commits every run.
fix_history() {
	(
		cd "$TREE" &&
		GIT_INDEX_FILE=$(mktemp "$WORK/fix-index.XXXXXX") &&
		export GIT_INDEX_FILE GIT_AUTHOR_NAME=fpubench GIT_AUTHOR_EMAIL=fpubench@localhost \
			GIT_COMMITTER_NAME=fpubench GIT_COMMITTER_EMAIL=fpubench@localhost &&
		git read-tree refs/fpubench/history &&
		git diff "$CULPRIT" "$CULPRIT^" | git apply --cached &&
		head=$(GIT_AUTHOR_DATE="@1800000000 +0000" GIT_COMMITTER_DATE="@1800000000 +0000" \
			git commit-tree "$(git write-tree)" -p refs/fpubench/history -m "x86/fpu: Revert the waiting fsave") &&
		git update-ref refs/fpubench/history-fix "$head" &&
		for i in 1 2 3; do
			git cat-file blob "$head:arch/x86/kernel/fpu/bugs.c" >"$WORK/bugs.c" &&
			echo "/* after the fix, $i */" >>"$WORK/bugs.c" &&
			git update-index --cacheinfo "100644,$(git hash-object -w "$WORK/bugs.c"),arch/x86/kernel/fpu/bugs.c" &&
			head=$(GIT_AUTHOR_DATE="@$((1800000000 + i)) +0000" GIT_COMMITTER_DATE="@$((1800000000 + i)) +0000" \
				git commit-tree "$(git write-tree)" -p "$head" -m "x86/fpu: After the fix $i") || return 1
		done &&
		git update-ref refs/fpubench/fixed "$head"
	)
}
check "a history that fixes the test" fix_history
FIXED=$(git -C "$TREE" rev-parse refs/fpubench/history-fix)
check "bisect --fixed names and verifies the first fixed commit" \
	status_is 0 "$FPUBENCH" bisect --fixed --repo "$TREE" --bad refs/fpubench/history \
	--good refs/fpubench/fixed --cpu "$FSAVE_CPU" --test fpu_seed --results "$RESULTS" \
	--config "$WORK/report.conf"
grep '^bisect\|^  ' "$WORK/out" | sed 's/^/# /'
check "it says first fixed commit" grep -q "^bisect: first fixed commit $FIXED " "$WORK/out"
check "bisect.json names the fix" python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(not (j["search"] == "fix" and j["fix"] == sys.argv[2] and j["culprit"] is None))' \
	"$RESULTS/latest/bisect.json" "$FIXED"
check "and writes no regression mail" test ! -e "$RESULTS/latest/regression.eml"
check "its bisect.log replays in git with the terms it was started with" sh -c "cd '$TREE' &&
	{ git bisect reset >/dev/null 2>&1; true; } && git bisect replay '$RESULTS/latest/bisect.log' >/dev/null &&
	test \"\$(git rev-parse refs/bisect/fixed)\" = '$FIXED'; status=\$?; git bisect reset >/dev/null 2>&1; exit \$status"
check "bisect with an unknown revision exits 129" \
	status_is 129 "$FPUBENCH" bisect --repo "$TREE" --good no-such-rev --bad refs/fpubench/base
check "a --repo that is no repository is bad input for bisect and provenance alike (128)" \
	sh -c "'$FPUBENCH' bisect --repo /nonexistent --good a --bad b 2>/dev/null; [ \$? = 128 ] &&
	{ '$FPUBENCH' provenance --repo /nonexistent HEAD 2>/dev/null; [ \$? = 128 ]; }"
check "the error names the revision" grep -q "unknown revision 'no-such-rev'" "$WORK/err"

echo "# e2e: a nightly run over a git tree whose newest commit breaks a test bisects it"
# The first run tests the culprit's parent, the second the culprit, the branch's newest commit.
git -C "$TREE" update-ref refs/fpubench/nightly "$CULPRIT^"
cat >"$WORK/nightly-bisect.conf" <<-CONF
	[run]
	results = $WORK/nb-results
	bisect-budget = 1800
	[tree hist]
	source = git
	repo = $TREE
	branch = refs/fpubench/nightly
	[cpu]
	setup = $FSAVE_CPU
	[tests]
	test = fpu_seed
	[report]
	from = Fpu Bench <fpubench@example.net>
	CONF
check "the nightly of the culprit's parent passes" \
	status_is 0 "$FPUBENCH" run --config "$WORK/nightly-bisect.conf" --history "$WORK/nb-history.db"
git -C "$TREE" update-ref refs/fpubench/nightly "$CULPRIT"
SHORT=$(echo "$CULPRIT" | cut -c1-12)
git -C "$TREE" remote add e2e-public https://git.example.org/linux.git
git -C "$TREE" update-ref refs/remotes/e2e-public/master "$CULPRIT"
check "the nightly of the culprit exits 1: a new failure" \
	status_is 1 "$FPUBENCH" run --config "$WORK/nightly-bisect.conf" --history "$WORK/nb-history.db"
grep '^bisect' "$WORK/out" | sed 's/^/# /'
check "it bisects the new failure without being asked" \
	grep -q "^bisect: the new failure hist $FSAVE_CPU fpu_seed" "$WORK/out"
check "it names the culprit" grep -q "^bisect: culprit $SHORT" "$WORK/out"
check "report.html shows the culprit" \
	grep -q "<code class=\"culprit\">$SHORT</code>" "$WORK/nb-results/latest/report.html"
MAIL=$(grep -o 'href="bisect/[^"]*/regression.eml"' "$WORK/nb-results/latest/report.html" | sed 's/href="//; s/"$//')
check "report.html links the regression mail" test -f "$WORK/nb-results/latest/$MAIL"
# The tree's remote holds the culprit, as `git fetch` leaves a remote branch: it is public.
check "the mail names the public remote that holds the culprit, with the regzbot line" \
	"$ROOT/tests/e2e/check-regression-mail.py" "$WORK/nb-results/latest/$MAIL" "$CULPRIT" \
	--public https://git.example.org/linux.git --no-path "$CACHE" --no-path "$TREE"
check "the history holds the bisection" python3 -c "
import sqlite3, sys
row = sqlite3.connect(sys.argv[1]).execute('SELECT outcome, culprit, mail FROM bisections').fetchone()
sys.exit(not (row and row[0] == 'culprit' and row[1] == sys.argv[2] and row[2]))" "$WORK/nb-history.db" "$CULPRIT"
git -C "$TREE" remote remove e2e-public

echo "# e2e: bad input"
check "missing tarball exits 128" \
	status_is 128 env FPUBENCH_TARBALL=/nonexistent.tar.xz "$FPUBENCH" run --cache "$WORK/empty-cache" --results "$RESULTS"
check "the error names the tarball" grep -q "'/nonexistent.tar.xz'" "$WORK/err"
check "missing patch exits 128" \
	status_is 128 "$FPUBENCH" test --results "$RESULTS" --patch "$WORK/nope.patch"
check "unknown cpu model exits 132" \
	status_is 132 "$FPUBENCH" run --results "$RESULTS" --cpu no-such-cpu
check "the error names the model" grep -q "'no-such-cpu'" "$WORK/err"
check "a misspelt cpu feature exits 132 before anything is built" \
	status_is 132 "$FPUBENCH" test --cache "$WORK/feature-cache" --results "$WORK/feature-results" \
	--cpu pentium2,-fxrs
check "the error names the feature meant" grep -q "unknown cpu feature 'fxrs' .*did you mean 'fxsr'" "$WORK/err"
check "and leaves no cache or results behind" test ! -e "$WORK/feature-cache" -a ! -e "$WORK/feature-results"
check "an unknown option exits 129" status_is 129 "$FPUBENCH" run --frobnicate
check "the error names the option" grep -q "^fpubench: unknown option '--frobnicate'" "$WORK/err"
check "an option without its value exits 129" status_is 129 "$FPUBENCH" test --jobs
check "the error names the option" grep -q "^fpubench: option '--jobs' needs a value$" "$WORK/err"
check "an unreadable patch exits 128" status_is 128 "$FPUBENCH" test --patch "$WORK"
check "a patch on standard input that holds no diff exits 128, named '-'" \
	sh -c "echo x | '$FPUBENCH' test --patch - --cpu '$FSAVE_CPU' 2>&1 >/dev/null | grep -qx \"fpubench: patch '-' holds no diff\""
check "the error names the patch" grep -q "^fpubench: patch '$WORK' is not a readable file$" "$WORK/err"
check "an unknown test exits 129" status_is 129 "$FPUBENCH" test --test no_such --cpu "$FSAVE_CPU"
check "the error names the test" grep -q "^fpubench: unknown test 'no_such'" "$WORK/err"
check "--version names the commit the bench was built from" \
	sh -c "'$FPUBENCH' --version | grep -q '^fpubench [0-9a-f]\{7,\}'"
check "test --list names the commit each test guards, and its contract" \
	sh -c "'$FPUBENCH' test --list | grep -q '^fpu_seed  *f994d99cf140  *the legacy save path saves with fnsave'"
printf '[run]\njbos = 2\n' >"$WORK/bad.conf"
check "a malformed config file exits 128" status_is 128 "$FPUBENCH" run --config "$WORK/bad.conf"
check "the error names the file and line" \
	grep -q "^fpubench: '$WORK/bad.conf' line 2: unknown key 'jbos' in \[run\]$" "$WORK/err"
check "an archive that is not mail exits 128" \
	status_is 128 "$FPUBENCH" provenance --repo "$TREE" --archive "$ROOT/README.md" refs/fpubench/base
check "the error names the archive" grep -q "^fpubench: archive '$ROOT/README.md' holds no mail" "$WORK/err"
check "console reads a log from standard input, named '-'" \
	sh -c "printf 'BUG: kernel NULL pointer dereference, address: 00000000\nEIP: f+0x1/0x2\n' |
	'$FPUBENCH' console - | grep -qx -- '-: BUG: unable to handle kernel NULL pointer dereference in f'"
check "console --json to a missing directory exits 128 before it prints a result" \
	status_is 128 "$FPUBENCH" console --json /nonexistent/x.json "$ROOT/README.md"
check "the error names the --json path, and nothing was printed" \
	sh -c "grep -qx \"fpubench: cannot write --json '/nonexistent/x.json': no directory '/nonexistent'\" '$WORK/err' &&
	! test -s '$WORK/out'"
mkdir -p "$WORK/patches"
cp "$ROOT"/patches/*.patch "$ROOT/patches/series" "$ROOT/patches/variants" "$WORK/patches/"
cp "$FIX/config/dropped-option.config" "$WORK/patches/fpu.config"
check "dropped config option exits 131" \
	status_is 131 "$FPUBENCH" run --results "$RESULTS" --patches "$WORK/patches" --cpu "$FSAVE_CPU"
check "the error names the option" grep -q "'CONFIG_SERIAL_8250=y'" "$WORK/err"
: >"$WORK/not-a-dir"
check "unwritable cache exits 133" \
	status_is 133 "$FPUBENCH" run --cache "$WORK/not-a-dir/cache" --results "$RESULTS"
check "the error names the cache" grep -q "not-a-dir" "$WORK/err"
complete_runs() {	# every run directory holds its final result: failed runs left none
	for d in "$RESULTS"/2*; do
		[ -e "$d/results.json" ] || [ -e "$d/bisect.json" ] || { echo "# incomplete: $d"; return 1; }
	done
}
check "the failed runs left no run directory" complete_runs
# This cache's guests and the private daemon's: other benches on a shared machine run their own.
check "no qemu left running" sh -c "! pgrep -f '[q]emu-system-i386.*guest=fpubench-.*($CACHE/libvirt/|$WORK/)' >/dev/null"

summary
