/* SPDX-License-Identifier: MIT */
/*
 * The back end's event lists per counter and their encodings: AMD's
 * (one list for every counter: the family's table, then its generic
 * names) and Intel's (on the general-purpose counters the architectural
 * events the processor reports available, each followed by its generic
 * name, then the model's own names where the original has a table for
 * it (pcbe_intel_model.h), or the Core microarchitecture's tables; on each
 * fixed counter its own event).  See pcbe_events.h.
 */
#include <stddef.h>
#include <string.h>

#include "pcbe_events.h"
#include "pcbe_intel_model.h"
#include "pcbe_zen.h"

/* The generic names of the Zen families: aliases, with no unit mask. */
static const struct cpc_pcbe_alias zen1_papi[] = {
	{ "PAPI_br_cn", "ExRetCond", 0 },
	{ "PAPI_br_ins", "ExRetBrn", 0 },
	{ "PAPI_fpu_idl", "FpSchedEmpty", 0 },
	{ "PAPI_tot_cyc", "LsNotHaltedCyc", 0 },
	{ "PAPI_tot_ins", "ExRetInstr", 0 },
	{ "PAPI_tlb_dm", "LsL1DTlbMiss", 0 },
	{ "PAPI_tlb_im", "BpL1TlbMissL2Miss", 0 },
	{ NULL, NULL, 0 }
};

/* Zen 2 names for PAPI_tlb_im an event its table lacks (not found). */
static const struct cpc_pcbe_alias zen2_papi[] = {
	{ "PAPI_br_cn", "ExRetCond", 0 },
	{ "PAPI_br_ins", "ExRetBrn", 0 },
	{ "PAPI_tot_cyc", "LsNotHaltedCyc", 0 },
	{ "PAPI_tot_ins", "ExRetInstr", 0 },
	{ "PAPI_tlb_dm", "LsL1DTlbMiss", 0 },
	{ "PAPI_tlb_im", "BpL1TlbMissL2Miss", 0 },
	{ NULL, NULL, 0 }
};

/* Zen 3 and Zen 4. */
static const struct cpc_pcbe_alias zen34_papi[] = {
	{ "PAPI_br_cn", "ExRetCond", 0 },
	{ "PAPI_br_ins", "ExRetBrn", 0 },
	{ "PAPI_tot_cyc", "LsNotHaltedCyc", 0 },
	{ "PAPI_tot_ins", "ExRetInstr", 0 },
	{ "PAPI_tlb_dm", "LsL1DTlbMiss", 0 },
	{ "PAPI_tlb_im", "BpL1TlbMissL2TlbMiss", 0 },
	{ NULL, NULL, 0 }
};

static const struct cpc_pcbe_alias zen5_papi[] = {
	{ "PAPI_br_cn", "Retired_Conditional_Branch_Instructions", 0 },
	{ "PAPI_br_ins", "Retired_Branch_Instructions", 0 },
	{ "PAPI_br_msp",
	    "Retired_Conditional_Branch_Instructions_Mispredicted", 0 },
	{ "PAPI_br_ucn", "Retired_Unconditional_Branch_Instructions", 0 },
	{ "PAPI_tot_cyc", "Cycles_Not_in_Halt", 0 },
	{ "PAPI_tot_ins", "Retired_Instructions", 0 },
	{ "PAPI_hw_int", "Interrupts_Taken", 0 },
	{ "PAPI_tlb_sd", "TLB_Flush_Events", 0 },
	{ NULL, NULL, 0 }
};

/*
 * An AMD family's list: up to two tables, or its bit in the Zen table;
 * then up to two alias lists.
 */
struct amd_list {
	const struct cpc_pcbe_event *tab[2];
	unsigned zen;
	const struct cpc_pcbe_alias *papi[2];
};

