/* SPDX-License-Identifier: MIT */
/*
 * The running processor's identity and event lists through the current
 * interfaces, as illumos's back end for it reports them: the
 * implementation name of AMD's and Intel's back ends (not the version 1
 * strings, which cpc_getcciname keeps), their attributes, and walkers
 * that list the back end's names only (Linux perf and libpfm4 names
 * through cpc_linux_walk_events), overall in the reverse order of first
 * appearance.  The unit test tests/unit/test_pcbe_identity.c covers other
 * processors, from simulated CPUID leaves.
 */
#include <check.h>
#include <errno.h>
#include <cpuid.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

static cpc_t *cpc;

static void setup(void)
{
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
}

static void teardown(void)
{
	cpc_close(cpc);
}

/* The vendor, family and model of the running processor. */
static void running(char vendor[13], unsigned *family, unsigned *model)
{
	unsigned a, b, c, d;
	ck_assert(__get_cpuid(0, &a, &b, &c, &d));
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	ck_assert(__get_cpuid(1, &a, &b, &c, &d));
	*family = (a >> 8) & 0xf;
	*model = (a >> 4) & 0xf;
	if (*family == 0xf)
		*family += (a >> 20) & 0xff;
	if (*family == 6 || *family >= 0xf)
		*model |= ((a >> 16) & 0xf) << 4;
}

struct list {
	int n;
	char names[1024][64];
};

static void add_name(void *arg, const char *name)
{
	struct list *l = arg;
	ck_assert_int_lt(l->n, 1024);
	snprintf(l->names[l->n++], sizeof(l->names[0]), "%s", name);
}

static void add_pic_name(void *arg, uint_t picno, const char *name)
{
	(void)picno;
	add_name(arg, name);
}

static int count(const struct list *l, const char *name)
{
	int n = 0;
	for (int i = 0; i < l->n; i++)
		n += strcmp(l->names[i], name) == 0;
	return n;
}

START_TEST(amd_back_end)
{
	char vendor[13];
	unsigned family, model;
	running(vendor, &family, &model);
	if (strcmp(vendor, "AuthenticAMD") != 0 || family < 0xf) {
		printf("SKIP amd_back_end: not an AMD family 0Fh or later "
		       "processor (%s family %xh)\n", vendor, family);
		return;
	}
	char want[64];
	if (family == 0xf)
		snprintf(want, sizeof(want), "AMD Opteron & Athlon64");
	else
		snprintf(want, sizeof(want), "AMD Family %02xh", family);
	ck_assert_str_eq(cpc_cciname(cpc), want);
	ck_assert_uint_eq(cpc_caps(cpc), CPC_CAP_OVERFLOW_INTERRUPT);
	ck_assert(cpc_npic(cpc) == 4 || cpc_npic(cpc) == 6);
	ck_assert_ptr_nonnull(strstr(cpc_cpuref(cpc), "AMD"));
	static struct list attrs;
	attrs.n = 0;
	cpc_walk_attrs(cpc, &attrs, add_name);
	ck_assert_int_eq(attrs.n, 6);
	const char *order[] = { "edge", "pc", "inv", "cmask", "umask",
		"picnum" };
	for (int i = 0; i < 6; i++)
		ck_assert_str_eq(attrs.names[i], order[i]);
	/* What is not in the list is refused. */
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t noedge = { "noedge", 1 };
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 1, &noedge), -1);
}
END_TEST

START_TEST(intel_back_end)
{
	char vendor[13];
	unsigned family, model, a, b, c, d;
	running(vendor, &family, &model);
	if (strcmp(vendor, "GenuineIntel") != 0 || !__get_cpuid(0, &a, &b, &c,
		&d) || a < 0xa) {
		printf("SKIP intel_back_end: not an Intel processor with "
		       "architectural performance monitoring\n");
		return;
	}
	__get_cpuid(0xa, &a, &b, &c, &d);
	unsigned version = a & 0xff;
	if (version == 0) {
		printf("SKIP intel_back_end: the PMU is hidden (version 0)\n");
		return;
	}
	if (version == 2 && (d & 0x1f) == 0)
		version = 1;
	char want[96];
	if (family == 6 && (model == 15 || model == 23 || model == 29))
		snprintf(want, sizeof(want), "Core Microarchitecture");
	else
		snprintf(want, sizeof(want),
		    "Intel Arch PerfMon v%u on Family %u Model %u", version,
		    family, model);
	ck_assert_str_eq(cpc_cciname(cpc), want);
	ck_assert_uint_eq(cpc_caps(cpc),
	    CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE);
}
END_TEST

