/* SPDX-License-Identifier: MIT */
/*
 * The arithmetic the contract fixes exactly: cpc_event_accum and
 * cpc_event_diff (every field, modulo 2^64, and the fields they must not
 * write), and the buffer operations of the current interfaces
 * (cpc_buf_sub, _add, _copy, _zero, _get, _set) on the values, tick
 * counts and hrtimes of real samples.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libcpc.h>

#include "testutil.h"

static cpc_event_t make_event(hrtime_t hrt, uint64_t tsc, uint64_t p0,
    uint64_t p1)
{
	cpc_event_t ev;
	memset(&ev, 0, sizeof(ev));
	ev.ce_cpuver = CPC_PENTIUM_PRO_MMX;
	ev.ce_pes[0] = 0x4100c0;
	ev.ce_pes[1] = 0x410079;
	ev.ce_hrt = hrt;
	ev.ce_tsc = tsc;
	ev.ce_pic[0] = p0;
	ev.ce_pic[1] = p1;
	return ev;
}

START_TEST(event_accum_is_exact)
{
	cpc_event_t acc = make_event(500, 1000, 10, 20);
	cpc_event_t ev = make_event(700, 3, 5, UINT64_MAX);
	acc.ce_cpuver = 7;
	acc.ce_pes[0] = 0x11;
	acc.ce_pes[1] = 0x22;
	cpc_event_accum(&acc, &ev);
	ck_assert_int_eq(acc.ce_hrt, 700);	/* the later time */
	ck_assert_uint_eq(acc.ce_tsc, 1003);
	ck_assert_uint_eq(acc.ce_pic[0], 15);
	ck_assert_uint_eq(acc.ce_pic[1], 19);	/* modulo 2^64 */
	/* Other fields are untouched. */
	ck_assert_int_eq(acc.ce_cpuver, 7);
	ck_assert_uint_eq(acc.ce_pes[0], 0x11);
	ck_assert_uint_eq(acc.ce_pes[1], 0x22);
	/* An older event leaves the time alone and still adds its counts. */
	ev = make_event(100, 1, 2, 3);
	cpc_event_accum(&acc, &ev);
	ck_assert_int_eq(acc.ce_hrt, 700);
	ck_assert_uint_eq(acc.ce_tsc, 1004);
	ck_assert_uint_eq(acc.ce_pic[0], 17);
	ck_assert_uint_eq(acc.ce_pic[1], 22);
	/* The event added is not written. */
	ck_assert_int_eq(ev.ce_hrt, 100);
	ck_assert_uint_eq(ev.ce_pic[0], 2);
	ck_assert_uint_eq(ev.ce_pic[1], 3);
}
END_TEST

START_TEST(event_diff_is_exact)
{
	cpc_event_t left = make_event(900, 5000, 1000, 7);
	cpc_event_t right = make_event(950, 1500, 400, 9);
	cpc_event_t diff;
	memset(&diff, 0x5a, sizeof(diff));
	cpc_event_diff(&diff, &left, &right);
	ck_assert_int_eq(diff.ce_hrt, 900);	/* left's time, not the max */
	ck_assert_uint_eq(diff.ce_tsc, 3500);
	ck_assert_uint_eq(diff.ce_pic[0], 600);
	ck_assert_uint_eq(diff.ce_pic[1], UINT64_MAX - 1);	/* 7 - 9 */
	/* ce_cpuver and ce_pes are not written. */
	ck_assert_int_eq(diff.ce_cpuver, 0x5a5a5a5a);
	ck_assert_uint_eq(diff.ce_pes[0], 0x5a5a5a5a);
	ck_assert_uint_eq(diff.ce_pes[1], 0x5a5a5a5a);
	/* Across a wrap of the counter, the difference is still the count. */
	left = make_event(1, 3, 4, 5);
	right = make_event(0, UINT64_MAX, UINT64_MAX - 1, UINT64_MAX - 2);
	cpc_event_diff(&diff, &left, &right);
	ck_assert_uint_eq(diff.ce_tsc, 4);
	ck_assert_uint_eq(diff.ce_pic[0], 6);
	ck_assert_uint_eq(diff.ce_pic[1], 8);
	/* The diff may be one of its operands. */
	left = make_event(10, 100, 50, 60);
	right = make_event(5, 30, 20, 10);
	cpc_event_diff(&left, &left, &right);
	ck_assert_uint_eq(left.ce_tsc, 70);
	ck_assert_uint_eq(left.ce_pic[0], 30);
	ck_assert_uint_eq(left.ce_pic[1], 50);
	/* accum then diff gives the event back. */
	cpc_event_t acc = make_event(0, 11, 22, 33), ev = make_event(0, 4, 5, 6);
	cpc_event_t before = acc;
	cpc_event_accum(&acc, &ev);
	cpc_event_diff(&diff, &acc, &before);
	ck_assert_uint_eq(diff.ce_tsc, 4);
	ck_assert_uint_eq(diff.ce_pic[0], 5);
	ck_assert_uint_eq(diff.ce_pic[1], 6);
}
END_TEST