static int amd_list(enum cpc_evtab t, struct amd_list *l)
{
	memset(l, 0, sizeof(*l));
	switch (t) {
	case CPC_EVTAB_AMD_F:
	case CPC_EVTAB_AMD_10H:
	case CPC_EVTAB_AMD_11H:
		l->tab[0] = __cpc_amd_cmn_events;
		l->tab[1] = t == CPC_EVTAB_AMD_F ? __cpc_amd_f_events
		    : t == CPC_EVTAB_AMD_10H	 ? __cpc_amd_10h_events
						 : __cpc_amd_11h_events;
		l->papi[0] = __cpc_amd_cmn_papi;
		l->papi[1] = t == CPC_EVTAB_AMD_10H ? __cpc_amd_10h_papi
						    : __cpc_amd_opt_papi;
		return 1;
	case CPC_EVTAB_ZEN1:
		l->zen = Z1;
		l->papi[0] = zen1_papi;
		return 1;
	case CPC_EVTAB_ZEN2:
		l->zen = Z2;
		l->papi[0] = zen2_papi;
		return 1;
	case CPC_EVTAB_ZEN3:
	case CPC_EVTAB_ZEN4:
		l->zen = t == CPC_EVTAB_ZEN3 ? Z3 : Z4;
		l->papi[0] = zen34_papi;
		return 1;
	case CPC_EVTAB_ZEN5:
		l->zen = Z5;
		l->papi[0] = zen5_papi;
		return 1;
	default:
		return 0;
	}
}

/* Sets *code and *umask to those of the event name of l; 0: none. */
static int amd_find(const struct amd_list *l, const char *name,
    unsigned *code, unsigned *umask)
{
	for (int i = 0; i < 2; i++)
		for (const struct cpc_pcbe_event *e = l->tab[i];
		     e != NULL && e->name != NULL; e++)
			if (strcmp(e->name, name) == 0) {
				*code = e->code;
				*umask = e->umask;
				return 1;
			}
	for (const struct cpc_pcbe_zen_event *z = __cpc_zen_events;
	     l->zen != 0 && z->name != NULL; z++)
		if ((z->zen & l->zen) != 0 && strcmp(z->name, name) == 0) {
			*code = z->code;
			*umask = z->umask;
			return 1;
		}
	return 0;
}

/* AMD's event select: event 7:0, unit mask 15:8, event 11:8 at 35:32. */
static uint64_t amd_config(unsigned code, unsigned umask)
{
	return (code & 0xffu) | (uint64_t)(umask & 0xffu) << 8 |
	    (uint64_t)((code >> 8) & 0xfu) << 32;
}

static int amd_lookup(const struct amd_list *l, const char *name,
    uint64_t *config, int *generic)
{
	unsigned code, umask;
	if (amd_find(l, name, &code, &umask)) {
		*config = amd_config(code, umask);
		*generic = 0;
		return CPC_PCBE_FOUND;
	}
	for (int i = 0; i < 2; i++)
		for (const struct cpc_pcbe_alias *a = l->papi[i];
		     a != NULL && a->name != NULL; a++) {
			if (strcmp(a->name, name) != 0)
				continue;
			/* An alias of an event the family lacks counts nothing. */
			if (!amd_find(l, a->event, &code, &umask))
				return CPC_PCBE_UNKNOWN;
			*config = amd_config(code, umask | a->umask);
			*generic = 1;
			return CPC_PCBE_FOUND;
		}
	return CPC_PCBE_UNKNOWN;
}

/*
 * Intel's architectural events, in the order of CPUID leaf 0AH's
 * availability bits (bit i clear: event i is available).
 */
static const struct {
	const char *name, *htt_name, *papi;
	uint8_t event, umask;
} arch_events[] = {
	{ "cpu_clk_unhalted.core", "cpu_clk_unhalted.thread_p",
	    "PAPI_tot_cyc", 0x3c, 0x00 },
	{ "inst_retired.any_p", NULL, "PAPI_tot_ins", 0xc0, 0x00 },
	{ "cpu_clk_unhalted.ref_p", NULL, NULL, 0x3c, 0x01 },
	{ "longest_lat_cache.reference", NULL, NULL, 0x2e, 0x4f },
	{ "longest_lat_cache.miss", NULL, NULL, 0x2e, 0x41 },
	{ "br_inst_retired.all_branches", NULL, NULL, 0xc4, 0x00 },
	{ "br_misp_retired.all_branches", NULL, NULL, 0xc5, 0x00 },
};

#define NARCH (sizeof(arch_events) / sizeof(arch_events[0]))

