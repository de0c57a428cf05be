#!/bin/sh
# test-generate.sh: `scripts/mutants.sh --generate` end to end without a kernel
# (`make mutants-unit`).  The cache is made here: a git tree whose x87 files
# are all fixture.c (so only the fpu/ ones give mutants: the other files'
# targets name functions it does not have), a `patched` build directory with a
# kbuild-style .cmd file for each, built with the host's gcc -m32.  BENCH is a
# stub of `fpubench test` that writes a results.json of two setups (486 FSAVE,
# pentium3 FXSAVE) and judges a patch by its mutant's id: first hex digit 0-7
# killed on the 486, 8-b killed on the pentium3, c-f survived.  Checked: the
# FSAVE group runs first and the FXSR one only when the first did not kill;
# every verdict reaches the store; a second sample adds other mutants.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../../.." && pwd)
GEN=$TOP/scripts/mutants-gen.py
TMP=$(mktemp -d /tmp/mutants-generate-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL $*"; exit 1; }

CACHE=$TMP/cache
TREE=$CACHE/trees/debian-6.1.192
BUILD=$CACHE/build/debian-6.1.192/patched
mkdir -p "$TREE/include" "$BUILD"
cp "$HERE/stubs.h" "$TREE/include/"
for rel in arch/x86/kernel/fpu/core.c arch/x86/kernel/fpu/signal.c arch/x86/kernel/fpu/regset.c \
	arch/x86/kernel/fpu/init.c arch/x86/kernel/fpu/bugs.c arch/x86/kernel/fpu/xstate.c \
	arch/x86/kernel/traps.c arch/x86/kernel/signal.c arch/x86/kernel/process_32.c \
	arch/x86/kernel/ptrace.c; do
	mkdir -p "$TREE/$(dirname "$rel")" "$BUILD/$(dirname "$rel")"
	cp "$HERE/fixture.c" "$TREE/$rel"
	obj=${rel%.c}.o
	printf 'cmd_%s := gcc -Wp,-MMD,%s.d -nostdinc -I%s/include -m32 -Os -fno-pic -c -o %s %s/%s\n' \
		"$obj" "$obj" "$TREE" "$obj" "$TREE" "$rel" >"$BUILD/$(dirname "$rel")/.$(basename "$obj").cmd"
done
git -C "$TREE" init -q
git -C "$TREE" add -A
git -C "$TREE" -c user.name=t -c user.email=t@t commit -qm tree
COMMIT=$(git -C "$TREE" rev-parse HEAD)

cat >"$TMP/bench" <<EOF
#!/bin/sh
# The stub: fpubench test [--patch P] [--results DIR] [--cpu SETUP]...
results=./results patch= cpus=
while [ \$# -gt 0 ]; do
	case \$1 in
	--patch) patch=\$2; shift ;;
	--results) results=\$2; shift ;;
	--cpu) cpus="\$cpus \$2"; shift ;;
	esac
	shift
done
[ -n "\$cpus" ] || cpus="486 pentium3"
id=
[ -z "\$patch" ] || id=\$(sed -n 's/^# generated: //p' "\$patch")
echo "\$id\$cpus" >>"$TMP/calls"
run=\$results/run-\$\$
mkdir -p "\$run"
echo "kernel  cpu setup  test  verdict  expected  details"
status=0 sep= cells=
for c in \$cpus; do
	mode=FSAVE
	[ "\$c" = 486 ] || mode=FXSAVE
	verdict=pass test=fpu_stub
	case \$c:\$id in
	486:[0-7]*|pentium3:[ab]*) verdict=fail status=1 ;;
	# A kernel that never reaches init: git bisect's skip, a kill for mutants.
	pentium3:[89]*) verdict=crash status=125 test=boot ;;
	esac
	echo "test  \$c  \$test  \$verdict  pass"
	cells="\$cells\$sep{\"commit\": \"$COMMIT\", \"kernel_version\": \"6.1.192\", \"cpu\": \"\$c\", \"cmdline\": \"\", \"fpu_mode\": \"\$mode\", \"test\": \"fpu_stub\", \"status\": \"\$verdict\"}"
	sep=", "
done
echo "[\$cells]" >"\$run/results.json"
echo "results: \$run"
exit \$status
EOF
chmod +x "$TMP/bench"

run() {	# run SEED: one sample of 4, generated mutants only
	(cd "$TMP" && MUTANTS= SAMPLE=4 SEED=$1 FPUBENCH_CACHE=$CACHE "$TOP/scripts/mutants.sh" \
		--generate "$TMP/bench" >"$TMP/out.$1" 2>&1) || fail "mutants.sh exited $?: $(cat "$TMP/out.$1")"
}

run 1
grep -q '^mutants: generated [0-9]* over every line' "$TMP/out.1" || fail "no generation line: $(cat "$TMP/out.1")"
DB=$CACHE/mutants.db
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM outcomes WHERE run_id = 1')" -eq 4 ] || fail "run 1 stored $(sqlite3 "$DB" 'SELECT count(*) FROM outcomes WHERE run_id = 1') outcomes, not 4"
for id in $(sqlite3 "$DB" 'SELECT mutant_id FROM outcomes'); do
	outcome=$(sqlite3 "$DB" "SELECT outcome FROM outcomes WHERE mutant_id = '$id'")
	calls=$(grep -c "^$id " "$TMP/calls" || true)
	case $outcome:$id in
	equivalent:*|duplicate:*) [ "$calls" -eq 0 ] || fail "$id: $outcome, yet booted" ;;
	killed:[0-7]*) [ "$calls" -eq 1 ] && grep -q "^$id 486\$" "$TMP/calls" ||
			fail "$id: killed on the FSAVE setup, yet $calls runs" ;;
	killed:[89ab]*) [ "$calls" -eq 2 ] && grep -q "^$id pentium3\$" "$TMP/calls" ||
			fail "$id: killed on the FXSR setup after the FSAVE one, yet $calls runs"
		case $id in
		[89]*) [ "$(sqlite3 "$DB" "SELECT detail FROM outcomes WHERE mutant_id = '$id'")" = \
			 "boot: boot" ] || fail "$id: a kernel that does not boot, not killed by 'boot'" ;;
		esac ;;
	survived:[c-f]*) [ "$calls" -eq 2 ] || fail "$id: survived with $calls runs" ;;
	*) fail "$id: $outcome" ;;
	esac
	grep -q "^$id  *[0-9]* s  $outcome" "$TMP/out.1" || fail "$id: no '$outcome' line"
done
grep -q '^all  ' "$TMP/out.1" || fail "no report"

# Another sample adds other mutants to the store.
run 2
[ "$(sqlite3 "$DB" 'SELECT count(DISTINCT mutant_id) FROM outcomes')" -eq 8 ] ||
	fail "two samples of 4 judged $(sqlite3 "$DB" 'SELECT count(DISTINCT mutant_id) FROM outcomes') mutants"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM outcomes WHERE detail = 'boot: boot'")" -gt 0 ] ||
	fail "no sampled mutant met a kernel that does not boot"
echo "ok   mutants.sh --generate: 2 samples of 4, the FSAVE group first, a kernel that does not boot killed, every verdict stored"
