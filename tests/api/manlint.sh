#!/bin/sh
# SPDX-License-Identifier: MIT
# The man pages are clean for mandoc -Tlint and groff -ww.
set -eu
: "${top_srcdir:=.}"
command -v mandoc >/dev/null || { echo "manlint.sh: mandoc not installed" >&2; exit 1; }
status=0
for page in "$top_srcdir"/man/*.3cpc "$top_srcdir"/man/*.3lib \
    "$top_srcdir"/man/*.4; do
	if head -n 1 "$page" | grep -q '^\.so '; then
		target="$top_srcdir/man/$(head -n 1 "$page" | sed 's|^\.so man3/||')"
		[ -f "$target" ] || { echo "$page: .so target missing" >&2; status=1; }
		continue
	fi
	if ! mandoc -Tlint -Wwarning "$page"; then status=1; fi
	if groff -man -ww -z "$page" 2>&1 | grep .; then status=1; fi
done
[ $status -eq 0 ] && echo "manlint: clean"
exit $status
