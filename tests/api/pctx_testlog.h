/* SPDX-License-Identifier: MIT */
/*
 * What the libpctx tests (test_pctx, test_pctx_bind, test_pctx_run)
 * record: their callbacks' log, in order, and the messages libpctx and
 * libcpc give their error functions; the path of the traced workload,
 * tests/pctx_target; and their suite's run.
 */
#ifndef TESTS_API_PCTX_TESTLOG_H
#define TESTS_API_PCTX_TESTLOG_H

#include <check.h>
#include <stdarg.h>

extern char target[4096];	/* tests/pctx_target under $top_builddir */
extern char log_[8192];		/* what the callbacks saw, in order */
extern char errs[2048];		/* the error functions' messages */

/* Appends to log_. */
void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An error function of pctx_create and pctx_capture: "fn: message". */
void errfn(const char *fn, const char *fmt, va_list ap);

/* An error handler of cpc_seterrhndlr: the same, without the subcode. */
void cpc_handler(const char *fn, int subcode, const char *fmt, va_list ap);

/* Sets target and empties log_ and errs, as every test starts. */
void pctx_testlog_setup(void);

/* Runs s; the program's exit status. */
int run_pctx_suite(Suite *s);

#endif
