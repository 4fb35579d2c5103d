/* SPDX-License-Identifier: MIT */
/*
 * The encodings only the PMU sees, without a PMU: the x86 event-select
 * word the library builds from a version 1 control word (event code,
 * umask, cmask, inv, edge only with a cmask), the Pentium Pro codes moved
 * to each vendor's own, and each vendor's table of the Solaris generic
 * events (PAPI_*) against libpfm4's own tables of the same processors.
 * The processor's vendor is the test's (a fake __cpc_cpuinfo_read), so
 * both vendors' tables are checked on any machine.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>
#include <perfmon/pfmlib.h>

#include "libcpc.h"
#include "cpuinfo.h"
#include "generic_events.h"
#include "pes.h"

static enum cpc_vendor vendor = CPC_VENDOR_INTEL;

/* The processor the library believes it runs on: the test's. */
void __cpc_cpuinfo_read(struct cpc_cpuinfo *ci)
{
	memset(ci, 0, sizeof(*ci));
	ci->vendor = vendor;
	strcpy(ci->vendor_id,
	    vendor == CPC_VENDOR_AMD ? "AuthenticAMD" : "GenuineIntel");
}

/* No processor of the library's own: native names are not looked up. */
int cpc_getcpuver(void)
{
	return -1;
}

static uint64_t encode(int cpuver, uint32_t pes)
{
	struct cpc_evsel sel;
	ck_assert_int_eq(__cpc_pes_evsel(cpuver, pes, &sel), 0);
	ck_assert_uint_eq(sel.type, PERF_TYPE_RAW);
	ck_assert_uint_eq(sel.config1, 0);
	return sel.config;
}

#define UMASK(u) ((uint32_t)(u) << CPC_P6_PES_UMASK_SHIFT)
#define CMASK(c) ((uint32_t)(c) << CPC_P6_PES_CMASK_SHIFT)

START_TEST(event_select_bits)
{
	/* Event, umask and cmask in their places (Intel SDM 18.2.1). */
	ck_assert_uint_eq(encode(CPC_AMD64, 0x2e), 0x2e);
	ck_assert_uint_eq(encode(CPC_AMD64, 0x2e | UMASK(0x41)), 0x412e);
	ck_assert_uint_eq(encode(CPC_AMD64, 0xd0 | UMASK(0x81) | CMASK(3)),
	    0x30081d0);
	ck_assert_uint_eq(encode(CPC_AMD64, 0xff | UMASK(0xff) | CMASK(0xff)),
	    0xff00ffff);
	/* inv: bit 23. */
	ck_assert_uint_eq(encode(CPC_AMD64, 0x2e | CMASK(1) | PES_INV),
	    0x180002e);
	/* Edge (bit 18) only with a cmask: without one the counter counts
	 * cycles, and the original's default "edge" means nothing. */
	ck_assert_uint_eq(encode(CPC_AMD64, 0x2e | PES_E), 0x2e);
	ck_assert_uint_eq(encode(CPC_AMD64, 0x2e | PES_E | CMASK(1)),
	    0x104002e);
	ck_assert_uint_eq(encode(CPC_AMD64, 0x2e | PES_E | PES_INV | CMASK(2)),
	    0x284002e);
	/* usr, os, int, pc: not event-select bits here (they are the
	 * request's modes and notification, set by the interface). */
	ck_assert_uint_eq(encode(CPC_AMD64, 0x2e | PES_USR | PES_OS | PES_INT |
				      PES_PC),
	    0x2e);
}
END_TEST

START_TEST(pentium_pro_codes_per_vendor)
{
	vendor = CPC_VENDOR_INTEL;
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0x79), 0x3c);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0xc4), 0xc4);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0x43 | UMASK(1)), 0x143);
	vendor = CPC_VENDOR_AMD;
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0x79), 0x76);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0xc4), 0xc2);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0xc5), 0xc3);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0xc9), 0xc4);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0x43), 0x40);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0x45), 0x41);
	ck_assert_uint_eq(encode(CPC_PENTIUM_PRO, 0x2e), 0x2e);
	vendor = CPC_VENDOR_INTEL;
}
END_TEST

