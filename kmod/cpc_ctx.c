// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-thread counter contexts of /dev/cpc.
 *
 * Each open file keeps, per thread it counts, a struct cpc_ctx holding the
 * thread's binding (a struct cpc_set of perf kernel counters, one per
 * request) and its group aggregate (another set, of inherited counters).
 * Everything is serialised by the file's mutex, except the overflow path.
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
#include <linux/bits.h>
#include <linux/clocksource.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/version.h>
#include <asm/hypervisor.h>
#include <asm/tsc.h>

#include "cpc_acct.h"
#include "cpc_ctx.h"
#include "cpc_sched.h"

/*
 * Logical freezes (see above) read perf's fields from the overflow
 * handler: only on the kernels that was checked against.  EVENT_TIME is
 * the bit of perf_event_context.is_active that says its clock runs
 * (kernel/events/core.c, private); the event limit's disable is queued
 * on pending_disable_irq since 6.10, on pending_irq before.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define CPC_LOGICAL_FREEZE 1
#else
#define CPC_LOGICAL_FREEZE 0
#endif
#define CPC_PERF_EVENT_TIME 0x4
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define cpc_limit_work(ev) (&(ev)->pending_disable_irq)
#else
#define cpc_limit_work(ev) (&(ev)->pending_irq)
#endif

/* Module parameter logical_freeze: N disables every counter at a freeze. */
bool cpc_logical_freeze = true;
static DEFINE_PER_CPU(u64, cpc_logical_freeze_count);

static u64 cpc_sum_percpu(u64 __percpu *counter);

u64 cpc_logical_freezes(void)
{
	return cpc_sum_percpu(&cpc_logical_freeze_count);
}

/* ------------------------------------------------------------------ */
/* Sets                                                                 */
/* ------------------------------------------------------------------ */

/* Takes a reference to @file unless its last one is already gone. */
static bool cpc_file_tryget(struct file *file)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	return file_ref_get(&file->f_ref);
#else
	return atomic_long_inc_not_zero(&file->f_count);
#endif
}

static void cpc_set_free(struct cpc_set *set)
{
	irq_work_sync(&set->kick);
	put_task_struct(set->task);
	kfree_rcu(set, rcu);
}

static void cpc_set_put(struct cpc_set *set)
{
	if (refcount_dec_and_test(&set->ref))
		cpc_set_free(set);
}

/* Enter and leave the part of an overflow path that touches the set. */
static bool cpc_set_busy_enter(struct cpc_set *set)
{
	atomic_inc(&set->busy);
	smp_mb__after_atomic();
	return !READ_ONCE(set->dead);
}

static void cpc_set_busy_exit(struct cpc_set *set)
{
	smp_mb__before_atomic();
	atomic_dec(&set->busy);
}

/*
 * Queues the set's task work on its thread.  Called inside a busy section
 * of a set that is not dead, in IRQ or process context (never NMI), so
 * the set's installed reference cannot go away meanwhile.
 */
static void cpc_set_queue_work(struct cpc_set *set)
{
	if (test_and_set_bit(CPC_SET_WORK_QUEUED, &set->work_flags))
		return;		/* the queued work will find it PENDING */
	if (!cpc_file_tryget(set->file)) {
		/* The file is being released; so is the set. */
		clear_bit(CPC_SET_WORK_QUEUED, &set->work_flags);
		return;
	}
	refcount_inc(&set->ref);
	if (task_work_add(set->task, &set->work, TWA_RESUME)) {
		/* The thread has exited; its counters stopped with it. */
		clear_bit(CPC_SET_WORK_QUEUED, &set->work_flags);
		refcount_dec(&set->ref);
		fput(set->file);
	}
}

static void cpc_set_kick(struct irq_work *kick)
{
	struct cpc_set *set = container_of(kick, struct cpc_set, kick);

	if (cpc_set_busy_enter(set) &&
	    READ_ONCE(set->state) == CPC_SET_PENDING)
		cpc_set_queue_work(set);
	cpc_set_busy_exit(set);
}

/*
 * The enabled time of @ev as of now, from any context on its thread's
 * processor (NMI included), as perf_event_time_now() computes it: the
 * context's clock offset is written for lockless readers.
 */
static u64 cpc_enabled_now(struct perf_event *ev, enum perf_event_state state)
{
#if CPC_LOGICAL_FREEZE
	struct perf_event_context *pctx = ev->ctx;
	u64 now;

	if (state < PERF_EVENT_STATE_INACTIVE)
		return ev->total_time_enabled;
	if (smp_load_acquire(&pctx->is_active) & CPC_PERF_EVENT_TIME)
		now = local_clock() + READ_ONCE(pctx->timeoffset);
	else
		now = READ_ONCE(pctx->time);
	return ev->total_time_enabled + now - ev->tstamp;
#else
	return 0;
#endif
}

/*
 * In the overflow handler of @set's limit counter @event, on the thread's
 * processor: takes the other counters' raw counts and the first one's
 * enabled time (a logical freeze).  False, with nothing usable, if a
 * counter is neither active here nor stopped: then the task work
 * disables them all.
 */
static bool cpc_set_snapshot(struct cpc_set *set, struct perf_event *event)
{
	int cpu = smp_processor_id();
	bool first = true;
	unsigned int i;

	if (!CPC_LOGICAL_FREEZE || !READ_ONCE(cpc_logical_freeze))
		return false;
	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];
		enum perf_event_state state;

		if (!ev)
			continue;
		if (ev == event) {
			first = false;	/* perf stops it: its time stops */
			continue;
		}
		state = READ_ONCE(ev->state);
		if (state == PERF_EVENT_STATE_ACTIVE &&
		    READ_ONCE(ev->oncpu) == cpu)
			ev->pmu->read(ev);
		else if (state > PERF_EVENT_STATE_OFF)
			return false;
		set->frz_raw[i] = local64_read(&ev->count);
		if (first) {
			set->frz_enabled = cpc_enabled_now(ev, state);
			first = false;
		}
	}
	this_cpu_inc(cpc_logical_freeze_count);
	return true;
}

