/* SPDX-License-Identifier: MIT */
/*
 * The event names the current interfaces list and accept for simulated
 * processors, and their encodings: what illumos's back ends list on the
 * same processors (core_pcbe.c's architectural and fixed-counter events
 * on an Intel architectural PMU, its Core microarchitecture tables;
 * opteron_pcbe.c's tables of AMD families
 * 0Fh, 10h and Zen 1 to Zen 5, with each event's units and generic names).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc.h"
#include "cpuinfo.h"
#include "identity.h"
#include "pcbe_events.h"

static struct cpc_identity identity(const char *vendor, uint32_t maxleaf,
    unsigned family, unsigned model, uint32_t edx1, uint32_t eaxa,
    uint32_t ebxa, uint32_t edxa, uint32_t ecx_ext1)
{
	struct cpc_cpuid_raw r;
	memset(&r, 0, sizeof(r));
	r.leaf0[0] = maxleaf;
	memcpy(&r.leaf0[1], vendor, 4);
	memcpy(&r.leaf0[3], vendor + 4, 4);
	memcpy(&r.leaf0[2], vendor + 8, 4);
	uint32_t base = family >= 0xf ? 0xf : family;
	uint32_t ext = family >= 0xf ? family - 0xf : 0;
	r.leaf1[0] = ext << 20 | (model >> 4) << 16 | base << 8 |
	    (model & 0xf) << 4;
	r.leaf1[3] = edx1;
	r.leafa[0] = eaxa;
	r.leafa[1] = ebxa;
	r.leafa[3] = edxa;
	r.ext1[2] = ecx_ext1;
	struct cpc_cpuinfo ci;
	struct cpc_identity id;
	__cpc_cpuinfo_decode(&r, &ci);
	__cpc_identity(&ci, &id);
	return id;
}

#define HTT (1u << 28)
#define PERFCTR_CORE (1u << 23)

/* Skylake-SP: version 4, four counters of 48 bits, seven events, 3 fixed. */
static struct cpc_identity skylake(uint32_t edx1, uint32_t absent)
{
	return identity("GenuineIntel", 0x16, 6, 85, edx1, 0x07300404, absent,
	    0x603, 0);
}

static struct cpc_identity amd(unsigned family, unsigned model)
{
	return identity(family == 0x18 ? "HygonGenuine" : "AuthenticAMD", 0xd,
	    family, model, 0, 0, 0, 0, PERFCTR_CORE);
}

struct list {
	int n;
	char text[16384];	/* the names, comma-separated */
	char last[96];
};

static void add(void *arg, const char *name)
{
	struct list *l = arg;
	size_t len = strlen(l->text);
	snprintf(l->text + len, sizeof(l->text) - len, "%s%s",
	    l->n++ ? "," : "", name);
	snprintf(l->last, sizeof(l->last), "%s", name);
}

static struct list walk(const struct cpc_identity *id, unsigned picno)
{
	struct list l;
	memset(&l, 0, sizeof(l));
	__cpc_pcbe_walk(id, picno, &l, add);
	return l;
}

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The raw encoding of name on counter picno; -1 if not found there. */
static long long config_of(const struct cpc_identity *id, const char *name,
    int picno, int *generic)
{
	uint64_t config = 0;
	int g = -1;
	int r = __cpc_pcbe_lookup(id, name, picno, &config, &g);
	if (generic != NULL)
		*generic = g;
	if (r == CPC_PCBE_OTHER_PIC)
		return -2;
	return r == CPC_PCBE_FOUND ? (long long)config : -1;
}

