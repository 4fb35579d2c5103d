/* SPDX-License-Identifier: MIT */
/* Naming and encoding the events of ce_pes[] control words. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "cpuinfo.h"
#include "generic_events.h"
#include "native_events.h"
#include "perf_names.h"
#include "pes.h"
#include "platform_events.h"
#include "safefmt.h"

static int numeric_code(const char *name, unsigned *code)
{
	char *end;
	errno = 0;
	long v = strtol(name, &end, 0);
	if (end == name || errno != 0 || v < 0 || v > 255)
		return -1;
	*code = (unsigned)v;
	return 0;
}

int __cpc_pes_resolve(int cpuver, int regno, const char *name, uint32_t *event)
{
	int family = __cpc_platform_family(cpuver);
	unsigned code, kind, index;

	if (family == CPC_FAMILY_NONE)
		return -1;
	if (__cpc_platform_lookup(cpuver, regno, name, &code)) {
		*event = code;
		return 0;
	}
	/* A platform name that exists only on the other counter. */
	if (__cpc_platform_known_name(cpuver, name))
		return -1;
	if (family != CPC_FAMILY_P5) {
		int g = __cpc_generic_lookup(name);
		struct cpc_evsel sel;
		if (g >= 0 && __cpc_generic_evsel((unsigned)g, &sel) == 0) {
			*event = pes_ext_make(CPC_EXT_GENERIC, (unsigned)g);
			return 0;
		}
		if (cpuver == cpc_getcpuver() && __cpc_native_lookup(name, &index)) {
			*event = pes_ext_make(CPC_EXT_PFM, index);
			return 0;
		}
		if (__cpc_perf_name_lookup(name, &kind, &index)) {
			*event = pes_ext_make(kind, index);
			return 0;
		}
	}
	if (numeric_code(name, &code) == 0) {
		*event = family == CPC_FAMILY_P5 ? (code & 0x3f) : code;
		return 0;
	}
	return -1;
}

int __cpc_pes_event_name(int cpuver, int regno, uint32_t pes, char *buf,
    size_t n)
{
	if (pes_is_ext(pes)) {
		unsigned kind = pes_ext_kind(pes), index = pes_ext_index(pes);
		const char *g;
		switch (kind) {
		case CPC_EXT_GENERIC:
			g = __cpc_generic_name(index);
			if (g == NULL)
				return -1;
			__cpc_safe_fmt(buf, n, "%s", g);
			return 0;
		case CPC_EXT_PFM:
			return __cpc_native_name(index, buf, n);
		default:
			return __cpc_perf_name_format(kind, index, buf, n);
		}
	}
	unsigned code = pes & 0xff;
	const char *name = __cpc_platform_name(cpuver, regno, code);
	if (name != NULL)
		__cpc_safe_fmt(buf, n, "%s", name);
	else
		__cpc_safe_fmt(buf, n, "0x%x", code);
	return 0;
}

/*
 * P6 event codes whose event still exists on today's processors under
 * another code.  Codes not listed are counted as given.
 */
unsigned __cpc_p6_code_on_running_cpu(unsigned code)
{
	struct cpc_cpuinfo ci;
	__cpc_cpuinfo_read(&ci);
	if (ci.vendor == CPC_VENDOR_INTEL) {
		if (code == 0x79)	/* cpu_clk_unhalted */
			return 0x3c;
		return code;
	}
	if (ci.vendor == CPC_VENDOR_AMD) {
		switch (code) {
		case 0x79:	/* cpu_clk_unhalted */
			return 0x76;
		case 0xc4:	/* br_inst_retired */
			return 0xc2;
		case 0xc5:	/* br_miss_pred_retired */
			return 0xc3;
		case 0xc9:	/* br_taken_retired */
			return 0xc4;
		case 0x43:	/* data_mem_refs */
			return 0x40;
		case 0x45:	/* dcu_lines_in */
			return 0x41;
		default:
			return code;
		}
	}
	return code;
}

int __cpc_pes_evsel(int cpuver, uint32_t pes, struct cpc_evsel *sel)
{
	int family = __cpc_platform_family(cpuver);

	if (family == CPC_FAMILY_NONE || family == CPC_FAMILY_P5)
		return -1;
	if (pes_is_ext(pes)) {
		unsigned kind = pes_ext_kind(pes), index = pes_ext_index(pes);
		switch (kind) {
		case CPC_EXT_GENERIC:
			return __cpc_generic_evsel(index, sel);
		case CPC_EXT_PFM:
			return __cpc_native_evsel(index, sel);
		default:
			return __cpc_perf_name_evsel(kind, index, sel);
		}
	}
	unsigned code = pes & 0xff;
	unsigned umask = (pes >> CPC_P6_PES_UMASK_SHIFT) & 0xff;
	unsigned cmask = (pes >> CPC_P6_PES_CMASK_SHIFT) & 0xff;
	if (family == CPC_FAMILY_P6)
		code = __cpc_p6_code_on_running_cpu(code);
	memset(sel, 0, sizeof(*sel));
	sel->type = PERF_TYPE_RAW;
	sel->config = code | umask << 8 | (uint64_t)cmask << 24;
	if (pes & PES_INV)
		sel->config |= PES_INV;
	/* Today's counters count levels; edge detection only with a cmask. */
	if ((pes & PES_E) && cmask != 0)
		sel->config |= PES_E;
	return 0;
}
