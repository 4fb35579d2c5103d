/* SPDX-License-Identifier: MIT */
/*
 * The rdpmc read protocol on synthetic perf_event mmap pages: fallback
 * when rdpmc is not allowed or the event is not on a counter, counter
 * widths and sign extension, offsets, wrap, and retries while the
 * sequence lock changes; and the enabled time from the page and the TSC.
 * Then the perf backend's sample over several such pages
 * (__cpc_perf_sample_pages): requests on a run of pages or looked up by
 * slot, clocks, presets, and the fall back to read() when any page cannot
 * answer.  (No machine here has a PMU to do it for real; the benchmark
 * measures the real thing where one exists.)
 */
#include <check.h>
#include <string.h>

/* The perf backend's sample through the pages, with a stand-in rdpmc. */
#define CPC_SYNTHETIC_PAGES
#include "perf_sample.h"
#include "rdpmc.h"
#include "torn_page.h"

static struct perf_event_mmap_page page;
static uint64_t fake_value;
static uint32_t last_idx;
/* Torn reads of the counter move the page's offset on by 1000. */
static struct torn_page counter = { &page.lock, (__u64 *)&page.offset,
	1000, 0, 0 };
/* Torn reads of the TSC move the page's enabled time on by 500. */
static struct torn_page enabled = { &page.lock, &page.time_enabled, 500,
	0, 0 };

static uint64_t fake_rdpmc(uint32_t idx)
{
	last_idx = idx;
	torn_page_read(&counter);
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
	torn_page_reset(&counter);
	torn_page_reset(&enabled);
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
	ck_assert_int_eq(counter.reads, 0);
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
	counter.writes = 3;
	ck_assert_int_eq(__cpc_rdpmc_read(&page, fake_rdpmc, &v), 0);
	ck_assert_int_eq(counter.reads, 4);	/* three torn, then a clean one */
	ck_assert_uint_eq(v, 3000 + 7);	/* the offset of the final page */
}
END_TEST

static uint64_t fake_tsc_value;

static uint64_t fake_tsc(void)
{
	torn_page_read(&enabled);
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
	enabled.writes = 2;
	ck_assert_int_eq(__cpc_rdpmc_time_enabled(&page, fake_tsc, &t), 0);
	ck_assert_uint_eq(t, 2000 - 400 + 1501);
}
END_TEST


/* ------------------------------------------- the backend's page sample */

#define NPG 5
static _Alignas(4096) unsigned char pages[NPG * PERF_PAGE];
static uint64_t pmc[NPG];
/* Torn reads of counter i move page i's offset on by 100000. */
static struct torn_page counters[NPG];
unsigned char *(*__cpc_synth_pages)(unsigned nfd);
cpc_rdpmc_fn __cpc_synth_rdpmc;

static struct perf_event_mmap_page *pg_at(unsigned i)
{
	return (struct perf_event_mmap_page *)(pages + i * PERF_PAGE);
}

static uint64_t pages_rdpmc(uint32_t idx)
{
	torn_page_read(&counters[idx]);
	return pmc[idx];
}

/* Reads of every page's counter so far. */
static int page_reads(void)
{
	int n = 0;
	for (unsigned i = 0; i < NPG; i++)
		n += counters[i].reads;
	return n;
}

static void reset_page_reads(void)
{
	for (unsigned i = 0; i < NPG; i++)
		counters[i].reads = 0;
}

static struct perf_lwp lwp;

/* Page i: counter i (index i + 1), offset 1000 (i + 1), 48 bits. */
static void pages_setup(void)
{
	memset(pages, 0, sizeof(pages));
	memset(&lwp, 0, sizeof(lwp));
	for (unsigned i = 0; i < NPG; i++) {
		struct perf_event_mmap_page *pg = pg_at(i);
		pg->lock = 4;
		pg->index = i + 1;
		pg->offset = 1000 * (int64_t)(i + 1);
		pg->pmc_width = 48;
		pg->cap_user_rdpmc = 1;
		pg->cap_user_time = 1;
		pmc[i] = 10 * (i + 1);
		counters[i] = (struct torn_page){ &pg->lock,
			(__u64 *)&pg->offset, 100000, 0, 0 };
	}
	/* Enabled time 7000 whatever the TSC says (mult 0). */
	pg_at(0)->time_enabled = 7000;
	lwp.pages = pages;
	lwp.time_base = 500;
	lwp.first_page = PERF_NO_RUN;
	__cpc_synth_rdpmc = pages_rdpmc;
}

