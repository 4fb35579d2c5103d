#!/bin/sh
# The cpc_bind_event(3CPC) Example 1 program runs unchanged and prints
# twenty lines of plausible software-event counts.
set -eu
: "${top_builddir:=.}"
ex="$top_builddir/examples/bind_event_ex1"
out=$(PERFEVENTS=pic0=task-clock,pic1=page-faults "$ex")
echo "$out"
n=$(printf '%s\n' "$out" | grep -c '^ *[0-9]*: [0-9]* [0-9]*$')
[ "$n" -eq 20 ] || { echo "example.sh: expected 20 lines, got $n" >&2; exit 1; }
# Each iteration burns CPU (task-clock > 100 us) and touches 64 fresh pages.
printf '%s\n' "$out" | awk '{ if ($2 < 100000 || $3 < 60) bad++ } END { exit bad > 0 }' ||
	{ echo "example.sh: implausible counts" >&2; exit 1; }
# A bad event string gives the program's own error and exit status 1.
if PERFEVENTS=pic0=nonsense "$ex" 2>/dev/null; then
	echo "example.sh: bad PERFEVENTS accepted" >&2; exit 1
fi
echo "example: ok"
