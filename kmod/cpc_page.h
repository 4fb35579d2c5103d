/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The state page of a binding and its scheduler hook (see cpc_page.c).
 */
#ifndef KCPC_PAGE_H
#define KCPC_PAGE_H

#include <linux/types.h>

#include "cpc.h"

int kcpc_sched_register(void);
void kcpc_sched_unregister(void);

bool kcpc_page_time_possible(void);
bool kcpc_page_cpu_clock(void);

void kcpc_page_write(struct kcpc_ctx *ctx, unsigned int nreqs, u32 flags,
		     const u64 *vals, u64 ontime);
void kcpc_page_time_switch(struct kcpc_ctx *ctx, struct kcpc_set *set,
			   bool on);
void kcpc_set_want_hook(struct kcpc_ctx *ctx, struct kcpc_set *set);

#endif /* KCPC_PAGE_H */
