/* SPDX-License-Identifier: MIT */
/* ABI: the layout of cpc_event_t and the values of the public constants. */
#include <check.h>
#include <stddef.h>

#include <libcpc.h>

START_TEST(event_layout)
{
#if defined(__x86_64__)
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_cpuver), 0);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_hrt), 8);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_tsc), 16);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_pic), 24);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_pes), 40);
	ck_assert_uint_eq(sizeof(cpc_event_t), 48);
#else
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_cpuver), 0);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_hrt), 4);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_tsc), 12);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_pic), 20);
	ck_assert_uint_eq(offsetof(cpc_event_t, ce_pes), 36);
	ck_assert_uint_eq(sizeof(cpc_event_t), 44);
#endif
	cpc_event_t ev;
	ck_assert_uint_eq(sizeof(ev.ce_pic[0]), 8);
	ck_assert_uint_eq(sizeof(ev.ce_pes[0]), 4);
	ck_assert_ptr_eq(&ev.ce_cesr, &ev.ce_pes[0]);
	ck_assert_ptr_eq(&CPC_TICKREG(&ev), &ev.ce_tsc);
	ck_assert_str_eq(CPC_TICKREG_NAME, "tsc");
	/* hrtime_t is signed 64-bit, uint_t unsigned int. */
	ck_assert_uint_eq(sizeof(hrtime_t), 8);
	ck_assert((hrtime_t)-1 < 0);
	ck_assert_uint_eq(sizeof(uint_t), sizeof(unsigned int));
	ck_assert((uint_t)-1 > 0);
	ck_assert_uint_eq(sizeof(processorid_t), sizeof(int));
}
END_TEST

START_TEST(attr_layout)
{
	ck_assert_uint_eq(offsetof(cpc_attr_t, ca_name), 0);
#if defined(__x86_64__)
	ck_assert_uint_eq(offsetof(cpc_attr_t, ca_val), 8);
	ck_assert_uint_eq(sizeof(cpc_attr_t), 16);
#endif
}
END_TEST

START_TEST(v1_constants)
{
	ck_assert_int_eq(CPC_VER_NONE, 0);
	ck_assert_int_eq(CPC_VER_CURRENT, 2);
	ck_assert_int_eq(CPC_BIND_LWP_INHERIT, 0x1);
	ck_assert_int_eq(CPC_BIND_EMT_OVF, 0x2);
	ck_assert_int_eq(CPC_ULTRA1, 1000);
	ck_assert_int_eq(CPC_ULTRA2, 1001);
	ck_assert_int_eq(CPC_ULTRA3, 1002);
	ck_assert_int_eq(CPC_ULTRA3_PLUS, 1003);
	ck_assert_int_eq(CPC_ULTRA3_I, 1004);
	ck_assert_int_eq(CPC_ULTRA4_PLUS, 1005);
	ck_assert_int_eq(CPC_PENTIUM, 2000);
	ck_assert_int_eq(CPC_PENTIUM_MMX, 2001);
	ck_assert_int_eq(CPC_PENTIUM_PRO, 2002);
	ck_assert_int_eq(CPC_PENTIUM_PRO_MMX, 2003);
	ck_assert_int_eq(CPC_SPARC64_III, 3000);
	ck_assert_int_eq(CPC_SPARC64_V, 3002);
}
END_TEST

