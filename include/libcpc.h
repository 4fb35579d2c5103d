/*
 * libcpc: CPU performance counters (Solaris <libcpc.h>), for Linux.
 *
 * Declares the version 1 interfaces (cpc_event_t, cpc_bind_event, ...) on
 * every x86 ABI, with the complete cpc_event_t of Solaris 8/9.
 */
#ifndef _LIBCPC_H
#define _LIBCPC_H

#include <sys/types.h>
#include <sys/cpc_impl.h>
#include <inttypes.h>
#include <libpctx.h>
#include <stdarg.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <sys/cpc_solaris.h>
#include <sys/cpc_event.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CPC_VER_NONE 0
#define CPC_VER_CURRENT 2

/* cpuver values (cpc_getcpuver). */
#define CPC_ULTRA1 1000
#define CPC_ULTRA2 1001
#define CPC_ULTRA3 1002
#define CPC_ULTRA3_PLUS 1003
#define CPC_ULTRA3_I 1004
#define CPC_ULTRA4_PLUS 1005
#define CPC_PENTIUM 2000
#define CPC_PENTIUM_MMX 2001
#define CPC_PENTIUM_PRO 2002
#define CPC_PENTIUM_PRO_MMX 2003
#define CPC_SPARC64_III 3000
#define CPC_SPARC64_V 3002
/* Linux port: any AMD or Hygon x86-64 processor (AMD platform names). */
#define CPC_AMD64 2500
/* Linux port: any other processor, through Linux perf_event names only. */
#define CPC_LINUX_PERF 4000

typedef void(cpc_errfn_t)(const char *fn, const char *fmt, va_list ap);

/*
 * Version 1 interfaces.  The __id_t spelling is glibc's name of id_t,
 * visible in every compilation mode.
 */
extern uint_t cpc_version(uint_t ver);
extern int cpc_access();
extern int cpc_getcpuver(void);
extern const char *cpc_getcciname(int cpuver);
extern const char *cpc_getcpuref(int cpuver);
extern uint_t cpc_getnpic(int cpuver);
extern const char *cpc_getusage(int cpuver);
extern void cpc_seterrfn(cpc_errfn_t *errfn);
extern void cpc_walk_names(int cpuver, int regno, void *arg,
    void (*action)(void *arg, int regno, const char *name, uint8_t bits));
extern int cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event);
extern char *cpc_eventtostr(cpc_event_t *event);
extern void cpc_event_accum(cpc_event_t *accum, cpc_event_t *event);
extern void cpc_event_diff(cpc_event_t *diff, cpc_event_t *left,
    cpc_event_t *right);
extern int cpc_bind_event(cpc_event_t *event, int flags);
extern int cpc_take_sample(cpc_event_t *event);
extern int cpc_count_usr_events(int enable);
extern int cpc_count_sys_events(int enable);
extern int cpc_rele(void);
extern int cpc_pctx_bind_event(pctx_t *pctx, __id_t lwpid,
    cpc_event_t *event, int flags);
extern int cpc_pctx_take_sample(pctx_t *pctx, __id_t lwpid,
    cpc_event_t *event);
extern int cpc_pctx_rele(pctx_t *pctx, __id_t lwpid);
extern int cpc_pctx_invalidate(pctx_t *pctx, __id_t lwpid);
extern int cpc_shared_open(void);
extern void cpc_shared_close(int fd);
extern int cpc_shared_bind_event(int fd, cpc_event_t *event, int flags);
extern int cpc_shared_take_sample(int fd, cpc_event_t *event);
extern int cpc_shared_rele(int fd);

#ifdef __cplusplus
}
#endif

#endif /* _LIBCPC_H */