/* The v1 strings stay the Solaris v1 ones. */
START_TEST(v1_strings_kept)
{
	ck_assert_str_eq(cpc_getcciname(CPC_PENTIUM_PRO_MMX),
	    "Pentium Pro with MMX, Pentium II");
	ck_assert_str_eq(cpc_getcciname(CPC_AMD64), "AMD Family 0Fh or later");
	ck_assert_uint_eq(cpc_getnpic(cpc_getcpuver()), 2);
}
END_TEST

START_TEST(walkers_list_the_back_end)
{
	static struct list all, pic0, gen_all, gen0, linux_names;
	all.n = pic0.n = gen_all.n = gen0.n = linux_names.n = 0;
	int perf_platform = cpc_getcpuver() == CPC_LINUX_PERF;
	/* Without a hardware PMU the back end is the software events. */
	int no_pmu = access("/sys/bus/event_source/devices/cpu/type", F_OK) &&
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK);
	cpc_walk_events_all(cpc, &all, add_name);
	cpc_walk_events_pic(cpc, 0, &pic0, add_pic_name);
	cpc_walk_generic_events_all(cpc, &gen_all, add_name);
	cpc_walk_generic_events_pic(cpc, 0, &gen0, add_pic_name);
	cpc_linux_walk_events(cpc, &linux_names, add_name);
	/* Perf's names are listed apart, unless they are the platform's. */
	ck_assert_int_eq(count(&all, "task-clock"), perf_platform || no_pmu);
	ck_assert_int_eq(count(&all, "cycles"), perf_platform && !no_pmu);
	ck_assert_int_eq(count(&pic0, "task-clock"), perf_platform || no_pmu);
	if (no_pmu) {
		/* A handful: the kernel's software events, canonical names. */
		ck_assert_int_eq(all.n, 9);
		ck_assert_int_eq(count(&all, "page-faults"), 1);
		ck_assert_int_eq(count(&all, "faults"), 0);
	}
	ck_assert_int_eq(count(&linux_names, "task-clock"), 1);
	/* perf's cache names, each its own (not the walker's last). */
	ck_assert_int_eq(count(&linux_names, "L1-dcache-load-misses"), 1);
	ck_assert_int_eq(count(&linux_names, "LLC-loads"), 1);
	ck_assert_int_eq(count(&linux_names, "node-prefetch-misses"), 1);
	/* Each name once, counter 0's first, in reverse order. */
	for (int i = 0; i < all.n; i++)
		ck_assert_int_eq(count(&all, all.names[i]), 1);
	ck_assert_int_ge(all.n, pic0.n);
	ck_assert_int_gt(pic0.n, 0);
	ck_assert_str_eq(all.names[all.n - 1], pic0.names[0]);
	if (all.n == pic0.n)
		for (int i = 0; i < pic0.n; i++)
			ck_assert_str_eq(all.names[i],
			    pic0.names[pic0.n - 1 - i]);
	ck_assert_int_gt(gen0.n, 0);
	ck_assert_str_eq(gen_all.names[gen_all.n - 1], gen0.names[0]);
	for (int i = 0; i < gen_all.n; i++)
		ck_assert_int_eq(strncmp(gen_all.names[i], "PAPI", 4), 0);
	/* Requests still take perf's names. */
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clock", 0,
			     CPC_COUNT_USER, 0, NULL), 0);
}
END_TEST

