/* SPDX-License-Identifier: MIT */
/* Error reporting through the application's error function. */
#ifndef LIBCPC_ERROR_H
#define LIBCPC_ERROR_H

#include <stdarg.h>

/*
 * Reports an error for library function `fn` (a short Solaris name such as
 * "strtoevent") through the function set by cpc_seterrfn(), or by default
 * as "libcpc: <fn>: <message>" on standard error.  errno is preserved.
 * Async-signal-safe when no application error function is installed.
 */
void __cpc_report(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The default printer alone ("libcpc: <fn>: <message>" on stderr). */
void __cpc_vreport_stderr(const char *fn, const char *fmt, va_list ap);

/*
 * How an interface fails: sets errno to err and returns -1.
 * Async-signal-safe.
 */
int __cpc_fail(int err);

#endif
