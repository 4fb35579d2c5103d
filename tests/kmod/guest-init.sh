#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the qemu guest used by vm-run and check-kmod.sh (busybox sh).
#
# The guest has two serial ports:
#   ttyS0  the kernel console (boot messages, oopses, this script's notes);
#   ttyS1  the data channel: the output of the programs under test and the
#          marker lines, and nothing else, so kernel messages never mix
#          with program output.
# Marker lines are "@@NONCE@@ WORDS..." where NONCE is a random string the
# host chose for this boot, so no program output can forge one:
#   BOOTED                       /init started, filesystems mounted
#   BEGIN ID                     step ID starts; its output follows
#   END ID RC SECONDS [TIMEOUT]  step ID finished with exit status RC
#   RESULT ...                   summary lines (e.g. "CHECK-KMOD: ALL PASSED")
#   DONE FAILURES                the job finished; about to power off
# The host writes /vmrun/job.sh, which sets VM_* variables and calls the
# vm_* functions below; this script sources it and powers the guest off.
# Anything unexpected (a job error, an oops with oops=panic) ends the boot
# without a DONE marker, which the host treats as a failure.
#
# The vm_* functions are called from the job file, which shellcheck does
# not see:
# shellcheck disable=SC2317

PATH=/bin:/sbin:/usr/bin:/usr/sbin
export PATH
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# /tmp stays on the initramfs (a tmpfs): host files under /tmp were
# copied there.
mkdir -p /dev/shm /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
# The module's statistics (/sys/kernel/debug/cpc), readable by the
# unprivileged test users too.
mount -t debugfs -o mode=0755 debugfs /sys/kernel/debug 2>/dev/null
exec </dev/null >/dev/console 2>&1

# Defaults; /vmrun/job.conf overrides them.
VM_NONCE='unset'          # marker prefix chosen by the host
VM_DATA=/dev/ttyS1        # the data channel
VM_CWD=/                  # working directory of the programs
VM_LIBPATH=               # LD_LIBRARY_PATH of the programs
VM_PARANOID=3             # kernel.perf_event_paranoid (Debian's default)
VM_BACKEND=kmod           # LIBCPC_BACKEND of the programs
VM_USER_UID=65534         # the unprivileged user of --user runs (nobody,
VM_USER_GID=65534         # a member of the group cpc)
VM_STRANGER_UID=1001      # an unprivileged user outside the group cpc
VM_STRANGER_GID=1001
VM_FAILS=0                # number of failed steps so far
# shellcheck disable=SC1091
[ -r /vmrun/job.conf ] && . /vmrun/job.conf

# Raw output on the data channel: no \n -> \r\n translation, no echo.
stty -F "$VM_DATA" 115200 raw -echo 2>/dev/null

# vm_mark WORDS...: writes a marker line to the data channel and a copy
# to the console.  Each write opens and closes the port; the last close
# waits until the UART has sent everything.
vm_mark() {
	printf '@@%s@@ %s\n' "$VM_NONCE" "$*" >"$VM_DATA"
	echo "vmrun: $*"
}

# vm_uptime: seconds since boot, with centiseconds.
vm_uptime() {
	read -r up _ </proc/uptime
	echo "$up"
}

# vm_elapsed START END: END - START, both from vm_uptime.
vm_elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

# vm_step ID CMD [ARGS...]: runs CMD as root with its output on the data
# channel between BEGIN and END markers; returns its exit status.
vm_step() {
	_id=$1
	shift
	vm_mark "BEGIN $_id"
	_t0=$(vm_uptime)
	"$@" </dev/null >"$VM_DATA" 2>&1
	_rc=$?
	vm_mark "END $_id $_rc $(vm_elapsed "$_t0" "$(vm_uptime)")"
	[ "$_rc" -eq 0 ] || VM_FAILS=$((VM_FAILS + 1))
	return "$_rc"
}

