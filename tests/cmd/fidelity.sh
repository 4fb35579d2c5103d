#!/bin/sh
# SPDX-License-Identifier: MIT
# cputrack and cpustat as illumos's own: usage texts line by line, -r
# refused without getopt's word, -h after the other options, libpctx's
# messages (and -D's prefix), the exit status pctx_run gives, -f
# following children in copies of cputrack, and the order of the
# fini_lwp and lwp_exit lines.
. "${top_srcdir:-.}/tests/cmd/cmdlib.sh"

ev=task-clock,page-faults
tab=$(printf '\t')

# --- usage texts, line by line (illumos usr/src/cmd/cpc/common)
cat > "$tmp/cputrack.usage" <<END
Usage:
${tab}cputrack [-T secs] [-N count] [-Defhnv] [-o file]
${tab}${tab}-c events [command [args] | -p pid]

${tab}-T secs${tab}  seconds between samples, default 1
${tab}-N count  number of samples, default unlimited
${tab}-D${tab}  enable debug mode
${tab}-e${tab}  follow exec(2), and execve(2)
${tab}-f${tab}  follow fork(2), fork1(2), and vfork(2)
${tab}-h${tab}  print extended usage information
${tab}-n${tab}  suppress titles
${tab}-t${tab}  include virtualized tsc register
${tab}-v${tab}  verbose mode
${tab}-o file${tab}  write cpu statistics to this file
${tab}-c events specify processor events to be monitored
${tab}-p pid${tab}  pid of existing process to capture

${tab}Use cpustat(8) to monitor system-wide statistics.
END
cat > "$tmp/cpustat.usage" <<END
Usage:
${tab}cpustat -c spec [-c spec]... [-p period] [-T u|d]
${tab}${tab}[-sntD] [interval [count]]

${tab}-c spec${tab}  specify processor events to be monitored
${tab}-n${tab}  suppress titles
${tab}-p period cycle through event list periodically
${tab}-s${tab}  run user soaker thread for system-only events
${tab}-t${tab}  include tsc register
${tab}-T d|u${tab}  Display a timestamp in date (d) or unix time_t (u)
${tab}-D${tab}  enable debug mode
${tab}-h${tab}  print extended usage information

${tab}Use cputrack(1) to monitor per-process statistics.
END
run "$cputrack" -c $ev
expect_rc cputrack-usage 2
cmp -s "$tmp/err" "$tmp/cputrack.usage" && ok ||
	bad cputrack-usage-text "$(diff "$tmp/cputrack.usage" "$tmp/err")"
# -r takes an argument and is refused with the usage alone
run "$cputrack" -r x -c $ev "$target" spin 1
expect_rc r-refused 2
cmp -s "$tmp/err" "$tmp/cputrack.usage" && ok ||
	bad r-usage-only "$(diff "$tmp/cputrack.usage" "$tmp/err")"
run "$cpustat" -c $ev 0
expect_rc cpustat-usage 2
cmp -s "$tmp/err" "$tmp/cpustat.usage" && ok ||
	bad cpustat-usage-text "$(diff "$tmp/cpustat.usage" "$tmp/err")"
# cpustat's operands are named when they are not numbers
run "$cpustat" -c $ev 1 2x
expect_rc count-refused 2
expect_grep count-named "$tmp/err" '^cpustat: invalid argument "2x"$'
run "$cpustat" -p x -c $ev 1
expect_grep period-named "$tmp/err" '^cpustat: invalid parameter "x"$'

# --- -h is acted on after the options: a bad one is still reported
run "$cputrack" -h -N -1
expect_rc help-after-error 0
head -n 18 "$tmp/out" > "$tmp/head"
cmp -s "$tmp/head" "$tmp/cputrack.usage" && ok ||
	bad help-usage "$(diff "$tmp/cputrack.usage" "$tmp/head")"
