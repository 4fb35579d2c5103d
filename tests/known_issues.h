/*
 * known_issue(failed, fmt, ...): the checks of the hardening tests for
 * library issues they once found (RELIABILITY.md lists them, all fixed
 * now).  A failure fails the test, with the message; there is no
 * warning-only mode.
 */
#ifndef TESTS_KNOWN_ISSUES_H
#define TESTS_KNOWN_ISSUES_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 2, 3)))
static inline void known_issue(int failed, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	if (!failed)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ck_abort_msg("%s", msg);
}

#endif