START_TEST(intel_arch_perfmon_v4)
{
	struct cpc_identity id = skylake(HTT | (1u << 23), 0);
	ck_assert(__cpc_pcbe_has_events(&id));
	ck_assert_uint_eq(id.npic, 7);
	const char *gpc = "cpu_clk_unhalted.thread_p,PAPI_tot_cyc,"
			  "inst_retired.any_p,PAPI_tot_ins,"
			  "cpu_clk_unhalted.ref_p,longest_lat_cache.reference,"
			  "longest_lat_cache.miss,br_inst_retired.all_branches,"
			  "br_misp_retired.all_branches";
	for (unsigned p = 0; p < 4; p++)
		ck_assert_str_eq(walk(&id, p).text, gpc);
	ck_assert_str_eq(walk(&id, 4).text, "instr_retired.any,PAPI_tot_ins");
	ck_assert_str_eq(walk(&id, 5).text,
	    "cpu_clk_unhalted.thread,PAPI_tot_cyc");
	ck_assert_str_eq(walk(&id, 6).text, "cpu_clk_unhalted.ref");
	ck_assert_int_eq(walk(&id, 7).n, 0);
	/* Encodings: event | unit mask << 8; generic names take no attrs. */
	int generic;
	ck_assert_int_eq(config_of(&id, "longest_lat_cache.miss", -1, &generic),
	    0x412e);
	ck_assert_int_eq(generic, 0);
	ck_assert_int_eq(config_of(&id, "cpu_clk_unhalted.ref_p", 3, NULL),
	    0x013c);
	ck_assert_int_eq(config_of(&id, "br_misp_retired.all_branches", 0,
			     NULL), 0xc5);
	ck_assert_int_eq(config_of(&id, "PAPI_tot_cyc", 0, &generic), 0x3c);
	ck_assert_int_eq(generic, 1);
	ck_assert_int_eq(config_of(&id, "PAPI_tot_ins", 4, &generic), 0xc0);
	ck_assert_int_eq(generic, 1);
	/* Fixed counters' events: only there (perf's fixed encodings). */
	ck_assert_int_eq(config_of(&id, "cpu_clk_unhalted.ref", -1, NULL),
	    0x0300);
	ck_assert_int_eq(config_of(&id, "cpu_clk_unhalted.ref", 0, NULL), -2);
	ck_assert_int_eq(config_of(&id, "instr_retired.any", 4, NULL), 0xc0);
	ck_assert_int_eq(config_of(&id, "instr_retired.any", 5, NULL), -2);
	ck_assert_int_eq(config_of(&id, "cpu_clk_unhalted.thread", 5, NULL),
	    0x3c);
	/* Not the Pentium Pro's names. */
	ck_assert_int_eq(config_of(&id, "inst_retired", -1, NULL), -1);
	ck_assert_int_eq(config_of(&id, "cpu_clk_unhalted", -1, NULL), -1);
	ck_assert_int_eq(config_of(&id, "inst_retired.any_p", 7, NULL), -1);
}
END_TEST

START_TEST(intel_without_htt_or_absent_events)
{
	/* One logical processor: the core's names; event 2 reported absent. */
	struct cpc_identity id = skylake(1u << 23, 1u << 2);
	ck_assert_str_eq(walk(&id, 0).text,
	    "cpu_clk_unhalted.core,PAPI_tot_cyc,inst_retired.any_p,"
	    "PAPI_tot_ins,longest_lat_cache.reference,longest_lat_cache.miss,"
	    "br_inst_retired.all_branches,br_misp_retired.all_branches");
	ck_assert_str_eq(walk(&id, 5).text,
	    "cpu_clk_unhalted.core,PAPI_tot_cyc");
	ck_assert_int_eq(config_of(&id, "cpu_clk_unhalted.ref_p", -1, NULL),
	    -1);
	/* A vector of five events: the last two are not there. */
	id = identity("GenuineIntel", 0xd, 6, 60, HTT, 0x05300403, 0, 0x603,
	    0);
	ck_assert_str_eq(walk(&id, 2).last, "longest_lat_cache.miss");
	ck_assert_int_eq(config_of(&id, "br_inst_retired.all_branches", -1,
			     NULL), -1);
}
END_TEST