START_TEST(bit_macros)
{
	ck_assert_int_eq(CPC_P5_CESR_ES0_SHIFT, 0);
	ck_assert_int_eq(CPC_P5_CESR_ES0_MASK, 0x3f);
	ck_assert_int_eq(CPC_P5_CESR_ES1_SHIFT, 16);
	ck_assert_int_eq(CPC_P5_CESR_ES1_MASK, 0x3f);
	ck_assert_int_eq(CPC_P5_CESR_OS0, 6);
	ck_assert_int_eq(CPC_P5_CESR_USR0, 7);
	ck_assert_int_eq(CPC_P5_CESR_CLK0, 8);
	ck_assert_int_eq(CPC_P5_CESR_PC0, 9);
	ck_assert_int_eq(CPC_P5_CESR_OS1, 22);
	ck_assert_int_eq(CPC_P5_CESR_USR1, 23);
	ck_assert_int_eq(CPC_P5_CESR_CLK1, 24);
	ck_assert_int_eq(CPC_P5_CESR_PC1, 25);
	ck_assert_int_eq(CPC_P6_PES_INV, 23);
	ck_assert_int_eq(CPC_P6_PES_EN, 22);
	ck_assert_int_eq(CPC_P6_PES_INT, 20);
	ck_assert_int_eq(CPC_P6_PES_PC, 19);
	ck_assert_int_eq(CPC_P6_PES_E, 18);
	ck_assert_int_eq(CPC_P6_PES_OS, 17);
	ck_assert_int_eq(CPC_P6_PES_USR, 16);
	ck_assert_int_eq(CPC_P6_PES_UMASK_SHIFT, 8);
	ck_assert_int_eq(CPC_P6_PES_UMASK_MASK, 0xff);
	ck_assert_int_eq(CPC_P6_PES_CMASK_SHIFT, 24);
	ck_assert_int_eq(CPC_P6_PES_CMASK_MASK, 0xff);
	ck_assert_int_eq(CPC_P6_PES_PIC0_MASK, 0xff);
	ck_assert_int_eq(CPC_P6_PES_PIC1_MASK, 0xff);
}
END_TEST

START_TEST(impl_constants)
{
	ck_assert_int_eq(CPC_OVF_NOTIFY_EMT, 0x1);
	ck_assert_int_eq(CPC_COUNT_USER, 0x2);
	ck_assert_int_eq(CPC_COUNT_SYSTEM, 0x4);
	ck_assert_int_eq(CPC_COUNT_HV, 0x8);
	ck_assert_int_eq(CPC_CAP_OVERFLOW_INTERRUPT, 0x1);
	ck_assert_int_eq(CPC_CAP_OVERFLOW_PRECISE, 0x2);
	ck_assert_int_eq(CPC_MAX_IMPL_NAME, 512);
	ck_assert_int_eq(CPC_MAX_CPUREF, 1024);
	ck_assert_int_eq(CPC_MAX_EVENT_LEN, 512);
	ck_assert_int_eq(CPC_MAX_ATTR_LEN, 32);
	ck_assert_int_eq(CPC_SET_ALL_FLAGS, 0x1);
	ck_assert_int_eq(CPC_INVALID_EVENT, 1);
	ck_assert_int_eq(CPC_INVALID_PICNUM, 2);
	ck_assert_int_eq(CPC_INVALID_ATTRIBUTE, 3);
	ck_assert_int_eq(CPC_ATTRIBUTE_OUT_OF_RANGE, 4);
	ck_assert_int_eq(CPC_RESOURCE_UNAVAIL, 5);
	ck_assert_int_eq(CPC_PIC_NOT_CAPABLE, 6);
	ck_assert_int_eq(CPC_REQ_INVALID_FLAGS, 7);
	ck_assert_int_eq(CPC_CONFLICTING_REQS, 8);
	ck_assert_int_eq(CPC_ATTR_REQUIRES_PRIVILEGE, 9);
	ck_assert_int_eq(CPC_PBIND_FAILED, 10);
	ck_assert_int_eq(CPC_HV_NO_ACCESS, 11);
}
END_TEST

START_TEST(signal_constants)
{
	/* SIGEMT is a compile-time constant usable in a switch label. */
	int sig = SIGEMT, seen = 0;
	switch (sig) {
	case SIGEMT:
		seen = 1;
		break;
	default:
		break;
	}
	ck_assert_int_eq(seen, 1);
	ck_assert_int_eq(SIGEMT, SIGSTKFLT);
	ck_assert_int_ne(SIGEMT, SIGBUS);
	ck_assert_int_lt(SIGEMT, SIGRTMIN);
	ck_assert_int_eq(EMT_CPCOVF, 1);
}
END_TEST

START_TEST(shims)
{
	hrtime_t a = gethrtime();
	hrtime_t b = gethrtime();
	ck_assert(a > 0);
	ck_assert(b >= a);
	ck_assert_int_eq((int)_lwp_self(), (int)gettid());
}
END_TEST

int main(void)
{
	Suite *s = suite_create("abi");
	TCase *tc = tcase_create("abi");
	tcase_add_test(tc, event_layout);
	tcase_add_test(tc, attr_layout);
	tcase_add_test(tc, v1_constants);
	tcase_add_test(tc, bit_macros);
	tcase_add_test(tc, impl_constants);
	tcase_add_test(tc, signal_constants);
	tcase_add_test(tc, shims);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
