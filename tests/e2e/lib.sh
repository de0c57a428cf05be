# Sourced by the end-to-end scripts: each check prints "ok N - what" or
# "not ok N - what", and summary closes with the counts and the status.

passed=0
failed=0
n=0

check() {	# check WHAT COMMAND...: passes when COMMAND succeeds
	what=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
		passed=$((passed + 1))
	else
		echo "not ok $n - $what"
		failed=$((failed + 1))
	fi
}

summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
