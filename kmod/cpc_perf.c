// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's internals.
 *
 * The module counts with perf's kernel counters through perf's exported
 * functions.  Its fast paths also read fields of struct perf_event and
 * struct perf_event_context that are perf's own (the counter's state,
 * count and enabled time; the context's clock), the way perf's unexported
 * perf_event_read_local() and perf_event_time_now() read them.  Every such
 * read is in this file.  Whether the fields are there, with the types and
 * meaning the module expects, is checked when the module is built (see
 * cpc_compat.h); where they are not, the fast path that needs them is off
 * (and debugfs says so), and the module asks perf through its exported
 * functions, which give the same values.
 */
#include <linux/irq_work.h>
#include <linux/irqflags.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>

#include "cpc_compat.h"
#include "cpc_perf.h"

/*
 * The counter's fields that reads without perf's locks need (its state,
 * processor, counts, enabled time and tstamp, prev_count, the PMU's
 * read()): all of them, or no such read.
 */
#ifdef KCPC_HAVE_PERF_EVENT_FIELDS
#define KCPC_EVENT_FIELDS 1
#else
#define KCPC_EVENT_FIELDS 0
#endif

/*
 * The context clock: its time, the local_clock() reading it was last
 * updated at, and (for readers in NMI context) their difference: three
 * u64 fields of perf_event_context (5.10.y to 6.12), or a struct
 * perf_time_ctx (7.x).  And the bit of ctx->is_active that says the
 * clock runs: EVENT_TIME, private to kernel/events/core.c, 0x4 on every
 * kernel from 5.10 to 7.3.
 */
#if defined(KCPC_HAVE_PERF_TIME_CTX)
#define KCPC_CTX_CLOCK 1
#define kcpc_ctx_time(pctx) ((pctx)->time.time)
#define kcpc_ctx_stamp(pctx) ((pctx)->time.stamp)
#define kcpc_ctx_offset(pctx) ((pctx)->time.offset)
#elif defined(KCPC_HAVE_PERF_CTX_TIMESTAMP)
#define KCPC_CTX_CLOCK 1
#define kcpc_ctx_time(pctx) ((pctx)->time)
#define kcpc_ctx_stamp(pctx) ((pctx)->timestamp)
#define kcpc_ctx_offset(pctx) ((pctx)->timeoffset)
#else
#define KCPC_CTX_CLOCK 0
#endif
#define KCPC_PERF_EVENT_TIME 0x4

#define KCPC_QUICK_TIME (KCPC_EVENT_FIELDS && KCPC_CTX_CLOCK)

/*
 * The irq work that the event limit's disable is queued on at an
 * overflow: pending_disable_irq since 6.10, pending_irq in 6.1 to 6.9,
 * pending before.
 */
#if defined(KCPC_HAVE_PERF_PENDING_DISABLE_IRQ)
#define kcpc_limit_work(ev) (&(ev)->pending_disable_irq)
#elif defined(KCPC_HAVE_PERF_PENDING_IRQ)
#define kcpc_limit_work(ev) (&(ev)->pending_irq)
#elif defined(KCPC_HAVE_PERF_PENDING)
#define kcpc_limit_work(ev) (&(ev)->pending)
#endif

#if KCPC_QUICK_TIME && defined(kcpc_limit_work) && \
	defined(KCPC_HAVE_PERF_EVENT_LIMIT)
#define KCPC_LOGICAL_FREEZE 1
#else
#define KCPC_LOGICAL_FREEZE 0
#endif

/*
 * Since 6.2 each PMU has its own part of a task's context
 * (perf_event_pmu_context), rescheduled alone.
 */
#ifdef KCPC_HAVE_PERF_PMU_CONTEXT
#define KCPC_PMU_CONTEXTS 1
#else
#define KCPC_PMU_CONTEXTS 0
#endif

/**
 * kcpc_perf_quick_reads() - can an own counter be read without perf's
 * locks?
 *
 * Return: true where the counter's fields are as expected.
 */
bool kcpc_perf_quick_reads(void)
{
	return KCPC_EVENT_FIELDS;
}

/**
 * kcpc_perf_quick_time() - can an own counter's enabled time be read
 * from perf's context clock?
 *
 * Return: true where the context's clock fields are as expected.
 */
bool kcpc_perf_quick_time(void)
{
	return KCPC_QUICK_TIME;
}

/**
 * kcpc_perf_logical_freeze() - can the overflow handler take a snapshot
 * of the other counters (NMI-safe reads of the clock, the event limit's
 * irq work)?
 *
 * Return: true where the fields are as expected.
 */
bool kcpc_perf_logical_freeze(void)
{
	return KCPC_LOGICAL_FREEZE;
}

/**
 * kcpc_perf_page_cpu_clock() - does perf reschedule a task's software
 * counters together (so the scheduler hook runs whenever cpu-clock is
 * added back)?
 *
 * Return: true where a task's context is not split by PMU.
 */
bool kcpc_perf_page_cpu_clock(void)
{
	return !KCPC_PMU_CONTEXTS;
}

