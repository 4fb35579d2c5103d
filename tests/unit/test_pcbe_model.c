/* SPDX-License-Identifier: MIT */
/*
 * Intel's model-specific event names in the original's form ("event.umask",
 * lower case), which illumos lists beside the architectural events on the
 * processors it has generated tables for: derived from libpfm4's tables of
 * a PMU the test forces (LIBPFM_FORCE_PMU), so that the host's processor
 * does not matter.
 */
#include <check.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcpc.h"
#include "cpuinfo.h"
#include "identity.h"
#include "pcbe_events.h"

/* An Intel processor of family 6 with an architectural PMU of version 4. */
static struct cpc_identity intel(unsigned model)
{
	struct cpc_cpuid_raw r;
	memset(&r, 0, sizeof(r));
	r.leaf0[0] = 0x16;
	memcpy(&r.leaf0[1], "Genu", 4);
	memcpy(&r.leaf0[3], "ineI", 4);
	memcpy(&r.leaf0[2], "ntel", 4);
	r.leaf1[0] = (model >> 4) << 16 | 6u << 8 | (model & 0xf) << 4;
	r.leaf1[3] = 1u << 28;	/* HTT */
	r.leafa[0] = 0x07300404;	/* 4 counters, 7 architectural events */
	r.leafa[3] = 0x603;	/* 3 fixed counters */
	struct cpc_cpuinfo ci;
	struct cpc_identity id;
	__cpc_cpuinfo_decode(&r, &ci);
	__cpc_identity(&ci, &id);
	return id;
}

/* libpfm4 with the tables of the PMU named, and only those. */
static void force(const char *pmu)
{
	pfm_terminate();
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	ck_assert_int_eq(pfm_initialize(), PFM_SUCCESS);
}

struct list {
	int n, arch_last;	/* arch_last: index of the last arch name */
	char text[65536];
};

static void add(void *arg, const char *name)
{
	struct list *l = arg;
	size_t len = strlen(l->text);
	if (strcmp(name, "br_misp_retired.all_branches") == 0 &&
	    l->arch_last < 0)
		l->arch_last = l->n;
	snprintf(l->text + len, sizeof(l->text) - len, ",%s", name);
	l->n++;
}

static struct list *walk(const struct cpc_identity *id, unsigned picno)
{
	static struct list l;
	memset(&l, 0, sizeof(l));
	l.arch_last = -1;
	__cpc_pcbe_walk(id, picno, &l, add);
	size_t len = strlen(l.text);
	snprintf(l.text + len, sizeof(l.text) - len, ",");
	return &l;
}

static int listed(const struct list *l, const char *name)
{
	char needle[160];
	snprintf(needle, sizeof(needle), ",%s,", name);
	return strstr(l->text, needle) != NULL;
}

static long long config_of(const struct cpc_identity *id, const char *name,
    int picno)
{
	uint64_t config = 0;
	int generic = -1;
	int r = __cpc_pcbe_lookup(id, name, picno, &config, &generic);
	if (r == CPC_PCBE_OTHER_PIC)
		return -2;
	if (r != CPC_PCBE_FOUND)
		return -1;
	ck_assert_int_eq(generic, 0);	/* they take attributes */
	return (long long)config;
}