static void add_request_errno(cpc_t *c, const char *event, int *rc, int *err)
{
	cpc_set_t *set = cpc_set_create(c);
	ck_assert_ptr_nonnull(set);
	errno = 0;
	*rc = cpc_set_add_request(c, set, event, 0, CPC_COUNT_USER, 0, NULL);
	*err = errno;
	cpc_set_destroy(c, set);
}

/*
 * The running processor's own event names, as its back end lists them:
 * AMD's family tables (Zen's from family 17h), Intel's architectural
 * events; not the Family 0Fh or Pentium Pro names of the version 1
 * tables, which requests of the current interfaces refuse there.
 */
START_TEST(back_end_event_names)
{
	char vendor[13];
	unsigned family, model, a, b, c, d;
	running(vendor, &family, &model);
	const char *cycles = NULL, *old = NULL;
	if (strcmp(vendor, "AuthenticAMD") == 0 ||
	    strcmp(vendor, "HygonGenuine") == 0) {
		if (family >= 0xf && family <= 0x11)
			cycles = "BU_cpu_clk_unhalted";
		else if (family >= 0x17 && family <= 0x19)
			cycles = "LsNotHaltedCyc", old = "FR_retired_uops";
		else if (family == 0x1a)
			cycles = "Cycles_Not_in_Halt", old = "FR_retired_uops";
	} else if (strcmp(vendor, "GenuineIntel") == 0 &&
	    __get_cpuid(0, &a, &b, &c, &d) && a >= 0xa &&
	    __get_cpuid(0xa, &a, &b, &c, &d) && (a & 0xff) > 0 &&
	    ((a >> 8) & 0xff) > 0 && ((a >> 24) & 0xff) >= 2 && !(b & 2) &&
	    !(family == 6 && (model == 15 || model == 23 || model == 29))) {
		cycles = "inst_retired.any_p";
		old = "inst_retired";
	}
	if (cycles == NULL) {
		printf("SKIP back_end_event_names: no event list of the "
		       "original's for %s family %xh model %xh\n", vendor,
		    family, model);
		return;
	}
	int rc, err;
	add_request_errno(cpc, cycles, &rc, &err);
	ck_assert_int_eq(rc, 0);
	if (old != NULL) {
		add_request_errno(cpc, old, &rc, &err);
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(err, EINVAL);
	}
	/* Without a hardware PMU the back end is the software events'. */
	if (access("/sys/bus/event_source/devices/cpu/type", F_OK) != 0 &&
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK) != 0) {
		printf("back_end_event_names: no hardware PMU, lists not "
		       "checked\n");
		return;
	}
	static struct list all, gen;
	all.n = gen.n = 0;
	cpc_walk_events_all(cpc, &all, add_name);
	cpc_walk_generic_events_all(cpc, &gen, add_name);
	ck_assert_int_eq(count(&all, cycles), 1);
	ck_assert_int_eq(count(&gen, "PAPI_tot_ins"), 1);
	if (old != NULL)
		ck_assert_int_eq(count(&all, old), 0);
	/* The Linux list: the generic names beyond the back end's. */
	static struct list linux_names;
	linux_names.n = 0;
	cpc_linux_walk_events(cpc, &linux_names, add_name);
	int papi = 0;
	for (int i = 0; i < linux_names.n; i++) {
		if (strncmp(linux_names.names[i], "PAPI", 4) != 0)
			continue;
		papi++;
		ck_assert_int_eq(count(&gen, linux_names.names[i]), 0);
		add_request_errno(cpc, linux_names.names[i], &rc, &err);
		ck_assert_int_eq(rc, 0);
	}
	ck_assert_int_gt(papi, 0);
	printf("%s family %xh model %xh: %d platform names, %d generic\n",
	    vendor, family, model, all.n, gen.n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("identity");
	TCase *tc = tcase_create("identity");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, amd_back_end);
	tcase_add_test(tc, intel_back_end);
	tcase_add_test(tc, v1_strings_kept);
	tcase_add_test(tc, walkers_list_the_back_end);
	tcase_add_test(tc, back_end_event_names);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
