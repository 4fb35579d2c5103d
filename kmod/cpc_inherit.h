/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The bound on what group aggregates copy into new threads (see
 * cpc_inherit.c).
 */
#ifndef KCPC_INHERIT_H
#define KCPC_INHERIT_H

#include <linux/types.h>

struct kcpc_set;
struct task_struct;

extern unsigned int kcpc_max_inherited;

int kcpc_inherit_check(struct task_struct *task, unsigned int nev,
		       const struct kcpc_set *old);
void kcpc_inherit_add(struct kcpc_set *set);
void kcpc_inherit_del(struct kcpc_set *set);

#endif /* KCPC_INHERIT_H */
