/* SPDX-License-Identifier: MIT */
/* cpc_strtoevent, cpc_eventtostr, cpc_getusage and cpc_walk_names. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>
#include <perfmon/pfmlib.h>

#include "testutil.h"

#define P6 CPC_PENTIUM_PRO_MMX
#define USR (1u << CPC_P6_PES_USR)
#define OS (1u << CPC_P6_PES_OS)
#define EDGE (1u << CPC_P6_PES_E)
#define PCB (1u << CPC_P6_PES_PC)
#define INT (1u << CPC_P6_PES_INT)
#define INV (1u << CPC_P6_PES_INV)
#define EXT (1u << CPC_PES_LINUX_EXT)

static cpc_event_t ev;

static void setup(void)
{
	capture_errors();
	memset(&ev, 0x5a, sizeof(ev));
}

/* Parses spec, expecting `errors` errors and the given messages. */
static void expect_error(int cpuver, const char *spec, int errors,
    const char *messages)
{
	clear_errors();
	ck_assert_int_eq(cpc_strtoevent(cpuver, spec, &ev), errors);
	ck_assert_str_eq(captured_errors(), messages);
}

static void parse_ok(int cpuver, const char *spec)
{
	clear_errors();
	ck_assert_msg(cpc_strtoevent(cpuver, spec, &ev) == 0,
	    "'%s' failed: %s", spec, captured_errors());
	ck_assert_str_eq(captured_errors(), "");
}

START_TEST(explicit_and_implicit)
{
	parse_ok(P6, "pic0=inst_retired,pic1=cpu_clk_unhalted");
	ck_assert_int_eq(ev.ce_cpuver, P6);
	ck_assert_uint_eq(ev.ce_pes[0], 0xc0 | USR | EDGE);
	ck_assert_uint_eq(ev.ce_pes[1], 0x79 | USR | EDGE);
	ck_assert_uint_eq(ev.ce_pic[0], 0);
	ck_assert_uint_eq(ev.ce_pic[1], 0);
	ck_assert_uint_eq(ev.ce_tsc, 0);
	ck_assert_int_eq(ev.ce_hrt, 0);

	parse_ok(P6, "inst_retired,cpu_clk_unhalted");
	ck_assert_uint_eq(ev.ce_pes[0], 0xc0 | USR | EDGE);
	ck_assert_uint_eq(ev.ce_pes[1], 0x79 | USR | EDGE);

	parse_ok(P6, "pic0=inst_retired,cpu_clk_unhalted,sys");
	ck_assert_uint_eq(ev.ce_pes[0], 0xc0 | USR | OS | EDGE);
	ck_assert_uint_eq(ev.ce_pes[1], 0x79 | USR | OS | EDGE);

	/* An implicit event fills pic0 even after pic1 was named. */
	parse_ok(P6, "pic1=inst_retired,data_mem_refs");
	ck_assert_uint_eq(ev.ce_pes[0], 0x43 | USR | EDGE);
	ck_assert_uint_eq(ev.ce_pes[1], 0xc0 | USR | EDGE);
}
END_TEST

