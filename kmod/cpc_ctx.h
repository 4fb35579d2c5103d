/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-thread counter contexts of /dev/cpc (see cpc_ctx.c).
 */
#ifndef KCPC_CTX_H
#define KCPC_CTX_H

#include <linux/types.h>

#include "cpc.h"

struct vm_area_struct;

void kcpc_file_init(struct kcpc_file *cf, struct file *file,
		    struct kcpc_user *user);
void kcpc_file_destroy(struct kcpc_file *cf);

int kcpc_ctx_bind(struct kcpc_file *cf, struct task_struct *task,
		  const struct cpc_kbind *kb, bool group);
int kcpc_ctx_sample(struct kcpc_file *cf, struct task_struct *task,
		    bool group, struct cpc_ksample *ks);
int kcpc_ctx_rele(struct kcpc_file *cf, struct task_struct *task, bool group);
int kcpc_ctx_restart(struct kcpc_file *cf, struct task_struct *task);
int kcpc_ctx_mmap(struct kcpc_file *cf, struct vm_area_struct *vma);

#endif /* KCPC_CTX_H */
