// SPDX-License-Identifier: GPL-2.0-only
/*
 * The overflow path of /dev/cpc's sets.
 *
 * Overflow.  The perf overflow handler runs in NMI, IRQ or (for software
 * events) process context with preemption disabled, in the counted thread.
 * It moves the set from RUNNING to PENDING, remembers the user PC and
 * queues the set's task work on the thread (from NMI context through an
 * irq work).  The task work runs in the thread before it returns to user
 * mode: it freezes the counters, moves the set to FROZEN, updates the
 * state page and sends SIGEMT (SIGSTKFLT) with si_code EMT_CPCOVF and the
 * PC.  Only the transition to PENDING queues a signal: one per freeze.
 *
 * Freezing.  Each request is a counter of its own (kernel counters have no
 * group leader), so stopping a set in perf takes one disable per counter,
 * and starting it again one enable per counter, each a function call on
 * the thread's processor and the enable a reschedule of its perf context.
 * A set whose only sampling counter is not a clock (->ovf) is frozen
 * logically instead: that counter carries perf's event limit, which
 * stops it at its overflow (as user space's PERF_EVENT_IOC_REFRESH does),
 * and the overflow handler, on the thread's processor, takes the other
 * counters' raw counts and the first one's enabled time with the PMU's
 * read() (as perf_event_read_local() does, NMI-safe).  Those counters go
 * on counting in perf; a sample of the frozen set reads the snapshot, and
 * RESTART or a rebind in place rebases them from their current counts
 * (RESTART also takes the frozen interval out of the on-CPU time), so
 * the only perf calls of a cycle are the limit counter's period and
 * refresh, as with perf.  When the snapshot cannot be taken (a counter
 * not active on this processor) or the parameter logical_freeze is N,
 * the task work disables every counter as before.
 *
 * Lifetime.  A queued task work holds a reference to the set and one to
 * the file.  The file reference keeps the file's state (and so the module)
 * alive until the work has run; the work drops it last with fput(), which
 * defers the final release past the end of the work's own code.  The
 * kernel offers modules no way to cancel a task work, so this is how a
 * thread that sleeps, exits or execs with the work pending is handled: the
 * work still runs (on return to user mode or in exit_task_work()) and finds
 * the set torn down or the thread exec'ed, and only drops its references.
 *
 * Teardown.  perf_event_release_kernel() does not wait for overflow handlers
 * already running on other CPUs (software events are found under RCU).  A
 * set being torn down is marked dead, then teardown waits until no
 * overflow path is inside the set (->busy, paired with ->dead like a
 * Dekker lock); later handlers see ->dead and leave.  The set's memory is
 * freed after an RCU grace period, which covers handlers still reading
 * ->busy and ->dead.  The module text is covered by the grace period that
 * module unloading waits for.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/file.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/task_work.h>

#include "cpc.h"
#include "cpc_compat.h"
#include "cpc_ovf.h"
#include "cpc_perf.h"
#include "cpc_stats.h"

/* Enter and leave the part of an overflow path that touches the set. */
static bool kcpc_set_busy_enter(struct kcpc_set *set)
{
	atomic_inc(&set->busy);
	smp_mb__after_atomic();
	return !READ_ONCE(set->dead);
}

static void kcpc_set_busy_exit(struct kcpc_set *set)
{
	smp_mb__before_atomic();
	atomic_dec(&set->busy);
}

/*
 * Queues the set's task work on its thread.  Called inside a busy section
 * of a set that is not dead, in IRQ or process context (never NMI), so
 * the set's installed reference cannot go away meanwhile.
 */
static void kcpc_set_queue_work(struct kcpc_set *set)
{
	if (test_and_set_bit(KCPC_SET_WORK_QUEUED, &set->work_flags))
		return;		/* the queued work will find it PENDING */
	if (!kcpc_file_tryget(set->file)) {
		/* The file is being released; so is the set. */
		clear_bit(KCPC_SET_WORK_QUEUED, &set->work_flags);
		return;
	}
	refcount_inc(&set->ref);
	if (task_work_add(set->task, &set->work, TWA_RESUME)) {
		/* The thread has exited; its counters stopped with it. */
		clear_bit(KCPC_SET_WORK_QUEUED, &set->work_flags);
		refcount_dec(&set->ref);
		fput(set->file);
	}
}

/* The irq work of an overflow in NMI context. */
void kcpc_set_kick(struct irq_work *kick)
{
	struct kcpc_set *set = container_of(kick, struct kcpc_set, kick);

	if (kcpc_set_busy_enter(set) &&
	    READ_ONCE(set->state) == KCPC_SET_PENDING)
		kcpc_set_queue_work(set);
	kcpc_set_busy_exit(set);
}

/*
 * In the overflow handler of @set's limit counter @event, on the thread's
 * processor: takes the other counters' raw counts and the first one's
 * enabled time (a logical freeze).  False, with nothing usable, if a
 * counter is neither active here nor stopped: then the task work
 * disables them all.
 */
static bool kcpc_set_snapshot(struct kcpc_set *set, struct perf_event *event)
{
	bool first = true;
	unsigned int i;

	if (!kcpc_perf_logical_freeze() || !READ_ONCE(kcpc_logical_freeze))
		return false;
	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];

		if (!ev)
			continue;
		if (ev == event) {
			first = false;	/* perf stops it: its time stops */
			continue;
		}
		if (!kcpc_perf_snapshot(ev, &set->frz_raw[i],
					first ? &set->frz_enabled : NULL))
			return false;
		first = false;
	}
	kcpc_stat_inc(KCPC_STAT_LOGICAL_FREEZES);
	return true;
}

/**
 * kcpc_overflow() - the perf overflow handler of a set's sampling counters
 * @event: the counter
 * @data: perf's sample data (unused)
 * @regs: the registers at the overflow, or NULL
 */
void kcpc_overflow(struct perf_event *event, struct perf_sample_data *data,
		   struct pt_regs *regs)
{
	struct kcpc_set *set = kcpc_perf_handler_context(event);
	struct task_struct *task = current;
	unsigned long pc;

	if (!kcpc_set_busy_enter(set))
		goto out;
	if (task != set->task || (task->flags & PF_EXITING) ||
	    task->self_exec_id != set->exec_id)
		goto out;
	if (cmpxchg(&set->state, KCPC_SET_RUNNING, KCPC_SET_PENDING) !=
	    KCPC_SET_RUNNING)
		goto out;	/* already frozen: ignore */

	if (regs && user_mode(regs))
		pc = instruction_pointer(regs);
	else
		pc = instruction_pointer(task_pt_regs(task));
	WRITE_ONCE(set->pc, pc);
	/* Only the limit counter has a handler in a set that has one. */
	WRITE_ONCE(set->frz_logical,
		   set->ovf >= 0 && kcpc_set_snapshot(set, event));

	/*
	 * From NMI context neither the task work list nor the return path
	 * may be touched safely: an irq work (a self-interrupt as soon as
	 * interrupts are enabled) queues the task work instead.
	 */
	if (in_nmi())
		irq_work_queue(&set->kick);
	else
		kcpc_set_queue_work(set);
out:
	kcpc_set_busy_exit(set);
}
