#!/bin/sh
# SPDX-License-Identifier: MIT
# The -c event specification (cpc_strtoset in cmd/strtoset.c): counter
# assignment, flags and attributes, and the exact error texts, through
# cputrack and cpustat (a parse error is a usage error: status 2).
. "${top_srcdir:-.}/tests/cmd/cmdlib.sh"

# spec_error SPEC MESSAGE: both tools refuse SPEC with that message.
spec_error() {
	for tool in "$cputrack" "$cpustat"; do
		name=$(basename "$tool")
		run "$tool" -c "$1" "$target"
		expect_rc "$name '$1'" 2
		first=$(head -n 1 "$tmp/err")
		if [ "$first" = "$name: $2" ]; then ok; else
			bad "$name '$1'" "says '$first', not '$name: $2'"
		fi
	done
	# -D names the function.
	run "$cputrack" -D -c "$1" "$target"
	expect_grep "debug '$1'" "$tmp/err" "^cputrack: cpc_strtoset: "
}

spec_error 'pic0' "missing 'pic0' value"
spec_error 'pic1=' "missing 'pic1' value"
spec_error 'pic0=task-clock,pic0=page-faults' "repeated 'pic0' token"
spec_error 'page-faults,pic0=task-clock' "repeated 'pic0' token"
spec_error 'pic1=nosuchevent' "pic1 cannot measure event 'nosuchevent' on this cpu"
spec_error 'pic0=0' "pic0 cannot measure event '0' on this cpu"
spec_error 'task-clock,umask=zz' "invalid value 'zz' for attribute 'umask'"
spec_error 'task-clock,cmask1=' "invalid value '' for attribute 'cmask'"
spec_error 'foo=bar' "bad token 'foo=bar'"
spec_error 'nosuchevent' "bad token 'nosuchevent'"
spec_error '0' "bad token '0'"
# The last counter taken, no counter is left for an implicit event (the
# number of counters is the processor's: cpc_npic).
last=0
while "$cputrack" -T 0 -c "pic$((last + 1))=task-clock" "$target" spin 1 \
    >/dev/null 2>&1; do
	last=$((last + 1))
done
spec_error "pic$last=task-clock,page-faults" "bad token 'page-faults'"
spec_error 'nouser,sys' "no event specified in 'nouser,sys'"

# header SPEC TITLE: cputrack accepts SPEC and titles its columns so.
header() {
	run "$cputrack" -T 0 -c "$1" "$target" spin 5
	expect_rc "accept '$1'" 0
	line=$(head -n 1 "$tmp/out")
	if [ "$line" = "   time lwp      event $2" ]; then ok; else
		bad "header '$1'" "title '$line'"
	fi
}

header 'task-clock,page-faults' '     pic0      pic1 '
header 'pic1=task-clock,page-faults' '     pic1      pic2 '
header 'pic3=task-clock,pic0=page-faults' '     pic0      pic3 '
header 'pic2=task-clock,nouser2,sys2,context-switches,sys=ignored' '     pic2      pic3 '
header 'task-clock,task-clock,nouser1,sys1' '     pic0      pic1 '
header ',task-clock,,' '     pic0 '

# nouser1,sys1: the second counter counts the kernel only (faults of
# user code count in user mode).
run "$cputrack" -T 0 -c page-faults,page-faults,nouser1,sys1 "$target" pages 300
expect_rc user-sys 0
awk '/ exit / { exit !($4 >= 300 && $5 < $4) }' "$tmp/out" && ok ||
	bad user-sys "page faults counted in the wrong mode"

finish
