# Sourced by the end-to-end scripts: each check prints "ok N - what" or
# "not ok N - what", and summary closes with the counts and the status.
# The sourcing script sets WORK, a scratch directory of its own.  A check
# that takes 5 s or more says how long, and the summary the script's whole
# time, so that a slow CI run shows where its minutes went.

passed=0
failed=0
n=0
e2e_started=$(date +%s)

check() {	# check WHAT COMMAND...: passes when COMMAND succeeds
	what=$1
	shift
	n=$((n + 1))
	check_t0=$(date +%s)
	if "$@"; then
		check_result=ok
		passed=$((passed + 1))
	else
		check_result="not ok"
		failed=$((failed + 1))
	fi
	check_took=$(($(date +%s) - check_t0))
	[ "$check_took" -lt 5 ] || what="$what ($check_took s)"
	echo "$check_result $n - $what"
}

status_is() {	# status_is WANT COMMAND...: runs COMMAND, compares its exit status
	want=$1
	shift
	"$@" >"$WORK/out" 2>"$WORK/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "# expected exit $want, got $got from: $*"
		sed 's/^/# /' "$WORK/out" "$WORK/err" | tail -n 30
		return 1
	fi
	return 0
}

summary() {
	echo "$passed passed, $failed failed in $(($(date +%s) - e2e_started)) s"
	[ "$failed" -eq 0 ]
}

on_tty() {	# on_tty WANT COMMAND...: status_is on an 80-column pseudo-terminal; all it printed in $WORK/tty
	want=$1
	shift
	python3 - "$@" >"$WORK/tty" <<'PY'
import fcntl, os, pty, struct, sys, termios
pid, master = pty.fork()
if pid == 0:
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    os.execvp(sys.argv[1], sys.argv[1:])
out = sys.stdout.buffer
while True:
    try:
        data = os.read(master, 65536)
    except OSError:	# EIO: the child's side is closed
        break
    if not data:
        break
    out.write(data)
out.flush()
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PY
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "# expected exit $want, got $got on a terminal from: $*"
		tr '\r' '\n' <"$WORK/tty" | sed 's/^/# /' | tail -n 30
		return 1
	fi
	return 0
}
