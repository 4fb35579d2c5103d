/* SPDX-License-Identifier: MIT */
/*
 * cpc_linux_suggest(3CPC): the names the walkers list that are closest to
 * an unknown one, as cputrack and cpustat name them; and the same rule in
 * the notes of cpc_linux_errnote(3CPC): a name longer than any the
 * library takes is near none.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libcpc.h>

static cpc_t *cpc;

static void quiet(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)fn, (void)subcode, (void)fmt, (void)ap;
}

static void setup(void)
{
	cpc = cpc_open(CPC_VER_CURRENT);
	ck_assert_ptr_nonnull(cpc);
	ck_assert_int_eq(cpc_seterrhndlr(cpc, quiet), 0);
}

static void teardown(void)
{
	if (cpc != NULL)
		cpc_close(cpc);
	cpc = NULL;
}

/* Is name one of those the walkers list? */
struct probe {
	const char *name;
	int found;
};

static void match(void *arg, const char *name)
{
	struct probe *p = arg;
	if (strcmp(p->name, name) == 0)
		p->found = 1;
}

static int listed(const char *name)
{
	struct probe p = { name, 0 };
	cpc_walk_generic_events_all(cpc, &p, match);
	cpc_walk_events_all(cpc, &p, match);
	cpc_linux_walk_events(cpc, &p, match);
	return p.found;
}

/*
 * Checks that list is "a", "a or b" or "a, b or c" for n names, each of
 * them listed by the walkers.
 */
static void check_list(const char *list, int n)
{
	char copy[256], *names[3] = { copy, NULL, NULL };
	ck_assert(n >= 1 && n <= 3);
	ck_assert_uint_lt(strlen(list), sizeof(copy));
	strcpy(copy, list);
	char *last = strstr(copy, " or ");
	if (last != NULL) {
		*last = '\0';
		names[n - 1] = last + 4;
	}
	char *comma = strstr(copy, ", ");
	if (comma != NULL) {
		*comma = '\0';
		names[1] = comma + 2;
	}
	ck_assert_msg((last != NULL) == (n >= 2), "%d: %s", n, list);
	ck_assert_msg((comma != NULL) == (n == 3), "%d: %s", n, list);
	for (int i = 0; i < n; i++)
		ck_assert_msg(listed(names[i]), "'%s' is not listed", names[i]);
}

START_TEST(near_names)
{
	char buf[256];
	int n = cpc_linux_suggest(cpc, "task-clok", buf, sizeof(buf));
	ck_assert_int_ge(n, 1);
	ck_assert_int_le(n, 3);
	ck_assert_msg(strncmp(buf, "task-clock", 10) == 0, "buf: %s", buf);
	check_list(buf, n);
	/* Case is ignored; the closest comes first. */
	n = cpc_linux_suggest(cpc, "TASK-CLOK", buf, sizeof(buf));
	ck_assert_int_ge(n, 1);
	ck_assert_msg(strncmp(buf, "task-clock", 10) == 0, "buf: %s", buf);
	/* A listed name is its own closest. */
	n = cpc_linux_suggest(cpc, "task-clock", buf, sizeof(buf));
	ck_assert_int_ge(n, 1);
	ck_assert_msg(strncmp(buf, "task-clock", 10) == 0 &&
		(buf[10] == '\0' || buf[10] == ',' || buf[10] == ' '),
	    "buf: %s", buf);
	check_list(buf, n);
	n = cpc_linux_suggest(cpc, "PAPI_tot_cyx", buf, sizeof(buf));
	ck_assert_int_ge(n, 1);
	check_list(buf, n);
}
END_TEST

START_TEST(far_names)
{
	char buf[256];
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(cpc_linux_suggest(cpc, "zzzzzzzzzzzzz", buf,
			     sizeof(buf)), 0);
	ck_assert_str_eq(buf, "");
	/*
	 * Longer than any name: near none, however many edits its length
	 * would allow (a third of 300 is more than any name has letters).
	 */
	char *big = malloc(301);
	ck_assert_ptr_nonnull(big);
	for (size_t len = 64; len <= 300; len += 59) {
		memset(big, 'q', len);
		big[len] = '\0';
		ck_assert_int_eq(cpc_linux_suggest(cpc, big, buf, sizeof(buf)),
		    0);
		ck_assert_str_eq(buf, "");
	}
	free(big);
}
END_TEST

/* The notes of an unknown name follow the same rule. */
START_TEST(far_names_in_notes)
{
	char big[201];
	memset(big, 'x', 200);
	big[200] = '\0';
	cpc_set_t *set = cpc_set_create(cpc);
	ck_assert_ptr_nonnull(set);
	(void)cpc_linux_errnote(cpc);
	ck_assert_int_eq(cpc_set_add_request(cpc, set, big, 0, CPC_COUNT_USER,
			     0, NULL), -1);
	const char *note = cpc_linux_errnote(cpc);
	ck_assert_ptr_nonnull(note);
	ck_assert_msg(strstr(note, "did you mean") == NULL, "note: %s", note);
	ck_assert_ptr_nonnull(strstr(note, "; the names: "));
	/* And a near one still gets its names. */
	ck_assert_int_eq(cpc_set_add_request(cpc, set, "task-clok", 0,
			     CPC_COUNT_USER, 0, NULL), -1);
	note = cpc_linux_errnote(cpc);
	ck_assert_ptr_nonnull(note);
	ck_assert_ptr_nonnull(strstr(note, "did you mean task-clock"));
	cpc_set_destroy(cpc, set);
}
END_TEST

START_TEST(short_buffer)
{
	char full[256], part[8];
	int n = cpc_linux_suggest(cpc, "task-clok", full, sizeof(full));
	ck_assert_int_ge(n, 1);
	memset(part, 'x', sizeof(part));
	ck_assert_int_eq(cpc_linux_suggest(cpc, "task-clok", part,
			     sizeof(part)), n);
	ck_assert_uint_eq(strlen(part), sizeof(part) - 1);
	ck_assert_int_eq(strncmp(part, full, sizeof(part) - 1), 0);
	/* One byte: the empty string. */
	ck_assert_int_eq(cpc_linux_suggest(cpc, "task-clok", part, 1), n);
	ck_assert_str_eq(part, "");
}
END_TEST

START_TEST(bad_arguments)
{
	char buf[64];
	errno = 0;
	ck_assert_int_eq(cpc_linux_suggest(NULL, "task-clok", buf,
			     sizeof(buf)), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(cpc_linux_suggest(cpc, NULL, buf, sizeof(buf)), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(cpc_linux_suggest(cpc, "task-clok", NULL, 64), -1);
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_int_eq(cpc_linux_suggest(cpc, "task-clok", buf, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("suggest");
	TCase *tc = tcase_create("suggest");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, near_names);
	tcase_add_test(tc, far_names);
	tcase_add_test(tc, far_names_in_notes);
	tcase_add_test(tc, short_buffer);
	tcase_add_test(tc, bad_arguments);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
