#!/bin/sh
# SPDX-License-Identifier: MIT
# "make fuzz": builds the libFuzzer targets of tests/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) against the library's sources
# compiled with the same instrumentation, then runs each for FUZZ_SECONDS
# seconds from its seed corpus, and prints a summary of the executions.
#
# Usage: fuzz.sh SRCDIR BUILDDIR TARGET...
# Environment: FUZZ_CC (clang), FUZZ_SECONDS (60), FUZZ_JOBS (1),
# LIB_SOURCES (the library's sources, from Makefile.am), PFM_LIBS.
# A crash leaves its input in BUILDDIR/crashes/ and fails the run; copy it
# to tests/fuzz/regressions/TARGET/ to replay it in "make check".
set -eu

srcdir=$1
out=$2
shift 2
cc=${FUZZ_CC:-clang}
seconds=${FUZZ_SECONDS:-60}
pfm=${PFM_LIBS:--lpfm}

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
	exit 1
fi

san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=c11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror $san"
cppflags="-D_GNU_SOURCE -I$srcdir/include -I$srcdir/kmod/uapi -I$srcdir/tests/fuzz"
for layer in util events backend core v1 v2; do
	cppflags="$cppflags -I$srcdir/libcpc/$layer"
done
mkdir -p "$out/obj" "$out/bin" "$out/crashes" "$out/logs"

# Does the toolchain have libFuzzer?
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > "$out/probe.c"
if ! "$cc" -fsanitize=fuzzer "$out/probe.c" -o "$out/probe" 2>"$out/probe.err"; then
	cat "$out/probe.err" >&2
	echo "fuzz: $cc cannot link libFuzzer (Debian: apt-get install libclang-rt-14-dev)" >&2
	exit 1
fi

# The library, instrumented for coverage.  inherit.c is left out: its
# versioned pthread_create interposer belongs in a shared library.
objs=
for src in $LIB_SOURCES; do
	case $src in
	*.c) ;;
	*) continue ;;
	esac
	case $src in
	*/inherit.c) continue ;;
	esac
	obj=$out/obj/$(echo "${src%.c}" | tr / _).o
	if [ ! -e "$obj" ] || [ "$srcdir/$src" -nt "$obj" ]; then
		"$cc" $cppflags $cflags -fsanitize=fuzzer-no-link -c "$srcdir/$src" -o "$obj"
	fi
	objs="$objs $obj"
done

# cputrack/cpustat's -c parser, when it is there.
strtoset_obj=
if [ -f "$srcdir/cmd/strtoset.c" ]; then
	strtoset_obj=$out/obj/strtoset.o
	"$cc" $cppflags -I"$srcdir/cmd" $cflags -fsanitize=fuzzer-no-link \
		-c "$srcdir/cmd/strtoset.c" -o "$strtoset_obj"
fi

summary=$out/summary.txt
: > "$summary"
failed=0
for t in "$@"; do
	extra=
	if [ "$t" = strtoset ]; then
		if [ -z "$strtoset_obj" ]; then
			echo "fuzz_strtoset: skipped (no cmd/strtoset.c yet)" | tee -a "$summary"
			continue
		fi
		extra="-I$srcdir/cmd $strtoset_obj"
	fi
	bin=$out/bin/fuzz_$t
	"$cc" $cppflags $cflags -fsanitize=fuzzer $extra \
		"$srcdir/tests/fuzz/fuzz_$t.c" $objs $pfm -ldl -pthread -o "$bin"

	# New inputs go to a working corpus; the seeds stay as they are.
	work=$out/corpus/$t
	mkdir -p "$work"
	seeds=$srcdir/tests/fuzz/corpus/$t
	regs=$srcdir/tests/fuzz/regressions/$t
	dirs="$work $seeds"
	# Inputs of fixed bugs join the corpus; "known-" ones (reported,
	# not fixed yet) would only stop the run at once.
	if [ -d "$regs" ]; then
		for f in "$regs"/*; do
			case $(basename "$f") in
			known-* | README) ;;
			*) [ -f "$f" ] && cp "$f" "$work/" ;;
			esac
		done
	fi
	log=$out/logs/$t.log
	echo "fuzz_$t: $seconds s ..."
	start=$(date +%s)
	# shellcheck disable=SC2086
	if ASAN_OPTIONS=detect_leaks=1:handle_abort=1 \
	    "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len=1024 -print_final_stats=1 \
		-artifact_prefix="$out/crashes/$t-" $dirs >"$log" 2>&1; then
		status=ok
	else
		status="CRASH (see $log and $out/crashes/)"
		failed=1
	fi
	end=$(date +%s)
	done_line=$(grep -a 'DONE' "$log" | tail -n 1 || true)
	execs=$(grep -a '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
	rate=$(grep -a '^stat::average_exec_per_sec' "$log" | awk '{print $2}' || true)
	cov=$(echo "$done_line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ncorp=$(find "$work" -type f | wc -l)
	printf 'fuzz_%s: %s executions in %s s (%s/s), cov %s, %s new corpus inputs: %s\n' \
		"$t" "${execs:-?}" "$((end - start))" "${rate:-?}" "${cov:-?}" \
		"$ncorp" "$status" | tee -a "$summary"
	[ -n "$done_line" ] && echo "  $done_line" >> "$summary"
done
echo "fuzz: summary in $summary"
exit $failed
