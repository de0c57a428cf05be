#!/bin/sh
# Install the Debian 12 packages fpubench needs; only missing ones are fetched.
set -eu

PACKAGES="
build-essential gcc-multilib make pkg-config git libyaml-dev libcurl4-openssl-dev
qemu-system-x86 libvirt-daemon-driver-qemu libvirt-daemon libvirt-clients libvirt-dev
libgit2-dev libcmocka-dev libsqlite3-dev sqlite3 libjson-c-dev libxml2-dev
libxml2-utils python3-jsonschema chromium fonts-dejavu-core hyperfine time
linux-source-6.1 linux-source-6.12 flex bison bc libelf-dev libssl-dev cpio xz-utils lz4 ccache
lcov zlib1g-dev
clang libclang-rt-14-dev python3-clang-14 go-md2man man-db
"

# LAVA's dispatcher (lava-run) and the python3 its schema check imports,
# only when asked (FPUBENCH_DEPS_LAVA=1: `make check-lava`, a config with
# a [lab]): about 140 packages that `make run` must not pull.
if [ "${FPUBENCH_DEPS_LAVA:-0}" = 1 ]; then
	PACKAGES="$PACKAGES lava-dispatcher python3-voluptuous"
fi
# And a LAVA server with its database (FPUBENCH_DEPS_LAVA_SERVER=1: `make
# check-lava-server`).  lava-server's postinst creates its database, so
# PostgreSQL goes first and its cluster must be up: without systemd (a
# container) nothing starts it, and the postinst fails.
if [ "${FPUBENCH_DEPS_LAVA_SERVER:-0}" = 1 ]; then
	PACKAGES="$PACKAGES postgresql curl"
fi

# libvirt's QEMU driver resolves its default account even when qemu.conf
# says root, and only libvirt-daemon-system (a daemon we do not need)
# creates it.
ensure_qemu_account() {
	getent group libvirt-qemu >/dev/null || $SUDO groupadd --system libvirt-qemu
	getent passwd libvirt-qemu >/dev/null ||
		$SUDO useradd --system --gid libvirt-qemu --no-create-home \
			--home-dir /var/lib/libvirt --shell /usr/sbin/nologin libvirt-qemu
}

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

if [ -n "$SUDO" ] && ! command -v sudo >/dev/null 2>&1; then
	if [ -n "$missing" ] || ! getent passwd libvirt-qemu >/dev/null; then
		echo "install-deps: missing packages:$missing (run as root to install them)" >&2
		exit 1
	fi
	exit 0
fi

# lava-server, once PostgreSQL's first cluster is up (the test stops it if it started it).
lava_server() {
	[ "${FPUBENCH_DEPS_LAVA_SERVER:-0}" = 1 ] || return 0
	dpkg-query -W -f='${Status}' lava-server 2>/dev/null | grep -q 'install ok installed' && return 0
	set -- $(pg_lsclusters -h | head -n 1)
	[ "$4" = online ] || $SUDO pg_ctlcluster "$1" "$2" start
	echo "install-deps: installing lava-server" >&2
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		lava-server >/dev/null
}

if [ -z "$missing" ]; then
	ensure_qemu_account
	lava_server
	exit 0
fi

echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
ensure_qemu_account
lava_server
