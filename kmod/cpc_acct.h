/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Resource limits of /dev/cpc: sets and counters per user, sets per
 * thread.
 */
#ifndef KCPC_ACCT_H
#define KCPC_ACCT_H

#include <linux/types.h>
#include <linux/uidgid.h>

struct task_struct;
struct kcpc_user;
struct kcpc_thread;

/* Limits (module parameters of cpc_main.c). */
extern unsigned int kcpc_max_contexts;
extern unsigned int kcpc_max_events;
extern unsigned int kcpc_max_sets_per_thread;

/**
 * struct kcpc_acct - what one set is charged with
 * @user: the user who opened the set's file
 * @thread: the counted thread's entry
 * @nev: counters of the set
 */
struct kcpc_acct {
	struct kcpc_user *user;
	struct kcpc_thread *thread;
	unsigned int nev;
};

struct kcpc_user *kcpc_user_get(kuid_t uid);
void kcpc_user_put(struct kcpc_user *user);

int kcpc_acct_charge(struct kcpc_acct *acct, struct kcpc_user *user,
		     struct task_struct *task, unsigned int nev,
		     const struct kcpc_acct *old);
void kcpc_acct_uncharge(struct kcpc_acct *acct);
int kcpc_contexts_in_use(void);

#endif /* KCPC_ACCT_H */
