#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# run.sh KO [ARGS]: loads clockprobe.ko in the guest (it measures at load
# and refuses to stay) and prints its figures with the guest's clock facts.
# From the top of the tree, for one kernel (a copy keeps the tree clean):
#   v=6.12.107+deb12-amd64; cp -r tests/kmod/clockprobe /tmp/cp-$v
#   make -C /usr/src/linux-headers-$v M=/tmp/cp-$v W=1 C=1 modules
#   KVER=$v tests/kmod/vm-run --no-module [--cpu max,+invtsc] \
#     --file /tmp/cp-$v/clockprobe.ko --file "$PWD/tests/kmod/clockprobe/run.sh" \
#     "$PWD/tests/kmod/clockprobe/run.sh" /tmp/cp-$v/clockprobe.ko
grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
	grep -E '^(tsc|constant_tsc|nonstop_tsc|tsc_reliable|tsc_known_freq)$' |
	tr '\n' ' '
echo
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
dmesg | grep -E 'sched_clock|TSC|tsc:|unstable'
ko=$1
shift
insmod "$ko" "$@"
dmesg | grep clockprobe:
