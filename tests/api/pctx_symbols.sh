#!/bin/sh
# SPDX-License-Identifier: MIT
# libpctx.so.1 exports exactly the symbols of its version script, each
# declared in <libpctx.h>, and carries the SONAME libpctx.so.1; libcpc
# does not need it (weak references only).
set -eu
: "${top_srcdir:=.}" "${top_builddir:=.}"
lib="$top_builddir/libpctx/.libs/libpctx.so.1"
test -f "$lib" || { echo "pctx_symbols.sh: $lib not built" >&2; exit 1; }
readelf -d "$lib" | grep -q 'SONAME.*\[libpctx\.so\.1\]' ||
	{ echo "pctx_symbols.sh: wrong SONAME" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ { print $3 }' |
	sed 's/@.*//' | grep -v '^SUNW' | sort -u > "$tmp/exported"
sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' \
	"$top_srcdir/libpctx/libpctx.map" | sort -u > "$tmp/listed"
if ! diff -u "$tmp/listed" "$tmp/exported"; then
	echo "pctx_symbols.sh: exports differ from libpctx.map" >&2
	exit 1
fi
while read -r sym; do
	grep -q "[^A-Za-z0-9_]$sym(" "$top_srcdir/include/libpctx.h" ||
		{ echo "pctx_symbols.sh: $sym is not in <libpctx.h>" >&2; exit 1; }
done < "$tmp/listed"
cpc="$top_builddir/libcpc/.libs/libcpc.so.1"
if readelf -d "$cpc" | grep -q 'NEEDED.*libpctx'; then
	echo "pctx_symbols.sh: libcpc links libpctx" >&2
	exit 1
fi
nm -D --undefined-only "$cpc" | grep pctx | grep -qv ' w ' &&
	{ echo "pctx_symbols.sh: libcpc needs libpctx symbols" >&2; exit 1; }
echo "pctx_symbols: $(wc -l < "$tmp/listed") exported, all declared"
