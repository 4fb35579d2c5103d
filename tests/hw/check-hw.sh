#!/bin/bash
# SPDX-License-Identifier: MIT
# check-hw.sh ("make check-hw"): the hardware-event suite in the qemu
# guest on the simulated x86 PMU (tests/kmod/simpmu), for an Intel model
# (Skylake-Client: family 6, cpuver 2003, libpfm4 skl) and an AMD model
# (EPYC: family 17h, cpuver 2500, libpfm4 amd64_fam17h), each on the perf
# backend as root and the kmod backend as root and as the unprivileged
# user; then the counting tests once more on an Intel PMU with only two
# counters; then, for each model, tests/hw/test_hw_icount alone in a
# guest under qemu's -icount (vm-run --icount), where the simulated PMU
# counts executed instructions: as root on both backends in one boot, and
# as the user on the kernel module (HW_ICOUNT_RUNS=0 leaves these out,
# HW_ICOUNT_RUNS=only runs nothing else).  Each
# run is one tests/kmod/vm-run boot of tests/hw/hw-guest.sh.
#
# Prints each run's output and a summary; exit 0 if every run passed, 1 if
# one failed, 77 if a tool is missing (1 with CI=true).
#
# HW_SERIES="5.10 6.12 7" runs all that once per series (each a version
# prefix; the newest kernel of it, installed or fetched by
# tests/kmod/fetch-kernels.sh), and fails when a series has no kernel;
# without it (and without KVER) the suite runs on the newest installed
# kernel.
#
# Environment: top_srcdir, top_builddir (default: this tree), HW_MODELS
# (default "Skylake-Client EPYC"), HW_MODES (default "perf-root kmod-root
# kmod-user"), HW_ICOUNT_RUNS (1, 0 or only; default 1), HW_TIMEOUT (per
# run, default 300 s), and those of tests/kmod/kmod-lib.sh (KVER,
# KMOD_CACHE_DIR, ...).
set -uo pipefail
umask 022

# shellcheck disable=SC2034 # used by kmod-lib.sh
kmod_me=check-hw kmod_missing_status=77 kmod_fail_status=1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../kmod/kmod-lib.sh
. "$here/../kmod/kmod-lib.sh"

t_start=$(date +%s)
if [ -n "${HW_SERIES:-}" ] && [ -z "${KVER:-}" ] && [ -z "${KDIR:-}" ]; then
	results=() overall=0
	for s in $HW_SERIES; do
		k=$(kmod_series_kernel "$s")
		if [ -z "$k" ]; then
			results+=("$(printf '%-28s FAIL (no kernel of this series;' "$s")" \
				"tests/kmod/fetch-kernels.sh fetches 5.10 and the newest)")
			overall=1
			continue
		fi
		echo "check-hw: ======== kernel $k (series $s)"
		t0=$(date +%s)
		KVER=$k HW_SERIES='' bash "$0"
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
	echo "======== check-hw: every series ($HW_SERIES)"
	printf '  %s\n' "${results[@]}"
	echo "  time: $(($(date +%s) - t_start)) s"
	exit "$overall"
fi
: "${top_srcdir:=$here/../..}"
: "${top_builddir:=$top_srcdir}"
top_srcdir=$(cd "$top_srcdir" && pwd) || exit 1
top_builddir=$(cd "$top_builddir" && pwd) || exit 1
: "${KMOD_CACHE_DIR:=$top_builddir/.kmod-cache}"
export KMOD_CACHE_DIR
models=${HW_MODELS:-Skylake-Client EPYC}
modes=${HW_MODES:-perf-root kmod-root kmod-user}
tmo=${HW_TIMEOUT:-300}
vm_run=$top_srcdir/tests/kmod/vm-run

kmod_need_tools qemu-system-x86_64 cpio gzip make ldd modinfo timeout awk
kmod_need_static_busybox
kmod_pick_kernel
[ -e "$top_srcdir/tests/kmod/simpmu" ] ||
	kmod_die "FAIL: no simulated PMU sources in tests/kmod/simpmu"
"$vm_run" --help | grep -q -- --sim-pmu ||
	kmod_die "FAIL: tests/kmod/vm-run has no --sim-pmu option"

# The real binaries behind the libtool wrappers, and their libraries.
kmod_libdirs=("$top_builddir/libcpc/.libs" "$top_builddir/libpctx/.libs")
files=()
envs=()
real() {	# real VAR PATH
	[ -x "$2" ] || kmod_missing "$2 is not built (make check-hw builds it)"
	kmod_real_program "$2"
	files+=(--file "$kmod_prog")
	envs+=(--env "$1=$kmod_prog")
}
real HW_NAMES "$top_builddir/tests/hw/test_hw_names"
real HW_COUNTS "$top_builddir/tests/hw/test_hw_counts"
real HW_OVERFLOW "$top_builddir/tests/hw/test_hw_overflow"
real HW_ICOUNT "$top_builddir/tests/hw/test_hw_icount"
real HW_EX1 "$top_builddir/examples/bind_event_ex1"
real HW_EX2 "$top_builddir/examples/bind_event_ex2"
real HW_CPUTRACK "$top_builddir/cmd/cputrack"
real HW_CPUSTAT "$top_builddir/cmd/cpustat"
real HW_TARGET "$top_builddir/tests/pctx_target"
real HW_KCTX "$top_builddir/tests/kmod/kctx_test"
files+=(--file "$top_srcdir/tests/kmod/tools-access.sh")
envs+=(--env "HW_TOOLS_ACCESS=$top_srcdir/tests/kmod/tools-access.sh")
libs=()
for d in "${kmod_libdirs[@]}"; do
	case " ${libs[*]} " in *" --lib $d "*) ;; *) libs+=(--lib "$d") ;; esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/check-hw.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# run ID MODEL MODE [VM-RUN OPTIONS...]
