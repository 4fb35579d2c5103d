/* SPDX-License-Identifier: MIT */
/*
 * A fake counting backend for the unit tests of the library's core: it
 * stands in for libcpc/backend/backend.c and the real backends, counts
 * what the core asks of it, and counts "events" the test sets by hand.
 * No kernel support is needed.
 */
#ifndef TESTS_UNIT_FAKE_BACKEND_H
#define TESTS_UNIT_FAKE_BACKEND_H

#include <signal.h>
#include <stdint.h>

#include "backend.h"

/* The descriptor the fake's overflow notifications carry in si_fd. */
#define FAKE_OVF_FD 4242

struct fake_log {
	int binds, releases, rearms, freezes, probes;
	int group_opens, group_closes;
	int task_opens, cpu_opens;
	unsigned last_bflags;
	struct cpc_reqset last_set;	/* of the last bind, rearm or open */
	int last_target;		/* tid or cpu of the last open */
};

/* What the fake does and has done; reset by fake_reset(). */
extern struct fake_log fake;
/* The events counted so far, per request index (set by the tests). */
extern uint64_t fake_events[CPC_MAX_REQS];
extern uint64_t fake_ontime_ns;
/* Failures to inject: -errno (0: succeed). */
extern int fake_bind_error, fake_bind_bad, fake_rearm_error;
/* Set by a test: the kmod-like backend froze the binding itself. */
extern int fake_kernel_frozen;
/* Called in the middle of every bind and rearm (as a signal would). */
extern void (*fake_during_bind)(void);

/* A backend like perf (the library sends SIGEMT itself, no frozen op)... */
extern const struct cpc_backend fake_perf_like;
/* ...and one like the module (the kernel sends SIGEMT, frozen op). */
extern const struct cpc_backend fake_kmod_like;
/* The backend __cpc_backend_for gives (NULL: none available). */
extern const struct cpc_backend *fake_chosen;

void fake_reset(void);

/* A kernel overflow notification of the fake's counters (or of fd). */
siginfo_t fake_notification(int fd);

#endif
