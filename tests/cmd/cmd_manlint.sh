#!/bin/sh
# SPDX-License-Identifier: MIT
# The pages of the commands (cputrack.1, cpustat.8) are clean for mandoc
# -Tlint and groff -ww (tests/api/manlint.sh covers the 3CPC pages).
set -eu
: "${top_srcdir:=.}"
command -v mandoc >/dev/null || { echo "cmd_manlint.sh: mandoc not installed" >&2; exit 1; }
status=0
for page in "$top_srcdir"/man/cputrack.1 "$top_srcdir"/man/cpustat.8; do
	if ! mandoc -Tlint -Wwarning "$page"; then status=1; fi
	if groff -man -ww -z "$page" 2>&1 | grep .; then status=1; fi
done
[ $status -eq 0 ] && echo "cmd_manlint: clean"
exit $status