expect_grep help-caps "$tmp/out" '^	CPU performance counter interface: '
# illumos's layout: the interface line, a blank line, the syntax; the
# Linux section comes last, after the processor reference: the Processor
# line, then the events this system counts
awk '/CPU performance counter interface:/ { getline; exit !($0 == "") }' \
	"$tmp/out" && ok || bad help-blank "no blank line after the interface"
sed -n '/^	Processor: /,$p' "$tmp/out" > "$tmp/linux"
expect_count help-linux-section "$tmp/linux" '^	Processor: ' 1
expect_true help-linux-last awk 'NR == 1 { next }
	/^$/ || /^	Of the events above, this system counts:$/ { next }
	/^	[^ 	]+( |$)/ { next } { exit 1 }' "$tmp/linux"

# --- libpctx's messages: illumos's, prefixed with -D as the library's
run "$cputrack" -c $ev /nonexistent/program
expect_rc no-program 1
expect_grep no-program-msg "$tmp/err" "^cputrack: cannot findprogram '/nonexistent/program'$"
run "$cputrack" -D -c $ev /nonexistent/program
expect_grep debug-prefix "$tmp/err" "^cputrack: create: cannot findprogram '/nonexistent/program'$"
run "$cputrack" -c $ev -p 2147483000
expect_rc no-pid 1
expect_grep no-pid-msg "$tmp/err" '^cputrack: pid 2147483000 doesn.t exist$'
expect_grep no-pid-end "$tmp/err" '^cputrack: failed to capture pid 2147483000$'

# --- exit status: a target killed by a signal makes pctx_run fail, and
# no exit line is printed (it never called exit)
run "$cputrack" -T 0 -c $ev sh -c 'kill -9 $$'
expect_rc killed 1
expect_nogrep killed-no-exit "$tmp/out" ' exit '
expect_grep killed-msg "$tmp/err" '^cputrack: [0-9]+: process terminated$'

# --- -v: fini_lwp before lwp_exit, and lwp_exit has fini_lwp's totals
run "$cputrack" -v -T 0 -c $ev "$target" threads 2 50
expect_rc verbose 0
awk '$3 == "fini_lwp" && $2 > 1 { fini[$2] = $4 " " $5; order[$2] = 1 }
	$3 == "lwp_exit" { if (order[$2] != 1 || fini[$2] != $4 " " $5) bad++;
		n++ }
	$3 == "lwp_create" && !($2 in init) { bad++ }
	$3 == "init_lwp" { init[$2] = 1 }
	END { exit !(n == 2 && bad == 0) }' "$tmp/out" && ok ||
	bad lwp-exit-totals "lwp_exit lines do not follow fini_lwp's"
expect_count lwp-exit-lines "$tmp/out" ' lwp_exit ' 2

# --- -f: each child is followed by a copy of cputrack
run "$cputrack" -f -T 0 -c $ev "$target" fork 50 spin 20
expect_rc follow-fork 0
expect_count fork-line "$tmp/out" '^ +[0-9.]+ +[0-9]+   1       fork +# [0-9]+$' 1
child=$(awk '$4 == "fork" { print $NF }' "$tmp/out")
parent=$(awk '$4 == "fork" { print $2 }' "$tmp/out")
expect_count child-exit "$tmp/out" "^ +[0-9.]+ +$child +1 +exit " 1
expect_count parent-exit "$tmp/out" "^ +[0-9.]+ +$parent +1 +exit " 1
# the child's 50 ms are its own
awk -v c="$child" '$2 == c && $4 == "exit" { exit !($5 >= 45000000) }' \
	"$tmp/out" && ok || bad child-counts "the child's exit line lacks its 50 ms"
# without -f: the fork line, and nothing of the child
run "$cputrack" -T 0 -c $ev "$target" fork 20 spin 20
expect_rc no-follow 0
expect_count fork-line-only "$tmp/out" ' fork +# [0-9]+$' 1
expect_count one-exit "$tmp/out" ' exit ' 1

finish
