// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cpc: Solaris-style virtualised per-thread performance counters for
 * libcpc, over the kernel's perf counters.  The ABI is uapi/cpc_kmod.h.
 *
 * Errors of the ioctls:
 *   EINVAL  malformed structure (see cpc_validate.c), or nothing bound /
 *           no group aggregate for the thread (SAMPLE, RELE, RESTART, ...)
 *   EFAULT  bad user pointer
 *   ENOTTY  unknown ioctl
 *   ESRCH   no such thread (in the caller's pid namespace), or it is exiting
 *   EPERM   the caller may not ptrace-attach the thread
 *   EACCES  CPC_KREQ_SYSTEM without CAP_PERFMON while allow_system is 0
 *   EAGAIN  the user has max_contexts bindings and group aggregates; or
 *           (BIND of the caller) the PMU gives none of its hardware
 *           counters, e.g. a CPU-wide pinned event holds them
 *   ENOSPC  (BIND of the caller) more hardware requests than the PMU has
 *           counters: some counted, others could not be scheduled
 *   ENOMEM  out of memory
 *   ENOENT  (and other perf errors) the event cannot be counted here,
 *           e.g. a hardware event on a kernel without a hardware PMU
 *   EIO     (SAMPLE) a pinned counter could not be scheduled
 */
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/version.h>

#include "cpc_ctx.h"
#include "cpc_validate.h"

/* ------------------------------------------------------------------ */
/* Module parameters                                                    */
/* ------------------------------------------------------------------ */

static unsigned int cpc_access;
module_param_named(access, cpc_access, uint, 0644);
MODULE_PARM_DESC(access,
		 "Who may open /dev/cpc: 0 = everyone (default; each user counts only threads it may ptrace), 1 = members of group access_gid or CAP_PERFMON, 2 = CAP_PERFMON (or CAP_SYS_ADMIN) only");

static unsigned int cpc_access_gid;
module_param_named(access_gid, cpc_access_gid, uint, 0644);
MODULE_PARM_DESC(access_gid, "The group that may open /dev/cpc when access=1");

static bool cpc_allow_system;
module_param_named(allow_system, cpc_allow_system, bool, 0644);
MODULE_PARM_DESC(allow_system,
		 "Let users without CAP_PERFMON count in kernel mode (CPC_KREQ_SYSTEM); default 0");

unsigned int cpc_max_contexts = 1024;
module_param_named(max_contexts, cpc_max_contexts, uint, 0644);
MODULE_PARM_DESC(max_contexts,
		 "Bindings plus group aggregates per user (of the files the user opened); default 1024");

static int cpc_param_get_in_use(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", cpc_contexts_in_use());
}

static const struct kernel_param_ops cpc_in_use_ops = {
	.get = cpc_param_get_in_use,
};
module_param_cb(contexts_in_use, &cpc_in_use_ops, NULL, 0444);
MODULE_PARM_DESC(contexts_in_use,
		 "Bindings plus group aggregates of all users (read-only)");

static bool cpc_hw_pmu;

/* ------------------------------------------------------------------ */
/* Access control                                                       */
/* ------------------------------------------------------------------ */

static int cpc_open_allowed(void)
{
	switch (READ_ONCE(cpc_access)) {
	case 0:
		return 0;
	case 1:
		if (perfmon_capable() ||
		    in_group_p(make_kgid(&init_user_ns,
					 READ_ONCE(cpc_access_gid))))
			return 0;
		return -EACCES;
	default:
		return perfmon_capable() ? 0 : -EACCES;
	}
}

/*
 * May the caller ptrace-attach @task (PTRACE_MODE_ATTACH_REALCREDS)?
 * ptrace_may_access() is not exported to modules; this is its credential
 * and dumpability part.  Linux security modules (Yama's ptrace_scope,
 * SELinux, ...) are not consulted.
 */
static bool cpc_may_access(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok;

	if (same_thread_group(task, current))
		return true;
	if (task->flags & PF_KTHREAD)
		return false;

	rcu_read_lock();
	tcred = __task_cred(task);
	ok = (uid_eq(cred->uid, tcred->euid) &&
	      uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) &&
	      gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) &&
	      gid_eq(cred->gid, tcred->gid)) ||
	     ns_capable_noaudit(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return false;

	task_lock(task);
	mm = task->mm;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !ns_capable_noaudit(mm->user_ns, CAP_SYS_PTRACE))
		ok = false;
	task_unlock(task);
	return ok;
}

