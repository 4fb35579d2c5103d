/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the stress programs (test_stress, test_stress_overflow):
 * sizes scaled down under valgrind, the clock, the perf_event
 * descriptors this process holds, events, the SIGEMT handler.
 */
#ifndef TESTS_HARDENING_STRESS_UTIL_H
#define TESTS_HARDENING_STRESS_UTIL_H

#include <signal.h>
#include <stdint.h>

#include <libcpc.h>

/* n divided by LIBCPC_STRESS_DIVISOR (at least 1). */
int scaled(int n);
/* CLOCK_MONOTONIC, in nanoseconds. */
uint64_t now_ns(void);
/* Number of perf_event file descriptors this process holds, or -1. */
int count_perf_fds(void);
/* The event of spec (cpc_strtoevent), or the test fails. */
cpc_event_t make_event(const char *spec);
/* Installs fn as the SIGEMT handler (SA_SIGINFO | SA_RESTART). */
void install_emt(void (*fn)(int, siginfo_t *, void *));
/* Check fixture: records the library's error messages. */
void stress_setup(void);

#endif