START_TEST(flag_keywords)
{
	static const struct {
		const char *tok;
		uint32_t set0, clr0, set1, clr1;
	} cases[] = {
		{ "nouser", 0, USR, 0, USR }, { "nouser0", 0, USR, 0, 0 },
		{ "nouser1", 0, 0, 0, USR }, { "sys", OS, 0, OS, 0 },
		{ "sys0", OS, 0, 0, 0 }, { "sys1", 0, 0, OS, 0 },
		{ "noedge", 0, EDGE, 0, EDGE }, { "noedge0", 0, EDGE, 0, 0 },
		{ "noedge1", 0, 0, 0, EDGE }, { "pc", PCB, 0, PCB, 0 },
		{ "pc0", PCB, 0, 0, 0 }, { "pc1", 0, 0, PCB, 0 },
		{ "int", INT, 0, INT, 0 }, { "int0", INT, 0, 0, 0 },
		{ "int1", 0, 0, INT, 0 }, { "inv", INV, 0, INV, 0 },
		{ "inv0", INV, 0, 0, 0 }, { "inv1", 0, 0, INV, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char spec[128];
		snprintf(spec, sizeof(spec), "pic0=0x10,pic1=0x11,%s",
		    cases[i].tok);
		parse_ok(P6, spec);
		uint32_t base = USR | EDGE;
		ck_assert_uint_eq(ev.ce_pes[0],
		    ((0x10 | base | cases[i].set0) & ~cases[i].clr0));
		ck_assert_uint_eq(ev.ce_pes[1],
		    ((0x11 | base | cases[i].set1) & ~cases[i].clr1));
	}
}
END_TEST

START_TEST(mask_keywords)
{
	parse_ok(P6, "pic0=l2_ld,pic1=l2_st,umask0=0xf,umask1=3,cmask0=010,"
		     "cmask1=255");
	ck_assert_uint_eq(ev.ce_pes[0], 0x29 | 0xf << 8 | 8u << 24 | USR | EDGE);
	ck_assert_uint_eq(ev.ce_pes[1], 0x2a | 3 << 8 | 255u << 24 | USR | EDGE);
	/* Trailing junk after the digits is ignored, as on Solaris. */
	parse_ok(P6, "pic0=l2_ld,pic1=l2_st,umask0=5xyz");
	ck_assert_uint_eq(ev.ce_pes[0], 0x29 | 5 << 8 | USR | EDGE);
}
END_TEST

START_TEST(numeric_events)
{
	parse_ok(P6, "pic0=0xc0,pic1=121");
	ck_assert_uint_eq(ev.ce_pes[0] & 0xff, 0xc0);
	ck_assert_uint_eq(ev.ce_pes[1] & 0xff, 121);
	/* Numbers bypass the per-counter restriction; junk is ignored. */
	parse_ok(P6, "pic0=0x12,pic1=0xc1");
	ck_assert_uint_eq(ev.ce_pes[1] & 0xff, 0xc1);
	parse_ok(P6, "pic0=12junk,pic1=0");
	ck_assert_uint_eq(ev.ce_pes[0] & 0xff, 12);
	ck_assert_uint_eq(ev.ce_pes[1] & 0xff, 0);
	expect_error(P6, "pic0=256,pic1=0", 2,
	    "strtoevent: PerfCtr0 cannot measure '256' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "pic0=-1,pic1=0", 2,
	    "strtoevent: PerfCtr0 cannot measure '-1' on this cpu\n"
	    "strtoevent: two events must be specified\n");
}
END_TEST

START_TEST(counter_restrictions)
{
	parse_ok(P6, "pic0=flops,pic1=mul");
	ck_assert_uint_eq(ev.ce_pes[0] & 0xff, 0xc1);
	ck_assert_uint_eq(ev.ce_pes[1] & 0xff, 0x12);
	expect_error(P6, "pic0=inst_retired,pic1=flops", 2,
	    "strtoevent: PerfCtr1 cannot measure 'flops' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "pic0=div,pic1=inst_retired", 2,
	    "strtoevent: PerfCtr0 cannot measure 'div' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	/* MMX names exist only on the MMX cpuver. */
	parse_ok(CPC_PENTIUM_PRO_MMX, "mmx_instr_exec,mmx_assists");
	expect_error(CPC_PENTIUM_PRO, "pic0=inst_retired,pic1=mmx_assists", 2,
	    "strtoevent: PerfCtr1 cannot measure 'mmx_assists' on this cpu\n"
	    "strtoevent: two events must be specified\n");
}
END_TEST

START_TEST(error_texts)
{
	expect_error(P6, "pic0", 2,
	    "strtoevent: missing 'pic0' value\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "pic0=inst_retired,pic1", 2,
	    "strtoevent: missing 'pic1' value\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "pic0=inst_retired,pic0=inst_retired", 2,
	    "strtoevent: repeated 'pic0' token\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "inst_retired,pic1=inst_retired,pic1=ld_blocks", 1,
	    "strtoevent: repeated 'pic1' token\n");
	expect_error(P6, "pic0=inst_retired,pic1=inst_retired,sys=1", 1,
	    "strtoevent: bad arg to 'sys'\n");
	expect_error(P6, "pic0=inst_retired,pic1=inst_retired,nouser0=", 1,
	    "strtoevent: bad arg to 'nouser0'\n");
	expect_error(P6, "pic0=inst_retired,pic1=inst_retired,umask0", 1,
	    "strtoevent: missing 'umask0' value\n");
	expect_error(P6, "pic0=inst_retired,pic1=inst_retired,cmask1=256", 1,
	    "strtoevent: bad 'cmask1' value\n");
	expect_error(P6, "pic0=inst_retired,pic1=inst_retired,umask1=xyz", 1,
	    "strtoevent: bad 'umask1' value\n");
	expect_error(P6, "inst_retired,inst_retired,inst_retired", 1,
	    "strtoevent: bad token 'inst_retired'\n");
	expect_error(P6, "pic0=inst_retired", 1,
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "", 1, "strtoevent: two events must be specified\n");
	/* An empty token is an (empty) event name, as with getsubopt. */
	expect_error(P6, "pic0=inst_retired,,pic1=inst_retired", 2,
	    "strtoevent: PerfCtr1 cannot measure '' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, ",,", 2,
	    "strtoevent: PerfCtr0 cannot measure '' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "inst_retired,inst_retired,,", 1,
	    "strtoevent: bad token ''\n");
	expect_error(CPC_PENTIUM, ",,", 2,
	    "strtoevent: CTR0 cannot measure '' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	/* The event is checked before the repetition. */
	expect_error(P6, "pic0=inst_retired,pic0=bogus", 2,
	    "strtoevent: PerfCtr0 cannot measure 'bogus' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	/* No unsuffixed umask: it becomes an event name, and fails. */
	expect_error(P6, "pic0=inst_retired,umask=3", 2,
	    "strtoevent: PerfCtr1 cannot measure 'umask=3' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	expect_error(P6, "pic0=no_such_event,pic1=inst_retired", 2,
	    "strtoevent: PerfCtr0 cannot measure 'no_such_event' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	/*
	 * The Solaris texts as they are (a pic error ends the parse, and the
	 * missing event is reported too, as Solaris 8's); the Linux note,
	 * through no error function, names the closest known names.
	 */
	(void)cpc_linux_errnote(NULL);
	expect_error(P6, "pic0=task-clok,pic1=page-faults", 2,
	    "strtoevent: PerfCtr0 cannot measure 'task-clok' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	const char *note = cpc_linux_errnote(NULL);
	ck_assert_ptr_nonnull(note);
	ck_assert_msg(strstr(note, "strtoevent: unknown event 'task-clok'; "
			  "did you mean task-clock") == note, "note: %s", note);
	ck_assert_ptr_null(cpc_linux_errnote(NULL));
	/* Unknown cpuver and NULL spec: one error, no message. */
	expect_error(12345, "inst_retired,inst_retired", 1, "");
	expect_error(P6, NULL, 1, "");
	clear_errors();
	ck_assert_int_eq(cpc_strtoevent(P6, "inst_retired,ld_blocks", NULL), 1);
}
END_TEST

/*
 * As both originals, which parse into the event itself: it is cleared,
 * given its cpuver and the default flags (user, edge), and holds what the
 * tokens before the bad one set.
 */
START_TEST(failure_leaves_what_was_parsed)
{
	static const struct {
		const char *spec;
		uint32_t pes0, pes1;
	} bad[] = {
		{ "pic0=bogus,pic1=bogus", USR | EDGE, USR | EDGE },
		{ "pic0=inst_retired", 0xc0 | USR | EDGE, USR | EDGE },
		{ "", USR | EDGE, USR | EDGE },
		{ ",,", USR | EDGE, USR | EDGE },
		{ "inst_retired,inst_retired,sys=1", 0xc0 | USR | EDGE,
		    0xc0 | USR | EDGE },
		{ "pic0=inst_retired,sys,umask1=3,pic1=nosuchevent",
		    0xc0 | USR | EDGE | OS, USR | EDGE | OS | 3u << 8 },
		{ "nouser0,pic1=inst_retired", EDGE, 0xc0 | USR | EDGE },
		/* A repeated counter: the second code ORed in, then refused. */
		{ "pic0=inst_retired,pic0=uops_retired,pic1=inst_retired",
		    (0xc0 | 0xc2) | USR | EDGE, USR | EDGE },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&ev, 0x5a, sizeof(ev));
		clear_errors();
		ck_assert_int_ne(cpc_strtoevent(P6, bad[i].spec, &ev), 0);
		ck_assert_msg(ev.ce_cpuver == P6 && ev.ce_pes[0] == bad[i].pes0 &&
			ev.ce_pes[1] == bad[i].pes1 && ev.ce_hrt == 0 &&
			ev.ce_tsc == 0 && ev.ce_pic[0] == 0 && ev.ce_pic[1] == 0,
		    "'%s': pes 0x%x 0x%x", bad[i].spec, ev.ce_pes[0],
		    ev.ce_pes[1]);
	}
	cpc_event_t zero;
	memset(&zero, 0, sizeof(zero));
	memset(&ev, 0x5a, sizeof(ev));
	ck_assert_int_eq(cpc_strtoevent(12345, "inst_retired", &ev), 1);
	zero.ce_cpuver = 12345;
	ck_assert_mem_eq(&ev, &zero, sizeof(ev));
}
END_TEST

/* A repeated mask adds its bits (the originals OR it in). */
START_TEST(repeated_mask)
{
	parse_ok(P6, "pic0=inst_retired,pic1=inst_retired,umask0=0x1,"
		     "umask0=0x2,cmask1=0x10,cmask1=0x4");
	ck_assert_uint_eq(ev.ce_pes[0], 0xc0 | USR | EDGE | 0x3u << 8);
	ck_assert_uint_eq(ev.ce_pes[1], 0xc0 | USR | EDGE | 0x14u << 24);
}
END_TEST

/*
 * A PerfEvtSel image with bit 21 set (reserved on the P6, AnyThread
 * later) that names no Linux event: printed as the originals print it,
 * the bit ignored.
 */
START_TEST(eventtostr_bit21)
{
	parse_ok(P6, "pic0=inst_retired,pic1=cpu_clk_unhalted,umask0=0x3");
	char *plain = cpc_eventtostr(&ev);
	ck_assert_ptr_nonnull(plain);
	ev.ce_pes[0] |= EXT;
	ev.ce_pes[1] |= EXT;
	char *with21 = cpc_eventtostr(&ev);
	ck_assert_ptr_nonnull(with21);
	ck_assert_str_eq(with21, plain);
	ck_assert_str_eq(plain, "pic0=inst_retired,pic1=cpu_clk_unhalted,"
				"umask0=0x3");
	free(plain);
	free(with21);
}
END_TEST

START_TEST(trailing_comma)
{
	cpc_event_t plain;
	parse_ok(P6, "pic0=inst_retired,pic1=cpu_clk_unhalted,sys");
	plain = ev;
	parse_ok(P6, "pic0=inst_retired,pic1=cpu_clk_unhalted,sys,");
	ck_assert_mem_eq(&ev, &plain, sizeof(ev));
	parse_ok(P6, "inst_retired,cpu_clk_unhalted,");
	parse_ok(CPC_PENTIUM, "pic0=data_read,pic1=flops,");
}
END_TEST

START_TEST(pentium_p5)
{
	parse_ok(CPC_PENTIUM, "pic0=data_read,pic1=flops,sys1,noedge0,pc1");
	uint32_t want = 0x00u << CPC_P5_CESR_ES0_SHIFT |
	    0x22u << CPC_P5_CESR_ES1_SHIFT | 1u << CPC_P5_CESR_USR0 |
	    1u << CPC_P5_CESR_USR1 | 1u << CPC_P5_CESR_OS1 |
	    1u << CPC_P5_CESR_CLK0 | 1u << CPC_P5_CESR_PC1;
	ck_assert_uint_eq(ev.ce_cesr, want);
	/* Numbers are masked to six bits. */
	parse_ok(CPC_PENTIUM, "pic0=0xff,pic1=0x41");
	ck_assert_uint_eq(ev.ce_cesr & 0x3f, 0x3f);
	ck_assert_uint_eq((ev.ce_cesr >> 16) & 0x3f, 0x01);
	/* P6-only keywords are not keywords on the P5. */
	expect_error(CPC_PENTIUM, "pic0=data_read,pic1=data_write,int", 1,
	    "strtoevent: bad token 'int'\n");
	/* ... but tokens it refuses, as illumos does. */
	expect_error(CPC_PENTIUM, "pic0=data_read,umask0=1", 2,
	    "strtoevent: bad token 'umask0'\n"
	    "strtoevent: two events must be specified\n");
	expect_error(CPC_PENTIUM, "pic0=data_read,int", 2,
	    "strtoevent: bad token 'int'\n"
	    "strtoevent: two events must be specified\n");
	expect_error(CPC_PENTIUM, "int1,pic0=data_read,pic1=flops", 2,
	    "strtoevent: bad token 'int1'\n"
	    "strtoevent: two events must be specified\n");
	/* Per-counter MMX names. */
	parse_ok(CPC_PENTIUM_MMX, "pic0=emms_instr,pic1=mmx_fp_transitions");
	ck_assert_uint_eq(ev.ce_cesr & 0x3f, 0x2d);
	ck_assert_uint_eq((ev.ce_cesr >> 16) & 0x3f, 0x2d);
	expect_error(CPC_PENTIUM_MMX, "pic0=data_read,pic1=emms_instr", 2,
	    "strtoevent: CTR1 cannot measure 'emms_instr' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	expect_error(CPC_PENTIUM, "pic0=data_read,pic1=emms_instr", 2,
	    "strtoevent: CTR1 cannot measure 'emms_instr' on this cpu\n"
	    "strtoevent: two events must be specified\n");
	char *s;
	parse_ok(CPC_PENTIUM, "pic0=data_read,pic1=flops,sys1,noedge0,pc1");
	s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, "pic0=data_read,pic1=flops,sys1,noedge0,pc1");
	free(s);
}
END_TEST

START_TEST(linux_event_names)
{
	int cpuver = cpc_getcpuver();
	char *s;

	parse_ok(cpuver, "pic0=task-clock,pic1=page-faults");
	ck_assert_uint_ne(ev.ce_pes[0] & EXT, 0);
	ck_assert_uint_ne(ev.ce_pes[1] & EXT, 0);
	ck_assert_uint_eq(ev.ce_pes[0] & (USR | OS | EDGE), USR | EDGE);
	s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, "pic0=task-clock,pic1=page-faults");
	free(s);

	/* Aliases give the canonical name. */
	parse_ok(cpuver, "faults,cs,sys");
	s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, "pic0=page-faults,pic1=context-switches,sys");
	free(s);

	parse_ok(cpuver, "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc,nouser1");
	s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc,nouser1");
	free(s);

	parse_ok(cpuver, "L1-dcache-load-misses,dTLB-store-misses");
	s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, "pic0=L1-dcache-load-misses,pic1=dTLB-store-misses");
	free(s);

	/* Software events work under every cpuver except the P5. */
	parse_ok(CPC_PENTIUM_PRO_MMX, "task-clock,minor-faults");
	parse_ok(CPC_AMD64, "cpu-clock,major-faults");
	parse_ok(CPC_LINUX_PERF, "cpu-migrations,alignment-faults");
	expect_error(CPC_PENTIUM, "task-clock,data_read", 2,
	    "strtoevent: CTR0 cannot measure 'task-clock' on this cpu\n"
	    "strtoevent: two events must be specified\n");

	expect_error(cpuver, "pic0=task-clock,pic1=page-faults,umask0=1", 1,
	    "strtoevent: 'umask0' cannot be used with a named Linux event\n");
	expect_error(cpuver, "pic0=task-clock,pic1=page-faults,cmask1=1", 1,
	    "strtoevent: 'cmask1' cannot be used with a named Linux event\n");
}
END_TEST

/*
 * Does the installed libpfm4 have a core event table for this processor?
 * Asked of libpfm4 itself, not of the library under test (a new
 * processor, e.g. AMD family 1Ah with libpfm4 4.13, has none).
 */
static int libpfm_knows_this_cpu(void)
{
	if (pfm_initialize() != PFM_SUCCESS)
		return 0;
	pfm_pmu_t p;
	pfm_for_all_pmus(p)
	{
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS &&
		    info.is_present && info.type == PFM_PMU_TYPE_CORE)
			return 1;
	}
	return 0;
}

START_TEST(native_names)
{
	int cpuver = cpc_getcpuver();
	const char *name = NULL;
	if (cpuver == CPC_AMD64)
		name = "RETIRED_INSTRUCTIONS";
	else if (cpuver == CPC_PENTIUM_PRO_MMX)
		name = "INST_RETIRED:ANY_P";
	if (name == NULL || !libpfm_knows_this_cpu()) {
		printf("SKIP native_names: libpfm4 has no core event table for "
		       "this processor (cpuver %d)\n", cpuver);
		return;
	}
	/* libpfm4 encodes a core's names only where its PMU is present. */
	if (access("/sys/bus/event_source/devices/cpu/type", F_OK) != 0 &&
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK) != 0) {
		printf("SKIP native_names: no hardware PMU here\n");
		return;
	}
	char spec[128];
	snprintf(spec, sizeof(spec), "pic0=%s,pic1=task-clock", name);
	parse_ok(cpuver, spec);
	ck_assert_uint_ne(ev.ce_pes[0] & EXT, 0);
	char *s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, spec);
	cpc_event_t again;
	ck_assert_int_eq(cpc_strtoevent(cpuver, s, &again), 0);
	ck_assert_uint_eq(again.ce_pes[0], ev.ce_pes[0]);
	free(s);
	/* A native name of another processor is not one of this cpuver. */
	expect_error(cpuver, "pic0=NOT_AN_EVENT_OF_ANY_PMU,pic1=task-clock", 2,
	    "strtoevent: PerfCtr0 cannot measure 'NOT_AN_EVENT_OF_ANY_PMU' "
	    "on this cpu\n"
	    "strtoevent: two events must be specified\n");
}
END_TEST

