#!/bin/sh
# Install the Debian 12 packages fpubench needs; only missing ones are fetched.
set -eu

PACKAGES="
build-essential gcc-multilib make pkg-config git
qemu-system-x86 libvirt-daemon-driver-qemu libvirt-clients libvirt-dev
libgit2-dev libcmocka-dev libsqlite3-dev
linux-source-6.1 flex bison bc libelf-dev libssl-dev cpio xz-utils ccache
"

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=sudo
	else
		echo "install-deps: missing packages:$missing (run as root to install them)" >&2
		exit 1
	fi
else
	SUDO=
fi

echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
