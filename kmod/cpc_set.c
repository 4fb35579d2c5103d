// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sets of /dev/cpc: a thread's binding or group aggregate, one perf
 * kernel counter per request that counts.  Creating, starting, stopping,
 * reading and tearing down a set, and the task work that freezes it after
 * an overflow (cpc_ovf.c) and sends the signal.  The file lock of the
 * set's file serialises all of it; the overflow path is cpc_ovf.c's.
 */
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/irqflags.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "cpc.h"
#include "cpc_compat.h"
#include "cpc_ovf.h"
#include "cpc_page.h"
#include "cpc_perf.h"
#include "cpc_set.h"
#include "cpc_stats.h"

static void kcpc_set_free(struct kcpc_set *set)
{
	irq_work_sync(&set->kick);
	put_task_struct(set->task);
	kfree_rcu(set, rcu);
}

static void kcpc_set_put(struct kcpc_set *set)
{
	if (refcount_dec_and_test(&set->ref))
		kcpc_set_free(set);
}

/* The perf event type of a request kind (also for processor contexts). */
u32 kcpc_perf_type(u32 kind)
{
	switch (kind) {
	case CPC_KEV_RAW_X86:
		return PERF_TYPE_RAW;
	case CPC_KEV_SOFTWARE:
		return PERF_TYPE_SOFTWARE;
	case CPC_KEV_HARDWARE:
		return PERF_TYPE_HARDWARE;
	default:
		return PERF_TYPE_HW_CACHE;
	}
}

static void kcpc_set_release_counters(struct kcpc_set *set)
{
	unsigned int i;

	/* First the hook: no add() runs once this returns. */
	if (set->sched_ev) {
		perf_event_release_kernel(set->sched_ev);
		set->sched_ev = NULL;
	}
	for (i = 0; i < set->nreqs; i++) {
		if (set->ev[i]) {
			perf_event_release_kernel(set->ev[i]);
			set->ev[i] = NULL;
		}
	}
}

static void kcpc_set_work(struct callback_head *work);

/*
 * The sample period of a binding's request: the count passes 2^64 - 1
 * after 2^64 - preset events.  0 (no overflow) without CPC_KREQ_OVF_EMT,
 * and for periods of 2^63 and more (perf's limit) or 2^64 (preset 0),
 * which never end in practice.
 */
u64 kcpc_req_period(const struct cpc_kreq *r)
{
	u64 period = -r->preset;

	if (!(r->flags & CPC_KREQ_OVF_EMT) || period >= BIT_ULL(63))
		return 0;
	return period;
}

/*
 * The request whose counter carries perf's event limit (see "Freezing"):
 * the only one that samples, if it is not a clock (clocks overflow from
 * an hrtimer and keep their old path); else -1.
 */
static int kcpc_set_limit_req(const struct kcpc_set *set)
{
	unsigned int i;
	int req = -1;

	if (!kcpc_perf_logical_freeze())
		return -1;
	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i] || !set->period[i])
			continue;
		if (req >= 0 || kcpc_is_timer(set, i))
			return -1;
		req = i;
	}
	return req;
}

/*
 * Creates a set of disabled counters for @task, or returns an ERR_PTR:
 * the perf API's error (ENOENT: no such event on this machine, ESRCH: the
 * thread is exiting, ...) or -ENOMEM.
 */