START_TEST(canonical_string)
{
	char *s;
	parse_ok(P6, "pic0=inst_retired,pic1=cpu_clk_unhalted,umask1=0x20,"
		     "nouser1,sys");
	s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, "pic0=inst_retired,pic1=cpu_clk_unhalted,"
			    "umask1=0x20,nouser1,sys");
	free(s);
	parse_ok(P6, "pic0=0x10,pic1=0xc1,cmask0=2,umask0=1,noedge,int1,inv0,pc");
	s = cpc_eventtostr(&ev);
	ck_assert_str_eq(s, "pic0=fp_comp_ops_exe,pic1=0xc1,cmask0=0x2,"
			    "umask0=0x1,noedge,int1,inv0,pc");
	free(s);
	ck_assert_ptr_null(cpc_eventtostr(NULL));
	cpc_event_t bad = ev;
	bad.ce_cpuver = 42;
	ck_assert_ptr_null(cpc_eventtostr(&bad));
}
END_TEST

/* strtoevent(eventtostr(e)) reproduces e, for many random control words. */
START_TEST(round_trip_random)
{
	unsigned seed = 12345;
	for (int i = 0; i < 20000; i++) {
		cpc_event_t e, back;
		memset(&e, 0, sizeof(e));
		e.ce_cpuver = (i & 1) ? CPC_PENTIUM_PRO_MMX : CPC_PENTIUM_PRO;
		for (int pic = 0; pic < 2; pic++) {
			uint32_t r = (uint32_t)rand_r(&seed) << 16 ^
			    (uint32_t)rand_r(&seed);
			/* Every bit but EN and the Linux extension bit. */
			e.ce_pes[pic] = r & ~(1u << CPC_P6_PES_EN) & ~EXT;
		}
		char *s = cpc_eventtostr(&e);
		ck_assert_ptr_nonnull(s);
		clear_errors();
		ck_assert_msg(cpc_strtoevent(e.ce_cpuver, s, &back) == 0,
		    "'%s': %s", s, captured_errors());
		ck_assert_uint_eq(back.ce_pes[0], e.ce_pes[0]);
		ck_assert_uint_eq(back.ce_pes[1], e.ce_pes[1]);
		ck_assert_int_eq(back.ce_cpuver, e.ce_cpuver);
		free(s);
	}
	/* P5: every CESR with codes in range. */
	for (int i = 0; i < 5000; i++) {
		cpc_event_t e, back;
		memset(&e, 0, sizeof(e));
		e.ce_cpuver = (i & 1) ? CPC_PENTIUM_MMX : CPC_PENTIUM;
		uint32_t r = (uint32_t)rand_r(&seed) << 16 ^ (uint32_t)rand_r(&seed);
		e.ce_cesr = r & 0x03ff03ff;
		char *s = cpc_eventtostr(&e);
		clear_errors();
		ck_assert_msg(cpc_strtoevent(e.ce_cpuver, s, &back) == 0,
		    "'%s': %s", s, captured_errors());
		ck_assert_uint_eq(back.ce_cesr, e.ce_cesr);
		free(s);
	}
}
END_TEST

