/* SPDX-License-Identifier: MIT */
/*
 * Every naming route of the library reaches the (simulated) PMU with the
 * encoding libpfm4 gives for the guest's processor, compared field by
 * field (event, umask, cmask, inv, edge, usr, os) in the PMU's own record
 * of the events it was asked to count: Solaris P6 names with their
 * attributes (Intel), Solaris AMD names (AMD), the names of illumos's
 * back end in version 2 (Zen's events and units on the EPYC guest),
 * generic PAPI_* names,
 * libpfm4 native names in both forms, perf names and numeric codes, through
 * the version 1 (cpc_strtoevent/cpc_bind_event) and version 2
 * (cpc_set_add_request/cpc_bind_curlwp) interfaces.
 *
 * Runs in the qemu guest of "make check-hw" (tests/hw/check-hw.sh); skips
 * (77) where /sys/kernel/simpmu does not exist.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libcpc.h>

#include "hwutil.h"
#include "testutil.h"

/*
 * One route: v1 spec (two events) or v2 event with attributes.  The
 * expected encodings are libpfm4 event specifications ("raw:0x..." for a
 * number given as such); plm: 1 user, 2 kernel, 3 both.
 */
struct route {
	const char *label;
	int v2;
	const char *spec;	/* v1: cpc_strtoevent string; v2: event name */
	const char *attrs;	/* v2: "umask=1,cmask=2,..." or NULL */
	unsigned flags;		/* v2: CPC_COUNT_* */
	const char *expect[2];	/* per request */
	int plm[2];
};

#define U CPC_COUNT_USER
#define S CPC_COUNT_SYSTEM

static const struct route intel_routes[] = {
	/* Solaris P6 names (cpuver 2003) and their attributes. */
	{ "v1 P6 names", 0, "pic0=inst_retired,pic1=cpu_clk_unhalted", NULL, 0,
	    { "INST_RETIRED:ANY_P", "CPU_CLK_UNHALTED:THREAD_P" }, { 1, 1 } },
	{ "v1 P6 umask/cmask/inv (cmask keeps edge)", 0,
	    "pic0=inst_retired,pic1=cpu_clk_unhalted,umask0=0x1,cmask0=2,inv0",
	    NULL, 0,
	    { "INST_RETIRED:PREC_DIST:c=2:i=1:e=1", "CPU_CLK_UNHALTED:THREAD_P" },
	    { 1, 1 } },
	{ "v1 P6 cmask with noedge", 0,
	    "pic0=inst_retired,pic1=cpu_clk_unhalted,cmask1=3,noedge1", NULL, 0,
	    { "INST_RETIRED:ANY_P", "CPU_CLK_UNHALTED:THREAD_P:c=3" },
	    { 1, 1 } },
	{ "v1 P6 nouser/sys", 0,
	    "pic0=inst_retired,pic1=cpu_clk_unhalted,nouser0,sys", NULL, 0,
	    { "INST_RETIRED:ANY_P", "CPU_CLK_UNHALTED:THREAD_P" }, { 2, 3 } },
	{ "v1 P6 implicit names", 0, "br_inst_retired,inst_retired", NULL, 0,
	    { "BR_INST_RETIRED:ALL_BRANCHES", "INST_RETIRED:ANY_P" }, { 1, 1 } },
	/*
	 * Version 2: qemu shows no architectural PMU in CPUID, so the back
	 * end is the Pentium Pro's, whose names requests take (the
	 * architectural names are the unit suite's, test_pcbe_events).
	 */
	{ "v2 P6 name with attributes (no edge: not a P6 attribute)", 1,
	    "inst_retired", "umask=1,cmask=2,inv=1", U | S,
	    { "INST_RETIRED:PREC_DIST:c=2:i=1" }, { 3 } },
	{ "v2 P6 name, system only", 1, "cpu_clk_unhalted", NULL, S,
	    { "CPU_CLK_UNHALTED:THREAD_P" }, { 2 } },
	/* Generic names. */
	{ "v1 PAPI names", 0, "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc", NULL, 0,
	    { "INST_RETIRED:ANY_P", "CPU_CLK_UNHALTED:THREAD_P" }, { 1, 1 } },
	{ "v2 PAPI_tot_cyc", 1, "PAPI_tot_cyc", NULL, U,
	    { "CPU_CLK_UNHALTED:THREAD_P" }, { 1 } },
	{ "v2 PAPI_br_cn (raw table)", 1, "PAPI_br_cn", NULL, U | S,
	    { "BR_INST_RETIRED:CONDITIONAL" }, { 3 } },
	/* libpfm4 native names, both forms. */
	{ "v2 native INST_RETIRED:ANY_P", 1, "INST_RETIRED:ANY_P", NULL, U,
	    { "INST_RETIRED:ANY_P" }, { 1 } },
	{ "v2 native inst_retired.any_p", 1, "inst_retired.any_p", NULL, U,
	    { "INST_RETIRED:ANY_P" }, { 1 } },
	{ "v1 native, both forms", 0,
	    "pic0=MEM_INST_RETIRED:ALL_LOADS,pic1=br_inst_retired.conditional",
	    NULL, 0,
	    { "MEM_INST_RETIRED:ALL_LOADS", "BR_INST_RETIRED:CONDITIONAL" },
	    { 1, 1 } },
	/* Linux perf names: the kernel's x86 table for Skylake. */
	{ "v1 perf names", 0, "pic0=instructions,pic1=cycles,sys1", NULL, 0,
	    { "INST_RETIRED:ANY_P", "CPU_CLK_UNHALTED:THREAD_P" }, { 1, 3 } },
	{ "v2 perf L1-dcache-loads", 1, "L1-dcache-loads", NULL, U,
	    { "MEM_INST_RETIRED:ALL_LOADS" }, { 1 } },
	{ "v2 perf L1-dcache-load-misses", 1, "L1-dcache-load-misses", NULL, U,
	    { "L1D:REPLACEMENT" }, { 1 } },
	/* Numeric codes. */
	{ "v1 numeric codes", 0, "pic0=0xc0,pic1=60,umask1=0x1", NULL, 0,
	    { "INST_RETIRED:ANY_P", "CPU_CLK_UNHALTED:REF_XCLK" }, { 1, 1 } },
	{ "v2 numeric code with umask", 1, "0xc4", "umask=0x20", U,
	    { "BR_INST_RETIRED:NEAR_TAKEN" }, { 1 } },
};

