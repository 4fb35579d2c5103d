/* SPDX-License-Identifier: MIT */
/*
 * The module's state-page protocol (CPC_KPAGE_TIME) on synthetic pages,
 * with a stand-in for rdtsc: fallback without a time base or with fewer
 * requests than asked, the TSC conversion (a 128-bit product), which
 * requests advance, a TSC behind the page's, and retries while the
 * sequence counter changes; a frozen binding's page (CPC_KSAMPLE_FROZEN)
 * read exactly, with or without a time base.  The guest checks the real pages
 * against the module's ioctl (kmod_test's page_time, tests/kmod/ktest/kt_page.c).
 */
#include <check.h>
#include <string.h>

#include "kpage.h"
#include "torn_page.h"

static struct cpc_kpage page;
static uint64_t fake_tsc_value;
/* Torn reads of the TSC: the module moved request 0 on by 1000. */
static struct torn_page tsc = { &page.seq, &page.vals[0], 1000, 0, 0 };

static uint64_t fake_tsc(void)
{
	torn_page_read(&tsc);
	return fake_tsc_value;
}

static void setup(void)
{
	memset(&page, 0, sizeof(page));
	page.seq = 10;
	page.nreqs = 3;
	page.time_flags = CPC_KPAGE_TIME;
	page.time_mask = 0x5;		/* requests 0 and 2 are task-clock */
	page.vals[0] = 1000;
	page.vals[1] = 777;
	page.vals[2] = 2000;
	page.ontime_ns = 500;
	/* 1 ns per 2 cycles: mult 2^31, shift 32. */
	page.time_mult = 1u << 31;
	page.time_shift = 32;
	page.time_tsc = 1000000;
	fake_tsc_value = 1000000;
	torn_page_reset(&tsc);
}

START_TEST(falls_back_without_time_base)
{
	uint64_t v[3] = { 1, 2, 3 }, t = 4;
	page.time_flags = 0;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), -1);
	ck_assert_uint_eq(v[0], 1);
	ck_assert_uint_eq(t, 4);
	page.time_flags = CPC_KPAGE_TIME;
	page.nreqs = 2;		/* unbound or rebound with fewer requests */
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), -1);
	ck_assert_int_eq(tsc.reads, 0);
}
END_TEST

START_TEST(advances_the_masked_requests)
{
	uint64_t v[3], t;
	fake_tsc_value = 1000000 + 2000;	/* 1000 ns later */
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), 0);
	ck_assert_uint_eq(v[0], 2000);
	ck_assert_uint_eq(v[1], 777);		/* counts nothing: as is */
	ck_assert_uint_eq(v[2], 3000);
	ck_assert_uint_eq(t, 1500);
	/* Fewer than the page has: only those. */
	v[2] = 9;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 2, &t), 0);
	ck_assert_uint_eq(v[0], 2000);
	ck_assert_uint_eq(v[2], 9);
}
END_TEST

START_TEST(converts_with_a_wide_product)
{
	uint64_t v[3], t;
	/* A real factor: 2.596 GHz, mult/shift as x86's cyc2ns. */
	page.time_mult = 827201141;
	page.time_shift = 31;
	/* An hour of cycles: the 64-bit product would overflow. */
	uint64_t cyc = 2596084000ull * 3600;
	fake_tsc_value = page.time_tsc + cyc;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), 0);
	uint64_t want = (uint64_t)(((unsigned __int128)cyc * 827201141u) >> 31);
	ck_assert_uint_eq(v[0], 1000 + want);
	ck_assert_uint_ge(want, 3599000000000ull);
	ck_assert_uint_le(want, 3601000000000ull);
}
END_TEST

START_TEST(tsc_behind_the_page_adds_nothing)
{
	uint64_t v[3], t;
	fake_tsc_value = page.time_tsc - 5;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), 0);
	ck_assert_uint_eq(v[0], 1000);
	ck_assert_uint_eq(t, 500);
}
END_TEST

START_TEST(retries_while_the_page_changes)
{
	uint64_t v[3], t;
	tsc.writes = 2;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), 0);
	ck_assert_int_eq(tsc.reads, 3);
	ck_assert_uint_eq(v[0], 3000);	/* the third version of the page */
	ck_assert_uint_eq(page.seq, 14);
}
END_TEST

START_TEST(reads_a_frozen_page_as_it_stands)
{
	uint64_t v[3], t;
	/* Frozen after an overflow: no time base, nothing advances. */
	page.time_flags = 0;
	page.flags = CPC_KSAMPLE_FROZEN;
	fake_tsc_value = page.time_tsc + 2000000;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), 0);
	ck_assert_uint_eq(v[0], 1000);
	ck_assert_uint_eq(v[1], 777);
	ck_assert_uint_eq(v[2], 2000);
	ck_assert_uint_eq(t, 500);
	ck_assert_int_eq(tsc.reads, 0);
	/* Fewer requests than asked: the ioctl. */
	page.nreqs = 2;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), -1);
	/* Restarted: neither frozen nor timed, the ioctl again. */
	page.nreqs = 3;
	page.flags = 0;
	ck_assert_int_eq(__cpc_kpage_read(&page, fake_tsc, v, 3, &t), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kpage");
	TCase *tc = tcase_create("protocol");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, falls_back_without_time_base);
	tcase_add_test(tc, advances_the_masked_requests);
	tcase_add_test(tc, converts_with_a_wide_product);
	tcase_add_test(tc, tsc_behind_the_page_adds_nothing);
	tcase_add_test(tc, retries_while_the_page_changes);
	tcase_add_test(tc, reads_a_frozen_page_as_it_stands);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
