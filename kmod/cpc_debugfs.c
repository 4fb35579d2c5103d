// SPDX-License-Identifier: GPL-2.0-only
/*
 * /sys/kernel/debug/cpc/: what the module's fast paths did and can do on
 * this kernel, for the tests and the curious, and two switches for the
 * tests.  Module parameters hold policy alone (cpc_main.c).
 *
 * Statistics (read-only, counts since the module was loaded):
 *   self_reads        counters a thread's own samples read on its
 *                     processor without perf's locks
 *   self_time_reads   of those, reads that computed the on-CPU time too
 *   stopped_reads     stopped counters a thread's own samples read from
 *                     their final values
 *   logical_freezes   overflows that froze their binding logically
 *   page_sched_ins    time bases published when a bound thread was
 *                     scheduled in
 *   page_sched_early  schedulings in at which the hook ran before perf had
 *                     added the first counter back (cpu-clock: no time
 *                     base then)
 *   page_hooks        scheduler hooks created
 *   rebinds_in_place  binds served with the binding's own counters
 *   contexts_in_use   bindings plus group aggregates of all users (root)
 * What this kernel allows (1 or 0, read-only; 0 where a build-time probe
 * found perf's internals not as expected, and the module asks perf
 * instead):
 *   fast_read         a thread's own counters read without perf's locks
 *                     (quick_reads)
 *   fast_read_time    an own counter's on-CPU time read without perf's
 *                     locks
 *   fast_freeze       freezing at an overflow logically (logical_freeze)
 *   page_time         the state page of a binding of clocks carries a
 *                     time base (CPC_KPAGE_TIME)
 *   page_cpu_clock    cpu-clock too is read from the state page
 *   exec_stop         bindings and group aggregates stop at an exec
 *                     (perf's remove_on_exec, Linux 5.13); 0: they go on
 *                     counting the new program, as perf's own counters
 *                     do there
 * Switches (Y or N, root may write):
 *   quick_reads       N: every read goes through perf
 *   logical_freeze    N: a freeze at an overflow disables every counter
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/types.h>

#include "cpc_acct.h"
#include "cpc_compat.h"
#include "cpc_debugfs.h"
#include "cpc_page.h"
#include "cpc_perf.h"
#include "cpc_stats.h"

/* The read-only files past the statistics of cpc_stats.h. */
enum kcpc_dbg {
	KCPC_DBG_CONTEXTS = KCPC_NR_STATS,
	KCPC_DBG_FAST_READ,
	KCPC_DBG_FAST_READ_TIME,
	KCPC_DBG_FAST_FREEZE,
	KCPC_DBG_PAGE_TIME,
	KCPC_DBG_PAGE_CPU_CLOCK,
	KCPC_DBG_EXEC_STOP,
	KCPC_NR_DBG
};

static const char *const kcpc_dbg_names[KCPC_NR_DBG] = {
	[KCPC_STAT_SELF_READS] = "self_reads",
	[KCPC_STAT_SELF_TIME_READS] = "self_time_reads",
	[KCPC_STAT_STOPPED_READS] = "stopped_reads",
	[KCPC_STAT_LOGICAL_FREEZES] = "logical_freezes",
	[KCPC_STAT_PAGE_SCHED_INS] = "page_sched_ins",
	[KCPC_STAT_PAGE_SCHED_EARLY] = "page_sched_early",
	[KCPC_STAT_PAGE_HOOKS] = "page_hooks",
	[KCPC_STAT_REBINDS_IN_PLACE] = "rebinds_in_place",
	[KCPC_DBG_CONTEXTS] = "contexts_in_use",
	[KCPC_DBG_FAST_READ] = "fast_read",
	[KCPC_DBG_FAST_READ_TIME] = "fast_read_time",
	[KCPC_DBG_FAST_FREEZE] = "fast_freeze",
	[KCPC_DBG_PAGE_TIME] = "page_time",
	[KCPC_DBG_PAGE_CPU_CLOCK] = "page_cpu_clock",
	[KCPC_DBG_EXEC_STOP] = "exec_stop",
};

static struct dentry *kcpc_dbg_dir;

static int kcpc_dbg_get(void *data, u64 *val)
{
	unsigned long i = (unsigned long)data;

	switch (i) {
	case KCPC_DBG_CONTEXTS:
		*val = kcpc_contexts_in_use();
		break;
	case KCPC_DBG_FAST_READ:
		*val = kcpc_perf_quick_reads();
		break;
	case KCPC_DBG_FAST_READ_TIME:
		*val = kcpc_perf_quick_time();
		break;
	case KCPC_DBG_FAST_FREEZE:
		*val = kcpc_perf_logical_freeze();
		break;
	case KCPC_DBG_PAGE_TIME:
		*val = kcpc_page_time_possible();
		break;
	case KCPC_DBG_PAGE_CPU_CLOCK:
		*val = kcpc_page_cpu_clock();
		break;
	case KCPC_DBG_EXEC_STOP:
		*val = KCPC_EXEC_STOP;
		break;
	default:
		*val = kcpc_stat_sum(i);
		break;
	}
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(kcpc_dbg_fops, kcpc_dbg_get, NULL, "%llu\n");

/**
 * kcpc_debugfs_create() - create /sys/kernel/debug/cpc (at module load)
 *
 * Without debugfs the module works the same; only the files are missing.
 */
void kcpc_debugfs_create(void)
{
	unsigned long i;

	kcpc_dbg_dir = debugfs_create_dir("cpc", NULL);
	for (i = 0; i < KCPC_NR_DBG; i++)
		debugfs_create_file_unsafe(kcpc_dbg_names[i],
					   i == KCPC_DBG_CONTEXTS ? 0400 : 0444,
					   kcpc_dbg_dir, (void *)i,
					   &kcpc_dbg_fops);
	debugfs_create_bool("quick_reads", 0644, kcpc_dbg_dir,
			    &kcpc_quick_reads);
	debugfs_create_bool("logical_freeze", 0644, kcpc_dbg_dir,
			    &kcpc_logical_freeze);
}

/**
 * kcpc_debugfs_remove() - remove /sys/kernel/debug/cpc (at module unload)
 */
void kcpc_debugfs_remove(void)
{
	debugfs_remove_recursive(kcpc_dbg_dir);
	kcpc_dbg_dir = NULL;
}
