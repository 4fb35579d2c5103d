/* SPDX-License-Identifier: MIT */
/*
 * Solaris <sys/processor.h> for Linux: processor_bind(2) and p_online(2),
 * which programs counting on a whole processor use to bind themselves
 * to it and to walk the online processors.  They work on the Linux
 * scheduler affinity (sched_setaffinity) and on sysfs; see
 * processor_bind(2) in libcpc's manual pages.
 *
 * Part of libcpc for Linux (-lcpc).
 */
#ifndef _SYS_PROCESSOR_H
#define _SYS_PROCESSOR_H

#include <sys/types.h>
#include <sys/procset.h>
#include <sys/cpc_solaris.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Processor states, and the p_online() request for the state. */
#define P_OFFLINE 0x0001
#define P_ONLINE 0x0002
#define P_STATUS 0x0003
#define P_FAULTED 0x0004
#define P_POWEROFF 0x0005
#define P_NOINTR 0x0006
#define P_SPARE 0x0007
#define P_BAD P_FAULTED
#define P_DISABLED 0x0008
#define P_FORCED 0x10000000

/* processor_bind() targets that are not processors. */
#define PBIND_NONE (-1)	 /* unbind */
#define PBIND_QUERY (-2) /* only report the current binding */

extern int processor_bind(idtype_t idtype, id_t id,
    processorid_t processorid, processorid_t *obind);
extern int p_online(processorid_t processorid, int flag);

#ifdef __cplusplus
}
#endif

#endif /* _SYS_PROCESSOR_H */
