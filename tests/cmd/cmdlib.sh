# SPDX-License-Identifier: MIT
# Shared by the cputrack, cpustat and -c parser tests (sourced).
set -eu
: "${top_srcdir:=.}" "${top_builddir:=.}"
cputrack="$top_builddir/cmd/cputrack"
cpustat="$top_builddir/cmd/cpustat"
target="$top_builddir/tests/pctx_target"
for f in "$cputrack" "$cpustat" "$target"; do
	test -x "$f" || { echo "$0: $f not built" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
passed=0
failed=0

# ok NAME: records a passed check; bad NAME WHY: a failed one.
ok() { passed=$((passed + 1)); }
bad() {
	failed=$((failed + 1))
	echo "FAIL: $1: $2" >&2
	for f in "$tmp"/out "$tmp"/err; do
		[ -s "$f" ] && { echo "--- $f" >&2; head -n 30 "$f" >&2; }
	done
	return 0
}

# run CMD...: runs it with stdout and stderr in $tmp/out and $tmp/err,
# its exit status in $rc.
run() {
	rc=0
	"$@" > "$tmp/out" 2> "$tmp/err" || rc=$?
}

# expect_rc NAME N: the last run exited with N.
expect_rc() {
	if [ "$rc" -eq "$2" ]; then ok; else bad "$1" "exit status $rc, not $2"; fi
}

# expect_grep NAME FILE PATTERN: a line of FILE matches the ERE.
expect_grep() {
	if grep -Eq -- "$3" "$2"; then ok; else bad "$1" "no line matches '$3'"; fi
}

expect_nogrep() {
	if grep -Eq -- "$3" "$2"; then bad "$1" "a line matches '$3'"; else ok; fi
}

# expect_count NAME FILE PATTERN N: N lines of FILE match.
expect_count() {
	n=$(grep -Ec -- "$3" "$2" || true)
	if [ "$n" -eq "$4" ]; then ok; else bad "$1" "$n lines match '$3', not $4"; fi
}

# expect_true NAME TEST...: the test command succeeds.
expect_true() {
	name=$1
	shift
	if "$@"; then ok; else bad "$name" "not true: $*"; fi
}

# As an unprivileged user (nobody), when running as root.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}

# Root, with setpriv, and the build tree open to nobody?
can_drop_privileges() {
	[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 || return 1
	as_nobody "$cputrack" -h >/dev/null 2>&1 && return 0
	echo "$0: the build tree is closed to nobody: unprivileged checks skipped" >&2
	return 1
}

# Does this machine have a hardware PMU (the -h interface line says)?
has_pmu() {
	! "$cputrack" -h | grep -q 'no hardware PMU'
}

# wait_for_output FILE: until FILE is not empty (10 s at most).
wait_for_output() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# wait_for_line FILE REGEX: until a line of FILE matches REGEX (10 s at
# most; a loaded machine may take seconds to print the first sample).
wait_for_line() {
	i=0
	while ! grep -q -E "$2" "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# wait_for_exec PID: until PID runs the test target (10 s at most): a
# background command's pid is the shell's child until it executes, and a
# capture before that would see that exec.
wait_for_exec() {
	i=0
	while [ "$(cat "/proc/$1/comm" 2>/dev/null)" != pctx_target ] &&
		[ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

finish() {
	echo "$(basename "$0" .sh): $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
