// SPDX-License-Identifier: GPL-2.0-only
/*
 * The module's statistics: per-processor counters, so that threads on
 * different processors share no cache line, summed when read.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>

#include "cpc_stats.h"

DEFINE_PER_CPU(struct kcpc_stats, kcpc_stats);

bool kcpc_quick_reads = true;
bool kcpc_logical_freeze = true;

/**
 * kcpc_stat_sum() - a statistic, summed over the processors
 * @stat: which
 *
 * Return: its count since the module was loaded.
 */
u64 kcpc_stat_sum(enum kcpc_stat stat)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(&kcpc_stats, cpu)->n[stat]);
	return sum;
}