/*
 * The fixed counters' events; Linux perf programs the fixed counter for
 * these encodings (0x0300 is its name for the reference-cycles counter).
 */
static const struct {
	const char *name, *htt_name, *papi;
	uint16_t config;
} fixed_events[] = {
	{ "instr_retired.any", NULL, "PAPI_tot_ins", 0x00c0 },
	{ "cpu_clk_unhalted.core", "cpu_clk_unhalted.thread", "PAPI_tot_cyc",
	    0x003c },
	{ "cpu_clk_unhalted.ref", NULL, NULL, 0x0300 },
};

static const char *arch_name(const struct cpc_identity *id, size_t i)
{
	return id->htt && arch_events[i].htt_name != NULL
	    ? arch_events[i].htt_name
	    : arch_events[i].name;
}

static const char *fixed_name(const struct cpc_identity *id, size_t i)
{
	return id->htt && fixed_events[i].htt_name != NULL
	    ? fixed_events[i].htt_name
	    : fixed_events[i].name;
}

static size_t arch_count(const struct cpc_identity *id)
{
	return id->arch_events < NARCH ? id->arch_events : NARCH;
}

static int arch_available(const struct cpc_identity *id, size_t i)
{
	return i < arch_count(id) && ((id->arch_absent >> i) & 1) == 0;
}

static void table_walk(const struct cpc_pcbe_event *t, void *arg,
    void (*fn)(void *arg, const char *name))
{
	for (; t != NULL && t->name != NULL; t++)
		fn(arg, t->name);
}

