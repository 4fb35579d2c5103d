/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The module's statistics and test switches, shown in debugfs
 * (cpc_debugfs.c): how often each fast path served, so that the tests can
 * tell that it did.
 */
#ifndef KCPC_STATS_H
#define KCPC_STATS_H

#include <linux/percpu.h>
#include <linux/types.h>

/* Statistics counted per processor (see cpc_debugfs.c for their names). */
enum kcpc_stat {
	KCPC_STAT_SELF_READS,		/* own counters read without perf's locks */
	KCPC_STAT_SELF_TIME_READS,	/* of those, with the on-CPU time */
	KCPC_STAT_STOPPED_READS,	/* stopped counters read from their fields */
	KCPC_STAT_LOGICAL_FREEZES,	/* overflows that froze logically */
	KCPC_STAT_PAGE_SCHED_INS,	/* time bases published at a scheduling in */
	KCPC_STAT_PAGE_SCHED_EARLY,	/* the hook ran before perf's add() */
	KCPC_STAT_PAGE_HOOKS,		/* scheduler hooks created */
	KCPC_STAT_REBINDS_IN_PLACE,	/* binds served with the set's counters */
	KCPC_NR_STATS
};

struct kcpc_stats {
	u64 n[KCPC_NR_STATS];
};

DECLARE_PER_CPU(struct kcpc_stats, kcpc_stats);

/* Counts one event of @stat; any context, NMI included. */
static inline void kcpc_stat_inc(enum kcpc_stat stat)
{
	this_cpu_inc(kcpc_stats.n[stat]);
}

u64 kcpc_stat_sum(enum kcpc_stat stat);

/*
 * Test switches (debugfs): N makes every read go through perf
 * (quick_reads), or every freeze disable all the counters
 * (logical_freeze).
 */
extern bool kcpc_quick_reads;
extern bool kcpc_logical_freeze;

#endif /* KCPC_STATS_H */