/*
 * Finds the thread @tid (0: the caller) in the caller's pid namespace and
 * checks that the caller may count it.  Returns a task reference.
 */
static struct task_struct *cpc_get_target(pid_t tid)
{
	struct task_struct *task;
	struct pid *pid;

	if (tid == 0) {
		get_task_struct(current);
		return current;
	}
	pid = find_get_pid(tid);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return ERR_PTR(-ESRCH);
	if (!cpc_may_access(task)) {
		put_task_struct(task);
		return ERR_PTR(-EPERM);
	}
	return task;
}

/*
 * Holds off a concurrent exec of another process's thread while its
 * access is checked and its counters are created, as perf_event_open()
 * does: a set-user-ID exec then either happens before the check (which
 * sees its credentials) or after the binding.
 */
static int cpc_exec_lock(struct task_struct *task)
{
	if (same_thread_group(task, current))
		return 0;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
	return down_read_interruptible(&task->signal->exec_update_lock);
#else
	return 0;
#endif
}

static void cpc_exec_unlock(struct task_struct *task)
{
	if (same_thread_group(task, current))
		return;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
	up_read(&task->signal->exec_update_lock);
#endif
}

/* ------------------------------------------------------------------ */
/* Ioctls                                                               */
/* ------------------------------------------------------------------ */

static long cpc_ioc_info(void __user *argp)
{
	struct cpc_kinfo info;

	memset(&info, 0, sizeof(info));
	info.abi = CPC_KMOD_ABI;
	info.max_reqs = CPC_KMOD_MAX_REQS;
	info.caps = CPC_KCAP_OVERFLOW | (cpc_hw_pmu ? CPC_KCAP_HW_PMU : 0);
	info.signo = CPC_SIGEMT;
	if (copy_to_user(argp, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long cpc_ioc_bind(struct cpc_file *cf, void __user *argp, bool group)
{
	struct task_struct *task;
	struct cpc_kbind *kb;
	long err;

	kb = memdup_user(argp, sizeof(*kb));
	if (IS_ERR(kb))
		return PTR_ERR(kb);
	err = cpc_validate_bind(kb, group);
	if (err)
		goto out;
	if (cpc_bind_counts_system(kb) && !READ_ONCE(cpc_allow_system) &&
	    !perfmon_capable()) {
		err = -EACCES;
		goto out;
	}

	task = cpc_get_target(kb->tid);
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		goto out;
	}
	err = cpc_exec_lock(task);
	if (!err) {
		/* Check again under the lock: an exec may have just ended. */
		if (cpc_may_access(task))
			err = cpc_ctx_bind(cf, task, kb, group);
		else
			err = -EPERM;
		cpc_exec_unlock(task);
	}
	put_task_struct(task);
out:
	kfree(kb);
	return err;
}

static long cpc_ioc_sample(struct cpc_file *cf, void __user *argp,
			   bool group)
{
	struct task_struct *task;
	struct cpc_ksample ks;
	long err;
	s32 tid;

	if (copy_from_user(&ks, argp, sizeof(ks)))
		return -EFAULT;
	err = cpc_validate_sample(&ks);
	if (err)
		return err;
	tid = ks.tid;
	task = cpc_get_target(tid);
	if (IS_ERR(task))
		return PTR_ERR(task);

	memset(&ks, 0, sizeof(ks));
	ks.abi = CPC_KMOD_ABI;
	ks.tid = tid;
	err = cpc_ctx_sample(cf, task, group, &ks);
	put_task_struct(task);
	if (!err && copy_to_user(argp, &ks, sizeof(ks)))
		err = -EFAULT;
	return err;
}

enum cpc_target_op { CPC_OP_RELE, CPC_OP_RESTART, CPC_OP_GROUP_CLOSE };

static long cpc_ioc_target(struct cpc_file *cf, void __user *argp,
			   enum cpc_target_op op)
{
	struct task_struct *task;
	struct cpc_ktarget kt;
	long err;

	if (copy_from_user(&kt, argp, sizeof(kt)))
		return -EFAULT;
	err = cpc_validate_target(&kt);
	if (err)
		return err;
	task = cpc_get_target(kt.tid);
	if (IS_ERR(task))
		return PTR_ERR(task);

	switch (op) {
	case CPC_OP_RELE:
		err = cpc_ctx_rele(cf, task, false);
		break;
	case CPC_OP_GROUP_CLOSE:
		err = cpc_ctx_rele(cf, task, true);
		break;
	default:
		err = cpc_ctx_restart(cf, task);
		break;
	}
	put_task_struct(task);
	return err;
}

static long cpc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cpc_file *cf = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CPC_KIOC_INFO:
		return cpc_ioc_info(argp);
	case CPC_KIOC_BIND:
		return cpc_ioc_bind(cf, argp, false);
	case CPC_KIOC_SAMPLE:
		return cpc_ioc_sample(cf, argp, false);
	case CPC_KIOC_RELE:
		return cpc_ioc_target(cf, argp, CPC_OP_RELE);
	case CPC_KIOC_RESTART:
		return cpc_ioc_target(cf, argp, CPC_OP_RESTART);
	case CPC_KIOC_GROUP_OPEN:
		return cpc_ioc_bind(cf, argp, true);
	case CPC_KIOC_GROUP_SAMPLE:
		return cpc_ioc_sample(cf, argp, true);
	case CPC_KIOC_GROUP_CLOSE:
		return cpc_ioc_target(cf, argp, CPC_OP_GROUP_CLOSE);
	default:
		return -ENOTTY;
	}
}

