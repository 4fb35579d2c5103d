// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-thread counter contexts of /dev/cpc.
 *
 * Each open file keeps, per thread it counts, a struct kcpc_ctx holding the
 * thread's binding (a struct kcpc_set of perf kernel counters, one per
 * request) and its group aggregate (another set, of inherited counters).
 * Everything is serialised by the file's mutex, except the overflow path.
 *
 * A set is cpc_set.c's, its overflow path cpc_ovf.c's, the state page
 * cpc_page.c's.  This file finds, creates and frees the contexts, and
 * binds, samples, restarts and releases their sets.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cpc.h"
#include "cpc_acct.h"
#include "cpc_ctx.h"
#include "cpc_inherit.h"
#include "cpc_page.h"
#include "cpc_perf.h"
#include "cpc_set.h"
#include "cpc_stats.h"

/**
 * kcpc_file_init() - set up the state of a new open file
 * @cf: the state
 * @file: the file
 * @user: the opener's accounting, from kcpc_user_get()
 */
void kcpc_file_init(struct kcpc_file *cf, struct file *file,
		    struct kcpc_user *user)
{
	mutex_init(&cf->lock);
	spin_lock_init(&cf->map_lock);
	hash_init(cf->ctxs);
	cf->file = file;
	cf->user = user;
	cf->spare_page = NULL;
	cf->nctxs = 0;
	INIT_LIST_HEAD(&cf->cpus);
}

static void kcpc_ctx_drop_set(struct kcpc_set **setp)
{
	struct kcpc_set *set = *setp;

	if (set) {
		if (!list_empty(&set->group_node))
			kcpc_inherit_del(set);
		kcpc_acct_uncharge(&set->acct);
		kcpc_set_teardown(set);
		*setp = NULL;
	}
}

/*
 * What mmap may map for @ctx: the page of its binding while it has one.
 * The file lock is held; mmap reads it under map_lock alone.
 */
static void kcpc_ctx_map_update(struct kcpc_file *cf, struct kcpc_ctx *ctx)
{
	spin_lock(&cf->map_lock);
	ctx->map_page = ctx->set ? ctx->page : NULL;
	spin_unlock(&cf->map_lock);
}

static void kcpc_ctx_destroy(struct kcpc_file *cf, struct kcpc_ctx *ctx)
{
	spin_lock(&cf->map_lock);
	hash_del(&ctx->node);
	cf->nctxs--;
	spin_unlock(&cf->map_lock);
	kcpc_ctx_drop_set(&ctx->set);
	kcpc_ctx_drop_set(&ctx->group);
	if (ctx->page) {
		/* A mapping keeps the page: leave it saying "unbound". */
		kcpc_page_write(ctx, 0, 0, NULL, 0);
		/*
		 * Ours alone (no mapping, no pin: each takes a reference,
		 * and none can be taken once the context is gone): keep it
		 * for the file's next bind, which a thread binding and
		 * releasing in a loop makes at once.
		 */
		if (!cf->spare_page && page_count(ctx->page) == 1)
			cf->spare_page = ctx->page;
		else
			__free_page(ctx->page);
	}
	put_pid(ctx->pid);
	put_task_struct(ctx->task);
	kfree(ctx);
}

/*
 * True once the thread of @ctx has exited.  A context belongs to the
 * thread, not to its thread id: when a thread other than the leader
 * execs, it takes over the leader's id (and the leader's context is the
 * stale one), but its own context lives on.
 */
static bool kcpc_ctx_stale(struct kcpc_ctx *ctx)
{
	return READ_ONCE(ctx->task->exit_state) != 0;
}

/*
 * Frees the contexts of threads that have exited.  Never called with
 * mmap_lock held (tearing down counters takes perf's locks).
 */
static void kcpc_reap(struct kcpc_file *cf)
{
	struct hlist_node *tmp;
	struct kcpc_ctx *ctx;
	unsigned int bkt;

	hash_for_each_safe(cf->ctxs, bkt, tmp, ctx, node)
		if (kcpc_ctx_stale(ctx))
			kcpc_ctx_destroy(cf, ctx);
}

/*
 * The context of @task, or NULL; the file lock (or, for a look-up only,
 * its map_lock) is held.  Frees nothing.
 */
static struct kcpc_ctx *kcpc_ctx_find(struct kcpc_file *cf,
				    struct task_struct *task)
{
	struct kcpc_ctx *ctx;

	hash_for_each_possible(cf->ctxs, ctx, node, hash_ptr(task, 32))
		if (ctx->task == task)
			return ctx;
	return NULL;
}

