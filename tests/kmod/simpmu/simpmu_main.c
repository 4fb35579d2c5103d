// SPDX-License-Identifier: GPL-2.0-only
/*
 * simpmu: a simulated x86 core PMU, for libcpc's tests in a qemu (TCG)
 * guest, which has no PMU of its own.  Test-only: never installed.
 *
 * It registers as the "cpu" PMU with type PERF_TYPE_RAW, so that perf
 * sends it PERF_TYPE_RAW, PERF_TYPE_HARDWARE and PERF_TYPE_HW_CACHE
 * events, per task (perf_hw_context) and per CPU, from user space and
 * from the in-kernel API (cpc.ko), as it does to the x86 PMU driver.
 *
 * Encodings and errors (simpmu_events.c): as x86 for the boot CPU's
 * vendor (Intel: Skylake tables; AMD: family 17h tables).
 *
 * Counters: counters=N (default 4 on Intel, 6 on AMD) general-purpose
 * counters per CPU, no fixed counters.  At open, a group that needs more
 * than N counters (this PMU's events in the group, the new one included)
 * is refused with EINVAL, as x86's validate_group does.  add() takes a
 * free counter of its CPU or fails with EAGAIN, so perf puts a pinned
 * group that cannot get its counters in error state (read() returns 0
 * bytes) and rotates flexible ones (multiplexing), as on hardware.
 *
 * Counts: a deterministic function of the time the event's task (or, for
 * a CPU-wide event, the CPU outside its idle task) spends in the counted
 * modes: an event counts counted_ns * mhz / 1000 / divisor, divisor 1 for
 * cycles, 2 for instructions, 64 for every other event code (see
 * simpmu_divisor()); mhz= is the nominal clock (default 1000: one cycle
 * per ns).  Time is split into user and kernel time by sampling the
 * mode at update points: while a counter is in use on a CPU, a per-CPU
 * hrtimer interrupt fires every tick_us (default 100) microseconds and
 * sees the mode of the interrupted registers (user_mode(get_irq_regs()),
 * or idle when it interrupted the idle task); the other update points
 * (start at sched in or enable, read, stop at sched out or disable) see
 * user mode when they run in a user task's system call or schedule()
 * (it came from user mode), the interrupted mode in an interrupt (a
 * read from another CPU), idle in the idle task, kernel mode in a kernel
 * thread.  The time between two consecutive update points goes half to
 * the mode of each (all of it to their common mode).  So the split is
 * statistical, good to about half a tick per update point: a task that
 * only runs kernel code is counted as kernel time except for up to half
 * a tick at each sched in, sched out or read.
 *
 * Overflow: a sampling event (sample_period) counts its period down in
 * hw.period_left; the first tick after it reaches 0 adds a period to it
 * (as x86's set_period does, but keeping up to 16 periods that ran out
 * since the last tick for the next ticks: ticks come late under TCG)
 * and calls perf_event_overflow() with the interrupted
 * registers from get_irq_regs(), in hard interrupt context as perf's
 * cpu-clock does; an exclude_kernel event that finds a user task in the
 * kernel reports the task's user registers (where it entered the
 * kernel).  A throttled event is stopped and restarted by perf.
 * perf_event_overflow() is not exported to modules: its address is
 * found once at load through a kprobe; without it, sampling events are
 * refused with EOPNOTSUPP.
 *
 * No rdpmc: event_idx is perf's default (0) and the user page's
 * cap_user_rdpmc stays 0, so readers fall back to read().
 *
 * Every event_init call for those three types is recorded in
 * /sys/kernel/simpmu/log (simpmu_log.c).
 */
#include <linux/hrtimer.h>
#include <linux/kprobes.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <asm/irq_regs.h>
#include <asm/processor.h>

#include "simpmu.h"

enum simpmu_vendor simpmu_vendor;

unsigned int simpmu_counters;
module_param_named(counters, simpmu_counters, uint, 0444);
MODULE_PARM_DESC(counters, "general-purpose counters per CPU (default 4 Intel, 6 AMD)");

