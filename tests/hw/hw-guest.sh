#!/bin/sh
# SPDX-License-Identifier: MIT
# hw-guest.sh: the hardware-event suite's steps inside the qemu guest of
# tests/hw/check-hw.sh (run by vm-run, as root or the unprivileged user,
# with LIBCPC_BACKEND set): the Check programs, the man page's examples
# with hardware names, cputrack and cpustat with hardware names.  Prints
# "HW-STEP <name> PASS|FAIL|SKIP" per step and exits 1 if any failed.
#
# Environment: HW_NAMES, HW_COUNTS, HW_OVERFLOW, HW_ICOUNT (the Check
# programs; the last only where the simulated PMU counts instructions:
# vm-run --icount, on each backend of HW_ICOUNT_BACKENDS),
# HW_EX1, HW_EX2
# (examples/bind_event_ex1 and ex2), HW_CPUTRACK, HW_CPUSTAT, HW_TARGET
# (tests/pctx_target), HW_KCTX and HW_TOOLS_ACCESS (tests/kmod/kctx_test
# and tools-access.sh), HW_ONLY (a space-separated subset of the steps).
set -u
fails=0
info=$(cat /sys/kernel/simpmu/info 2>/dev/null) || {
	echo "hw-guest: no /sys/kernel/simpmu/info: the simulated PMU is not loaded"
	exit 1
}
# The version 1 tables' names (the examples), and the back end's names
# that cputrack and cpustat (version 2) take: Zen's on the EPYC guest,
# the architectural events on Intel where CPUID shows that PMU (the
# thread's cycles with HTT), else the Pentium Pro's.
case $info in
*vendor=amd*)
	cyc=BU_cpu_clk_unhalted ins=FR_retired_x86_instr_w_excp_intr
	tcyc=LsNotHaltedCyc tins=ExRetInstr ;;
*)
	cyc=cpu_clk_unhalted ins=inst_retired tcyc=$cyc tins=$ins
	if grep -qw arch_perfmon /proc/cpuinfo; then
		tins=inst_retired.any_p tcyc=cpu_clk_unhalted.core
		grep -qw ht /proc/cpuinfo && tcyc=cpu_clk_unhalted.thread_p
	fi ;;
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
	_step=$1
	shift
	want "$_step" || return 0
	echo "---- $_step"
	"$@"
	_rc=$?
	case $_rc in
	0) result "$_step" PASS ;;
	77) result "$_step" SKIP ;;
	*) echo "$_step: exit $_rc"; result "$_step" FAIL ;;
	esac
}

check names "$HW_NAMES"
check counts "$HW_COUNTS"
check overflow "$HW_OVERFLOW"
# Instruction counts of known code: only under qemu's -icount; on each
# backend of HW_ICOUNT_BACKENDS (default: LIBCPC_BACKEND's) in turn.
case $info in
*icount_shift=[0-9]*)
	# The boot's deferred work (timers of its first seconds: 7.3's
	# kept interrupting and preempting the windows) runs first.  Idle
	# guest time is free here: with sleep=off qemu jumps to the next
	# timer when the CPU halts.
	echo "icount: uptime $(cut -d' ' -f1 /proc/uptime) s, settling 10 s"
	sleep 10
	for _be in ${HW_ICOUNT_BACKENDS:-${LIBCPC_BACKEND:-}}; do
		check "icount-$_be" env LIBCPC_BACKEND="$_be" "$HW_ICOUNT"
	done ;;
esac

# Example 1 unchanged, with the platform names of this vendor: twenty
# lines of counts, instructions about half of the cycles over all of
# them.  Lines of zeros are tolerated (at most 5): the simulated PMU splits
# time into user and kernel time by sampling every 100 us, and when the
# host stalls the emulator an iteration's user time can go unsampled
# (tests/kmod/simpmu/simpmu_main.c); real counters have no such gaps.
ex1() {
	out=$(PERFEVENTS="pic0=$ins,pic1=$cyc" "$HW_EX1") || return 1
	echo "$out"
	n=$(printf '%s\n' "$out" | grep -c '^ *[0-9]*: [0-9]* [0-9]*$')
	[ "$n" -eq 20 ] || { echo "ex1: $n lines, not 20"; return 1; }
	nz=$(printf '%s\n' "$out" | grep -c '^ *[0-9]*: [1-9][0-9]* [1-9][0-9]*$')
	echo "ex1: $nz of 20 lines with both counts non-zero"
	[ "$nz" -ge 15 ] || { echo "ex1: fewer than 15"; return 1; }
	printf '%s\n' "$out" | awk '{ i += $2; c += $3 }
		END { exit !(c > 0 && i > c * 0.3 && i < c * 0.7) }' ||
		{ echo "ex1: instructions are not about half of the cycles"; return 1; }
}
check example1 ex1

