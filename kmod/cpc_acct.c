// SPDX-License-Identifier: GPL-2.0-only
/*
 * Resource limits of /dev/cpc.
 *
 * Every set (a binding or a group aggregate) is charged to the user who
 * opened its file (max_contexts sets and max_events counters per user)
 * and to the thread it counts (max_sets_per_thread sets, whoever opened
 * the files), so that no user can hang an unbounded number of kernel
 * counters on one thread or on the system.  Counters that perf copies
 * into the threads a group aggregate follows are perf's own and are not
 * charged.  The module's memory is charged to the caller's memory cgroup
 * (__GFP_ACCOUNT) where it is allocated.
 */
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cpc_acct.h"

/**
 * struct kcpc_user - the sets of one user (the opener of files)
 * @node: in kcpc_users
 * @uid: the user
 * @files: open files of the user
 * @nsets: sets (bindings and group aggregates) of those files
 * @nev: counters of those sets
 */
struct kcpc_user {
	struct hlist_node node;
	kuid_t uid;
	unsigned int files;
	unsigned int nsets;
	unsigned int nev;
};

/**
 * struct kcpc_thread - the sets counting one thread, of all files
 * @node: in kcpc_threads
 * @task: the thread (each set holds a reference of its own)
 * @nsets: the sets
 */
struct kcpc_thread {
	struct hlist_node node;
	struct task_struct *task;
	unsigned int nsets;
};

/* The limits: module parameters (cpc_main.c). */
unsigned int kcpc_max_contexts = 1024;
unsigned int kcpc_max_events = 4096;
unsigned int kcpc_max_sets_per_thread = 16;

static DEFINE_HASHTABLE(kcpc_users, 6);
static DEFINE_HASHTABLE(kcpc_threads, 8);
static DEFINE_SPINLOCK(kcpc_acct_lock);
static atomic_t kcpc_nr_sets = ATOMIC_INIT(0);

/**
 * kcpc_contexts_in_use() - number of sets of all files
 *
 * Return: bindings plus group aggregates currently set up.
 */
int kcpc_contexts_in_use(void)
{
	return atomic_read(&kcpc_nr_sets);
}

/**
 * kcpc_user_get() - find or create the accounting of a user for a new file
 * @uid: the opener
 *
 * Return: the accounting, or NULL when out of memory.
 */
struct kcpc_user *kcpc_user_get(kuid_t uid)
{
	struct kcpc_user *user, *new;
	u32 key = from_kuid(&init_user_ns, uid);

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;

	spin_lock(&kcpc_acct_lock);
	hash_for_each_possible(kcpc_users, user, node, key) {
		if (uid_eq(user->uid, uid)) {
			user->files++;
			spin_unlock(&kcpc_acct_lock);
			kfree(new);
			return user;
		}
	}
	new->uid = uid;
	new->files = 1;
	hash_add(kcpc_users, &new->node, key);
	spin_unlock(&kcpc_acct_lock);
	return new;
}

/**
 * kcpc_user_put() - drop the accounting of a closed file
 * @user: from kcpc_user_get(); the file's sets are gone
 */
void kcpc_user_put(struct kcpc_user *user)
{
	bool last;

	spin_lock(&kcpc_acct_lock);
	last = --user->files == 0;
	if (last) {
		WARN_ON_ONCE(user->nsets || user->nev);
		hash_del(&user->node);
	}
	spin_unlock(&kcpc_acct_lock);
	if (last)
		kfree(user);
}

static struct kcpc_thread *kcpc_thread_find(struct task_struct *task)
{
	struct kcpc_thread *thr;

	hash_for_each_possible(kcpc_threads, thr, node, hash_ptr(task, 32))
		if (thr->task == task)
			return thr;
	return NULL;
}

/**
 * kcpc_acct_charge() - charge a new set, within the limits
 * @acct: receives the charge
 * @user: the opener of the set's file
 * @task: the thread the set counts
 * @nev: its counters
 * @old: the charge of the set the new one replaces (same file and
 *	 thread), or NULL; it stays charged until uncharged, but the limits
 *	 are checked as if it were gone
 *
 * Return: 0, -EAGAIN past a limit, or -ENOMEM.
 */
int kcpc_acct_charge(struct kcpc_acct *acct, struct kcpc_user *user,
		     struct task_struct *task, unsigned int nev,
		     const struct kcpc_acct *old)
{
	unsigned int old_sets = old ? 1 : 0, old_nev = old ? old->nev : 0;
	struct kcpc_thread *thr, *new;
	int err = 0;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;

	spin_lock(&kcpc_acct_lock);
	thr = kcpc_thread_find(task);
	if (!thr) {
		thr = new;
		new = NULL;
		thr->task = task;
		hash_add(kcpc_threads, &thr->node, hash_ptr(task, 32));
	}
	if (user->nsets - old_sets >= READ_ONCE(kcpc_max_contexts) ||
	    user->nev - old_nev + nev > READ_ONCE(kcpc_max_events) ||
	    thr->nsets - old_sets >= READ_ONCE(kcpc_max_sets_per_thread)) {
		err = -EAGAIN;
		if (!thr->nsets) {
			hash_del(&thr->node);
			new = thr;
		}
	} else {
		user->nsets++;
		user->nev += nev;
		thr->nsets++;
		acct->user = user;
		acct->thread = thr;
		acct->nev = nev;
		atomic_inc(&kcpc_nr_sets);
	}
	spin_unlock(&kcpc_acct_lock);
	kfree(new);
	return err;
}

/**
 * kcpc_acct_uncharge() - give back what a set was charged with
 * @acct: from kcpc_acct_charge()
 */
void kcpc_acct_uncharge(struct kcpc_acct *acct)
{
	struct kcpc_thread *thr = acct->thread;
	bool last;

	spin_lock(&kcpc_acct_lock);
	acct->user->nsets--;
	acct->user->nev -= acct->nev;
	last = --thr->nsets == 0;
	if (last)
		hash_del(&thr->node);
	spin_unlock(&kcpc_acct_lock);
	atomic_dec(&kcpc_nr_sets);
	if (last)
		kfree(thr);
	acct->thread = NULL;
}