/*
 * True once the thread of @ctx no longer has the id it had at bind: a
 * thread other than the leader that execs takes the leader's id (and the
 * leader, ending, its old one).  The saved pid keeps the old number.
 */
static bool kcpc_ctx_renumbered(struct kcpc_ctx *ctx)
{
	bool moved;

	rcu_read_lock();
	moved = task_pid(ctx->task) != ctx->pid;
	rcu_read_unlock();
	return moved;
}

/**
 * kcpc_ctx_find_exited() - the thread of an exited context by its number
 * @cf: the file
 * @tid: a thread id in the caller's pid namespace that names no thread
 *	 any more, or another thread than the one it named at bind
 *
 * A thread's counts stay readable through the file that bound it after
 * the thread has exited and been reaped, as perf's do through their
 * file descriptors (libpctx reads the final counts of a process after
 * its exit): the file's context whose thread has exited, or has taken
 * another id by exec from a thread, and whose pid had that number.
 *
 * Return: a reference to the thread, or NULL.
 */
struct task_struct *kcpc_ctx_find_exited(struct kcpc_file *cf, pid_t tid)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct task_struct *task = NULL;
	struct kcpc_ctx *ctx;
	unsigned int bkt;

	mutex_lock(&cf->lock);
	hash_for_each(cf->ctxs, bkt, ctx, node) {
		if ((kcpc_ctx_stale(ctx) || kcpc_ctx_renumbered(ctx)) &&
		    pid_nr_ns(ctx->pid, ns) == tid) {
			task = ctx->task;
			get_task_struct(task);
			break;
		}
	}
	mutex_unlock(&cf->lock);
	return task;
}

static struct kcpc_ctx *kcpc_ctx_new(struct kcpc_file *cf,
				   struct task_struct *task)
{
	struct kcpc_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return NULL;
	get_task_struct(task);
	ctx->task = task;
	ctx->pid = get_task_pid(task, PIDTYPE_PID);
	raw_spin_lock_init(&ctx->page_lock);
	spin_lock(&cf->map_lock);
	hash_add(cf->ctxs, &ctx->node, hash_ptr(task, 32));
	cf->nctxs++;
	spin_unlock(&cf->map_lock);
	return ctx;
}

static void kcpc_ctx_put_if_empty(struct kcpc_file *cf, struct kcpc_ctx *ctx)
{
	if (!ctx->set && !ctx->group)
		kcpc_ctx_destroy(cf, ctx);
}

/* The number of kernel counters a bind creates. */
static unsigned int kcpc_bind_counters(const struct cpc_kbind *kb)
{
	unsigned int i, n = 0;

	for (i = 0; i < kb->nreqs; i++)
		if (kb->req[i].flags & (CPC_KREQ_USER | CPC_KREQ_SYSTEM))
			n++;
	return n;
}

/*
 * Rebases a set stopped by kcpc_set_halt() (@others_run: its result) and
 * runs it again: with @kb's presets and periods for a rebind in place,
 * the on-CPU time counted from now; with @kb NULL (RESTART) from the
 * presets again, the on-CPU time going on from where it stopped.  The
 * periods are set while the sampling counters are stopped: perf then
 * forgets what was left of the old period, and each counter starts a
 * whole new one when it runs again (as a new counter would).
 */
static void kcpc_set_resume(struct kcpc_ctx *ctx, struct kcpc_set *set,
			    const struct cpc_kbind *kb, bool others_run)
{
	u64 raw[CPC_KMOD_MAX_REQS], vals[CPC_KMOD_MAX_REQS], enabled;
	unsigned int i, first = CPC_KMOD_MAX_REQS;

	for (i = 0; i < set->nreqs && first == CPC_KMOD_MAX_REQS; i++)
		if (set->ev[i])
			first = i;
	kcpc_set_read_raw(set, false, raw, &enabled);
	if (kb)
		set->time_base = enabled;
	else if (kcpc_set_frozen_logically(set) && (int)first != set->ovf)
		/* That counter ran on while frozen: not on-CPU time. */
		set->time_base += enabled - set->frz_enabled;
	for (i = 0; i < set->nreqs; i++) {
		struct perf_event *ev = set->ev[i];

		if (kb)
			set->preset[i] = kb->req[i].preset;
		/* Rebased: every count reads its preset now. */
		vals[i] = set->preset[i];
		if (!ev)
			continue;
		set->base[i] = raw[i];
		/* A rebind's periods are set (kcpc_set_new_periods()). */
		if (!kb && set->period[i])
			kcpc_perf_period(ev, set->period[i]);
	}
	WRITE_ONCE(set->state, KCPC_SET_RUNNING);
	set->frz_logical = false;
	if (kb)
		ctx->updates = 0;
	kcpc_page_write(ctx, set->nreqs, 0, vals,
			first < CPC_KMOD_MAX_REQS ? enabled - set->time_base : 0);
	if (others_run)
		kcpc_perf_limit_arm(set->ev[set->ovf]);
	else
		kcpc_set_enable(set);
}

