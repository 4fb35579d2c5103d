#!/bin/sh
# SPDX-License-Identifier: MIT
# bench-kmod.sh BUILDDIR SRCDIR: "make bench-kmod".  Runs bench/cpcbench
# (-q) in the qemu guest of "make check-kmod" (tests/kmod/vm-run, cpc.ko
# loaded; the kernel as vm-run picks it: KVER=... names one, see
# tests/kmod/kmod-lib.sh), once with the perf backend and once with the
# kernel module's, keeps each run's output in
# BUILDDIR/bench/kmod-{perf,kmod}.txt, prints both, then one
# "RATIO kmod/perf <operation> <value>" line per operation both runs
# measured.  The two runs are two guests, one after the other, on a host
# whose load drifts in between; each run also times the raw perf_event
# equivalent of each operation, interleaved with it, so the ratio is
# taken against that: (kmod's median / the kmod run's raw median) over
# (perf's median / the perf run's raw median).  "PLAIN kmod/perf" lines
# give the medians' ratio alone, "VSRAW perf <op> <a> kmod <b>" lines
# the two terms (each backend's median over its run's raw median).  TCG emulation: compare ratios, not
# nanoseconds.  "KMOD <statistic> <value>" lines (the kmod run's): which
# of the module's fast paths the kernel allows and how often they served.
# BENCH_KMOD_ARGS: cpcbench's options in the guest (default -q, about 20 s
# of guest time per backend; empty: the full run, less noisy and about
# ten times as long).
set -eu
build=$1
src=$2
vm="$src/tests/kmod/vm-run"
args=${BENCH_KMOD_ARGS--q}
out="$build/bench"
for be in perf kmod; do
	echo "bench-kmod: cpcbench $args in the guest, LIBCPC_BACKEND=$be"
	rc=0
	# shellcheck disable=SC2086 # the options are words
	"$vm" --timeout 3000 --env LIBCPC_BACKEND=$be \
		"$build/bench/cpcbench" $args -o /tmp/cpcbench.csv \
		> "$out/kmod-$be.txt" || rc=$?
	cat "$out/kmod-$be.txt"
	if [ "$rc" -ne 0 ]; then
		echo "bench-kmod: the $be run failed (vm-run status $rc)" >&2
		exit 1
	fi
done
echo
awk '
	FNR == 1 { file++ }
	/^[a-z_0-9]+ +[0-9.]+$/ && NF == 2 { v[file, $1] = $2 }
	/^cpcbench: backend .*, kernel / { kernel[file] = $NF }
	function ok(k) { return (1, k) in v && (2, k) in v && v[1, k] > 0 }
	END {
		if (kernel[2] != "")
			printf "bench-kmod: kernel %s\n", kernel[2]
		# Each operation, and the raw equivalent its run timed with it.
		n = split("set_sample_1ev:raw_group_read_1ev " \
		    "set_sample_2ev:raw_group_read_2ev " \
		    "set_sample_4ev:raw_group_read_4ev " \
		    "set_sample_taskclock:raw_read_taskclock " \
		    "take_sample_2ev:raw_group_read_2ev_v1 " \
		    "bind_rele_2ev:raw_open_close_2ev " \
		    "overflow_cycle:raw_overflow_cycle " \
		    "thread_create_inherit:thread_create_raw_open", want, " ")
		for (i = 1; i <= n; i++) {
			split(want[i], kr, ":")
			k = kr[1]; r = kr[2]
			if (ok(k) && ok(r) && v[2, r] > 0)
				printf "RATIO kmod/perf %s %.2f\n", k, \
				    (v[2, k] / v[2, r]) / (v[1, k] / v[1, r])
			else
				printf "RATIO kmod/perf %s not-measured\n", k
		}
		for (i = 1; i <= n; i++) {
			split(want[i], kr, ":")
			k = kr[1]
			if (ok(k))
				printf "PLAIN kmod/perf %s %.2f\n", k, \
				    v[2, k] / v[1, k]
		}
		for (i = 1; i <= n; i++) {
			split(want[i], kr, ":")
			k = kr[1]; r = kr[2]
			if (ok(k) && ok(r) && v[2, r] > 0)
				printf "VSRAW perf %s %.2f kmod %.2f\n", k, \
				    v[1, k] / v[1, r], v[2, k] / v[2, r]
		}
	}' "$out/kmod-perf.txt" "$out/kmod-kmod.txt"
grep '^KMOD ' "$out/kmod-kmod.txt" || true