unsigned int simpmu_mhz = 1000;
module_param_named(mhz, simpmu_mhz, uint, 0444);
MODULE_PARM_DESC(mhz, "nominal clock: cycles per microsecond of counted time (1000)");

static unsigned int tick_us = 100;
module_param(tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "sampling tick of the user/kernel split and overflows (100 us)");

static unsigned int simpmu_min_period;
module_param_named(min_period, simpmu_min_period, uint, 0444);
MODULE_PARM_DESC(min_period, "refuse a new sample period below this (perf_event_period), as x86 refuses periods below an event's limit (0: none)");

#define MODE_IDLE SIMPMU_MODE_IDLE
#define MODE_USER SIMPMU_MODE_USER
#define MODE_KERNEL SIMPMU_MODE_KERNEL

/* Per event (event->pmu_private). */
struct simpmu_event {
	u64 last_ns;		/* time of the last update */
	u64 counted_ns;		/* time counted so far (counted modes) */
	unsigned int divisor;	/* simpmu_divisor() of the encoding */
	u8 mode;		/* mode the time since last_ns is given to */
	bool ovf_pending;	/* stopped with its period run out, no tick yet */
	s64 stop_left;		/* period_left when it was stopped */
};

/* Per CPU: its counters and its tick. */
struct simpmu_cpu {
	struct hrtimer timer;
	struct perf_event *ctr[SIMPMU_MAX_COUNTERS];
	unsigned int used;
	bool ticking;
	bool in_tick;		/* simpmu_tick() runs (icount: it re-arms) */
};

static DEFINE_PER_CPU(struct simpmu_cpu, simpmu_cpus);

typedef int (*overflow_fn)(struct perf_event *event,
			   struct perf_sample_data *data,
			   struct pt_regs *regs);
static overflow_fn simpmu_overflow_fn;

static struct pmu simpmu_pmu;
static void simpmu_icount_arm(struct simpmu_cpu *c, bool force);

/* Statistics for the unload message. */
static atomic64_t stat_ticks, stat_overflows, stat_throttled;

/* Adds NS of time in MODE to what EVENT counted, if it counts MODE. */
static void simpmu_credit(struct perf_event *event, int mode, u64 ns)
{
	struct simpmu_event *p = event->pmu_private;

	if ((mode == MODE_USER && !event->attr.exclude_user) ||
	    (mode == MODE_KERNEL && !event->attr.exclude_kernel))
		p->counted_ns += ns;
}

/* The time base: ns, or (icount mode) executed instructions. */
static u64 simpmu_now(void)
{
	return simpmu_icount() ? simpmu_icount_now() : ktime_get_ns();
}

/*
 * The time since EVENT's last update point, which saw p->mode, up to
 * this one at NOW, which sees MODE: half to each (all of it if they are
 * the same); then the count, prev_count and period_left follow.  In
 * icount mode an update point's mode is the mode of the time that
 * follows it, and the time since the last point all goes to p->mode;
 * the unit is the instruction, counted as 2 ns at the nominal clock
 * (mhz=1000: 2 cycles and 1 instruction per instruction).
 */
static void simpmu_advance(struct perf_event *event, u64 now, int mode)
{
	struct simpmu_event *p = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;
	u64 delta = now > p->last_ns ? now - p->last_ns : 0;
	u64 val, prev;

	p->last_ns = now;
	if (simpmu_icount()) {
		simpmu_credit(event, p->mode, delta);
	} else {
		simpmu_credit(event, p->mode, delta / 2);
		simpmu_credit(event, mode, delta - delta / 2);
	}
	p->mode = mode;
	val = mul_u64_u32_div(p->counted_ns,
			      simpmu_mhz * (simpmu_icount() ? 2 : 1),
			      1000 * p->divisor);
	prev = local64_read(&hwc->prev_count);
	if (val == prev)
		return;
	local64_set(&hwc->prev_count, val);
	local64_add(val - prev, &event->count);
	local64_sub(val - prev, &hwc->period_left);
}