static const struct route amd_routes[] = {
	/* Solaris AMD names (cpuver 2500). */
	{ "v1 AMD names", 0,
	    "pic0=BU_cpu_clk_unhalted,pic1=FR_retired_x86_instr_w_excp_intr",
	    NULL, 0, { "CYCLES_NOT_IN_HALT", "RETIRED_INSTRUCTIONS" },
	    { 1, 1 } },
	{ "v1 AMD DC_miss with attributes", 0,
	    "pic0=DC_miss,pic1=DC_access,umask1=0x3,nouser1,sys1", NULL, 0,
	    { "raw:0x41", "raw:0x340" }, { 1, 2 } },
	/* The back end's Zen names (v2), with units and attributes. */
	{ "v2 Zen name with attributes", 1, "ExRetInstr", "cmask=1,inv=1",
	    U | S, { "RETIRED_INSTRUCTIONS:c=1:i=1" }, { 3 } },
	{ "v2 Zen name, system only", 1, "LsNotHaltedCyc", NULL, S,
	    { "CYCLES_NOT_IN_HALT" }, { 2 } },
	{ "v2 Zen event.unit name", 1, "ExRetMmxFpInstr.SseInstr", NULL, U,
	    { "raw:0x4cb" }, { 1 } },
	{ "v2 Zen unit with a umask added", 1, "ExRetMmxFpInstr.SseInstr",
	    "umask=0x1", U, { "raw:0x5cb" }, { 1 } },
	{ "v2 Zen 12-bit event.unit name", 1, "ExTaggedIbsOps.IbsTaggedOps",
	    NULL, U, { "raw:0x1000001cf" }, { 1 } },
	/* Generic names. */
	{ "v1 PAPI names", 0, "pic0=PAPI_tot_cyc,pic1=PAPI_tot_ins", NULL, 0,
	    { "CYCLES_NOT_IN_HALT", "RETIRED_INSTRUCTIONS" }, { 1, 1 } },
	{ "v2 PAPI_br_ins", 1, "PAPI_br_ins", NULL, U,
	    { "RETIRED_BRANCH_INSTRUCTIONS" }, { 1 } },
	/* libpfm4 native names, both forms. */
	{ "v2 native RETIRED_INSTRUCTIONS", 1, "RETIRED_INSTRUCTIONS", NULL, U,
	    { "RETIRED_INSTRUCTIONS" }, { 1 } },
	{ "v2 native retired_branch_instructions", 1,
	    "retired_branch_instructions", NULL, U | S,
	    { "RETIRED_BRANCH_INSTRUCTIONS" }, { 3 } },
	/* Linux perf names: the kernel's x86 table for family 17h. */
	{ "v1 perf names", 0, "pic0=cycles,pic1=instructions", NULL, 0,
	    { "CYCLES_NOT_IN_HALT", "RETIRED_INSTRUCTIONS" }, { 1, 1 } },
	{ "v2 perf L1-dcache-loads", 1, "L1-dcache-loads", NULL, U,
	    { "DATA_CACHE_ACCESSES" }, { 1 } },
	{ "v2 perf branch-misses", 1, "branch-misses", NULL, U,
	    { "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED" }, { 1 } },
	/* Numeric codes: 12 bits on AMD. */
	{ "v1 numeric codes", 0, "pic0=0x76,pic1=192", NULL, 0,
	    { "CYCLES_NOT_IN_HALT", "RETIRED_INSTRUCTIONS" }, { 1, 1 } },
	{ "v2 numeric 12-bit code", 1, "0x1c0", "umask=0x2", U,
	    { "raw:0x1000002c0" }, { 1 } },
};

