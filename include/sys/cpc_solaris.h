/* SPDX-License-Identifier: MIT */
/*
 * Solaris base types and small shims needed by <libcpc.h> and by programs
 * written for Solaris libcpc: uint_t, hrtime_t, processorid_t, gethrtime()
 * (also alone in <sys/cpc_gethrtime.h>), _lwp_self() (also in <sys/lwp.h>),
 * sigset(), SIGEMT and EMT_CPCOVF.
 *
 * Part of libcpc for Linux.
 */
#ifndef _SYS_CPC_SOLARIS_H
#define _SYS_CPC_SOLARIS_H

#include <sys/types.h>
#include <signal.h>
#include <stdint.h>
#include <sys/cpc_gethrtime.h>
#include <sys/lwp.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The Solaris types, unless the program has them as macros of its own
 * (configure scripts that found none on Linux define them so).
 */
#if !defined(uint_t) && !defined(_LIBCPC_UINT_T_DEFINED)
#define _LIBCPC_UINT_T_DEFINED
typedef unsigned int uint_t;
#endif

#if !defined(processorid_t) && !defined(_LIBCPC_PROCESSORID_T_DEFINED)
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

/*
 * System V sigset(), which libcpc interposes (above) and Solaris declares
 * in <signal.h>: the C library declares it only for X/Open programs
 * (_XOPEN_SOURCE >= 500, _GNU_SOURCE).  SIG_HOLD likewise.
 */
#ifndef __USE_XOPEN_EXTENDED
extern __sighandler_t sigset(int __sig, __sighandler_t __disp) __THROW;
#endif
#ifndef SIG_HOLD
#define SIG_HOLD ((__sighandler_t)2)
#endif

/*
 * gethrtime() (<sys/cpc_gethrtime.h>; Solaris <sys/time.h>) and
 * _lwp_self(), the kernel thread id of the caller (<sys/lwp.h>).
 */

#ifdef __cplusplus
}
#endif

#endif /* _SYS_CPC_SOLARIS_H */
