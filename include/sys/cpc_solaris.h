/* SPDX-License-Identifier: MIT */
/*
 * Solaris base types and small shims needed by <libcpc.h> and by programs
 * written for Solaris libcpc: uint_t, hrtime_t, processorid_t, gethrtime(),
 * _lwp_self(), SIGEMT and EMT_CPCOVF.
 *
 * Part of libcpc for Linux.
 */
#ifndef _SYS_CPC_SOLARIS_H
#define _SYS_CPC_SOLARIS_H

#include <sys/types.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef _LIBCPC_UINT_T_DEFINED
#define _LIBCPC_UINT_T_DEFINED
typedef unsigned int uint_t;
#endif

#ifndef _LIBCPC_HRTIME_T_DEFINED
#define _LIBCPC_HRTIME_T_DEFINED
/* Signed 64-bit nanoseconds, as on Solaris. */
typedef long long hrtime_t;
#endif

#ifndef _LIBCPC_PROCESSORID_T_DEFINED
#define _LIBCPC_PROCESSORID_T_DEFINED
typedef int processorid_t;
#endif

/*
 * SIGEMT does not exist on Linux/x86 (signal 7 is SIGBUS there).  libcpc
 * delivers counter-overflow notification on SIGSTKFLT (16), which neither
 * the kernel nor glibc nor common language runtimes raise on x86.  It is a
 * classic (non-queued) signal like Solaris SIGEMT, and a compile-time
 * constant, so it may appear in switch labels.  Applications must not use
 * SIGSTKFLT for anything else.
 *
 * libcpc interposes sigaction, signal, bsd_signal, sysv_signal,
 * __sysv_signal and sigset (declared in <signal.h>) so that its SIGEMT
 * handler stays in front of the application's action, set before or
 * after a bind; see cpc_bind_event(3CPC).
 */
#ifndef SIGEMT
#define SIGEMT 16
#endif

/* si_code of an overflow SIGEMT (Solaris <sys/machsig.h>, x86). */
#ifndef EMT_CPCOVF
#define EMT_CPCOVF 1
#endif

/* Monotonic high-resolution time in nanoseconds (CLOCK_MONOTONIC). */
#ifndef gethrtime
extern hrtime_t gethrtime(void);
#endif

/* The kernel thread id of the caller (Linux gettid()). */
#ifndef _lwp_self
extern __id_t _lwp_self(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* _SYS_CPC_SOLARIS_H */