/* ------------------------------------------------------------------ */
/* File operations                                                      */
/* ------------------------------------------------------------------ */

static int cpc_open(struct inode *inode, struct file *file)
{
	struct cpc_user *user;
	struct cpc_file *cf;
	int err;

	err = cpc_open_allowed();
	if (err)
		return err;
	err = nonseekable_open(inode, file);
	if (err)
		return err;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL);
	if (!cf)
		return -ENOMEM;
	user = cpc_user_get(current_uid());
	if (!user) {
		kfree(cf);
		return -ENOMEM;
	}
	cpc_file_init(cf, file, user);
	file->private_data = cf;
	return 0;
}

static int cpc_release(struct inode *inode, struct file *file)
{
	struct cpc_file *cf = file->private_data;

	cpc_file_destroy(cf);
	cpc_user_put(cf->user);
	kfree(cf);
	return 0;
}

/*
 * mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0) maps the calling
 * thread's state page; it must be bound.  The mapping can never become
 * writable or executable.
 */
static int cpc_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP,
		     VM_MAYWRITE | VM_MAYEXEC);
#else
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_flags &= ~(VM_MAYWRITE | VM_MAYEXEC);
#endif
	return cpc_ctx_mmap(file->private_data, vma);
}

static const struct file_operations cpc_fops = {
	.owner = THIS_MODULE,
	.open = cpc_open,
	.release = cpc_release,
	.unlocked_ioctl = cpc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = cpc_mmap,
};

static struct miscdevice cpc_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "cpc",
	.fops = &cpc_fops,
	.mode = 0666,
};

static int __init cpc_init(void)
{
	cpc_hw_pmu = cpc_probe_hw_pmu();
	return misc_register(&cpc_misc);
}

static void __exit cpc_exit(void)
{
	misc_deregister(&cpc_misc);
}

module_init(cpc_init);
module_exit(cpc_exit);

MODULE_DESCRIPTION("Solaris-style virtualised performance counters for libcpc");
MODULE_AUTHOR("libcpc for Linux");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1.0");
