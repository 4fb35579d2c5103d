// SPDX-License-Identifier: GPL-2.0-only
/*
 * The module's scheduler hook for the state page.
 *
 * The state page can answer a thread's own sample without a system call
 * when every count it asks for advances with the thread's on-CPU time
 * (task-clock, cpu-clock): the module publishes, each time the thread is
 * scheduled in, the counts as of that moment with the TSC read at the
 * same time, and user space adds the converted TSC ticks since.  Modules
 * get no scheduler notifier of their own, but perf calls a PMU's add() when the
 * task context holding its event is scheduled in on a processor, with
 * interrupts off and the context's lock held.  So the module registers a
 * small PMU ("cpc_sched") whose events count nothing: one per binding
 * read from its page (created at its first such sample, cpc_ctx.c), in
 * the bound thread's software context (task_ctx_nr perf_sw_context, the
 * context of task-clock on every kernel), created by the module only.
 *
 * Lifetime: perf_event_release_kernel() takes the event out of its
 * context (on the thread's processor, under the context's lock) before
 * it returns, so no add() runs after the binding has released it; perf
 * holds a module reference per event (pmu->module).
 *
 * Events opened through perf_event_open() are refused: event_init sees
 * the overflow handler the creator passed, and only the module passes
 * cpc_sched_overflow().
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/printk.h>
#include <linux/version.h>

#include "cpc_sched.h"

static bool cpc_sched_registered;

/* Never called: the events have no sample period. */
static void cpc_sched_overflow(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
}

static int cpc_sched_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (event->overflow_handler != cpc_sched_overflow ||
	    event->attr.sample_period || event->attr.inherit ||
	    event->cpu != -1)
		return -EACCES;
	return 0;
}

static void cpc_sched_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void cpc_sched_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

static int cpc_sched_add(struct perf_event *event, int flags)
{
	event->hw.state = (flags & PERF_EF_START) ? 0 : PERF_HES_STOPPED;
	cpc_set_sched_in(event->overflow_handler_context);
	return 0;
}

static void cpc_sched_del(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

/* The count stays 0. */
static void cpc_sched_read(struct perf_event *event)
{
}

static struct pmu cpc_sched_pmu = {
	.module = THIS_MODULE,
	.task_ctx_nr = perf_sw_context,
	.capabilities = PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_EXCLUDE,
	.event_init = cpc_sched_event_init,
	.add = cpc_sched_add,
	.del = cpc_sched_del,
	.start = cpc_sched_start,
	.stop = cpc_sched_stop,
	.read = cpc_sched_read,
};

/* Registers the PMU; without it the state page never answers by itself. */
int cpc_sched_register(void)
{
	int err = perf_pmu_register(&cpc_sched_pmu, "cpc_sched", -1);

	if (err)
		pr_warn("cpc: no scheduler hook (perf_pmu_register: %d); samples use the ioctl\n",
			err);
	else
		cpc_sched_registered = true;
	return err;
}

void cpc_sched_unregister(void)
{
	if (cpc_sched_registered)
		perf_pmu_unregister(&cpc_sched_pmu);
	cpc_sched_registered = false;
}

bool cpc_sched_available(void)
{
	return cpc_sched_registered;
}

/*
 * An enabled event of the PMU for @task whose add() calls
 * cpc_set_sched_in(@set), or an ERR_PTR.
 */
struct perf_event *cpc_sched_create(struct task_struct *task,
				    struct cpc_set *set)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = cpc_sched_pmu.type,
		.pinned = 1,
	};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 13, 0)
	/* Goes at an exec with the binding's counters. */
	attr.remove_on_exec = 1;
#endif

	if (!cpc_sched_registered)
		return ERR_PTR(-ENODEV);
	return perf_event_create_kernel_counter(&attr, -1, task,
						cpc_sched_overflow, set);
}
