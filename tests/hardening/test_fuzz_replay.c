/* SPDX-License-Identifier: MIT */
/*
 * The fuzz targets of tests/fuzz/ in "make check": every seed of
 * tests/fuzz/corpus/<target>/ and every input that once crashed a target,
 * kept in tests/fuzz/regressions/<target>/, goes through the target's
 * entry point again, built with the ordinary compiler against the shared
 * library.  A violated property aborts the test.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libcpc.h>

#include "testutil.h"

#define FUZZ_ENTRY fuzz_strtoevent
#include "fuzz/fuzz_strtoevent.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_add_request
#include "fuzz/fuzz_add_request.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_event_names
#include "fuzz/fuzz_event_names.c"
#undef FUZZ_ENTRY
#define FUZZ_ENTRY fuzz_strtoset
#include "fuzz/fuzz_strtoset.c"
#undef FUZZ_ENTRY

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);

/*
 * Runs fn on one input in a child process: 0 when it returns, else the
 * signal that ended it (a violated property aborts).
 */
static int run_isolated(fuzz_fn fn, const uint8_t *data, size_t len)
{
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		fn(data, len);
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return WTERMSIG(status);
	return WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * Feeds every file of top_srcdir/tests/fuzz/<kind>/<target>/ to fn.  A
 * regression input whose name starts with "known-" reproduced a reported
 * library issue: it runs in a child, and must pass now that the issue is
 * fixed (the prefix keeps it out of the fuzzers' corpus, see fuzz.sh).
 */
static int replay_dir(const char *kind, const char *target, fuzz_fn fn)
{
	const char *top = getenv("top_srcdir");
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/%s/%s", top ? top : ".", kind,
	    target);
	DIR *d = opendir(dir);
	if (d == NULL) {
		ck_assert_msg(errno == ENOENT, "%s: %s", dir, strerror(errno));
		return 0;
	}
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0)
			continue;
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "rb");
		ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
		static uint8_t buf[1 << 20];
		size_t len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		if (strncmp(e->d_name, "known-", 6) == 0) {
			int sig = run_isolated(fn, buf, len);
			ck_assert_msg(sig == 0, "fuzz_%s: %s/%s still fails (%s)",
			    target, kind, e->d_name,
			    sig > 0 ? strsignal(sig) : "exit status");
		} else {
			fn(buf, len);
		}
		n++;
	}
	closedir(d);
	return n;
}

static void replay(const char *target, fuzz_fn fn, int min_seeds)
{
	int seeds = replay_dir("corpus", target, fn);
	int regs = replay_dir("regressions", target, fn);
	ck_assert_msg(seeds >= min_seeds, "%s: %d seeds (top_srcdir=%s)",
	    target, seeds, getenv("top_srcdir"));
	fprintf(stderr, "%s: %d seeds, %d regression inputs\n", target, seeds,
	    regs);
}

START_TEST(replay_strtoevent)
{
	replay("strtoevent", fuzz_strtoevent, 20);
}
END_TEST

START_TEST(replay_add_request)
{
	replay("add_request", fuzz_add_request, 20);
}
END_TEST

START_TEST(replay_event_names)
{
	replay("event_names", fuzz_event_names, 20);
}
END_TEST

START_TEST(replay_strtoset)
{
	replay("strtoset", fuzz_strtoset, 20);
}
END_TEST

/*
 * Found while writing the targets (the round trip holds, so the fuzzer
 * does not flag it): a version 1 numeric event code accepts trailing
 * garbage and leading blanks, where the current interfaces want the
 * whole string to be a number.
 */
START_TEST(v1_numeric_codes_are_whole_strings)
{
	cpc_event_t ev;
	capture_errors();
	ck_assert_int_eq(cpc_strtoevent(CPC_PENTIUM_PRO_MMX,
			     "pic0=0x79,pic1=0xc0", &ev), 0);
	/* As on Solaris (strtol): leading blanks and trailing junk pass. */
	ck_assert_int_eq(cpc_strtoevent(CPC_PENTIUM_PRO_MMX,
			     "pic0=17foo,pic1=0xc0", &ev), 0);
	ck_assert_uint_eq(ev.ce_pes[0] & 0xff, 17);
	ck_assert_int_eq(cpc_strtoevent(CPC_PENTIUM_PRO_MMX,
			     "pic0= 17,pic1=0xc0", &ev), 0);
	ck_assert_uint_eq(ev.ce_pes[0] & 0xff, 17);
}
END_TEST

/*
 * Found by fuzz_strtoevent (tests/fuzz/regressions/strtoevent/
 * known-p5-noedge-off-counter): on the Pentium cpuvers, "noedge" on a
 * counter that counts neither user nor system events sets its CESR CLK
 * bit, which cpc_eventtostr used to leave out.  Fixed: it is written.
 */
START_TEST(p5_noedge_on_a_disabled_counter_round_trips)
{
	cpc_event_t ev, back;
	capture_errors();
	ck_assert_int_eq(cpc_strtoevent(CPC_PENTIUM_MMX,
			     "pic0=data_write,pic1=data_tlb_miss,nouser0,noedge0",
			     &ev), 0);
	char *s = cpc_eventtostr(&ev);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(cpc_strtoevent(CPC_PENTIUM_MMX, s, &back), 0);
	ck_assert_msg(back.ce_cesr == ev.ce_cesr, "P5 round trip: CESR %#x -> "
	    "\"%s\" -> %#x", ev.ce_cesr, s, back.ce_cesr);
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fuzz_replay");
	TCase *tc = tcase_create("replay");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, replay_strtoevent);
	tcase_add_test(tc, replay_add_request);
	tcase_add_test(tc, replay_event_names);
	tcase_add_test(tc, replay_strtoset);
	tcase_add_test(tc, v1_numeric_codes_are_whole_strings);
	tcase_add_test(tc, p5_noedge_on_a_disabled_counter_round_trips);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
