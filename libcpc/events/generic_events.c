/* SPDX-License-Identifier: MIT */
/*
 * The Solaris generic event names.  Each maps to a Linux perf generic
 * event where one exists (the kernel then picks the encoding for the
 * running PMU), otherwise to a raw x86 encoding per vendor.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "cpuinfo.h"
#include "generic_events.h"
#include "perf_names.h"

struct generic_event {
	const char *name;
	const char *perf_name;	/* Linux perf name, or NULL */
	uint64_t intel_raw;	/* raw event-select (event | umask << 8), or 0 */
	uint64_t amd_raw;
};

static const struct generic_event generic_events[] = {
	{ "PAPI_tot_cyc", "cycles", 0, 0 },
	{ "PAPI_tot_ins", "instructions", 0, 0 },
	{ "PAPI_br_ins", "branch-instructions", 0, 0 },
	{ "PAPI_br_msp", "branch-misses", 0, 0 },
	{ "PAPI_br_cn", NULL, 0x01c4, 0 },
	{ "PAPI_br_tkn", NULL, 0x20c4, 0x00c4 },
	{ "PAPI_br_ntk", NULL, 0x10c4, 0 },
	{ "PAPI_l1_dca", "L1-dcache-loads", 0, 0 },
	{ "PAPI_l1_dcm", "L1-dcache-load-misses", 0, 0 },
	{ "PAPI_l1_ica", "L1-icache-loads", 0, 0 },
	{ "PAPI_l1_icm", "L1-icache-load-misses", 0, 0 },
	{ "PAPI_l3_tca", "cache-references", 0, 0 },
	{ "PAPI_l3_tcm", "cache-misses", 0, 0 },
	{ "PAPI_tlb_dm", "dTLB-load-misses", 0, 0 },
	{ "PAPI_tlb_im", "iTLB-load-misses", 0, 0 },
	{ "PAPI_res_stl", "stalled-cycles-backend", 0, 0 },
	{ "PAPI_stl_icy", "stalled-cycles-frontend", 0, 0 },
	{ "PAPI_hw_int", NULL, 0x01cb, 0 },
	{ "PAPI_ld_ins", NULL, 0x81d0, 0 },
	{ "PAPI_sr_ins", NULL, 0x82d0, 0 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int __cpc_generic_lookup(const char *name)
{
	for (size_t i = 0; i < NELEM(generic_events); i++)
		if (strcmp(name, generic_events[i].name) == 0)
			return (int)i;
	return -1;
}

const char *__cpc_generic_name(unsigned index)
{
	return index < NELEM(generic_events) ? generic_events[index].name
					      : NULL;
}

int __cpc_generic_evsel(unsigned index, struct cpc_evsel *sel)
{
	if (index >= NELEM(generic_events))
		return -1;
	const struct generic_event *g = &generic_events[index];
	if (g->perf_name != NULL) {
		unsigned kind, idx;
		if (!__cpc_perf_name_lookup(g->perf_name, &kind, &idx))
			return -1;
		return __cpc_perf_name_evsel(kind, idx, sel);
	}
	struct cpc_cpuinfo ci;
	__cpc_cpuinfo_read(&ci);
	uint64_t raw = ci.vendor == CPC_VENDOR_INTEL ? g->intel_raw
	    : ci.vendor == CPC_VENDOR_AMD	       ? g->amd_raw
						       : 0;
	if (raw == 0)
		return -1;
	memset(sel, 0, sizeof(*sel));
	sel->type = PERF_TYPE_RAW;
	sel->config = raw;
	return 0;
}

void __cpc_generic_walk(void *arg, void (*action)(void *arg, const char *name))
{
	struct cpc_evsel sel;
	for (size_t i = 0; i < NELEM(generic_events); i++)
		if (__cpc_generic_evsel((unsigned)i, &sel) == 0)
			action(arg, generic_events[i].name);
}