static cpc_t *cpc;
static cpc_set_t *set;
#define PRESET (1ULL << 40)	/* of the page-fault request */

static void v2_setup(void)
{
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	set = cpc_set_create(cpc);
	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "page-faults", PRESET,
			     CPC_COUNT_USER, 0, NULL), 1);
}

static void v2_teardown(void)
{
	cpc_close(cpc);
}

static uint64_t get(cpc_buf_t *buf, int i)
{
	uint64_t v = 0;
	ck_assert_int_eq(cpc_buf_get(cpc, buf, i, &v), 0);
	return v;
}

/* Two real samples a and b, b later, with different values and ticks. */
static void two_samples(cpc_buf_t *a, cpc_buf_t *b)
{
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), 0);
	burn_cpu_ns(2000000);
	touch_fresh_pages(10);
	ck_assert_int_eq(cpc_set_sample(cpc, set, a), 0);
	burn_cpu_ns(5000000);
	touch_fresh_pages(50);
	ck_assert_int_eq(cpc_set_sample(cpc, set, b), 0);
	ck_assert_int_eq(cpc_unbind(cpc, set), 0);
	ck_assert_uint_gt(cpc_buf_tick(cpc, a), 0);
	ck_assert_uint_gt(cpc_buf_tick(cpc, b), cpc_buf_tick(cpc, a));
	ck_assert(cpc_buf_hrtime(cpc, b) > cpc_buf_hrtime(cpc, a));
	ck_assert_uint_gt(get(b, 0), get(a, 0));
	/* Page faults count from the preset: 10 pages and a few more. */
	ck_assert_uint_ge(get(a, 1), PRESET + 10);
	ck_assert_uint_lt(get(a, 1), PRESET + 1000);
	ck_assert_uint_ge(get(b, 1), get(a, 1) + 50);
}