static void cpc_overflow(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs)
{
	struct cpc_set *set = event->overflow_handler_context;
	struct task_struct *task = current;
	unsigned long pc;

	if (!cpc_set_busy_enter(set))
		goto out;
	if (task != set->task || (task->flags & PF_EXITING) ||
	    task->self_exec_id != set->exec_id)
		goto out;
	if (cmpxchg(&set->state, CPC_SET_RUNNING, CPC_SET_PENDING) !=
	    CPC_SET_RUNNING)
		goto out;	/* already frozen: ignore */

	if (regs && user_mode(regs))
		pc = instruction_pointer(regs);
	else
		pc = instruction_pointer(task_pt_regs(task));
	WRITE_ONCE(set->pc, pc);
	/* Only the limit counter has a handler in a set that has one. */
	WRITE_ONCE(set->frz_logical,
		   set->ovf >= 0 && cpc_set_snapshot(set, event));

	/*
	 * From NMI context neither the task work list nor the return path
	 * may be touched safely: an irq work (a self-interrupt as soon as
	 * interrupts are enabled) queues the task work instead.
	 */
	if (in_nmi())
		irq_work_queue(&set->kick);
	else
		cpc_set_queue_work(set);
out:
	cpc_set_busy_exit(set);
}

static u32 cpc_perf_type(u32 kind)
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

/*
 * Does request @i of @set count a clock, whose overflows come from an
 * hrtimer?  From the request, not the counter: on Linux 6.12 (at least)
 * perf rewrites a clock counter's attr.type to the type of the clock's
 * own PMU.
 */
static bool cpc_is_timer(const struct cpc_set *set, unsigned int i)
{
	return (set->task_clock | set->cpu_clock) & BIT(i);
}

static void cpc_set_release_counters(struct cpc_set *set)
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

static void cpc_set_work(struct callback_head *work);

/*
 * The sample period of a binding's request: the count passes 2^64 - 1
 * after 2^64 - preset events.  0 (no overflow) without CPC_KREQ_OVF_EMT,
 * and for periods of 2^63 and more (perf's limit) or 2^64 (preset 0),
 * which never end in practice.
 */
static u64 cpc_req_period(const struct cpc_kreq *r)
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
static int cpc_set_limit_req(const struct cpc_set *set)
{
	unsigned int i;
	int req = -1;

	if (!CPC_LOGICAL_FREEZE)
		return -1;
	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i] || !set->period[i])
			continue;
		if (req >= 0 || cpc_is_timer(set, i))
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
static struct cpc_set *cpc_set_create(struct cpc_file *cf,
				      struct task_struct *task,
				      const struct cpc_kbind *kb, bool group)
{
	struct perf_event_attr attr;
	struct cpc_set *set;
	unsigned int i;
	int err;

	set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set)
		return ERR_PTR(-ENOMEM);
	refcount_set(&set->ref, 1);
	set->file = cf->file;
	get_task_struct(task);
	set->task = task;
	set->exec_id = READ_ONCE(task->self_exec_id);
	set->state = CPC_SET_RUNNING;
	init_task_work(&set->work, cpc_set_work);
	init_irq_work(&set->kick, cpc_set_kick);
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
		attr.type = cpc_perf_type(r->kind);
		attr.config = r->config;
		attr.pinned = 1;
		attr.disabled = 1;
		attr.exclude_hv = 1;
		attr.exclude_user = !(r->flags & CPC_KREQ_USER);
		attr.exclude_kernel = !(r->flags & CPC_KREQ_SYSTEM);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 13, 0)
		/* Bindings and group aggregates alike stop at an exec. */
		attr.remove_on_exec = 1;
#endif
		if (group) {
			attr.inherit = 1;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 13, 0)
			attr.inherit_thread = 1;
#endif
		} else {
			period = cpc_req_period(r);
		}
		attr.sample_period = period;
		set->period[i] = period;

		ev = perf_event_create_kernel_counter(&attr, -1, task,
						      period ? cpc_overflow :
						      NULL,
						      period ? set : NULL);
		if (IS_ERR(ev)) {
			err = PTR_ERR(ev);
			goto fail;
		}
		set->ev[i] = ev;
	}
	if (!group)
		set->ovf = cpc_set_limit_req(set);
	return set;

fail:
	cpc_set_release_counters(set);
	put_task_struct(set->task);
	kfree(set);
	return ERR_PTR(err);
}

/*
 * Starts the limit counter of a set (stopped) for one overflow: the limit
 * is set, not added to, as overflows while it was off left it anywhere.
 */
static void cpc_limit_arm(struct perf_event *ev)
{
	atomic_set(&ev->event_limit, 0);
	perf_event_refresh(ev, 1);
}

/* Waits until perf's disable queued by @ev's event limit has run. */
static void cpc_limit_sync(struct perf_event *ev)
{
#if CPC_LOGICAL_FREEZE
	irq_work_sync(cpc_limit_work(ev));
#endif
}

static void cpc_set_enable(struct cpc_set *set)
{
	unsigned int i;

	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i])
			continue;
		if ((int)i == set->ovf)
			cpc_limit_arm(set->ev[i]);
		else
			perf_event_enable(set->ev[i]);
	}
	set->hw_off = false;
}

static void cpc_set_disable(struct cpc_set *set)
{
	unsigned int i;

	for (i = 0; i < set->nreqs; i++)
		if (set->ev[i])
			perf_event_disable(set->ev[i]);
	set->hw_off = true;
}

