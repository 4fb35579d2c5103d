/* SPDX-License-Identifier: MIT */
/*
 * gethrtime() and hrtime_t alone, which Solaris declares in <sys/time.h>:
 * for the <sys/time.h> of libcpc's Solaris header overlay
 * (include/solaris, "pkg-config --cflags libcpc-solaris"), and for
 * <sys/cpc_solaris.h>.  Needs nothing else of libcpc's headers.
 *
 * A program that defines hrtime_t itself as a macro (uperf's configure
 * does, "#define hrtime_t uint64_t") keeps its own.
 *
 * Part of libcpc for Linux (-lcpc).
 */
#ifndef _SYS_CPC_GETHRTIME_H
#define _SYS_CPC_GETHRTIME_H

#ifdef __cplusplus
extern "C" {
#endif

#if !defined(hrtime_t) && !defined(_LIBCPC_HRTIME_T_DEFINED)
#define _LIBCPC_HRTIME_T_DEFINED
/* Signed 64-bit nanoseconds, as on Solaris. */
typedef long long hrtime_t;
#endif

/* Monotonic high-resolution time in nanoseconds (CLOCK_MONOTONIC). */
#ifndef gethrtime
extern hrtime_t gethrtime(void);
#endif

#ifdef __cplusplus
}
#endif

#endif /* _SYS_CPC_GETHRTIME_H */
