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

/* CPU time of the calling thread, in nanoseconds. */
uint64_t thread_cpu_ns(void);
/*
 * How far a thread's task-clock over an interval may stray from its
 * CLOCK_THREAD_CPUTIME_ID time over the same interval, either way, beyond
 * 5% for the clocks' granularity: two scheduler ticks at HZ=250.  In a
 * loaded qemu guest, raw perf (no libcpc) was seen 4.7 ms below and 3.7
 * ms above it for threads sharing the guest's processors.
 */
#define TASK_CLOCK_SLACK_NS 8000000.0

/* CLOCK_MONOTONIC, in nanoseconds. */
uint64_t mono_ns(void);
/* Spins on the CPU for about ns nanoseconds of thread CPU time. */
void burn_cpu_ns(uint64_t ns);
/* Touches npages fresh anonymous pages (each faults once); unmaps them. */
void touch_fresh_pages(size_t npages);
/* Number of open file descriptors of this process. */
int count_open_fds(void);
/* kernel.perf_event_paranoid (2, the kernel's default, if unreadable). */
int perf_paranoid_level(void);

#endif
