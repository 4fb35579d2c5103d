/* SPDX-License-Identifier: MIT */
/*
 * Solaris <sys/pset.h> for Linux: the query forms of pset_bind(2) and
 * pset_assign(2).  Linux has no Solaris processor sets, so every LWP and
 * every processor is in none: the queries answer PS_NONE, and requests
 * naming a set fail with EINVAL (no such set).
 *
 * Part of libcpc for Linux (-lcpc).
 */
#ifndef _SYS_PSET_H
#define _SYS_PSET_H

#include <sys/types.h>
#include <sys/procset.h>
#include <sys/cpc_solaris.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int psetid_t;

#define PS_NONE (-1)
#define PS_QUERY (-2)
#define PS_MYID (-3)

extern int pset_bind(psetid_t pset, idtype_t idtype, id_t id,
    psetid_t *opset);
extern int pset_assign(psetid_t pset, processorid_t cpu, psetid_t *opset);

#ifdef __cplusplus
}
#endif

#endif /* _SYS_PSET_H */
