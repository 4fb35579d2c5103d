#!/bin/sh
# SPDX-License-Identifier: MIT
# The Linux help the tools add after the Solaris texts: an unknown event
# named with the closest names, the number of counters, events that
# cannot be counted here refused before the command is started, and the
# events this system counts in -h.
. "${top_srcdir:-.}/tests/cmd/cmdlib.sh"

# --- an unknown event: Solaris's message and usage, then the hint last
for tool in cputrack cpustat; do
	eval "bin=\$$tool"
	if [ $tool = cputrack ]; then
		run "$bin" -c task-clok,page-faults true
	else
		run "$bin" -c task-clok,page-faults 1 1
	fi
	expect_rc "$tool-unknown" 2
	expect_grep "$tool-unknown-solaris" "$tmp/err" "^$tool: bad token 'task-clok'\$"
	expect_grep "$tool-unknown-usage" "$tmp/err" '^Usage:$'
	tail -n 1 "$tmp/err" > "$tmp/last"
	expect_grep "$tool-unknown-hint" "$tmp/last" "^$tool: unknown event 'task-clok'; did you mean task-clock[ ,?].* the event names: $tool -h\$"
done
run "$cputrack" -c pic0=cyclez true
expect_rc pic-unknown 2
expect_grep pic-unknown-solaris "$tmp/err" "^cputrack: pic0 cannot measure event 'cyclez' on this cpu\$"
expect_grep pic-unknown-hint "$tmp/err" "^cputrack: unknown event 'cyclez'; did you mean cycles"
run "$cputrack" -c zzzzzzzzzzzzz true
expect_grep far-unknown "$tmp/err" "^cputrack: unknown event 'zzzzzzzzzzzzz'; the event names: cputrack -h\$"

# --- more events than counters: the limit
npic=$("$cputrack" -h | sed -n 's/^	event\[0-\([0-9]*\)\]: .*/\1/p' | head -n 1)
if [ -z "$npic" ]; then
	npic=$("$cputrack" -h | grep -c '^	event[0-9]*: ' || true)
	npic=$((npic / 2 - 1))
fi
spec=task-clock
i=0
while [ $i -le "$npic" ]; do spec="$spec,task-clock"; i=$((i + 1)); done
run "$cputrack" -c "$spec" true
expect_rc too-many 2
expect_grep too-many-solaris "$tmp/err" "^cputrack: bad token 'task-clock'\$"
expect_grep too-many-hint "$tmp/err" "^cputrack: too many events: this system counts at most $((npic + 1)) at once"

# --- -h: the events this system counts, after illumos's text
run "$cputrack" -h
expect_rc help 0
expect_grep help-countable "$tmp/out" '^	Of the events above, this system counts:$'
sed -n '/this system counts:/,$p' "$tmp/out" > "$tmp/countable"
expect_grep help-task-clock "$tmp/countable" ' task-clock '
if has_pmu; then
	expect_grep help-cycles-pmu "$tmp/countable" 'PAPI_tot_cyc '
else
	# No hardware PMU: the back end is the kernel's software events.
	expect_nogrep help-papi-nopmu "$tmp/countable" 'PAPI_'
	expect_grep help-platform-sw "$tmp/out" '^	event\[0-[0-9]+\]: .*task-clock'
fi

# --- an event this system cannot count: refused before the command
if ! has_pmu; then
	run "$cputrack" -c cycles,instructions sh -c "touch '$tmp/started'"
	expect_rc nopmu 1
	expect_true nopmu-no-title test ! -s "$tmp/out"
	expect_true nopmu-not-started test ! -e "$tmp/started"
	expect_grep nopmu-set "$tmp/err" "^cputrack: cannot count 'cycles,instructions' on this system"
	expect_grep nopmu-why "$tmp/err" "^cputrack: event 'cycles' cannot be counted on this system: the kernel has no hardware PMU"
	run "$cpustat" -c cycles 1 1
	expect_rc cpustat-nopmu 1
	expect_grep cpustat-nopmu-why "$tmp/err" "^cpustat: event 'cycles' cannot be counted on this system: the kernel has no hardware PMU.*KVM: -cpu host"
fi

finish