enum perf_event_state kcpc_perf_state(const struct perf_event *ev)
{
	return READ_ONCE(ev->state);
}

/* Is @ev a counter of a hardware PMU (one that can fail to schedule)? */
bool kcpc_perf_is_hw(const struct perf_event *ev)
{
	return ev->pmu->task_ctx_nr == perf_hw_context;
}

bool kcpc_perf_inherited(const struct perf_event *ev)
{
	return ev->attr.inherit;
}

/* Does @ev count @config in those modes? */
bool kcpc_perf_counts(const struct perf_event *ev, u64 config,
		      bool exclude_user, bool exclude_kernel)
{
	return ev->attr.config == config &&
	       ev->attr.exclude_user == exclude_user &&
	       ev->attr.exclude_kernel == exclude_kernel;
}

/* The context the module passed to perf_event_create_kernel_counter(). */
void *kcpc_perf_handler_context(const struct perf_event *ev)
{
	return ev->overflow_handler_context;
}

#if KCPC_QUICK_TIME
/* The context's time as of @clock (a local_clock() reading). */
static u64 kcpc_ctx_time_at(const struct perf_event_context *pctx, u64 clock)
{
	return kcpc_ctx_time(pctx) + (clock - kcpc_ctx_stamp(pctx));
}
#endif

/**
 * kcpc_perf_read_self() - read a counter of the calling thread without
 * perf's locks
 * @ev: the counter, not inherited
 * @count: receives the count
 * @enabled: receives the enabled time, if not NULL (only where
 *	     kcpc_perf_quick_time())
 *
 * Interrupts are off.  Reads a counter active on this processor the way
 * perf_event_read_local() does (not exported): the PMU's read() brings
 * ->count up to date; its enabled time is perf's context time
 * (ctx->time + (local_clock() - ctx->timestamp) while the context's clock
 * runs, which it does while one of its counters is active; the counter's
 * total_time_enabled and tstamp in that time base).  Reads a stopped
 * counter (disabled, or in error) from its final count and enabled time.
 *
 * Return: how it read the counter; KCPC_PERF_READ_NONE (nothing read)
 * when perf must be asked.
 */
enum kcpc_perf_read kcpc_perf_read_self(struct perf_event *ev, u64 *count,
					u64 *enabled)
{
#if KCPC_EVENT_FIELDS
	enum perf_event_state state;

	lockdep_assert_irqs_disabled();
	if (ev->attr.inherit || (enabled && !kcpc_perf_quick_time()))
		return KCPC_PERF_READ_NONE;
	state = READ_ONCE(ev->state);
	if (state <= PERF_EVENT_STATE_OFF) {
		*count = local64_read(&ev->count) +
			 atomic64_read(&ev->child_count);
		if (enabled)
			*enabled = ev->total_time_enabled +
				atomic64_read(&ev->child_total_time_enabled);
		return KCPC_PERF_READ_STOPPED;
	}
	if (state != PERF_EVENT_STATE_ACTIVE ||
	    READ_ONCE(ev->oncpu) != smp_processor_id())
		return KCPC_PERF_READ_NONE;
	ev->pmu->read(ev);
	*count = local64_read(&ev->count) + atomic64_read(&ev->child_count);
#if KCPC_QUICK_TIME
	if (enabled)
		*enabled = ev->total_time_enabled +
			   (kcpc_ctx_time_at(ev->ctx, local_clock()) - ev->tstamp);
#endif
	return KCPC_PERF_READ_ACTIVE;
#else
	return KCPC_PERF_READ_NONE;
#endif
}

/*
 * The enabled time of @ev as of now, from any context on its thread's
 * processor (NMI included), as perf_event_time_now() computes it: the
 * context's clock offset is written for lockless readers.
 */
static u64 kcpc_enabled_now(struct perf_event *ev, enum perf_event_state state)
{
#if KCPC_LOGICAL_FREEZE
	struct perf_event_context *pctx = ev->ctx;
	u64 now;

	if (state < PERF_EVENT_STATE_INACTIVE)
		return ev->total_time_enabled;
	if (smp_load_acquire(&pctx->is_active) & KCPC_PERF_EVENT_TIME)
		now = local_clock() + READ_ONCE(kcpc_ctx_offset(pctx));
	else
		now = READ_ONCE(kcpc_ctx_time(pctx));
	return ev->total_time_enabled + now - ev->tstamp;
#else
	return 0;
#endif
}

/**
 * kcpc_perf_snapshot() - in an overflow handler, take a counter of the
 * same thread as it is now
 * @ev: the counter
 * @count: receives its raw count
 * @enabled: receives its enabled time, if not NULL
 *
 * NMI-safe, as perf_event_read_local() is.
 *
 * Return: false, with nothing usable, if the counter is neither active
 * on this processor nor stopped.
 */