/*
 * Gives the stopped counters of @set the periods of @kb.  Where perf
 * refuses one, the periods set so far are put back and its error
 * returned: the rebind is not in place then.
 */
static int kcpc_set_new_periods(struct kcpc_set *set,
				const struct cpc_kbind *kb)
{
	unsigned int i, j;
	int err;

	for (i = 0; i < set->nreqs; i++) {
		if (!set->ev[i] || !set->period[i])
			continue;
		err = kcpc_perf_period(set->ev[i], kcpc_req_period(&kb->req[i]));
		if (err) {
			for (j = 0; j < i; j++)
				if (set->ev[j] && set->period[j])
					kcpc_perf_period(set->ev[j],
							 set->period[j]);
			return err;
		}
	}
	for (i = 0; i < set->nreqs; i++)
		if (set->ev[i])
			set->period[i] = kcpc_req_period(&kb->req[i]);
	return 0;
}

/*
 * Rebinds the context's set in place: the same counters with
 * @kb's presets and periods, running again (also after an overflow froze
 * them), the on-CPU time counted from now.  Far cheaper than new kernel
 * counters (the usual rebind in a SIGEMT handler).  Returns -EAGAIN,
 * with the counters stopped or untouched, when a new set is needed: other
 * events, an overflow whose signal is still to be sent, or a period perf
 * refuses to give a counter that exists (the new set's creation then
 * reports whether perf refuses it outright).  Called with the file lock
 * held.
 */
static int kcpc_set_rearm(struct kcpc_ctx *ctx, const struct cpc_kbind *kb)
{
	struct kcpc_set *set = ctx->set;
	bool others_run;

	if (!kcpc_set_same_events(set, kb))
		return -EAGAIN;
	kcpc_page_time_switch(ctx, set, false);
	others_run = kcpc_set_halt(set);
	/* No overflow path can start now; one that began owns the set. */
	if (READ_ONCE(set->state) == KCPC_SET_PENDING ||
	    test_bit(KCPC_SET_WORK_QUEUED, &set->work_flags)) {
		kcpc_page_time_switch(ctx, set, true);
		return -EAGAIN;
	}
	if (kcpc_set_new_periods(set, kb)) {
		/* Running again as it was; a frozen set stays stopped. */
		if (READ_ONCE(set->state) == KCPC_SET_RUNNING) {
			if (others_run)
				kcpc_perf_limit_arm(set->ev[set->ovf]);
			else
				kcpc_set_enable(set);
		}
		kcpc_page_time_switch(ctx, set, true);
		return -EAGAIN;
	}
	kcpc_set_resume(ctx, set, kb, others_run);
	kcpc_page_time_switch(ctx, set, true);
	kcpc_stat_inc(KCPC_STAT_REBINDS_IN_PLACE);
	return 0;
}

/**
 * kcpc_ctx_bind() - bind counters to a thread, or open its group aggregate
 * @cf: the file
 * @task: the thread (access already checked)
 * @kb: the validated requests
 * @group: CPC_KIOC_GROUP_OPEN rather than CPC_KIOC_BIND
 *
 * Replaces the thread's binding (or aggregate).  If the new counters
 * cannot be created, the old ones stay.
 *
 * Return: 0 or a negative errno.
 */
