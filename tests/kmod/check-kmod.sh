#!/bin/bash
# SPDX-License-Identifier: MIT
# check-kmod.sh ("make check-kmod"): tests libcpc's kernel module inside
# a qemu guest running the installed Debian kernel.
#
#  0. Unless KVER (or KDIR) is set, runs itself once per kernel: every
#     KVER with /usr/src/linux-headers-KVER and a readable
#     /boot/vmlinuz-KVER, and every kernel tests/kmod/fetch-kernels.sh
#     fetched (5.10 and the newest Debian kernel, in
#     $KMOD_KERNELS_DIR), oldest first, and passes only if every kernel
#     passed.  KMOD_REQUIRE_SERIES="5.10 6.1 6.12 7" (CI) also fails when
#     no kernel of one of those series (a prefix: "7" is any 7.x) is
#     there.
#  1. Builds kmod/ against KVER's headers with W=1 C=1 (sparse; cached
#     under $KMOD_CACHE_DIR, default $top_builddir/.kmod-cache), the way
#     that kernel needs (kmod-lib.sh's kmod_make: CC=gcc for 5.10, the
#     Debian 13 chroot for 7.x), fails on any warning (the compiler's,
#     sparse's or make's) and unless sparse checked every C file, and
#     checks that `modinfo -F vermagic` is for KVER.
#  2. Builds kmod_test, the module's tests (tests/kmod/ktest/*.c), as a
#     static program.
#  3. Boots the guest once (see guest-init.sh) and runs, with
#     kernel.perf_event_paranoid = 3 (Debian's default):
#     (a) kmod_test as root, as an unprivileged member of the group cpc
#         (nobody, uid 65534) and as a user outside it (stranger, 1001),
#         with /dev/cpc root:cpc 0660 as the udev rule makes it (each run
#         passes when it exits 0 and its TAP output is whole: the plan
#         1..N, then N results in order, none "not ok", no "Bail out!");
#         kctx_test (the module review's findings, processor contexts:
#         tests/kmod/kctx_test.c) as root, which runs its users itself;
#     (b) every libcpc Check program tests/test_* and tests/example.sh
#         (the examples) with LIBCPC_BACKEND=kmod, as root and as the
#         unprivileged user, with CK_DEFAULT_TIMEOUT=120 (TCG is slow);
#         tests/kmod/tools-access.sh: who may count what with cputrack
#         and cpustat (paranoid 3 and 2, four kinds of user);
#     (c) rmmod, insmod again, kmod_test, rmmod;
#     (d) a check that the kernel log after the first insmod has no BUG:,
#         WARNING:, Oops, refcount_t, general protection, KASAN or leak
#         lines (and no lockups or call traces).
#  4. Prints each program's output, then a summary.
#
# It passes only if every step passed and the guest printed its final
# "CHECK-KMOD: ALL PASSED" marker after all of them; a guest oops, panic
# or hang fails.  Exit status: 0 pass, 1 fail, 77 skip (a required tool
# is missing; with CI=true that is a failure, exit 1).
#
# Environment: top_srcdir, top_builddir (default: this tree), CC (cc),
# KMOD_SRC (the module sources, default $top_srcdir/kmod), KMOD_TEST_SRC
# (kmod_test's sources, default $top_srcdir/tests/kmod/ktest),
# KMOD_TEST_ARGS (kmod_test's arguments: test or suite names; default
# all of them), KMOD_PROG_TIMEOUT (per
# program in the guest, default 300 s), KMOD_TIMEOUT (the whole guest run,
# default 540 s), CK_DEFAULT_TIMEOUT (120), KMOD_INSMOD_ARGS (module
# parameters), KMOD_SIM_PMU=1 (load the simulated PMU tests/kmod/simpmu
# before cpc.ko and unload it last; KMOD_SIM_PMU_ARGS: its parameters),
# and those of kmod-lib.sh (KVER, KMOD_CACHE_DIR, KMOD_CPU, ...).
set -uo pipefail
umask 022

# Used by kmod-lib.sh: our name, and the exit status for a missing tool
# (automake's "skip") and for other failures.
# shellcheck disable=SC2034
kmod_me=check-kmod kmod_missing_status=77 kmod_fail_status=1
# shellcheck source-path=SCRIPTDIR source=kmod-lib.sh
. "$(dirname "$0")/kmod-lib.sh"

t_start=$(date +%s)

