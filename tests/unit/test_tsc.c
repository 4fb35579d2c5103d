/* SPDX-License-Identifier: MIT */
/*
 * The TSC rate libcpc measures where perf cannot tell it (the module's
 * users under perf_event_paranoid 3, seccomp): it must agree with the
 * rate found over a much longer time within the error bound the
 * measurement states, and that bound must be small.  Where perf tells the
 * kernel's own rate (a perf user page's time_mult and time_shift, with a
 * TSC clock), against that too.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "cpuinfo.h"

static uint64_t raw_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC over 300 ms; *err: the relative error of the two brackets. */
static double long_tsc_khz(double *err)
{
	uint64_t a0 = raw_ns(), c0 = __cpc_rdtsc(), a1 = raw_ns();
	while (raw_ns() - a0 < 300000000u)
		;
	uint64_t b0 = raw_ns(), c1 = __cpc_rdtsc(), b1 = raw_ns();
	double span = (double)(b0 + b1) / 2 - (double)(a0 + a1) / 2;
	*err = ((double)(a1 - a0) / 2 + (double)(b1 - b0) / 2) / span;
	return (double)(c1 - c0) / span * 1e6;
}

static void check_against(double ref, double ref_err, const char *what)
{
	for (int i = 0; i < 5; i++) {
		double bound = 1;
		double khz = (double)__cpc_tsc_khz_measure(&bound);
		/* A bracketed reading: at most 0.5% even under heavy load. */
		ck_assert_msg(bound > 0 && bound < 0.005, "bound %g", bound);
		/*
		 * Beyond both bounds: 20 ppm (MONOTONIC_RAW and perf's clock
		 * convert the TSC with multipliers of their own) and 1 kHz
		 * (truncation).
		 */
		double off = fabs(khz - ref);
		ck_assert_msg(off <= ref * (bound + ref_err + 20e-6) + 1,
		    "measured %.0f kHz, %s %.1f kHz: %.0f ppm off, bounds "
		    "%.0f + %.0f ppm", khz, what, ref, off / ref * 1e6,
		    bound * 1e6, ref_err * 1e6);
	}
}

START_TEST(measured_rate_within_its_bound)
{
	double err;
	double ref = long_tsc_khz(&err);
	ck_assert_msg(err < 0.001, "300 ms bracketed to %g", err);
	check_against(ref, err, "over 300 ms");
	uint64_t mult32;
	/* perf's cyc2ns (time_mult, time_shift) as the library reads it */
	double kernel = (double)__cpc_tsc_khz_perf(&mult32);
	if (kernel != 0)
		check_against(kernel, 0, "the kernel's");
	else
		printf("perf gives no TSC rate here (perf_event_paranoid, or a "
		       "clock that is not the TSC): checked against 300 ms\n");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tsc");
	TCase *tc = tcase_create("rate");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, measured_rate_within_its_bound);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
