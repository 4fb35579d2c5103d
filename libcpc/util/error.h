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

/*
 * Records a Linux explanation of a failure of version 1 interface `fn`
 * that Solaris reports through no error function (cpc_bind_event,
 * cpc_shared_open, ...): "<fn>: <message>" in the calling thread's note,
 * which cpc_linux_errnote(NULL) returns once.  Nothing is printed and the
 * error function is not called.  errno is preserved; async-signal-safe.
 */
void __cpc_note(const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The calling thread's note, taken (cleared); NULL if none. */
const char *__cpc_take_note(void);

/* The default printer alone ("libcpc: <fn>: <message>" on stderr). */
void __cpc_vreport_stderr(const char *fn, const char *fmt, va_list ap);

/*
 * How an interface fails: sets errno to err and returns -1.
 * Async-signal-safe.
 */
int __cpc_fail(int err);

#endif