struct kcpc_set *kcpc_set_create(struct kcpc_file *cf, struct task_struct *task,
				 const struct cpc_kbind *kb, bool group)
{
	struct perf_event_attr attr;
	struct kcpc_set *set;
	unsigned int i;
	int err;

	set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set)
		return ERR_PTR(-ENOMEM);
	refcount_set(&set->ref, 1);
	INIT_LIST_HEAD(&set->group_node);
	set->file = cf->file;
	get_task_struct(task);
	set->task = task;
	set->exec_id = READ_ONCE(task->self_exec_id);
	set->state = KCPC_SET_RUNNING;
	init_task_work(&set->work, kcpc_set_work);
	init_irq_work(&set->kick, kcpc_set_kick);
	set->nreqs = kb->nreqs;
	set->ovf = -1;
	set->hw_off = true;

	for (i = 0; i < kb->nreqs; i++) {
		const struct cpc_kreq *r = &kb->req[i];
		struct perf_event *ev;
		u64 period = 0;

		set->preset[i] = r->preset;
		set->kind[i] = r->kind;
		if (r->kind == CPC_KEV_SOFTWARE &&
		    r->config == PERF_COUNT_SW_TASK_CLOCK)
			set->task_clock |= BIT(i);
		if (r->kind == CPC_KEV_SOFTWARE &&
		    r->config == PERF_COUNT_SW_CPU_CLOCK)
			set->cpu_clock |= BIT(i);
		/* Neither user nor system mode: the request counts nothing. */
		if (!(r->flags & (CPC_KREQ_USER | CPC_KREQ_SYSTEM)))
			continue;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = kcpc_perf_type(r->kind);
		attr.config = r->config;
		attr.pinned = 1;
		attr.disabled = 1;
		attr.exclude_hv = 1;
		attr.exclude_user = !(r->flags & CPC_KREQ_USER);
		attr.exclude_kernel = !(r->flags & CPC_KREQ_SYSTEM);
		/* Bindings and group aggregates alike stop at an exec. */
		kcpc_attr_remove_on_exec(&attr);
		if (group) {
			attr.inherit = 1;
			kcpc_attr_inherit_thread(&attr);
		} else {
			period = kcpc_req_period(r);
		}
		attr.sample_period = period;
		set->period[i] = period;

		ev = perf_event_create_kernel_counter(&attr, -1, task,
						      period ? kcpc_overflow :
						      NULL,
						      period ? set : NULL);
		if (IS_ERR(ev)) {
			err = PTR_ERR(ev);
			goto fail;
		}
		set->ev[i] = ev;
	}
	if (!group)
		set->ovf = kcpc_set_limit_req(set);
	return set;

fail:
	kcpc_set_release_counters(set);
	put_task_struct(set->task);
	kfree(set);
	return ERR_PTR(err);
}

void kcpc_set_enable(struct kcpc_set *set)
{
	unsigned int i;

	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i])
			continue;
		if ((int)i == set->ovf)
			kcpc_perf_limit_arm(set->ev[i]);
		else
			perf_event_enable(set->ev[i]);
	}
	set->hw_off = false;
}

void kcpc_set_disable(struct kcpc_set *set)
{
	unsigned int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->ev[i])
			perf_event_disable(set->ev[i]);
	set->hw_off = true;
}

/*
 * Reads a counter of the calling thread (@self) without
 * perf_event_read_value(), which takes the context mutex and the child
 * mutex and calls a function on the counter's processor, where that gives
 * the same count and time (see kcpc_perf_read_self()).  Whatever changes
 * the state of the thread's counters runs in the thread itself (exit,
 * exec, this module's disable and enable under the file lock that the
 * caller holds) or in an interrupt on the thread's processor (perf's
 * cross-processor calls, context switches), and interrupts are off here.
 * Counters that are inherited (group aggregates) never: their children
 * count too.  @enabled, if not NULL, receives the enabled time.  Returns
 * false, reading nothing, when perf must be asked.
 */
static bool kcpc_read_quick(struct perf_event *ev, bool self, u64 *count,
			    u64 *enabled)
{
	if (!self)
		return false;
	switch (kcpc_perf_read_self(ev, count, enabled)) {
	case KCPC_PERF_READ_STOPPED:
		kcpc_stat_inc(KCPC_STAT_STOPPED_READS);
		return true;
	case KCPC_PERF_READ_ACTIVE:
		if (enabled)
			kcpc_stat_inc(KCPC_STAT_SELF_TIME_READS);
		kcpc_stat_inc(KCPC_STAT_SELF_READS);
		return true;
	default:
		return false;
	}
}

/*
 * Reads the counts (preset + events since bind or restart) and the
 * enabled time of the first counter that counts (for a group: summed
 * over its threads).  Returns -EIO if a pinned counter could not be
 * scheduled (more hardware events than the PMU has counters).
 *
 * Counters are read with kcpc_read_quick() where it can (the first one
 * with its time), all at once with interrupts off, then the others
 * through perf_event_read_value().  kcpc_set_read_raw() gives the raw
 * counts and the first counter's enabled time, with @frozen those a
 * logical freeze took for the counters that still run.
 */