START_TEST(round_trip_named)
{
	static const char *specs[] = {
		"pic0=task-clock,pic1=page-faults",
		"pic0=cycles,pic1=instructions,sys,nouser0",
		"pic0=PAPI_br_ins,pic1=PAPI_l1_dcm",
		"pic0=LLC-loads,pic1=branch-load-misses,noedge,int",
		"pic0=inst_retired,pic1=task-clock,umask0=3",
	};
	int cpuver = cpc_getcpuver();
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		cpc_event_t e, back;
		parse_ok(cpuver == CPC_PENTIUM_PRO_MMX || i < 4 ? cpuver : P6,
		    specs[i]);
		e = ev;
		char *s = cpc_eventtostr(&e);
		ck_assert_ptr_nonnull(s);
		ck_assert_int_eq(cpc_strtoevent(e.ce_cpuver, s, &back), 0);
		ck_assert_uint_eq(back.ce_pes[0], e.ce_pes[0]);
		ck_assert_uint_eq(back.ce_pes[1], e.ce_pes[1]);
		free(s);
	}
}
END_TEST

START_TEST(overlong_input)
{
	size_t n = 200000;
	char *spec = malloc(n + 16);
	memcpy(spec, "pic0=", 5);
	memset(spec + 5, 'x', n);
	spec[n + 5] = '\0';
	clear_errors();
	ck_assert_int_eq(cpc_strtoevent(P6, spec, &ev), 2);
	ck_assert_int_eq(captured_count(), 2);
	ck_assert(strncmp(captured_errors(),
	    "strtoevent: PerfCtr0 cannot measure 'xxxx", 41) == 0);
	/* Many valid tokens: still parsed. */
	strcpy(spec, "inst_retired,ld_blocks");
	size_t len = strlen(spec);
	while (len + 8 < n) {
		memcpy(spec + len, ",sys,pc", 7);
		len += 7;
	}
	spec[len] = '\0';
	parse_ok(P6, spec);
	ck_assert_uint_eq(ev.ce_pes[0], 0xc0 | USR | OS | EDGE | PCB);
	free(spec);
}
END_TEST

