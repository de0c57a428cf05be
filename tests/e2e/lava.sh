#!/bin/sh
# End-to-end: the matrix through LAVA (issue 32; docs/fpubench-lava.md).
# `fpubench lava --emit` on Debian's 6.1 tree with the cache's builds: a
# job per (kernel, setup) boot, each valid for LAVA's own schema
# (lava-schema.py --strict, with Debian's python3, where voluptuous is),
# the artefacts and SHA256SUMS right.  Needs lava-dispatcher (`make
# check-lava` installs it).
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/fpubench-lava.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
SCHEMA=/usr/share/lava-common/lava-schema.py
EMIT="$WORK/emit"

. "$ROOT/tests/e2e/lib.sh"

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
summary