/* n requests on pages first .. first + n - 1, presets 0, 1, 2, ... */
static void run_of(unsigned first, unsigned n)
{
	lwp.nreqs = (uint8_t)n;
	lwp.nfd = (uint8_t)(first + n);
	lwp.first_page = (uint8_t)first;
	for (unsigned i = 0; i < n; i++) {
		lwp.slot[i] = (uint8_t)(first + i);
		lwp.offset[i] = i;
	}
}

START_TEST(run_of_pages)
{
	uint64_t vals[4], ontime = 0;
	run_of(0, 4);
	pmc[2] = (1ULL << 48) - 3;	/* negative in 48 bits */
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), 0);
	ck_assert_uint_eq(vals[0], 0 + 1000 + 10);
	ck_assert_uint_eq(vals[1], 1 + 2000 + 20);
	ck_assert_uint_eq(vals[2], 2 + 3000 - 3);
	ck_assert_uint_eq(vals[3], 3 + 4000 + 40);
	ck_assert_uint_eq(ontime, 7000 - 500);
	ck_assert_int_eq(page_reads(), 4);
	/* Fewer than all requests: only those pages. */
	reset_page_reads();
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 2, &ontime), 0);
	ck_assert_int_eq(page_reads(), 2);
	/* Behind a leader of its own (page 0 not a request's). */
	pg_at(0)->index = 0;
	run_of(1, 4);
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), 0);
	ck_assert_uint_eq(vals[0], 0 + 2000 + 20);
	ck_assert_uint_eq(vals[3], 3 + 5000 + 50);
}
END_TEST

START_TEST(run_falls_back_mid_way)
{
	uint64_t vals[4] = { 0 }, ontime = 77;
	run_of(0, 4);
	pg_at(2)->index = 0;	/* the third event is not on a counter */
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), -1);
	ck_assert_int_eq(page_reads(), 2);
	pg_at(2)->index = 3;
	pg_at(3)->cap_user_rdpmc = 0;	/* rdpmc not allowed there now */
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), -1);
	pg_at(3)->cap_user_rdpmc = 1;
	pg_at(0)->cap_user_time = 0;	/* no user time: read() too */
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), -1);
	pg_at(0)->cap_user_time = 1;
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), 0);
	ck_assert_uint_eq(vals[3], 3 + 4000 + 40);
}
END_TEST

START_TEST(run_retries_a_changed_page)
{
	uint64_t vals[4], ontime;
	run_of(0, 4);
	counters[2].writes = 1;
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), 0);
	ck_assert_int_eq(page_reads(), 5);	/* page 2 read twice */
	ck_assert_uint_eq(vals[2], 2 + 3000 + 100000 + 30);
	ck_assert_uint_eq(vals[1], 1 + 2000 + 20);
	ck_assert_uint_eq(vals[3], 3 + 4000 + 40);
}
END_TEST

START_TEST(slots_and_clocks)
{
	uint64_t vals[4], ontime;
	/* Requests: page 3, the clock, page 1, page 2 (no run). */
	lwp.nreqs = 4;
	lwp.nfd = 4;
	lwp.slot[0] = 3;
	lwp.slot[1] = PERF_SLOT_CLOCK;
	lwp.slot[2] = 1;
	lwp.slot[3] = 2;
	for (unsigned i = 0; i < 4; i++)
		lwp.offset[i] = 100 * i;
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), 0);
	ck_assert_uint_eq(vals[0], 4000 + 40);
	ck_assert_uint_eq(vals[1], 100 + 7000 - 500);
	ck_assert_uint_eq(vals[2], 200 + 2000 + 20);
	ck_assert_uint_eq(vals[3], 300 + 3000 + 30);
	ck_assert_uint_eq(ontime, 6500);
	ck_assert_int_eq(page_reads(), 3);
	counters[1].writes = 1;
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), 0);
	ck_assert_uint_eq(vals[2], 200 + 2000 + 100000 + 20);
	pg_at(1)->index = 0;
	ck_assert_int_eq(__cpc_perf_sample_pages(&lwp, vals, 4, &ontime), -1);
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
	TCase *tp = tcase_create("sample");
	tcase_add_checked_fixture(tp, pages_setup, NULL);
	tcase_add_test(tp, run_of_pages);
	tcase_add_test(tp, run_falls_back_mid_way);
	tcase_add_test(tp, run_retries_a_changed_page);
	tcase_add_test(tp, slots_and_clocks);
	suite_add_tcase(s, tp);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
