/* SPDX-License-Identifier: MIT */
/*
 * The identity of the processor's counters as the original's back ends
 * report it: see identity.h.  The implementation names, reference texts,
 * counter numbers, capabilities and attribute lists are those of
 * illumos's PCBEs (p123, core, opteron) for the same CPUID, which tools
 * print and programs compare.
 */
#include <string.h>

#include "identity.h"
#include "safefmt.h"

static const char *const p5_attrs[] = { "noedge", "pc", NULL };
static const char *const p6_attrs[] = { "noedge", "pc", "inv", "int",
	"umask", "cmask", NULL };
static const char *const core_v12_attrs[] = { "edge", "pc", "inv", "umask",
	"cmask", NULL };
static const char *const core_v3_attrs[] = { "edge", "inv", "umask",
	"cmask", "anythr", NULL };
static const char *const amd_attrs[] = { "edge", "pc", "inv", "cmask",
	"umask", NULL };
/* Linux perf only: what the library's own encoding takes. */
static const char *const perf_attrs[] = { "edge", "pc", "inv", "int",
	"noedge", "umask", "cmask", NULL };

static const char p5_ref[] =
    "See Appendix A.3 of the \"IA-32 Intel Architecture Software "
    "Developer's Manual Volume 3: System Programming Guide,\" Order # "
    "245472-012, 2003";
static const char p6_ref[] =
    "See Appendix A.4 of the \"IA-32 Intel Architecture Software "
    "Developer's Manual Volume 3: System Programming Guide,\" Order # "
    "245472-012, 2003";
static const char core_ref[] =
    "See https://download.01.org/perfmon/index/ or Chapers 18 and 19 of "
    "the \"Intel 64 and IA-32 Architectures Software Developer's Manual "
    "Volume 3: System Programming Guide\" Order Number: 325384-062US, "
    "March 2017.";
static const char perf_ref[] = "See perf_event_open(2) and perf-list(1)";

/* The reference texts of the AMD families and microarchitectures. */
static const char amd_f_rev_ae_ref[] =
    "See \"BIOS and Kernel Developer's Guide for AMD Athlon 64 and AMD "
    "Opteron Processors\" (AMD publication 26094)";
static const char amd_f_npt_ref[] =
    "See \"BIOS and Kernel Developer's Guide for AMD NPT Family 0Fh "
    "Processors\" (AMD publication 32559)";
static const char amd_10h_ref[] =
    "See \"BIOS and Kernel Developer's Guide (BKDG) For AMD Family 10h "
    "Processors\" (AMD publication 31116)";
static const char amd_11h_ref[] =
    "See \"BIOS and Kernel Developer's Guide (BKDG) For AMD Family 11h "
    "Processors\" (AMD publication 41256)";
static const char amd_zen1_ref[] =
    "See \"Open-Source Register Reference For AMD Family 17h Processors "
    "Models 00h-2Fh\" (AMD publication 56255) and "
    "amd_f17h_zen1_events(3CPC)";
static const char amd_zen2_ref[] =
    "See \"Preliminary Processor Programming Reference (PPR) for AMD "
    "Family 17h Model 31h, Revision B0 Processors\" (AMD publication "
    "55803), \"Processor Programming Reference (PPR) for AMD Family 17h "
    "Model 71h, Revision B0 Processors\" (AMD publication 56176), and "
    "amd_f17h_zen2_events(3CPC)";
static const char amd_zen3_ref[] =
    "See \"Preliminary Processor Programming Reference (PPR) for AMD "
    "Family 19h Model 01h, Revision B1 Processors Volume 1 of 2\" (AMD "
    "publication 55898), \"Processor Programming Reference (PPR) for AMD "
    "Family 19h Model 21h, Revision B0 Processors\" (AMD publication "
    "56214), and amd_f19h_zen3_events(3CPC)";
static const char amd_zen4_ref[] =
    "See \"Processor Programming Reference (PPR) for AMD Family 19h Model "
    "11h, Revision B1 Processors Volume 1 of 6\" (AMD publication 55901), "
    "\"Processor Programming Reference (PPR) for AMD Family 19h Model "
    "61h, Revision B1 Processors\" (AMD publication 56713), \"Processor "
    "Programming Reference (PPR) for AMD Family 19h Model 70h, Revision "
    "A0 Processors\" (AMD publication 57019), and "
    "amd_f19h_zen4_events(3CPC)";
static const char amd_zen5_ref[] =
    "See \"Performance Monitor Counters for AMD Family 1Ah Model 00h-Fh "
    "Processors\" (AMD publication 58550) and amd_f1ah_zen5_events(3CPC)";
/* Families the original has no back end for (12h-16h, after 1Ah). */
static const char amd_other_ref[] =
    "See the \"BIOS and Kernel Developer's Guide\" or the \"Processor "
    "Programming Reference\" for your AMD processor family, and "
    "perf_event_open(2)";

/* Family 19h: Zen 4 (Genoa, Raphael, Phoenix, Bergamo) or Zen 3. */
static int zen4_model(unsigned model)
{
	return (model >= 0x10 && model <= 0x1f) ||
	    (model >= 0x60 && model <= 0x7f) ||
	    (model >= 0xa0 && model <= 0xaf);
}