START_TEST(usage_strings)
{
	ck_assert_str_eq(cpc_getusage(CPC_PENTIUM_PRO_MMX),
	    "pic0=<event0>,pic1=<event1> [,sys[0|1]] [,nouser[0|1]] "
	    "[,noedge[0|1]] [,pc[0|1]] [,int[0|1]] [,inv[0|1]] "
	    "[,cmask[0|1]=<maskspec>] [,umask[0|1]=<maskspec>] ");
	ck_assert_str_eq(cpc_getusage(CPC_PENTIUM_PRO),
	    cpc_getusage(CPC_PENTIUM_PRO_MMX));
	ck_assert_str_eq(cpc_getusage(CPC_PENTIUM),
	    "pic0=<event0>,pic1=<event1> [,sys[0|1]] [,nouser[0|1]] "
	    "[,noedge[0|1]] [,pc[0|1]]");
	ck_assert_ptr_null(cpc_getusage(-1));
	ck_assert_ptr_null(cpc_getusage(CPC_ULTRA1));
}
END_TEST

struct walk {
	int calls;
	char first[64], last[64];
	unsigned first_code;
};

static void walker(void *arg, int regno, const char *name, uint8_t bits)
{
	struct walk *w = arg;
	(void)regno;
	if (w->calls++ == 0) {
		snprintf(w->first, sizeof(w->first), "%s", name);
		w->first_code = bits;
	}
	snprintf(w->last, sizeof(w->last), "%s", name);
}

