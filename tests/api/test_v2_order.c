/* SPDX-License-Identifier: MIT */
/*
 * cpc_set_add_request and the binds check a request set in the
 * original's order, and refuse what the original's kernel refuses
 * (illumos libcpc.c, kcpc_verify_set): the event before the attributes,
 * the attributes one by one; at bind, more requests than counters and a
 * counter named twice fail with EINVAL and no description.
 */
#include <check.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include <libcpc.h>

#include "testutil.h"

static int calls, last;

static void handler(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn, (void)fmt, (void)ap;
	calls++;
	last = subcode;
}

static cpc_t *open_handle(void)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_seterrhndlr(cpc, handler);
	calls = 0;
	last = 0;
	return cpc;
}

/* Adds and expects a refusal described by subcode. */
static void refused(cpc_t *cpc, const char *event, uint_t nattrs,
    const cpc_attr_t *attrs, int subcode)
{
	cpc_set_t *set = cpc_set_create(cpc);
	calls = 0;
	errno = 0;
	ck_assert_int_eq(cpc_set_add_request(cpc, set, event, 0,
			     CPC_COUNT_USER, nattrs, attrs), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(last, subcode);
	cpc_set_destroy(cpc, set);
}

START_TEST(event_before_attributes)
{
	cpc_t *cpc = open_handle();
	cpc_attr_t bogus[] = { { "nosuchattr", 1 } };
	refused(cpc, "nosuchevent", 1, bogus, CPC_INVALID_EVENT);
	refused(cpc, "task-clock", 1, bogus, CPC_INVALID_ATTRIBUTE);
	/* The attributes in turn: the first bad one is reported. */
	cpc_attr_t a[] = { { "nosuchattr", 1 }, { "picnum", 999 } };
	refused(cpc, "task-clock", 2, a, CPC_INVALID_ATTRIBUTE);
	cpc_attr_t b[] = { { "picnum", 999 }, { "nosuchattr", 1 } };
	refused(cpc, "task-clock", 2, b, CPC_INVALID_PICNUM);
	cpc_attr_t empty[] = { { "", 1 } };
	refused(cpc, "task-clock", 1, empty, CPC_INVALID_ATTRIBUTE);
	cpc_close(cpc);
}
END_TEST

static void count_request(void *arg, int index, const char *event,
    uint64_t preset, uint_t flags, int nattrs, const cpc_attr_t *attrs)
{
	(void)index, (void)event, (void)preset, (void)flags, (void)nattrs;
	(void)attrs;
	++*(int *)arg;
}

/* Binds and expects EINVAL with nothing through the handler. */
static void bind_refused_silently(cpc_t *cpc, cpc_set_t *set)
{
	calls = 0;
	errno = 0;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(calls, 0);
}

START_TEST(counter_named_twice)
{
	cpc_t *cpc = open_handle();
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t pic0[] = { { "picnum", 0 } };
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 1, pic0), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 1, pic0), 1);
	bind_refused_silently(cpc, set);
	/* Named once each: bound. */
	cpc_set_t *ok = cpc_set_create(cpc);
	cpc_attr_t pic1[] = { { "picnum", 1 } };
	ck_assert_int_eq(cpc_set_add_request(cpc, ok, "task-clock", 0,
			     CPC_COUNT_USER, 1, pic0), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, ok, "task-clock", 0,
			     CPC_COUNT_USER, 1, pic1), 1);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, ok, 0), 0);
	ck_assert_int_eq(cpc_unbind(cpc, ok), 0);
	cpc_close(cpc);
}
END_TEST

START_TEST(more_requests_than_counters)
{
	cpc_t *cpc = open_handle();
	cpc_set_t *set = cpc_set_create(cpc);
	uint_t npic = cpc_npic(cpc);
	for (uint_t i = 0; i < npic; i++)
		ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
				     CPC_COUNT_USER, 0, NULL), (int)i);
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	if (cpc_set_add_request(cpc, set, "task-clock", 0, CPC_COUNT_USER, 0,
		NULL) != (int)npic) {
		printf("SKIP more_requests_than_counters: a set holds %u "
		       "requests at most\n", npic);
		cpc_close(cpc);
		return;
	}
	bind_refused_silently(cpc, set);
	cpc_close(cpc);
}
END_TEST

/*
 * A set takes any number of requests, as the original's library's (its
 * kernel refuses more requests than counters at bind, EINVAL with no
 * description): the 13th and later are added, and only the bind fails.
 */
START_TEST(thirteenth_request_refused_at_bind)
{
	cpc_t *cpc = open_handle();
	cpc_set_t *set = cpc_set_create(cpc);
	for (int i = 0; i < 20; i++) {
		errno = 0;
		ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
				     CPC_COUNT_USER, 0, NULL), i);
	}
	ck_assert_int_eq(calls, 0);
	int seen = 0;
	cpc_walk_requests(cpc, set, &seen, count_request);
	ck_assert_int_eq(seen, 20);
	/* A buffer of the set's size; binding it fails, silently. */
	cpc_buf_t *buf = cpc_buf_create(cpc, set);
	ck_assert_ptr_nonnull(buf);
	bind_refused_silently(cpc, set);
	errno = 0;
	ck_assert_int_eq(cpc_set_sample(cpc, set, buf), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(calls, 0);
	cpc_close(cpc);
}
END_TEST

START_TEST(request_flags_in_index_order)
{
	cpc_t *cpc = open_handle();
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     0x100 | CPC_COUNT_USER, 0, NULL), 1);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     0x200 | CPC_COUNT_USER, 0, NULL), 2);
	calls = 0;
	errno = 0;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(calls, 1);
	ck_assert_int_eq(last, CPC_REQ_INVALID_FLAGS);
	cpc_close(cpc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v2_order");
	TCase *tc = tcase_create("v2_order");
	tcase_add_test(tc, event_before_attributes);
	tcase_add_test(tc, counter_named_twice);
	tcase_add_test(tc, more_requests_than_counters);
	tcase_add_test(tc, thirteenth_request_refused_at_bind);
	tcase_add_test(tc, request_flags_in_index_order);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
