/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Check test programs. */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Installs an error function that records messages (see last_error). */
void capture_errors(void);
/* The messages recorded since the last clear_errors(), concatenated. */
const char *captured_errors(void);
void clear_errors(void);
/* Number of messages recorded since the last clear_errors(). */
int captured_count(void);

/* n divided by LIBCPC_STRESS_DIVISOR (valgrind's runs; at least 1). */
int stress_scaled(int n);
/* CPU time of the calling thread, in nanoseconds. */
uint64_t thread_cpu_ns(void);
/*
 * Times the calling thread has left its processor so far (voluntary and
 * involuntary context switches, getrusage(RUSAGE_THREAD)).
 */
uint64_t thread_switches(void);
/*
 * A clock request (task-clock, cpu-clock, or ticks derived from them)
 * counted between two samples, against the thread's CPU time:
 *
 *	nested_open(&n);  sample a;  nested_in(&n);  work;
 *	nested_out(&n);   sample b;  nested_close(&n);
 *
 * n.inner is the thread's CPU time inside the samples, n.outer the most
 * the thread can have been on its processor around them (testutil.c has
 * the derivation; the CPU time around them alone if the thread was
 * switched out); nested_holds(&n, b - a) says whether the count lies in
 * [inner, outer].  That is exact while the thread stays on its
 * processor (n.switched == 0); measure again while it was switched out,
 * up to NESTED_TRIES times (nested_open starts each stretch with a fresh
 * time slice, so a short stretch fits in one even on a loaded machine).
 */
struct nested_clock {
	uint64_t sw, raw0, cpu0, in0;
	uint64_t inner, outer;
	int switched;
};
#define NESTED_TRIES 2000
void nested_open(struct nested_clock *n);
void nested_in(struct nested_clock *n);
void nested_out(struct nested_clock *n);
void nested_close(struct nested_clock *n);
int nested_holds(const struct nested_clock *n, double counted);
/*
 * How far a processor's sched_clock (cpu-clock, task-clock) can run
 * ahead of or behind CLOCK_MONOTONIC over a stretch, beyond their rates
 * (testutil.c): 0 with the TSC as the clock source, two ticks otherwise.
 */
uint64_t sched_clock_slack_ns(void);
/* NTP's largest frequency adjustment of CLOCK_MONOTONIC (500 ppm). */
#define MONOTONIC_SLEW 500e-6
/* Monotonic raw time (CLOCK_MONOTONIC_RAW), in nanoseconds. */
uint64_t raw_ns(void);
/* Spins on the CPU for about ns nanoseconds of thread CPU time. */
void burn_cpu_ns(uint64_t ns);
/* Touches npages fresh anonymous pages (each faults once); unmaps them. */
void touch_fresh_pages(size_t npages);
/* Number of open file descriptors of this process. */
int count_open_fds(void);
/* Number of perf_event file descriptors this process holds (-1: unknown). */
int count_perf_fds(void);
/* kernel.perf_event_paranoid (2, the kernel's default, if unreadable). */
int perf_paranoid_level(void);
/* May this process open a user-mode perf task-clock on itself (the
 * kernel's perf_event_paranoid and capabilities decide)? */
int perf_self_permitted(void);
/* May this user count in its own other processes: through perf, or
 * through the kernel module's /dev/cpc where the backend may be the
 * module (LIBCPC_BACKEND unset or kmod)? */
int process_counting_permitted(void);
/* May this user count in system mode through the backend libcpc chooses
 * (a page-faults request in user and system mode bound to itself)? */
int system_mode_permitted(void);

#endif
