#!/bin/sh
# SPDX-License-Identifier: MIT
# Every mutant of tests/quality/mutants*.txt still applies to the code as
# it is (its snippet is found once in its file), so that the list follows
# the code: make check-mutants and check-mutants-ci apply them for real.
: "${top_srcdir:=.}"
if ! command -v python3 >/dev/null 2>&1; then
	echo "mutants_apply.sh: SKIP: no python3"
	exit 77
fi
# The mutation tool copies the files git tracks: a source tree that is
# not the top of a git checkout (a distribution tarball, also when it is
# unpacked inside one, as make distcheck does) has none.
top=$(cd "$top_srcdir" && pwd -P)
gtop=$(git -c safe.directory='*' -C "$top_srcdir" rev-parse --show-toplevel \
	2>/dev/null)
if [ -z "$gtop" ] || [ "$(cd "$gtop" && pwd -P)" != "$top" ]; then
	echo "mutants_apply.sh: SKIP: $top_srcdir is not the top of a git checkout"
	exit 77
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
python3 "$top_srcdir/tests/quality/mutate.py" "$top_srcdir" "$tmp" --dry-run
