/* SPDX-License-Identifier: MIT */
/* What the libpctx tests record (see pctx_testlog.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pctx_testlog.h"

char target[4096];
char log_[8192];
char errs[2048];

void logf_(const char *fmt, ...)
{
	size_t len = strlen(log_);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(log_ + len, sizeof(log_) - len, fmt, ap);
	va_end(ap);
}

void errfn(const char *fn, const char *fmt, va_list ap)
{
	size_t len = strlen(errs);
	snprintf(errs + len, sizeof(errs) - len, "%s: ", fn);
	len = strlen(errs);
	vsnprintf(errs + len, sizeof(errs) - len, fmt, ap);
}

void cpc_handler(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	errfn(fn, fmt, ap);
}

void pctx_testlog_setup(void)
{
	const char *dir = getenv("top_builddir");
	snprintf(target, sizeof(target), "%s/tests/pctx_target",
	    dir != NULL ? dir : ".");
	log_[0] = errs[0] = '\0';
}

int run_pctx_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
