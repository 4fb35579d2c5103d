/*
 * Reading a counter without a system call: the perf_event mmap page
 * protocol (sequence lock, counter index, width and offset), with the
 * rdpmc instruction; and the page's enabled time, from the TSC.  The one
 * implementation of the user-page protocol.  See perf_event_open(2),
 * "mmap layout".
 */
#ifndef LIBCPC_RDPMC_H
#define LIBCPC_RDPMC_H

#include <linux/perf_event.h>
#include <stdint.h>

/* Reads hardware counter idx (the page's index - 1). */
typedef uint64_t (*cpc_rdpmc_fn)(uint32_t idx);

/* The rdpmc instruction. */
uint64_t __cpc_rdpmc_insn(uint32_t idx);

/*
 * Reads the count of the event whose user page is pg: offset plus the
 * sign-extended pmc_width-bit counter, retried while the kernel changes
 * the page.  Returns 0, or -1 when user-space reading is not possible now
 * (rdpmc not allowed, or the event is not on a counter: index 0); the
 * caller then falls back to read().  Async-signal-safe.
 */
int __cpc_rdpmc_read(const volatile struct perf_event_mmap_page *pg,
    cpc_rdpmc_fn rdpmc, uint64_t *count);

/* Reads the time stamp counter. */
typedef uint64_t (*cpc_rdtsc_fn)(void);

/*
 * The event's enabled time from its user page: the page's time_enabled
 * plus the TSC time since the kernel last wrote it, under the same
 * sequence lock.  Returns 0, or -1 when the page gives no user time
 * (cap_user_time clear).  Async-signal-safe.
 */
int __cpc_rdpmc_time_enabled(const volatile struct perf_event_mmap_page *pg,
    cpc_rdtsc_fn rdtsc, uint64_t *enabled);

#endif
