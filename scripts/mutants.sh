#!/bin/sh
# mutants.sh [--generate] BENCH [FPUBENCH-OPTION]...: the mutation harness
# (tests/mutants/README.md).  Checks that the pristine `patched` kernel
# passes, then builds and tests it with each tests/mutants/*.patch on top
# (`BENCH test --patch PATCH OPTION...`) and prints one line per mutant:
#
#   killed     exit 1: a test failed, crashed or timed out
#   survived   exit 0, and the patch does not say why it must
#   explained  exit 0, and the patch has an `# equivalent:` line
#   broken     exit 125: the mutant does not apply or build (its own error);
#              a kernel that builds but never reaches init is killed
#   error N    any other status: the bench went wrong
#
# then `mutants: K killed of N (P %), S survivors, E explained` and the run
# time.  Exits 0 only when every mutant is killed or explained; 2 when the
# pristine kernel does not pass (every kill would be meaningless); 130 or
# 143 at once when the bench was interrupted (the mutant at hand unrecorded).
# MUTANTS, a glob from the repository's top (default tests/mutants/*.patch;
# set and empty: none), picks other patch files.  Each run's output and results
# stay in a directory named at the start (results in its results/, unless
# --results says otherwise), for the failing tests' diagnostics.
#
# --generate then runs the generated mutants (scripts/mutants-gen.py): of the
# x87 code of the tested tree, on the lines COVERAGE (an lcov tracefile, the
# FSAVE setups' fsave.info) says run, every mutant not judged before in the
# store MUTANTS_DB (default <cache>/mutants.db), or SAMPLE=N of them picked
# with SEED=S (RETEST=survived picks the survivors again too, RETEST=all every
# mutant: a fixed sample; MUTANTS_IDS=FILE the ids FILE lists, and one of them
# that survives fails the run).  Each is compiled first (equivalent, duplicate and unbuilt ones
# are recorded and not booted), then tested on the FSAVE setups and, only if
# they do not kill it, on the others (with a tracefile per setup beside
# COVERAGE, named as the setup with `,` and `:` made `_`, only on the setups
# that run the mutant's lines), each run stopping at its first unmet cell
# (--fail-fast); the outcome goes to the store, and the
# figures of every run so far (`mutants-gen.py report`) close the output, with
# MUTANTS_HTML=FILE as HTML too (default with COVERAGE: mutants.html beside
# it, each mutant linked to its line in the coverage report's html/).
# Generated survivors do not fail the run.  MUTANTS_FAIL_FAST=0 runs every
# cell of a generated mutant, as before --fail-fast (the bench's figure 8c
# compares the two).
set -eu

GENERATE=0
if [ "${1:-}" = --generate ]; then
	GENERATE=1
	shift