/*
 * The mode at an update point outside the tick: in an interrupt (a
 * cross-CPU read), what it interrupted; in the idle task, idle; in a
 * user task's system call or schedule(), user mode, which it left just
 * before (read, ioctl, sched in/out of a preempted or blocking task);
 * kernel mode in a kernel thread.
 */
static int simpmu_mode_now(void)
{
	struct pt_regs *regs = hardirq_count() ? get_irq_regs() : NULL;

	if (regs && user_mode(regs))
		return MODE_USER;
	if (is_idle_task(current))
		return MODE_IDLE;
	if (regs || !current->mm || (current->flags & PF_KTHREAD))
		return MODE_KERNEL;
	return MODE_USER;
}

/*
 * icount mode: the mode of the time that follows an update point.  A
 * user task in the kernel outside an interrupt is in a system call,
 * which it leaves through the sys_exit probe (kernel mode until then),
 * or was preempted in an interrupt or exception, from which it returns
 * to user mode without passing a probe (its remaining kernel
 * instructions then count as user mode: only where an interrupt or
 * fault came in between).
 */
static int simpmu_mode_after(void)
{
	struct pt_regs *regs = hardirq_count() ? get_irq_regs() : NULL;

	if (regs && user_mode(regs))
		return MODE_USER;
	if (is_idle_task(current))
		return MODE_IDLE;
	if (regs || !current->mm || (current->flags & PF_KTHREAD))
		return MODE_KERNEL;
	return task_pt_regs(current)->orig_ax >= 0 ? MODE_KERNEL : MODE_USER;
}

static int simpmu_mode_point_now(void)
{
	return simpmu_icount() ? simpmu_mode_after() : simpmu_mode_now();
}

/*
 * Reloads period_left after an overflow, as x86_perf_event_set_period
 * does, except that periods that ran out between two ticks are kept
 * (up to SIMPMU_BACKLOG of them) and overflow at the next ticks, one per
 * tick, where x86 (whose interrupt is never that late) would drop them.
 */
#define SIMPMU_BACKLOG 16
static void simpmu_set_period(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	s64 period = hwc->sample_period;

	if (!is_sampling_event(event))
		return;
	if (left <= -SIMPMU_BACKLOG * period) {
		left = -(SIMPMU_BACKLOG - 1) * period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
	}
	if (left <= 0) {
		left += period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
	}
}

static void simpmu_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		simpmu_advance(event, simpmu_now(), simpmu_mode_point_now());
}

static void simpmu_stop(struct perf_event *event, int flags)
{
	struct simpmu_event *p = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED)) {
		simpmu_advance(event, simpmu_now(), simpmu_mode_point_now());
		hwc->state |= PERF_HES_STOPPED;
		/*
		 * icount mode: its period ran out after the last timer (by
		 * instructions of the interrupt or system call that
		 * switches it out): the overflow the hardware would have
		 * raised is still due, at the first timer after the start.
		 */
		p->stop_left = local64_read(&hwc->period_left);
		p->ovf_pending = simpmu_icount() && is_sampling_event(event) &&
				 p->stop_left <= 0;
	}
	hwc->state |= PERF_HES_UPTODATE;
}

static void simpmu_start(struct perf_event *event, int flags)
{
	struct simpmu_event *p = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED))
		return;
	/*
	 * Reloading would drop an overflow that is due (simpmu_stop()),
	 * unless perf set a new period meanwhile (period_left changed).
	 */
	if ((flags & PERF_EF_RELOAD) &&
	    !(p->ovf_pending &&
	      local64_read(&hwc->period_left) == p->stop_left))
		simpmu_set_period(event);
	p->ovf_pending = false;
	p->last_ns = simpmu_now();
	p->mode = simpmu_mode_point_now();
	hwc->state = 0;
	perf_event_update_userpage(event);
	if (simpmu_icount() && is_sampling_event(event))
		simpmu_icount_arm(this_cpu_ptr(&simpmu_cpus), false);
}

