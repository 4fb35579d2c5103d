// SPDX-License-Identifier: GPL-2.0-only
/*
 * Build-time probes of the kernel the module is built for.
 *
 * Kbuild compiles this file once per probe, with -DKCPC_PROBE_<NAME> and
 * the module's own compiler flags, against the target kernel's headers
 * (see Kbuild), and writes the generated header cpc_have.h into the build
 * directory: KCPC_HAVE_<NAME> is defined when the probe compiled.  Each
 * probe uses an interface, export or struct member exactly as the module
 * does, with its type checked (BUILD_BUG_ON), so that a kernel where it
 * is missing or different (a new series, or a distribution's backport)
 * takes the other side of the module's #ifdef.  This file is never part
 * of the module.  cpc_compat.h and cpc_perf.c use the results.
 */
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/types.h>

int kcpc_probe(void *p);

/* The compiler and headers work at all (else the build stops). */
#ifdef KCPC_PROBE_SANITY
int kcpc_probe(void *p)
{
	return p != NULL;
}
#endif

/* signal_struct.exec_update_lock (5.11; 5.10.6 and later). */
#ifdef KCPC_PROBE_EXEC_UPDATE_LOCK
int kcpc_probe(void *p)
{
	struct signal_struct *sig = p;

	BUILD_BUG_ON(!__same_type(sig->exec_update_lock, struct rw_semaphore));
	return down_read_killable(&sig->exec_update_lock);
}
#endif

/* file_ref_get(&file->f_ref) (6.13). */
#ifdef KCPC_PROBE_FILE_REF
int kcpc_probe(void *p)
{
	struct file *file = p;

	return file_ref_get(&file->f_ref);
}
#endif

/* file->f_count, an atomic_long_t (before 6.13). */
#ifdef KCPC_PROBE_FILE_F_COUNT
int kcpc_probe(void *p)
{
	struct file *file = p;

	BUILD_BUG_ON(!__same_type(file->f_count, atomic_long_t));
	return atomic_long_inc_not_zero(&file->f_count);
}
#endif

/* vm_flags_mod() (6.3; vma->vm_flags is read-only since). */
#ifdef KCPC_PROBE_VM_FLAGS_MOD
int kcpc_probe(void *p)
{
	vm_flags_mod(p, VM_DONTCOPY, VM_MAYWRITE);
	return 0;
}
#endif

/* The dumpability of an mm: get_dumpable(), SUID_DUMP_USER, mm->user_ns. */
#ifdef KCPC_PROBE_MM_DUMPABLE
#include <linux/sched/coredump.h>
#include <linux/user_namespace.h>
int kcpc_probe(void *p)
{
	struct mm_struct *mm = p;

	BUILD_BUG_ON(!__same_type(mm->user_ns, struct user_namespace *));
	return get_dumpable(mm) != SUID_DUMP_USER &&
	       !ns_capable_noaudit(mm->user_ns, CAP_SYS_PTRACE);
}
#endif

/*
 * The dumpability of a task's exec state: task->exec_state (RCU),
 * ->dumpable, TASK_DUMPABLE_OWNER, ->user_ns (7.x, where it left the mm).
 */
