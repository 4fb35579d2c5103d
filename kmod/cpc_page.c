// SPDX-License-Identifier: GPL-2.0-only
/*
 * The state page of a binding, and the scheduler hook that keeps its
 * time base current.
 *
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
 * kcpc_sched_overflow().
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/clocksource.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>
#include <asm/hypervisor.h>
#include <asm/tsc.h>

#include "cpc.h"
#include "cpc_compat.h"
#include "cpc_page.h"
#include "cpc_perf.h"
#include "cpc_stats.h"

static void kcpc_set_sched_in(struct kcpc_set *set);

/* ------------------------------------------------------------------ */
/* The scheduler hook                                                   */
/* ------------------------------------------------------------------ */

/*
 * The callbacks below use the fields perf gives a PMU driver (the event's
 * attr, hw.state, cpu and overflow handler), as every PMU does; perf's
 * private fields are read in cpc_perf.c alone.
 */
static bool kcpc_sched_registered;

/* Never called: the events have no sample period. */
static void kcpc_sched_overflow(struct perf_event *event,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
}

static int kcpc_sched_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (event->overflow_handler != kcpc_sched_overflow ||
	    event->attr.sample_period || event->attr.inherit ||
	    event->cpu != -1)
		return -EACCES;
	return 0;
}

static void kcpc_sched_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void kcpc_sched_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

static int kcpc_sched_add(struct perf_event *event, int flags)
{
	event->hw.state = (flags & PERF_EF_START) ? 0 : PERF_HES_STOPPED;
	kcpc_set_sched_in(kcpc_perf_handler_context(event));
	return 0;
}

static void kcpc_sched_del(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

/* The count stays 0. */
static void kcpc_sched_read(struct perf_event *event)
{
}

static struct pmu kcpc_sched_pmu = {
	.module = THIS_MODULE,
	.task_ctx_nr = perf_sw_context,
	.capabilities = PERF_PMU_CAP_NO_INTERRUPT | PERF_PMU_CAP_NO_EXCLUDE,
	.event_init = kcpc_sched_event_init,
	.add = kcpc_sched_add,
	.del = kcpc_sched_del,
	.start = kcpc_sched_start,
	.stop = kcpc_sched_stop,
	.read = kcpc_sched_read,
};

/* Registers the PMU; without it the state page never answers by itself. */
int kcpc_sched_register(void)
{
	int err = perf_pmu_register(&kcpc_sched_pmu, "cpc_sched", -1);

	if (err)
		pr_warn("cpc: no scheduler hook (perf_pmu_register: %d); samples use the ioctl\n",
			err);
	else
		kcpc_sched_registered = true;
	return err;
}

void kcpc_sched_unregister(void)
{
	if (kcpc_sched_registered)
		perf_pmu_unregister(&kcpc_sched_pmu);
	kcpc_sched_registered = false;
}

static bool kcpc_sched_available(void)
{
	return kcpc_sched_registered;
}

/*
 * An enabled event of the PMU for @task whose add() calls
 * kcpc_set_sched_in(@set), or an ERR_PTR.
 */
static struct perf_event *kcpc_sched_create(struct task_struct *task,
						   struct kcpc_set *set)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = kcpc_sched_pmu.type,
		.pinned = 1,
	};

	/* Goes at an exec with the binding's counters. */
	kcpc_attr_remove_on_exec(&attr);

	if (!kcpc_sched_registered)
		return ERR_PTR(-ENODEV);
	return perf_event_create_kernel_counter(&attr, -1, task,
						kcpc_sched_overflow, set);
}

/* ------------------------------------------------------------------ */
/* The state page                                                       */
/* ------------------------------------------------------------------ */