static const struct route *routes;
static int nroutes;

/* The expected fields of one request. */
static void expected(const char *spec, int plm, struct evsel_fields *f)
{
	if (strncmp(spec, "raw:", 4) == 0) {
		evsel_split(strtoull(spec + 4, NULL, 0), f);
		f->usr = plm & 1;
		f->os = (plm & 2) != 0;
		return;
	}
	ck_assert_msg(pfm_expected(spec, plm, f) == 0, "%s", hw_pfm_error);
}

/* v2: one request with attributes "a=v,b=w". */
static void bind_v2(const struct route *r, cpc_t **cpcp, cpc_set_t **setp)
{
	cpc_attr_t attrs[8];
	char names[8][32];
	int nattrs = 0;
	if (r->attrs != NULL) {
		char copy[128];
		snprintf(copy, sizeof(copy), "%s", r->attrs);
		for (char *tok = strtok(copy, ","); tok != NULL && nattrs < 8;
		     tok = strtok(NULL, ",")) {
			char *eq = strchr(tok, '=');
			ck_assert_ptr_nonnull(eq);
			*eq = '\0';
			snprintf(names[nattrs], sizeof(names[nattrs]), "%s", tok);
			attrs[nattrs].ca_name = names[nattrs];
			attrs[nattrs].ca_val = strtoull(eq + 1, NULL, 0);
			nattrs++;
		}
	}
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_ptr_nonnull(set);
	ck_assert_msg(cpc_set_add_request(cpc, set, r->spec, 0, r->flags,
			  (uint_t)nattrs, attrs) == 0,
	    "%s: cpc_set_add_request(%s): %s", r->label, r->spec,
	    strerror(errno));
	ck_assert_msg(cpc_bind_curlwp(cpc, set, 0) == 0,
	    "%s: cpc_bind_curlwp(%s): %s", r->label, r->spec, strerror(errno));
	*cpcp = cpc;
	*setp = set;
}

/*
 * An unprivileged user may not count in system mode (kmod's allow_system
 * is 0 and perf_event_paranoid 3): such a route is refused at bind with
 * EACCES and a message, before anything reaches the PMU.
 */
static void refused_unprivileged(const struct route *r)
{
	capture_errors();
	errno = 0;
	if (r->v2) {
		cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
		ck_assert_ptr_nonnull(cpc);
		cpc_set_t *set = cpc_set_create(cpc);
		ck_assert_int_eq(cpc_set_add_request(cpc, set, r->spec, 0,
				     r->flags, 0, NULL), 0);
		ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), -1);
		ck_assert_int_eq(errno, EACCES);
		cpc_close(cpc);
	} else {
		cpc_event_t ev;
		ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(), r->spec, &ev), 0);
		ck_assert_int_eq(cpc_bind_event(&ev, 0), -1);
		ck_assert_int_eq(errno, EACCES);
		/* Silent through the error function, as Solaris's
		 * cpc_bind_event; the cause and remedy in the Linux note. */
		ck_assert_msg(captured_errors()[0] == '\0', "v1 printed: %s",
		    captured_errors());
		const char *note = cpc_linux_errnote(NULL);
		ck_assert_msg(note != NULL && strstr(note, "allow_system") != NULL,
		    "note: %s", note != NULL ? note : "(none)");
	}
	printf("route %-40s refused for uid %d: EACCES\n", r->label,
	    (int)geteuid());
}

