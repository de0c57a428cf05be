#!/bin/sh
# End-to-end, the server leg of issue 32 (docs/fpubench-lava.md): Debian's
# lava-server with PostgreSQL on this machine, started here and stopped at
# the end (the cluster too, when this test started it): gunicorn on
# 127.0.0.1:PORT, the scheduler, a `qemu` device type, one device of it and
# a worker (lava-worker, as root, dispatcher_ip set), a user whose token the
# test creates.  Their records stay in lava-server's database, so a second
# run finds them.  Then `fpubench run` over a config with that lab and the
# embedded libvirt host: every cell of the default matrix met, some on each,
# each cell as a libvirt-only run gives it, each lab cell linked to its job;
# a board's job the server takes for a device type with no board behind it
# (its one device in Maintenance), cancelled by the bench after its
# queue-timeout, an error cell; and a second run whose worker is stopped
# while a job runs still completes, that boot retried under libvirt.  Needs root and lava-server (`make
# check-lava-server` installs both); about ten minutes (LAVA's scheduler
# and worker take some 40 s a job).
set -u

FPUBENCH=$(realpath "${1:-build/fpubench}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/fpubench-lava-server.XXXXXX)
PORT=${LAVA_E2E_PORT:-8123}
URL=http://127.0.0.1:$PORT
WORKER=fpubench-e2e-worker
DEVICE=fpubench-e2e-qemu01
BOARD=fpubench-e2e-p4
USER_NAME=fpubench-e2e
PIDS=""
WORKER_PID=""
PG_STARTED=""

. "$ROOT/tests/e2e/lava-lib.sh"

cleanup() {
	for p in $PIDS $WORKER_PID; do kill "$p" 2>/dev/null; done
	for p in $PIDS $WORKER_PID; do wait "$p" 2>/dev/null; done
	[ -n "$PG_STARTED" ] && pg_ctlcluster $PG_STARTED stop
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" -eq 0 ] || { echo "lava-server.sh: needs root (lava-worker runs jobs as root)" >&2; exit 1; }
command -v lava-server >/dev/null && command -v lava-worker >/dev/null ||
	{ echo "lava-server.sh: no lava-server (make check-lava-server installs it)" >&2; exit 1; }

api() {	# api PATH: GET with the token
	curl -fsS -H "Authorization: Token $(cat "$WORK/token")" "$URL/api/v0.2/$1"
}

wait_for() {	# wait_for SECONDS COMMAND...: until it succeeds
	t=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		t=$((t - 1))
		[ "$t" -gt 0 ] || return 1
		sleep 1
	done
}

# PostgreSQL: its first cluster, started when it is down.
set -- $(pg_lsclusters -h | head -n 1)
if [ "$4" != online ]; then
	pg_ctlcluster "$1" "$2" start || exit 1
	PG_STARTED="$1 $2"
fi

# The server's processes run as lavaserver: their logs go where it may write.
chmod 711 "$WORK"
mkdir "$WORK/server"
chown lavaserver:lavaserver "$WORK/server"
gunicorn3 lava_server.wsgi --bind "127.0.0.1:$PORT" --workers 2 --worker-class eventlet \
	-u lavaserver -g lavaserver --log-file "$WORK/server/gunicorn.log" >/dev/null 2>&1 &
PIDS="$PIDS $!"
lava-server manage lava-scheduler --level DEBUG --log-file "$WORK/server/scheduler.log" \
	>"$WORK/scheduler.out" 2>&1 &
PIDS="$PIDS $!"
check "the server answers" wait_for 60 curl -fsS "$URL/api/v0.2/system/version/"

# Its records: created once, found again by later runs.
lava-server manage users list 2>/dev/null | grep -q "$USER_NAME" ||
	lava-server manage users add --superuser --staff --passwd "$(od -An -tx8 -N8 /dev/urandom)" \
		"$USER_NAME" >/dev/null
lava-server manage tokens add --user "$USER_NAME" | tail -n 1 >"$WORK/token"
lava-server manage workers list 2>/dev/null | grep -q "$WORKER" ||
	lava-server manage workers add "$WORKER" >/dev/null
lava-server manage shell -c "from lava_scheduler_app.models import Worker; \
print(Worker.objects.get(hostname='$WORKER').token)" 2>/dev/null | tail -n 1 >"$WORK/worker-token"
lava-server manage device-types list 2>/dev/null | grep -qw qemu ||
	lava-server manage device-types add qemu >/dev/null
echo "{% extends 'qemu.jinja2' %}" >"/etc/lava-server/dispatcher-config/devices/$DEVICE.jinja2"
lava-server manage devices list 2>/dev/null | grep -q "$DEVICE" ||
	lava-server manage devices add --device-type qemu --worker "$WORKER" "$DEVICE" >/dev/null
lava-server manage devices update --health GOOD "$DEVICE" >/dev/null
mkdir -p "/etc/lava-server/dispatcher.d/$WORKER"
echo "dispatcher_ip: 127.0.0.1" >"/etc/lava-server/dispatcher.d/$WORKER/dispatcher.yaml"

start_worker() {
	# Its own default directory: a worker started again finds its jobs there.
	lava-worker --name "$WORKER" --url "$URL/" --token-file "$WORK/worker-token" \
		--log-file "$WORK/worker.log" --level DEBUG >"$WORK/worker.out" 2>&1 &
	WORKER_PID=$!
}
start_worker
device_idle() { api "devices/$DEVICE/" | grep -q '"state":"Idle"'; }
check "the device is idle on its worker" wait_for 60 device_idle

lava_conf "$WORK/server.conf" <<CONF
[lab srv]
engine = rest
url = $URL/
token-file = $WORK/token
queue-timeout = 60
CONF
lava_matrix "$WORK/server.conf" srv "the server's lab"

# A board: the server takes its job for a device type of Debian's own
# templates (x86-pentium4), whose one device stays in Maintenance, since
# no such board is here: nothing boots it, the job waits for a device, and
# the bench cancels it and says so in an error cell; it is never booted
# under libvirt.
lava-server manage device-types list 2>/dev/null | grep -qw x86-pentium4 ||
	lava-server manage device-types add x86-pentium4 >/dev/null
echo "{% extends 'x86-pentium4.jinja2' %}" >"/etc/lava-server/dispatcher-config/devices/$BOARD.jinja2"
lava-server manage devices list 2>/dev/null | grep -q "$BOARD" ||
	lava-server manage devices add --device-type x86-pentium4 --worker "$WORKER" "$BOARD" >/dev/null
lava-server manage devices update --health MAINTENANCE "$BOARD" >/dev/null
lava_board_conf "$WORK/boards.conf" "engine = rest" "url = $URL/" "token-file = $WORK/token" \
	"queue-timeout = 20"
cat >>"$WORK/boards.conf" <<CONF

[host embedded]
uri = qemu:///embed?root=$CACHE/libvirt
CONF
check "a board's run ends with an error cell" status_is 1 "$FPUBENCH" run \
	--config "$WORK/boards.conf" --cpu 486 --cpu @p4 --variant patched --test fpu_seed \
	--results "$WORK/board" --history "$WORK/board.db"
board_cells() {	# the board's cells: one error naming its job, which the server has Canceled
	/usr/bin/python3 - "$WORK/board" <<'PY' >"$WORK/board-job" || return 1
import glob, json, sys
cells = json.load(open(sorted(glob.glob(sys.argv[1] + "/2*/results.json"))[-1]))
board = [c for c in cells if c["cpu"] == "@p4"]
qemu = [c for c in cells if c["cpu"] == "486"]
ok = len(board) == 1 and board[0]["status"] == "error" and board[0]["host"] == "lab boards" \
    and "took job" in board[0]["reason"] and board[0]["job_id"] \
    and qemu and all(c["met"] for c in qemu)
print(board[0]["job_id"] if ok else "")
sys.exit(0 if ok else 1)
PY
	api "jobs/$(cat "$WORK/board-job")/" | grep -q '"health":"Canceled"'
}
check "the board's job was taken, never run, cancelled; 486's cells met" board_cells

# The worker stops while a job runs: that boot goes to libvirt, the run completes.
"$FPUBENCH" run --config "$WORK/server.conf" --results "$WORK/lost" --history "$WORK/lost.db" \
	>"$WORK/lost.out" 2>"$WORK/lost.err" &
RUN_PID=$!
job_running() { api "jobs/?state=Running" | grep -q '"id"'; }
check "a job runs" wait_for 300 job_running
LOST=$(api "jobs/?state=Running" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["results"][0]["id"])')
kill "$WORKER_PID"
wait "$WORKER_PID" 2>/dev/null
WORKER_PID=""
wait "$RUN_PID"
check "the run completes without its worker" test $? -eq 0
check "each cell as under libvirt, all met" "$CELLS" same "$WORK/virt" "$WORK/lost"
check "the lost job ($LOST) gave no cell: its boot was tried elsewhere" sh -c \
	'! grep -q "\"job_id\": \"$1\"" "$2"/2*/results.json' sh "$LOST" "$WORK/lost"
# The worker back, the lost job cancelled: the device is free for the next run.
start_worker
api "jobs/$LOST/cancel/" >/dev/null
check "the device is idle again once its worker is back" wait_for 120 device_idle
summary
