/* SPDX-License-Identifier: MIT */
/* libpfm4 native event names and the table that gives them an index. */
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "native_events.h"
#include "safefmt.h"

#define NATIVE_MAX 256
#define NATIVE_NAME_MAX 160

struct native_entry {
	struct cpc_evsel sel;
	char name[NATIVE_NAME_MAX];
};

static struct native_entry native_table[NATIVE_MAX];
static _Atomic unsigned native_count;
static pthread_mutex_t native_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_ok;
static const char *pfm_pmu;
static int pfm_counters;

static void pfm_init(void)
{
	if (pfm_initialize() != PFM_SUCCESS)
		return;
	pfm_ok = 1;
	pfm_pmu_t p;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS &&
		    info.is_present && info.type == PFM_PMU_TYPE_CORE) {
			pfm_pmu = info.name;
			pfm_counters = info.num_cntrs + info.num_fixed_cntrs;
			break;
		}
	}
}

int __cpc_native_counters(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_counters;
}

const char *__cpc_native_pmu_name(void)
{
	pthread_once(&pfm_once, pfm_init);
	return pfm_pmu;
}

static int is_core_event(int idx)
{
	pfm_event_info_t ev;
	pfm_pmu_info_t pmu;

	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS)
		return 0;
	memset(&pmu, 0, sizeof(pmu));
	pmu.size = sizeof(pmu);
	if (pfm_get_pmu_info(ev.pmu, &pmu) != PFM_SUCCESS)
		return 0;
	return pmu.type == PFM_PMU_TYPE_CORE;
}

int __cpc_native_lookup(const char *name, unsigned *index)
{
	pthread_once(&pfm_once, pfm_init);
	if (!pfm_ok || strlen(name) >= NATIVE_NAME_MAX)
		return 0;

	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg) !=
	    PFM_SUCCESS)
		return 0;
	if (!is_core_event(arg.idx))
		return 0;

	/* Events that need a third configuration word are not offered. */
	if (attr.config2 != 0)
		return 0;
	struct cpc_evsel sel = { .config = attr.config,
		.config1 = attr.config1, .type = attr.type };
	int found = 0;
	pthread_mutex_lock(&native_lock);
	unsigned n = atomic_load(&native_count);
	for (unsigned i = 0; i < n; i++) {
		const struct cpc_evsel *e = &native_table[i].sel;
		if (e->type == sel.type && e->config == sel.config &&
		    e->config1 == sel.config1) {
			*index = i;
			found = 1;
			break;
		}
	}
	if (!found && n < NATIVE_MAX) {
		native_table[n].sel = sel;
		__cpc_safe_fmt(native_table[n].name, NATIVE_NAME_MAX, "%s", name);
		atomic_store_explicit(&native_count, n + 1, memory_order_release);
		*index = n;
		found = 1;
	}
	pthread_mutex_unlock(&native_lock);
	return found;
}

int __cpc_native_name(unsigned index, char *buf, size_t n)
{
	if (index >= atomic_load_explicit(&native_count, memory_order_acquire))
		return -1;
	__cpc_safe_fmt(buf, n, "%s", native_table[index].name);
	return 0;
}

int __cpc_native_evsel(unsigned index, struct cpc_evsel *sel)
{
	if (index >= atomic_load_explicit(&native_count, memory_order_acquire))
		return -1;
	*sel = native_table[index].sel;
	return 0;
}

/*
 * 1 if the bare name encodes: events without a default unit mask need
 * one ("CYCLE_ACTIVITY:STALLS_TOTAL"), and a name a caller cannot add as
 * it is listed is not offered.
 */
static int encodes_alone(const char *name)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	return pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT,
		   &arg) == PFM_SUCCESS &&
	    attr.config2 == 0;
}

void __cpc_native_walk(void *arg, void (*action)(void *arg, const char *name))
{
	pthread_once(&pfm_once, pfm_init);
	if (!pfm_ok)
		return;
	pfm_pmu_t p;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(p, &pinfo) != PFM_SUCCESS ||
		    !pinfo.is_present || pinfo.type != PFM_PMU_TYPE_CORE)
			continue;
		for (int i = pinfo.first_event; i != -1;
		     i = pfm_get_event_next(i)) {
			pfm_event_info_t ev;
			memset(&ev, 0, sizeof(ev));
			ev.size = sizeof(ev);
			if (pfm_get_event_info(i, PFM_OS_NONE, &ev) ==
				PFM_SUCCESS &&
			    encodes_alone(ev.name))
				action(arg, ev.name);
		}
	}
}