#ifdef KCPC_PROBE_TASK_EXEC_STATE
#include <linux/sched/exec_state.h>
int kcpc_probe(void *p)
{
	struct task_struct *task = p;
	struct task_exec_state *es;
	int ret;

	rcu_read_lock();
	es = rcu_dereference(task->exec_state);
	BUILD_BUG_ON(!__same_type(es->user_ns, struct user_namespace *));
	ret = es->dumpable != TASK_DUMPABLE_OWNER &&
	      !ns_capable_noaudit(es->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	return ret;
}
#endif

/* perf_event_attr.remove_on_exec (5.13). */
#ifdef KCPC_PROBE_PERF_REMOVE_ON_EXEC
int kcpc_probe(void *p)
{
	struct perf_event_attr *attr = p;

	attr->remove_on_exec = 1;
	return 0;
}
#endif

/* perf_event_attr.inherit_thread (5.13). */
#ifdef KCPC_PROBE_PERF_INHERIT_THREAD
int kcpc_probe(void *p)
{
	struct perf_event_attr *attr = p;

	attr->inherit_thread = 1;
	return 0;
}
#endif

/*
 * The counter's fields that a read without perf's locks needs, as
 * perf_event_read_local() reads them.
 */
#ifdef KCPC_PROBE_PERF_EVENT_FIELDS
int kcpc_probe(void *p)
{
	struct perf_event *ev = p;

	BUILD_BUG_ON(!__same_type(ev->state, enum perf_event_state));
	BUILD_BUG_ON(!__same_type(ev->oncpu, int));
	BUILD_BUG_ON(!__same_type(ev->count, local64_t));
	BUILD_BUG_ON(!__same_type(ev->child_count, atomic64_t));
	BUILD_BUG_ON(!__same_type(ev->total_time_enabled, u64));
	BUILD_BUG_ON(!__same_type(ev->child_total_time_enabled, atomic64_t));
	BUILD_BUG_ON(!__same_type(ev->tstamp, u64));
	BUILD_BUG_ON(!__same_type(ev->hw.prev_count, local64_t));
	BUILD_BUG_ON(!__same_type(ev->ctx, struct perf_event_context *));
	ev->pmu->read(ev);
	return 0;
}
#endif

/*
 * The context clock as three u64 fields, time, timestamp and (for readers
 * in NMI context) timeoffset, and is_active (5.10.y, 6.1 to 6.12).
 */
#ifdef KCPC_PROBE_PERF_CTX_TIMESTAMP
int kcpc_probe(void *p)
{
	struct perf_event_context *ctx = p;

	BUILD_BUG_ON(!__same_type(ctx->time, u64));
	BUILD_BUG_ON(!__same_type(ctx->timestamp, u64));
	BUILD_BUG_ON(!__same_type(ctx->timeoffset, u64));
	BUILD_BUG_ON(!__same_type(ctx->is_active, int));
	return 0;
}
#endif

/* The context clock as a struct perf_time_ctx time (7.x). */
#ifdef KCPC_PROBE_PERF_TIME_CTX
int kcpc_probe(void *p)
{
	struct perf_event_context *ctx = p;

	BUILD_BUG_ON(!__same_type(ctx->time, struct perf_time_ctx));
	BUILD_BUG_ON(!__same_type(ctx->time.time, u64));
	BUILD_BUG_ON(!__same_type(ctx->time.stamp, u64));
	BUILD_BUG_ON(!__same_type(ctx->time.offset, u64));
	BUILD_BUG_ON(!__same_type(ctx->is_active, int));
	return 0;
}
#endif

/* The event limit and the sample period's fields. */
#ifdef KCPC_PROBE_PERF_EVENT_LIMIT
int kcpc_probe(void *p)
{
	struct perf_event *ev = p;

	BUILD_BUG_ON(!__same_type(ev->event_limit, atomic_t));
	BUILD_BUG_ON(!__same_type(ev->hw.period_left, local64_t));
	BUILD_BUG_ON(!__same_type(ev->hw.sample_period, u64));
	return ev->attr.freq;
}
#endif

/* The irq work the event limit's disable is queued on: 6.10 and later. */
#ifdef KCPC_PROBE_PERF_PENDING_DISABLE_IRQ
int kcpc_probe(void *p)
{
	struct perf_event *ev = p;

	BUILD_BUG_ON(!__same_type(ev->pending_disable_irq, struct irq_work));
	return 0;
}
#endif

/* 6.1 to 6.9. */
#ifdef KCPC_PROBE_PERF_PENDING_IRQ
int kcpc_probe(void *p)
{
	struct perf_event *ev = p;

	BUILD_BUG_ON(!__same_type(ev->pending_irq, struct irq_work));
	return 0;
}
#endif

/* Before 6.1. */
#ifdef KCPC_PROBE_PERF_PENDING
int kcpc_probe(void *p)
{
	struct perf_event *ev = p;

	BUILD_BUG_ON(!__same_type(ev->pending, struct irq_work));
	BUILD_BUG_ON(!__same_type(ev->pending_disable, int));
	return 0;
}
#endif

/*
 * struct perf_event_pmu_context (6.2): each PMU has its own part of a
 * task's context, rescheduled alone.
 */
#ifdef KCPC_PROBE_PERF_PMU_CONTEXT
int kcpc_probe(void *p)
{
	struct perf_event_pmu_context *epc = p;

	return epc->pmu != NULL;
}
#endif