START_TEST(buf_sub_and_add_are_exact)
{
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	cpc_buf_t *d = cpc_buf_create(cpc, set);
	two_samples(a, b);
	uint64_t ta = cpc_buf_tick(cpc, a), tb = cpc_buf_tick(cpc, b);
	hrtime_t ha = cpc_buf_hrtime(cpc, a), hb = cpc_buf_hrtime(cpc, b);

	cpc_buf_sub(cpc, d, b, a);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(get(d, i), get(b, i) - get(a, i));
	ck_assert_uint_eq(cpc_buf_tick(cpc, d), tb - ta);
	ck_assert_int_eq(cpc_buf_hrtime(cpc, d), hb);	/* the later one */
	/* The other way round: modulo 2^64, and still the later time. */
	cpc_buf_sub(cpc, d, a, b);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(get(d, i), get(a, i) - get(b, i));
	ck_assert_uint_eq(cpc_buf_tick(cpc, d), ta - tb);
	ck_assert_int_eq(cpc_buf_hrtime(cpc, d), hb);

	cpc_buf_add(cpc, d, a, b);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(get(d, i), get(a, i) + get(b, i));
	ck_assert_uint_eq(cpc_buf_tick(cpc, d), ta + tb);
	ck_assert_int_eq(cpc_buf_hrtime(cpc, d), hb);
	cpc_buf_add(cpc, d, b, a);
	ck_assert_uint_eq(cpc_buf_tick(cpc, d), ta + tb);
	ck_assert_int_eq(cpc_buf_hrtime(cpc, d), hb);
	/* In place: d = d - a gives b back exactly. */
	cpc_buf_sub(cpc, d, d, a);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(get(d, i), get(b, i));
	ck_assert_uint_eq(cpc_buf_tick(cpc, d), tb);
	/* The operands are not written. */
	ck_assert_uint_eq(cpc_buf_tick(cpc, a), ta);
	ck_assert_int_eq(cpc_buf_hrtime(cpc, a), ha);
}
END_TEST

START_TEST(buf_copy_zero_get_set)
{
	cpc_buf_t *a = cpc_buf_create(cpc, set), *b = cpc_buf_create(cpc, set);
	cpc_buf_t *c = cpc_buf_create(cpc, set);
	two_samples(a, b);
	cpc_buf_copy(cpc, c, b);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(get(c, i), get(b, i));
	ck_assert_uint_eq(cpc_buf_tick(cpc, c), cpc_buf_tick(cpc, b));
	ck_assert_int_eq(cpc_buf_hrtime(cpc, c), cpc_buf_hrtime(cpc, b));
	cpc_buf_zero(cpc, c);
	for (int i = 0; i < 2; i++)
		ck_assert_uint_eq(get(c, i), 0);
	ck_assert_uint_eq(cpc_buf_tick(cpc, c), 0);
	ck_assert_int_eq(cpc_buf_hrtime(cpc, c), 0);
	ck_assert_int_eq(cpc_buf_set(cpc, c, 0, UINT64_MAX), 0);
	ck_assert_int_eq(cpc_buf_set(cpc, c, 1, 12345), 0);
	ck_assert_uint_eq(get(c, 0), UINT64_MAX);
	ck_assert_uint_eq(get(c, 1), 12345);
	/* Indexes outside the buffer are refused (unlike Solaris). */
	uint64_t v = 77;
	errno = 0;
	ck_assert_int_eq(cpc_buf_get(cpc, c, 2, &v), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_uint_eq(v, 77);
	ck_assert_int_eq(cpc_buf_get(cpc, c, -1, &v), -1);
	ck_assert_int_eq(cpc_buf_set(cpc, c, 2, 1), -1);
	/* Buffers of another size are left alone. */
	cpc_set_t *big = cpc_set_create(cpc);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(cpc_set_add_request(cpc, big, "page-faults", 0,
				     CPC_COUNT_USER, 0, NULL), i);
	cpc_buf_t *x = cpc_buf_create(cpc, big);
	cpc_buf_set(cpc, x, 0, 5);
	cpc_buf_copy(cpc, x, b);
	cpc_buf_sub(cpc, x, b, a);
	cpc_buf_add(cpc, x, b, a);
	ck_assert_uint_eq(get(x, 0), 5);
	ck_assert_uint_eq(cpc_buf_tick(cpc, x), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arith");
	TCase *ev = tcase_create("events");
	tcase_add_test(ev, event_accum_is_exact);
	tcase_add_test(ev, event_diff_is_exact);
	suite_add_tcase(s, ev);
	TCase *buf = tcase_create("buffers");
	tcase_add_checked_fixture(buf, v2_setup, v2_teardown);
	tcase_set_timeout(buf, 60);
	tcase_add_test(buf, buf_sub_and_add_are_exact);
	tcase_add_test(buf, buf_copy_zero_get_set);
	suite_add_tcase(s, buf);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