/* Core 2 (model 15, version 2): the Core microarchitecture's tables. */
START_TEST(intel_core_microarchitecture)
{
	struct cpc_identity id = identity("GenuineIntel", 0xa, 6, 15, HTT,
	    0x07280202, 0, 0x503, 0);
	ck_assert(__cpc_pcbe_has_events(&id));
	ck_assert_uint_eq(id.npic, 5);
	struct list p0 = walk(&id, 0), p1 = walk(&id, 1);
	ck_assert_int_eq(p0.n, 5 + 1 + 111 + 23);
	ck_assert_int_eq(p1.n, 4 + 111 + 23);
	ck_assert(starts_with(p0.text, "cycles_div_busy,fp_comp_ops_exe,"
				       "idle_during_div,mem_load_retired,"
				       "rs_uops_dispatched_port,PAPI_l1_dcm,"
				       "baclears,bogus_br,"));
	ck_assert(starts_with(p1.text, "delayed_bypass,div,fp_assist,mul,"
				       "baclears,"));
	ck_assert_ptr_nonnull(strstr(p0.text,
	    ",uops_retired,x87_ops_retired,PAPI_tot_cyc,PAPI_tot_ins,"));
	ck_assert_str_eq(p1.last, "PAPI_tlb_tl");
	ck_assert_str_eq(walk(&id, 2).text, "instr_retired.any,PAPI_tot_ins");
	ck_assert_str_eq(walk(&id, 3).text,
	    "cpu_clk_unhalted.thread,PAPI_tot_cyc");
	int generic;
	ck_assert_int_eq(config_of(&id, "PAPI_br_ins", 1, &generic), 0x0cc4);
	ck_assert_int_eq(generic, 1);
	ck_assert_int_eq(config_of(&id, "inst_retired", -1, &generic), 0xc0);
	ck_assert_int_eq(generic, 0);
	ck_assert_int_eq(config_of(&id, "mul", 0, NULL), -2);
	ck_assert_int_eq(config_of(&id, "mul", 1, NULL), 0x12);
	ck_assert_int_eq(config_of(&id, "PAPI_l1_dcm", 1, NULL), -2);
	ck_assert_int_eq(config_of(&id, "PAPI_l1_dcm", 0, NULL), 0x01cb);
	ck_assert_int_eq(config_of(&id, "l2_rqsts", 1, NULL), 0x2e);
	ck_assert_int_eq(config_of(&id, "inst_retired.any_p", -1, NULL), -1);
	ck_assert_int_eq(config_of(&id, "instr_retired.any", 2, NULL), 0xc0);
	ck_assert_int_eq(config_of(&id, "instr_retired.any", 0, NULL), -2);
}
END_TEST

/* Zen (family 17h model 01h): every counter lists the same names. */
START_TEST(amd_zen1)
{
	struct cpc_identity id = amd(0x17, 0x01);
	ck_assert_uint_eq(id.npic, 6);
	struct list l = walk(&id, 0);
	ck_assert_int_eq(l.n, 171 + 7);
	ck_assert_str_eq(walk(&id, 5).text, l.text);
	ck_assert(starts_with(l.text, "FpuPipeAssignment,FpSchedEmpty,"
				      "FpRetx87FpOps,FpRetx87FpOps.DivSqrROps,"
				      "FpRetx87FpOps.MulOps,"
				      "FpRetx87FpOps.AddSubOps,FpRetSseAvxOps,"));
	ck_assert_ptr_nonnull(strstr(l.text,
	    ",L2FillPending,PAPI_br_cn,PAPI_br_ins,PAPI_fpu_idl,"
	    "PAPI_tot_cyc,PAPI_tot_ins,PAPI_tlb_dm,PAPI_tlb_im"));
	ck_assert_str_eq(l.last, "PAPI_tlb_im");
	/* Units combined otherwise, or not read-write, are not listed. */
	ck_assert_ptr_null(strstr(l.text, "LsLocks."));
	ck_assert_ptr_null(strstr(l.text, "IcFetchStall.IcStallAny"));
	ck_assert_ptr_nonnull(strstr(l.text, ",IcFetchStall.IcStallDqEmpty,"));
	ck_assert_ptr_null(strstr(l.text, "LsBadStatus2.StliNoState"));
	/* Encodings: event 7:0, unit 15:8, event 11:8 at 35:32. */
	int generic;
	ck_assert_int_eq(config_of(&id, "LsNotHaltedCyc", 3, &generic), 0x76);
	ck_assert_int_eq(generic, 0);
	ck_assert_int_eq(config_of(&id, "ExTaggedIbsOps.IbsTaggedOps", -1,
			     NULL), 0x1000001cfLL);
	ck_assert_int_eq(config_of(&id, "IcOcModeSwitch.OcIcModeSwitch", -1,
			     NULL), 0x20000028aLL);
	ck_assert_int_eq(config_of(&id, "L2RequestG1.RdBlkL", -1, NULL),
	    0x8060);
	ck_assert_int_eq(config_of(&id, "PAPI_tot_ins", -1, &generic), 0xc0);
	ck_assert_int_eq(generic, 1);
	ck_assert_int_eq(config_of(&id, "PAPI_fpu_idl", -1, NULL), 0x01);
	ck_assert_int_eq(config_of(&id, "PAPI_tlb_dm", -1, NULL), 0x45);
	ck_assert_int_eq(config_of(&id, "PAPI_tlb_im", -1, NULL), 0x85);
	/* Family 0Fh's names are not Zen's. */
	ck_assert_int_eq(config_of(&id, "FR_retired_uops", -1, NULL), -1);
	ck_assert_int_eq(config_of(&id, "BU_cpu_clk_unhalted", -1, NULL), -1);
	/* Hygon's Dhyana (18h) is a Zen. */
	id = amd(0x18, 0x00);
	ck_assert_int_eq(walk(&id, 0).n, 171 + 7);
}
END_TEST

