#!/bin/sh
# SPDX-License-Identifier: MIT
# bench-kmod.sh BUILDDIR SRCDIR: "make bench-kmod".  Runs bench/cpcbench
# (-q) in the qemu guest of "make check-kmod" (tests/kmod/vm-run, cpc.ko
# loaded), once with the perf backend and once with the kernel module's,
# keeps each run's output in BUILDDIR/bench/kmod-{perf,kmod}.txt, prints
# both, then one "RATIO kmod/perf <operation> <value>" line per operation
# both runs measured (the kmod backend's median over the perf backend's,
# each run with its own raw perf figures; TCG emulation: compare ratios).
set -eu
build=$1
src=$2
vm="$src/tests/kmod/vm-run"
out="$build/bench"
for be in perf kmod; do
	echo "bench-kmod: cpcbench -q in the guest, LIBCPC_BACKEND=$be"
	rc=0
	"$vm" --timeout 3000 --env LIBCPC_BACKEND=$be \
		"$build/bench/cpcbench" -q -o /tmp/cpcbench.csv \
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
	/^[a-z_0-9]+ +[0-9.]+$/ && NF == 2 { v[file, $1] = $2; names[$1] = 1 }
	END {
		n = split("set_sample_1ev set_sample_2ev set_sample_4ev " \
		    "set_sample_taskclock take_sample_2ev bind_rele_2ev " \
		    "overflow_cycle " \
		    "thread_create_inherit", want, " ")
		for (i = 1; i <= n; i++) {
			k = want[i]
			if ((1, k) in v && (2, k) in v && v[1, k] > 0)
				printf "RATIO kmod/perf %s %.2f\n", k, \
				    v[2, k] / v[1, k]
			else
				printf "RATIO kmod/perf %s not-measured\n", k
		}
	}' "$out/kmod-perf.txt" "$out/kmod-kmod.txt"
