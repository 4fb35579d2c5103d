/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's internals, for the module's fast paths (see cpc_perf.c).
 */
#ifndef KCPC_PERF_H
#define KCPC_PERF_H

#include <linux/perf_event.h>
#include <linux/types.h>

/* What this kernel's perf lets the fast paths do (built in). */
bool kcpc_perf_quick_reads(void);
bool kcpc_perf_quick_time(void);
bool kcpc_perf_logical_freeze(void);
bool kcpc_perf_page_cpu_clock(void);

/* The counter's fields the module looks at. */
enum perf_event_state kcpc_perf_state(const struct perf_event *ev);
bool kcpc_perf_is_hw(const struct perf_event *ev);
bool kcpc_perf_inherited(const struct perf_event *ev);
bool kcpc_perf_counts(const struct perf_event *ev, u64 config,
		      bool exclude_user, bool exclude_kernel);
void *kcpc_perf_handler_context(const struct perf_event *ev);

/* How kcpc_perf_read_self() read a counter. */
enum kcpc_perf_read {
	KCPC_PERF_READ_NONE,	/* not at all: ask perf */
	KCPC_PERF_READ_ACTIVE,	/* active on this processor: the PMU's read() */
	KCPC_PERF_READ_STOPPED,	/* stopped: its final fields */
};

enum kcpc_perf_read kcpc_perf_read_self(struct perf_event *ev, u64 *count,
					u64 *enabled);
bool kcpc_perf_snapshot(struct perf_event *ev, u64 *count, u64 *enabled);
int kcpc_perf_clock_at(struct perf_event *ev, u64 clock, bool cpu_clock,
		       u64 *count, u64 *enabled);

void kcpc_perf_limit_arm(struct perf_event *ev);
void kcpc_perf_limit_sync(struct perf_event *ev);
void kcpc_perf_period(struct perf_event *ev, u64 period);

#endif /* KCPC_PERF_H */