/*
 * The page's time base (CPC_KPAGE_TIME in uapi/cpc_kmod.h).
 *
 * A binding whose counting requests are all task-clock (perf's count of
 * the thread's on-CPU time) can be answered from the page: its counts and
 * its on-CPU time all advance with perf's context clock, local_clock(),
 * while the thread runs.  On x86, while the sched clock is stable (the
 * TSC has not been marked unstable), local_clock() is sched_clock() plus
 * a constant, and sched_clock() is the TSC converted with a mult/shift
 * that the kernel computes from tsc_khz exactly as kcpc_tsc_factors()
 * does (arch/x86/kernel/tsc.c, set_cyc2ns_scale()).  So the module
 * publishes the counts as of one local_clock() reading with the TSC read
 * right after it, and user space adds the converted TSC ticks since.
 * tests/kmod/clockprobe measured the agreement in the test guest.
 *
 * The counts as of that reading are computed from perf's fields as
 * kcpc_perf_read_self() does, for a counter that is active or inactive alike:
 * while the thread is off its processor the context clock stands still,
 * so task-clock's count (count - prev_count at its last stop, prev_count
 * being the context time then) and its enabled time do not depend on
 * whether perf has added it back yet when the hook runs.
 *
 * cpu-clock counts local_clock() itself from its own add() (prev_count is
 * the local_clock() reading of its start there): its count as of the
 * reading is count + reading - prev_count, exact only while it is active
 * on this processor: when the hook runs before perf has added cpu-clock
 * back, the page gets no time base (page_sched_early counts those) and
 * the thread's next ioctl publishes one.  And each time perf takes
 * cpu-clock off and adds it back, the time in between is lost to its
 * count, so the hook must run then too.  Before Linux 6.2 it does: perf
 * reschedules a task's software context whole (all its pinned events,
 * the hook after the counters created before it).  Since 6.2 each PMU
 * has its own part of the context, and 6.12 reschedules one PMU's events
 * alone when an event of that PMU is installed or enabled (a pinned
 * cpu-clock perf event opened on the thread, or a CPU-wide one): the
 * page then stays ahead of perf's cpu-clock by the gap until the next
 * scheduling in (up to 10 us in the test guest).  So cpu-clock is on the
 * page before 6.2 only (debugfs: page_cpu_clock); task-clock, which
 * counts the context's time, loses nothing there.
 */

/*
 * A binding whose counting requests are all clocks (task-clock, and
 * cpu-clock where kcpc_perf_page_cpu_clock()), none inherited.  From the requests, not from the counters'
 * attributes, which perf rewrites (see kcpc_is_timer()).
 */
static bool kcpc_set_time_only(const struct kcpc_set *set)
{
	unsigned int i, n = 0;

	if (!kcpc_perf_quick_time())
		return false;
	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i])
			continue;
		if (!kcpc_is_timer(set, i) || kcpc_perf_inherited(set->ev[i]) ||
		    ((set->cpu_clock & BIT(i)) && !kcpc_perf_page_cpu_clock()))
			return false;
		n++;
	}
	return n > 0;
}

/*
 * The TSC-to-ns factors of the kernel's sched_clock(), if it is the TSC's.
 * Under a hypervisor the kernel may have made a paravirtual clock its

 * sched clock (kvm-clock, Hyper-V's, Xen's, VMware's), and which one it
 * chose is not exported: only on bare metal (or a guest that does not
 * announce a hypervisor, such as qemu's TCG).
 */
static bool kcpc_tsc_factors(u32 *mult, u32 *shift)
{
	unsigned int khz = READ_ONCE(tsc_khz);

	if (!boot_cpu_has(X86_FEATURE_TSC) || !khz || check_tsc_unstable() ||
	    !hypervisor_is_type(X86_HYPER_NATIVE))
		return false;
	clocks_calc_mult_shift(mult, shift, khz, NSEC_PER_MSEC, 0);
	if (*shift == 32) {
		*shift = 31;
		*mult >>= 1;
	}
	return true;
}

/* Can the state page carry a time base now (debugfs: page_time)? */
bool kcpc_page_time_possible(void)
{
	u32 mult, shift;

	return kcpc_perf_quick_time() && kcpc_sched_available() &&
	       kcpc_tsc_factors(&mult, &shift);
}

