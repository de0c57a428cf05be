#!/bin/sh
# End-to-end: the matrix through LAVA (issue 32; docs/fpubench-lava.md).
# `fpubench lava --emit` on Debian's 6.1 tree with the cache's builds: a
# job per (kernel, setup) boot, each valid for LAVA's own schema
# (lava-schema.py --strict, with Debian's python3, where voluptuous is),
# the artefacts and SHA256SUMS right; a config's boards' jobs too, and a
# board no lab holds refused.  Then the lava-run leg: the default
# matrix under libvirt alone, and again over a `engine = lava-run` lab and
# the embedded libvirt host together; every cell met, some on each, each
# cell's verdict and crash equal to the libvirt run's, each lab cell
# linked to its job in report.html and KCIDB.  28 boots and 14 jobs,
# about two minutes.  Needs lava-dispatcher and root (`make check-lava`
# installs it).
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/fpubench-lava.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SCHEMA=/usr/share/lava-common/lava-schema.py
EMIT="$WORK/emit"

. "$ROOT/tests/e2e/lava-lib.sh"

schema_ok() {	# every job of the directory passes LAVA's strict schema check
	for j in "$1"/jobs/*.yaml; do
		/usr/bin/python3 "$SCHEMA" job --strict "$j" >"$WORK/schema" 2>&1 ||
			{ sed 's/^/# /' "$WORK/schema"; return 1; }
	done
}

count_is() {	# count_is N GLOB...: that many files match
	want=$1
	shift
	[ "$#" -eq "$want" ] && [ -e "$1" ]
}

check "lava --emit builds and writes the jobs" status_is 0 "$FPUBENCH" lava --emit "$EMIT"
# Two variants on the seven default setups: fourteen boots.
check "a job per (kernel, setup) boot" count_is 14 "$EMIT"/jobs/*.yaml
check "every job passes LAVA's schema" schema_ok "$EMIT"
check "SHA256SUMS holds every artefact and job" sh -c \
	'cd "$1" && sha256sum --quiet -c SHA256SUMS && [ "$(wc -l <SHA256SUMS)" -eq 18 ]' sh "$EMIT"
check "the FSAVE setup's CPU and command line are in its job" grep -q \
	-e "-cpu pentium3'" "$EMIT/jobs/patched-pentium3_nofxsr.yaml"
check "the setup's kernel parameters are on the kernel's command line" grep -q \
	'tsc=unstable nofxsr"' "$EMIT/jobs/patched-pentium3_nofxsr.yaml"
check "--url names where the lab fetches the artefacts" status_is 0 "$FPUBENCH" lava \
	--emit "$WORK/url" --url https://lab.example/fpubench --cpu 486 --variant patched
check "a job fetches from the URL" grep -q "url: 'https://lab.example/fpubench/bzImage-patched'" \
	"$WORK/url/jobs/patched-486.yaml"
check "a command line a QEMU job cannot take is refused" status_is 128 "$FPUBENCH" lava \
	--emit "$WORK/bad" --cpu 486 --variant patched --append 'x="y"'

# Boards: a job each for its device type and boot method, valid for LAVA's schema.
lava_board_conf "$WORK/boards.conf" "engine = rest" "url = https://lava.example.org/" \
	"token-env = FPUBENCH_E2E_NO_TOKEN"
check "lava --emit writes the config's boards' jobs" status_is 0 "$FPUBENCH" lava \
	--emit "$WORK/boards" --config "$WORK/boards.conf" --variant patched
# The seven default setups and the two boards.
check "a job per (kernel, setup or board)" count_is 9 "$WORK/boards"/jobs/*.yaml
check "every board job passes LAVA's schema" schema_ok "$WORK/boards"
check "a board's job: its device type, boot method, TFTP" sh -c \
	'grep -q "device_type: .vortex86dx." "$1" && grep -q "method: ipxe" "$1" &&
	 grep -q "to: tftp" "$1" && grep -q "^- .vx86.$" "$1"' sh "$WORK/boards/jobs/patched-_vx.yaml"
check "its kernel parameters and console speed in extra_kernel_args" grep -q \
	"extra_kernel_args: '.*tsc=unstable console=ttyS0,38400'" "$WORK/boards/jobs/patched-_p4.yaml"
check "a board no lab holds is refused before anything is built" status_is 129 "$FPUBENCH" \
	run --config "$WORK/boards.conf" --lab local --cpu @vx --results "$WORK/none"

# The lava-run leg.
lava_conf "$WORK/mixed.conf" <<CONF
[lab here]
engine = lava-run
jobs = 2
CONF
lava_matrix "$WORK/mixed.conf" here "a lava-run lab"
check "--lab local alone boots nothing under libvirt" status_is 0 "$FPUBENCH" test \
	--lab local --cpu pentium2,-fxsr --test fpu_seed --results "$WORK/local"
check "its cells are the lab's" sh -c \
	'! grep -q "qemu:///" "$1"/2*/results.json && grep -q "\"host\": \"lab local\"" "$1"/2*/results.json' \
	sh "$WORK/local"
check "an unknown lab is refused before anything is built" status_is 129 "$FPUBENCH" test \
	--lab nowhere --cpu 486
summary