# Example 2 unchanged: SIGEMT on counter 1's overflow (every 1000
# events), rebinding in the handler.  si_addr is the PC where the overflow
# was noticed, %pc the one the signal interrupted.  They are the same
# wherever the signal is sent and taken on the same return to user mode:
# an overflow noticed in user mode (the PMU's interrupt; the module's task
# work sends SIGEMT on that interrupt's return), or in the kernel (a page
# fault, a system call: the PC is the user PC of that entry, where the
# return lands).  They differ only when the signal is held, and each line
# says which of the two ways it was:
# - noticed in the handler after its rebind (the new counters overflow at
#   once: 1000 cycles of the handler's own code), while SIGEMT is blocked
#   there: held (on Solaris too) and taken at the handler's return, the
#   sigreturn, before any other instruction, so its %pc and %sp are those
#   of the line before it (the context that handler returns to);
# - with the module, noticed during main's first bind: the library keeps
#   a notification that lands inside a rebind and raises it again at the
#   bind's end (lwpctx.c: struct later_ovf), so only the first line can
#   be such (main binds once; every later bind is in the handler).
# Any other line with si_addr != %pc is a signal delivered late or with a
# wrong PC.  How many are held depends on where the simulated PMU's
# 100 us samples fall (22% to 56% measured under load): not asserted.
# Its work is page faults, nearly all kernel time: the cycles are counted
# in system mode too, which only root may.  At 1000 cycles per overflow
# and 20 x 500 page faults, many overflows: the simulated PMU notices one
# at its next 100 us sample at most, and 10,000 page faults take 10 ms
# even at 1 us each, 100 samples: at least 10 asserted.
ex2() {
	if [ "$(id -u)" != 0 ]; then
		echo "ex2: counting in system mode needs root: not run"
		return 0
	fi
	out=$(PERFEVENTS="pic0=$ins,pic1=$cyc,sys" "$HW_EX2") || return 1
	kmod=0
	[ "${LIBCPC_BACKEND:-}" = kmod ] && kmod=1
	printf '%s\n' "$out" | head -n 6
	n=$(printf '%s\n' "$out" | grep -c '^lwp[0-9]* - si_addr 0x[0-9a-f]* ucontext: %pc 0x[0-9a-f]* %sp 0x[0-9a-f]*$')
	echo "ex2: $n overflows"
	[ "$n" -ge 10 ] || { echo "ex2: fewer than 10 overflows"; return 1; }
	printf '%s\n' "$out" | awk -v kmod="$kmod" '/^lwp/ {
		n++
		if ($4 != $7) {
			late++
			if (n > 1 && $7 == pc && $9 == sp)
				held++
			else if (n == 1 && kmod)
				first++
			else {
				bad++
				printf "ex2: line %d: si_addr %s, %%pc %s %%sp %s " \
				    "(the line before: %%pc %s %%sp %s)\n", n,
				    $4, $7, $9, pc, sp
			}
		}
		pc = $7; sp = $9
	}
	END {
		printf "ex2: %d of %d with si_addr != %%pc: %d held in the " \
		    "handler before, %d at the first bind, %d otherwise\n",
		    late, n, held, first, bad
		exit bad > 0
	}' || { echo "ex2: an overflow signal with si_addr != %pc that" \
		"was not held"; return 1; }
}
check example2 ex2

