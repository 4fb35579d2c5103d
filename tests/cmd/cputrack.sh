#!/bin/sh
# SPDX-License-Identifier: MIT
# cputrack on real programs (tests/pctx_target): title, columns, labels,
# totals, options, usage errors, output files and CSV, capture, ^C, and
# the refusals an unprivileged user gets.
. "${top_srcdir:-.}/tests/cmd/cmdlib.sh"

ev=task-clock,page-faults
title='^   time lwp      event      pic0      pic1 $'

# --- one set: ticks are deltas, exit is the total
run "$cputrack" -T 0.1 -c $ev "$target" spin 300 pages 500 exit 3
expect_rc basic 0
expect_grep title "$tmp/out" "$title"
expect_grep tick-format "$tmp/out" '^ +[0-9]+\.[0-9]{3} +[0-9]+ +tick +[0-9]+ +[0-9]+ $'
# Solaris LWP ids: a single-threaded program's LWP is 1, in a 3-wide column.
expect_grep tick-lwp-1 "$tmp/out" '^ +[0-9]+\.[0-9]{3}   1 +tick '
expect_nogrep tick-lwp-tid "$tmp/out" '^ +[0-9]+\.[0-9]{3} +([02-9]|[0-9][0-9]+) +tick '
expect_true two-ticks [ "$(grep -c ' tick ' "$tmp/out")" -ge 2 ]
expect_grep last-is-exit "$(tail -n 1 "$tmp/out" > "$tmp/last"; echo "$tmp/last")" ' exit '
# The exit line holds the totals: at least 300 ms and 500 faults, and no
# less than the ticks add up to.
awk '/ tick / { t += $4; f += $5 } / exit / { e = $4; ef = $5 }
	END { exit !(e >= 250000000 && ef >= 500 && t <= e && f <= ef) }' \
	"$tmp/out" && ok || bad totals "exit line is not the total"
expect_count one-exit "$tmp/out" ' exit ' 1

# --- -n: no title; -t: tsc column
run "$cputrack" -n -t -T 0.1 -c $ev "$target" spin 150
expect_rc tsc 0
expect_nogrep no-title "$tmp/out" 'time'
expect_grep tsc-column "$tmp/out" '^ +[0-9.]+ +[0-9]+ +exit +[0-9]+ +[0-9]+ +[0-9]+ $'
run "$cputrack" -t -T 0 -c $ev "$target" spin 10
expect_grep tsc-title "$tmp/out" '^   time lwp      event       tsc      pic0      pic1 $'

# --- -v: LWP labels, and lwp_create/lwp_exit of two threads
run "$cputrack" -v -T 0 -c $ev "$target" threads 2 50
expect_rc threads 0
expect_count init_lwp "$tmp/out" ' init_lwp ' 3
expect_count lwp_create "$tmp/out" ' lwp_create ' 2
expect_count lwp_exit "$tmp/out" ' lwp_exit ' 2
expect_count fini_lwp "$tmp/out" ' fini_lwp ' 3
# LWP ids 1 (main), then 2 and 3 in creation order.
expect_true lwp-ids [ "$(awk '/ init_lwp / { print $2 }' "$tmp/out" | sort -n | tr '\n' ' ')" = "1 2 3 " ]
expect_count exit "$tmp/out" ' exit ' 1
# The process total is the sum of its LWPs' totals.
awk '/ fini_lwp / { s += $4 } / exit / { e = $4 } END { exit !(s == e) }' \
	"$tmp/out" && ok || bad fini-sum "exit is not the sum of fini_lwp"
# Without -v: no init_lwp or fini_lwp lines.
run "$cputrack" -T 0 -c $ev "$target" threads 2 20
expect_nogrep quiet "$tmp/out" 'init_lwp|fini_lwp'
expect_count quiet-lwp_exit "$tmp/out" ' lwp_exit ' 2

# --- fork: the fork line; -f adds the pid column and follows the child
run "$cputrack" -T 0 -c $ev "$target" fork 50 spin 20
expect_rc fork 0
expect_grep fork-line "$tmp/out" '^ +[0-9.]+ +[0-9]+ +fork +# [0-9]+$'
expect_count fork-not-followed "$tmp/out" ' exit ' 1
run "$cputrack" -f -T 0 -c $ev "$target" fork 50 spin 20
expect_rc follow-fork 0
expect_grep pid-title "$tmp/out" '^   time    pid lwp      event      pic0      pic1 $'
child=$(sed -n 's/.* fork .*# \([0-9]*\)$/\1/p' "$tmp/out")
expect_true child-pid [ -n "$child" ]
expect_grep child-exit "$tmp/out" "^ +[0-9.]+ +$child +1 +exit "
expect_count both-exit "$tmp/out" ' exit ' 2

