/* SPDX-License-Identifier: MIT */
/* An async-signal-safe subset of vsnprintf, for error reports. */
#ifndef LIBCPC_SAFEFMT_H
#define LIBCPC_SAFEFMT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * Formats into buf (always NUL-terminated when n > 0) and returns the
 * length written.  Understands %s %c %d %i %u %x %X %p %% with the length
 * modifiers l, ll and z, and an optional field width and '0' flag.
 */
size_t __cpc_safe_vfmt(char *buf, size_t n, const char *fmt, va_list ap);
size_t __cpc_safe_fmt(char *buf, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
