/* SPDX-License-Identifier: MIT */
/*
 * The identity the current interfaces report (cpc_cciname, cpc_cpuref,
 * cpc_npic, cpc_caps, cpc_walk_attrs) for simulated CPUID leaves: what
 * illumos's back end for each processor (opteron_pcbe.c, core_pcbe.c,
 * p123_pcbe.c) reports on it.
 */
#include <check.h>
#include <string.h>

#include "libcpc.h"
#include "cpuinfo.h"
#include "identity.h"

/* CPUID leaves of a processor: vendor, leaf 1 EAX, and the PMU leaves. */
static struct cpc_cpuid_raw leaves(const char *vendor, uint32_t maxleaf,
    uint32_t eax1, uint32_t edx1, uint32_t eaxa, uint32_t edxa,
    uint32_t ecx_ext1)
{
	struct cpc_cpuid_raw r;
	memset(&r, 0, sizeof(r));
	r.leaf0[0] = maxleaf;
	memcpy(&r.leaf0[1], vendor, 4);
	memcpy(&r.leaf0[3], vendor + 4, 4);
	memcpy(&r.leaf0[2], vendor + 8, 4);
	r.leaf1[0] = eax1;
	r.leaf1[3] = edx1;
	r.leafa[0] = eaxa;
	r.leafa[3] = edxa;
	r.ext1[2] = ecx_ext1;
	return r;
}

/* Leaf 1 EAX of a family and model (extended fields as CPUID has them). */
static uint32_t fms(unsigned family, unsigned model)
{
	uint32_t base = family >= 0xf ? 0xf : family;
	uint32_t ext = family >= 0xf ? family - 0xf : 0;
	return ext << 20 | (model >> 4) << 16 | base << 8 | (model & 0xf) << 4;
}

static struct cpc_identity identity(struct cpc_cpuid_raw r)
{
	struct cpc_cpuinfo ci;
	struct cpc_identity id;
	__cpc_cpuinfo_decode(&r, &ci);
	__cpc_identity(&ci, &id);
	return id;
}

static void attrs_are(const struct cpc_identity *id, const char *want)
{
	char got[128] = "";
	for (const char *const *a = id->attrs; *a != NULL; a++) {
		if (got[0] != '\0')
			strcat(got, ",");
		strcat(got, *a);
	}
	ck_assert_str_eq(got, want);
}

#define PERFCTR_CORE (1u << 23)

START_TEST(amd_zen)
{
	/* EPYC 9004 (Genoa): family 19h model 11h, six counters. */
	struct cpc_identity id = identity(leaves("AuthenticAMD", 0x10,
	    fms(0x19, 0x11), 1u << 23, 0, 0, PERFCTR_CORE));
	ck_assert_int_eq(id.pcbe, CPC_PCBE_OPTERON);
	ck_assert_str_eq(id.cciname, "AMD Family 19h");
	ck_assert_uint_eq(id.npic, 6);
	ck_assert_uint_eq(id.caps, CPC_CAP_OVERFLOW_INTERRUPT);
	ck_assert_ptr_nonnull(strstr(id.cpuref, "amd_f19h_zen4_events(3CPC)"));
	attrs_are(&id, "edge,pc,inv,cmask,umask");
	/* Zen 3 (Milan, 19h model 01h); without the extension: four. */
	id = identity(leaves("AuthenticAMD", 0x10, fms(0x19, 0x01), 0, 0, 0,
	    0));
	ck_assert_uint_eq(id.npic, 4);
	ck_assert_ptr_nonnull(strstr(id.cpuref, "amd_f19h_zen3_events(3CPC)"));
	/* Zen (17h model 01h), Zen 2 (17h model 31h), Zen 5 (1Ah). */
	id = identity(leaves("AuthenticAMD", 0xd, fms(0x17, 0x01), 0, 0, 0,
	    PERFCTR_CORE));
	ck_assert_str_eq(id.cciname, "AMD Family 17h");
	ck_assert_ptr_nonnull(strstr(id.cpuref, "amd_f17h_zen1_events(3CPC)"));
	id = identity(leaves("AuthenticAMD", 0xd, fms(0x17, 0x31), 0, 0, 0,
	    PERFCTR_CORE));
	ck_assert_ptr_nonnull(strstr(id.cpuref, "amd_f17h_zen2_events(3CPC)"));
	id = identity(leaves("AuthenticAMD", 0x10, fms(0x1a, 0x02), 0, 0, 0,
	    PERFCTR_CORE));
	ck_assert_str_eq(id.cciname, "AMD Family 1ah");
	ck_assert_ptr_nonnull(strstr(id.cpuref, "amd_f1ah_zen5_events(3CPC)"));
	/* Hygon Dhyana (18h). */
	id = identity(leaves("HygonGenuine", 0xd, fms(0x18, 0x00), 0, 0, 0,
	    PERFCTR_CORE));
	ck_assert_str_eq(id.cciname, "Hygon Family 18h");
	ck_assert_uint_eq(id.npic, 6);
}
END_TEST