# --- exec: totals and the new arguments; -e follows
run "$cputrack" -T 0 -c $ev "$target" spin 20 exec "$target" spin 20 exit 4
# (as illumos's: the exec callback's refusal makes pctx_run fail)
expect_rc exec 1
expect_grep exec-totals "$tmp/out" ' exec +[0-9]+ +[0-9]+ $'
expect_grep exec-args "$tmp/out" " exec +# '.*pctx_target spin 20 exit 4'$"
expect_grep exec-lwp-1 "$tmp/out" "^ +[0-9.]+   1 +exec +# "
expect_nogrep exec-stops "$tmp/out" ' exit +[0-9]+ +[0-9]+ $'
run "$cputrack" -e -T 0 -c $ev "$target" spin 20 exec "$target" spin 20 exit 4
expect_rc follow-exec 0
expect_count exec-followed "$tmp/out" ' exit +[0-9]+ +[0-9]+ $' 1
# A target killed by a signal: no exit line (it never called exit), and
# cputrack fails (illumos: pctx_run's failure is the status).
run "$cputrack" -T 0 -c $ev /bin/sh -c 'kill -KILL $$'
expect_rc killed 1
expect_nogrep killed-no-exit "$tmp/out" ' exit '
# -e: the exec line holds the old image's totals (200 ms of CPU), the
# exit line the new image's alone (20 ms and its start-up), as illumos's
# cputrack starts a new total at each exec.
run "$cputrack" -e -T 0 -c $ev "$target" spin 200 exec "$target" spin 20 exit 4
awk '/ exec +[0-9]+ +[0-9]+ $/ { x = $4 } / exit +[0-9]+ +[0-9]+ $/ { e = $4 }
	END { exit !(x > 0 && e > 0 && e < x) }' "$tmp/out" &&
	ok || bad exec-new-total "the exit total after an exec is not the new image's"

# --- several sets, multiplexed: lines end with the set
run "$cputrack" -T 0.05 -c $ev -c context-switches "$target" spin 300
expect_rc sets 0
expect_grep set0 "$tmp/out" ' tick +[0-9]+ +[0-9]+  # task-clock,page-faults$'
expect_grep set1 "$tmp/out" ' tick +[0-9]+  # context-switches$'
expect_count set-exits "$tmp/out" ' exit ' 2

# --- -N: that many ticks, then the target is let go
start=$(date +%s)
# (-f for the pid column: the lwp column holds LWP ids, 1 here)
run "$cputrack" -f -N 2 -T 0.05 -c $ev "$target" spin 3000
expect_rc nsamples 0
expect_count nsamples-ticks "$tmp/out" ' tick ' 2
expect_true nsamples-quick [ $(($(date +%s) - start)) -lt 3 ]
pid=$(awk '/ tick / { print $2; exit }' "$tmp/out")
[ -n "$pid" ] && [ "$pid" -gt 1 ] && kill "$pid" 2>/dev/null || true

# --- -o file, -O csv
run "$cputrack" -o "$tmp/file" -T 0 -c $ev "$target" spin 10
expect_rc outfile 0
expect_true outfile-stdout [ ! -s "$tmp/out" ]
expect_grep outfile-title "$tmp/file" "$title"
expect_grep outfile-exit "$tmp/file" ' exit '
run "$cputrack" -o /nonexistent/dir/file -c $ev "$target" spin 10
expect_rc outfile-error 1
expect_grep outfile-msg "$tmp/err" "^cputrack: cannot open '/nonexistent/dir/file' for writing$"
run "$cputrack" -O csv -T 0.05 -c $ev -c context-switches "$target" spin 120
expect_rc csv 0
expect_grep csv-header "$tmp/out" '^time,pid,lwp,event,tsc,set,pic0,pic1,(pic[0-9]+,)*info$'
expect_grep csv-row "$tmp/out" '^[0-9]+\.[0-9]{3},[0-9]+,[0-9]+,tick,[0-9]+,"task-clock,page-faults",[0-9]+,[0-9]+,'
expect_grep csv-exit "$tmp/out" '^[0-9.]+,[0-9]+,[0-9]+,exit,[0-9]+,context-switches,[0-9]+,'
awk -F, 'NR == 1 { n = NF } NR > 1 && !/"/ && NF != n { bad = 1 }
	END { exit bad }' "$tmp/out" && ok || bad csv-fields "rows differ from the header"
# The tsc column: the ticks of the LWP's on-CPU time (0 in a sample
# taken before the target first ran; the target spins 120 ms, so not
# in all of them).
awk -F, '$4 == "tick" || $4 == "exit" { if ($5 > max) max = $5 }
	END { exit !(max > 0) }' "$tmp/out" && ok || bad csv-tsc "tsc column always 0"
