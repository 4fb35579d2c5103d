/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The structures of /dev/cpc that its files share: an open file, the
 * per-thread contexts of a file, and the sets of counters of a context.
 */
#ifndef KCPC_H
#define KCPC_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/hashtable.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/signal.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "cpc_acct.h"
#include "uapi/cpc_kmod.h"

struct file;
struct page;
struct perf_event;
struct task_struct;
struct kcpc_user;

/**
 * struct kcpc_file - the state of one open file of /dev/cpc
 * @lock: serialises everything below and every context of the file
 * @ctxs: the per-thread contexts, hashed by their thread
 * @file: the file (no reference: the file owns this structure)
 * @user: the opener's context accounting
 * @spare_page: a state page no one maps, kept from a destroyed context
 *		for the next bind (or NULL)
 * @nctxs: the number of contexts in @ctxs
 */
struct kcpc_file {
	struct mutex lock;
	spinlock_t map_lock;
	DECLARE_HASHTABLE(ctxs, 6);
	struct file *file;
	struct kcpc_user *user;
	struct page *spare_page;
	unsigned int nctxs;
};

/* Values of kcpc_set.state. */
enum kcpc_set_state {
	KCPC_SET_RUNNING,	/* counting */
	KCPC_SET_PENDING,	/* overflowed; the task work will freeze it */
	KCPC_SET_FROZEN,		/* stopped until the next bind or restart */
};

/* Bits of kcpc_set.work_flags. */
#define KCPC_SET_WORK_QUEUED	0

/**
 * struct kcpc_set - one binding (or group aggregate) of a thread
 * @ref: references: the context while the set is installed, plus one
 *	 for a queued task work
 * @file: the owning file (no reference of its own, see cpc_ctx.c)
 * @ctx: the context the set is installed in, NULL once torn down
 * @task: the counted thread (a reference)
 * @dead: set (under the file lock) when torn down; the overflow paths
 *	  then leave the set alone
 * @busy: overflow paths running on the set (see kcpc_set_teardown())
 * @state: a kcpc_set_state
 * @work_flags: KCPC_SET_WORK_QUEUED while @work is queued
 * @acct: what the set is charged with (cpc_acct.c)
 * @exec_id: the thread's self_exec_id at bind: no signal after an exec
 * @pc: the user PC at the last overflow
 * @nreqs: number of requests
 * @ev: the kernel counters; NULL for a request that counts nothing
 * @preset: the presets
 * @base: raw counts subtracted from the counts (set at restart)
 * @time_base: enabled time subtracted from the on-CPU time (set when
 *	       rebound in place)
 * @period: sample period of each counter, 0 if it does not sample
 * @kind: each request's CPC_KEV_* kind, as asked: perf rewrites a clock
 *	  counter's attr.type to its clock PMU's own type on some kernels
 * @task_clock: the requests that ask for task-clock (bit i: request i)
 * @cpu_clock: the requests that ask for cpu-clock
 * @sched_ev: the scheduler hook's event (cpc_sched.c), created at the
 *	      first sample of the thread's own binding once its state page
 *	      is mapped, or NULL
 * @hook_tried: the hook was asked for (it is not asked for twice)
 * @page_time: the hook may publish the page's time base (under the
 *	       context's page_lock)
 * @ovf: the request whose counter stops itself at its overflow (perf's
 *	 event limit) and is the only one re-armed at a restart after a
 *	 logical freeze (see "Freezing" in cpc_ctx.c), or -1
 * @hw_off: every counter is disabled in perf (created so, or frozen or
 *	    stopped as a whole)
 * @frz_logical: the overflow that made the set PENDING took @frz_raw
 *		 and @frz_enabled: the counters other than @ovf's still run
 *		 in perf while the set is frozen
 * @frz_raw: raw counts of the counters other than @ovf's at the overflow
 * @frz_enabled: the first counter's enabled time at the overflow (when it
 *		 is not @ovf's)
 * @work: the task work that freezes the set and sends the signal
 * @kick: irq work that queues @work after an overflow in NMI context
 * @rcu: frees the set after a grace period
 */
struct kcpc_set {
	refcount_t ref;
	struct file *file;
	struct kcpc_ctx *ctx;
	struct task_struct *task;
	bool dead;
	atomic_t busy;
	int state;
	unsigned long work_flags;
	struct kcpc_acct acct;
	u64 exec_id;
	unsigned long pc;
	unsigned int nreqs;
	struct perf_event *ev[CPC_KMOD_MAX_REQS];
	u64 preset[CPC_KMOD_MAX_REQS];
	u64 base[CPC_KMOD_MAX_REQS];
	u64 time_base;
	u64 period[CPC_KMOD_MAX_REQS];
	u32 kind[CPC_KMOD_MAX_REQS];
	u32 task_clock;
	u32 cpu_clock;
	struct perf_event *sched_ev;
	bool hook_tried;
	bool page_time;
	int ovf;
	bool hw_off;
	bool frz_logical;
	u64 frz_raw[CPC_KMOD_MAX_REQS];
	u64 frz_enabled;
	struct callback_head work;
	struct irq_work kick;
	struct rcu_head rcu;
};

/**
 * struct kcpc_ctx - the context of one thread in one file
 * @node: in the file's ctxs
 * @task: the thread (a reference): the key
 * @set: the binding, or NULL
 * @group: the group aggregate, or NULL
 * @page: the state page (struct cpc_kpage), allocated at the first bind
 * @page_lock: serialises the page's writers: the file's ioctls and the
 *	       scheduler hook (interrupts off, perf's context lock held)
 * @updates: updates of the state page since the last bind
 * @mapped: the page has been mapped (the hook may be worth its cost)
 * @map_page: the page mmap may map (the thread's binding's), or NULL;
 *	      read under the file's map_lock, which mmap takes instead of the
 *	      file lock (see kcpc_ctx_mmap())
 */
struct kcpc_ctx {
	struct hlist_node node;
	struct task_struct *task;
	struct kcpc_set *set;
	struct kcpc_set *group;
	struct page *page;
	raw_spinlock_t page_lock;
	u64 updates;
	bool mapped;
	struct page *map_page;
};

/*
 * Does request @i of @set count a clock, whose overflows come from an
 * hrtimer?  From the request, not the counter: on Linux 6.12 (at least)
 * perf rewrites a clock counter's attr.type to the type of the clock's
 * own PMU.
 */
static inline bool kcpc_is_timer(const struct kcpc_set *set, unsigned int i)
{
	return (set->task_clock | set->cpu_clock) & BIT(i);
}

#endif /* KCPC_H */