static const char *amd_cpuref(const struct cpc_cpuinfo *ci)
{
	switch (ci->family) {
	case 0xf:	/* revision F (NPT) from model 40h */
		return ci->model >= 0x40 ? amd_f_npt_ref : amd_f_rev_ae_ref;
	case 0x10:
		return amd_10h_ref;
	case 0x11:
		return amd_11h_ref;
	case 0x17:	/* Zen and Zen+ below model 30h, then Zen 2 */
		return ci->model < 0x30 ? amd_zen1_ref : amd_zen2_ref;
	case 0x18:	/* Hygon Dhyana: Zen */
		return amd_zen1_ref;
	case 0x19:
		return zen4_model(ci->model) ? amd_zen4_ref : amd_zen3_ref;
	case 0x1a:
		return amd_zen5_ref;
	default:
		return amd_other_ref;
	}
}

/* The event list of an AMD family and model, as the back end picks it. */
static enum cpc_evtab amd_evtab(const struct cpc_cpuinfo *ci)
{
	switch (ci->family) {
	case 0xf:
		return CPC_EVTAB_AMD_F;
	case 0x10:
		return CPC_EVTAB_AMD_10H;
	case 0x11:
		return CPC_EVTAB_AMD_11H;
	case 0x17:	/* Zen and Zen+ below model 30h, then Zen 2 */
		return ci->model < 0x30 ? CPC_EVTAB_ZEN1 : CPC_EVTAB_ZEN2;
	case 0x18:
		return CPC_EVTAB_ZEN1;
	case 0x19:
		return zen4_model(ci->model) ? CPC_EVTAB_ZEN4 : CPC_EVTAB_ZEN3;
	case 0x1a:
		return CPC_EVTAB_ZEN5;
	default:	/* no list of the original's */
		return CPC_EVTAB_NONE;
	}
}

static void opteron(const struct cpc_cpuinfo *ci, struct cpc_identity *id)
{
	id->pcbe = CPC_PCBE_OPTERON;
	if (ci->family == 0xf && !ci->hygon)
		__cpc_safe_fmt(id->cciname, sizeof(id->cciname),
		    "AMD Opteron & Athlon64");
	else
		__cpc_safe_fmt(id->cciname, sizeof(id->cciname),
		    "%s Family %02xh", ci->hygon ? "Hygon" : "AMD",
		    ci->family);
	id->cpuref = amd_cpuref(ci);
	id->npic = ci->amd_perfctr_core ? 6 : 4;
	id->caps = CPC_CAP_OVERFLOW_INTERRUPT;
	id->attrs = amd_attrs;
	id->evtab = amd_evtab(ci);
}

static void core(const struct cpc_cpuinfo *ci, struct cpc_identity *id)
{
	unsigned version = ci->pmu_version, fixed = ci->fixed_counters;

	/* Version 1, or 2 without fixed counters (erratum AW34): three. */
	if (version == 1 || (version == 2 && fixed == 0)) {
		version = 1;
		fixed = 3;
	}
	if (fixed > 3)	/* the back end knows three */
		fixed = 3;
	id->pcbe = CPC_PCBE_CORE;
	if (ci->family == 6 &&
	    (ci->model == 15 || ci->model == 23 || ci->model == 29))
		__cpc_safe_fmt(id->cciname, sizeof(id->cciname),
		    "Core Microarchitecture");
	else
		__cpc_safe_fmt(id->cciname, sizeof(id->cciname),
		    "Intel Arch PerfMon v%u on Family %u Model %u", version,
		    ci->family, ci->model);
	id->cpuref = core_ref;
	id->npic = ci->gp_counters + fixed;
	id->caps = CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE;
	id->attrs = version >= 3 ? core_v3_attrs : core_v12_attrs;
	id->evtab = ci->family == 6 && (ci->model == 15 || ci->model == 23 ||
			ci->model == 29)
	    ? CPC_EVTAB_CORE_UARCH
	    : CPC_EVTAB_INTEL_ARCH;
	id->gpc = ci->gp_counters;
	id->ffc = fixed;
	id->arch_events = ci->arch_events;
	id->arch_absent = ci->arch_absent;
	id->htt = ci->htt;
}

void __cpc_identity(const struct cpc_cpuinfo *ci, struct cpc_identity *id)
{
	memset(id, 0, sizeof(*id));
	if (ci->vendor == CPC_VENDOR_AMD && ci->family >= 0xf) {
		opteron(ci, id);
		return;
	}
	if (ci->vendor == CPC_VENDOR_INTEL && ci->pmu_version > 0 &&
	    ci->gp_counters + ci->fixed_counters > 0) {
		core(ci, id);
		return;
	}
	if (ci->vendor == CPC_VENDOR_INTEL &&
	    (ci->family == 5 || ci->family == 6)) {
		int mmx = ci->has_mmx;
		id->pcbe = ci->family == 5 ? CPC_PCBE_P5 : CPC_PCBE_P6;
		__cpc_safe_fmt(id->cciname, sizeof(id->cciname), "%s",
		    ci->family == 5 ? (mmx ? "Pentium with MMX" : "Pentium")
				    : (mmx ? "Pentium Pro with MMX, Pentium II"
					   : "Pentium Pro, Pentium II"));
		id->cpuref = ci->family == 5 ? p5_ref : p6_ref;
		id->npic = 2;
		id->caps = ci->family == 5 ? 0 : CPC_CAP_OVERFLOW_INTERRUPT;
		id->attrs = ci->family == 5 ? p5_attrs : p6_attrs;
		return;
	}
	/* No back end of the original's: Linux perf_event itself. */
	id->pcbe = CPC_PCBE_NONE;
	__cpc_safe_fmt(id->cciname, sizeof(id->cciname), "Linux perf_event");
	id->cpuref = perf_ref;
	id->npic = 0;
	id->caps = CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE;
	id->attrs = perf_attrs;
}
