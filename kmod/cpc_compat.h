/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel interfaces that differ between the kernels the module supports,
 * outside perf's internals (which are cpc_perf.c's).  Which side a kernel
 * takes is decided by the build-time probes of cpc_probes.c (the
 * generated cpc_have.h), never by the kernel's version number: a
 * distribution kernel may have backported an interface under an older
 * version.
 */
#ifndef KCPC_COMPAT_H
#define KCPC_COMPAT_H

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/user_namespace.h>
#include <linux/version.h>

#include "cpc_have.h"

/*
 * The floor.  The module holds a thread's exec lock,
 * signal_struct.exec_update_lock (Linux 5.11, and 5.10.6 in the stable
 * series), while it checks access and creates counters, as
 * perf_event_open() does; earlier kernels have exec_update_mutex (5.7 to
 * 5.10.5) or nothing.  Its overflow signal is sent from a task work, so it
 * needs task_work_add() exported to modules (5.10.y stable kernels export
 * it since a backport from 5.15, Debian's 5.10.262 among them).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 10, 6)
#error "cpc.ko needs Linux 5.10.6 or later (signal_struct.exec_update_lock)"
#endif
#ifndef KCPC_HAVE_EXEC_UPDATE_LOCK
#error "cpc.ko needs signal_struct.exec_update_lock (Linux 5.10.6 or later)"
#endif
#ifndef KCPC_HAVE_EXPORT_task_work_add
#error "cpc.ko needs task_work_add() exported to modules (not in this kernel's Module.symvers)"
#endif

/* Takes a reference to @file unless its last one is already gone. */
static inline bool kcpc_file_tryget(struct file *file)
{
#if defined(KCPC_HAVE_FILE_REF)
	return file_ref_get(&file->f_ref);
#elif defined(KCPC_HAVE_FILE_F_COUNT)
	return atomic_long_inc_not_zero(&file->f_count);
#else
#error "cpc.ko: struct file has neither f_ref nor f_count"
#endif
}

/* Sets @set and clears @clear in the flags of a VMA being mapped. */
static inline void kcpc_vm_flags_mod(struct vm_area_struct *vma,
				     unsigned long set, unsigned long clear)
{
#ifdef KCPC_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags |= set;
	vma->vm_flags &= ~clear;
#endif
}

#if defined(KCPC_HAVE_TASK_EXEC_STATE)
#include <linux/sched/exec_state.h>
#elif defined(KCPC_HAVE_MM_DUMPABLE)
#include <linux/sched/coredump.h>
#else
#error "cpc.ko: no dumpability of a task to check (neither mm's nor exec_state's)"
#endif

/*
 * The dumpability part of ptrace_may_access() (not exported to modules):
 * may a caller without CAP_SYS_PTRACE over the target's user namespace
 * attach to @task, whose credentials it matches?  Not if the task is not
 * dumpable by its owner (after a set-user-ID exec, or prctl).  Where the
 * dumpability lives: the task's exec state (Linux 7.x), else its mm
 * (under task_lock()).
 */
static inline bool kcpc_task_dumpable(struct task_struct *task)
{
#if defined(KCPC_HAVE_TASK_EXEC_STATE)
	struct task_exec_state *es;
	bool ok = true;

	rcu_read_lock();
	es = rcu_dereference(task->exec_state);
	if (es && es->dumpable != TASK_DUMPABLE_OWNER &&
	    !ns_capable_noaudit(es->user_ns, CAP_SYS_PTRACE))
		ok = false;
	rcu_read_unlock();
	return ok;
#else
	struct mm_struct *mm;
	bool ok = true;

	task_lock(task);
	mm = task->mm;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !ns_capable_noaudit(mm->user_ns, CAP_SYS_PTRACE))
		ok = false;
	task_unlock(task);
	return ok;
#endif
}

/*
 * perf_event_attr bits that appeared in Linux 5.13.  Without
 * remove_on_exec, a binding goes on counting across an exec, as perf's own
 * counters do there (debugfs exec_stop 0); its overflow signals still
 * never reach the new program.
 */
#ifdef KCPC_HAVE_PERF_REMOVE_ON_EXEC
#define KCPC_EXEC_STOP 1
#define kcpc_attr_remove_on_exec(attr) ((attr)->remove_on_exec = 1)
#else
#define KCPC_EXEC_STOP 0
#define kcpc_attr_remove_on_exec(attr) do { } while (0)
#endif
#ifdef KCPC_HAVE_PERF_INHERIT_THREAD
#define kcpc_attr_inherit_thread(attr) ((attr)->inherit_thread = 1)
#else
#define kcpc_attr_inherit_thread(attr) do { } while (0)
#endif

#endif /* KCPC_COMPAT_H */