# The exec line's arguments, as one CSV field (RFC 4180): quoted when
# they hold a comma or a quote, each quote doubled.
run "$cputrack" -O csv -T 0 -c $ev "$target" spin 10 exec /bin/sh -c ': "a,b"'
expect_rc csv-exec 1	# the exec not followed (illumos: the run fails)
expect_grep csv-exec-comma "$tmp/out" '^[0-9.]+,[0-9]+,1,exec,(,)+"/bin/sh -c : ""a,b"""$'
run "$cputrack" -O csv -T 0 -c $ev "$target" spin 10 exec /bin/sh -c ': "ab"'
expect_grep csv-exec-quote "$tmp/out" '^[0-9.]+,[0-9]+,1,exec,(,)+"/bin/sh -c : ""ab"""$'
run "$cputrack" -O csv -T 0 -c $ev "$target" spin 10 exec /bin/sh -c ':'
expect_grep csv-exec-plain "$tmp/out" '^[0-9.]+,[0-9]+,1,exec,(,)+/bin/sh -c :$'

# --- -p: capture a running process
"$target" sleep 1500 spin 100 exit 0 &
pid=$!
wait_for_exec $pid
run "$cputrack" -T 0 -c $ev -p $pid
wait $pid || true
expect_rc capture 0
expect_grep capture-exit "$tmp/out" "^ +[0-9.]+   1 +exit "

# --- ^C ends the tracking and lets the target go
"$target" spin 4000 &
pid=$!
wait_for_exec $pid
# (A shell ignores SIGINT in background commands: sigdfl restores it.)
# The output file is emptied first: the background command's own
# redirection may come after wait_for_output has looked at the file, and
# an earlier step's output there would send the signal too early.
: > "$tmp/out"
"$target" sigdfl exec "$cputrack" -T 0.1 -c $ev -p $pid > "$tmp/out" \
	2> "$tmp/err" &
ct=$!
wait_for_output "$tmp/out"	# the title: the handlers are in place
sleep 0.3
kill -INT $ct
rc=0
wait $ct || rc=$?
expect_rc interrupt 0
expect_nogrep interrupt-no-total "$tmp/out" ' exit '
expect_true target-alive kill -0 $pid
expect_grep target-released /proc/$pid/status '^TracerPid:[[:space:]]+0$'
kill $pid
wait $pid 2>/dev/null || true
# Also for a command cputrack started (SIGTERM this time).
: > "$tmp/out"
"$cputrack" -f -T 0.1 -c $ev "$target" spin 4000 > "$tmp/out" 2> "$tmp/err" &
ct=$!
wait_for_line "$tmp/out" ' tick '	# the target's pid is on that line
kill -TERM $ct
rc=0
wait $ct || rc=$?
expect_rc terminate 0
pid=$(awk '/ tick / { print $2; exit }' "$tmp/out")
expect_true terminate-released test -d "/proc/${pid:-none}"
[ -n "$pid" ] && [ "$pid" -gt 1 ] && kill "$pid" 2>/dev/null || true

# --- errors
run "$cputrack" -c $ev /nonexistent/program
expect_rc no-program 1
expect_grep no-program-msg "$tmp/err" "^cputrack: failed to start program '/nonexistent/program'$"
run "$cputrack" -c $ev -p 999999999
expect_rc no-pid 1
expect_grep no-pid-msg "$tmp/err" '^cputrack: failed to capture pid 999999999$'
if ! has_pmu; then
	run "$cputrack" -c PAPI_tot_ins "$target" spin 10
	expect_rc papi 1
	expect_grep papi-msg "$tmp/err" "event 'PAPI_tot_ins' cannot be counted on this system"
fi

# --- usage errors exit 2, with the usage text on stderr
for args in "" "-c $ev" "-c $ev -p 1 $target" "-r -c $ev $target" \
	"-N -1 -c $ev $target" "-p 0 -c $ev" "-O xml -c $ev $target" \
	"-T -1 -c $ev $target" "-c nosuchevent $target"; do
	# shellcheck disable=SC2086
	run "$cputrack" $args
	expect_rc "usage '$args'" 2
	expect_grep "usage-text '$args'" "$tmp/err" '^Usage:$'
	expect_grep "usage-end '$args'" "$tmp/err" 'Use cpustat\(8\) to monitor system-wide statistics\.$'
done
run "$cputrack" -c $ev
expect_grep usage-line "$tmp/err" '^	cputrack \[-T secs\] \[-N count\] \[-Defhnv\] \[-o file\]$'

# --- -h: usage and capabilities on stdout
run "$cputrack" -h
expect_rc help 0
expect_grep help-usage "$tmp/out" '^Usage:$'
expect_grep help-events "$tmp/out" '^	event\[0-[0-9]+\]: '
expect_grep help-attrs "$tmp/out" '^	attributes: .*nouser sys $'

# --- unprivileged
if can_drop_privileges; then
	run as_nobody "$cputrack" -c $ev -p 1
	expect_rc nobody-capture 1
	expect_grep nobody-msg "$tmp/err" '^cputrack: pid 1: permission denied$'
	run as_nobody "$cputrack" -T 0 -c $ev "$target" spin 50
	expect_rc nobody-own 0
	expect_grep nobody-own-exit "$tmp/out" ' exit '
fi

finish