/*
 * The generic events each vendor encodes as a raw event select, and the
 * event of libpfm4's table of a processor of that vendor it must be.
 */
struct generic_expect {
	const char *generic;
	const char *pfm;	/* NULL: not available with this vendor */
};

static const struct generic_expect intel_expect[] = {
	{ "PAPI_br_cn", "skl::BR_INST_RETIRED:CONDITIONAL" },
	{ "PAPI_br_tkn", "skl::BR_INST_RETIRED:NEAR_TAKEN" },
	{ "PAPI_br_ntk", "skl::BR_INST_RETIRED:NOT_TAKEN" },
	{ "PAPI_hw_int", "skl::HW_INTERRUPTS:RECEIVED" },
	{ "PAPI_ld_ins", "skl::MEM_INST_RETIRED:ALL_LOADS" },
	{ "PAPI_sr_ins", "skl::MEM_INST_RETIRED:ALL_STORES" },
};

static const struct generic_expect amd_expect[] = {
	{ "PAPI_br_cn", NULL },
	{ "PAPI_br_tkn", "amd64_fam17h_zen1::RETIRED_TAKEN_BRANCH_INSTRUCTIONS" },
	{ "PAPI_br_ntk", NULL },
	{ "PAPI_hw_int", NULL },
	{ "PAPI_ld_ins", NULL },
	{ "PAPI_sr_ins", NULL },
};

/* The event select (event code and umask) libpfm4 gives an event. */
static uint64_t pfm_select(const char *name)
{
	pfm_pmu_encode_arg_t arg;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	ck_assert_msg(pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_NONE,
			  &arg) == PFM_SUCCESS,
	    "libpfm4 does not know %s", name);
	uint64_t code = arg.codes[0];
	free(arg.codes);
	/* Event code bits 0-7 and 32-35 (AMD), umask 8-15. */
	return code & 0xf0000ffffULL;
}

/* libpfm4 with the tables of the PMU named active (forced). */
static void pfm_force(const char *pmu)
{
	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	ck_assert_int_eq(pfm_initialize(), PFM_SUCCESS);
}

static void check_vendor(enum cpc_vendor v, const char *pmu,
    const struct generic_expect *e, size_t n)
{
	pfm_force(pmu);
	vendor = v;
	for (size_t i = 0; i < n; i++) {
		int g = __cpc_generic_lookup(e[i].generic);
		ck_assert_int_ge(g, 0);
		struct cpc_evsel sel;
		int rc = __cpc_generic_evsel((unsigned)g, &sel);
		if (e[i].pfm == NULL) {
			ck_assert_msg(rc != 0, "%s: none with this vendor",
			    e[i].generic);
			continue;
		}
		ck_assert_msg(rc == 0, "%s: not encoded", e[i].generic);
		ck_assert_uint_eq(sel.type, PERF_TYPE_RAW);
		ck_assert_msg(sel.config == pfm_select(e[i].pfm),
		    "%s is 0x%llx, libpfm4's %s 0x%llx", e[i].generic,
		    (unsigned long long)sel.config, e[i].pfm,
		    (unsigned long long)pfm_select(e[i].pfm));
	}
	vendor = CPC_VENDOR_INTEL;
}

START_TEST(generic_tables_match_libpfm4)
{
	check_vendor(CPC_VENDOR_INTEL, "skl", intel_expect,
	    sizeof(intel_expect) / sizeof(intel_expect[0]));
	check_vendor(CPC_VENDOR_AMD, "amd64_fam17h_zen1", amd_expect,
	    sizeof(amd_expect) / sizeof(amd_expect[0]));
	/* Neither vendor: no raw event at all. */
	vendor = CPC_VENDOR_OTHER;
	struct cpc_evsel sel;
	ck_assert_int_ne(__cpc_generic_evsel(
			     (unsigned)__cpc_generic_lookup("PAPI_br_tkn"), &sel),
	    0);
	vendor = CPC_VENDOR_INTEL;
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pes");
	TCase *tc = tcase_create("encode");
	tcase_add_test(tc, event_select_bits);
	tcase_add_test(tc, pentium_pro_codes_per_vendor);
	tcase_add_test(tc, generic_tables_match_libpfm4);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
