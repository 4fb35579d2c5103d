/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Validation of everything user space hands to /dev/cpc.
 */
#ifndef KCPC_VALIDATE_H
#define KCPC_VALIDATE_H

#include <linux/types.h>

#include "uapi/cpc_kmod.h"

int kcpc_validate_bind(const struct cpc_kbind *kb, bool group);
int kcpc_validate_sample(const struct cpc_ksample *ks);
int kcpc_validate_target(const struct cpc_ktarget *kt);
bool kcpc_bind_counts_system(const struct cpc_kbind *kb);

#endif /* KCPC_VALIDATE_H */
