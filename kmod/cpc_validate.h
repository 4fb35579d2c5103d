/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Validation of everything user space hands to /dev/cpc.
 */
#ifndef CPC_VALIDATE_H
#define CPC_VALIDATE_H

#include <linux/types.h>

#include "uapi/cpc_kmod.h"

int cpc_validate_bind(const struct cpc_kbind *kb, bool group);
int cpc_validate_sample(const struct cpc_ksample *ks);
int cpc_validate_target(const struct cpc_ktarget *kt);
bool cpc_bind_counts_system(const struct cpc_kbind *kb);

#endif /* CPC_VALIDATE_H */