# vm_run ID root|user|stranger TIMEOUT [NAME=VALUE...] PROGRAM [ARGS...]:
# runs PROGRAM from $VM_CWD in a clean environment (PATH, HOME, TMPDIR,
# LIBCPC_BACKEND, LD_LIBRARY_PATH, then the NAME=VALUE settings, which may
# override those), as root, as the unprivileged user nobody (a member of
# the group cpc) or as the user stranger (not a member), and sends it
# SIGTERM after TIMEOUT seconds.  The END marker gets a fourth word,
# TIMEOUT, when that happened.
vm_run() {
	_id=$1 _mode=$2 _tmo=$3
	shift 3
	# A fresh writable HOME and TMPDIR, owned by whoever runs.
	_home=/tmp/home.$_id
	rm -rf "$_home"
	mkdir -p "$_home"
	case $_mode in
	user) chown "$VM_USER_UID:$VM_USER_GID" "$_home" ;;
	stranger) chown "$VM_STRANGER_UID:$VM_STRANGER_GID" "$_home" ;;
	esac
	chmod 700 "$_home"
	if [ -n "$VM_LIBPATH" ]; then
		set -- LD_LIBRARY_PATH="$VM_LIBPATH" "$@"
	fi
	# env -i sets the environment and execs the program (it stops taking
	# settings at the first word without "=").
	set -- env -i PATH="$PATH" HOME="$_home" TMPDIR="$_home" \
		LIBCPC_BACKEND="$VM_BACKEND" "$@"
	# busybox su execs the shell, which execs env, which execs the
	# program: the timeout's signal reaches the program itself.
	# (su sets the user's groups from /etc/group.)
	case $_mode in
	user | stranger)
		[ "$_mode" = user ] && _who=nobody || _who=stranger
		# shellcheck disable=SC2016
		set -- su -p -s /bin/sh -c 'exec "$0" "$@"' -- "$_who" "$@" ;;
	esac
	vm_mark "BEGIN $_id"
	_t0=$(vm_uptime)
	(cd "$VM_CWD" 2>/dev/null || cd /
	 exec timeout "$_tmo" "$@") </dev/null >"$VM_DATA" 2>&1
	_rc=$?
	_t=$(vm_elapsed "$_t0" "$(vm_uptime)")
	_why=
	if [ "$_rc" -eq 143 ] &&
		awk -v t="$_t" -v m="$_tmo" 'BEGIN { exit !(t >= m - 1) }'; then
		_why=TIMEOUT
	fi
	vm_mark "END $_id $_rc $_t $_why"
	[ "$_rc" -eq 0 ] || VM_FAILS=$((VM_FAILS + 1))
	rm -rf "$_home"
	return "$_rc"
}

# vm_insmod ID KO [PARAMS...]: loads the module; leaves a note in the
# kernel log first, so vm_klog_check knows where "after insmod" starts.
# The guest has no udev: vm_udev_cpc does what kmod/60-cpc.rules does.
vm_insmod() {
	_id=$1
	shift
	echo "vmrun: insmod $*" >/dev/kmsg
	vm_step "$_id" insmod "$@" || return
	vm_udev_cpc
}

# vm_udev_cpc: /dev/cpc, if there, to root:cpc mode 0660 (the udev rule).
vm_udev_cpc() {
	[ -c /dev/cpc ] || return 0
	chgrp cpc /dev/cpc && chmod 0660 /dev/cpc ||
		VM_FAILS=$((VM_FAILS + 1))
}

# vm_stats_open: the module's statistics readable by the unprivileged test
# users, whose tests compare them.  The module keeps them root's
# (cpc_debugfs.c: they tell how active the device's users are); only the
# test guest opens them, and vm-run does not.  contexts_in_use stays
# root's: kmod_test checks the module's mode on it.
vm_stats_open() {
	for _f in /sys/kernel/debug/cpc/*; do
		[ "${_f##*/}" = contexts_in_use ] || chmod a+r "$_f"
	done 2>/dev/null
	return 0
}

# vm_rmmod ID NAME: unloads the module.
vm_rmmod() {
	vm_step "$1" rmmod "$2"
}

# vm_klog: the kernel log from the first "vmrun: insmod" note on.
vm_klog() {
	dmesg | sed -n '/vmrun: insmod/,$p'
}

# vm_klog_check: fails, printing them, if kernel log lines after the first
# insmod show a kernel bug, warning, oops, refcount or memory problem,
# lockup or leak.  Our own "vmrun:" notes are ignored.
VM_KLOG_BAD='BUG:|WARNING:|Oops|refcount_t|general protection|KASAN|UBSAN|[Ll]eak|kernel BUG|Call Trace|soft lockup|hard LOCKUP|rcu_.*stall|blocked for more than|Kernel panic'
vm_klog_check() {
	_bad=$(vm_klog | grep -v 'vmrun: ' | grep -E "$VM_KLOG_BAD")
	if [ -n "$_bad" ]; then
		echo "kernel log problems after insmod:"
		printf '%s\n' "$_bad"
		return 1
	fi
	echo "kernel log after insmod: clean"
}

# vm_summary LABEL: prints "LABEL: ALL PASSED" if no step failed so far,
# else "LABEL: FAILED (N failed steps)", as RESULT markers.
vm_summary() {
	if [ "$VM_FAILS" -eq 0 ]; then
		vm_mark "RESULT $1: ALL PASSED"
	else
		vm_mark "RESULT $1: FAILED ($VM_FAILS failed steps)"
	fi
}

vm_mark BOOTED
echo "$VM_PARANOID" >/proc/sys/kernel/perf_event_paranoid ||
	VM_FAILS=$((VM_FAILS + 1))
# The job runs in this shell (so it sees and updates VM_FAILS); a syntax
# error in it would end init, which the host sees as a missing DONE.
# shellcheck disable=SC1091
. /vmrun/job.sh
vm_mark "DONE $VM_FAILS"
# The marker's close drains the port unless a leftover process still has
# it open; give the UART a moment in that case.
sleep 0.2 2>/dev/null || sleep 1
sync
poweroff -f
# Not reached; if poweroff failed, let the kernel panic (and qemu exit).
exit 1
