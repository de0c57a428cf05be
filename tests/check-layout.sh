#!/bin/sh
# scripts/check-layout.sh against faults planted in a copy of the repository:
# it passes on the copy as it is and fails, naming the place, on each fault.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fpubench-layout.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
pass=0
fail=0

check() {
	if "$@" >"$WORK/out" 2>&1; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fail=$((fail + 1)); echo "FAIL $name"; sed 's/^/     /' "$WORK/out"
	fi
}

# A fresh copy of the tracked files as they are in the work tree.
copy() {
	rm -rf "$WORK/repo"
	mkdir "$WORK/repo"
	(cd "$ROOT" && git ls-files -z --deduplicate | xargs -0 cp --parents -t "$WORK/repo")
	git -C "$WORK/repo" init -q && git -C "$WORK/repo" add -A
}

# Runs check-layout in the copy; it must fail and print want.
refuses() {
	want=$1
	! sh "$WORK/repo/scripts/check-layout.sh" >"$WORK/layout" 2>&1 &&
		grep -F -- "$want" "$WORK/layout"
}

copy
name="the repository as it is passes"
check sh "$WORK/repo/scripts/check-layout.sh"

copy
echo '/* see bench/judge/no-such-file.h */' >>"$WORK/repo/lib/str.c"
git -C "$WORK/repo" add -A
name="a comment naming a missing file fails"
check refuses "lib/str.c:"

copy
printf '\nSee `docs/no-such-page.md`.\n' >>"$WORK/repo/README.md"
git -C "$WORK/repo" add -A
name="a document naming a missing file fails"
check refuses "'docs/no-such-page.md' does not exist"

copy
sed -i '0,/^#include "/s//#include "bench\/run\/session.h"\n#include "/' "$WORK/repo/bench/judge/crash.c"
name="an upward include fails"
check refuses "bench/judge/crash.c:"

copy
seq 1 601 | sed 's|^|/* line |; s|$| */|' >"$WORK/repo/lib/planted.c"
git -C "$WORK/repo" add -A
name="a 601-line source file fails"
check refuses "lib/planted.c:601: 601 lines, over 600"

copy
{ printf 'int planted(void)\n{\n'; seq 1 81 | sed 's|.*|\t;|'; printf '}\n'; } >"$WORK/repo/lib/planted.c"
git -C "$WORK/repo" add -A
name="an 81-line function fails"
check refuses "lib/planted.c:2: function planted is 81 lines, over 80"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