int kcpc_set_read_raw(struct kcpc_set *set, bool frozen, u64 *raw,
			    u64 *enabled)
{
	bool self = set->task == current;
	unsigned long done = 0, flags;
	unsigned int i, first = CPC_KMOD_MAX_REQS;
	u64 en, running;
	int err = 0;

	*enabled = 0;
	for (i = 0; i < set->nreqs && first == CPC_KMOD_MAX_REQS; i++)
		if (set->ev[i])
			first = i;
	if (frozen) {
		/* A logical freeze: the counters but ->ovf's still run. */
		for (i = 0; i < set->nreqs; i++) {
			if (!set->ev[i] || (int)i == set->ovf)
				continue;
			raw[i] = set->frz_raw[i];
			__set_bit(i, &done);
		}
		if ((int)first != set->ovf)
			*enabled = set->frz_enabled;
	}
	if (READ_ONCE(kcpc_quick_reads)) {
		local_irq_save(flags);
		for (i = 0; i < set->nreqs; i++)
			if (set->ev[i] && !test_bit(i, &done) &&
			    kcpc_read_quick(set->ev[i], self, &raw[i],
					    i == first ? enabled : NULL))
				__set_bit(i, &done);
		local_irq_restore(flags);
	}
	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];

		if (!ev)
			continue;
		if (!test_bit(i, &done)) {
			en = 0;
			raw[i] = perf_event_read_value(ev, &en, &running);
			if (i == first)
				*enabled = en;
		}
		if (kcpc_perf_state(ev) == PERF_EVENT_STATE_ERROR)
			err = -EIO;
	}
	return err;
}

/* Is @set frozen with its counters but ->ovf's running (see above)? */
bool kcpc_set_frozen_logically(const struct kcpc_set *set)
{
	return set->frz_logical && READ_ONCE(set->state) == KCPC_SET_FROZEN;
}

int kcpc_set_read(struct kcpc_set *set, u64 *vals, u64 *ontime)
{
	u64 raw[CPC_KMOD_MAX_REQS], enabled;
	bool counts = false;
	unsigned int i;
	int err;

	err = kcpc_set_read_raw(set, kcpc_set_frozen_logically(set), raw,
				&enabled);
	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i]) {
			vals[i] = set->preset[i];
			continue;
		}
		vals[i] = set->preset[i] + raw[i] - set->base[i];
		counts = true;
	}
	/* The first counter's enabled time; 0 if no request counts. */
	*ontime = counts ? enabled - set->time_base : 0;
	return err;
}

/*
 * Marks the set dead and waits for overflow paths inside it to leave,
 * releases its counters and drops the installed reference.  Called with
 * the file lock held.
 */
void kcpc_set_teardown(struct kcpc_set *set)
{
	WRITE_ONCE(set->dead, true);
	smp_mb();
	while (atomic_read(&set->busy))
		cpu_relax();
	kcpc_set_release_counters(set);
	set->ctx = NULL;
	kcpc_set_put(set);
}

u32 kcpc_set_flags(struct kcpc_set *set)
{
	return READ_ONCE(set->state) == KCPC_SET_RUNNING ?
		0 : CPC_KSAMPLE_FROZEN;
}

/* Reads the binding and writes the state page; the file lock is held. */
int kcpc_ctx_update_page(struct kcpc_ctx *ctx, u64 *vals, u64 *ontime)
{
	struct kcpc_set *set = ctx->set;
	int err;

	err = kcpc_set_read(set, vals, ontime);
	kcpc_page_write(ctx, set->nreqs, kcpc_set_flags(set), vals, *ontime);
	return err;
}

static void kcpc_send_overflow(struct kcpc_set *set)
{
	struct kernel_siginfo info;

	clear_siginfo(&info);
	info.si_signo = CPC_KMOD_SIGEMT;
	info.si_errno = 0;
	info.si_code = CPC_KMOD_EMT_CPCOVF;
	info.si_addr = (void __user *)READ_ONCE(set->pc);
	send_sig_info(CPC_KMOD_SIGEMT, &info, current);
}

