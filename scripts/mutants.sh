#!/bin/sh
# mutants.sh BENCH [FPUBENCH-OPTION]...: the mutation harness
# (tests/mutants/README.md).  Checks that the pristine `patched` kernel
# passes, then builds and tests it with each tests/mutants/*.patch on top
# (`BENCH test --patch PATCH OPTION...`) and prints one line per mutant:
#
#   killed     exit 1: a test failed, crashed or timed out
#   survived   exit 0, and the patch does not say why it must
#   explained  exit 0, and the patch has an `# equivalent:` line
#   broken     exit 125: the mutant does not apply or build (its own error)
#   error N    any other status: the bench went wrong
#
# then `mutants: K killed of N (P %), S survivors, E explained` and the run
# time.  Exits 0 only when every mutant is killed or explained; 2 when the
# pristine kernel does not pass (every kill would be meaningless).
# MUTANTS, a glob from the repository's top (default tests/mutants/*.patch),
# picks other patch files.  Each run's output stays in a directory named at the
# start, for the failing tests' diagnostics.
set -eu

[ $# -ge 1 ] || { echo "usage: mutants.sh BENCH [FPUBENCH-OPTION]..." >&2; exit 128; }
TOP=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$(realpath "$1")
shift
LOGS=$(mktemp -d /tmp/fpubench-mutants.XXXXXX)
# A copy, so that a rebuild meanwhile cannot pull the binary from under the
# runs; beside the original, where it finds its data (runtime_data_path()).
COPY="$BENCH.mutants-$$"
trap 'rm -f "$COPY"' EXIT
cp "$BENCH" "$COPY"
BENCH="$COPY"
cd "$TOP"
MUTANTS=${MUTANTS:-tests/mutants/*.patch}
start=$(date +%s)
echo "mutants: logs in $LOGS"

# The tests that did not pass in a `test` run's matrix, e.g. "fpu_ptrace fpu_survive".
failed_tests()
{
	awk '$4 == "fail" || $4 == "crash" || $4 == "timeout" || $4 == "error" { print $3 }' "$1" |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

status=0
"$BENCH" test "$@" >"$LOGS/pristine.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
	echo "mutants: the pristine kernel does not pass (exit $status; failing: $(failed_tests "$LOGS/pristine.log")), see $LOGS/pristine.log"
	exit 2
fi
echo "mutants: the pristine kernel passes ($(( $(date +%s) - start )) s)"

total=0 killed=0 survivors=0 explained=0
# Unquoted on purpose: MUTANTS is a glob; what it matches is not split again.
for patch in $MUTANTS; do
	[ -f "$patch" ] || { echo "mutants: no patch '$patch'" >&2; exit 129; }
	name=$(basename "$patch" .patch)
	log="$LOGS/$name.log"
	t0=$(date +%s)
	status=0
	"$BENCH" test --patch "$patch" "$@" >"$log" 2>&1 || status=$?
	took=$(( $(date +%s) - t0 ))
	total=$((total + 1))
	case $status in
	1)	killed=$((killed + 1))
		verdict="killed    by $(failed_tests "$log")" ;;
	0)	if grep -q '^# equivalent:' "$patch"; then
			explained=$((explained + 1))
			verdict="explained"
		else
			survivors=$((survivors + 1))
			verdict="SURVIVED"
		fi ;;
	125)	verdict="broken    $(grep '^fpubench: ' "$log" | tail -n 1)" ;;
	*)	verdict="error $status $(grep '^fpubench: ' "$log" | tail -n 1)" ;;
	esac
	printf '%-36s %4s s  %s\n' "$name" "$took" "$verdict"
done

percent=0
[ "$total" -eq 0 ] || percent=$((killed * 100 / total))
echo "mutants: $killed killed of $total ($percent %), $survivors survivors, $explained explained"
echo "mutants: run time $(( $(date +%s) - start )) s"
[ $((killed + explained)) -eq "$total" ]