/*
 * The enabled time of a counter is perf's context time, which
 * cpc_read_quick() computes from the context's fields as perf's own reads
 * do (ctx->time + (local_clock() - ctx->timestamp) while the context's
 * clock runs, which it does while one of its counters is active; the
 * counter's total_time_enabled and tstamp in that time base).  Those
 * fields are perf internals: this is done only on the kernels it was
 * checked against (make check-kmod compares it with
 * perf_event_read_value()); other kernels read the time through perf.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define CPC_READ_QUICK_TIME 1
#else
#define CPC_READ_QUICK_TIME 0
#endif

/* Module parameter quick_reads: false makes every read go through perf. */
bool cpc_quick_reads = true;

/*
 * Counters read by cpc_read_quick(), for the parameters self_reads,
 * self_time_reads and stopped_reads: per processor, so that threads
 * sampling on different processors share no cache line.
 */
static DEFINE_PER_CPU(u64, cpc_self_reads);
static DEFINE_PER_CPU(u64, cpc_self_time_reads);
static DEFINE_PER_CPU(u64, cpc_stopped_reads);

static u64 cpc_sum_percpu(u64 __percpu *counter)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(*per_cpu_ptr(counter, cpu));
	return sum;
}

/**
 * cpc_read_stats() - how often cpc_set_read() did without perf's locks
 * @self: counters of the calling thread read on its processor
 * @self_time: of those, reads that computed the on-CPU time too
 * @stopped: stopped counters read from their final fields
 */
void cpc_read_stats(u64 *self, u64 *self_time, u64 *stopped)
{
	*self = cpc_sum_percpu(&cpc_self_reads);
	*self_time = cpc_sum_percpu(&cpc_self_time_reads);
	*stopped = cpc_sum_percpu(&cpc_stopped_reads);
}

/*
 * Reads a counter of the calling thread (@self) without
 * perf_event_read_value(), which takes the context mutex and the child
 * mutex and calls a function on the counter's processor, where that gives
 * the same count and time.  Whatever changes the state of the thread's
 * counters runs in the thread itself (exit, exec, this module's disable
 * and enable under the file lock that the caller holds) or in an
 * interrupt on the thread's processor (perf's cross-processor calls,
 * context switches), and interrupts are off here:
 *
 * - A counter active on this processor is read the way
 *   perf_event_read_local() does (which modules cannot call: it is not
 *   exported): the PMU's read() brings ->count up to date.
 * - A stopped counter (disabled, or in error) is read from its final
 *   count and enabled time.
 *
 * Counters that are inherited (group aggregates) never: their children
 * count too.  ->child_count stays 0 for the others.  @enabled, if not
 * NULL, receives the enabled time (see CPC_READ_QUICK_TIME).  Called with
 * interrupts off (once for all the counters of a set).  Returns false,
 * reading nothing, when perf must be asked.
 */
static bool cpc_read_quick(struct perf_event *ev, bool self, u64 *count,
			   u64 *enabled)
{
	enum perf_event_state state;

	lockdep_assert_irqs_disabled();
	if (!self || ev->attr.inherit || (enabled && !CPC_READ_QUICK_TIME))
		return false;
	state = READ_ONCE(ev->state);
	if (state <= PERF_EVENT_STATE_OFF) {
		*count = local64_read(&ev->count) +
			 atomic64_read(&ev->child_count);
		if (enabled)
			*enabled = ev->total_time_enabled +
				atomic64_read(&ev->child_total_time_enabled);
		__this_cpu_inc(cpc_stopped_reads);
		return true;
	}
	if (state != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(ev->oncpu) != smp_processor_id())
		return false;
	ev->pmu->read(ev);
	*count = local64_read(&ev->count) + atomic64_read(&ev->child_count);
	if (enabled) {
		struct perf_event_context *pctx = ev->ctx;
		u64 now = pctx->time + (local_clock() - pctx->timestamp);

		*enabled = ev->total_time_enabled + (now - ev->tstamp);
		__this_cpu_inc(cpc_self_time_reads);
	}
	__this_cpu_inc(cpc_self_reads);
	return true;
}

/*
 * Reads the counts (preset + events since bind or restart) and the
 * enabled time of the first counter that counts (for a group: summed
 * over its threads).  Returns -EIO if a pinned counter could not be
 * scheduled (more hardware events than the PMU has counters).
 *
 * Counters are read with cpc_read_quick() where it can (the first one
 * with its time), all at once with interrupts off, then the others
 * through perf_event_read_value().  cpc_set_read_raw() gives the raw
 * counts and the first counter's enabled time, with @frozen those a
 * logical freeze took for the counters that still run.
 */
