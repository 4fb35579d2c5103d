/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the hardware counting programs (test_hw_counts,
 * test_hw_overflow): the guest's names for cycles and instructions, the
 * cycles the simulated PMU counts for a CPU time and the tolerance of
 * such a count, and version 1 binding by those names.
 */
#ifndef TESTS_HW_HWCOUNT_H
#define TESTS_HW_HWCOUNT_H

#include <stddef.h>
#include <stdint.h>

/* The vendor's names for cycles and instructions (version 1 tables). */
const char *cyc_name(void);
const char *ins_name(void);
/* The same in the current interfaces (hw_v2_cycles, hw_v2_instructions). */
const char *v2_cyc_name(void);
const char *v2_ins_name(void);
/* CPC_COUNT_USER, and CPC_COUNT_SYSTEM too as root. */
unsigned all_modes(void);
/* Cycles the simulated PMU counts for ns of on-CPU time. */
double cycles_for_ns(double ns);

/*
 * The tolerance of a count against the thread's CPU time: the simulated
 * PMU and CLOCK_THREAD_CPUTIME_ID both measure this thread's on-CPU time
 * by the guest's clock, but the PMU splits it into user and kernel time
 * by sampling with a 100 us hrtimer, and gives all the time since its
 * last update to the mode of the next sample
 * (tests/kmod/simpmu): when the host deschedules the emulator (two shared
 * cores under TCG) the guest's clock jumps by milliseconds and one sample
 * takes them all.  Measured: up to 35% off over 20-45 ms of spinning on a
 * loaded host, up to 65% over a 50 ms window.  So counts must lie within
 * 0.3 to 1.6 times the CPU time over 40 ms or more: still telling apart
 * the other thread's count (3 times more or less), and none.
 */
#define TOL_LO 0.3
#define TOL_HI 1.6

/*
 * Binds this LWP (cpc_bind_event with flags) to tmpl, in which @C
 * stands for the cycles name and @I for the instructions name, with
 * the presets p0 and p1; the test fails if it cannot.
 */
void bind_v1(const char *tmpl, uint64_t p0, uint64_t p1, int flags);

/* Check fixture: records the error messages; releases the binding. */
void hwc_setup(void);
void hwc_teardown(void);

#endif
