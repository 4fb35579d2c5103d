/* SPDX-License-Identifier: MIT */
/* cpc_seterrfn and the default error printer. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "libcpc.h"
#include "error.h"
#include "safefmt.h"

static _Atomic(cpc_errfn_t *) cpc_errfn;

void cpc_seterrfn(cpc_errfn_t *errfn)
{
	atomic_store(&cpc_errfn, errfn);
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

void __cpc_report(const char *fn, const char *fmt, ...)
{
	int saved = errno;
	cpc_errfn_t *user = atomic_load(&cpc_errfn);
	va_list ap;

	va_start(ap, fmt);
	if (user != NULL)
		user(fn, fmt, ap);
	else
		__cpc_vreport_stderr(fn, fmt, ap);
	va_end(ap);
	errno = saved;
}

void __cpc_vreport_stderr(const char *fn, const char *fmt, va_list ap)
{
	int saved = errno;
	char line[1024];
	size_t len = __cpc_safe_fmt(line, sizeof(line), "libcpc: %s: ", fn);
	len += __cpc_safe_vfmt(line + len, sizeof(line) - len, fmt, ap);
	write_all(STDERR_FILENO, line, len);
	errno = saved;
}

/* Sized for an event name and its explanation. */
#define NOTE_SIZE 1024

static __thread char note[NOTE_SIZE] __attribute__((tls_model("initial-exec")));
static __thread char taken[NOTE_SIZE]
    __attribute__((tls_model("initial-exec")));

void __cpc_note(const char *fn, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	size_t len = __cpc_safe_fmt(note, sizeof(note), "%s: ", fn);
	va_start(ap, fmt);
	len += __cpc_safe_vfmt(note + len, sizeof(note) - len, fmt, ap);
	va_end(ap);
	/* One line, like the handle's notes: no final newline. */
	if (len > 0 && note[len - 1] == '\n')
		note[len - 1] = '\0';
	errno = saved;
}

const char *__cpc_take_note(void)
{
	if (note[0] == '\0')
		return NULL;
	memcpy(taken, note, sizeof(taken));
	note[0] = '\0';
	return taken;
}

int __cpc_fail(int err)
{
	errno = err;
	return -1;
}