static int cpc_set_read_raw(struct cpc_set *set, bool frozen, u64 *raw,
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
	if (READ_ONCE(cpc_quick_reads)) {
		local_irq_save(flags);
		for (i = 0; i < set->nreqs; i++)
			if (set->ev[i] && !test_bit(i, &done) &&
			    cpc_read_quick(set->ev[i], self, &raw[i],
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
		if (READ_ONCE(ev->state) == PERF_EVENT_STATE_ERROR)
			err = -EIO;
	}
	return err;
}

/* Is @set frozen with its counters but ->ovf's running (see above)? */
static bool cpc_set_frozen_logically(const struct cpc_set *set)
{
	return set->frz_logical && READ_ONCE(set->state) == CPC_SET_FROZEN;
}

static int cpc_set_read(struct cpc_set *set, u64 *vals, u64 *ontime)
{
	u64 raw[CPC_KMOD_MAX_REQS], enabled;
	bool counts = false;
	unsigned int i;
	int err;

	err = cpc_set_read_raw(set, cpc_set_frozen_logically(set), raw,
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
static void cpc_set_teardown(struct cpc_set *set)
{
	WRITE_ONCE(set->dead, true);
	smp_mb();
	while (atomic_read(&set->busy))
		cpu_relax();
	cpc_set_release_counters(set);
	set->ctx = NULL;
	cpc_set_put(set);
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
 * that the kernel computes from tsc_khz exactly as cpc_tsc_factors()
 * does (arch/x86/kernel/tsc.c, set_cyc2ns_scale()).  So the module
 * publishes the counts as of one local_clock() reading with the TSC read
 * right after it, and user space adds the converted TSC ticks since.
 * tests/kmod/clockprobe measured the agreement in the test guest.
 *
 * The counts as of that reading are computed from perf's fields as
 * cpc_read_quick() does, for a counter that is active or inactive alike:
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
 * page before 6.2 only (parameter page_cpu_clock); task-clock, which
 * counts the context's time, loses nothing there.
 */
#define CPC_PAGE_CPU_CLOCK \
	(LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0))

static DEFINE_PER_CPU(u64, cpc_page_sched_ins);
static DEFINE_PER_CPU(u64, cpc_page_sched_early);
static atomic64_t cpc_page_hooks = ATOMIC64_INIT(0);

/*
 * A binding whose counting requests are all clocks (task-clock, and
 * cpu-clock where CPC_PAGE_CPU_CLOCK), none inherited.  From the requests, not from the counters'
 * attributes, which perf rewrites (see cpc_is_timer()).
 */
static bool cpc_set_time_only(const struct cpc_set *set)
{
	unsigned int i, n = 0;

	if (!CPC_READ_QUICK_TIME)
		return false;
	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i])
			continue;
		if (!cpc_is_timer(set, i) || set->ev[i]->attr.inherit ||
		    ((set->cpu_clock & BIT(i)) && !CPC_PAGE_CPU_CLOCK))
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
static bool cpc_tsc_factors(u32 *mult, u32 *shift)
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

/* Can the state page carry a time base now (module parameter page_time)? */
bool cpc_page_time_possible(void)
{
	u32 mult, shift;

	return CPC_READ_QUICK_TIME && cpc_sched_available() &&
	       cpc_tsc_factors(&mult, &shift);
}

/* Can a binding with cpu-clock be read from its page (page_cpu_clock)? */
bool cpc_page_cpu_clock(void)
{
	return CPC_PAGE_CPU_CLOCK && cpc_page_time_possible();
}

void cpc_page_stats(u64 *sched_ins, u64 *early, u64 *hooks)
{
	*sched_ins = cpc_sum_percpu(&cpc_page_sched_ins);
	*early = cpc_sum_percpu(&cpc_page_sched_early);
	*hooks = atomic64_read(&cpc_page_hooks);
}

/*
 * Fills the time base of @kp for @set, inside a write of the page (seq
 * odd), if the set's thread is the calling one, the set runs and the TSC
 * can stand for the clock.  Interrupts off, page_lock held.  Returns
 * whether it did; the caller clears time_flags otherwise.
 */
static bool cpc_page_fill_time(struct cpc_kpage *kp, struct cpc_set *set,
			       bool sched_in)
{
	u64 vals[CPC_KMOD_MAX_REQS], t0, t1, clock, ontime = 0;
	unsigned int i, first = CPC_KMOD_MAX_REQS;
	u32 mult, shift, mask = 0;

	lockdep_assert_irqs_disabled();
	if (!set || !set->sched_ev || !READ_ONCE(set->page_time) ||
	    set->task != current ||
	    READ_ONCE(set->state) != CPC_SET_RUNNING ||
	    !cpc_tsc_factors(&mult, &shift))
		return false;
	t0 = rdtsc_ordered();
	clock = local_clock();
	t1 = rdtsc_ordered();
	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];
		struct perf_event_context *pctx;
		u64 count, enabled, now;

		if (!ev) {
			vals[i] = set->preset[i];
			continue;
		}
		/*
		 * A counter perf no longer runs (taken off at an exec, or
		 * in error) does not advance: no time base for the set.
		 */
		if (READ_ONCE(ev->state) < PERF_EVENT_STATE_INACTIVE)
			return false;
		pctx = ev->ctx;
		now = pctx->time + (clock - pctx->timestamp);
		if (set->cpu_clock & BIT(i)) {
			if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
			    READ_ONCE(ev->oncpu) != smp_processor_id()) {
				if (sched_in)
					__this_cpu_inc(cpc_page_sched_early);
				return false;
			}
			count = local64_read(&ev->count) + clock -
				local64_read(&ev->hw.prev_count);
		} else {
			count = local64_read(&ev->count) + now -
				local64_read(&ev->hw.prev_count);
		}
		enabled = ev->total_time_enabled + now - ev->tstamp;
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
		__this_cpu_inc(cpc_page_sched_ins);
		if (first < CPC_KMOD_MAX_REQS &&
		    READ_ONCE(set->ev[first]->state) != PERF_EVENT_STATE_ACTIVE)
			__this_cpu_inc(cpc_page_sched_early);
	}
	return true;
}

