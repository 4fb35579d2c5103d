/* SPDX-License-Identifier: MIT */
/*
 * Solaris <sys/lwp.h>, the part user programs include it for:
 * _lwp_self(), the calling LWP's id (here the Linux thread id, gettid()),
 * exported by libcpc (-lcpc).
 *
 * Part of libcpc for Linux.
 */
#ifndef _SYS_LWP_H
#define _SYS_LWP_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef _lwp_self
extern __id_t _lwp_self(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* _SYS_LWP_H */