/* Runs in the counted thread before it returns to user mode (or exits). */
static void kcpc_set_work(struct callback_head *work)
{
	struct kcpc_set *set = container_of(work, struct kcpc_set, work);
	struct file *file = set->file;
	struct kcpc_file *cf = file->private_data;
	u64 vals[CPC_KMOD_MAX_REQS], ontime;

	clear_bit(KCPC_SET_WORK_QUEUED, &set->work_flags);
	smp_mb__after_atomic();

	mutex_lock(&cf->lock);
	if (!set->dead && READ_ONCE(set->state) == KCPC_SET_PENDING) {
		/*
		 * A logical freeze has nothing to stop (cpc_ovf.c); its limit
		 * counter's disable has run once this returns, so that the
		 * page and every sample show its final count.
		 */
		if (!set->frz_logical)
			kcpc_set_disable(set);
		else
			kcpc_perf_limit_sync(set->ev[set->ovf]);
		WRITE_ONCE(set->state, KCPC_SET_FROZEN);
		if (set->ctx && set->ctx->set == set)
			kcpc_ctx_update_page(set->ctx, vals, &ontime);
		/* After an exec the new program never asked for SIGEMT. */
		if (current->self_exec_id == set->exec_id)
			kcpc_send_overflow(set);
	}
	mutex_unlock(&cf->lock);

	kcpc_set_put(set);
	/* Last: may let the file (and with it the module) go. */
	fput(file);
}

/*
 * After enabling the set of the current thread: are its pinned hardware
 * counters on the PMU?  Each request is its own event, so the kernel
 * validates no group and a counter the PMU cannot give is left in error
 * state.  Some in error while others count: more requests than the PMU
 * has counters (-ENOSPC); all in error: the counters are taken, e.g. by
 * a CPU-wide pinned event (-EAGAIN, as while a CPU is bound on Solaris).
 */
int kcpc_set_check_scheduled(struct kcpc_set *set)
{
	unsigned int i, hw = 0, lost = 0;

	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];

		if (!ev || !kcpc_perf_is_hw(ev))
			continue;
		hw++;
		if (kcpc_perf_state(ev) == PERF_EVENT_STATE_ERROR)
			lost++;
	}
	if (!lost)
		return 0;
	return lost < hw ? -ENOSPC : -EAGAIN;
}

/*
 * Does @set count what @kb asks, so that only the presets change?  The
 * same events in the same modes, overflow notification on the same
 * requests (their counters carry the overflow handler), not started
 * frozen, no exec since and no counter in error state.  Not for clock
 * counters that notify overflow: rebound in place, they lost overflows
 * in the timer storms of tests/hardening/test_stress.c, so they get new
 * counters as before.
 */
bool kcpc_set_same_events(const struct kcpc_set *set,
			  const struct cpc_kbind *kb)
{
	unsigned int i;

	if (kb->nreqs != set->nreqs || (kb->flags & CPC_KBIND_START_FROZEN))
		return false;
	/* After an exec its counters are gone (remove_on_exec). */
	if (READ_ONCE(set->task->self_exec_id) != set->exec_id)
		return false;
	for (i = 0; i < kb->nreqs; i++) {
		const struct cpc_kreq *r = &kb->req[i];
		const struct perf_event *ev = set->ev[i];
		bool counts = r->flags & (CPC_KREQ_USER | CPC_KREQ_SYSTEM);

		if (!ev || !counts) {
			if (ev || counts)
				return false;
			continue;
		}
		if (kcpc_perf_state(ev) == PERF_EVENT_STATE_ERROR ||
		    set->kind[i] != r->kind ||
		    !kcpc_perf_counts(ev, r->config,
				      !(r->flags & CPC_KREQ_USER),
				      !(r->flags & CPC_KREQ_SYSTEM)) ||
		    !set->period[i] != !kcpc_req_period(r) ||
		    (set->period[i] && kcpc_is_timer(set, i)))
			return false;
	}
	return true;
}

/*
 * Before a set's bases change (RESTART, a rebind in place): stops what
 * must not count meanwhile.  A set with a limit counter that is not
 * stopped as a whole keeps its other counters running, to be rebased in
 * place: only the limit counter stops, and the disable its limit queued
 * at an overflow has run when this returns (it would stop the counter
 * again after the restart otherwise).  Returns whether the other
 * counters run.
 */
bool kcpc_set_halt(struct kcpc_set *set)
{
	bool others_run = set->ovf >= 0 && !set->hw_off &&
			  READ_ONCE(kcpc_logical_freeze);

	if (others_run)
		perf_event_disable(set->ev[set->ovf]);
	else
		kcpc_set_disable(set);
	if (set->ovf >= 0)
		kcpc_perf_limit_sync(set->ev[set->ovf]);
	return others_run;
}

