/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-thread counter contexts of /dev/cpc.
 */
#ifndef CPC_CTX_H
#define CPC_CTX_H

#include <linux/atomic.h>
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

/* Solaris' SIGEMT is SIGSTKFLT (16) on x86 Linux; si_code EMT_CPCOVF. */
#define CPC_SIGEMT	SIGSTKFLT
#define CPC_EMT_CPCOVF	1

struct file;
struct page;
struct perf_event;
struct task_struct;
struct vm_area_struct;
struct cpc_user;

/**
 * struct cpc_file - the state of one open file of /dev/cpc
 * @lock: serialises everything below and every context of the file
 * @ctxs: the per-thread contexts, hashed by their thread
 * @file: the file (no reference: the file owns this structure)
 * @user: the opener's context accounting
 * @spare_page: a state page no one maps, kept from a destroyed context
 *		for the next bind (or NULL)
 * @nctxs: the number of contexts in @ctxs
 */
struct cpc_file {
	struct mutex lock;
	spinlock_t map_lock;
	DECLARE_HASHTABLE(ctxs, 6);
	struct file *file;
	struct cpc_user *user;
	struct page *spare_page;
	unsigned int nctxs;
};

/* Values of cpc_set.state. */
enum cpc_set_state {
	CPC_SET_RUNNING,	/* counting */
	CPC_SET_PENDING,	/* overflowed; the task work will freeze it */
	CPC_SET_FROZEN,		/* stopped until the next bind or restart */
};

/* Bits of cpc_set.work_flags. */
#define CPC_SET_WORK_QUEUED	0

/**
 * struct cpc_set - one binding (or group aggregate) of a thread
 * @ref: references: the context while the set is installed, plus one
 *	 for a queued task work
 * @file: the owning file (no reference of its own, see cpc_ctx.c)
 * @ctx: the context the set is installed in, NULL once torn down
 * @task: the counted thread (a reference)
 * @dead: set (under the file lock) when torn down; the overflow paths
 *	  then leave the set alone
 * @busy: overflow paths running on the set (see cpc_set_teardown())
 * @state: a cpc_set_state
 * @work_flags: CPC_SET_WORK_QUEUED while @work is queued
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
struct cpc_set {
	refcount_t ref;
	struct file *file;
	struct cpc_ctx *ctx;
	struct task_struct *task;
	bool dead;
	atomic_t busy;
	int state;
	unsigned long work_flags;
	struct cpc_acct acct;
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
 * struct cpc_ctx - the context of one thread in one file
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
 *	      file lock (see cpc_ctx_mmap())
 */
struct cpc_ctx {
	struct hlist_node node;
	struct task_struct *task;
	struct cpc_set *set;
	struct cpc_set *group;
	struct page *page;
	raw_spinlock_t page_lock;
	u64 updates;
	bool mapped;
	struct page *map_page;
};

void cpc_file_init(struct cpc_file *cf, struct file *file,
		   struct cpc_user *user);
void cpc_file_destroy(struct cpc_file *cf);

int cpc_ctx_bind(struct cpc_file *cf, struct task_struct *task,
		 const struct cpc_kbind *kb, bool group);
int cpc_ctx_sample(struct cpc_file *cf, struct task_struct *task,
		   bool group, struct cpc_ksample *ks);
int cpc_ctx_rele(struct cpc_file *cf, struct task_struct *task, bool group);
int cpc_ctx_restart(struct cpc_file *cf, struct task_struct *task);
int cpc_ctx_mmap(struct cpc_file *cf, struct vm_area_struct *vma);
bool cpc_probe_hw_pmu(void);
void cpc_read_stats(u64 *self, u64 *self_time, u64 *stopped);
bool cpc_page_time_possible(void);
bool cpc_page_cpu_clock(void);
void cpc_page_stats(u64 *sched_ins, u64 *early, u64 *hooks);
u64 cpc_rearm_count(void);
u64 cpc_logical_freezes(void);
extern bool cpc_quick_reads;
extern bool cpc_logical_freeze;

#endif /* CPC_CTX_H */