START_TEST(amd_before_zen)
{
	struct cpc_identity id = identity(leaves("AuthenticAMD", 1,
	    fms(0xf, 0x41), 0, 0, 0, 0));
	ck_assert_str_eq(id.cciname, "AMD Opteron & Athlon64");
	ck_assert_uint_eq(id.npic, 4);
	ck_assert_ptr_nonnull(strstr(id.cpuref, "NPT Family 0Fh"));
	id = identity(leaves("AuthenticAMD", 1, fms(0xf, 0x05), 0, 0, 0, 0));
	ck_assert_ptr_nonnull(strstr(id.cpuref, "publication 26094"));
	id = identity(leaves("AuthenticAMD", 5, fms(0x10, 0x04), 0, 0, 0, 0));
	ck_assert_str_eq(id.cciname, "AMD Family 10h");
	ck_assert_ptr_nonnull(strstr(id.cpuref, "Family 10h Processors"));
}
END_TEST

START_TEST(intel_arch_perfmon)
{
	/* Skylake-SP: version 4, 4 general counters (8 without HT), 3 fixed. */
	struct cpc_identity id = identity(leaves("GenuineIntel", 0x16,
	    fms(6, 85), 1u << 23, 0x07300404, 0x603, 0));
	ck_assert_int_eq(id.pcbe, CPC_PCBE_CORE);
	ck_assert_str_eq(id.cciname, "Intel Arch PerfMon v4 on Family 6 Model 85");
	ck_assert_uint_eq(id.npic, 7);
	ck_assert_uint_eq(id.caps,
	    CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE);
	ck_assert_ptr_nonnull(strstr(id.cpuref, "325384-062US"));
	attrs_are(&id, "edge,inv,umask,cmask,anythr");
	/* Ice Lake: four fixed counters, of which the back end knows three. */
	id = identity(leaves("GenuineIntel", 0x1b, fms(6, 106), 0, 0x08300805,
	    0x604, 0));
	ck_assert_uint_eq(id.npic, 8 + 3);
	/* Core 2 (model 15), version 2: its own name and older attributes. */
	id = identity(leaves("GenuineIntel", 0xa, fms(6, 15), 1u << 23,
	    0x07280202, 0x503, 0));
	ck_assert_str_eq(id.cciname, "Core Microarchitecture");
	ck_assert_uint_eq(id.npic, 5);
	attrs_are(&id, "edge,pc,inv,umask,cmask");
	/* Version 2 without fixed counters is version 1 (erratum AW34). */
	id = identity(leaves("GenuineIntel", 0xa, fms(6, 14), 1u << 23,
	    0x07280202, 0, 0));
	ck_assert_str_eq(id.cciname, "Intel Arch PerfMon v1 on Family 6 Model 14");
	ck_assert_uint_eq(id.npic, 5);
}
END_TEST

START_TEST(intel_without_perfmon)
{
	/* Family 6 without leaf 0AH (Pentium III, or a PMU hidden). */
	struct cpc_identity id = identity(leaves("GenuineIntel", 3,
	    fms(6, 8), 1u << 23, 0, 0, 0));
	ck_assert_int_eq(id.pcbe, CPC_PCBE_P6);
	ck_assert_str_eq(id.cciname, "Pentium Pro with MMX, Pentium II");
	ck_assert_uint_eq(id.npic, 2);
	ck_assert_uint_eq(id.caps, CPC_CAP_OVERFLOW_INTERRUPT);
	ck_assert_ptr_nonnull(strstr(id.cpuref, "Appendix A.4"));
	attrs_are(&id, "noedge,pc,inv,int,umask,cmask");
	/* A leaf 0AH that says version 0 counts as none. */
	id = identity(leaves("GenuineIntel", 0xd, fms(6, 85), 0, 0, 0, 0));
	ck_assert_str_eq(id.cciname, "Pentium Pro, Pentium II");
	id = identity(leaves("GenuineIntel", 1, fms(5, 2), 0, 0, 0, 0));
	ck_assert_str_eq(id.cciname, "Pentium");
	ck_assert_uint_eq(id.caps, 0);
	attrs_are(&id, "noedge,pc");
}
END_TEST

START_TEST(other_vendor)
{
	struct cpc_identity id = identity(leaves("CentaurHauls", 1,
	    fms(6, 15), 0, 0, 0, 0));
	ck_assert_int_eq(id.pcbe, CPC_PCBE_NONE);
	ck_assert_str_eq(id.cciname, "Linux perf_event");
	ck_assert_uint_eq(id.npic, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("identity");
	TCase *tc = tcase_create("identity");
	tcase_add_test(tc, amd_zen);
	tcase_add_test(tc, amd_before_zen);
	tcase_add_test(tc, intel_arch_perfmon);
	tcase_add_test(tc, intel_without_perfmon);
	tcase_add_test(tc, other_vendor);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
