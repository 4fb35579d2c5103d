#!/bin/sh
# SPDX-License-Identifier: MIT
# "make check-sanitizers": a separate build of the whole package with
# AddressSanitizer and UndefinedBehaviorSanitizer, whose "make check" must
# pass.  Every report of either aborts the process that made it, which
# fails its test.
#
# Usage: sanitizers.sh TOP_SRCDIR TOP_BUILDDIR OUTDIR
# Environment: MAKE, CC, SANITIZE_FLAGS, CONFIGURE_FLAGS.
set -eu

top_srcdir=$1
top_builddir=$2
out=$3
make=${MAKE:-make}
san=${SANITIZE_FLAGS:--fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer}
mkdir -p "$out"

# Automake builds in a separate directory only from a source tree that is
# not configured itself: an in-tree build gets a pristine copy (the
# distribution's files, as "make distcheck" uses them).
if [ -f "$top_srcdir/config.status" ]; then
	echo "check-sanitizers: copying the sources (make distdir)"
	(cd "$top_builddir" && $make distdir distdir="$out/src" >/dev/null)
	src=$out/src
else
	src=$top_srcdir
fi

# The compilers themselves carry the flags, so that the test scripts that
# compile programs against the library ($CC, $CXX) instrument them too.
cc="${CC:-cc} $san"
cxx="${CXX:-c++} $san"
mkdir -p "$out/build"
cd "$out/build"
if [ ! -f config.status ] || [ "$src/configure" -nt config.status ] ||
    [ "$(cat san-flags 2>/dev/null)" != "$cc" ]; then
	echo "check-sanitizers: configuring with $san"
	"$src/configure" ${CONFIGURE_FLAGS:-} CC="$cc" CXX="$cxx" \
		CFLAGS="-O1 -g" LDFLAGS="$san" >configure.log
	echo "$cc" > san-flags
fi

# Leaks are errors; reports go to the tests' logs with a stack trace.
# (detect_stack_use_after_return stays off: its fake stacks add page
# faults that the counting tests would see.)
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:strict_string_checks=1:check_initialization_order=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$top_srcdir/tests/hardening/lsan.supp:print_suppressions=0}
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

# LeakSanitizer cannot run in a process that is ptraced: the tests of
# process contexts (libpctx, cputrack) trace their workloads, so leak
# detection is off for them.  $$f is the test's name in automake's
# test harness.
nolsan='case "$$f" in *test_pctx*|*cputrack*) ASAN_OPTIONS="$$ASAN_OPTIONS:detect_leaks=0"; export ASAN_OPTIONS;; esac;'

status=0
$make -j2 >make.log 2>&1 || { tail -n 40 make.log; exit 1; }
$make -j2 check TESTS_ENVIRONMENT="$nolsan" || status=$?
# Any sanitizer report in a log (also one a test tolerated) is a failure.
reports=$(grep -l -E '^(==[0-9]+==ERROR: |SUMMARY: (Address|UndefinedBehavior|Leak)Sanitizer|.*runtime error: )' \
	$(find tests examples -name '*.log' 2>/dev/null) test-suite.log 2>/dev/null || true)
if [ -n "$reports" ]; then
	echo "check-sanitizers: sanitizer reports in:" $reports >&2
	status=1
fi
[ "$status" -eq 0 ] && echo "check-sanitizers: clean"
exit "$status"
