#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's layering: no include or call cycle among its files, and
# every include and call goes down the layers (tests/unit/check-layers.py).
command -v python3 >/dev/null 2>&1 ||
	{ echo "layers.sh: SKIP: no python3"; exit 77; }
exec python3 "$top_srcdir/tests/unit/check-layers.py" "$top_srcdir/libcpc" \
	"$top_builddir/libcpc"
