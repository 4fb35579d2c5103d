/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The module's statistics and test switches in debugfs (cpc_debugfs.c).
 */
#ifndef KCPC_DEBUGFS_H
#define KCPC_DEBUGFS_H

void kcpc_debugfs_create(void);
void kcpc_debugfs_remove(void);

#endif /* KCPC_DEBUGFS_H */
