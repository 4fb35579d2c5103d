// SPDX-License-Identifier: GPL-2.0-only
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
 *   EPERM   the caller may not count the thread (CAP_PERFMON or ptrace
 *           access; for overflow signals CAP_PERFMON with CAP_KILL, or
 *           ptrace-attach access)
 *   EACCES  CPC_KREQ_SYSTEM without CAP_PERFMON while allow_system is 0
 *   EOPNOTSUPP  a branch-instructions request that notifies its overflow
 *           after one event (perf would count it with the branch trace
 *           store; see kcpc_bind_uses_bts())
 *   EAGAIN  past max_contexts or max_events of the user, or
 *           max_sets_per_thread of the thread; or (BIND of the caller)
 *           the PMU gives none of its hardware counters, e.g. a CPU-wide
 *           pinned event holds them
 *   EINTR   a fatal signal while waiting for another process's exec
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
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "cpc.h"
#include "cpc_acct.h"
#include "cpc_anchor.h"
#include "cpc_compat.h"
#include "cpc_cpu.h"
#include "cpc_ctx.h"
#include "cpc_debugfs.h"
#include "cpc_inherit.h"
#include "cpc_page.h"
#include "cpc_validate.h"


/* ------------------------------------------------------------------ */
/* Module parameters: policy                                            */
/* ------------------------------------------------------------------ */

static unsigned int kcpc_access = 1;
module_param_named(access, kcpc_access, uint, 0644);
MODULE_PARM_DESC(access,
		 "Who may open /dev/cpc (after the node's permissions): 0 = everyone, 1 = members of the group (access_gid) or CAP_PERFMON (default), 2 = CAP_PERFMON (or CAP_SYS_ADMIN) only");

static int kcpc_access_gid = -1;
module_param_named(access_gid, kcpc_access_gid, int, 0644);
MODULE_PARM_DESC(access_gid,
		 "The group of access=1; default -1: the group of the device node (cpc, set by the udev rule)");

static bool kcpc_cpu_access;
module_param_named(cpu_access, kcpc_cpu_access, bool, 0644);
MODULE_PARM_DESC(cpu_access,
		 "Let everyone who may open /dev/cpc count on processors (CPC_KIOC_CPU_BIND), as granting Solaris's cpc_cpu privilege; default 0: CAP_PERFMON only");

static bool kcpc_allow_system;
module_param_named(allow_system, kcpc_allow_system, bool, 0644);
MODULE_PARM_DESC(allow_system,
		 "Let users without CAP_PERFMON count in kernel mode (CPC_KREQ_SYSTEM); default 0");

module_param_named(max_contexts, kcpc_max_contexts, uint, 0644);
MODULE_PARM_DESC(max_contexts,
		 "Bindings plus group aggregates per user (of the files the user opened); default 1024");

module_param_named(max_events, kcpc_max_events, uint, 0644);
MODULE_PARM_DESC(max_events,
		 "Kernel counters per user (of the files the user opened); default 4096");

module_param_named(max_sets_per_thread, kcpc_max_sets_per_thread, uint, 0644);
MODULE_PARM_DESC(max_sets_per_thread,
		 "Bindings plus group aggregates counting one thread, of all files; default 16");

unsigned int kcpc_max_inherited = 64;
module_param_named(max_inherited, kcpc_max_inherited, uint, 0644);
MODULE_PARM_DESC(max_inherited,
		 "Counters of the group aggregates that apply to one thread (its own, of all files, and those it inherits), which every thread it creates inherits; default 64");

static bool kcpc_hw_pmu;

/**
 * kcpc_probe_hw_pmu() - can this kernel count hardware events?
 *
 * Return: true if a cycles counter can be created for the current thread.
 */
static bool kcpc_probe_hw_pmu(void)
{
	struct perf_event_attr attr;
	struct perf_event *ev;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	ev = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	if (IS_ERR(ev))
		return false;
	perf_event_release_kernel(ev);
	return true;
}