# cputrack with hardware names, user and system mode (root; user mode
# only for the unprivileged member of cpc, who counts another process of
# its own through the module, and whom perf refuses at paranoid 3 with
# the library's explanation): the exit line holds at least the 200 ms of
# CPU time the target spins, in cycles at the simulated clock, and
# instructions about half of them.
ct() {
	evs="$tcyc,$tins,sys"
	if [ "$(id -u)" != 0 ]; then
		evs="$tcyc,$tins"
		if [ "${LIBCPC_BACKEND:-}" != kmod ]; then
			out=$("$HW_CPUTRACK" -T 0 -c "$evs" "$HW_TARGET" spin 20 2>&1) &&
				{ echo "cputrack: perf counted another process at paranoid 3"; return 1; }
			echo "$out" | head -n 3
			printf '%s\n' "$out" | grep -q perf_event_paranoid ||
				{ echo "cputrack: the refusal does not explain itself"; return 1; }
			return 0
		fi
	fi
	# (busybox's date has no %N: the uptime, in hundredths of seconds)
	t0=$(cut -d' ' -f1 /proc/uptime)
	out=$("$HW_CPUTRACK" -T 0 -c "$evs" "$HW_TARGET" spin 200 2>&1) || {
		echo "$out"; return 1; }
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "$out"
	mhz=$(echo "$info" | sed 's/.*mhz=\([0-9]*\).*/\1/')
	# User and system mode: the 200 ms of CPU time, at least.  User mode
	# alone: the simulated PMU leaves out the kernel's share of those 200
	# ms (interrupts, which TCG emulates slowly, more so under load), a
	# share nothing here measures: counts, and no more cycles than the
	# run's wall time at the simulated clock.  Instructions are about
	# half the cycles whatever the split.
	printf '%s\n' "$out" | awk -v mhz="$mhz" -v sys="$(id -u)" \
		-v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a + 0.01) * 1e9 }')" '
		/ exit / { c = $4; i = $5; seen = 1 }
		END {
			if (!seen || c <= 0) exit 1
			if (sys == 0 && c < 200000000 * mhz / 1000) exit 1
			if (c > wall * mhz / 1000) exit 1
			if (i < c * 0.3 || i > c * 0.7) exit 1
		}' || { echo "cputrack: implausible counts"; return 1; }
}
check cputrack ct

# cpustat (root: system-wide counting) with hardware names; refused to
# the unprivileged user (the module's cpu_access is 0, paranoid 3), with
# the remedy named.
cs() {
	if [ "$(id -u)" != 0 ]; then
		out=$("$HW_CPUSTAT" -c "$tcyc,$tins" 0.2 1 2>&1) &&
			{ echo "cpustat: counted system-wide as a user"; return 1; }
		echo "$out" | head -n 3
		want=perf_event_paranoid
		[ "${LIBCPC_BACKEND:-}" = kmod ] && want=cpu_access
		printf '%s\n' "$out" | grep -q "$want" ||
			{ echo "cpustat: the refusal does not name $want"; return 1; }
		return 0
	fi
	"$HW_TARGET" spin 400 &
	pid=$!
	out=$("$HW_CPUSTAT" -c "$tcyc,$tins,sys" 0.2 1 2>&1)
	rc=$?
	wait "$pid"
	echo "$out"
	[ "$rc" = 0 ] || return 1
	printf '%s\n' "$out" | awk '
		$3 == "tick" || $3 == "total" { if ($4 > 0 && $5 > 0) ok = 1 }
		END { exit !ok }' || { echo "cpustat: no counts"; return 1; }
}
check cpustat cs

# Who may count what with the tools, with hardware names (as root, which
# runs each kind of user itself; the module's runs only): see
# tests/kmod/tools-access.sh.
ta() {
	if [ "$(id -u)" != 0 ] || [ "${LIBCPC_BACKEND:-}" != kmod ]; then
		echo "tools-access: the module's root runs only"
		return 0
	fi
	/bin/sh "$HW_TOOLS_ACCESS" "$HW_CPUTRACK" "$HW_CPUSTAT" "$HW_KCTX" \
		"$tcyc,$tins" "$tcyc,$tins"
}
check tools-access ta

# The module review's findings and processor contexts on the simulated
# PMU (kctx_test as root: L3 needs simpmu's min_period, which check-hw
# sets for this step's boot; a processor context's hardware counters
# invalidate a thread's binding).
kc() {
	case " ${HW_ONLY:-} " in
	*" kctx "*) ;;
	*) echo "kctx: in a boot of its own (HW_ONLY=kctx)"; return 0 ;;
	esac
	if [ "$(id -u)" != 0 ] || [ "${LIBCPC_BACKEND:-}" != kmod ]; then
		echo "kctx: the module's root runs only"
		return 0
	fi
	out=$("$HW_KCTX" 2>&1)
	rc=$?
	echo "$out"
	[ "$rc" = 0 ] || return 1
	printf '%s\n' "$out" | grep -q '^skip - L3' &&
		{ echo "kctx: L3 did not run (simpmu min_period)"; return 1; }
	printf '%s\n' "$out" | grep -q '^skip - processor context invalidates' &&
		{ echo "kctx: the invalidation test did not run"; return 1; }
	return 0
}
check kctx kc

echo "hw-guest: $fails failed"
[ "$fails" = 0 ]
