/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The module's scheduler hook: a perf PMU of its own whose events, one per
 * binding that the state page can answer, are added when their thread is
 * scheduled in (see cpc_sched.c).
 */
#ifndef CPC_SCHED_H
#define CPC_SCHED_H

#include <linux/types.h>

struct perf_event;
struct task_struct;
struct cpc_set;

int cpc_sched_register(void);
void cpc_sched_unregister(void);
bool cpc_sched_available(void);
struct perf_event *cpc_sched_create(struct task_struct *task,
				    struct cpc_set *set);

/* In cpc_ctx.c: called at each add() of the set's event, interrupts off. */
void cpc_set_sched_in(struct cpc_set *set);

#endif /* CPC_SCHED_H */
