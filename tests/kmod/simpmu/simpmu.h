/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * simpmu: a simulated x86 core PMU for libcpc's test guest.  Shared
 * declarations of simpmu_main.c (the PMU), simpmu_events.c (the x86
 * encodings) and simpmu_log.c (the sysfs record).  See README.md.
 */
#ifndef SIMPMU_H
#define SIMPMU_H

#include <linux/types.h>
#include <linux/perf_event.h>

/* The most counters the counters= parameter may ask for. */
#define SIMPMU_MAX_COUNTERS 16

enum simpmu_vendor { SIMPMU_INTEL, SIMPMU_AMD };

extern enum simpmu_vendor simpmu_vendor;
extern unsigned int simpmu_counters;
extern unsigned int simpmu_mhz;

/*
 * simpmu_encode: what x86's hw_config does for EVENT: the event-select
 * value the simulated counter is programmed with (enable bit included)
 * in *RAW, or -errno as x86 gives it for the same attributes.
 */
int simpmu_encode(struct perf_event *event, u64 *raw);

/*
 * simpmu_divisor: the count rate of a programmed event-select value:
 * the event counts (counted ns) * mhz / 1000 / divisor.
 */
unsigned int simpmu_divisor(u64 raw);

/* The mode an update point gives the time that follows it. */
enum { SIMPMU_MODE_IDLE, SIMPMU_MODE_USER, SIMPMU_MODE_KERNEL };

/*
 * icount mode (simpmu_icount.c): icount_shift >= 0 for a guest under
 * qemu's -icount shift=S; the time base is then the executed
 * instructions (the TSC >> S), and system calls are update points.
 */
extern int simpmu_icount_shift;
static inline bool simpmu_icount(void)
{
	return simpmu_icount_shift >= 0;
}
u64 simpmu_icount_now(void);
/* The hrtimer nanoseconds in which INSNS instructions execute. */
u64 simpmu_icount_to_ns(u64 insns);
int simpmu_icount_init(void);
void simpmu_icount_exit(void);
/* simpmu_main.c: an update point of this CPU's counters (IRQs any). */
void simpmu_mode_point(int after);

int simpmu_log_init(void);
void simpmu_log_exit(void);
/* Records one event_init: RAW (0 if refused), GROUP events, result RC. */
void simpmu_log_add(const struct perf_event *event, u64 raw, int group,
		    int rc);

#endif /* SIMPMU_H */
