#!/bin/sh
# Start or stop a private root libvirtd whose state lives under DIR, so that a
# second, independent libvirt host can run next to the bench's embedded one.
#
#   libvirtd-local.sh start DIR   start it (or find it running); print its URI
#   libvirtd-local.sh stop DIR    destroy its domains, stop it, leave no process
#
# A root libvirtd has fixed state paths (/etc/libvirt, /run/libvirt,
# /var/lib/libvirt, /var/cache/libvirt, /var/log/libvirt); only the socket
# directory is configurable.  So it runs in its own mount namespace with
# DIR/etc, DIR/run, DIR/var-lib, DIR/var-cache and DIR/var-log bound over
# them.  Where such a directory does not exist on the host, its parent gets an
# overlay (upper layer in DIR/overlay) inside the namespace to hold the mount
# point, so nothing is ever created on the host.  Files that guests write must
# therefore not lie under an overlaid parent (e.g. /var/lib, /var/log).
#
# It also runs in its own PID namespace under a bash init: the init reaps qemu
# (which libvirt daemonizes) at once instead of this machine's slow PID 1, and
# when the init ends the kernel kills whatever is left in the namespace.  If
# libvirtd dies, the init ends too, so its guests never outlive it.
#
# Environment: LIBVIRTD_LOCAL_TIMEOUT, seconds to wait for the socket (60).
set -eu

prog=libvirtd-local

die() {
	echo "$prog: $*" >&2
	exit 1
}

usage() {
	echo "usage: $0 start|stop DIR" >&2
	exit 2
}

