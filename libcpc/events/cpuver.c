/* SPDX-License-Identifier: MIT */
/*
 * cpc_version, cpc_getcpuver and the per-cpuver descriptions:
 * cpc_getcciname, cpc_getcpuref, cpc_getnpic and cpc_getusage; and the
 * Linux extension cpc_linux_cpudesc, the description of the running
 * processor and PMU.
 */
#include <pthread.h>
#include <unistd.h>

#include "libcpc.h"
#include "cpuinfo.h"
#include "native_events.h"
#include "platform_events.h"
#include "safefmt.h"

uint_t cpc_version(uint_t ver)
{
	switch (ver) {
	case CPC_VER_NONE:
	case CPC_VER_CURRENT:
		return CPC_VER_CURRENT;
	case 1:
		return 1;
	default:
		return CPC_VER_NONE;
	}
}

static int cpuver_of(const struct cpc_cpuinfo *ci)
{
	if (ci->vendor == CPC_VENDOR_INTEL && ci->family == 6)
		return ci->has_mmx ? CPC_PENTIUM_PRO_MMX : CPC_PENTIUM_PRO;
	if (ci->vendor == CPC_VENDOR_INTEL && ci->family == 5)
		return ci->model < 4 ? CPC_PENTIUM : CPC_PENTIUM_MMX;
	if (ci->vendor == CPC_VENDOR_AMD)
		return CPC_AMD64;
	return CPC_LINUX_PERF;
}

int cpc_getcpuver(void)
{
	struct cpc_cpuinfo ci;
	__cpc_cpuinfo_read(&ci);
	return cpuver_of(&ci);
}

/* 1 if the kernel has a hardware PMU for the core (not only software events). */
int __cpc_kernel_has_core_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu/type", F_OK) == 0 ||
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK) == 0;
}

/* The fixed name of a cpuver (Solaris names for the Intel ones). */
static const char *table_cciname(int cpuver)
{
	switch (cpuver) {
	case CPC_PENTIUM:
		return "Pentium";
	case CPC_PENTIUM_MMX:
		return "Pentium with MMX";
	case CPC_PENTIUM_PRO:
		return "Pentium Pro, Pentium II";
	case CPC_PENTIUM_PRO_MMX:
		return "Pentium Pro with MMX, Pentium II";
	case CPC_AMD64:
		return "AMD Family 0Fh or later";
	case CPC_LINUX_PERF:
		return "Linux perf_event";
	default:
		return NULL;
	}
}

static char running_cciname[CPC_MAX_IMPL_NAME];
static pthread_once_t cciname_once = PTHREAD_ONCE_INIT;

static void describe_running_cpu(void)
{
	struct cpc_cpuinfo ci;
	__cpc_cpuinfo_read(&ci);
	const char *pmu = __cpc_native_pmu_name();
	const char *what = __cpc_kernel_has_core_pmu()
	    ? "hardware and software events"
	    : "no hardware PMU available: software events only";
	int cpuver = cpuver_of(&ci);

	if (__cpc_platform_family(cpuver) == CPC_FAMILY_P6 ||
	    __cpc_platform_family(cpuver) == CPC_FAMILY_P5)
		__cpc_safe_fmt(running_cciname, sizeof(running_cciname),
		    "%s (Intel Family %u Model %u, libpfm4 PMU %s; %s)",
		    table_cciname(cpuver), ci.family, ci.model,
		    pmu != NULL ? pmu : "unknown", what);
	else if (cpuver == CPC_AMD64)
		__cpc_safe_fmt(running_cciname, sizeof(running_cciname),
		    "AMD Family %02xh Model %02xh (%s, libpfm4 PMU %s; %s)",
		    ci.family, ci.model, ci.vendor_id,
		    pmu != NULL ? pmu : "unknown", what);
	else
		__cpc_safe_fmt(running_cciname, sizeof(running_cciname),
		    "Linux perf_event (%s Family %u Model %u; %s)",
		    ci.vendor_id, ci.family, ci.model, what);
}

/* Exactly Solaris's strings for Solaris's cpuvers: tools strcmp them. */
const char *cpc_getcciname(int cpuver)
{
	return table_cciname(cpuver);
}

const char *cpc_linux_cpudesc(void)
{
	pthread_once(&cciname_once, describe_running_cpu);
	return running_cciname;
}

const char *cpc_getcpuref(int cpuver)
{
	switch (__cpc_platform_family(cpuver)) {
	case CPC_FAMILY_P5:
		return "See Appendix A.2 of the \"Intel Architecture Software "
		       "Developer's Manual,\" 243192, 1997";
	case CPC_FAMILY_P6:
		return "See Appendix A.1 of the \"Intel Architecture Software "
		       "Developer's Manual,\" 243192, 1997";
	case CPC_FAMILY_AMD:
		return "See the \"BIOS and Kernel Developer's Guide\" or the "
		       "\"Processor Programming Reference\" for your AMD "
		       "processor family, and perf_event_open(2)";
	case CPC_FAMILY_PERF:
		return "See perf_event_open(2) and perf-list(1)";
	default:
		return NULL;
	}
}

uint_t cpc_getnpic(int cpuver)
{
	return __cpc_platform_family(cpuver) == CPC_FAMILY_NONE ? 0 : 2;
}

const char *cpc_getusage(int cpuver)
{
	switch (__cpc_platform_family(cpuver)) {
	case CPC_FAMILY_P5:
		return "pic0=<event0>,pic1=<event1> [,sys[0|1]] "
		       "[,nouser[0|1]] [,noedge[0|1]] [,pc[0|1]]";
	case CPC_FAMILY_P6:
	case CPC_FAMILY_AMD:
	case CPC_FAMILY_PERF:
		return "pic0=<event0>,pic1=<event1> [,sys[0|1]] "
		       "[,nouser[0|1]] [,noedge[0|1]] [,pc[0|1]] [,int[0|1]] "
		       "[,inv[0|1]] [,cmask[0|1]=<maskspec>] "
		       "[,umask[0|1]=<maskspec>] ";
	default:
		return NULL;
	}
}

void cpc_walk_names(int cpuver, int regno, void *arg,
    void (*action)(void *arg, int regno, const char *name, uint8_t bits))
{
	if (action != NULL)
		__cpc_platform_walk(cpuver, regno, arg, action);
}
