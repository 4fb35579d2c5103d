#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a test (LOG_COMPILER) in a network namespace of its own where it
# can (root, and a kernel that allows it), so that the machine-wide claims
# of processors (abstract sockets "libcpc-cpu-N", libcpc/core/cpuctx.c)
# of tests that other checkouts run at the same time on this machine do
# not meet; elsewhere it runs the test as it is.
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
	unshare -n true 2>/dev/null; then
	exec unshare -n "$@"
fi
exec "$@"
