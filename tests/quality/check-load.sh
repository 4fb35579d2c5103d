#!/bin/sh
# SPDX-License-Identifier: MIT
# "make check-load": the whole "make check", LOAD_ROUNDS (20) times in a
# row, beside two CPU hogs started here; stops at the first round that
# fails and shows the logs of its failing tests.  Tests must not depend on
# timing luck: a test that fails here is reformulated (CPU time instead of
# wall time, margins justified in a comment), never retried.
#
# Usage: check-load.sh TOP_BUILDDIR   (MAKE and LOAD_ROUNDS may be set)
set -u
top_builddir=${1:-.}
rounds=${LOAD_ROUNDS:-20}
make=${MAKE:-make}
log=$top_builddir/check-load.log

hogs=
stop_hogs() {
	for p in $hogs; do
		kill "$p" 2>/dev/null
	done
	hogs=
}
check_pid=
trap stop_hogs EXIT
trap 'stop_hogs; [ -z "$check_pid" ] || kill "$check_pid" 2>/dev/null; exit 130' INT TERM
for _ in 1 2; do
	(while :; do :; done) &
	hogs="$hogs $!"
done

cd "$top_builddir" || exit 1
all=$(date +%s)
i=1
while [ "$i" -le "$rounds" ]; do
	start=$(date +%s)
	# In the background and waited for, so that a signal stops the hogs
	# at once.
	$make check >"$log" 2>&1 &
	check_pid=$!
	if ! wait "$check_pid"; then
		echo "check-load: round $i of $rounds FAILED:"
		grep -E '^(FAIL|ERROR|XPASS):' "$log"
		find . -path ./_build-mutants -prune -o -name '*.trs' -print |
		while read -r trs; do
			if grep -q -E '^:test-result: (FAIL|ERROR|XPASS)' "$trs"; then
				echo "---- ${trs%.trs}.log"
				tail -n 40 "${trs%.trs}.log"
			fi
		done
		exit 1
	fi
	echo "check-load: round $i of $rounds passed ($(($(date +%s) - start)) s)"
	i=$((i + 1))
done
echo "check-load: $rounds of $rounds rounds of make check passed beside two" \
	"CPU hogs ($(($(date +%s) - all)) s)"