ids=()
run() {
	local id=$1 model=$2 mode=$3 t0 rc
	shift 3
	local -a opt=(--cpu "$model" --sim-pmu --timeout "$tmo")
	case $mode in
	perf-root) opt+=(--env LIBCPC_BACKEND=perf) ;;
	kmod-root) opt+=(--env LIBCPC_BACKEND=kmod) ;;
	kmod-user) opt+=(--env LIBCPC_BACKEND=kmod --user) ;;
	*) kmod_die "unknown mode $mode" ;;
	esac
	echo "check-hw: $id ..."
	t0=$(date +%s)
	(cd "$top_builddir" && "$vm_run" "${opt[@]}" "$@" "${files[@]}" \
		"${envs[@]}" "${libs[@]}" --env CK_DEFAULT_TIMEOUT=240 \
		--file "$here/hw-guest.sh" /bin/sh "$here/hw-guest.sh") \
		>"$work/$id.out" 2>&1
	rc=$?
	echo "$rc $(($(date +%s) - t0))" >"$work/$id.rc"
	ids+=("$id")
	echo "check-hw: $id: exit $rc, $(($(date +%s) - t0)) s"
}

icount_runs=${HW_ICOUNT_RUNS:-1}
[ "$icount_runs" = only ] && models_plain= || models_plain=$models
for model in $models_plain; do
	for mode in $modes; do
		run "$model.$mode" "$model" "$mode"
	done
done
# Two counters only: the limits, and Example 1 using both.
case " $models_plain " in *" Skylake-Client "*)
	run "Skylake-Client.counters2.kmod-root" Skylake-Client kmod-root \
		--sim-pmu-args counters=2 --env HW_ONLY="counts example1" \
		--env CK_RUN_CASE=limits
	run "Skylake-Client.counters2.perf-root" Skylake-Client perf-root \
		--sim-pmu-args counters=2 --env HW_ONLY="counts example1" \
		--env CK_RUN_CASE=limits ;;
esac

# The module review's findings (kctx_test): simpmu refuses periods below
# 100000, as x86 refuses an event's too-small period (L3).
case " $models_plain " in *" Skylake-Client "*)
	case " $modes " in *" kmod-root "*)
		run "Skylake-Client.kctx.kmod-root" Skylake-Client kmod-root \
			--sim-pmu-args min_period=100000 --env HW_ONLY=kctx ;;
	esac ;;
esac

# Counts of known instruction sequences: the guest's clocks follow the
# executed instructions (never real time: only this test runs there).
# As root both backends in one boot; as the user the kernel module.
if [ "$icount_runs" != 0 ]; then
	root_bes=
	case " $modes " in *" perf-root "*) root_bes=perf ;; esac
	case " $modes " in *" kmod-root "*) root_bes="$root_bes kmod" ;; esac
	for model in $models; do
		if [ -n "$root_bes" ]; then
			run "$model.root.icount" "$model" kmod-root --icount \
				--env HW_ONLY="icount-perf icount-kmod" \
				--env HW_ICOUNT_BACKENDS="$root_bes"
		fi
		case " $modes " in *" kmod-user "*)
			run "$model.kmod-user.icount" "$model" kmod-user \
				--icount --env HW_ONLY=icount-kmod ;;
		esac
	done
fi

failed=0
for id in "${ids[@]}"; do
	echo "======== $id"
	cat "$work/$id.out"
done
echo
echo "======== check-hw summary ($KVER)"
for id in "${ids[@]}"; do
	read -r rc secs <"$work/$id.rc"
	steps=$(sed -n 's/^HW-STEP \([^ ]*\) \([A-Z]*\)$/\1:\2/p' "$work/$id.out" | tr '\n' ' ')
	if [ "$rc" = 0 ]; then
		printf '  %-40s PASS %4s s  %s\n' "$id" "$secs" "$steps"
	else
		failed=1
		printf '  %-40s FAIL %4s s  exit %s  %s\n' "$id" "$secs" "$rc" "$steps"
	fi
done
# A skipped Check program means the PMU was missing: a failure here.
if grep -l '^HW-STEP [^ ]* SKIP$' "$work"/*.out >/dev/null 2>&1; then
	echo "  a step skipped: the simulated PMU was not there"
	failed=1
fi
echo "  time: $(($(date +%s) - t_start)) s"
if [ "$failed" = 0 ]; then
	echo "check-hw: PASS"
	exit 0
fi
echo "check-hw: FAIL"
exit 1