static void cpc_page_write(struct cpc_ctx *ctx, unsigned int nreqs,
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
	if (!nreqs || !cpc_page_fill_time(kp, ctx->set, false))
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
static void cpc_page_time_switch(struct cpc_ctx *ctx, struct cpc_set *set,
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
		if (!cpc_page_fill_time(kp, set, false))
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
void cpc_set_sched_in(struct cpc_set *set)
{
	struct cpc_ctx *ctx = READ_ONCE(set->ctx);
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
		if (!cpc_page_fill_time(kp, set, true))
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
static void cpc_set_want_hook(struct cpc_ctx *ctx, struct cpc_set *set)
{
	struct perf_event *ev;
	unsigned long irqflags;

	if (set->hook_tried || !ctx->mapped || set->task != current)
		return;
	set->hook_tried = true;
	if (!cpc_set_time_only(set) || !cpc_page_time_possible())
		return;
	ev = cpc_sched_create(set->task, set);
	if (IS_ERR(ev)) {
		pr_warn_once("cpc: no scheduler hook for a binding: %ld\n",
			     PTR_ERR(ev));
		return;
	}
	atomic64_inc(&cpc_page_hooks);
	/* Its first add() (just now) found no hook in the set: nothing. */
	raw_spin_lock_irqsave(&ctx->page_lock, irqflags);
	WRITE_ONCE(set->sched_ev, ev);
	raw_spin_unlock_irqrestore(&ctx->page_lock, irqflags);
}

static u32 cpc_set_flags(struct cpc_set *set)
{
	return READ_ONCE(set->state) == CPC_SET_RUNNING ?
		0 : CPC_KSAMPLE_FROZEN;
}

/* Reads the binding and writes the state page; the file lock is held. */
static int cpc_ctx_update_page(struct cpc_ctx *ctx, u64 *vals, u64 *ontime)
{
	struct cpc_set *set = ctx->set;
	int err;

	err = cpc_set_read(set, vals, ontime);
	cpc_page_write(ctx, set->nreqs, cpc_set_flags(set), vals, *ontime);
	return err;
}

/* ------------------------------------------------------------------ */
/* The overflow task work                                               */
/* ------------------------------------------------------------------ */

static void cpc_send_overflow(struct cpc_set *set)
{
	struct kernel_siginfo info;

	clear_siginfo(&info);
	info.si_signo = CPC_SIGEMT;
	info.si_errno = 0;
	info.si_code = CPC_EMT_CPCOVF;
	info.si_addr = (void __user *)READ_ONCE(set->pc);
	send_sig_info(CPC_SIGEMT, &info, current);
}

/* Runs in the counted thread before it returns to user mode (or exits). */
static void cpc_set_work(struct callback_head *work)
{
	struct cpc_set *set = container_of(work, struct cpc_set, work);
	struct file *file = set->file;
	struct cpc_file *cf = file->private_data;
	u64 vals[CPC_KMOD_MAX_REQS], ontime;

	clear_bit(CPC_SET_WORK_QUEUED, &set->work_flags);
	smp_mb__after_atomic();

	mutex_lock(&cf->lock);
	if (!set->dead && READ_ONCE(set->state) == CPC_SET_PENDING) {
		/*
		 * A logical freeze has nothing to stop (see above); its limit
		 * counter's disable has run once this returns, so that the
		 * page and every sample show its final count.
		 */
		if (!set->frz_logical)
			cpc_set_disable(set);
		else
			cpc_limit_sync(set->ev[set->ovf]);
		WRITE_ONCE(set->state, CPC_SET_FROZEN);
		if (set->ctx && set->ctx->set == set)
			cpc_ctx_update_page(set->ctx, vals, &ontime);
		/* After an exec the new program never asked for SIGEMT. */
		if (current->self_exec_id == set->exec_id)
			cpc_send_overflow(set);
	}
	mutex_unlock(&cf->lock);

	cpc_set_put(set);
	/* Last: may let the file (and with it the module) go. */
	fput(file);
}

/* ------------------------------------------------------------------ */
/* Contexts                                                             */
/* ------------------------------------------------------------------ */

/**
 * cpc_file_init() - set up the state of a new open file
 * @cf: the state
 * @file: the file
 * @user: the opener's accounting, from cpc_user_get()
 */
void cpc_file_init(struct cpc_file *cf, struct file *file,
		   struct cpc_user *user)
{
	mutex_init(&cf->lock);
	spin_lock_init(&cf->map_lock);
	hash_init(cf->ctxs);
	cf->file = file;
	cf->user = user;
	cf->spare_page = NULL;
	cf->nctxs = 0;
}

static void cpc_ctx_drop_set(struct cpc_set **setp)
{
	struct cpc_set *set = *setp;

	if (set) {
		cpc_acct_uncharge(&set->acct);
		cpc_set_teardown(set);
		*setp = NULL;
	}
}

/*
 * What mmap may map for @ctx: the page of its binding while it has one.
 * The file lock is held; mmap reads it under map_lock alone.
 */
static void cpc_ctx_map_update(struct cpc_file *cf, struct cpc_ctx *ctx)
{
	spin_lock(&cf->map_lock);
	ctx->map_page = ctx->set ? ctx->page : NULL;
	spin_unlock(&cf->map_lock);
}

static void cpc_ctx_destroy(struct cpc_file *cf, struct cpc_ctx *ctx)
{
	spin_lock(&cf->map_lock);
	hash_del(&ctx->node);
	cf->nctxs--;
	spin_unlock(&cf->map_lock);
	cpc_ctx_drop_set(&ctx->set);
	cpc_ctx_drop_set(&ctx->group);
	if (ctx->page) {
		/* A mapping keeps the page: leave it saying "unbound". */
		cpc_page_write(ctx, 0, 0, NULL, 0);
		/*
		 * Ours alone (no mapping, no pin: each takes a reference,
		 * and none can be taken once the context is gone): keep it
		 * for the file's next bind, which a thread binding and
		 * releasing in a loop makes at once.
		 */
		if (!cf->spare_page && page_count(ctx->page) == 1)
			cf->spare_page = ctx->page;
		else
			__free_page(ctx->page);
	}
	put_task_struct(ctx->task);
	kfree(ctx);
}

/*
 * True once the thread of @ctx has exited.  A context belongs to the
 * thread, not to its thread id: when a thread other than the leader
 * execs, it takes over the leader's id (and the leader's context is the
 * stale one), but its own context lives on.
 */
static bool cpc_ctx_stale(struct cpc_ctx *ctx)
{
	return READ_ONCE(ctx->task->exit_state) != 0;
}

/*
 * Frees the contexts of threads that have exited.  Never called with
 * mmap_lock held (tearing down counters takes perf's locks).
 */
static void cpc_reap(struct cpc_file *cf)
{
	struct hlist_node *tmp;
	struct cpc_ctx *ctx;
	unsigned int bkt;

	hash_for_each_safe(cf->ctxs, bkt, tmp, ctx, node)
		if (cpc_ctx_stale(ctx))
			cpc_ctx_destroy(cf, ctx);
}

/*
 * The context of @task, or NULL; the file lock (or, for a look-up only,
 * its map_lock) is held.  Frees nothing.
 */
static struct cpc_ctx *cpc_ctx_find(struct cpc_file *cf,
				    struct task_struct *task)
{
	struct cpc_ctx *ctx;

	hash_for_each_possible(cf->ctxs, ctx, node, hash_ptr(task, 32))
		if (ctx->task == task)
			return ctx;
	return NULL;
}

static struct cpc_ctx *cpc_ctx_new(struct cpc_file *cf,
				   struct task_struct *task)
{
	struct cpc_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return NULL;
	get_task_struct(task);
	ctx->task = task;
	raw_spin_lock_init(&ctx->page_lock);
	spin_lock(&cf->map_lock);
	hash_add(cf->ctxs, &ctx->node, hash_ptr(task, 32));
	cf->nctxs++;
	spin_unlock(&cf->map_lock);
	return ctx;
}

/*
 * After enabling the set of the current thread: are its pinned hardware
 * counters on the PMU?  Each request is its own event, so the kernel
 * validates no group and a counter the PMU cannot give is left in error
 * state.  Some in error while others count: more requests than the PMU
 * has counters (-ENOSPC); all in error: the counters are taken, e.g. by
 * a CPU-wide pinned event (-EAGAIN, as while a CPU is bound on Solaris).
 */
static int cpc_set_check_scheduled(struct cpc_set *set)
{
	unsigned int i, hw = 0, lost = 0;

	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];

		if (!ev || ev->pmu->task_ctx_nr != perf_hw_context)
			continue;
		hw++;
		if (READ_ONCE(ev->state) == PERF_EVENT_STATE_ERROR)
			lost++;
	}
	if (!lost)
		return 0;
	return lost < hw ? -ENOSPC : -EAGAIN;
}

static void cpc_ctx_put_if_empty(struct cpc_file *cf, struct cpc_ctx *ctx)
{
	if (!ctx->set && !ctx->group)
		cpc_ctx_destroy(cf, ctx);
}

/* The number of kernel counters a bind creates. */
static unsigned int cpc_bind_counters(const struct cpc_kbind *kb)
{
	unsigned int i, n = 0;

	for (i = 0; i < kb->nreqs; i++)
		if (kb->req[i].flags & (CPC_KREQ_USER | CPC_KREQ_SYSTEM))
			n++;
	return n;
}

/* Rebinds served in place (module parameter rebinds_in_place). */
static atomic64_t cpc_rearms = ATOMIC64_INIT(0);

u64 cpc_rearm_count(void)
{
	return atomic64_read(&cpc_rearms);
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
static bool cpc_set_same_events(const struct cpc_set *set,
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
		if (READ_ONCE(ev->state) == PERF_EVENT_STATE_ERROR ||
		    set->kind[i] != r->kind || ev->attr.config != r->config ||
		    ev->attr.exclude_user != !(r->flags & CPC_KREQ_USER) ||
		    ev->attr.exclude_kernel != !(r->flags & CPC_KREQ_SYSTEM) ||
		    !set->period[i] != !cpc_req_period(r) ||
		    (set->period[i] && cpc_is_timer(set, i)))
			return false;
	}
	return true;
}

/*
 * Sets the sample period of a stopped counter; perf then forgets what
 * was left of the old period.  Where the period stays the same, only
 * that is done, without perf_event_period()'s function call on the
 * thread's processor: the counter is off, and nothing but its enable
 * (under perf's context lock, after this) touches its period until then.
 */
static void cpc_set_period(struct perf_event *ev, u64 period)
{
	if (CPC_LOGICAL_FREEZE &&
	    READ_ONCE(ev->state) <= PERF_EVENT_STATE_OFF &&
	    !ev->attr.freq && ev->attr.sample_period == period &&
	    ev->hw.sample_period == period) {
		local64_set(&ev->hw.period_left, 0);
		return;
	}
	perf_event_period(ev, period);
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
static bool cpc_set_halt(struct cpc_set *set)
{
	bool others_run = set->ovf >= 0 && !set->hw_off &&
			  READ_ONCE(cpc_logical_freeze);

	if (others_run)
		perf_event_disable(set->ev[set->ovf]);
	else
		cpc_set_disable(set);
	if (set->ovf >= 0)
		cpc_limit_sync(set->ev[set->ovf]);
	return others_run;
}

/*
 * Rebases a set stopped by cpc_set_halt() (@others_run: its result) and
 * runs it again: with @kb's presets and periods for a rebind in place,
 * the on-CPU time counted from now; with @kb NULL (RESTART) from the
 * presets again, the on-CPU time going on from where it stopped.  The
 * periods are set while the sampling counters are stopped: perf then
 * forgets what was left of the old period, and each counter starts a
 * whole new one when it runs again (as a new counter would).
 */
static void cpc_set_resume(struct cpc_ctx *ctx, struct cpc_set *set,
			   const struct cpc_kbind *kb, bool others_run)
{
	u64 raw[CPC_KMOD_MAX_REQS], vals[CPC_KMOD_MAX_REQS], enabled;
	unsigned int i, first = CPC_KMOD_MAX_REQS;

	for (i = 0; i < set->nreqs && first == CPC_KMOD_MAX_REQS; i++)
		if (set->ev[i])
			first = i;
	cpc_set_read_raw(set, false, raw, &enabled);
	if (kb)
		set->time_base = enabled;
	else if (cpc_set_frozen_logically(set) && (int)first != set->ovf)
		/* That counter ran on while frozen: not on-CPU time. */
		set->time_base += enabled - set->frz_enabled;
	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];

		if (kb)
			set->preset[i] = kb->req[i].preset;
		/* Rebased: every count reads its preset now. */
		vals[i] = set->preset[i];
		if (!ev)
			continue;
		if (kb)
			set->period[i] = cpc_req_period(&kb->req[i]);
		set->base[i] = raw[i];
		if (set->period[i])
			cpc_set_period(ev, set->period[i]);
	}
	WRITE_ONCE(set->state, CPC_SET_RUNNING);
	set->frz_logical = false;
	if (kb)
		ctx->updates = 0;
	cpc_page_write(ctx, set->nreqs, 0, vals,
		       first < CPC_KMOD_MAX_REQS ? enabled - set->time_base : 0);
	if (others_run)
		cpc_limit_arm(set->ev[set->ovf]);
	else
		cpc_set_enable(set);
}

