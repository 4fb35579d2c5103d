/* SPDX-License-Identifier: MIT */
/* Linux perf's generic hardware, cache and software event names. */
#include <linux/perf_event.h>
#include <string.h>

#include "perf_names.h"
#include "safefmt.h"

struct alias {
	const char *name;
	unsigned config;
};

/* The first name of each config is the canonical one. */
static const struct alias sw_names[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
};

static const struct alias hw_names[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const char *const cache_ids[] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache",
	[PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC",
	[PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB",
	[PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};

/* Suffixes per (op, result): access, miss. */
static const char *const cache_ops[][2] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = { "-loads", "-load-misses" },
	[PERF_COUNT_HW_CACHE_OP_WRITE] = { "-stores", "-store-misses" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "-prefetches", "-prefetch-misses" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static unsigned cache_index(unsigned id, unsigned op, unsigned result)
{
	return id | op << 4 | result << 6;
}

int __cpc_perf_name_lookup(const char *name, unsigned *kind, unsigned *index)
{
	for (size_t i = 0; i < NELEM(sw_names); i++)
		if (strcmp(name, sw_names[i].name) == 0) {
			*kind = CPC_EXT_SW;
			*index = sw_names[i].config;
			return 1;
		}
	for (size_t i = 0; i < NELEM(hw_names); i++)
		if (strcmp(name, hw_names[i].name) == 0) {
			*kind = CPC_EXT_HW;
			*index = hw_names[i].config;
			return 1;
		}
	for (unsigned id = 0; id < NELEM(cache_ids); id++) {
		size_t len = strlen(cache_ids[id]);
		if (strncmp(name, cache_ids[id], len) != 0)
			continue;
		for (unsigned op = 0; op < NELEM(cache_ops); op++)
			for (unsigned r = 0; r < 2; r++)
				if (strcmp(name + len, cache_ops[op][r]) == 0) {
					*kind = CPC_EXT_CACHE;
					*index = cache_index(id, op, r);
					return 1;
				}
	}
	return 0;
}

static const char *alias_name(const struct alias *t, size_t n, unsigned cfg)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].config == cfg)
			return t[i].name;
	return NULL;
}

static int cache_split(unsigned index, unsigned *id, unsigned *op,
    unsigned *r)
{
	*id = index & 0xf;
	*op = (index >> 4) & 0x3;
	*r = (index >> 6) & 0x1;
	return index < 0x80 && *id < NELEM(cache_ids) && *op < NELEM(cache_ops);
}

int __cpc_perf_name_format(unsigned kind, unsigned index, char *buf, size_t n)
{
	const char *s = NULL;
	unsigned id, op, r;

	switch (kind) {
	case CPC_EXT_SW:
		s = alias_name(sw_names, NELEM(sw_names), index);
		break;
	case CPC_EXT_HW:
		s = alias_name(hw_names, NELEM(hw_names), index);
		break;
	case CPC_EXT_CACHE:
		if (!cache_split(index, &id, &op, &r))
			return -1;
		__cpc_safe_fmt(buf, n, "%s%s", cache_ids[id], cache_ops[op][r]);
		return 0;
	default:
		return -1;
	}
	if (s == NULL)
		return -1;
	__cpc_safe_fmt(buf, n, "%s", s);
	return 0;
}

int __cpc_perf_name_evsel(unsigned kind, unsigned index, struct cpc_evsel *sel)
{
	unsigned id, op, r;

	memset(sel, 0, sizeof(*sel));
	switch (kind) {
	case CPC_EXT_SW:
		if (alias_name(sw_names, NELEM(sw_names), index) == NULL)
			return -1;
		sel->type = PERF_TYPE_SOFTWARE;
		sel->config = index;
		return 0;
	case CPC_EXT_HW:
		if (alias_name(hw_names, NELEM(hw_names), index) == NULL)
			return -1;
		sel->type = PERF_TYPE_HARDWARE;
		sel->config = index;
		return 0;
	case CPC_EXT_CACHE:
		if (!cache_split(index, &id, &op, &r))
			return -1;
		sel->type = PERF_TYPE_HW_CACHE;
		sel->config = id | op << 8 | r << 16;
		return 0;
	default:
		return -1;
	}
}

void __cpc_perf_sw_name_walk(void *arg,
    void (*action)(void *arg, const char *name))
{
	unsigned last = ~0U;
	for (size_t i = 0; i < NELEM(sw_names); i++) {
		if (sw_names[i].config != last)
			action(arg, sw_names[i].name);
		last = sw_names[i].config;
	}
}

void __cpc_perf_name_walk(void *arg, void (*action)(void *arg, const char *name))
{
	unsigned last = ~0U;
	for (size_t i = 0; i < NELEM(hw_names); i++) {
		if (hw_names[i].config != last)
			action(arg, hw_names[i].name);
		last = hw_names[i].config;
	}
	__cpc_perf_sw_name_walk(arg, action);
	for (unsigned id = 0; id < NELEM(cache_ids); id++)
		for (unsigned op = 0; op < NELEM(cache_ops); op++)
			for (unsigned r = 0; r < 2; r++) {
				char buf[64];
				__cpc_safe_fmt(buf, sizeof(buf), "%s%s",
				    cache_ids[id], cache_ops[op][r]);
				action(arg, buf);
			}
}
