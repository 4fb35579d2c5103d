/* SPDX-License-Identifier: MIT */
/* Helpers of the hardware counting programs: see hwcount.h. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "hwcount.h"
#include "hwutil.h"
#include "testutil.h"

/* The vendor's names for cycles and instructions (version 1 tables). */
const char *cyc_name(void)
{
	return hw_pmu.amd ? "BU_cpu_clk_unhalted" : "cpu_clk_unhalted";
}

const char *ins_name(void)
{
	return hw_pmu.amd ? "FR_retired_x86_instr_w_excp_intr" : "inst_retired";
}

/*
 * The counting modes a test may ask for: user and system as root; user
 * only otherwise (an unprivileged user may not count in system mode:
 * kmod's allow_system is 0, perf_event_paranoid 3).
 */
unsigned all_modes(void)
{
	return geteuid() == 0 ? CPC_COUNT_USER | CPC_COUNT_SYSTEM
			      : CPC_COUNT_USER;
}

const char *v2_cyc_name(void)
{
	return hw_v2_cycles();
}

const char *v2_ins_name(void)
{
	return hw_v2_instructions();
}

/* Cycles the simulated PMU counts for ns of on-CPU time. */
double cycles_for_ns(double ns)
{
	return ns * hw_pmu.mhz / 1000.0;
}

/* tmpl with @C for the cycles name and @I for the instructions name. */
static void expand(const char *tmpl, char *out, size_t n)
{
	size_t len = 0;
	for (const char *p = tmpl; *p != '\0' && len + 1 < n; p++) {
		const char *sub = NULL;
		if (p[0] == '@' && p[1] == 'C')
			sub = cyc_name();
		else if (p[0] == '@' && p[1] == 'I')
			sub = ins_name();
		if (sub != NULL) {
			len += (size_t)snprintf(out + len, n - len, "%s", sub);
			if (len >= n)
				len = n - 1;
			p++;
		} else {
			out[len++] = *p;
		}
	}
	out[len] = '\0';
}

void bind_v1(const char *tmpl, uint64_t p0, uint64_t p1, int flags)
{
	char spec[256];
	cpc_event_t ev;
	expand(tmpl, spec, sizeof(spec));
	ck_assert_msg(cpc_strtoevent(cpc_getcpuver(), spec, &ev) == 0, "%s: %s",
	    spec, captured_errors());
	ev.ce_pic[0] = p0;
	ev.ce_pic[1] = p1;
	ck_assert_msg(cpc_bind_event(&ev, flags) == 0, "bind %s: %s %s", spec,
	    strerror(errno), captured_errors());
}

void hwc_setup(void)
{
	capture_errors();
}

void hwc_teardown(void)
{
	cpc_rele();
}
