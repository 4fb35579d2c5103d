/* SPDX-License-Identifier: MIT */
/*
 * Example 1 of cpc_bind_event(3CPC): count two events around a piece of
 * code, twenty times, in the calling LWP.  Written against the Solaris v1
 * API as a Solaris program would be; only error() is supplied here.
 *
 * The events come from $PERFEVENTS, for example
 *	PERFEVENTS=pic0=task-clock,pic1=page-faults ./bind_event_ex1
 */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <libcpc.h>

/* The user-supplied error routine: print and exit. */
static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) fprintf(stderr, "bind_event_ex1: ");
	(void) vfprintf(stderr, fmt, ap);
	(void) fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/*
 * The computation being measured: fill 64 pages of fresh memory (kept
 * until exit, so that each iteration touches new pages) and do some sums.
 */
static volatile uint64_t sink;
static char *buffers[21];

static void
work(int iter)
{
	size_t len = 64 * 4096;
	char *p = malloc(len);
	size_t i;

	if (p == NULL)
		error("out of memory");
	for (i = 0; i < len; i += 4096)
		p[i] = (char)iter;
	for (i = 0; i < 200000; i++)
		sink += i * (uint64_t)iter;
	buffers[iter] = p;
}

int
main(int argc, char *argv[])
{
	int cpuver, iter;
	char *setting = NULL;
	cpc_event_t event;

	(void) argc;
	(void) argv;

	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT)
		error("application:library cpc version mismatch!");

	if ((cpuver = cpc_getcpuver()) == -1)
		error("no performance counter hardware!");

	if ((setting = getenv("PERFEVENTS")) == NULL)
		setting = "pic0=EC_ref,pic1=EC_hit";

	if (cpc_strtoevent(cpuver, setting, &event) != 0)
		error("can't measure '%s' on this processor", setting);
	setting = cpc_eventtostr(&event);

	if (cpc_access() == -1)
		error("can't access perf counters: %s", strerror(errno));

	if (cpc_bind_event(&event, 0) == -1)
		error("can't bind lwp%d: %s", (int)_lwp_self(),
		    strerror(errno));

	for (iter = 1; iter <= 20; iter++) {
		cpc_event_t before, after;

		if (cpc_take_sample(&before) == -1)
			break;

		work(iter);

		if (cpc_take_sample(&after) == -1)
			break;
		(void) printf("%3d: %" PRId64 " %" PRId64 "\n", iter,
		    after.ce_pic[0] - before.ce_pic[0],
		    after.ce_pic[1] - before.ce_pic[1]);
	}

	if (iter <= 20)
		error("can't sample '%s': %s", setting, strerror(errno));

	for (iter = 1; iter <= 20; iter++)
		free(buffers[iter]);
	free(setting);
	return (0);
}
