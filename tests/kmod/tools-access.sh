#!/bin/sh
# SPDX-License-Identifier: MIT
# tools-access.sh: who may count what with cputrack and cpustat, in the
# qemu guest of check-kmod (run as root, the module loaded, /dev/cpc
# root:cpc 0660), at kernel.perf_event_paranoid 3 and 2, as root, as a
# member of cpc (uid 65534, group 990), as a stranger (uid 1001, outside
# cpc) and as a stranger with CAP_PERFMON alone; for cpustat also with
# the module's cpu_access 0 and 1.  The default back end (the module
# where /dev/cpc opens, else perf), as a user would run the tools.
#
# Expected (cpc(4), cputrack(1), cpustat(8)):
#   cputrack (a command, -p PID, -f): root and cpc count at both levels;
#     the stranger, and the stranger with CAP_PERFMON (Debian's level 3
#     asks perf for CAP_SYS_ADMIN), count at 2 (perf) and at 3 are
#     refused with the library's explanation (perf_event_paranoid),
#     never "Function not implemented".
#   cpustat: root counts; cpc counts only where cpu_access is 1 and is
#     otherwise refused with a message naming cpu_access; the stranger is
#     refused with the explanation; CAP_PERFMON counts at 2 and is
#     refused at 3 (CAP_SYS_ADMIN named).
#   cputrack -h and cpustat -h: the usage for everyone, status 0.
#
# Usage: tools-access.sh CPUTRACK CPUSTAT KCTX_TEST [EVENTS_T EVENTS_S]
# (the event lists for cputrack and cpustat; default task-clock,page-faults
# and cpu-clock,page-faults).  Prints "ok"/"not ok" lines; exit 1 if any
# failed.
set -u
unset LIBCPC_BACKEND
CT=$1 CS=$2 KT=$3
EVT=${4:-task-clock,page-faults}
EVS=${5:-cpu-clock,page-faults}
fails=0 n=0
param=/sys/module/cpc/parameters/cpu_access
loop='i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'

# runner WHO: the words that run a command as WHO (a simple command, so
# that "$!" of a background job is the command itself).
runner() {
	case $1 in
	root) run= ;;
	cpc) run="$KT --as 65534 65534 990" ;;
	stranger) run="$KT --as 1001 1001 -" ;;
	perfmon) run="$KT --perfmon" ;;
	esac
}
as() {
	runner "$1"
	shift
	$run "$@"
}

verdict() { # NAME OK(0|1) OUTPUT
	n=$((n + 1))
	if [ "$2" = 1 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '%s\n' "$3" | sed 's/^/#   /' | head -n 12
		fails=$((fails + 1))
	fi
}

# counted OUTPUT: a line of counts whose first counter is above 0 (the
# event word - tick, exit, exec, total - then the counters; cputrack -f
# adds a pid column before it).
counted() {
	printf '%s\n' "$1" | awk '
		{ for (i = 2; i < NF; i++)
			if ($i ~ /^(tick|exit|total|exec)$/ && $(i + 1) + 0 > 0)
				ok = 1 }
		END { exit !ok }'
}

# refused RC OUTPUT WORD: failed, explained (WORD appears), and no
# "Function not implemented".
refused() {
	[ "$1" != 0 ] || return 1
	printf '%s\n' "$2" | grep -q "Function not implemented" && return 1
	printf '%s\n' "$2" | grep -q -- "$3"
}

check_ct() { # PARANOID WHO MAY
	par=$1 who=$2 may=$3
	out=$(as "$who" "$CT" -c "$EVT" sh -c "$loop" 2>&1)
	rc=$?
	if [ "$may" = 1 ]; then ok=0; [ $rc = 0 ] && counted "$out" && ok=1
	else ok=0; refused $rc "$out" perf_event_paranoid && ok=1; fi
	verdict "paranoid $par, $who: cputrack a command" $ok "rc=$rc
$out"

	runner "$who"
	$run sh -c "$loop; $loop; $loop; $loop; $loop" &
	pid=$!
	out=$(as "$who" "$CT" -N 2 -T 0.1 -c "$EVT" -p $pid 2>&1)
	rc=$?
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	if [ "$may" = 1 ]; then ok=0; [ $rc = 0 ] && counted "$out" && ok=1
	else ok=0; refused $rc "$out" perf_event_paranoid && ok=1; fi
	verdict "paranoid $par, $who: cputrack -p" $ok "rc=$rc
$out"

	out=$(as "$who" "$CT" -f -c "$EVT" sh -c "sh -c '$loop'; $loop" 2>&1)
	rc=$?
	forks=$(printf '%s\n' "$out" | grep -c ' fork ')
	if [ "$may" = 1 ]; then
		ok=0; [ $rc = 0 ] && counted "$out" && [ "$forks" -ge 1 ] && ok=1
	else ok=0; refused $rc "$out" perf_event_paranoid && ok=1; fi
	verdict "paranoid $par, $who: cputrack -f (a fork line, counts)" $ok \
		"rc=$rc
$out"

	out=$(as "$who" "$CT" -h 2>&1)
	rc=$?
	ok=0
	[ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^Usage' &&
		! printf '%s\n' "$out" | grep -q "Function not implemented" &&
		ok=1
	verdict "paranoid $par, $who: cputrack -h" $ok "rc=$rc
$out"
}

check_cs() { # PARANOID WHO CPU_ACCESS MAY WORD
	par=$1 who=$2 ca=$3 may=$4 word=$5
	echo "$ca" >"$param"
	out=$(as "$who" "$CS" -c "$EVS" 0.2 2 2>&1)
	rc=$?
	if [ "$may" = 1 ]; then ok=0; [ $rc = 0 ] && counted "$out" && ok=1
	else ok=0; refused $rc "$out" "$word" && ok=1; fi
	verdict "paranoid $par, $who, cpu_access=$ca: cpustat" $ok "rc=$rc
$out"
}

[ -w "$param" ] || { echo "tools-access: no $param"; exit 1; }
was_par=$(cat /proc/sys/kernel/perf_event_paranoid)
was_ca=$(cat "$param")
for par in 3 2; do
	echo "$par" >/proc/sys/kernel/perf_event_paranoid
	strangers=0
	[ "$par" -le 2 ] && strangers=1
	check_ct "$par" root 1
	check_ct "$par" cpc 1
	check_ct "$par" stranger $strangers
	check_ct "$par" perfmon $strangers
	for ca in 0 1; do
		check_cs "$par" root "$ca" 1 -
		check_cs "$par" cpc "$ca" "$ca" cpu_access
		check_cs "$par" stranger "$ca" 0 perf_event_paranoid
		check_cs "$par" perfmon "$ca" $strangers CAP_SYS_ADMIN
	done
	out=$(as stranger "$CS" -h 2>&1)
	rc=$?
	ok=0
	[ $rc = 0 ] && printf '%s\n' "$out" | grep -q '^Usage' && ok=1
	verdict "paranoid $par, stranger: cpustat -h" $ok "rc=$rc
$out"
done
echo "$was_par" >/proc/sys/kernel/perf_event_paranoid
echo "$was_ca" >"$param"
echo "1..$n"
echo "# tools-access: $fails of $n failed"
[ "$fails" = 0 ]
