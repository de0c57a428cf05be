# Sourced by the LAVA end-to-end scripts (tests/e2e/lava.sh, lava-server.sh)
# after they set ROOT and WORK: what both legs share, and lib.sh's checks.
# CELLS compares results (lava-cells.py); CACHE is the kernel cache.

CELLS="$ROOT/tests/e2e/lava-cells.py"
CACHE=${FPUBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fpubench}

. "$ROOT/tests/e2e/lib.sh"

lava_conf() {	# lava_conf FILE: the default config, the embedded libvirt host and stdin (a [lab])
	cp "$ROOT/bench/fpubench.conf" "$1"
	cat >>"$1" <<CONF

[host embedded]
uri = qemu:///embed?root=$CACHE/libvirt
jobs = 2

CONF
	cat >>"$1"
}

lava_matrix() {	# lava_matrix CONF LAB WHAT: the default matrix under libvirt, then over the lab too
	check "the default matrix under libvirt alone" status_is 0 "$FPUBENCH" run \
		--results "$WORK/virt" --history "$WORK/virt.db"
	check "the default matrix over $3 and libvirt" status_is 0 "$FPUBENCH" run \
		--config "$1" --results "$WORK/mixed" --history "$WORK/mixed.db"
	check "each cell as under libvirt, all met" "$CELLS" same "$WORK/virt" "$WORK/mixed"
	check "cells ran on both, each lab cell linked to its job" "$CELLS" linked "$WORK/mixed" "$2"
}

lava_board_conf() {	# lava_board_conf FILE LAB-KEYS...: a rest lab "boards" and its boards
	f=$1
	shift
	{
		echo "[lab boards]"
		for k in "$@"; do echo "$k"; done
		cat <<CONF
board = vx
board = p4

[board vx]
device-type = vortex86dx
boot = ipxe
fpu = fsave
tags = vx86

[board p4]
device-type = x86-pentium4
boot = grub
fpu = fxsave
console = ttyS0,38400
CONF
	} >"$f"
}
