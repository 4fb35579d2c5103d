/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Processor contexts of /dev/cpc (see cpc_cpu.c).
 */
#ifndef KCPC_CPU_H
#define KCPC_CPU_H

#include <linux/types.h>

#include "cpc.h"

int kcpc_cpu_bind(struct kcpc_file *cf, const struct cpc_kbind *kb);
int kcpc_cpu_sample(struct kcpc_file *cf, int cpu, struct cpc_ksample *ks);
int kcpc_cpu_rele(struct kcpc_file *cf, int cpu);
void kcpc_cpu_destroy_all(struct kcpc_file *cf);

#endif /* KCPC_CPU_H */
