/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Resource limits of /dev/cpc: sets and counters per user, sets per
 * thread.
 */
#ifndef CPC_ACCT_H
#define CPC_ACCT_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct task_struct;
struct cpc_user;
struct cpc_thread;

/* Limits (module parameters, defined in cpc_main.c). */
extern unsigned int cpc_max_contexts;
extern unsigned int cpc_max_events;
extern unsigned int cpc_max_sets_per_thread;

/**
 * struct cpc_acct - what one set is charged with
 * @user: the user who opened the set's file
 * @thread: the counted thread's entry
 * @nev: counters of the set
 */
struct cpc_acct {
	struct cpc_user *user;
	struct cpc_thread *thread;
	unsigned int nev;
};

struct cpc_user *cpc_user_get(kuid_t uid);
void cpc_user_put(struct cpc_user *user);

int cpc_acct_charge(struct cpc_acct *acct, struct cpc_user *user,
		    struct task_struct *task, unsigned int nev,
		    const struct cpc_acct *old);
void cpc_acct_uncharge(struct cpc_acct *acct);
int cpc_contexts_in_use(void);

#endif /* CPC_ACCT_H */