START_TEST(amd_zen2)
{
	struct cpc_identity id = amd(0x17, 0x31);
	struct list l = walk(&id, 0);
	ck_assert_int_eq(l.n, 157 + 6);
	ck_assert_ptr_nonnull(strstr(l.text, ",LsRdTsc,"));
	ck_assert_ptr_nonnull(strstr(l.text,
	    ",DeDisDispatchTokenStalls0.ScAguDispatchStall,"));
	ck_assert_ptr_null(strstr(l.text, "PAPI_fpu_idl"));
	ck_assert_int_eq(config_of(&id, "LsRdTsc", -1, NULL), 0x2d);
	ck_assert_int_eq(config_of(&id, "LsMabAlloc.DcPrefetcher", -1, NULL),
	    0x841);
	/* Listed, but the event it names is not Zen 2's: refused. */
	ck_assert_str_eq(l.last, "PAPI_tlb_im");
	ck_assert_int_eq(config_of(&id, "PAPI_tlb_im", -1, NULL), -1);
	ck_assert_int_eq(config_of(&id, "BpL1TlbMissL2TlbMiss.IF4K", -1, NULL),
	    0x185);
}
END_TEST

START_TEST(amd_family_19h)
{
	/* Zen 3 (Milan, model 01h). */
	struct cpc_identity id = amd(0x19, 0x01);
	struct list l = walk(&id, 0);
	ck_assert_int_eq(l.n, 156 + 6);
	ck_assert_ptr_nonnull(strstr(l.text, ",LsDmndFillsFromSys.MemIoRemote,"));
	ck_assert_ptr_null(strstr(l.text, "TlbReloadCoalescedPageHit"));
	ck_assert_int_eq(config_of(&id, "PAPI_tlb_im", -1, NULL), 0x85);
	ck_assert_int_eq(config_of(&id, "ExRetMsprdBrnchInstrDirMsmtch", -1,
			     NULL), 0x1000000c7LL);
	/* Zen 4 (Genoa, model 11h). */
	id = amd(0x19, 0x11);
	l = walk(&id, 2);
	ck_assert_int_eq(l.n, 216 + 6);
	ck_assert_ptr_nonnull(strstr(l.text, ",L2RequestG1.Group2. Read-write,"));
	ck_assert_ptr_nonnull(strstr(l.text, ",LsNotHaltedP0Cyc.P0FreqCyc,"));
	ck_assert_ptr_null(strstr(l.text, "ExNoRetire."));
	ck_assert_int_eq(config_of(&id, "LsNotHaltedP0Cyc.P0FreqCyc", -1, NULL),
	    0x100000120LL);
	ck_assert_int_eq(config_of(&id, "L2PfMissL2L3.L2Stream", -1, NULL),
	    0x172);
	ck_assert_int_eq(config_of(&id, "PAPI_tot_cyc", -1, NULL), 0x76);
}
END_TEST