START_TEST(walk_names)
{
	struct walk w;
	memset(&w, 0, sizeof(w));
	cpc_walk_names(CPC_PENTIUM_PRO_MMX, 0, &w, walker);
	ck_assert_int_eq(w.calls, 75);
	ck_assert_str_eq(w.first, "data_mem_refs");
	ck_assert_uint_eq(w.first_code, 0x43);
	ck_assert_str_eq(w.last, "ret_seg_renames");
	memset(&w, 0, sizeof(w));
	cpc_walk_names(CPC_PENTIUM_PRO, 1, &w, walker);
	ck_assert_int_eq(w.calls, 65);
	ck_assert_str_eq(w.last, "cpu_clk_unhalted");
	memset(&w, 0, sizeof(w));
	cpc_walk_names(CPC_PENTIUM_MMX, 1, &w, walker);
	ck_assert_int_eq(w.calls, 56);
	ck_assert_str_eq(w.last, "mmx_stall_write_ME");
	memset(&w, 0, sizeof(w));
	cpc_walk_names(CPC_PENTIUM, 0, &w, walker);
	ck_assert_int_eq(w.calls, 38);
	ck_assert_str_eq(w.first, "data_read");
	memset(&w, 0, sizeof(w));
	cpc_walk_names(CPC_PENTIUM_PRO, 2, &w, walker);
	cpc_walk_names(4242, 0, &w, walker);
	ck_assert_int_eq(w.calls, 0);
	cpc_walk_names(CPC_AMD64, 0, &w, walker);
	ck_assert_int_gt(w.calls, 10);
	cpc_walk_names(CPC_PENTIUM_PRO, 0, NULL, NULL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("strtoevent");
	TCase *tc = tcase_create("parser");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, explicit_and_implicit);
	tcase_add_test(tc, flag_keywords);
	tcase_add_test(tc, mask_keywords);
	tcase_add_test(tc, numeric_events);
	tcase_add_test(tc, counter_restrictions);
	tcase_add_test(tc, error_texts);
	tcase_add_test(tc, failure_leaves_what_was_parsed);
	tcase_add_test(tc, repeated_mask);
	tcase_add_test(tc, eventtostr_bit21);
	tcase_add_test(tc, trailing_comma);
	tcase_add_test(tc, pentium_p5);
	tcase_add_test(tc, linux_event_names);
	tcase_add_test(tc, native_names);
	tcase_add_test(tc, canonical_string);
	tcase_add_test(tc, round_trip_random);
	tcase_add_test(tc, round_trip_named);
	tcase_add_test(tc, overlong_input);
	tcase_add_test(tc, usage_strings);
	tcase_add_test(tc, walk_names);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
