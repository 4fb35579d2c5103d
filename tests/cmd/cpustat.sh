#!/bin/sh
# SPDX-License-Identifier: MIT
# cpustat: per-CPU lines, totals, several sets, options, usage errors,
# CSV, and the refusal an unprivileged user gets.
. "${top_srcdir:-.}/tests/cmd/cmdlib.sh"

ev=task-clock,page-faults
ncpu=$(nproc)

if [ "$(id -u)" -ne 0 ]; then
	# Per-CPU counting needs privilege: the refusal is all we can check.
	run "$cpustat" -c $ev 0.1 1
	expect_rc unprivileged 1
	expect_grep unprivileged-msg "$tmp/err" '^cpustat: cpu[0-9]+ - Permission denied$'
	finish
	exit $?
fi

# --- one set: a line per CPU and interval, then the total
run "$cpustat" -c $ev 0.2 2
expect_rc basic 0
expect_grep title "$tmp/out" '^   time cpu event      pic0      pic1 $'
expect_count ticks "$tmp/out" '^ +[0-9]+\.[0-9]{3} +[0-9]+  tick +[0-9]+ +[0-9]+ $' $((2 * ncpu))
expect_grep total "$tmp/out" "^ +[0-9.]+ +$ncpu total +[0-9]+ +[0-9]+ \$"
awk '/ tick / { s += $4 } / total / { t = $4 } END { exit !(s == t && t > 0) }' \
	"$tmp/out" && ok || bad total-sum "total is not the sum of the ticks"

# --- -n, -t, -T u, -T d
run "$cpustat" -n -t -T u -c $ev 0.1 1
expect_rc options 0
expect_nogrep no-title "$tmp/out" 'time'
expect_count unix-time "$tmp/out" '^[0-9]{9,}$' "$ncpu"
expect_grep tsc "$tmp/out" '^ +[0-9.]+ +[0-9]+  tick +[0-9]+ +[0-9]+ +[0-9]+ $'
run "$cpustat" -T d -c $ev 0.1 1
expect_count date "$tmp/out" '^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} ' "$ncpu"

# --- several sets: turns, " # spec", one total per set
run "$cpustat" -c $ev -c context-switches 0.1 2
expect_rc sets 0
expect_count set0 "$tmp/out" ' tick +[0-9]+ +[0-9]+  # task-clock,page-faults$' "$ncpu"
expect_count set1 "$tmp/out" ' tick +[0-9]+  # context-switches$' "$ncpu"
expect_count set-totals "$tmp/out" ' total ' 2

# --- -p: every set each period (count is in periods)
start=$(date +%s%N)
run "$cpustat" -p 0.5 -c $ev -c context-switches 0.1 2
end=$(date +%s%N)
expect_rc period 0
expect_count period-lines "$tmp/out" ' tick ' $((4 * ncpu))
expect_true period-rest [ $(((end - start) / 1000000)) -ge 550 ]
# The rest is not counted: the set is bound again only after it, so each
# tick of a processor's clock holds about one interval (0.1 s); counting
# the rest too would give at least the whole period (1 s).
run "$cpustat" -p 1 -c pic0=cpu-clock,sys 0.1 3
expect_rc period-clock 0
expect_count period-clock-lines "$tmp/out" ' tick ' $((3 * ncpu))
awk '/ tick / { if ($4 >= 700000000) bad++ } END { exit bad > 0 }' \
	"$tmp/out" && ok || bad period-no-rest "a tick counted the rest: $(grep ' tick ' "$tmp/out" | tr '\n' '|')"

# --- -s with a system-only set
run "$cpustat" -s -c pic0=context-switches,nouser,sys 0.1 1
expect_rc soaker 0
expect_count soaker-lines "$tmp/out" ' tick ' "$ncpu"

# --- CSV
run "$cpustat" -O csv -c $ev 0.1 1
expect_rc csv 0
expect_grep csv-header "$tmp/out" '^time,cpu,event,tsc,set,pic0,pic1(,pic[0-9]+)*$'
expect_count csv-rows "$tmp/out" '^[0-9.]+,[0-9]+,tick,[0-9]+,"task-clock,page-faults",[0-9]+,[0-9]+,' "$ncpu"
expect_count csv-total "$tmp/out" "^[0-9.]+,$ncpu,total," 1

# --- errors
if ! has_pmu; then
	run "$cpustat" -c PAPI_tot_ins 0.1 1
	expect_rc papi 1
	expect_grep papi-msg "$tmp/err" 'cpustat: cpu[0-9]+ - '
fi
for args in "" "-c $ev 0" "-c $ev 1 0" "-c $ev abc" "-c $ev 1 2x" \
	"-c $ev -T x 1" "-c $ev -p x 1" "-c nosuchevent 1" "-c $ev 1 1 1" \
	"-O xml -c $ev 1"; do
	# shellcheck disable=SC2086
	run "$cpustat" $args
	expect_rc "usage '$args'" 2
	expect_grep "usage-line '$args'" "$tmp/err" '^	cpustat -c spec \[-c spec\]\.\.\. \[-p period\] \[-T u\|d\]$'
	expect_grep "usage-end '$args'" "$tmp/err" 'Use cputrack\(1\) to monitor per-process statistics\.$'
done

# --- -h: the layout tools parse (event[0-N]: lines, platform names)
run "$cpustat" -h
expect_rc help 0
expect_grep help-iface "$tmp/out" '^	CPU performance counter interface: '
# The Solaris name exactly, and the running processor on a line of its own.
iface=$(sed -n 's/^	CPU performance counter interface: //p' "$tmp/out")
case $iface in
# What illumos's back end for the processor names it (cpc_cciname).
"Pentium Pro with MMX, Pentium II" | "Pentium Pro, Pentium II" | \
"AMD Opteron & Athlon64" | "AMD Family "[0-9a-f][0-9a-f]h | \
"Hygon Family "[0-9a-f][0-9a-f]h | "Core Microarchitecture" | \
"Intel Arch PerfMon v"[0-9]*" on Family "[0-9]*" Model "[0-9]* | \
"Linux perf_event") ok ;;
*) bad help-iface-name "unexpected interface name '$iface'" ;;
esac
expect_grep help-processor "$tmp/out" '^	Processor: .*(Family|perf_event)'
expect_grep help-generic "$tmp/out" '^	Generic Events:$'
expect_grep help-platform "$tmp/out" '^	Platform Specific Events:$'
name=$(grep -E '[[:space:]]+event\[*[0-9]-*[0-9]*\]*:' "$tmp/out" | grep -v PAPI |
	tail -n 1 | awk '{ print $NF }')
expect_true help-platform-name [ -n "$name" ]
# Event lists wrap with a 17-column margin.
expect_grep help-wrap "$tmp/out" '^ {17}[A-Za-z]'

# --- an unprivileged user is refused, clearly, with status 1
if can_drop_privileges; then
	run as_nobody "$cpustat" -c $ev 0.1 1
	expect_rc nobody 1
	expect_grep nobody-msg "$tmp/err" '^cpustat: cpu[0-9]+ - Permission denied$'
	expect_grep nobody-why "$tmp/err" 'CAP_PERFMON'
	expect_true nobody-quiet [ ! -s "$tmp/out" ]
fi

finish
