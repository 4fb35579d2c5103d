/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The sets of /dev/cpc (see cpc_set.c).
 */
#ifndef KCPC_SET_H
#define KCPC_SET_H

#include <linux/types.h>

#include "cpc.h"

struct kcpc_set *kcpc_set_create(struct kcpc_file *cf, struct task_struct *task,
				 const struct cpc_kbind *kb, bool group);
void kcpc_set_teardown(struct kcpc_set *set);
u64 kcpc_req_period(const struct cpc_kreq *r);
u32 kcpc_perf_type(u32 kind);

void kcpc_set_enable(struct kcpc_set *set);
void kcpc_set_disable(struct kcpc_set *set);
int kcpc_set_check_scheduled(struct kcpc_set *set);
bool kcpc_set_same_events(const struct kcpc_set *set,
			  const struct cpc_kbind *kb);
bool kcpc_set_halt(struct kcpc_set *set);

int kcpc_set_read_raw(struct kcpc_set *set, bool frozen, u64 *raw,
		      u64 *enabled);
int kcpc_set_read(struct kcpc_set *set, u64 *vals, u64 *ontime);
bool kcpc_set_frozen_logically(const struct kcpc_set *set);
u32 kcpc_set_flags(struct kcpc_set *set);
int kcpc_ctx_update_page(struct kcpc_ctx *ctx, u64 *vals, u64 *ontime);

#endif /* KCPC_SET_H */
