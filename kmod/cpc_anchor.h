/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters that keep the kernel's software-event static keys enabled
 * while the module is loaded (see cpc_anchor.c).
 */
#ifndef CPC_ANCHOR_H
#define CPC_ANCHOR_H

void cpc_anchors_create(void);
void cpc_anchors_release(void);

#endif /* CPC_ANCHOR_H */
