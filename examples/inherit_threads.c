/* SPDX-License-Identifier: MIT */
/*
 * Per-thread counting with CPC_BIND_LWP_INHERIT: the main LWP binds once,
 * and every thread it creates afterwards counts its own events from zero.
 * At the end, the Linux extension cpc_take_group_sample() gives the sums
 * of the whole group.
 *
 *	PERFEVENTS=pic0=task-clock,pic1=page-faults ./inherit_threads
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sys/mman.h>
#include <libcpc.h>
#include <libcpc_group.h>

#define	NTHREADS	4

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) fprintf(stderr, "inherit_threads: ");
	(void) vfprintf(stderr, fmt, ap);
	(void) fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/*
 * Thread n spins n times longer and touches n times more pages.  Each
 * thread spins on a variable of its own: one shared by threads running
 * at once would make every iteration a cache-line transfer, and a
 * thread's CPU time would depend on who runs beside it, not on its work.
 */
static void *
worker(void *arg)
{
	int n = (int)(intptr_t)arg;
	cpc_event_t before, after;
	volatile uint64_t sink = 0;
	size_t len = (size_t)n * 100 * 4096, i;
	char *p;

	if (cpc_take_sample(&before) == -1)
		error("thread %d: no inherited context: %s", n,
		    strerror(errno));
	for (i = 0; i < (size_t)n * 2000000; i++)
		sink += i;
	p = mmap(NULL, len, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANON, -1, 0);
	if (p == MAP_FAILED)
		error("mmap: %s", strerror(errno));
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	(void) munmap(p, len);
	if (cpc_take_sample(&after) == -1)
		error("thread %d: can't sample: %s", n, strerror(errno));
	(void) printf("thread %d lwp%d: %" PRIu64 " %" PRIu64 "\n", n,
	    (int)_lwp_self(), after.ce_pic[0], after.ce_pic[1]);
	return (NULL);
}

int
main(void)
{
	char *setting;
	cpc_event_t event, group;
	pthread_t tid[NTHREADS];
	int i;

	if ((setting = getenv("PERFEVENTS")) == NULL)
		setting = "pic0=task-clock,pic1=page-faults";
	if (cpc_strtoevent(cpc_getcpuver(), setting, &event) != 0)
		error("can't measure '%s' on this processor", setting);
	if (cpc_bind_event(&event, CPC_BIND_LWP_INHERIT) == -1)
		error("can't bind: %s", strerror(errno));

	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&tid[i], NULL, worker,
		    (void *)(intptr_t)(i + 1)) != 0)
			error("pthread_create failed");
	for (i = 0; i < NTHREADS; i++)
		(void) pthread_join(tid[i], NULL);

	if (cpc_take_group_sample(&group) == -1)
		error("can't read the group: %s", strerror(errno));
	(void) printf("group: %" PRIu64 " %" PRIu64 "\n",
	    group.ce_pic[0], group.ce_pic[1]);
	(void) cpc_rele();
	return (0);
}
