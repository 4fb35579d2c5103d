// SPDX-License-Identifier: GPL-2.0-only
/*
 * simpmu icount mode (icount_shift=S >= 0): for a guest booted with
 * qemu's "-icount shift=S,sleep=off", where the TSC advances exactly
 * 2^S per executed instruction (qemu's virtual clock is the instruction
 * count shifted by S; while the CPU halts it jumps to the next timer).
 * The PMU's time base is then the TSC shifted right by S: the number of
 * instructions executed on this CPU, exact at every update point.
 *
 * The user/kernel split follows the system calls: a probe on the
 * raw_syscalls tracepoints sys_enter and sys_exit is an update point
 * where user mode ends and where it begins again (simpmu_mode_point()).
 * What this file provides: the time base, the probes, and the
 * conversion of a number of instructions to the hrtimer's nanoseconds.
 */
#include <linux/math64.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "simpmu.h"

int simpmu_icount_shift = -1;
module_param_named(icount_shift, simpmu_icount_shift, int, 0444);
MODULE_PARM_DESC(icount_shift, "qemu -icount shift=S of the guest: count instructions (-1: off, count time)");

static struct tracepoint *tp_sys_enter, *tp_sys_exit;

u64 simpmu_icount_now(void)
{
	return rdtsc_ordered() >> simpmu_icount_shift;
}

u64 simpmu_icount_to_ns(u64 insns)
{
	/* The TSC runs at tsc_khz as the kernel calibrated it. */
	if (insns > (1ULL << 40))
		insns = 1ULL << 40;
	return mul_u64_u32_div(insns << simpmu_icount_shift, 1000000,
			       tsc_khz ? tsc_khz : 1000000);
}

static void simpmu_sys_enter(void *data, struct pt_regs *regs, long id)
{
	simpmu_mode_point(SIMPMU_MODE_KERNEL);
}

static void simpmu_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	simpmu_mode_point(SIMPMU_MODE_USER);
}

static void simpmu_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		tp_sys_enter = tp;
	else if (!strcmp(tp->name, "sys_exit"))
		tp_sys_exit = tp;
}

int simpmu_icount_init(void)
{
	int rc;

	if (simpmu_icount_shift < 0)
		return 0;
	if (simpmu_icount_shift > 10 || !boot_cpu_has(X86_FEATURE_TSC))
		return -EINVAL;
	for_each_kernel_tracepoint(simpmu_find_tp, NULL);
	if (!tp_sys_enter || !tp_sys_exit) {
		pr_info("simpmu: no sys_enter/sys_exit tracepoints\n");
		return -ENOENT;
	}
	rc = tracepoint_probe_register(tp_sys_enter, simpmu_sys_enter, NULL);
	if (rc)
		return rc;
	rc = tracepoint_probe_register(tp_sys_exit, simpmu_sys_exit, NULL);
	if (rc) {
		tracepoint_probe_unregister(tp_sys_enter, simpmu_sys_enter, NULL);
		tracepoint_synchronize_unregister();
	}
	return rc;
}

void simpmu_icount_exit(void)
{
	if (simpmu_icount_shift < 0)
		return;
	tracepoint_probe_unregister(tp_sys_exit, simpmu_sys_exit, NULL);
	tracepoint_probe_unregister(tp_sys_enter, simpmu_sys_enter, NULL);
	tracepoint_synchronize_unregister();
}
