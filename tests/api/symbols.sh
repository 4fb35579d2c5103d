#!/bin/sh
# SPDX-License-Identifier: MIT
# libcpc.so.1 exports exactly the symbols of the version script, each
# declared in a public header, and carries the SONAME libcpc.so.1.
set -eu
: "${top_srcdir:=.}" "${top_builddir:=.}"
lib="$top_builddir/libcpc/.libs/libcpc.so.1"
test -f "$lib" || { echo "symbols.sh: $lib not built" >&2; exit 1; }
readelf -d "$lib" | grep -q 'SONAME.*\[libcpc\.so\.1\]' ||
	{ echo "symbols.sh: wrong SONAME" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' |
	sed 's/@.*//' | grep -v '^SUNW_' | sort -u > "$tmp/exported"
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' \
	"$top_srcdir/libcpc/libcpc.map" | sort -u > "$tmp/listed"
if ! diff -u "$tmp/listed" "$tmp/exported"; then
	echo "symbols.sh: exports differ from libcpc.map" >&2
	exit 1
fi
cat "$top_srcdir"/include/*.h "$top_srcdir"/include/sys/*.h > "$tmp/headers"
# The C library's functions libcpc interposes (pthread_create and
# thrd_create for inheritance, the signal-action functions for SIGEMT):
# declared by the C library's headers, and the interposition documented
# in ours.
interposed='pthread_create thrd_create sigaction signal bsd_signal sysv_signal __sysv_signal sigset'
for sym in $interposed; do
	grep -q "interposes.*$sym" "$tmp/headers" ||
		grep -A3 'interposes' "$tmp/headers" | grep -q "[^A-Za-z0-9_]$sym[^A-Za-z0-9_]" ||
		{ echo "symbols.sh: $sym interposition undocumented" >&2; exit 1; }
done
cp "$tmp/listed" "$tmp/own"
for sym in $interposed; do
	grep -v "^$sym\$" "$tmp/own" > "$tmp/own2" || true
	mv "$tmp/own2" "$tmp/own"
done
while read -r sym; do
	grep -q "[^A-Za-z0-9_]$sym(" "$tmp/headers" ||
		{ echo "symbols.sh: $sym is not declared in a public header" >&2; exit 1; }
done < "$tmp/own"
echo "symbols: $(wc -l < "$tmp/listed") exported, all declared"
