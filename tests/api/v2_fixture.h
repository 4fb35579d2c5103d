/* SPDX-License-Identifier: MIT */
/*
 * The fixture of the version 2 test programs (test_v2, test_v2_presets,
 * test_v2_cpu): each test gets a handle of its own, whose error handler
 * records what it is given, and sets of two requests.
 */
#ifndef TESTS_API_V2_FIXTURE_H
#define TESTS_API_V2_FIXTURE_H

#include <stdarg.h>
#include <stdint.h>

#include <libcpc.h>

extern cpc_t *cpc;	    /* the test's handle (v2_setup) */
extern char errlog[2048];   /* "fn/subcode: message" of each call */
extern int last_subcode;    /* the last call's subcode */
extern int minus_one_calls; /* calls with a subcode below 0 */

/* The error handler v2_setup installs. */
void v2_handler(const char *fn, int subcode, const char *fmt, va_list ap);

/* Check fixture: opens cpc, installs v2_handler; closes cpc. */
void v2_setup(void);
void v2_teardown(void);

/* A set of e0 (user mode, no preset) and, unless NULL, e1 (p1, f1). */
cpc_set_t *make_set(const char *e0, const char *e1, uint64_t p1, uint_t f1);

#endif