int kcpc_ctx_bind(struct kcpc_file *cf, struct task_struct *task,
		  const struct cpc_kbind *kb, bool group)
{
	u64 vals[CPC_KMOD_MAX_REQS], ontime;
	struct kcpc_set *set, **slot;
	struct kcpc_acct acct;
	struct kcpc_ctx *ctx;
	int err;

	mutex_lock(&cf->lock);
	/* The thread's own context alone: no other to reap (the usual
	 * rebind in place in a SIGEMT handler). */
	ctx = kcpc_ctx_find(cf, task);
	if (!ctx || cf->nctxs > 1) {
		kcpc_reap(cf);
		ctx = kcpc_ctx_find(cf, task);
	}
	if (!ctx) {
		ctx = kcpc_ctx_new(cf, task);
		if (!ctx) {
			err = -ENOMEM;
			goto out_unlock;
		}
	}
	slot = group ? &ctx->group : &ctx->set;
	if (!group && ctx->set && kcpc_set_rearm(ctx, kb) == 0) {
		mutex_unlock(&cf->lock);
		return 0;
	}
	if (group) {
		err = kcpc_inherit_check(task, kcpc_bind_counters(kb), *slot);
		if (err)
			goto out_ctx;
	}
	err = kcpc_acct_charge(&acct, cf->user, task, kcpc_bind_counters(kb),
			       *slot ? &(*slot)->acct : NULL);
	if (err)
		goto out_ctx;
	if (!group && !ctx->page) {
		/* A spare page says "unbound" (nreqs 0), its seq is even. */
		ctx->page = cf->spare_page ?:
			    alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		cf->spare_page = NULL;
		if (!ctx->page) {
			err = -ENOMEM;
			goto out_charge;
		}
	}

	set = kcpc_set_create(cf, task, kb, group);
	if (IS_ERR(set)) {
		err = PTR_ERR(set);
		goto out_charge;
	}
	set->acct = acct;
	kcpc_ctx_drop_set(slot);
	*slot = set;
	if (group)
		kcpc_inherit_add(set);
	set->ctx = ctx;
	kcpc_ctx_map_update(cf, ctx);

	if (kb->flags & CPC_KBIND_START_FROZEN)
		set->state = KCPC_SET_FROZEN;
	if (!group) {
		unsigned int i;

		for (i = 0; i < set->nreqs; i++)
			vals[i] = set->preset[i];
		ontime = 0;
		ctx->updates = 0;
		kcpc_page_write(ctx, set->nreqs, kcpc_set_flags(set), vals,
				ontime);
	}
	if (set->state == KCPC_SET_RUNNING) {
		kcpc_set_enable(set);
		err = task == current ? kcpc_set_check_scheduled(set) : 0;
		if (err) {
			kcpc_ctx_drop_set(slot);
			kcpc_ctx_map_update(cf, ctx);
			if (!group)
				kcpc_page_write(ctx, 0, 0, NULL, 0);
			kcpc_ctx_put_if_empty(cf, ctx);
			mutex_unlock(&cf->lock);
			return err;
		}
	}
	if (!group)
		kcpc_page_time_switch(ctx, set, true);
	mutex_unlock(&cf->lock);
	return 0;

out_charge:
	kcpc_acct_uncharge(&acct);
out_ctx:
	kcpc_ctx_put_if_empty(cf, ctx);
out_unlock:
	mutex_unlock(&cf->lock);
	return err;
}

/**
 * kcpc_ctx_sample() - read a thread's binding or group aggregate
 * @cf: the file
 * @task: the thread (access already checked)
 * @group: CPC_KIOC_GROUP_SAMPLE rather than CPC_KIOC_SAMPLE
 * @ks: receives nreqs, flags, ontime_ns and vals (the rest is untouched)
 *
 * Sampling a binding also updates its state page.
 *
 * Return: 0, -EINVAL if there is nothing to sample, or -EIO.
 */
int kcpc_ctx_sample(struct kcpc_file *cf, struct task_struct *task,
		    bool group, struct cpc_ksample *ks)
{
	struct kcpc_ctx *ctx;
	struct kcpc_set *set;
	int err = -EINVAL;

	mutex_lock(&cf->lock);
	ctx = kcpc_ctx_find(cf, task);
	set = ctx ? (group ? ctx->group : ctx->set) : NULL;
	if (set) {
		ks->nreqs = set->nreqs;
		if (group) {
			err = kcpc_set_read(set, ks->vals, &ks->ontime_ns);
		} else {
			kcpc_set_want_hook(ctx, set);
			ks->flags = kcpc_set_flags(set);
			err = kcpc_ctx_update_page(ctx, ks->vals,
						   &ks->ontime_ns);
		}
	}
	mutex_unlock(&cf->lock);
	return err;
}

/**
 * kcpc_ctx_rele() - drop a thread's binding or group aggregate
 * @cf: the file
 * @task: the thread (access already checked)
 * @group: CPC_KIOC_GROUP_CLOSE rather than CPC_KIOC_RELE
 *
 * Return: 0, or -EINVAL if there was nothing to drop.
 */
int kcpc_ctx_rele(struct kcpc_file *cf, struct task_struct *task, bool group)
{
	struct kcpc_ctx *ctx;
	int err = -EINVAL;

	mutex_lock(&cf->lock);
	ctx = kcpc_ctx_find(cf, task);
	if (ctx && (group ? ctx->group : ctx->set)) {
		if (group) {
			kcpc_ctx_drop_set(&ctx->group);
		} else {
			kcpc_ctx_drop_set(&ctx->set);
			kcpc_ctx_map_update(cf, ctx);
			kcpc_page_write(ctx, 0, 0, NULL, 0);
		}
		kcpc_ctx_put_if_empty(cf, ctx);
		err = 0;
	}
	mutex_unlock(&cf->lock);
	return err;
}

