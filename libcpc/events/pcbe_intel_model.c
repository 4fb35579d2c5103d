/* SPDX-License-Identifier: MIT */
/*
 * Intel's model-specific event names in the original's form, from
 * libpfm4's tables: see pcbe_intel_model.h.  libpfm4 names an event
 * EVENT:UMASK where Intel (and so the original) names it event.umask.
 */
#include <ctype.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <strings.h>
#include <string.h>

#include "pcbe_intel_model.h"
#include "safefmt.h"

#define MODEL_NAME_MAX 128

/*
 * libpfm4's names of the processors the original generates tables for
 * (its list of Intel platforms: Nehalem, Westmere, Sandy Bridge, Ivy
 * Bridge, Haswell, Broadwell, Skylake, Cascade Lake; Bonnell,
 * Silvermont, Goldmont).  Later processors get the architectural events
 * only there, and so here.
 */
static const char *const model_pmus[] = { "nhm", "nhm_ex", "wsm", "wsm_dp",
	"snb", "snb_ep", "ivb", "ivb_ep", "hsw", "hsw_ep", "bdw", "bdw_ep",
	"skl", "skx", "clx", "atom", "slm", "glm" };

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_ok;

static void init(void)
{
	init_ok = pfm_initialize() == PFM_SUCCESS;
}

/* The present core PMU, if the original has names for it. */
static int model_pmu(pfm_pmu_info_t *info)
{
	pthread_once(&init_once, init);
	if (!init_ok)
		return 0;
	pfm_pmu_t p;
	pfm_for_all_pmus(p)
	{
		memset(info, 0, sizeof(*info));
		info->size = sizeof(*info);
		if (pfm_get_pmu_info(p, info) != PFM_SUCCESS ||
		    !info->is_present || info->type != PFM_PMU_TYPE_CORE)
			continue;
		for (size_t i = 0; i < sizeof(model_pmus) / sizeof(*model_pmus);
		     i++)
			if (strcmp(info->name, model_pmus[i]) == 0)
				return 1;
		return 0;
	}
	return 0;
}

int __cpc_model_has_events(void)
{
	pfm_pmu_info_t info;
	return model_pmu(&info);
}

/* The raw event select of PMU::EVENT:UMASK, without the privilege bits. */
static int encode(const char *pmu, const char *event, const char *umask,
    uint64_t *config)
{
	char full[2 * MODEL_NAME_MAX + 64];
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	__cpc_safe_fmt(full, sizeof(full), "%s::%s:%s", pmu, event, umask);
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	if (pfm_get_os_event_encoding(full, PFM_PLM3, PFM_OS_PERF_EVENT,
		&arg) != PFM_SUCCESS ||
	    attr.config1 != 0 || attr.config2 != 0)
		return 0;
	/* usr, os, int and en are the library's to set. */
	*config = attr.config & ~(1ULL << 16 | 1ULL << 17 | 1ULL << 20 |
				    1ULL << 22);
	return 1;
}

static int event_info(int idx, pfm_event_info_t *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	return pfm_get_event_info(idx, PFM_OS_NONE, ev) == PFM_SUCCESS;
}

static int umask_info(int idx, int a, pfm_event_attr_info_t *ai)
{
	memset(ai, 0, sizeof(*ai));
	ai->size = sizeof(*ai);
	return pfm_get_event_attr_info(idx, a, PFM_OS_NONE, ai) ==
	    PFM_SUCCESS &&
	    ai->type == PFM_ATTR_UMASK;
}

static void lower(char *dst, size_t n, const char *event, const char *umask)
{
	__cpc_safe_fmt(dst, n, "%s.%s", event, umask);
	for (; *dst != '\0'; dst++)
		*dst = (char)tolower((unsigned char)*dst);
}

void __cpc_model_walk(void *arg, void (*fn)(void *arg, const char *name))
{
	pfm_pmu_info_t pmu;
	if (!model_pmu(&pmu))
		return;
	for (int i = pmu.first_event; i != -1; i = pfm_get_event_next(i)) {
		pfm_event_info_t ev;
		/* Another name of an event with its unit mask: no name here. */
		if (!event_info(i, &ev) ||
		    (ev.equiv != NULL && strchr(ev.equiv, ':') != NULL))
			continue;
		for (int a = 0; a < ev.nattrs; a++) {
			pfm_event_attr_info_t ai;
			uint64_t config;
			char name[2 * MODEL_NAME_MAX];
			/* Unit masks that are another's with modifiers: none. */
			if (!umask_info(i, a, &ai) || ai.equiv != NULL ||
			    !encode(pmu.name, ev.name, ai.name, &config))
				continue;
			lower(name, sizeof(name), ev.name, ai.name);
			fn(arg, name);
		}
	}
}

/* 1 if s is a name of the original's form: lower case, digits, _ and . */
static int plain_lower(const char *s)
{
	for (; *s != '\0'; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '_' && *s != '.')
			return 0;
	return 1;
}

int __cpc_model_lookup(const char *name, uint64_t *config)
{
	pfm_pmu_info_t pmu;
	char event[MODEL_NAME_MAX], full[2 * MODEL_NAME_MAX + 64];
	const char *dot = name != NULL ? strchr(name, '.') : NULL;
	if (dot == NULL || dot == name || dot[1] == '\0' ||
	    (size_t)(dot - name) >= sizeof(event) ||
	    strlen(dot + 1) >= MODEL_NAME_MAX || !plain_lower(name) ||
	    !model_pmu(&pmu))
		return 0;
	for (size_t i = 0; name + i < dot; i++)
		event[i] = (char)toupper((unsigned char)name[i]);
	event[dot - name] = '\0';
	__cpc_safe_fmt(full, sizeof(full), "%s::%s", pmu.name, event);
	int idx = pfm_find_event(full);
	pfm_event_info_t ev;
	if (idx < 0 || !event_info(idx, &ev))
		return 0;
	/* Only a unit mask of the event's: not a modifier (u, k, c=, ...). */
	for (int a = 0; a < ev.nattrs; a++) {
		pfm_event_attr_info_t ai;
		if (umask_info(idx, a, &ai) && strcasecmp(ai.name, dot + 1) == 0)
			return encode(pmu.name, event, ai.name, config);
	}
	return 0;
}
