/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The overflow path of /dev/cpc's sets (see cpc_ovf.c).
 */
#ifndef KCPC_OVF_H
#define KCPC_OVF_H

struct irq_work;
struct perf_event;
struct perf_sample_data;
struct pt_regs;

void kcpc_overflow(struct perf_event *event, struct perf_sample_data *data,
		   struct pt_regs *regs);
void kcpc_set_kick(struct irq_work *kick);

#endif /* KCPC_OVF_H */