/*
 * Rebinds the context's set in place: the same counters with
 * @kb's presets and periods, running again (also after an overflow froze
 * them), the on-CPU time counted from now.  Far cheaper than new kernel
 * counters (the usual rebind in a SIGEMT handler).  Returns -EAGAIN,
 * with the counters stopped or untouched, when a new set is needed: other
 * events, or an overflow whose signal is still to be sent.  Called with
 * the file lock held.
 */
static int cpc_set_rearm(struct cpc_ctx *ctx, const struct cpc_kbind *kb)
{
	struct cpc_set *set = ctx->set;
	bool others_run;

	if (!cpc_set_same_events(set, kb))
		return -EAGAIN;
	cpc_page_time_switch(ctx, set, false);
	others_run = cpc_set_halt(set);
	/* No overflow path can start now; one that began owns the set. */
	if (READ_ONCE(set->state) == CPC_SET_PENDING ||
	    test_bit(CPC_SET_WORK_QUEUED, &set->work_flags)) {
		cpc_page_time_switch(ctx, set, true);
		return -EAGAIN;
	}
	cpc_set_resume(ctx, set, kb, others_run);
	cpc_page_time_switch(ctx, set, true);
	atomic64_inc(&cpc_rearms);
	return 0;
}

/**
 * cpc_ctx_bind() - bind counters to a thread, or open its group aggregate
 * @cf: the file
 * @task: the thread (access already checked)
 * @kb: the validated requests
 * @group: CPC_KIOC_GROUP_OPEN rather than CPC_KIOC_BIND
 *
 * Replaces the thread's binding (or aggregate).  If the new counters
 * cannot be created, the old ones stay.
 *
 * Return: 0 or a negative errno.
 */
