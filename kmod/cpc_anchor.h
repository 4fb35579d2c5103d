/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counters that keep the kernel's software-event static keys enabled
 * while the module is loaded (see cpc_anchor.c).
 */
#ifndef KCPC_ANCHOR_H
#define KCPC_ANCHOR_H

void kcpc_anchors_create(void);
void kcpc_anchors_release(void);

#endif /* KCPC_ANCHOR_H */
