#!/bin/sh
# The docs beside the commands (`make check-docs`): every command of the
# option table has its page in docs/ and its man page, which man renders;
# each option the table gives a command is in that command's rendered man
# page; and the bash completion offers every option of `test`.
# Usage: tests/docs.sh BUILD (the build directory, with `make man completion` done).
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
DUMP=$BUILD/options.tsv
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
bad=0
fail() { echo "docs: $*" >&2; bad=1; }

[ -s "$DUMP" ] || { echo "docs: no '$DUMP' (run 'make man')" >&2; exit 1; }
commands=$(awk -F'\t' '$1 == "command" { print $2 }' "$DUMP")
[ -n "$commands" ] || fail "the option table lists no command"

render() {	# render PAGE: the man page as text, one line per paragraph's line
	MANWIDTH=200 LC_ALL=C.UTF-8 man -l "$1" 2>"$WORK/man.err" | col -b
	if [ -s "$WORK/man.err" ]; then fail "man -l $1: $(head -n 1 "$WORK/man.err")"; fi
}

for page in fpubench $(printf 'fpubench-%s ' $commands); do
	[ -f "docs/$page.md" ] || fail "no page docs/$page.md"
	[ -f "$BUILD/man/$page.1" ] || { fail "no man page $BUILD/man/$page.1"; continue; }
	render "$BUILD/man/$page.1" >"$WORK/$page.txt"
	for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES; do
		grep -q "^$section\$" "$WORK/$page.txt" || fail "$page.1 has no $section section"
	done
done

# Each option of each command, long and short, in the OPTIONS section of its man page.
awk -F'\t' '$1 == "option" { print $2 "\t" $3 "\t" $4 }' "$DUMP" |
while IFS="$(printf '\t')" read -r cmd short long; do
	text=$WORK/fpubench-$cmd.txt
	[ -f "$text" ] || continue
	sed -n '/^OPTIONS$/,/^[A-Z]/p' "$text" >"$WORK/options.txt"
	for o in $long $short; do
		grep -q -- "^ *$o\\b\\|, $o\\b" "$WORK/options.txt" ||
			{ echo "docs: fpubench-$cmd.1 does not give $o in OPTIONS" >&2; echo x; }
	done
done >"$WORK/missing"
[ -s "$WORK/missing" ] && bad=1

complete_line() {	# complete_line LINE: what the completion offers at its end, a line each
	bash -c '. "$1"; COMP_LINE=$2; COMP_POINT=${#2}; _fpubench; printf "%s\n" "${COMPREPLY[@]}"' \
		sh "$BUILD/completion/fpubench" "$1"
}

# The completion offers every option of test after `fpubench test -`.
offered=$(complete_line "fpubench test -")
for o in $(awk -F'\t' '$1 == "option" && $2 == "test" { print $4; if ($3 != "") print $3 }' "$DUMP"); do
	printf '%s\n' "$offered" | grep -qx -- "$o" || fail "the completion does not offer '$o' for test"
done
# And the default config's setups after --cpu, past a ':' as bash splits the word there.
offered=$(complete_line "fpubench run --cpu pentium2")
[ "$offered" = "pentium2,-fxsr" ] || fail "the completion offers '$offered' for --cpu pentium2"
offered=$(complete_line "fpubench run --cpu pentium3:n")
[ "$offered" = "nofxsr" ] || fail "the completion offers '$offered' for --cpu pentium3:n"

[ "$bad" = 0 ] && echo "docs: ok ($(echo $commands | wc -w) commands, $(grep -c '^option' "$DUMP") option rows)"
exit $bad