int cpc_ctx_bind(struct cpc_file *cf, struct task_struct *task,
		 const struct cpc_kbind *kb, bool group)
{
	u64 vals[CPC_KMOD_MAX_REQS], ontime;
	struct cpc_set *set, **slot;
	struct cpc_acct acct;
	struct cpc_ctx *ctx;
	int err;

	mutex_lock(&cf->lock);
	/* The thread's own context alone: no other to reap (the usual
	 * rebind in place in a SIGEMT handler). */
	ctx = cpc_ctx_find(cf, task);
	if (!ctx || cf->nctxs > 1) {
		cpc_reap(cf);
		ctx = cpc_ctx_find(cf, task);
	}
	if (!ctx) {
		ctx = cpc_ctx_new(cf, task);
		if (!ctx) {
			err = -ENOMEM;
			goto out_unlock;
		}
	}
	slot = group ? &ctx->group : &ctx->set;
	if (!group && ctx->set && cpc_set_rearm(ctx, kb) == 0) {
		mutex_unlock(&cf->lock);
		return 0;
	}
	err = cpc_acct_charge(&acct, cf->user, task, cpc_bind_counters(kb),
			      *slot ? &(*slot)->acct : NULL);
	if (err)
		goto out_ctx;
	if (!group && !ctx->page) {
		/* A spare page says "unbound" (nreqs 0), its seq is even. */
		ctx->page = cf->spare_page ?:
			    alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		cf->spare_page = NULL;
		if (!ctx->page) {
			err = -ENOMEM;
			goto out_charge;
		}
	}

	set = cpc_set_create(cf, task, kb, group);
	if (IS_ERR(set)) {
		err = PTR_ERR(set);
		goto out_charge;
	}
	set->acct = acct;
	cpc_ctx_drop_set(slot);
	*slot = set;
	set->ctx = ctx;
	cpc_ctx_map_update(cf, ctx);

	if (kb->flags & CPC_KBIND_START_FROZEN)
		set->state = CPC_SET_FROZEN;
	if (!group) {
		unsigned int i;

		for (i = 0; i < set->nreqs; i++)
			vals[i] = set->preset[i];
		ontime = 0;
		ctx->updates = 0;
		cpc_page_write(ctx, set->nreqs, cpc_set_flags(set), vals,
			       ontime);
	}
	if (set->state == CPC_SET_RUNNING) {
		cpc_set_enable(set);
		err = task == current ? cpc_set_check_scheduled(set) : 0;
		if (err) {
			cpc_ctx_drop_set(slot);
			cpc_ctx_map_update(cf, ctx);
			if (!group)
				cpc_page_write(ctx, 0, 0, NULL, 0);
			cpc_ctx_put_if_empty(cf, ctx);
			mutex_unlock(&cf->lock);
			return err;
		}
	}
	if (!group)
		cpc_page_time_switch(ctx, set, true);
	mutex_unlock(&cf->lock);
	return 0;

out_charge:
	cpc_acct_uncharge(&acct);
out_ctx:
	cpc_ctx_put_if_empty(cf, ctx);
out_unlock:
	mutex_unlock(&cf->lock);
	return err;
}

