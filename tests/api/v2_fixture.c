/* SPDX-License-Identifier: MIT */
/* The fixture of the version 2 test programs: see v2_fixture.h. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "v2_fixture.h"

cpc_t *cpc;
char errlog[2048];
int last_subcode;

int minus_one_calls;

void v2_handler(const char *fn, int subcode, const char *fmt, va_list ap)
{
	size_t len = strlen(errlog);
	if (subcode < 0)
		minus_one_calls++;
	last_subcode = subcode;
	snprintf(errlog + len, sizeof(errlog) - len, "%s/%d: ", fn, subcode);
	len = strlen(errlog);
	vsnprintf(errlog + len, sizeof(errlog) - len, fmt, ap);
}

void v2_setup(void)
{
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	ck_assert_int_eq(cpc_seterrhndlr(cpc, v2_handler), 0);
	errlog[0] = '\0';
	last_subcode = 0;
}

void v2_teardown(void)
{
	if (cpc != NULL)
		cpc_close(cpc);
}

cpc_set_t *make_set(const char *e0, const char *e1, uint64_t p1, uint_t f1)
{
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(
	    cpc_set_add_request(cpc, set, e0, 0, CPC_COUNT_USER, 0, NULL), 0);
	if (e1 != NULL)
		ck_assert_int_eq(
		    cpc_set_add_request(cpc, set, e1, p1, f1, 0, NULL), 1);
	return set;
}
