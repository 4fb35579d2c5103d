/* SPDX-License-Identifier: MIT */
/*
 * Example 1 of cpc_bind_curlwp(3CPC): count two events around a piece of
 * code with the current libcpc interfaces.  The events come from $EVENT0
 * and $EVENT1, for example
 *	EVENT0=task-clock EVENT1=page-faults ./bind_curlwp_ex1
 * Only error() is supplied beyond what a Solaris program contains.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sys/mman.h>
#include <libcpc.h>

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) fprintf(stderr, "bind_curlwp_ex1: ");
	(void) vfprintf(stderr, fmt, ap);
	(void) fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* The computation being measured: spin a little and fault in 200 pages. */
static void
computation(void)
{
	static volatile uint64_t sink;
	size_t len = 200 * 4096, i;
	char *p;

	for (i = 0; i < 5000000; i++)
		sink += i;
	p = mmap(NULL, len, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANON, -1, 0);
	if (p == MAP_FAILED)
		error("mmap: %s", strerror(errno));
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	(void) munmap(p, len);
}

int
main(void)
{
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *diff, *after, *before;
	int ind0, ind1;
	uint64_t val0, val1;
	char *event0, *event1;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL)
		error("perf counters unavailable: %s", strerror(errno));

	if ((event0 = getenv("EVENT0")) == NULL)
		event0 = "EC_ref";
	if ((event1 = getenv("EVENT1")) == NULL)
		event1 = "EC_hit";

	if ((set = cpc_set_create(cpc)) == NULL)
		error("could not create set: %s", strerror(errno));

	if ((ind0 = cpc_set_add_request(cpc, set, event0, 0,
	    CPC_COUNT_USER, 0, NULL)) == -1)
		error("could not add first request: %s", strerror(errno));

	if ((ind1 = cpc_set_add_request(cpc, set, event1, 0,
	    CPC_COUNT_USER, 0, NULL)) == -1)
		error("could not add second request: %s", strerror(errno));

	if ((diff = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));
	if ((after = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));
	if ((before = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) == -1)
		error("cannot bind lwp%d: %s", (int)_lwp_self(),
		    strerror(errno));

	if (cpc_set_sample(cpc, set, before) == -1)
		error("can't sample: %s", strerror(errno));

	computation();

	if (cpc_set_sample(cpc, set, after) == -1)
		error("can't sample: %s", strerror(errno));

	cpc_buf_sub(cpc, diff, after, before);

	(void) cpc_buf_get(cpc, diff, ind0, &val0);
	(void) cpc_buf_get(cpc, diff, ind1, &val1);

	(void) printf("%s: %" PRId64 "\n", event0, val0);
	(void) printf("%s: %" PRId64 "\n", event1, val1);

	if (cpc_unbind(cpc, set) == -1)
		error("cannot unbind lwp%d: %s", (int)_lwp_self(),
		    strerror(errno));

	(void) cpc_close(cpc);
	return (0);
}
