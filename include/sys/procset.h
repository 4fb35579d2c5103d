/* SPDX-License-Identifier: MIT */
/*
 * Solaris <sys/procset.h>, the part that processor_bind(2) and
 * pset_bind(2) callers use: idtype_t with P_PID and P_LWPID, and P_MYID.
 * idtype_t is glibc's own (the type of waitid()), so this header and
 * <sys/wait.h> can be included together; P_LWPID is an extra value
 * (Solaris's) that waitid() does not know.
 *
 * Part of libcpc for Linux.
 */
#ifndef _SYS_PROCSET_H
#define _SYS_PROCSET_H

#include <sys/types.h>
#include <sys/wait.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef __id_t_defined /* glibc's guard: strict modes leave it out */
#define __id_t_defined
typedef __id_t id_t;
#endif

#ifndef __idtype_t_defined
#define __idtype_t_defined
/* The same type and values as glibc's <bits/types/idtype_t.h>. */
typedef enum { P_ALL, P_PID, P_PGID, P_PIDFD } idtype_t;
#endif

/* An LWP (thread) of the calling process. */
#ifndef P_LWPID
#define P_LWPID ((idtype_t)8)
#endif

/* "The caller": the calling process for P_PID, LWP for P_LWPID. */
#ifndef P_MYID
#define P_MYID (-1)
#endif

#ifdef __cplusplus
}
#endif

#endif /* _SYS_PROCSET_H */