START_TEST(skylake_lists_and_accepts_model_names)
{
	force("skl");
	struct cpc_identity id = intel(0x5e);
	ck_assert_uint_eq(id.gpc, 4);
	for (unsigned pic = 0; pic < 4; pic++) {
		struct list *l = walk(&id, pic);
		/* The architectural events first, then the model's names. */
		ck_assert_int_eq(l->arch_last, 8);
		ck_assert(strncmp(l->text, ",cpu_clk_unhalted.thread_p,", 27) ==
		    0);
		ck_assert_msg(l->n > 200, "%d names on counter %u", l->n, pic);
		ck_assert(listed(l, "br_inst_retired.conditional"));
		ck_assert(listed(l, "cycle_activity.stalls_total"));
		ck_assert(listed(l, "l2_rqsts.demand_data_rd_hit"));
		ck_assert(listed(l, "cpu_clk_unhalted.thread_p"));
		/* Not names of the original: off-core events, which need an
		 * extra register, and libpfm4's own spellings. */
		ck_assert(strstr(l->text, ",offcore_response_0.") == NULL);
		ck_assert(strstr(l->text, ":") == NULL);
		ck_assert(strstr(l->text, "UNHALTED") == NULL);
		ck_assert(!listed(l, "unhalted_core_cycles"));
	}
	/* The fixed counters list their own event only. */
	struct list *f = walk(&id, 4);
	ck_assert_int_eq(f->n, 2);
	ck_assert(!listed(f, "br_inst_retired.conditional"));

	/* Intel's encodings: event, unit mask, and the cmask some need. */
	ck_assert_int_eq(config_of(&id, "br_inst_retired.conditional", -1),
	    0x01c4);
	ck_assert_int_eq(config_of(&id, "br_inst_retired.conditional", 3),
	    0x01c4);
	ck_assert_int_eq(config_of(&id, "cycle_activity.stalls_total", 0),
	    0x40004a3);
	ck_assert_int_eq(config_of(&id, "br_inst_retired.near_call", -1),
	    0x02c4);
	ck_assert_int_eq(config_of(&id, "cpu_clk_unhalted.thread_p", 1), 0x3c);
	/* Only on the general-purpose counters. */
	ck_assert_int_eq(config_of(&id, "br_inst_retired.conditional", 4), -2);
	/* libpfm4's modifiers and spellings are not names of this form. */
	ck_assert_int_eq(config_of(&id, "br_inst_retired.u", -1), -1);
	ck_assert_int_eq(config_of(&id, "br_inst_retired.conditional:c=1", -1),
	    -1);
	ck_assert_int_eq(config_of(&id, "BR_INST_RETIRED.CONDITIONAL", -1), -1);
	ck_assert_int_eq(config_of(&id, "br_inst_retired", -1), -1);
	ck_assert_int_eq(config_of(&id, "br_inst_retired.", -1), -1);
	ck_assert_int_eq(config_of(&id, ".conditional", -1), -1);
	ck_assert_int_eq(config_of(&id, "offcore_response_0.dmnd_data_rd", -1),
	    -1);
	ck_assert_int_eq(config_of(&id, "no_such_event.any", -1), -1);
}
END_TEST

START_TEST(no_table_no_model_names)
{
	/* Ice Lake: the original has no table, the architectural events only. */
	force("icl");
	struct cpc_identity id = intel(0x7e);
	struct list *l = walk(&id, 0);
	ck_assert_int_eq(l->n, 9);
	ck_assert_int_eq(config_of(&id, "br_inst_retired.conditional", -1), -1);
	ck_assert_int_eq(config_of(&id, "inst_retired.any_p", -1), 0xc0);
}
END_TEST

/* Nor on a processor of another vendor, whatever libpfm4's tables. */
START_TEST(no_model_names_on_amd)
{
	force("skl");
	struct cpc_identity id;
	struct cpc_cpuid_raw r;
	memset(&r, 0, sizeof(r));
	r.leaf0[0] = 0xd;
	memcpy(&r.leaf0[1], "Auth", 4);
	memcpy(&r.leaf0[3], "enti", 4);
	memcpy(&r.leaf0[2], "cAMD", 4);
	r.leaf1[0] = 0xfu << 8 | 0x8u << 20 | 0x3u << 16;	/* 17h, Zen 2 */
	struct cpc_cpuinfo ci;
	__cpc_cpuinfo_decode(&r, &ci);
	__cpc_identity(&ci, &id);
	ck_assert_int_eq(config_of(&id, "br_inst_retired.conditional", -1), -1);
	ck_assert(!listed(walk(&id, 0), "br_inst_retired.conditional"));
}
END_TEST

/* libpfm4 is forced once a process: check forks each test. */
START_TEST(nehalem)
{
	force("nhm");
	struct cpc_identity id = intel(0x1a);
	ck_assert(listed(walk(&id, 0), "br_inst_retired.conditional"));
	ck_assert_int_eq(config_of(&id, "br_inst_retired.conditional", -1),
	    0x01c4);
}
END_TEST

START_TEST(silvermont)
{
	force("slm");
	struct cpc_identity id = intel(0x37);
	ck_assert(walk(&id, 1)->n > 10);
	ck_assert_int_eq(config_of(&id, "br_inst_retired.jcc", -1), 0x7ec4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pcbe_model");
	TCase *tc = tcase_create("pcbe_model");
	tcase_add_test(tc, skylake_lists_and_accepts_model_names);
	tcase_add_test(tc, no_table_no_model_names);
	tcase_add_test(tc, no_model_names_on_amd);
	tcase_add_test(tc, nehalem);
	tcase_add_test(tc, silvermont);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