/* ------------------------------------------------------------------ */
/* Access control                                                       */
/* ------------------------------------------------------------------ */

/*
 * May the caller open the device?  The device node's permissions come
 * first (the udev rule: root:cpc, 0660); this is the module's own policy
 * on top of them.
 */
static int kcpc_open_allowed(const struct inode *inode)
{
	int gid;

	switch (READ_ONCE(kcpc_access)) {
	case 0:
		return 0;
	case 1:
		if (perfmon_capable())
			return 0;
		gid = READ_ONCE(kcpc_access_gid);
		if (in_group_p(gid >= 0 ? make_kgid(&init_user_ns, gid) :
				inode->i_gid))
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
static bool kcpc_may_ptrace(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	bool ok;

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

	return kcpc_task_dumpable(task);
}

/* What the caller wants to do with a thread. */
enum kcpc_need {
	KCPC_NEED_COUNT,		/* count it */
	KCPC_NEED_SIGNAL,	/* count it with overflow signals to it */
};

/*
 * May the caller count @task?  perf's rule: CAP_PERFMON, or ptrace
 * access.  Overflow signals act on the thread, so for them (as for perf's
 * sigtrap) CAP_PERFMON must come with CAP_KILL over the thread's user
 * namespace, or else ptrace-attach rights are needed.  Threads of the
 * caller's own process are always allowed; kernel threads never.
 */
static bool kcpc_may_access(struct task_struct *task, enum kcpc_need need)
{
	bool capable;

	if (same_thread_group(task, current))
		return true;
	if (task->flags & PF_KTHREAD)
		return false;
	capable = perfmon_capable();
	if (capable && need == KCPC_NEED_SIGNAL) {
		rcu_read_lock();
		capable = ns_capable(__task_cred(task)->user_ns, CAP_KILL);
		rcu_read_unlock();
	}
	return capable || kcpc_may_ptrace(task);
}

/*
 * Finds the thread @tid (0: the caller) in the caller's pid namespace and
 * checks that the caller may count it.  Returns a task reference.
 */
static struct task_struct *kcpc_get_target(pid_t tid, enum kcpc_need need)
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
	if (!kcpc_may_access(task, need)) {
		put_task_struct(task);
		return ERR_PTR(-EPERM);
	}
	return task;
}

/*
 * Holds off a concurrent exec of another process's thread while its
 * access is checked and its counters are created, as perf_event_open()
 * does: a set-user-ID exec then either happens before the check (which
 * sees its credentials) or after the binding (whose counters it then
 * removes, and whose signals it never gets).
 */
static int kcpc_exec_lock(struct task_struct *task)
{
	if (same_thread_group(task, current))
		return 0;
	return down_read_killable(&task->signal->exec_update_lock);
}

static void kcpc_exec_unlock(struct task_struct *task)
{
	if (!same_thread_group(task, current))
		up_read(&task->signal->exec_update_lock);
}

/* Does a bind ask for overflow signals? */
static enum kcpc_need kcpc_bind_need(const struct cpc_kbind *kb, bool group)
{
	unsigned int i;

	if (!group)
		for (i = 0; i < kb->nreqs; i++)
			if (kb->req[i].flags & CPC_KREQ_OVF_EMT)
				return KCPC_NEED_SIGNAL;
	return KCPC_NEED_COUNT;
}

/* ------------------------------------------------------------------ */
/* Ioctls                                                               */
/* ------------------------------------------------------------------ */

static long kcpc_ioc_info(void __user *argp)
{
	struct cpc_kinfo info;

	memset(&info, 0, sizeof(info));
	info.abi = CPC_KMOD_ABI;
	info.max_reqs = CPC_KMOD_MAX_REQS;
	info.caps = CPC_KCAP_OVERFLOW | CPC_KCAP_CPU |
		    (kcpc_hw_pmu ? CPC_KCAP_HW_PMU : 0);
	info.signo = CPC_KMOD_SIGEMT;
	if (copy_to_user(argp, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

static long kcpc_ioc_bind(struct kcpc_file *cf, void __user *argp, bool group)
{
	struct task_struct *task;
	enum kcpc_need need;
	struct cpc_kbind *kb;
	long err;

	kb = memdup_user(argp, sizeof(*kb));
	if (IS_ERR(kb))
		return PTR_ERR(kb);
	err = kcpc_validate_bind(kb, group);
	if (err)
		goto out;
	if (kcpc_bind_uses_bts(kb)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	if (kcpc_bind_counts_system(kb) && !READ_ONCE(kcpc_allow_system) &&
	    !perfmon_capable()) {
		err = -EACCES;
		goto out;
	}

	need = kcpc_bind_need(kb, group);
	task = kcpc_get_target(kb->tid, need);
	if (IS_ERR(task)) {
		err = PTR_ERR(task);
		goto out;
	}
	err = kcpc_exec_lock(task);
	if (!err) {
		/* Check again under the lock: an exec may have just ended. */
		if (kcpc_may_access(task, need))
			err = kcpc_ctx_bind(cf, task, kb, group);
		else
			err = -EPERM;
		kcpc_exec_unlock(task);
	}
	put_task_struct(task);
out:
	kfree(kb);
	return err;
}

static long kcpc_ioc_sample(struct kcpc_file *cf, void __user *argp,
			    bool group)
{
	struct task_struct *task;
	struct cpc_ksample ks;
	long err;
	s32 tid;

	if (copy_from_user(&ks, argp, sizeof(ks)))
		return -EFAULT;
	err = kcpc_validate_sample(&ks);
	if (err)
		return err;
	tid = ks.tid;
	task = kcpc_get_target(tid, KCPC_NEED_COUNT);
	if (IS_ERR(task) && PTR_ERR(task) == -ESRCH && tid)
		task = kcpc_ctx_find_exited(cf, tid) ?: task;
	if (IS_ERR(task))
		return PTR_ERR(task);

	memset(&ks, 0, sizeof(ks));
	ks.abi = CPC_KMOD_ABI;
	ks.tid = tid;
	err = kcpc_ctx_sample(cf, task, group, &ks);
	put_task_struct(task);
	if (err == -EINVAL && tid) {
		/* The number names another thread now: the one it named? */
		task = kcpc_ctx_find_exited(cf, tid);
		if (task) {
			err = kcpc_ctx_sample(cf, task, group, &ks);
			put_task_struct(task);
		}
	}
	if (!err && copy_to_user(argp, &ks, sizeof(ks)))
		err = -EFAULT;
	return err;
}

/*
 * CPC_KIOC_CPU_BIND: counting on a processor needs CAP_PERFMON, or the
 * administrator's cpu_access; kernel mode as for bindings.
 */
static long kcpc_ioc_cpu_bind(struct kcpc_file *cf, void __user *argp)
{
	struct cpc_kbind *kb;
	long err;

	kb = memdup_user(argp, sizeof(*kb));
	if (IS_ERR(kb))
		return PTR_ERR(kb);
	/* The group aggregate's rules: no overflow, no bind flags. */
	err = kcpc_validate_bind(kb, false);
	if (!err && kb->flags)
		err = -EINVAL;
	if (!err && kcpc_bind_need(kb, false) == KCPC_NEED_SIGNAL)
		err = -EINVAL;
	if (!err && !perfmon_capable() && !READ_ONCE(kcpc_cpu_access))
		err = -EACCES;
	if (!err && kcpc_bind_counts_system(kb) &&
	    !READ_ONCE(kcpc_allow_system) && !perfmon_capable())
		err = -EACCES;
	if (!err)
		err = kcpc_cpu_bind(cf, kb);
	kfree(kb);
	return err;
}

static long kcpc_ioc_cpu_sample(struct kcpc_file *cf, void __user *argp)
{
	struct cpc_ksample ks;
	long err;
	s32 cpu;

	if (copy_from_user(&ks, argp, sizeof(ks)))
		return -EFAULT;
	err = kcpc_validate_sample(&ks);
	if (err)
		return err;
	cpu = ks.tid;
	memset(&ks, 0, sizeof(ks));
	ks.abi = CPC_KMOD_ABI;
	ks.tid = cpu;
	err = kcpc_cpu_sample(cf, cpu, &ks);
	if ((!err || err == -EIO) && copy_to_user(argp, &ks, sizeof(ks)))
		err = -EFAULT;
	return err;
}

static long kcpc_ioc_cpu_rele(struct kcpc_file *cf, void __user *argp)
{
	struct cpc_ktarget kt;
	long err;

	if (copy_from_user(&kt, argp, sizeof(kt)))
		return -EFAULT;
	err = kcpc_validate_target(&kt);
	return err ? err : kcpc_cpu_rele(cf, kt.tid);
}

enum kcpc_target_op { KCPC_OP_RELE, KCPC_OP_RESTART, KCPC_OP_GROUP_CLOSE };

static long kcpc_ioc_target(struct kcpc_file *cf, void __user *argp,
			    enum kcpc_target_op op)
{
	struct task_struct *task;
	struct cpc_ktarget kt;
	long err;

	if (copy_from_user(&kt, argp, sizeof(kt)))
		return -EFAULT;
	err = kcpc_validate_target(&kt);
	if (err)
		return err;
	task = kcpc_get_target(kt.tid, KCPC_NEED_COUNT);
	/* An exited thread's context can still be released. */
	if (IS_ERR(task) && PTR_ERR(task) == -ESRCH && kt.tid &&
	    op != KCPC_OP_RESTART)
		task = kcpc_ctx_find_exited(cf, kt.tid) ?: task;
	if (IS_ERR(task))
		return PTR_ERR(task);

	switch (op) {
	case KCPC_OP_RELE:
		err = kcpc_ctx_rele(cf, task, false);
		break;
	case KCPC_OP_GROUP_CLOSE:
		err = kcpc_ctx_rele(cf, task, true);
		break;
	default:
		/*
		 * What a bind with the same notification would check,
		 * under the exec lock as there: RESTART re-arms overflow
		 * signals to the thread.
		 */
		err = kcpc_exec_lock(task);
		if (err)
			break;
		if (!kcpc_may_access(task, kcpc_ctx_notifies(cf, task) ?
				     KCPC_NEED_SIGNAL : KCPC_NEED_COUNT))
			err = -EPERM;
		else
			err = kcpc_ctx_restart(cf, task);
		kcpc_exec_unlock(task);
		break;
	}
	put_task_struct(task);
	return err;
}

static long kcpc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct kcpc_file *cf = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case CPC_KIOC_INFO:
		return kcpc_ioc_info(argp);
	case CPC_KIOC_BIND:
		return kcpc_ioc_bind(cf, argp, false);
	case CPC_KIOC_SAMPLE:
		return kcpc_ioc_sample(cf, argp, false);
	case CPC_KIOC_RELE:
		return kcpc_ioc_target(cf, argp, KCPC_OP_RELE);
	case CPC_KIOC_RESTART:
		return kcpc_ioc_target(cf, argp, KCPC_OP_RESTART);
	case CPC_KIOC_GROUP_OPEN:
		return kcpc_ioc_bind(cf, argp, true);
	case CPC_KIOC_GROUP_SAMPLE:
		return kcpc_ioc_sample(cf, argp, true);
	case CPC_KIOC_GROUP_CLOSE:
		return kcpc_ioc_target(cf, argp, KCPC_OP_GROUP_CLOSE);
	case CPC_KIOC_CPU_BIND:
		return kcpc_ioc_cpu_bind(cf, argp);
	case CPC_KIOC_CPU_SAMPLE:
		return kcpc_ioc_cpu_sample(cf, argp);
	case CPC_KIOC_CPU_RELE:
		return kcpc_ioc_cpu_rele(cf, argp);
	default:
		return -ENOTTY;
	}
}

/* ------------------------------------------------------------------ */
/* File operations                                                      */
/* ------------------------------------------------------------------ */

/*
 * The user whose limits a new file counts against: the caller's, or in a
 * user namespace the owner of its outermost one below the initial
 * namespace.  Users of a namespace are that owner's: a member with a
 * range of subordinate ids (/etc/subuid) cannot multiply the limits by
 * switching among them.
 */
static kuid_t kcpc_charged_uid(void)
{
	const struct user_namespace *ns = current_user_ns();

	if (ns == &init_user_ns)
		return current_uid();
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}

static int kcpc_open(struct inode *inode, struct file *file)
{
	struct kcpc_user *user;
	struct kcpc_file *cf;
	int err;

	err = kcpc_open_allowed(inode);
	if (err)
		return err;
	err = nonseekable_open(inode, file);
	if (err)
		return err;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL_ACCOUNT);
	if (!cf)
		return -ENOMEM;
	user = kcpc_user_get(kcpc_charged_uid());
	if (!user) {
		kfree(cf);
		return -ENOMEM;
	}
	kcpc_file_init(cf, file, user);
	file->private_data = cf;
	return 0;
}

static int kcpc_release(struct inode *inode, struct file *file)
{
	struct kcpc_file *cf = file->private_data;

	kcpc_cpu_destroy_all(cf);
	kcpc_file_destroy(cf);
	kcpc_user_put(cf->user);
	kfree(cf);
	return 0;
}

/*
 * mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0) maps the calling
 * thread's state page; it must be bound.  The mapping can never become
 * writable or executable, and a fork child does not get it (it would show
 * the parent thread's counts, not the child's).  VM_IO with
 * VM_DONTCOPY: madvise(MADV_DOFORK) refuses to make a VM_IO mapping
 * inheritable (EINVAL), and get_user_pages() will not pin the page.
 * Called with mmap_lock held: kcpc_ctx_mmap() frees nothing.
 */
static int kcpc_mmap(struct file *file, struct vm_area_struct *vma)
{
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	kcpc_vm_flags_mod(vma,
			  VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP,
			  VM_MAYWRITE | VM_MAYEXEC);
	return kcpc_ctx_mmap(file->private_data, vma);
}

static const struct file_operations kcpc_fops = {
	.owner = THIS_MODULE,
	.open = kcpc_open,
	.release = kcpc_release,
	.unlocked_ioctl = kcpc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = kcpc_mmap,
};

static struct miscdevice kcpc_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "cpc",
	.fops = &kcpc_fops,
	/* root only until udev applies the rule (kmod/60-cpc.rules) */
	.mode = 0660,
};

static int __init kcpc_init(void)
{
	int err;

	kcpc_hw_pmu = kcpc_probe_hw_pmu();
	kcpc_anchors_create();
	/* Optional: without the hook, samples use the ioctl. */
	kcpc_sched_register();
	kcpc_debugfs_create();
	err = misc_register(&kcpc_misc);
	if (err) {
		kcpc_debugfs_remove();
		kcpc_sched_unregister();
		kcpc_anchors_release();
	}
	return err;
}

static void __exit kcpc_exit(void)
{
	misc_deregister(&kcpc_misc);
	kcpc_debugfs_remove();
	kcpc_sched_unregister();
	kcpc_anchors_release();
}

module_init(kcpc_init);
module_exit(kcpc_exit);

MODULE_DESCRIPTION("Solaris-style virtualised performance counters for libcpc");
MODULE_AUTHOR("libcpc for Linux");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1.0");
