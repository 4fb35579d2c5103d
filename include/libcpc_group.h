/* SPDX-License-Identifier: MIT */
/*
 * libcpc for Linux extension: the aggregate counts of an inheritance
 * group.
 *
 * When an LWP binds with CPC_BIND_LWP_INHERIT, every LWP it (or an LWP
 * that inherited from it) creates afterwards gets its own context, as on
 * Solaris.  Beyond Solaris, the binding LWP can also read the sums of the
 * group: its own counts plus those of every LWP that inherited from it,
 * live or exited, in the way perfctr folds children's counts into the
 * parent.  See cpc_take_group_sample(3CPC).
 *
 * libcpc interposes pthread_create(3) (declared in <pthread.h>) and
 * interposes thrd_create(3) (<threads.h>) to give new threads their
 * inherited contexts.
 */
#ifndef _LIBCPC_GROUP_H
#define _LIBCPC_GROUP_H

#include <libcpc.h>
#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fills ce_pic[] with the events counted by the calling LWP's inheritance
 * group since it was bound (presets not included), ce_tsc with the
 * group's summed on-CPU ticks and ce_hrt with gethrtime().  The calling
 * LWP must be the one that bound with CPC_BIND_LWP_INHERIT.
 */
extern int cpc_take_group_sample(cpc_event_t *event);

#ifdef __cplusplus
}
#endif

#endif /* _LIBCPC_GROUP_H */