static const struct cpc_pcbe_event *table_find(const struct cpc_pcbe_event *t,
    const char *name)
{
	for (; t != NULL && t->name != NULL; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* The Core microarchitecture's names on counter 0, counter 1, or others. */
static void core_uarch_walk(unsigned picno, void *arg,
    void (*fn)(void *arg, const char *name))
{
	if (picno == 0) {
		table_walk(__cpc_core_pic0_events, arg, fn);
		table_walk(__cpc_core_pic0_papi, arg, fn);
	} else if (picno == 1) {
		table_walk(__cpc_core_pic1_events, arg, fn);
	}
	table_walk(__cpc_core_events, arg, fn);
	table_walk(__cpc_core_papi, arg, fn);
}

/* Where the Core microarchitecture counts name: every counter, 0 or 1. */
static const struct cpc_pcbe_event *core_uarch_find(const char *name,
    int *only_pic)
{
	const struct cpc_pcbe_event *e;
	*only_pic = -1;
	if ((e = table_find(__cpc_core_papi, name)) != NULL ||
	    (e = table_find(__cpc_core_events, name)) != NULL)
		return e;
	*only_pic = 0;
	if ((e = table_find(__cpc_core_pic0_papi, name)) != NULL ||
	    (e = table_find(__cpc_core_pic0_events, name)) != NULL)
		return e;
	*only_pic = 1;
	return table_find(__cpc_core_pic1_events, name);
}

static void intel_walk(const struct cpc_identity *id, unsigned picno,
    void *arg, void (*fn)(void *arg, const char *name))
{
	if (picno < id->gpc && id->evtab == CPC_EVTAB_CORE_UARCH) {
		core_uarch_walk(picno, arg, fn);
		return;
	}
	if (picno < id->gpc) {
		for (size_t i = 0; i < NARCH; i++) {
			if (!arch_available(id, i))
				continue;
			fn(arg, arch_name(id, i));
			if (arch_events[i].papi != NULL)
				fn(arg, arch_events[i].papi);
		}
		/* The model's own names, where the original has a table. */
		__cpc_model_walk(arg, fn);
		return;
	}
	if (picno - id->gpc < id->ffc) {
		unsigned f = picno - id->gpc;
		fn(arg, fixed_name(id, f));
		if (fixed_events[f].papi != NULL)
			fn(arg, fixed_events[f].papi);
	}
}

/*
 * Intel: the Core microarchitecture's tables or the architectural events
 * (general-purpose counters), then the fixed counters' own.
 */
static int intel_find(const struct cpc_identity *id, const char *name,
    int picno, uint64_t *config, int *generic)
{
	int other = 0, only_pic;
	const struct cpc_pcbe_event *e = id->evtab == CPC_EVTAB_CORE_UARCH
	    ? core_uarch_find(name, &only_pic)
	    : NULL;
	if (e != NULL && id->gpc > (unsigned)(only_pic < 0 ? 0 : only_pic)) {
		if (picno >= 0 && ((unsigned)picno >= id->gpc ||
				      (only_pic >= 0 && picno != only_pic))) {
			other = 1;
		} else {
			*config = e->code | (uint64_t)e->umask << 8;
			*generic = strncmp(name, "PAPI", 4) == 0;
			return CPC_PCBE_FOUND;
		}
	}
	for (size_t i = 0; i < NARCH; i++) {
		if (id->evtab != CPC_EVTAB_INTEL_ARCH || !arch_available(id, i) ||
		    id->gpc == 0)
			continue;
		int papi = arch_events[i].papi != NULL &&
		    strcmp(name, arch_events[i].papi) == 0;
		if (!papi && strcmp(name, arch_name(id, i)) != 0)
			continue;
		if (picno >= 0 && (unsigned)picno >= id->gpc) {
			other = 1;
			break;
		}
		*config = arch_events[i].event |
		    (uint64_t)arch_events[i].umask << 8;
		*generic = papi;
		return CPC_PCBE_FOUND;
	}
	for (unsigned f = 0; f < id->ffc && f < 3; f++) {
		int papi = fixed_events[f].papi != NULL &&
		    strcmp(name, fixed_events[f].papi) == 0;
		if (!papi && strcmp(name, fixed_name(id, f)) != 0)
			continue;
		if (picno >= 0 && (unsigned)picno != id->gpc + f) {
			other = 1;
			continue;
		}
		*config = fixed_events[f].config;
		*generic = papi;
		return CPC_PCBE_FOUND;
	}
	/* The model's own names count on the general-purpose counters. */
	if (id->evtab == CPC_EVTAB_INTEL_ARCH && id->gpc > 0 &&
	    __cpc_model_lookup(name, config)) {
		if (picno < 0 || (unsigned)picno < id->gpc) {
			*generic = 0;
			return CPC_PCBE_FOUND;
		}
		other = 1;
	}
	return other ? CPC_PCBE_OTHER_PIC : CPC_PCBE_UNKNOWN;
}

int __cpc_pcbe_has_events(const struct cpc_identity *id)
{
	return id->evtab != CPC_EVTAB_NONE;
}

void __cpc_pcbe_walk(const struct cpc_identity *id, unsigned picno, void *arg,
    void (*fn)(void *arg, const char *name))
{
	struct amd_list l;
	if (picno >= id->npic)
		return;
	if (id->evtab == CPC_EVTAB_INTEL_ARCH ||
	    id->evtab == CPC_EVTAB_CORE_UARCH) {
		intel_walk(id, picno, arg, fn);
		return;
	}
	if (!amd_list(id->evtab, &l))
		return;
	for (int i = 0; i < 2; i++)
		for (const struct cpc_pcbe_event *e = l.tab[i];
		     e != NULL && e->name != NULL; e++)
			fn(arg, e->name);
	for (const struct cpc_pcbe_zen_event *z = __cpc_zen_events;
	     l.zen != 0 && z->name != NULL; z++)
		if ((z->zen & l.zen) != 0)
			fn(arg, z->name);
	for (int i = 0; i < 2; i++)
		for (const struct cpc_pcbe_alias *a = l.papi[i];
		     a != NULL && a->name != NULL; a++)
			fn(arg, a->name);
}

int __cpc_pcbe_lookup(const struct cpc_identity *id, const char *name,
    int picno, uint64_t *config, int *generic)
{
	struct amd_list l;
	if (name == NULL || (picno >= 0 && (unsigned)picno >= id->npic))
		return CPC_PCBE_UNKNOWN;
	if (id->evtab == CPC_EVTAB_INTEL_ARCH ||
	    id->evtab == CPC_EVTAB_CORE_UARCH)
		return intel_find(id, name, picno, config, generic);
	if (!amd_list(id->evtab, &l))
		return CPC_PCBE_UNKNOWN;
	return amd_lookup(&l, name, config, generic);
}
