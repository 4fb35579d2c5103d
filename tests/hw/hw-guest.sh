#!/bin/sh
# hw-guest.sh: the hardware-event suite's steps inside the qemu guest of
# tests/hw/check-hw.sh (run by vm-run, as root or the unprivileged user,
# with LIBCPC_BACKEND set): the Check programs, the man page's examples
# with hardware names, cputrack and cpustat with hardware names.  Prints
# "HW-STEP <name> PASS|FAIL|SKIP" per step and exits 1 if any failed.
#
# Environment: HW_NAMES, HW_COUNTS (the Check programs), HW_EX1, HW_EX2
# (examples/bind_event_ex1 and ex2), HW_CPUTRACK, HW_CPUSTAT, HW_TARGET
# (tests/pctx_target), HW_ONLY (a space-separated subset of the steps).
set -u
fails=0
info=$(cat /sys/kernel/simpmu/info 2>/dev/null) || {
	echo "hw-guest: no /sys/kernel/simpmu/info: the simulated PMU is not loaded"
	exit 1
}
case $info in
*vendor=amd*)
	cyc=BU_cpu_clk_unhalted ins=FR_retired_x86_instr_w_excp_intr ;;
*)
	cyc=cpu_clk_unhalted ins=inst_retired ;;
esac
echo "hw-guest: $info, uid $(id -u), backend ${LIBCPC_BACKEND:-default}"

want() {
	[ -z "${HW_ONLY:-}" ] && return 0
	case " $HW_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}
result() {
	echo "HW-STEP $1 $2"
	[ "$2" = FAIL ] && fails=$((fails + 1))
	return 0
}
# check NAME CMD...: runs a test program; 77 is a skip.
check() {
	n=$1
	shift
	want "$n" || return 0
	echo "---- $n"
	"$@"
	rc=$?
	case $rc in
	0) result "$n" PASS ;;
	77) result "$n" SKIP ;;
	*) echo "$n: exit $rc"; result "$n" FAIL ;;
	esac
}

check names "$HW_NAMES"
check counts "$HW_COUNTS"

# Example 1 unchanged, with the platform names of this vendor: twenty
# lines of non-zero counts in both columns.
ex1() {
	out=$(PERFEVENTS="pic0=$ins,pic1=$cyc" "$HW_EX1") || return 1
	echo "$out"
	n=$(printf '%s\n' "$out" | grep -c '^ *[0-9]*: [1-9][0-9]* [1-9][0-9]*$')
	[ "$n" -eq 20 ] || { echo "ex1: $n lines of non-zero counts, not 20"; return 1; }
}
check example1 ex1

# Example 2 unchanged: SIGEMT on counter 1's overflow (every 1000
# events), rebinding in the handler; si_addr is the interrupted %pc.
ex2() {
	out=$(PERFEVENTS="pic0=$cyc,pic1=$ins" "$HW_EX2") || return 1
	printf '%s\n' "$out" | head -n 6
	n=$(printf '%s\n' "$out" | grep -c '^lwp[0-9]* - si_addr 0x[0-9a-f]* ucontext: %pc 0x[0-9a-f]* %sp 0x[0-9a-f]*$')
	echo "ex2: $n overflows"
	[ "$n" -ge 10 ] || { echo "ex2: fewer than 10 overflows"; return 1; }
	printf '%s\n' "$out" | awk '/^lwp/ { if ($4 != $7) bad++ } END { exit bad > 0 }' ||
		{ echo "ex2: si_addr differs from %pc"; return 1; }
}
check example2 ex2

# cputrack with hardware names: the exit line holds 200 ms of cycles at
# the simulated clock (user mode), instructions half of them.
ct() {
	out=$("$HW_CPUTRACK" -T 0 -c "$cyc,$ins" "$HW_TARGET" spin 200 2>&1) || {
		echo "$out"; return 1; }
	echo "$out"
	mhz=$(echo "$info" | sed 's/.*mhz=\([0-9]*\).*/\1/')
	printf '%s\n' "$out" | awk -v mhz="$mhz" '
		/ exit / { c = $4; i = $5; seen = 1 }
		END {
			if (!seen) exit 1
			if (c < 100000000 * mhz / 1000) exit 1
			if (i < c * 0.45 || i > c * 0.55) exit 1
		}' || { echo "cputrack: implausible counts"; return 1; }
}
check cputrack ct

# cpustat (root: system-wide counting) with hardware names.
cs() {
	if [ "$(id -u)" != 0 ]; then
		out=$("$HW_CPUSTAT" -c "$cyc,$ins" 0.2 1 2>&1) &&
			{ echo "cpustat: counted system-wide as a user"; return 1; }
		echo "$out" | head -n 3
		return 0
	fi
	"$HW_TARGET" spin 400 &
	pid=$!
	out=$("$HW_CPUSTAT" -c "$cyc,$ins,sys" 0.2 1 2>&1)
	rc=$?
	wait "$pid"
	echo "$out"
	[ "$rc" = 0 ] || return 1
	printf '%s\n' "$out" | awk '
		$3 == "tick" || $3 == "total" { if ($4 > 0 && $5 > 0) ok = 1 }
		END { exit !ok }' || { echo "cpustat: no counts"; return 1; }
}
check cpustat cs

echo "hw-guest: $fails failed"
[ "$fails" = 0 ]