/* The overflow of a sampling event whose period has run out. */
static void simpmu_overflow(struct perf_event *event, struct pt_regs *regs)
{
	struct hw_perf_event *hwc = &event->hw;
	struct perf_sample_data data;
	u64 period = hwc->last_period;

	simpmu_set_period(event);
	if (!simpmu_overflow_fn)
		return;
	/* What a counter that does not count in the kernel would show. */
	if (!user_mode(regs) && event->attr.exclude_kernel && current->mm &&
	    !(current->flags & PF_KTHREAD))
		regs = task_pt_regs(current);
	perf_sample_data_init(&data, 0, period);
	atomic64_inc(&stat_overflows);
	if (simpmu_overflow_fn(event, &data, regs)) {
		atomic64_inc(&stat_throttled);
		simpmu_stop(event, 0);
	}
}

/*
 * icount mode: no periodic tick.  The timer fires where the first
 * sampling event of the CPU reaches the end of its period, were all the
 * time from now on counted (earlier is harmless: it is re-armed), and
 * at the latest after a second.  Returns the hrtimer ns until then.
 */
static u64 simpmu_icount_next(struct simpmu_cpu *c)
{
	u64 best = NSEC_PER_SEC;
	unsigned int i;

	for (i = 0; i < simpmu_counters; i++) {
		struct perf_event *event = c->ctr[i];
		struct simpmu_event *p;
		s64 left;
		u64 insns;

		if (!event || (event->hw.state & PERF_HES_STOPPED) ||
		    !is_sampling_event(event))
			continue;
		p = event->pmu_private;
		left = local64_read(&event->hw.period_left);
		if (left <= 0)
			return 1;
		/* Events to instructions: events * 1000 * divisor / 2 / mhz. */
		insns = mul_u64_u32_div(left, 500 * p->divisor, simpmu_mhz);
		best = min(best, simpmu_icount_to_ns(insns + 1));
	}
	return best;
}

/*
 * icount mode: a sampling event started (FORCE 0): fire at its
 * overflow, or before; or user mode begins (FORCE 1: from the sys_exit
 * probe): all the time until the next update point will be counted by
 * a user-mode event, so the prediction is exact from here on.
 */
static void simpmu_icount_arm(struct simpmu_cpu *c, bool force)
{
	ktime_t when;

	if (!c->ticking || c->in_tick)
		return;
	when = ktime_add_ns(ktime_get(), simpmu_icount_next(c));
	if (force || ktime_before(when, hrtimer_get_expires(&c->timer)))
		hrtimer_start(&c->timer, when, HRTIMER_MODE_ABS_PINNED_HARD);
}

/* icount mode: the system-call probes' update points. */
void simpmu_mode_point(int after)
{
	struct simpmu_cpu *c;
	unsigned long flags;
	unsigned int i;
	u64 now;

	local_irq_save(flags);
	c = this_cpu_ptr(&simpmu_cpus);
	if (c->used) {
		bool sampling = false;

		now = simpmu_now();
		for (i = 0; i < simpmu_counters; i++) {
			struct perf_event *event = c->ctr[i];

			if (event && !(event->hw.state & PERF_HES_STOPPED)) {
				simpmu_advance(event, now, after);
				sampling |= is_sampling_event(event);
			}
		}
		if (sampling && after == MODE_USER)
			simpmu_icount_arm(c, true);
	}
	local_irq_restore(flags);
}

static enum hrtimer_restart simpmu_tick(struct hrtimer *timer)
{
	struct simpmu_cpu *c = this_cpu_ptr(&simpmu_cpus);
	struct pt_regs *regs = get_irq_regs();
	u64 now = simpmu_now();
	unsigned int i;
	int mode;