START_TEST(amd_zen5)
{
	struct cpc_identity id = amd(0x1a, 0x02);
	struct list l = walk(&id, 0);
	ck_assert_int_eq(l.n, 203 + 8);
	ck_assert(starts_with(l.text, "Retired_x87_FP_Ops,"));
	ck_assert_str_eq(l.last, "PAPI_tlb_sd");
	ck_assert_ptr_nonnull(strstr(l.text,
	    ",L2CacheReqStat.LsRdBlkLHitX: Data Cache Read Hit in L2,"));
	ck_assert_ptr_nonnull(strstr(l.text, ",LS_Dispatch.PureLd,"));
	int generic;
	ck_assert_int_eq(config_of(&id, "PAPI_br_msp", -1, &generic),
	    0x1000000c7LL);
	ck_assert_int_eq(generic, 1);
	ck_assert_int_eq(config_of(&id, "PAPI_tlb_sd", -1, NULL), 0x78);
	ck_assert_int_eq(config_of(&id, "Cycles_Not_in_Halt", -1, NULL), 0x76);
	ck_assert_int_eq(config_of(&id, "L2FillRspSrc.LocalCcx", -1, NULL),
	    0x100000265LL);
	ck_assert_int_eq(config_of(&id, "ExRetInstr", -1, NULL), -1);
}
END_TEST

START_TEST(amd_before_zen)
{
	struct cpc_identity id = amd(0xf, 0x41);
	struct list l = walk(&id, 3);
	ck_assert_int_eq(l.n, 78 + 9 + 27 + 4);
	ck_assert(starts_with(l.text, "FP_dispatched_fpu_ops,"));
	ck_assert_ptr_nonnull(strstr(l.text,
	    ",NB_ht_bus0_bandwidth,BU_quadwords_written_to_system,"));
	ck_assert_str_eq(l.last, "PAPI_vec_ins");
	int generic;
	ck_assert_int_eq(config_of(&id, "PAPI_l2_dcm", -1, &generic), 0x1e43);
	ck_assert_int_eq(generic, 1);
	ck_assert_int_eq(config_of(&id, "PAPI_fp_ins", -1, NULL), 0x0dcb);
	ck_assert_int_eq(config_of(&id, "BU_cpu_clk_unhalted", 0, NULL), 0x76);
	/* Family 10h: extended codes and its own generic names. */
	id = amd(0x10, 0x04);
	l = walk(&id, 0);
	ck_assert_int_eq(l.n, 78 + 42 + 27 + 8);
	ck_assert_int_eq(config_of(&id, "L3_miss", -1, NULL), 0x4000000e1LL);
	ck_assert_int_eq(config_of(&id, "PAPI_l3_tcm", -1, NULL),
	    0x40000f7e1LL);
	ck_assert_int_eq(config_of(&id, "PAPI_tlb_dm", -1, NULL), 0x746);
	/* Family 11h lists PAPI_fp_ins, whose event it lacks: refused. */
	id = amd(0x11, 0x03);
	ck_assert_int_eq(config_of(&id, "PAPI_fp_ins", -1, NULL), -1);
	ck_assert_int_eq(config_of(&id, "FR_retired_mmx_fp_instr", -1, NULL),
	    0xcb);
	/* No list of the original's for family 15h. */
	id = amd(0x15, 0x02);
	ck_assert(!__cpc_pcbe_has_events(&id));
	ck_assert_int_eq(walk(&id, 0).n, 0);
}
END_TEST

int main(void)
{
	/*
	 * libpfm4 with the architectural PMU's tables only: the model's own
	 * names, which an Intel host's tables would add, are
	 * test_pcbe_model's.
	 */
	setenv("LIBPFM_FORCE_PMU", "ix86arch", 1);
	Suite *s = suite_create("pcbe_events");
	TCase *tc = tcase_create("pcbe_events");
	tcase_add_test(tc, intel_arch_perfmon_v4);
	tcase_add_test(tc, intel_without_htt_or_absent_events);
	tcase_add_test(tc, intel_core_microarchitecture);
	tcase_add_test(tc, amd_zen1);
	tcase_add_test(tc, amd_zen2);
	tcase_add_test(tc, amd_family_19h);
	tcase_add_test(tc, amd_zen5);
	tcase_add_test(tc, amd_before_zen);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
