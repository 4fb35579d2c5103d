/* SPDX-License-Identifier: MIT */
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
#include <sys/cpc_regset.h>
#include <sys/cpc_solaris.h>
#include <sys/cpc_event.h>
#include <sys/processor.h>	/* as Solaris 10's: processor_bind() */

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
/*
 * Linux extension: a description of the running processor and PMU (vendor,
 * family, model, libpfm4 PMU, whether hardware events are available).
 */
extern const char *cpc_linux_cpudesc(void);
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

/*
 * The current interfaces (libcpc version 2).
 */
typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

typedef void(cpc_errhndlr_t)(const char *fn, int subcode, const char *fmt,
    va_list ap);

extern cpc_t *cpc_open(int ver);
extern int cpc_close(cpc_t *cpc);
extern uint_t cpc_npic(cpc_t *cpc);
extern uint_t cpc_caps(cpc_t *cpc);
extern const char *cpc_cciname(cpc_t *cpc);
/*
 * Linux extension: the explanation (cause and remedy) of the last failure
 * of a call on cpc that has no Solaris subcode (perf_event_paranoid, an
 * event this system cannot count, ...), which the error handler is never
 * given; with cpc NULL, of the last failure of a version 1 call in the
 * calling thread, which Solaris reports through no error function.  NULL
 * if none.  Each explanation is returned once.
 */
extern const char *cpc_linux_errnote(cpc_t *cpc);
extern const char *cpc_cpuref(cpc_t *cpc);
extern int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn);

extern cpc_set_t *cpc_set_create(cpc_t *cpc);
extern int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set);
extern int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
    uint64_t preset, uint_t flags, uint_t nattrs, const cpc_attr_t *attrs);

extern cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set);
extern int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf);

extern int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags);
extern int cpc_bind_pctx(cpc_t *cpc, pctx_t *pctx, __id_t id, cpc_set_t *set,
    uint_t flags);
extern int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set,
    uint_t flags);
extern int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset);
extern int cpc_set_restart(cpc_t *cpc, cpc_set_t *set);
extern int cpc_unbind(cpc_t *cpc, cpc_set_t *set);
extern int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);

extern void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
    cpc_buf_t *b);
extern void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a,
    cpc_buf_t *b);
extern void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src);
extern void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf);
extern int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val);
extern int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val);
extern hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf);
extern uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf);

extern void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
    void (*action)(void *arg, int index, const char *event, uint64_t preset,
	uint_t flags, int nattrs, const cpc_attr_t *attrs));
extern void cpc_walk_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event));
extern void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event));
extern void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event));
extern void cpc_walk_generic_events_pic(cpc_t *cpc, uint_t picno, void *arg,
    void (*action)(void *arg, uint_t picno, const char *event));
extern void cpc_walk_attrs(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *attr));
/*
 * Linux extension: the event names requests accept beyond those the
 * walkers above list (the platform's, as on Solaris): libpfm4's names
 * for this processor and Linux perf's, each once.
 */
extern void cpc_linux_walk_events(cpc_t *cpc, void *arg,
    void (*action)(void *arg, const char *event));
/*
 * Linux extension: the names that the walkers above list closest to event
 * (at most three, for an unknown name's "did you mean"), as "a", "a or b"
 * or "a, b or c" in buf (len bytes; 256 hold any list).  Returns how
 * many, 0 when none is near, -1 (EINVAL) for a null argument or len 0.
 */
extern int cpc_linux_suggest(cpc_t *cpc, const char *event, char *buf,
    size_t len);

extern int cpc_enable(cpc_t *cpc);
extern int cpc_disable(cpc_t *cpc);
extern void cpc_terminate(cpc_t *cpc);

#ifdef __cplusplus
}
#endif

#endif /* _LIBCPC_H */