/**
 * kcpc_ctx_restart() - restart a thread's binding from its presets
 * @cf: the file
 * @task: the thread (access already checked)
 *
 * The counts read as the presets again, overflow periods are re-armed and
 * the counters run, whether or not they were frozen.  An overflow whose
 * signal is still to be sent (another thread's RESTART racing it) is
 * not swallowed: the set stays stopped, the task work freezes it and
 * sends SIGEMT, and the handler's own restart runs it again.
 *
 * Return: 0, or -EINVAL if the thread is not bound.
 */
int kcpc_ctx_restart(struct kcpc_file *cf, struct task_struct *task)
{
	struct kcpc_ctx *ctx;
	struct kcpc_set *set;
	bool others_run;

	mutex_lock(&cf->lock);
	ctx = kcpc_ctx_find(cf, task);
	set = ctx ? ctx->set : NULL;
	if (!set) {
		mutex_unlock(&cf->lock);
		return -EINVAL;
	}

	kcpc_page_time_switch(ctx, set, false);
	others_run = kcpc_set_halt(set);
	/* No overflow path can start now; one that began owns the set. */
	if (READ_ONCE(set->state) != KCPC_SET_PENDING &&
	    !test_bit(KCPC_SET_WORK_QUEUED, &set->work_flags))
		kcpc_set_resume(ctx, set, NULL, others_run);
	kcpc_page_time_switch(ctx, set, true);
	mutex_unlock(&cf->lock);
	return 0;
}

/**
 * kcpc_ctx_notifies() - does a thread's binding notify overflows?
 * @cf: the file
 * @task: the thread
 *
 * Return: true if the file binds @task with a request that does.
 */
bool kcpc_ctx_notifies(struct kcpc_file *cf, struct task_struct *task)
{
	struct kcpc_ctx *ctx;
	bool ret = false;
	unsigned int i;

	mutex_lock(&cf->lock);
	ctx = kcpc_ctx_find(cf, task);
	if (ctx && ctx->set)
		for (i = 0; i < ctx->set->nreqs; i++)
			if (ctx->set->period[i])
				ret = true;
	mutex_unlock(&cf->lock);
	return ret;
}

/**
 * kcpc_ctx_mmap() - map the calling thread's state page
 * @cf: the file
 * @vma: a checked one-page, read-only, shared mapping at offset 0
 *
 * Called with mmap_lock held, so it takes the file's map_lock and not
 * its lock: binding holds the file lock while it takes perf's context
 * mutex, under which perf's read() copies to user space and may fault
 * (mmap_lock).  A reference held across vm_insert_page() keeps the page
 * alive should the context go meanwhile.
 *
 * Return: 0, -EINVAL if the calling thread is not bound, or the error of
 * vm_insert_page().
 */
int kcpc_ctx_mmap(struct kcpc_file *cf, struct vm_area_struct *vma)
{
	struct kcpc_ctx *ctx;
	struct page *page = NULL;
	int err;

	spin_lock(&cf->map_lock);
	ctx = kcpc_ctx_find(cf, current);
	if (ctx && ctx->map_page) {
		page = ctx->map_page;
		get_page(page);
		/* Set before the insertion: a page that may be mapped is
		 * never made a spare, and the hook may be made for it. */
		WRITE_ONCE(ctx->mapped, true);
	}
	spin_unlock(&cf->map_lock);
	if (!page)
		return -EINVAL;
	err = vm_insert_page(vma, vma->vm_start, page);
	put_page(page);
	return err;
}

/**
 * kcpc_file_destroy() - free every context of a released file
 * @cf: the file's state; no task work of it can be pending (each holds a
 *	file reference)
 */
void kcpc_file_destroy(struct kcpc_file *cf)
{
	struct hlist_node *tmp;
	struct kcpc_ctx *ctx;
	unsigned int bkt;

	mutex_lock(&cf->lock);
	hash_for_each_safe(cf->ctxs, bkt, tmp, ctx, node)
		kcpc_ctx_destroy(cf, ctx);
	if (cf->spare_page)
		__free_page(cf->spare_page);
	cf->spare_page = NULL;
	mutex_unlock(&cf->lock);
	mutex_destroy(&cf->lock);
}
