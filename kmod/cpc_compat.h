/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel interfaces that differ between the kernels the module supports,
 * outside perf (whose internals are cpc_perf.c's).
 */
#ifndef KCPC_COMPAT_H
#define KCPC_COMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/version.h>

/* Takes a reference to @file unless its last one is already gone. */
static inline bool kcpc_file_tryget(struct file *file)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	return file_ref_get(&file->f_ref);
#else
	return atomic_long_inc_not_zero(&file->f_count);
#endif
}

/* Sets @set and clears @clear in the flags of a VMA being mapped. */
static inline void kcpc_vm_flags_mod(struct vm_area_struct *vma,
				     unsigned long set, unsigned long clear)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags |= set;
	vma->vm_flags &= ~clear;
#endif
}

#endif /* KCPC_COMPAT_H */
