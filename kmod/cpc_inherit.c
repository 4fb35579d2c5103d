// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bound on what group aggregates copy into new threads.
 *
 * A group aggregate's counters are perf's inherited counters: perf copies
 * each of them into every thread that the counted thread (or one of its
 * descendants) creates afterwards, where the module never sees them and
 * cannot charge them.  Left alone, a member of the device's group could
 * make every new thread carry max_sets_per_thread aggregates of 16
 * counters, and more with each level of threads that open aggregates of
 * their own (a kilobyte or so of unreclaimable kernel memory per
 * counter, not charged to any memory cgroup).
 *
 * So the counters of aggregates that apply to a thread - its own, of
 * every file, and those it inherits from the threads it descends from -
 * are bounded together by max_inherited (module parameter): a
 * GROUP_OPEN that would pass it fails with EAGAIN.  Every thread created
 * from then on carries at most that many of the module's counters, and
 * the aggregates themselves are charged as sets and counters to their
 * opener's limits (cpc_acct.c).  What a thread inherits is read from
 * perf's list of each aggregate counter's children (cpc_perf.c); where
 * a kernel does not show it, every aggregate of a thread it descends
 * from (its process's, its ancestors') is taken to apply.
 */
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "cpc.h"
#include "cpc_inherit.h"
#include "cpc_perf.h"

static LIST_HEAD(kcpc_groups);
static DEFINE_MUTEX(kcpc_groups_lock);

/*
 * Does @task descend from @from (the same process, or a process created
 * by it or its descendants)?  Where perf's children cannot be seen, the
 * threads an aggregate may have been copied into.
 */
static bool kcpc_task_descends(struct task_struct *task,
			       struct task_struct *from)
{
	struct task_struct *t;
	bool ret = false;

	if (same_thread_group(task, from))
		return true;
	rcu_read_lock();
	for (t = task; t->pid > 1; t = rcu_dereference(t->real_parent)) {
		if (same_thread_group(t, from)) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/* Does @task count through @set (its own aggregate, or one inherited)? */
static bool kcpc_inherit_applies(const struct kcpc_set *set,
				 struct task_struct *task)
{
	unsigned int i;
	int child;

	if (set->task == task)
		return true;
	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i])
			continue;
		child = kcpc_perf_child_in(set->ev[i], task);
		return child < 0 ? kcpc_task_descends(task, set->task) : child;
	}
	return false;
}

/**
 * kcpc_inherit_check() - may @task get an aggregate of @nev more counters?
 * @task: the thread
 * @nev: the new aggregate's counters
 * @old: the aggregate it replaces (the same file's), or NULL
 *
 * Return: 0, or -EAGAIN past max_inherited.
 */
int kcpc_inherit_check(struct task_struct *task, unsigned int nev,
		       const struct kcpc_set *old)
{
	unsigned int total = nev;
	struct kcpc_set *set;

	mutex_lock(&kcpc_groups_lock);
	list_for_each_entry(set, &kcpc_groups, group_node) {
		if (set != old && kcpc_inherit_applies(set, task))
			total += set->acct.nev;
	}
	mutex_unlock(&kcpc_groups_lock);
	return total > READ_ONCE(kcpc_max_inherited) ? -EAGAIN : 0;
}

/**
 * kcpc_inherit_add() - count a new group aggregate among all of them
 * @set: the aggregate, charged (acct.nev set)
 */
void kcpc_inherit_add(struct kcpc_set *set)
{
	mutex_lock(&kcpc_groups_lock);
	list_add(&set->group_node, &kcpc_groups);
	mutex_unlock(&kcpc_groups_lock);
}

/**
 * kcpc_inherit_del() - forget a group aggregate before its teardown
 * @set: the aggregate
 */
void kcpc_inherit_del(struct kcpc_set *set)
{
	mutex_lock(&kcpc_groups_lock);
	list_del_init(&set->group_node);
	mutex_unlock(&kcpc_groups_lock);
}
