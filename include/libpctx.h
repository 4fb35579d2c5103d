/*
 * libpctx: process contexts for libcpc (Solaris <libpctx.h>).
 *
 * Part of libcpc for Linux.  This header declares the opaque handle used
 * by the libcpc pctx interfaces.
 */
#ifndef _LIBPCTX_H
#define _LIBPCTX_H

#include <sys/types.h>
#include <fcntl.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __pctx pctx_t;

typedef void(pctx_errfn_t)(const char *fn, const char *fmt, va_list ap);

#ifdef __cplusplus
}
#endif

#endif /* _LIBPCTX_H */