/* Can a binding with cpu-clock be read from its page (page_cpu_clock)? */
bool kcpc_page_cpu_clock(void)
{
	return kcpc_perf_page_cpu_clock() && kcpc_page_time_possible();
}

/*
 * Fills the time base of @kp for @set, inside a write of the page (seq
 * odd), if the set's thread is the calling one, the set runs and the TSC
 * can stand for the clock.  Interrupts off, page_lock held.  Returns
 * whether it did; the caller clears time_flags otherwise.
 */
static bool kcpc_page_fill_time(struct cpc_kpage *kp, struct kcpc_set *set,
				bool sched_in)
{
	u64 vals[CPC_KMOD_MAX_REQS], t0, t1, clock, ontime = 0;
	unsigned int i, first = CPC_KMOD_MAX_REQS;
	u32 mult, shift, mask = 0;

	lockdep_assert_irqs_disabled();
	if (!set || !set->sched_ev || !READ_ONCE(set->page_time) ||
	    set->task != current ||
	    READ_ONCE(set->state) != KCPC_SET_RUNNING ||
	    !kcpc_tsc_factors(&mult, &shift))
		return false;
	t0 = rdtsc_ordered();
	clock = local_clock();
	t1 = rdtsc_ordered();
	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];
		u64 count, enabled;
		int err;

		if (!ev) {
			vals[i] = set->preset[i];
			continue;
		}
		/*
		 * A counter perf no longer runs (taken off at an exec, or
		 * in error) does not advance: no time base for the set.
		 * Nor for a cpu-clock that perf has not added back yet.
		 */
		err = kcpc_perf_clock_at(ev, clock, set->cpu_clock & BIT(i),
					 &count, &enabled);
		if (err) {
			if (err == -EAGAIN && sched_in)
				kcpc_stat_inc(KCPC_STAT_PAGE_SCHED_EARLY);
			return false;
		}
		vals[i] = set->preset[i] + count - set->base[i];
		mask |= BIT(i);
		if (first == CPC_KMOD_MAX_REQS) {
			first = i;
			ontime = enabled - set->time_base;
		}
	}
	for (i = 0; i < set->nreqs; i++)
		WRITE_ONCE(kp->vals[i], vals[i]);
	WRITE_ONCE(kp->ontime_ns, ontime);
	WRITE_ONCE(kp->time_mask, mask);
	WRITE_ONCE(kp->time_mult, mult);
	WRITE_ONCE(kp->time_shift, shift);
	WRITE_ONCE(kp->time_tsc, t1);
	WRITE_ONCE(kp->time_slack_ns, mul_u64_u32_shr(t1 - t0, mult, shift) + 1);
	WRITE_ONCE(kp->time_flags, CPC_KPAGE_TIME);
	if (sched_in) {
		kcpc_stat_inc(KCPC_STAT_PAGE_SCHED_INS);
		if (first < CPC_KMOD_MAX_REQS &&
		    kcpc_perf_state(set->ev[first]) != PERF_EVENT_STATE_ACTIVE)
			kcpc_stat_inc(KCPC_STAT_PAGE_SCHED_EARLY);
	}
	return true;
}

void kcpc_page_write(struct kcpc_ctx *ctx, unsigned int nreqs,
			   u32 flags, const u64 *vals, u64 ontime)
{
	struct cpc_kpage *kp;
	unsigned long irqflags;
	unsigned int i;
	u32 seq;

	if (!ctx->page)
		return;
	kp = page_address(ctx->page);
	raw_spin_lock_irqsave(&ctx->page_lock, irqflags);
	seq = kp->seq;
	WRITE_ONCE(kp->seq, seq + 1);
	smp_wmb();
	WRITE_ONCE(kp->nreqs, nreqs);
	WRITE_ONCE(kp->flags, flags);
	for (i = 0; i < CPC_KMOD_MAX_REQS; i++)
		WRITE_ONCE(kp->vals[i], i < nreqs ? vals[i] : 0);
	WRITE_ONCE(kp->ontime_ns, ontime);
	WRITE_ONCE(kp->updates, ++ctx->updates);
	/* The calling thread's running binding: current counts instead. */
	if (!nreqs || !kcpc_page_fill_time(kp, ctx->set, false))
		WRITE_ONCE(kp->time_flags, 0);
	smp_wmb();
	WRITE_ONCE(kp->seq, seq + 2);
	raw_spin_unlock_irqrestore(&ctx->page_lock, irqflags);
}

