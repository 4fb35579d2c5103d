// SPDX-License-Identifier: GPL-2.0-only
/*
 * clockprobe.ko: a measurement for the module's state page (BENCHMARKS.md,
 * "Physical limits").  perf's context time advances with local_clock(); a state
 * page that publishes the TSC at sched-in lets user space extrapolate it
 * only if local_clock() advances as the TSC converted with a factor the
 * module can compute (tsc_khz through clocks_calc_mult_shift(), as the
 * kernel's own cyc2ns does).  At load, this module compares the two over
 * intervals from microseconds to a second, on whatever processor it runs,
 * prints the figures and refuses to stay loaded (-EAGAIN: nothing to
 * unload; busybox's insmod then tries init_module() after finit_module(),
 * so the guest usually shows two measurements).
 */
#include <linux/clocksource.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <asm/tsc.h>

static unsigned int rounds = 40;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "intervals measured");

struct cp_point {
	u64 tsc0;	/* TSC before the clocks */
	u64 tsc1;	/* TSC after them */
	u64 local;	/* local_clock() */
	u64 sched;	/* sched_clock() */
	int cpu;
};

static u32 cp_mult, cp_shift;

static void cp_take(struct cp_point *p)
{
	unsigned long flags;

	local_irq_save(flags);
	p->tsc0 = rdtsc_ordered();
	p->local = local_clock();
	p->sched = sched_clock();
	p->tsc1 = rdtsc_ordered();
	p->cpu = smp_processor_id();
	local_irq_restore(flags);
}

static u64 cp_ns(u64 cycles)
{
	return mul_u64_u32_shr(cycles, cp_mult, cp_shift);
}

/*
 * The clock's advance minus the converted TSC's, between a and b.  The
 * clocks were read somewhere between tsc0 and tsc1 of each point, so the
 * true difference is within +- the sum of the two half-windows (*slack).
 */
static s64 cp_diff(const struct cp_point *a, const struct cp_point *b,
		   u64 va, u64 vb, u64 *slack)
{
	u64 ma = a->tsc0 + (a->tsc1 - a->tsc0) / 2;
	u64 mb = b->tsc0 + (b->tsc1 - b->tsc0) / 2;

	*slack = cp_ns(a->tsc1 - a->tsc0) / 2 + cp_ns(b->tsc1 - b->tsc0) / 2 + 1;
	return (s64)(vb - va) - (s64)cp_ns(mb - ma);
}

static void cp_wait(unsigned int i)
{
	switch (i % 4) {
	case 0:
		udelay(5 + i);			/* busy, microseconds */
		break;
	case 1:
		mdelay(1 + i % 7);		/* busy, milliseconds */
		break;
	case 2:
		usleep_range(100, 200);		/* asleep, may migrate */
		break;
	default:
		msleep(10 + 10 * (i % 5));	/* asleep, ticks pass */
		break;
	}
}

static int __init cp_init(void)
{
	struct cp_point first, a, b;
	s64 d, worst_l = 0, worst_s = 0, excess_l = 0, excess_s = 0;
	s64 off0, off, off_min, off_max;
	u64 slack, worst_slack = 0, span = 0;
	unsigned int i, migrations = 0;

	clocks_calc_mult_shift(&cp_mult, &cp_shift, tsc_khz, NSEC_PER_MSEC, 0);
	/* As x86's cyc2ns: a shift of 32 becomes 31 (mult halved). */
	if (cp_shift == 32) {
		cp_shift = 31;
		cp_mult >>= 1;
	}
	pr_info("clockprobe: tsc_khz %u cpu_khz %u mult %u shift %u check_tsc_unstable %d\n",
		tsc_khz, cpu_khz, cp_mult, cp_shift, check_tsc_unstable());
	cp_take(&first);
	off0 = (s64)(first.local - first.sched);
	off_min = off_max = 0;
	a = first;
	for (i = 0; i < rounds; i++) {
		cp_wait(i);
		cp_take(&b);
		if (b.cpu != a.cpu)
			migrations++;
		d = cp_diff(&a, &b, a.local, b.local, &slack);
		if (abs(d) > abs(worst_l))
			worst_l = d;
		if (abs(d) > (s64)slack && abs(d) - (s64)slack > excess_l)
			excess_l = abs(d) - (s64)slack;
		d = cp_diff(&a, &b, a.sched, b.sched, &slack);
		if (abs(d) > abs(worst_s))
			worst_s = d;
		if (abs(d) > (s64)slack && abs(d) - (s64)slack > excess_s)
			excess_s = abs(d) - (s64)slack;
		if (slack > worst_slack)
			worst_slack = slack;
		off = (s64)(b.local - b.sched) - off0;
		off_min = min(off_min, off);
		off_max = max(off_max, off);
		a = b;
	}
	span = cp_ns(a.tsc0 - first.tsc0);
	pr_info("clockprobe: %u intervals over %llu ns, %u between processors\n",
		rounds, span, migrations);
	pr_info("clockprobe: local_clock - tsc ns: worst %lld ns, beyond the read window %lld ns (window up to %llu ns)\n",
		worst_l, excess_l, worst_slack);
	pr_info("clockprobe: sched_clock - tsc ns: worst %lld ns, beyond the read window %lld ns\n",
		worst_s, excess_s);
	pr_info("clockprobe: local_clock - sched_clock: %lld ns at first, then varied by %lld..%lld ns\n",
		off0, off_min, off_max);
	return -EAGAIN;
}
module_init(cp_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("local_clock() against the TSC, for libcpc's kmod tests");
