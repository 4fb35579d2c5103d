#!/bin/sh
# SPDX-License-Identifier: MIT
# The pctx_run(3CPC) example compiles as printed and counts the threads
# of a command.
set -eu
: "${top_srcdir:=.}" "${top_builddir:=.}" "${CC:=cc}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/p' "$top_srcdir/man/pctx_run.3cpc" |
	sed -n '/^\.RS$/,/^\.RE$/p' | sed '/^\.RS$/d; /^\.RE$/d' |
	sed 's/\\e/\\/g; s/\\-/-/g' > "$tmp/example.c"
grep -q 'pctx_run(pctx, 1000, 0, tick)' "$tmp/example.c" ||
	{ echo "pctx_example.sh: example not found" >&2; exit 1; }
libs="$top_builddir/libcpc/.libs"
plibs="$top_builddir/libpctx/.libs"
$CC -std=gnu11 -Wall -I"$top_srcdir/include" -o "$tmp/example" \
	"$tmp/example.c" -L"$libs" -L"$plibs" -lcpc -lpctx \
	-Wl,-rpath,"$libs" -Wl,-rpath,"$plibs"
"$tmp/example" "$top_builddir/tests/pctx_target" threads 2 1500 > "$tmp/out"
cat "$tmp/out"
# One line per thread per second: the main thread and two others.
n=$(awk -F'[/:]' '{ print $2 }' "$tmp/out" | sort -u | wc -l)
[ "$n" -eq 3 ] || { echo "pctx_example.sh: $n threads, not 3" >&2; exit 1; }
grep -Eq '^[0-9]+/[0-9]+: [1-9][0-9]{8} ns$' "$tmp/out" ||
	{ echo "pctx_example.sh: no thread counted 0.1 s or more" >&2; exit 1; }
echo "pctx_example: $n threads counted"