# The namespace's init; bash because it reaps any orphan as soon as it exits.
# $1 is DIR.  Runs as PID 1 of the new PID namespace with a private /proc.
# shellcheck disable=SC2016 # expanded by the init, not here
ns_init='set -eu
dir=$1
overlaid=" "
# Binds $dir/$1 over $2; an absent $2 is made inside an overlay of its parent.
bind_state() {
	tgt=$2
	if [ ! -d "$tgt" ]; then
		parent=${tgt%/*}
		case $overlaid in
		*" $parent "*) ;;
		*)
			name=${parent#/}
			name=${name//\//-}
			mkdir -p "$dir/overlay/$name/upper" "$dir/overlay/$name/work"
			mount -t overlay overlay -o "lowerdir=$parent,upperdir=$dir/overlay/$name/upper,workdir=$dir/overlay/$name/work" "$parent"
			overlaid="$overlaid$parent "
			;;
		esac
		mkdir -p "$tgt"
	fi
	mount --bind "$dir/$1" "$tgt"
}
bind_state etc /etc/libvirt
bind_state run /run/libvirt
bind_state var-lib /var/lib/libvirt
bind_state var-cache /var/cache/libvirt
bind_state var-log /var/log/libvirt
libvirtd -f "$dir/etc/libvirtd.conf" -p /run/libvirt/libvirtd.pid &
daemon=$!
trap "kill -TERM $daemon 2>/dev/null || :" TERM INT HUP
# wait returns early when a trapped signal arrives; loop until libvirtd is gone.
while kill -0 "$daemon" 2>/dev/null; do
	wait "$daemon" || :
done'

# check_dir DIR: DIR must be plain (it goes into a URI and into quoted
# config strings) and outside the trees the namespace remounts.
check_dir() {
	case $1 in
	*[!A-Za-z0-9._/+-]*) die "directory '$1' has characters other than A-Za-z0-9._/+-" ;;
	'') usage ;;
	esac
	case $1 in
	/etc | /etc/* | /run | /run/* | /var | /var/* | /proc | /proc/* | /sys | /sys/* | /dev | /dev/*)
		die "directory '$1' is under /etc, /run, /var, /proc, /sys or /dev, which the namespace remounts" ;;
	esac
}

# pid_of FILE: the pid in FILE if it names a live process, else nothing.
pid_of() {
	[ -f "$1" ] || return 0
	p=$(cat "$1" 2>/dev/null) || return 0
	case $p in '' | *[!0-9]*) return 0 ;; esac
	[ -d "/proc/$p" ] && echo "$p"
	return 0
}

# running: true when DIR/init.pid is a live init of the recorded PID
# namespace (guards against a reused pid).
running() {
	ip=$(pid_of "$dir/init.pid")
	[ -n "$ip" ] && [ -f "$dir/pidns" ] || return 1
	ns=$(readlink "/proc/$ip/ns/pid" 2>/dev/null) || return 1
	[ "$ns" = "$(cat "$dir/pidns")" ]
}

answers() {
	timeout 10 virsh -q -c "$uri" version >/dev/null 2>&1
}

# child_of PID COMM: the first child of PID named COMM.
child_of() {
	ps -o pid=,comm= --ppid "$1" 2>/dev/null | awk -v c="$2" '$2 == c { print $1; exit }'
}

# in_namespace: pids of processes still in the recorded PID namespace.
in_namespace() {
	[ -f "$dir/pidns" ] || return 0
	want=$(cat "$dir/pidns")
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$want" ] && echo "${p#/proc/}"
	done
	return 0
}

# The qemu and storage connection drivers only: the others (network,
# nodedev, nwfilter, ...) would probe dnsmasq, udev and firewalls and are
# not needed.  Storage is for the bench's staging (bench/boot/stage.h).
link_drivers() {
	mkdir -p "$dir/drivers"
	for name in qemu storage; do
		found=
		for so in /usr/lib/*/libvirt/connection-driver/libvirt_driver_$name.so \
			/usr/lib64/libvirt/connection-driver/libvirt_driver_$name.so; do
			if [ -f "$so" ]; then
				ln -sf "$so" "$dir/drivers/libvirt_driver_$name.so"
				found=1
				break
			fi
		done
		[ -n "$found" ] || die "cannot find libvirt_driver_$name.so (is libvirt-daemon installed?)"
	done
}

write_config() {
	for d in etc run var-lib var-cache var-log sock; do
		mkdir -p "$dir/$d"
	done
	# Local socket only, owner-only, no auth (root talks to root); -l is not
	# passed, so there is no TCP or TLS listener.
	cat >"$dir/etc/libvirtd.conf" <<EOF
# written by $prog
unix_sock_dir = "$dir/sock"
unix_sock_ro_perms = "0700"
unix_sock_rw_perms = "0700"
unix_sock_admin_perms = "0700"
auth_unix_ro = "none"
auth_unix_rw = "none"
listen_tls = 0
listen_tcp = 0
log_outputs = "3:file:$dir/var-log/libvirtd.log"
EOF
	# The embedded driver's settings (embed_qemu_conf): no virtlogd, qemu as
	# root, no chown, no cgroups, no per-domain namespaces.
	cat >"$dir/etc/qemu.conf" <<EOF
# written by $prog
stdio_handler = "file"
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
EOF
}

# Shows why a start failed.
show_logs() {
	for f in "$dir/var-log/daemon.out" "$dir/var-log/libvirtd.log"; do
		[ -s "$f" ] && { echo "$prog: last lines of $f:" >&2; tail -n 5 "$f" >&2; }
	done
	return 0
}

# alive PID: PID exists and is not a zombie.
alive() {
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# fail_start MESSAGE: a start that went wrong leaves nothing running.
fail_start() {
	show_logs
	# KILL to a namespace's init takes everything in it along.
	[ -z "${init:-}" ] || kill -KILL "$init" 2>/dev/null || :
	die "$@"
}

do_start() {
	if running; then
		# Hand out the URI only once it answers.
		wait_ready
		echo "$uri"
		return 0
	fi
	rm -f "$dir/init.pid" "$dir/libvirtd.pid" "$dir/pidns"
	# Like /run at boot: no process of an earlier namespace survived it, and
	# a stale domain status would make libvirtd kill whatever now has that
	# pid in the new namespace (it killed its own thread once).
	rm -rf "$dir/run"
	rm -f "$dir/sock/libvirt-sock" "$dir/sock/libvirt-sock-ro" "$dir/sock/libvirt-admin-sock"
	write_config
	# The previous daemon's output stays one start longer.
	[ ! -f "$dir/var-log/daemon.out" ] || mv -f "$dir/var-log/daemon.out" "$dir/var-log/daemon.out.old"
	link_drivers
	# A file rather than bash -c, so ps shows a short command line.
	printf '%s\n' "$ns_init" >"$dir/ns-init.bash"
	# setsid: not in the caller's session or process group, so a signal to
	# those does not reach it.  9>&-: the daemon must not hold our lock.
	env -u LIBVIRT_LOG_OUTPUTS -u LIBVIRT_LOG_FILTERS LIBVIRT_DRIVER_DIR="$dir/drivers" \
		setsid unshare --mount --propagation private --pid --fork --mount-proc --kill-child \
		bash "$dir/ns-init.bash" "$dir" \
		</dev/null >>"$dir/var-log/daemon.out" 2>&1 9>&- &
	outer=$!
	deadline=$(($(date +%s) + timeout))
	init=
	until init=$(child_of "$outer" bash) && [ -n "$init" ]; do
		alive "$outer" || fail_start "the namespace for '$dir' did not start"
		[ "$(date +%s)" -lt "$deadline" ] || fail_start "the namespace for '$dir' did not start within ${timeout}s"
		sleep 0.05
	done
	readlink "/proc/$init/ns/pid" >"$dir/pidns"
	echo "$init" >"$dir/init.pid"
	until daemon=$(child_of "$init" libvirtd) && [ -n "$daemon" ]; do
		running || fail_start "libvirtd for '$dir' did not start"
		[ "$(date +%s)" -lt "$deadline" ] || fail_start "libvirtd for '$dir' did not start within ${timeout}s"
		sleep 0.05
	done
	echo "$daemon" >"$dir/libvirtd.pid"
	wait_ready
	echo "$uri"
}

wait_ready() {
	deadline=$(($(date +%s) + timeout))
	until answers; do
		running || fail_start "libvirtd for '$dir' exited before its socket answered"
		[ "$(date +%s)" -lt "$deadline" ] ||
			fail_start "libvirtd for '$dir' did not answer at $uri within ${timeout}s"
		sleep 0.1
	done
}

do_stop() {
	if running; then
		if answers; then
			# Transient domains are listed only while active; destroy ends them.
			timeout 10 virsh -q -c "$uri" list --name 2>/dev/null |
				while IFS= read -r name; do
					[ -n "$name" ] || continue
					timeout 30 virsh -q -c "$uri" destroy "$name" >/dev/null ||
						echo "$prog: cannot destroy domain '$name'" >&2
				done
		fi
		ip=$(cat "$dir/init.pid")
		# The init passes TERM on to libvirtd and ends when it has.
		kill -TERM "$ip" 2>/dev/null || :
		n=0
		while running && [ "$n" -lt 200 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		if running; then
			echo "$prog: libvirtd for '$dir' ignored TERM for 20s; killing its namespace" >&2
			# KILL to a namespace's init takes everything in it along.
			kill -KILL "$ip" 2>/dev/null || :
			sleep 0.5
		fi
	fi
	# The kernel clears a PID namespace when its init ends; check anyway.
	n=0
	left=$(in_namespace)
	while [ -n "$left" ] && [ "$n" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
		left=$(in_namespace)
	done
	[ -z "$left" ] ||
		die "processes left in the namespace of '$dir': $(echo "$left" | tr '\n' ' ')"
	rm -f "$dir/init.pid" "$dir/libvirtd.pid" "$dir/pidns"
}

[ $# -eq 2 ] || usage
cmd=$1
dir=$2
case $cmd in start | stop) ;; *) usage ;; esac
[ "$(id -u)" -eq 0 ] || die "must run as root (a root libvirtd)"
for c in libvirtd virsh unshare setsid flock timeout ps; do
	command -v "$c" >/dev/null 2>&1 || die "command '$c' not found (scripts/install-deps.sh installs it)"
done
timeout=${LIBVIRTD_LOCAL_TIMEOUT:-60}
case $timeout in '' | *[!0-9]*) die "LIBVIRTD_LOCAL_TIMEOUT '$timeout' is not a whole number of seconds" ;; esac

check_dir "$dir"
# So that a name starting with '-' is not taken for an option.
case $dir in /*) ;; *) dir=./$dir ;; esac
if [ "$cmd" = start ]; then
	mkdir -p "$dir" || die "cannot create directory '$dir'"
elif [ ! -d "$dir" ]; then
	die "no directory '$dir'"
fi
dir=$(cd "$dir" && pwd -P)
check_dir "$dir"
# sun_path holds 108 bytes with its NUL; "/sock/libvirt-admin-sock", the
# longest socket name, takes 24 of the 107.
[ ${#dir} -le 83 ] ||
	die "directory '$dir' is too long for a unix socket path"
uri="qemu+unix:///system?socket=$dir/sock/libvirt-sock"

# One start or stop at a time per DIR.
exec 9>"$dir/lock"
flock -w "$timeout" 9 || die "directory '$dir' is locked by another $prog"

"do_$cmd"