fi
[ $# -ge 1 ] || { echo "usage: mutants.sh [--generate] BENCH [FPUBENCH-OPTION]..." >&2; exit 128; }
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
MUTANTS=${MUTANTS-tests/mutants/*.patch}
FAIL_FAST=--fail-fast
[ "${MUTANTS_FAIL_FAST:-1}" != 0 ] || FAIL_FAST=
start=$(date +%s)
echo "mutants: logs in $LOGS"

# A bench stopped by SIGINT or SIGTERM (exit 130, 143) stops the whole run:
# the mutant at hand is not recorded, and nothing is tried again.
stop_if_interrupted()
{
	case $1 in
	130|143) echo "mutants: interrupted (the bench exited $1); the mutant at hand is not recorded" >&2
		exit "$1" ;;
	esac
}

# The tests that did not pass in a `test` run's matrix, e.g. "fpu_ptrace fpu_survive".
failed_tests()
{
	awk '$4 == "fail" || $4 == "crash" || $4 == "timeout" || $4 == "error" { print $3 }' "$1" |
		sort -u | tr '\n' ' ' | sed 's/ $//'
}

# Whether a `test` that exited 125 built its kernel and booted it, and the
# kernel never reached init: the pristine one does, so the mutant broke the
# boot, a kill (git bisect's "skip" is for a kernel that cannot be tested).
booted_dead()
{
	[ -n "$(failed_tests "$1")" ]
}
# The value of fpubench's option --NAME in "$@" (last wins), or nothing.
option()
{
	name=$1
	shift
	val=
	while [ $# -gt 0 ]; do
		case $1 in
		"--$name")	[ $# -lt 2 ] || val=$2; shift ;;
		"--$name="*)	val=${1#--*=} ;;
		esac
		shift
	done
	printf '%s' "$val"
}

# One generated mutant, built: `fpubench test --fail-fast` (one killing cell is
# enough: the boots stop there) on the FSAVE setups, then on the
# others unless the first killed it; of each group, only the setups whose
# coverage runs the mutant's lines, when the tracefiles say (the compile step
# writes them as GEN_WORK/ID.GROUP).  Sets verdict and detail.
run_generated()
{
	id=$1 patch=$2
	shift 2
	verdict=survived detail=
	for group in $groups; do
		cpus=$(cat "$GEN_WORK/$id.$group" 2>/dev/null || cat "$GEN_WORK/setups.$group")
		[ -n "$cpus" ] || [ "$group" = given ] || continue
		log="$LOGS/$id.$group.log"
		rc=0
		# shellcheck disable=SC2086 # one --cpu SETUP pair a word, no setup has a space; FAIL_FAST one word or none
		"$BENCH" test $FAIL_FAST --patch "$patch" --results "$LOGS/results-$id" $cpus "$@" \
			</dev/null >"$log" 2>&1 || rc=$?
		stop_if_interrupted "$rc"
		# A bench that went wrong (its libvirt, say) gets one more try.
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 125 ]; then
			rc=0
			"$BENCH" test $FAIL_FAST --patch "$patch" --results "$LOGS/results-$id" $cpus "$@" \
				</dev/null >"$log" 2>&1 || rc=$?
			stop_if_interrupted "$rc"
		fi
		case $rc in
		0)	;;
		1)	verdict=killed detail=$(failed_tests "$log"); break ;;
		125)	if booted_dead "$log"; then
				verdict=killed detail="boot: $(failed_tests "$log")"
			else
				verdict=unbuilt detail=$(grep '^fpubench: ' "$log" | tail -n 1)
			fi
			break ;;
		*)	verdict=error detail="exit $rc $(grep '^fpubench: ' "$log" | tail -n 1)"; break ;;
		esac
	done
	# A kill's consoles are not needed; a survivor's are its evidence.
	[ "$verdict" != killed ] || rm -rf "$LOGS/results-$id"
}

# The generated mutants (see the header); returns 1 when the bench went wrong.
generated()
{
	GEN="$TOP/scripts/mutants-gen.py"
	GEN_WORK="$LOGS/generated"
	mkdir -p "$GEN_WORK"
	cache=$(option cache "$@")
	cache=${cache:-${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}}
	db=${MUTANTS_DB:-$cache/mutants.db}
	results=$(sed -n 's/^results: //p' "$LOGS/pristine.log" | tail -n 1)
	# The tested commit, its tree and its setups in two groups, FSAVE and the others.
	"$GEN" pristine "$results/results.json" "$GEN_WORK" || return 1
	read -r commit version <"$GEN_WORK/pristine"
	tree="$cache/trees/debian-$version"
	build="$cache/build/debian-$version/patched"
	# Setups the caller named are one group.
	if [ -n "$(option cpu "$@")" ]; then
		: >"$GEN_WORK/setups.given"
		groups=given
	else
		groups=
		for g in fsave other; do
			[ ! -s "$GEN_WORK/setups.$g" ] || groups="$groups $g"
		done
	fi
	"$GEN" generate --db "$db" --tree "$tree" --commit "$commit" --build "$build" \
		--work "$GEN_WORK" ${COVERAGE:+--coverage "$COVERAGE"} || return 1
	run=$("$GEN" begin --db "$db" --commit "$commit" ${SAMPLE:+--sample "$SAMPLE"} \
		${SEED:+--seed "$SEED"} ${COVERAGE:+--coverage "$COVERAGE"} \
		--version "$(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)") || return 1
	"$GEN" pick --db "$db" --commit "$commit" ${SAMPLE:+--sample "$SAMPLE"} \
		${SEED:+--seed "$SEED"} ${RETEST:+--retest "$RETEST"} ${MUTANTS_IDS:+--ids "$MUTANTS_IDS"} \
		>"$GEN_WORK/picked" || return 1
	echo "mutants: $(wc -l <"$GEN_WORK/picked") generated mutants to judge${SAMPLE:+ (SAMPLE=$SAMPLE SEED=${SEED:-0})}, run $run of $db"
	gen_status=0
	while read -r id; do
		t0=$(date +%s)
		built=$("$GEN" compile --db "$db" --build "$build" --work "$GEN_WORK" "$id") || return 1
		case $built in
		equivalent)	verdict=equivalent detail= ;;
		duplicate\ *)	verdict=duplicate detail=${built#duplicate } ;;
		unbuilt\ *)	verdict=unbuilt detail=${built#unbuilt } ;;
		patch\ *)	run_generated "$id" "${built#patch }" "$@" ;;
		*)		echo "mutants: mutants-gen.py compile said '$built'" >&2; return 1 ;;
		esac
		took=$(( $(date +%s) - t0 ))
		[ "$verdict" != error ] || gen_status=1
		# A listed mutant was listed as killed.
		[ -z "${MUTANTS_IDS:-}" ] || [ "$verdict" != survived ] || gen_status=1
		"$GEN" record --db "$db" --run "$run" --seconds "$took" ${detail:+--detail "$detail"} \
			"$id" "$verdict" || return 1
		printf '%-36s %4s s  %s %s\n' "$id" "$took" "$verdict" "$detail"
	done <"$GEN_WORK/picked"
	"$GEN" end --db "$db" --run "$run"
	# Beside a coverage report, the HTML goes with it and links to its lines.
	covdir=
	[ -z "${COVERAGE:-}" ] || covdir=$(dirname "$COVERAGE")
	[ -n "${MUTANTS_HTML:-}" ] || [ -z "$covdir" ] || MUTANTS_HTML=$covdir/mutants.html
	"$GEN" report --db "$db" --commit "$commit" ${MUTANTS_HTML:+--html "$MUTANTS_HTML"} \
		${covdir:+--coverage-html "$covdir/html"}
	return $gen_status
}

# Each run's results stay with its logs, not among the user's own runs (unless the caller says where).
[ -n "$(option results "$@")" ] || set -- "$@" --results "$LOGS/results"
status=0
"$BENCH" test "$@" >"$LOGS/pristine.log" 2>&1 || status=$?
stop_if_interrupted "$status"
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
	stop_if_interrupted "$status"
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
	125)	if booted_dead "$log"; then
			killed=$((killed + 1))
			verdict="killed    by boot: $(failed_tests "$log")"
		else
			verdict="broken    $(grep '^fpubench: ' "$log" | tail -n 1)"
		fi ;;
	*)	verdict="error $status $(grep '^fpubench: ' "$log" | tail -n 1)" ;;
	esac
	printf '%-36s %4s s  %s\n' "$name" "$took" "$verdict"
done

percent=0
[ "$total" -eq 0 ] || percent=$((killed * 100 / total))
[ -z "$MUTANTS" ] ||
	echo "mutants: $killed killed of $total ($percent %), $survivors survivors, $explained explained"
gen_failed=0
[ "$GENERATE" -eq 0 ] || generated "$@" || gen_failed=1
echo "mutants: run time $(( $(date +%s) - start )) s"
[ $((killed + explained)) -eq "$total" ] && [ "$gen_failed" -eq 0 ]
