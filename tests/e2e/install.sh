#!/bin/sh
# End-to-end: an installed fpubench, away from its source tree.
#
# Installs into a scratch DESTDIR (`make install DESTDIR=... PREFIX=/usr`),
# moves the installed tree elsewhere, so that any path compiled in at build
# time would miss, and from /tmp runs a one-setup `fpubench test` under
# strace: it must pass, write its results to the user's data directory
# (XDG_DATA_HOME) and open nothing under the source tree.  One boot of the
# cached "patched" kernel.  Each check prints "ok N - what" or
# "not ok N - what"; the closing line counts them.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/fpubench-install.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CPU=${E2E_FSAVE_CPU:-pentium2,-fxsr}

. "$ROOT/tests/e2e/lib.sh"

has_target() {	# has_target NAME: whether the Makefile has that target
	grep -q "^$1:" "$ROOT/Makefile"
}

echo "# e2e install: make install DESTDIR, moved, run from /tmp"
check "make install DESTDIR=... PREFIX=/usr" \
	status_is 0 make -C "$ROOT" --no-print-directory install DESTDIR="$WORK/dest" PREFIX=/usr
for f in bin/fpubench share/fpubench/fpubench.conf share/fpubench/guest/init \
	share/fpubench/guest/tests.list share/fpubench/patches/series \
	share/fpubench/patches/variants share/fpubench/patches/fpu.config share/fpubench/patches/gcov/profile-fpu.patch \
	share/fpubench/kmod/Kbuild; do
	check "it installed /usr/$f" test -f "$WORK/dest/usr/$f"
done
if has_target man; then
	check "it installed the man pages" test -f "$WORK/dest/usr/share/man/man1/fpubench-test.1"
fi
if has_target completion; then
	check "it installed the bash completion" \
		test -f "$WORK/dest/usr/share/bash-completion/completions/fpubench"
fi

mv "$WORK/dest" "$WORK/moved"
BIN="$WORK/moved/usr/bin/fpubench"
DATA="$WORK/moved/usr/share/fpubench"
cd /tmp || exit 1
check "the moved binary lists the installed guest's tests" \
	sh -c "'$BIN' test --list | grep -q '^fpu_seed '"
check "test --cpu $CPU --test fpu_seed passes from /tmp" \
	status_is 0 env XDG_DATA_HOME="$WORK/data" strace -f --seccomp-bpf -qq \
	-e trace=open,openat,execve -o "$WORK/strace" "$BIN" test --cpu "$CPU" --test fpu_seed
sed 's/^/# /' "$WORK/out" | tail -n 5
check "its results are in XDG_DATA_HOME/fpubench/results" \
	grep -q '"status": "pass"' "$WORK/data/fpubench/results/latest/results.json"
# Its opens were seen, so that the next check means something (the module's
# sources are read only for fpu_kmod).
check "it read the installed series" grep -q "\"$DATA/patches/series\"" "$WORK/strace"
check "it read the installed guest" grep -q "\"$DATA/guest/init\"" "$WORK/strace"
check "it opened nothing under the source tree $ROOT" \
	sh -c "! grep -F '\"$ROOT/' '$WORK/strace' | sed 's/^/# /' | grep ."

check "run from /tmp reads the installed config (a bad --cpu exits 132 before building)" \
	sh -c "XDG_DATA_HOME='$WORK/data' '$BIN' run --cpu no-such-cpu >'$WORK/run.out' 2>&1;
	[ \$? -eq 132 ] && ! grep -q 'no fpubench data\|fpubench.conf' '$WORK/run.out'"

echo "# e2e install: the build tree's binary from another directory"
check "build/fpubench finds the checkout's guest from /tmp" \
	sh -c "'$ROOT/build/fpubench' test --list | grep -q '^fpu_seed '"

summary
