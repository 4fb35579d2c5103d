/* SPDX-License-Identifier: MIT */
/*
 * The kernel's side of a user page in the unit tests of the page
 * protocols (the perf user page, test_rdpmc.c; the module's state page,
 * test_kpage.c): a stand-in counter or clock whose reads are counted and,
 * while writes are left, torn: the kernel rewrites the page between the
 * reader's two looks at its sequence counter (the counter moves on by 2,
 * one field by a step), so that the reader must retry and keep the
 * values of the last version.  (Both pages are uapi structures: __u32
 * and __u64 fields.)
 */
#ifndef TESTS_UNIT_TORN_PAGE_H
#define TESTS_UNIT_TORN_PAGE_H

#include <linux/types.h>

struct torn_page {
	__u32 *seq;		/* the page's sequence counter */
	__u64 *field;		/* what each write changes besides it */
	__u64 step;		/* by how much */
	int writes;		/* reads the kernel still tears */
	int reads;		/* reads of the stand-in so far */
};

/* Before each test: no read yet, none torn. */
static inline void torn_page_reset(struct torn_page *t)
{
	t->writes = 0;
	t->reads = 0;
}

/* Called by each read of the stand-in, before it returns its value. */
static inline void torn_page_read(struct torn_page *t)
{
	t->reads++;
	if (t->writes > 0) {
		t->writes--;
		*t->seq += 2;
		*t->field += t->step;
	}
}

#endif
