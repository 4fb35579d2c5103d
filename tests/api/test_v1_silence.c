/* SPDX-License-Identifier: MIT */
/*
 * Which version 1 calls speak through the error function (cpc_seterrfn):
 * as in Solaris 8's and illumos's libcpc, only cpc_strtoevent and
 * cpc_access do.  Every other one fails with -1 (or NULL) and errno in
 * silence, and leaves the Linux explanation in the calling thread's note
 * (cpc_linux_errnote(NULL)), which is returned once.
 */
#include <check.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libcpc.h>
#include <sys/processor.h>

#include "testutil.h"

#define PES_INT (1u << CPC_P6_PES_INT)
#define PES_OS (1u << CPC_P6_PES_OS)

/* Two software events every system counts. */
static void an_event(cpc_event_t *ev)
{
	memset(ev, 0, sizeof(*ev));
	ck_assert_int_eq(cpc_strtoevent(cpc_getcpuver(),
			     "pic0=task-clock,pic1=page-faults", ev), 0);
}

/* Nothing reached the error function; the note says something once. */
static void silent_with_note(const char *what)
{
	ck_assert_msg(captured_count() == 0, "%s spoke: %s", what,
	    captured_errors());
	const char *note = cpc_linux_errnote(NULL);
	ck_assert_msg(note != NULL && *note != '\0', "%s: no note", what);
	ck_assert_ptr_null(cpc_linux_errnote(NULL));
}

START_TEST(bind_event_is_silent)
{
	cpc_event_t ev;
	capture_errors();
	an_event(&ev);
	(void)cpc_linux_errnote(NULL);

	/* Unknown flag bits (illumos: EINVAL). */
	ck_assert_int_eq(cpc_bind_event(&ev, 0x40), -1);
	ck_assert_int_eq(errno, EINVAL);
	silent_with_note("flags");

	/* 'int' without CPC_BIND_EMT_OVF. */
	an_event(&ev);
	ev.ce_pes[0] |= PES_INT;
	ck_assert_int_eq(cpc_bind_event(&ev, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	silent_with_note("int without EMT");

	/* 'int' with 'sys' on the same counter. */
	ev.ce_pes[0] |= PES_OS;
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_EMT_OVF), -1);
	ck_assert_int_eq(errno, EINVAL);
	silent_with_note("int with sys");

	/* A cpuver no processor has. */
	an_event(&ev);
	ev.ce_cpuver = 12345;
	ck_assert_int_eq(cpc_bind_event(&ev, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	silent_with_note("cpuver");
	ck_assert_int_eq(cpc_rele(), -1);
}
END_TEST

START_TEST(count_sys_events_is_silent)
{
	cpc_event_t ev;
	capture_errors();
	an_event(&ev);
	/* System counting while overflows signal (INT+OS). */
	ck_assert_int_eq(cpc_bind_event(&ev, CPC_BIND_EMT_OVF), 0);
	(void)cpc_linux_errnote(NULL);
	ck_assert_int_eq(cpc_count_sys_events(1), -1);
	ck_assert_int_eq(errno, EINVAL);
	silent_with_note("count_sys_events");
	ck_assert_int_eq(cpc_rele(), 0);
}
END_TEST

START_TEST(pctx_bind_event_is_silent)
{
	cpc_event_t ev;
	capture_errors();
	an_event(&ev);
	(void)cpc_linux_errnote(NULL);
	/* No flag at all is allowed for a process context. */
	ck_assert_int_eq(cpc_pctx_bind_event(NULL, 1, &ev, CPC_BIND_EMT_OVF),
	    -1);
	ck_assert_int_eq(errno, EINVAL);
	silent_with_note("pctx_bind_event");
}
END_TEST

START_TEST(shared_is_silent)
{
	cpu_set_t all;
	capture_errors();
	ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	if (CPU_COUNT(&all) < 2) {
		printf("SKIP shared_is_silent: one processor only\n");
		return;
	}
	(void)cpc_linux_errnote(NULL);
	/* Not bound to one processor: Solaris 8's cpustat relies on it. */
	errno = 0;
	ck_assert_int_eq(cpc_shared_open(), -1);
	ck_assert(errno == EINVAL || errno == EACCES);
	silent_with_note("shared_open");
	if (geteuid() != 0)
		return;
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, 0, NULL), 0);
	int fd = cpc_shared_open();
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(processor_bind(P_LWPID, P_MYID, PBIND_NONE, NULL),
	    0);
	cpc_event_t ev;
	an_event(&ev);
	ck_assert_int_eq(cpc_shared_bind_event(fd, &ev, 0), -1);
	ck_assert_int_eq(errno, EAGAIN);
	silent_with_note("shared_bind_event");
	cpc_shared_close(fd);
}
END_TEST

START_TEST(eventtostr_is_silent)
{
	cpc_event_t ev;
	capture_errors();
	an_event(&ev);
	/* A cpuver no processor has: NULL, and nothing said. */
	ev.ce_cpuver = 12345;
	ck_assert_ptr_null(cpc_eventtostr(&ev));
	/* A word naming nothing this process knows: decoded as PerfEvtSel. */
	an_event(&ev);
	ev.ce_pes[0] = (1u << CPC_PES_LINUX_EXT) | 0x7f000000u | 0xfff0;
	char *s = cpc_eventtostr(&ev);
	ck_assert_ptr_nonnull(s);
	free(s);
	ck_assert_int_eq(captured_count(), 0);
}
END_TEST

START_TEST(strtoevent_still_speaks)
{
	cpc_event_t ev;
	capture_errors();
	ck_assert_int_ne(cpc_strtoevent(cpc_getcpuver(), "pic0=nosuchevent",
			     &ev), 0);
	ck_assert_int_ge(captured_count(), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("v1_silence");
	TCase *tc = tcase_create("v1_silence");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, bind_event_is_silent);
	tcase_add_test(tc, count_sys_events_is_silent);
	tcase_add_test(tc, pctx_bind_event_is_silent);
	tcase_add_test(tc, shared_is_silent);
	tcase_add_test(tc, eventtostr_is_silent);
	tcase_add_test(tc, strtoevent_still_speaks);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