# ------------------------------------------------------------ kernels
if [ -z "${KVER:-}" ] && [ -z "${KDIR:-}" ]; then
	mapfile -t kvers < <(kmod_list_kernels)
	[ ${#kvers[@]} -gt 0 ] || kmod_missing "no /usr/src/linux-headers-KVER" \
		"with a readable /boot/vmlinuz-KVER (install:" \
		"linux-image-amd64 linux-headers-amd64) and no kernel" \
		"fetched by tests/kmod/fetch-kernels.sh"
	missing=
	for s in ${KMOD_REQUIRE_SERIES:-}; do
		found=0
		for k in "${kvers[@]}"; do
			case $k in "$s".*) found=1 ;; esac
		done
		[ "$found" = 1 ] || missing="$missing $s"
	done
	results=() overall=0
	for k in "${kvers[@]}"; do
		echo "check-kmod: ======== kernel $k"
		t0=$(date +%s)
		KVER=$k bash "$0"
		rc=$?
		results+=("$(printf '%-28s %s (%d s)' "$k" \
			"$(case $rc in 0) echo PASS ;; 77) echo SKIP ;;
			*) echo "FAIL (exit $rc)" ;; esac)" $(($(date +%s) - t0)))")
		if [ "$rc" = 77 ] && [ "$overall" = 0 ]; then
			overall=77
		elif [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
			overall=1
		fi
	done
	echo
	echo "======== check-kmod: every kernel"
	printf '  %s\n' "${results[@]}"
	if [ -n "$missing" ]; then
		echo "  FAIL: no kernel of the series$missing" \
			"(KMOD_REQUIRE_SERIES; tests/kmod/fetch-kernels.sh" \
			"fetches 5.10 and the newest Debian kernel)"
		overall=1
	fi
	echo "  time: $(($(date +%s) - t_start)) s"
	exit "$overall"
fi

: "${top_srcdir:=$kmod_here/../..}"
: "${top_builddir:=$top_srcdir}"
top_srcdir=$(cd "$top_srcdir" && pwd) || exit 1
top_builddir=$(cd "$top_builddir" && pwd) || exit 1
cc=${CC:-cc}
kmod_src=${KMOD_SRC:-$top_srcdir/kmod}
kmod_test_src=${KMOD_TEST_SRC:-$top_srcdir/tests/kmod/ktest}
# shellcheck disable=SC2206 # test names are words
kmod_test_args=(${KMOD_TEST_ARGS:-})
prog_timeout=${KMOD_PROG_TIMEOUT:-300}
total_timeout=${KMOD_TIMEOUT:-540}
ck_timeout=${CK_DEFAULT_TIMEOUT:-120}
: "${KMOD_CACHE_DIR:=$top_builddir/.kmod-cache}"
export KMOD_CACHE_DIR

# ------------------------------------------------------------ tools
# shellcheck disable=SC2086 # CC may carry options
kmod_need_tools qemu-system-x86_64 cpio gzip make ldd modinfo timeout \
	awk sed od sha256sum tail sparse ${cc%% *}
kmod_need_static_busybox
kmod_pick_kernel
echo "check-kmod: kernel $KVER (headers $KDIR, image $KIMAGE)"

# The Check programs (libtool wrappers or binaries; not the objects, logs
# and sources next to them).
check_progs=()
for p in "$top_builddir"/tests/*/test_*; do
	case $p in *.c | *.o | *.log | *.trs | *.h) continue ;; esac
	# Replays the fuzzers' corpora of the source tree through the
	# parsers: nothing there counts.
	case $p in */test_fuzz_replay) continue ;; esac
	# The hardware suite needs the simulated PMU: make check-hw runs it.
	case $p in */tests/hw/*) [ "${KMOD_SIM_PMU:-0}" = 1 ] || continue ;; esac
	if [ -f "$p" ] && [ -x "$p" ]; then check_progs+=("$p"); fi
done
[ ${#check_progs[@]} -gt 0 ] ||
	kmod_missing "no Check programs in $top_builddir/tests (the check" \
		"library is needed: install check, then make check-kmod)"

# ------------------------------------------------------------ module
[ -e "$kmod_src/Kbuild" ] || [ -e "$kmod_src/Makefile" ] ||
	kmod_die "FAIL: no kernel module sources (Kbuild/Makefile) in $kmod_src"
kmod_cache_init
t0=$(date +%s)
# Warning-free with the extra warnings (W=1) and sparse (C=1).
KMOD_BUILD_FLAGS="W=1 C=1" kmod_build_module "$kmod_src" cpc
kmod_check_vermagic "$MODULE"
echo "check-kmod: module $MODULE ($(($(date +%s) - t0)) s)"
# A warning is the compiler's or sparse's ("warning:"), or one of make's
# own (FILE:LINE: text, e.g. kbuild's "C=1 specified, but sparse is not
# available or not up to date", after which it checks nothing); and
# sparse must really have checked every C file of the module.
blog=$(dirname "$MODULE")/build.log
lint=$(grep -E 'warning:|error:|^[^ :]+:[0-9]+: ' "$blog")
n_c=$(find "$kmod_src" -maxdepth 1 -name '*.c' ! -name '*.mod.c' \
	! -name '*_probes.c' | wc -l)
n_check=$(grep -cE '^  CHECK +' "$blog")
if [ "$n_check" -lt "$n_c" ]; then
	lint="$lint${lint:+
}sparse checked $n_check of the module's $n_c C files (C=1 did not run)"
fi
if [ -n "$lint" ]; then
	echo "check-kmod: FAIL: the module build (W=1 C=1) has warnings:"
	printf '%s\n' "$lint"
	lint_ok=0
else
	echo "check-kmod: the module builds warning-free with W=1 C=1 (sparse)"
	lint_ok=1
fi
echo "check-kmod: vermagic: $kmod_vermagic"
sim_pmu=${KMOD_SIM_PMU:-0}
if [ "$sim_pmu" = 1 ]; then
	cpc_module=$MODULE
	kmod_build_module "$kmod_here/simpmu" simpmu
	kmod_check_vermagic "$MODULE"
	sim_module=$MODULE
	MODULE=$cpc_module
	echo "check-kmod: simulated PMU $sim_module (guest CPU ${KMOD_CPU:-max})"
fi

# ------------------------------------------------------------ kmod_test
kmod_test=$top_builddir/tests/kmod/kmod_test
kmod_test_ok=1
if [ ! -f "$kmod_test_src/kt_main.c" ]; then
	echo "check-kmod: FAIL: $kmod_test_src/kt_main.c does not exist"
	kmod_test_ok=0
else
	# Always rebuilt (under a second): it must match the sources and
	# the module's ABI header.
	mkdir -p "$(dirname "$kmod_test")"
	rm -f "$kmod_test"
	# shellcheck disable=SC2086 # CC and CFLAGS may carry options
	if ! $cc -static -O2 -g -Wall -Wextra -pthread -I"$kmod_src/uapi" \
		${KMOD_TEST_CFLAGS:-} -o "$kmod_test" "$kmod_test_src"/*.c; then
		echo "check-kmod: FAIL: cannot build $kmod_test (static)"
		rm -f "$kmod_test"
		kmod_test_ok=0
	fi
fi

# The random and mutated requests of kmod_fuzz (static as well).
kmod_fuzz=$top_builddir/tests/kmod/kmod_fuzz
kmod_fuzz_src=$top_srcdir/tests/kmod/kmod_fuzz.c
kmod_fuzz_ok=0
rm -f "$kmod_fuzz"
# shellcheck disable=SC2086 # CC may carry options
if [ -f "$kmod_fuzz_src" ] && $cc -static -O2 -Wall -pthread \
	-I"$kmod_src" -o "$kmod_fuzz" "$kmod_fuzz_src"; then
	kmod_fuzz_ok=1
else
	echo "check-kmod: FAIL: cannot build $kmod_fuzz (static)"
fi

# The review's findings and processor contexts (kctx_test.c with
# kctx_acct.c), also the runner of tools-access.sh's users.
kctx_test=$top_builddir/tests/kmod/kctx_test
kctx_ok=0
rm -f "$kctx_test"
# shellcheck disable=SC2086 # CC may carry options
if $cc -static -O2 -g -Wall -Wextra -pthread -I"$kmod_src/uapi" \
	-o "$kctx_test" "$top_srcdir/tests/kmod/kctx_test.c" \
	"$top_srcdir/tests/kmod/kctx_acct.c"; then
	kctx_ok=1
else
	echo "check-kmod: FAIL: cannot build $kctx_test (static)"
fi

kmod_kernel
echo "check-kmod: booting $KERNEL"

# ------------------------------------------------------------ the job
work=$(mktemp -d "${TMPDIR:-/tmp}/check-kmod.XXXXXX") || exit 1
if [ -n "${KMOD_KEEP:-}" ]; then
	trap 'echo "check-kmod: work directory kept: $work"' EXIT
else
	trap 'rm -rf "$work"' EXIT
fi
nonce=$(kmod_nonce)
kmod_libdirs=()
mk=(bash "$kmod_here/mkinitramfs.sh" -o "$work/initrd.gz"
	--add "$MODULE" /vmrun/cpc.ko
	--add "$work/job.conf" /vmrun/job.conf
	--add "$work/job.sh" /vmrun/job.sh
	--mkdir "$top_builddir")

# expected: "ID PART" for each step the host requires to pass, in order.
: >"$work/expected"
job() { echo "$*" >>"$work/job.sh"; }
expect() { echo "$1 $2" >>"$work/expected"; }
# run ID PART MODE [NAME=VALUE...] PROGRAM [ARGS...]
run() {
	local id=$1 part=$2 mode=$3
	shift 3
	job "vm_run $id $mode $prog_timeout $(kmod_quote "$@")"
	expect "$id" "$part"
}
# shellcheck disable=SC2086 # the module parameters are words
q_args=$(kmod_quote ${KMOD_INSMOD_ARGS:-})
: >"$work/job.sh"
if [ "$sim_pmu" = 1 ]; then
	mk+=(--add "$sim_module" /vmrun/simpmu.ko)
	# shellcheck disable=SC2086 # the module parameters are words
	job "vm_insmod insmod.simpmu /vmrun/simpmu.ko $(kmod_quote ${KMOD_SIM_PMU_ARGS:-})|| { vm_summary CHECK-KMOD; vm_mark \"DONE \$VM_FAILS\"; poweroff -f; }"
	expect insmod.simpmu c
fi
# A failed first insmod ends the run (everything else would fail too).
job "vm_insmod insmod /vmrun/cpc.ko $q_args|| { vm_summary CHECK-KMOD; vm_mark \"DONE \$VM_FAILS\"; poweroff -f; }"
expect insmod c
# kctx_test first: it checks that the statistics are root's only, which
# vm_stats_open then opens to the test users.
if [ "$kctx_ok" = 1 ]; then
	mk+=(--file "$kctx_test")
	run kctx_test.root a root "$kctx_test"
else
	expect kctx_test.build a
fi
job "vm_stats_open"

# (a) kmod_test, then kmod_fuzz for a bounded time (FUZZ_SECONDS, 10).
if [ "$kmod_test_ok" = 1 ]; then
	mk+=(--file "$kmod_test")
	run kmod_test.root a root "$kmod_test" "${kmod_test_args[@]}"
	run kmod_test.user a user "$kmod_test" --user "${kmod_test_args[@]}"
	run kmod_test.stranger a stranger "$kmod_test" --stranger \
		"${kmod_test_args[@]}"
fi
if [ "$kmod_fuzz_ok" = 1 ]; then
	mk+=(--file "$kmod_fuzz")
	run kmod_fuzz.root a root "$kmod_fuzz" "${FUZZ_SECONDS:-10}"
	run kmod_fuzz.user a user "$kmod_fuzz" "${FUZZ_SECONDS:-10}"
else
	expect kmod_fuzz.build a
fi

# (b) the Check programs, then the examples through tests/example.sh.
# Programs the Check programs start (found through $top_builddir) go in
# at their host paths.
p=$top_builddir/tests/pctx_target
if [ -f "$p" ] && [ -x "$p" ]; then
	kmod_real_program "$p"
	mk+=(--file "$kmod_prog")
fi
for p in "${check_progs[@]}"; do
	kmod_real_program "$p"
	mk+=(--file "$kmod_prog")
	n=$(basename "$p")
	run "$n.root" b root CK_DEFAULT_TIMEOUT="$ck_timeout" \
		top_builddir="$top_builddir" "$kmod_prog"
	run "$n.user" b user CK_DEFAULT_TIMEOUT="$ck_timeout" \
		top_builddir="$top_builddir" "$kmod_prog"
done
# example.sh finds the examples under $top_builddir/examples: give it a
# build tree of the real binaries (libtool wrappers need bash and more).
if [ -f "$top_srcdir/tests/example.sh" ]; then
	n_ex=0
	for p in "$top_builddir"/examples/*; do
		case $(basename "$p") in *.*) continue ;; esac
		if [ ! -f "$p" ] || [ ! -x "$p" ]; then continue; fi
		kmod_real_program "$p"
		mk+=(--add "$kmod_prog" "/vmrun/bt/examples/$(basename "$p")")
		n_ex=$((n_ex + 1))
	done
	if [ "$n_ex" -gt 0 ]; then
		kmod_real_program "$top_builddir/tests/nothp"
		mk+=(--add "$kmod_prog" /vmrun/bt/tests/nothp)
		mk+=(--file "$top_srcdir/tests/example.sh")
		run example.root b root top_builddir=/vmrun/bt \
			/bin/sh "$top_srcdir/tests/example.sh"
		run example.user b user top_builddir=/vmrun/bt \
			/bin/sh "$top_srcdir/tests/example.sh"
	else
		echo "check-kmod: no examples built: example.sh not run"
	fi
fi

# Who may count what with cputrack and cpustat (paranoid 3 and 2; root,
# a member of cpc, a stranger, a CAP_PERFMON stranger; cpu_access 0, 1).
if [ "$kctx_ok" = 1 ] && [ -x "$top_builddir/cmd/cputrack" ] &&
	[ -x "$top_builddir/cmd/cpustat" ]; then
	kmod_real_program "$top_builddir/cmd/cputrack"
	mk+=(--file "$kmod_prog")
	ct_prog=$kmod_prog
	kmod_real_program "$top_builddir/cmd/cpustat"
	mk+=(--file "$kmod_prog")
	mk+=(--file "$top_srcdir/tests/kmod/tools-access.sh")
	run tools_access.root b root /bin/sh \
		"$top_srcdir/tests/kmod/tools-access.sh" "$ct_prog" \
		"$kmod_prog" "$kctx_test"
else
	expect tools_access.build b
fi

# (c) unload, reload, unload.
job "vm_rmmod rmmod cpc"
expect rmmod c
job "vm_insmod reload /vmrun/cpc.ko $q_args"
expect reload c
job "vm_stats_open"
if [ "$kmod_test_ok" = 1 ]; then
	run kmod_test.reload a root "$kmod_test" "${kmod_test_args[@]}"
fi
job "vm_rmmod rmmod.final cpc"
expect rmmod.final c
if [ "$sim_pmu" = 1 ]; then
	job "vm_rmmod rmmod.simpmu simpmu"
	expect rmmod.simpmu c
fi

# (d) the kernel log; then all of it for the record.
job "vm_step klog vm_klog_check"
expect klog d
job "vm_step klog.dump vm_klog"
job "vm_summary CHECK-KMOD"

# The guest's libraries: every directory the wrappers named.
libdirs=()
for d in "${kmod_libdirs[@]}"; do
	case " ${libdirs[*]} " in *" $d "*) ;; *) libdirs+=("$d") ;; esac
done
for d in "${libdirs[@]}"; do mk+=(--lib "$d"); done
kmod_write_conf "$work/job.conf" "$nonce" "$top_builddir" \
	"$(IFS=:; echo "${libdirs[*]}")" 3
"${mk[@]}" || kmod_die "FAIL: cannot build the initramfs"

# ------------------------------------------------------------ boot
echo "check-kmod: guest running $(wc -l <"$work/expected") steps" \
	"(timeout ${total_timeout} s; ${prog_timeout} s per program)"
t_boot=$(date +%s)
: >"$work/data.log"
kmod_boot "$work" "$work/initrd.gz" "$total_timeout" &
boot_pid=$!
# Progress while the guest runs: one line per finished step.
tail -n +1 -F --pid="$boot_pid" "$work/data.log" 2>/dev/null |
	LC_ALL=C awk -v pfx="@@${nonce}@@ END " '
		i = index($0, pfx) {
			split(substr($0, i + length(pfx)), w, " ")
			printf "check-kmod:   %-24s exit %s  %7s s %s\n", w[1], w[2], w[3], w[4]
			fflush()
		}'
wait "$boot_pid"
qrc=$?
t_guest=$(($(date +%s) - t_boot))
kmod_parse "$work" "$nonce"

# ------------------------------------------------------------ report
# tap_ok FILE: FILE holds a whole TAP stream that passed: one plan 1..N
# (N > 0) before the results, exactly N results numbered 1..N in order,
# none "not ok", and no "Bail out!".
tap_ok() {
	LC_ALL=C awk '
		/^1\.\.[0-9]+$/ { if (plan != "" || n) bad = 1
			plan = substr($0, 4) + 0; next }
		/^not ok / { bad = 1 }
		/^(not )?ok [0-9]+/ { n++; split($0, w, " ")
			if (w[1] == "not") num = w[3]; else num = w[2]
			if (num + 0 != n || plan == "") bad = 1 }
		/^Bail out!/ { bad = 1 }
		END { exit !(plan != "" && plan > 0 && n == plan && !bad) }
	' "$1"
}

# step_ok ID: the step finished with status 0 in time (and kmod_test's
# output is a whole TAP stream that passed).
step_ok() {
	local rc note
	rc=$(kmod_step_field "$work" "$1" 2)
	note=$(kmod_step_field "$work" "$1" 4)
	[ "$rc" = 0 ] && [ -z "$note" ] || return 1
	case $1 in
	kmod_test.*) tap_ok "$work/out/$1" ;;
	esac
}
step_status() {
	local rc note
	rc=$(kmod_step_field "$work" "$1" 2)
	note=$(kmod_step_field "$work" "$1" 4)
	if [ -z "$rc" ]; then
		echo "NOT RUN"
	elif [ "$note" = UNFINISHED ]; then
		echo "UNFINISHED"
	elif step_ok "$1"; then
		echo "PASS"
	elif [ "$note" = TIMEOUT ]; then
		echo "FAIL (timed out, exit $rc)"
	else
		echo "FAIL (exit $rc)"
	fi
}

echo
while read -r id part; do
	echo "======== $id: $(step_status "$id")" \
		"$(kmod_step_field "$work" "$id" 3) s"
	[ -f "$work/out/$id" ] && cat "$work/out/$id"
done <"$work/expected"
echo "======== guest kernel log after the first insmod"
cat "$work/out/klog.dump" 2>/dev/null
[ -s "$work/qemu.log" ] && { echo "======== qemu"; cat "$work/qemu.log"; }

failed=0
crashed=0
[ "$lint_ok" = 1 ] || failed=1
echo
echo "======== check-kmod summary ($KVER)"
if kmod_console_crash "$work"; then
	echo "  the guest kernel CRASHED or locked up (console above)"
	crashed=1
	failed=1
fi
declare -A part_fail=([a]=0 [b]=0 [c]=0 [d]=0)
declare -A part_n=([a]=0 [b]=0 [c]=0 [d]=0)
[ "$kmod_test_ok" = 1 ] || { part_fail[a]=1; failed=1; }
while read -r id part; do
	s=$(step_status "$id")
	part_n[$part]=$((part_n[$part] + 1))
	case $s in
	PASS) ;;
	*) part_fail[$part]=$((part_fail[$part] + 1)); failed=1 ;;
	esac
	printf '  %-26s %s\n' "$id" "$s"
done <"$work/expected"
verdict() {
	if [ "${part_fail[$1]}" = 0 ]; then
		echo "PASS (${part_n[$1]} steps)"
	else
		echo "FAIL (${part_fail[$1]} of ${part_n[$1]} steps failed)"
	fi
}
[ "$kmod_test_ok" = 1 ] ||
	echo "  (a) kmod_test could not be built: $kmod_test_src"
echo "  (a) kmod_test (root, user, stranger, reload): $(verdict a)"
echo "  (b) libcpc Check suites and examples:    $(verdict b)"
echo "  (c) insmod, rmmod, reload, rmmod:        $(verdict c)"
echo "  (d) kernel log clean after insmod:       $(verdict d)"
if [ "$lint_ok" = 1 ]; then
	echo "  (e) module build with W=1 C=1:          PASS (no warnings)"
else
	echo "  (e) module build with W=1 C=1:          FAIL (warnings above)"
fi
if kmod_marker "$work" "RESULT CHECK-KMOD: ALL PASSED"; then
	echo "  final marker: CHECK-KMOD: ALL PASSED"
else
	failed=1
	m=$(sed -n 's/^RESULT //p' "$work/markers")
	echo "  final marker: ${m:-none (the guest did not finish)}"
fi
kmod_marker "$work" "DONE 0" || failed=1
if [ "$qrc" = 124 ]; then
	failed=1
	echo "  the guest HUNG: killed after $total_timeout s"
	[ "$crashed" = 1 ] || kmod_console_tail "$work"
elif ! grep -q '^DONE ' "$work/markers"; then
	failed=1
	echo "  the guest died before finishing (qemu exit status $qrc)"
	[ "$crashed" = 1 ] || kmod_console_tail "$work"
fi
echo "  time: guest ${t_guest} s, total $(($(date +%s) - t_start)) s"
if [ "$failed" = 0 ]; then
	echo "check-kmod: PASS"
	exit 0
fi
echo "check-kmod: FAIL"
exit 1