/*
 * Lets the hook publish the page's time base for @set (@on) or stops it
 * and withdraws a published one, before the set's presets, bases or
 * state change under it.  The file lock is held.
 */
void kcpc_page_time_switch(struct kcpc_ctx *ctx, struct kcpc_set *set,
				 bool on)
{
	struct cpc_kpage *kp;
	unsigned long irqflags;
	u32 seq;

	if (!ctx->page)
		return;
	kp = page_address(ctx->page);
	raw_spin_lock_irqsave(&ctx->page_lock, irqflags);
	WRITE_ONCE(set->page_time, on);
	if (set->sched_ev && (on || READ_ONCE(kp->time_flags))) {
		seq = kp->seq;
		WRITE_ONCE(kp->seq, seq + 1);
		smp_wmb();
		if (!kcpc_page_fill_time(kp, set, false))
			WRITE_ONCE(kp->time_flags, 0);
		smp_wmb();
		WRITE_ONCE(kp->seq, seq + 2);
	}
	raw_spin_unlock_irqrestore(&ctx->page_lock, irqflags);
}

/*
 * The hook: @set's thread is being scheduled in on this processor (or its
 * perf context rescheduled).  Interrupts off, perf's context lock held.
 */
static void kcpc_set_sched_in(struct kcpc_set *set)
{
	struct kcpc_ctx *ctx = READ_ONCE(set->ctx);
	struct cpc_kpage *kp;
	u32 seq;

	if (!ctx || !ctx->page || !READ_ONCE(set->page_time))
		return;
	kp = page_address(ctx->page);
	raw_spin_lock(&ctx->page_lock);
	if (ctx->set == set) {
		seq = kp->seq;
		WRITE_ONCE(kp->seq, seq + 1);
		smp_wmb();
		if (!kcpc_page_fill_time(kp, set, true))
			WRITE_ONCE(kp->time_flags, 0);
		smp_wmb();
		WRITE_ONCE(kp->seq, seq + 2);
	}
	raw_spin_unlock(&ctx->page_lock);
}

/*
 * Gives the calling thread's own binding the scheduler hook, once, if its
 * state page has been mapped and can carry a time base for it: at the
 * first such sample rather than at bind, so that a binding no one reads
 * from its page costs no hook.  The file lock is held; the caller writes
 * the page next.  Without the hook, samples use the ioctl.
 */
void kcpc_set_want_hook(struct kcpc_ctx *ctx, struct kcpc_set *set)
{
	struct perf_event *ev;
	unsigned long irqflags;

	if (set->hook_tried || !ctx->mapped || set->task != current)
		return;
	set->hook_tried = true;
	if (!kcpc_set_time_only(set) || !kcpc_page_time_possible())
		return;
	ev = kcpc_sched_create(set->task, set);
	if (IS_ERR(ev)) {
		pr_warn_once("cpc: no scheduler hook for a binding: %ld\n",
			     PTR_ERR(ev));
		return;
	}
	kcpc_stat_inc(KCPC_STAT_PAGE_HOOKS);
	/* Its first add() (just now) found no hook in the set: nothing. */
	raw_spin_lock_irqsave(&ctx->page_lock, irqflags);
	WRITE_ONCE(set->sched_ev, ev);
	raw_spin_unlock_irqrestore(&ctx->page_lock, irqflags);
}

