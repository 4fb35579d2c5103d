#!/bin/sh
# SPDX-License-Identifier: MIT
# "make check-valgrind": every Check program of "make check" under
# valgrind memcheck.  Passes when
#  - memcheck reports no error in any process (the test programs and the
#    forked children Check runs each test in): invalid accesses, uses of
#    uninitialised values, bad frees, syscall parameters, and definitely
#    lost blocks;
#  - every test passes, but those listed in tests/hardening/valgrind-xfail, which
#    measure what valgrind's emulated CPU cannot reproduce (each line
#    says why) and fail under it;
#  - and every test listed there does fail: an unexpected pass (XPASS)
#    fails the run too, so that the list stays the observed one.
#
# Usage: valgrind.sh TOP_SRCDIR OUTDIR PROGRAM...   (run from the top
# build directory; LIBTOOL and VALGRIND may be set).
set -u

top_srcdir=$1
out=$2
shift 2
libtool=${LIBTOOL:-./libtool}
valgrind=${VALGRIND:-valgrind}

if ! command -v "$valgrind" >/dev/null 2>&1; then
	echo "check-valgrind: $valgrind not found (Debian: apt-get install valgrind)" >&2
	exit 1
fi
rm -rf "$out"
mkdir -p "$out"

xfail=$top_srcdir/tests/hardening/valgrind-xfail
# Valgrind runs one thread at a time: the stress tests shrink tenfold.
LIBCPC_STRESS_DIVISOR=10
top_builddir=.
export LIBCPC_STRESS_DIVISOR top_srcdir top_builddir

status=0
for prog in "$@"; do
	name=$(basename "$prog")
	start=$(date +%s)
	# Valgrind's messages go to the program's stderr, with its output:
	# a log file of its own would add a descriptor to every process that
	# the tests count.  The malloc interposer of test_alloc stays the
	# program's own (somalloc=nouserintercepts).
	$libtool --mode=execute "$valgrind" --tool=memcheck --error-exitcode=1 \
		--leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite --track-origins=yes \
		--soname-synonyms=somalloc=nouserintercepts \
		--suppressions="$top_srcdir/tests/hardening/valgrind.supp" \
		--max-threads=1000 "$prog" >"$out/$name.out" 2>&1
	rc=$?
	end=$(date +%s)
	# Memcheck's verdict, in every process of the program (the program
	# and the children Check forks for each test).
	nproc=$(grep -a -c '^==[0-9]*== ERROR SUMMARY: ' "$out/$name.out")
	errs=$(grep -a '^==[0-9]*== ERROR SUMMARY: [1-9]' "$out/$name.out")
	# The tests' verdict: Check prints a "file:line:F|E:case:test:..." line
	# per failing test.
	unexpected=
	for t in $(sed -n 's/^[^:]*:[0-9]*:[FE]:[^:]*:\([^:]*\):.*/\1/p' "$out/$name.out"); do
		if grep -q "^$name:$t[[:space:]]" "$xfail" 2>/dev/null; then
			echo "  $name:$t: failed under valgrind (expected, see tests/hardening/valgrind-xfail)"
		else
			unexpected="$unexpected $t"
		fi
	done
	# Listed tests of this program that passed all the same.
	xpass=
	failed_tests=$(sed -n 's/^[^:]*:[0-9]*:[FE]:[^:]*:\([^:]*\):.*/\1/p' "$out/$name.out")
	for t in $(sed -n "s/^$name:\([^[:space:]]*\)[[:space:]].*/\1/p" "$xfail" 2>/dev/null); do
		# "sometimes:" reasons depend on timing under valgrind: a pass
		# is no unexpected pass.
		grep -q "^$name:$t[[:space:]]*sometimes:" "$xfail" && continue
		if ! printf '%s\n' "$failed_tests" | grep -qx "$t"; then
			xpass="$xpass $t"
		fi
	done
	summary=$(grep -a -E '^[0-9]+%: Checks' "$out/$name.out" | tail -n 1)
	if [ -n "$errs" ] || [ "$nproc" -eq 0 ]; then
		echo "FAIL: $name: memcheck errors ($((end - start)) s):"
		echo "$errs"
		echo "(see $out/$name.out)"
		status=1
	elif [ -n "$unexpected" ]; then
		echo "FAIL: $name: tests failed under valgrind:$unexpected ($((end - start)) s)"
		grep -a -E ':[FE]:' "$out/$name.out"
		status=1
	elif [ -n "$xpass" ]; then
		echo "XPASS: $name: listed in tests/valgrind-xfail but passed:$xpass ($((end - start)) s)"
		status=1
	elif [ -z "$summary" ] && [ "$rc" -eq 77 ]; then
		# tests/hw: nothing to run without the simulated PMU.
		echo "SKIP: $name: $(grep -a -m 1 'SKIP' "$out/$name.out")"
	elif [ -z "$summary" ]; then
		echo "FAIL: $name: no Check summary (exit $rc, $((end - start)) s)"
		tail -n 20 "$out/$name.out"
		status=1
	else
		echo "PASS: $name: memcheck clean in $nproc processes; $summary ($((end - start)) s)"
	fi
done
if [ "$status" -eq 0 ]; then
	echo "check-valgrind: clean (logs in $out)"
else
	echo "check-valgrind: FAILED (logs in $out)"
fi
exit $status