	if (!c->used) {
		c->ticking = false;
		return HRTIMER_NORESTART;
	}
	c->in_tick = true;
	atomic64_inc(&stat_ticks);
	if (regs && user_mode(regs))
		mode = MODE_USER;
	else if (is_idle_task(current))
		mode = MODE_IDLE;
	else
		mode = MODE_KERNEL;
	for (i = 0; i < simpmu_counters; i++) {
		struct perf_event *event = c->ctr[i];

		if (!event || (event->hw.state & PERF_HES_STOPPED))
			continue;
		simpmu_advance(event, now, mode);
		if (regs && is_sampling_event(event) &&
		    local64_read(&event->hw.period_left) <= 0)
			simpmu_overflow(event, regs);
	}
	c->in_tick = false;
	if (simpmu_icount())
		hrtimer_set_expires(timer, ktime_add_ns(ktime_get(),
						       simpmu_icount_next(c)));
	else
		hrtimer_forward_now(timer,
				    ns_to_ktime((u64)tick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static int simpmu_add(struct perf_event *event, int flags)
{
	struct simpmu_cpu *c = this_cpu_ptr(&simpmu_cpus);
	unsigned int i;

	for (i = 0; i < simpmu_counters && c->ctr[i]; i++)
		;
	if (i == simpmu_counters)
		return -EAGAIN;
	c->ctr[i] = event;
	c->used++;
	event->hw.idx = i;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		simpmu_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	if (!c->ticking) {
		c->ticking = true;
		hrtimer_start(&c->timer,
			      ns_to_ktime(simpmu_icount() ?
					  simpmu_icount_next(c) :
					  (u64)tick_us * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	return 0;
}

static void simpmu_del(struct perf_event *event, int flags)
{
	struct simpmu_cpu *c = this_cpu_ptr(&simpmu_cpus);
	int i = event->hw.idx;

	simpmu_stop(event, PERF_EF_UPDATE);
	if (i >= 0 && i < SIMPMU_MAX_COUNTERS && c->ctr[i] == event) {
		c->ctr[i] = NULL;
		c->used--;
	}
	event->hw.idx = -1;
	perf_event_update_userpage(event);
}

/* x86's validate_group: this PMU's events in the group must fit. */
static int simpmu_validate_group(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sib;
	unsigned int n = 1;

	if (leader == event)
		return 0;
	if (leader->pmu == &simpmu_pmu)
		n++;
	for_each_sibling_event(sib, leader) {
		if (sib->pmu == &simpmu_pmu &&
		    sib->state > PERF_EVENT_STATE_OFF)
			n++;
	}
	return n > simpmu_counters ? -EINVAL : 0;
}

static void simpmu_destroy(struct perf_event *event)
{
	kfree(event->pmu_private);
	event->pmu_private = NULL;
}

static int simpmu_event_init(struct perf_event *event)
{
	struct simpmu_event *p = NULL;
	u64 raw = 0;
	int group, rc;

	switch (event->attr.type) {
	case PERF_TYPE_RAW:
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
		break;
	default:
		return -ENOENT;
	}
	group = event->group_leader == event ?
			1 : event->group_leader->nr_siblings + 2;
	rc = simpmu_encode(event, &raw);
	if (!rc)
		rc = simpmu_validate_group(event);
	if (!rc && is_sampling_event(event) && !simpmu_overflow_fn)
		rc = -EOPNOTSUPP;
	if (!rc) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p)
			rc = -ENOMEM;
	}
	if (rc) {
		simpmu_log_add(event, 0, group, rc);
		return rc;
	}
	p->divisor = simpmu_divisor(raw);
	event->pmu_private = p;
	event->hw.config = raw & ~ARCH_PERFMON_EVENTSEL_ENABLE;
	event->hw.idx = -1;
	event->destroy = simpmu_destroy;
	simpmu_log_add(event, raw, group, 0);
	return 0;
}

/* perf_event_period()'s check: x86 refuses periods below its limits. */
static int simpmu_check_period(struct perf_event *event, u64 value)
{
	return value < simpmu_min_period ? -EINVAL : 0;
}

static struct pmu simpmu_pmu = {
	.module = THIS_MODULE,
	.task_ctx_nr = perf_hw_context,
	.event_init = simpmu_event_init,
	.add = simpmu_add,
	.del = simpmu_del,
	.start = simpmu_start,
	.stop = simpmu_stop,
	.read = simpmu_read,
	.check_period = simpmu_check_period,
};

/*
 * perf_event_overflow() through a kprobe's address lookup.  On a kernel
 * with IBT, kprobes skip the function's ENDBR; call the function at its
 * real entry, the ENDBR.  (The guest's CPU does not enforce IBT.)
 */
static void simpmu_find_overflow(void)
{
	static const u8 endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	struct kprobe kp = { .symbol_name = "perf_event_overflow" };
	unsigned long addr;
	u8 before[4];

	if (register_kprobe(&kp) != 0) {
		pr_info("simpmu: perf_event_overflow not found: no sampling\n");
		return;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	if (copy_from_kernel_nofault(before, (void *)(addr - 4), 4) == 0 &&
	    memcmp(before, endbr64, 4) == 0)
		addr -= 4;
	simpmu_overflow_fn = (overflow_fn)addr;
}

static void simpmu_cancel_timers(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&simpmu_cpus, cpu)->timer);
}

static int __init simpmu_init(void)
{
	int cpu, rc;

	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
		simpmu_vendor = SIMPMU_INTEL;
		break;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		simpmu_vendor = SIMPMU_AMD;
		break;
	default:
		pr_info("simpmu: neither an Intel nor an AMD CPU\n");
		return -ENODEV;
	}
	if (!simpmu_counters)
		simpmu_counters = simpmu_vendor == SIMPMU_AMD ? 6 : 4;
	if (simpmu_counters > SIMPMU_MAX_COUNTERS || !simpmu_mhz ||
	    simpmu_mhz > 100000 || tick_us < 10 || tick_us > 100000) {
		pr_info("simpmu: counters=1..%d, mhz=1..100000, tick_us=10..100000\n",
			SIMPMU_MAX_COUNTERS);
		return -EINVAL;
	}
	for_each_possible_cpu(cpu) {
		struct simpmu_cpu *c = per_cpu_ptr(&simpmu_cpus, cpu);

#ifdef SIMPMU_HAVE_HRTIMER_SETUP
		hrtimer_setup(&c->timer, simpmu_tick, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_HARD);
#else
		hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		c->timer.function = simpmu_tick;
#endif
	}
	simpmu_find_overflow();
	rc = simpmu_icount_init();
	if (rc) {
		pr_info("simpmu: icount mode: %d\n", rc);
		return rc;
	}
	rc = simpmu_log_init();
	if (rc) {
		simpmu_icount_exit();
		return rc;
	}
	rc = perf_pmu_register(&simpmu_pmu, "cpu", PERF_TYPE_RAW);
	if (rc) {
		pr_info("simpmu: perf_pmu_register: %d (is there a PMU?)\n", rc);
		simpmu_log_exit();
		simpmu_icount_exit();
		return rc;
	}
	pr_info("simpmu: %s PMU, %u counters, %u MHz, tick %u us, icount_shift %d\n",
		simpmu_vendor == SIMPMU_AMD ? "AMD" : "Intel",
		simpmu_counters, simpmu_mhz, tick_us, simpmu_icount_shift);
	return 0;
}

static void __exit simpmu_exit(void)
{
	perf_pmu_unregister(&simpmu_pmu);
	simpmu_cancel_timers();
	simpmu_icount_exit();
	simpmu_log_exit();
	pr_info("simpmu: unloaded after %lld ticks, %lld overflows (%lld throttled)\n",
		(long long)atomic64_read(&stat_ticks),
		(long long)atomic64_read(&stat_overflows),
		(long long)atomic64_read(&stat_throttled));
}

module_init(simpmu_init);
module_exit(simpmu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("simulated x86 core PMU for libcpc's tests (test only)");