bool kcpc_perf_snapshot(struct perf_event *ev, u64 *count, u64 *enabled)
{
#if KCPC_LOGICAL_FREEZE
	enum perf_event_state state = READ_ONCE(ev->state);

	/* An IPI in between could take the counter off (see kcpc_overflow). */
	if (WARN_ON_ONCE(!irqs_disabled()))
		return false;
	if (state == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(ev->oncpu) == smp_processor_id())
		ev->pmu->read(ev);
	else if (state > PERF_EVENT_STATE_OFF)
		return false;
	*count = local64_read(&ev->count);
	if (enabled)
		*enabled = kcpc_enabled_now(ev, state);
	return true;
#else
	return false;
#endif
}

/**
 * kcpc_perf_clock_at() - a clock counter's count and enabled time as of
 * a local_clock() reading, for the state page
 * @ev: a task-clock or cpu-clock counter of the calling thread
 * @clock: the reading, taken with interrupts off
 * @cpu_clock: @ev counts cpu-clock (else task-clock)
 * @count: receives the count
 * @enabled: receives the enabled time
 *
 * task-clock counts perf's context time (count - prev_count at its last
 * stop, prev_count being the context time then), which stands still while
 * the thread is off its processor, so it does not matter whether perf
 * has added the counter back yet.  cpu-clock counts local_clock() from
 * its own add(): exact only while it is active on this processor.
 *
 * Return: 0; -ENODATA if perf no longer runs the counter (taken off at an
 * exec, or in error); -EAGAIN for a cpu-clock not active here.
 */
int kcpc_perf_clock_at(struct perf_event *ev, u64 clock, bool cpu_clock,
		       u64 *count, u64 *enabled)
{
#if KCPC_QUICK_TIME
	u64 now;

	if (READ_ONCE(ev->state) < PERF_EVENT_STATE_INACTIVE)
		return -ENODATA;
	now = kcpc_ctx_time_at(ev->ctx, clock);
	if (cpu_clock) {
		if (READ_ONCE(ev->state) != PERF_EVENT_STATE_ACTIVE ||
		    READ_ONCE(ev->oncpu) != smp_processor_id())
			return -EAGAIN;
		*count = local64_read(&ev->count) + clock -
			local64_read(&ev->hw.prev_count);
	} else {
		*count = local64_read(&ev->count) + now -
			local64_read(&ev->hw.prev_count);
	}
	*enabled = ev->total_time_enabled + now - ev->tstamp;
	return 0;
#else
	return -ENODATA;
#endif
}

/**
 * kcpc_perf_child_in() - has perf copied an inherited counter into a thread?
 * @ev: the counter (of a group aggregate)
 * @task: the thread
 *
 * perf may swap a thread's counter context with a clone of it at a
 * context switch (a parent and the thread it created, counting the
 * same): @ev itself then counts in the new thread, and its child in the
 * parent.  Either way, @task counts through @ev.
 *
 * Return: 1 if @ev or one of its children counts in @task, 0 if none
 * does, -1 where this kernel's perf does not show them (no build-time
 * probe).
 */
int kcpc_perf_child_in(struct perf_event *ev, struct task_struct *task)
{
#ifdef KCPC_HAVE_PERF_CHILD_LIST
	struct perf_event *child;
	int found = 0;

	mutex_lock(&ev->child_mutex);
	if (READ_ONCE(ev->ctx->task) == task)
		found = 1;
	list_for_each_entry(child, &ev->child_list, child_list) {
		if (READ_ONCE(child->ctx->task) == task) {
			found = 1;
			break;
		}
	}
	mutex_unlock(&ev->child_mutex);
	return found;
#else
	return -1;
#endif
}

/**
 * kcpc_perf_limit_arm() - start a stopped counter for one overflow
 * @ev: the counter
 *
 * The event limit is set, not added to, as overflows while the counter
 * was off left it anywhere; perf_event_refresh() adds one and enables.
 */
void kcpc_perf_limit_arm(struct perf_event *ev)
{
	atomic_set(&ev->event_limit, 0);
	perf_event_refresh(ev, 1);
}

/**
 * kcpc_perf_limit_sync() - wait until the disable that @ev's event limit
 * queued at an overflow has run
 * @ev: the counter
 */
void kcpc_perf_limit_sync(struct perf_event *ev)
{
#if KCPC_LOGICAL_FREEZE
	irq_work_sync(kcpc_limit_work(ev));
#endif
}

/**
 * kcpc_perf_period() - set the sample period of a stopped counter
 * @ev: the counter
 * @period: the period
 *
 * perf then forgets what was left of the old period.  Where the period
 * stays the same, only that is done, without perf_event_period()'s
 * function call on the thread's processor: the counter is off, and
 * nothing but its enable (under perf's context lock, after this) touches
 * its period until then.
 *
 * Return: 0, or perf's error: the PMU refuses the period (x86: below an
 * event's limit, or a change to or from the branch trace store).
 */
int kcpc_perf_period(struct perf_event *ev, u64 period)
{
#if KCPC_LOGICAL_FREEZE
	if (
	    READ_ONCE(ev->state) <= PERF_EVENT_STATE_OFF &&
	    !ev->attr.freq && ev->attr.sample_period == period &&
	    ev->hw.sample_period == period) {
		local64_set(&ev->hw.period_left, 0);
		return 0;
	}
#endif
	return perf_event_period(ev, period);
}
