/*
 * The rdpmc read protocol on synthetic perf_event mmap pages: fallback
 * when rdpmc is not allowed or the event is not on a counter, counter
 * widths and sign extension, offsets, wrap, and retries while the
 * sequence lock changes; and the enabled time from the page and the TSC.
 * (No machine here has a PMU to do it for real;
 * the benchmark measures the real thing where one exists.)
 */
#include <check.h>
#include <string.h>

#include "rdpmc.h"

static struct perf_event_mmap_page page;
static uint64_t fake_value;
static uint32_t last_idx;
static int changes_left;	/* bump the lock during this many reads */
static int reads;

static uint64_t fake_rdpmc(uint32_t idx)
{
	last_idx = idx;
	reads++;
	if (changes_left > 0) {
		changes_left--;
		page.lock += 2;		/* the kernel rewrote the page */
		page.offset += 1000;
	}
	return fake_value;
}

static void setup(void)
{
	memset(&page, 0, sizeof(page));
	page.cap_user_rdpmc = 1;
	page.index = 3;
	page.pmc_width = 48;
	page.lock = 10;
	fake_value = 0;
	changes_left = 0;
	reads = 0;
}

START_TEST(falls_back_without_rdpmc)
{
	uint64_t v = 77;
	page.cap_user_rdpmc = 0;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), -1);
	ck_assert_uint_eq(v, 77);
	page.cap_user_rdpmc = 1;
	page.index = 0;	/* not scheduled on a counter */
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), -1);
	ck_assert_int_eq(reads, 0);
}
END_TEST

START_TEST(index_offset_and_width)
{
	uint64_t v;
	page.offset = 5000;
	fake_value = 1234;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_uint_eq(last_idx, 2);		/* index - 1 */
	ck_assert_uint_eq(v, 6234);
	/* A 48-bit counter with its top bit set is negative. */
	fake_value = (1ULL << 48) - 10;
	page.offset = 100;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_uint_eq(v, 90);
	/* Bits above the width are ignored. */
	fake_value = 0xffff000000000005ULL;
	page.offset = 0;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_uint_eq(v, 5);
	/* Narrower (31/40-bit) and full-width counters. */
	page.pmc_width = 40;
	fake_value = (1ULL << 40) - 1;
	page.offset = 1;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_uint_eq(v, 0);
	page.pmc_width = 32;
	fake_value = 0x7fffffff;
	page.offset = 0;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_uint_eq(v, 0x7fffffff);
	page.pmc_width = 64;
	fake_value = UINT64_MAX;
	page.offset = 2;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_uint_eq(v, 1);		/* wraps modulo 2^64 */
}
END_TEST

START_TEST(retries_while_the_page_changes)
{
	uint64_t v;
	page.offset = 0;
	fake_value = 7;
	changes_left = 3;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_int_eq(reads, 4);	/* three torn reads, then a clean one */
	ck_assert_uint_eq(v, 3000 + 7);	/* the offset of the final page */
}
END_TEST

static uint64_t fake_tsc_value;
static int tsc_changes_left;

static uint64_t fake_tsc(void)
{
	if (tsc_changes_left > 0) {
		tsc_changes_left--;
		page.lock += 2;
		page.time_enabled += 500;
	}
	return fake_tsc_value;
}

START_TEST(enabled_time_from_the_tsc)
{
	uint64_t t = 77;
	/* No user time on this page: the caller falls back to read(). */
	ck_assert_int_eq(__cpc_rdpmc_time_enabled(&page, fake_tsc, &t), -1);
	ck_assert_uint_eq(t, 77);
	page.cap_user_time = 1;
	page.time_enabled = 1000;
	page.time_offset = (uint64_t)-400;	/* TSC time before enabling */
	page.time_mult = 3 << 9;	/* 1.5 ns per tick, shift 10 */
	page.time_shift = 10;
	fake_tsc_value = 1001;	/* 1001 * 1.5 = 1501 (quot + rem parts) */
	ck_assert_int_eq(__cpc_rdpmc_time_enabled(&page, fake_tsc, &t), 0);
	ck_assert_uint_eq(t, 1000 - 400 + 1501);
	/* Retried while the kernel rewrites the page. */
	tsc_changes_left = 2;
	ck_assert_int_eq(__cpc_rdpmc_time_enabled(&page, fake_tsc, &t), 0);
	ck_assert_uint_eq(t, 2000 - 400 + 1501);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rdpmc");
	TCase *tc = tcase_create("protocol");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, falls_back_without_rdpmc);
	tcase_add_test(tc, index_offset_and_width);
	tcase_add_test(tc, retries_while_the_page_changes);
	tcase_add_test(tc, enabled_time_from_the_tsc);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