/**
 * cpc_ctx_sample() - read a thread's binding or group aggregate
 * @cf: the file
 * @task: the thread (access already checked)
 * @group: CPC_KIOC_GROUP_SAMPLE rather than CPC_KIOC_SAMPLE
 * @ks: receives nreqs, flags, ontime_ns and vals (the rest is untouched)
 *
 * Sampling a binding also updates its state page.
 *
 * Return: 0, -EINVAL if there is nothing to sample, or -EIO.
 */
int cpc_ctx_sample(struct cpc_file *cf, struct task_struct *task,
		   bool group, struct cpc_ksample *ks)
{
	struct cpc_ctx *ctx;
	struct cpc_set *set;
	int err = -EINVAL;

	mutex_lock(&cf->lock);
	ctx = cpc_ctx_find(cf, task);
	set = ctx ? (group ? ctx->group : ctx->set) : NULL;
	if (set) {
		ks->nreqs = set->nreqs;
		if (group) {
			err = cpc_set_read(set, ks->vals, &ks->ontime_ns);
		} else {
			cpc_set_want_hook(ctx, set);
			ks->flags = cpc_set_flags(set);
			err = cpc_ctx_update_page(ctx, ks->vals,
						  &ks->ontime_ns);
		}
	}
	mutex_unlock(&cf->lock);
	return err;
}

/**
 * cpc_ctx_rele() - drop a thread's binding or group aggregate
 * @cf: the file
 * @task: the thread (access already checked)
 * @group: CPC_KIOC_GROUP_CLOSE rather than CPC_KIOC_RELE
 *
 * Return: 0, or -EINVAL if there was nothing to drop.
 */
int cpc_ctx_rele(struct cpc_file *cf, struct task_struct *task, bool group)
{
	struct cpc_ctx *ctx;
	int err = -EINVAL;

	mutex_lock(&cf->lock);
	ctx = cpc_ctx_find(cf, task);
	if (ctx && (group ? ctx->group : ctx->set)) {
		if (group) {
			cpc_ctx_drop_set(&ctx->group);
		} else {
			cpc_ctx_drop_set(&ctx->set);
			cpc_ctx_map_update(cf, ctx);
			cpc_page_write(ctx, 0, 0, NULL, 0);
		}
		cpc_ctx_put_if_empty(cf, ctx);
		err = 0;
	}
	mutex_unlock(&cf->lock);
	return err;
}

/**
 * cpc_ctx_restart() - restart a thread's binding from its presets
 * @cf: the file
 * @task: the thread (access already checked)
 *
 * The counts read as the presets again, overflow periods are re-armed and
 * the counters run, whether or not they were frozen.
 *
 * Return: 0, or -EINVAL if the thread is not bound.
 */
int cpc_ctx_restart(struct cpc_file *cf, struct task_struct *task)
{
	struct cpc_ctx *ctx;
	struct cpc_set *set;

	mutex_lock(&cf->lock);
	ctx = cpc_ctx_find(cf, task);
	set = ctx ? ctx->set : NULL;
	if (!set) {
		mutex_unlock(&cf->lock);
		return -EINVAL;
	}

	cpc_page_time_switch(ctx, set, false);
	cpc_set_resume(ctx, set, NULL, cpc_set_halt(set));
	cpc_page_time_switch(ctx, set, true);
	mutex_unlock(&cf->lock);
	return 0;
}

/**
 * cpc_ctx_mmap() - map the calling thread's state page
 * @cf: the file
 * @vma: a checked one-page, read-only, shared mapping at offset 0
 *
 * Called with mmap_lock held, so it takes the file's map_lock and not
 * its lock: binding holds the file lock while it takes perf's context
 * mutex, under which perf's read() copies to user space and may fault
 * (mmap_lock).  A reference held across vm_insert_page() keeps the page
 * alive should the context go meanwhile.
 *
 * Return: 0, -EINVAL if the calling thread is not bound, or the error of
 * vm_insert_page().
 */
int cpc_ctx_mmap(struct cpc_file *cf, struct vm_area_struct *vma)
{
	struct cpc_ctx *ctx;
	struct page *page = NULL;
	int err;

	spin_lock(&cf->map_lock);
	ctx = cpc_ctx_find(cf, current);
	if (ctx && ctx->map_page) {
		page = ctx->map_page;
		get_page(page);
		/* Set before the insertion: a page that may be mapped is
		 * never made a spare, and the hook may be made for it. */
		WRITE_ONCE(ctx->mapped, true);
	}
	spin_unlock(&cf->map_lock);
	if (!page)
		return -EINVAL;
	err = vm_insert_page(vma, vma->vm_start, page);
	put_page(page);
	return err;
}

/**
 * cpc_file_destroy() - free every context of a released file
 * @cf: the file's state; no task work of it can be pending (each holds a
 *	file reference)
 */
void cpc_file_destroy(struct cpc_file *cf)
{
	struct hlist_node *tmp;
	struct cpc_ctx *ctx;
	unsigned int bkt;

	mutex_lock(&cf->lock);
	hash_for_each_safe(cf->ctxs, bkt, tmp, ctx, node)
		cpc_ctx_destroy(cf, ctx);
	if (cf->spare_page)
		__free_page(cf->spare_page);
	cf->spare_page = NULL;
	mutex_unlock(&cf->lock);
	mutex_destroy(&cf->lock);
}

/**
 * cpc_probe_hw_pmu() - can this kernel count hardware events?
 *
 * Return: true if a cycles counter can be created for the current thread.
 */
bool cpc_probe_hw_pmu(void)
{
	struct perf_event_attr attr;
	struct perf_event *ev;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (IS_ERR(ev))
		return false;
	perf_event_release_kernel(ev);
	return true;
}