START_TEST(route_reaches_pmu)
{
	const struct route *r = &routes[_i];
	int n = r->v2 ? 1 : 2;
	uint64_t counts[2] = { 0, 0 };

	if (geteuid() != 0 && ((r->plm[0] & 2) || (n == 2 && (r->plm[1] & 2)))) {
		refused_unprivileged(r);
		return;
	}
	capture_errors();
	uint64_t mark = simpmu_mark();
	ck_assert_msg(mark != 0, "cannot mark the PMU's log");
	if (r->v2) {
		cpc_t *cpc;
		cpc_set_t *set;
		bind_v2(r, &cpc, &set);
		cpc_buf_t *buf = cpc_buf_create(cpc, set);
		ck_assert_ptr_nonnull(buf);
		hw_spin_ms(20);
		ck_assert_int_eq(cpc_set_sample(cpc, set, buf), 0);
		cpc_buf_get(cpc, buf, 0, &counts[0]);
		cpc_close(cpc);
	} else {
		cpc_event_t ev;
		ck_assert_msg(cpc_strtoevent(cpc_getcpuver(), r->spec, &ev) == 0,
		    "%s: %s: %s", r->label, r->spec, captured_errors());
		ck_assert_msg(cpc_bind_event(&ev, 0) == 0, "%s: bind %s: %s %s",
		    r->label, r->spec, strerror(errno), captured_errors());
		hw_spin_ms(20);
		ck_assert_int_eq(cpc_take_sample(&ev), 0);
		counts[0] = ev.ce_pic[0];
		counts[1] = ev.ce_pic[1];
		cpc_rele();
	}

	struct simpmu_rec rec[64];
	int nrec = simpmu_since(mark, rec, 64);
	for (int i = 0; i < n; i++) {
		struct evsel_fields want;
		expected(r->expect[i], r->plm[i], &want);
		int k = simpmu_find(rec, nrec, &want);
		ck_assert_msg(k >= 0,
		    "%s: request %d (%s) did not reach the PMU as %s (%s); "
		    "the PMU saw:%s",
		    r->label, i, r->expect[i], evsel_format(&want), r->spec,
		    simpmu_format(rec, nrec));
		/* The record is consistent: exclusions are the usr/os bits. */
		ck_assert_int_eq(rec[k].excl_user, !want.usr);
		ck_assert_int_eq(rec[k].excl_kernel, !want.os);
		/* User-mode counting of 20 ms of spinning counts something. */
		if (r->plm[i] & 1)
			ck_assert_msg(counts[i] > 0, "%s: request %d counted 0",
			    r->label, i);
		printf("route %-40s req %d %-28s -> type=%u config=0x%" PRIx64
		       " raw=0x%" PRIx64 " (count %" PRIu64 ")\n",
		    r->label, i, r->expect[i], rec[k].type, rec[k].config,
		    rec[k].raw, counts[i]);
	}
}
END_TEST

/*
 * An attribute the hardware has no room for is refused before it
 * reaches the PMU (cmask is 8 bits), and a name nothing knows is an
 * unknown event.
 */
START_TEST(bad_requests_refused)
{
	cpc_t *cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	cpc_set_t *set = cpc_set_create(cpc);
	cpc_attr_t a = { "cmask", 256 };
	const char *ev = hw_v2_instructions();
	ck_assert_int_eq(cpc_set_add_request(cpc, set, ev, 0, U, 1, &a), 0);
	errno = 0;
	ck_assert_int_eq(cpc_bind_curlwp(cpc, set, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_set_t *set2 = cpc_set_create(cpc);
	errno = 0;
	ck_assert_int_eq(cpc_set_add_request(cpc, set2, "no_such_event_xyz", 0,
			     U, 0, NULL),
	    -1);
	ck_assert_int_eq(errno, EINVAL);
	cpc_close(cpc);
}
END_TEST

int main(void)
{
	hw_require("test_hw_names");
	if (hw_pmu.amd) {
		routes = amd_routes;
		nroutes = (int)(sizeof(amd_routes) / sizeof(amd_routes[0]));
	} else {
		routes = intel_routes;
		nroutes = (int)(sizeof(intel_routes) / sizeof(intel_routes[0]));
	}
	(void)hw_iters_per_ms();
	Suite *s = suite_create("hw_names");
	TCase *tc = tcase_create("routes");
	tcase_add_loop_test(tc, route_reaches_pmu, 0, nroutes);
	tcase_add_test(tc, bad_requests_refused);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
