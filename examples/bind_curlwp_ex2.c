/* SPDX-License-Identifier: MIT */
/*
 * Example 2 of cpc_bind_curlwp(3CPC): a SIGEMT each time $EVENT1 counts
 * PRESET's distance to 2^64 more events; the handler samples, sets the
 * preset again with cpc_request_preset() and restarts the counters with
 * cpc_set_restart().
 *	EVENT0=task-clock EVENT1=page-faults ./bind_curlwp_ex2
 * Only error() is supplied; the handler reads gregs[PC] and gregs[USP]
 * as on Solaris (<libcpc.h> supplies the names).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <sys/mman.h>
#include <libcpc.h>

#define	PRESET	(UINT64_MAX - 999ull)

static cpc_t *cpc;
static cpc_set_t *set;
static cpc_buf_t *buf;
static int ind0, ind1;

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) fprintf(stderr, "bind_curlwp_ex2: ");
	(void) vfprintf(stderr, fmt, ap);
	(void) fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	uint64_t val;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}

	(void) printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    (int)_lwp_self(), (void *)sip->si_addr,
	    (void *)uap->uc_mcontext.gregs[PC],
	    (void *)uap->uc_mcontext.gregs[USP]);

	if (cpc_set_sample(cpc, set, buf) != 0)
		error("cannot sample: %s", strerror(errno));

	(void) cpc_buf_get(cpc, buf, ind1, &val);
	(void) printf("0x%" PRIx64 "\n", val);
	(void) fflush(stdout);

	/* Preset the overflowing request again and restart all counters. */
	if (cpc_request_preset(cpc, ind1, PRESET) != 0)
		error("cannot set preset: %s", strerror(errno));
	if (cpc_set_restart(cpc, set) != 0)
		error("cannot restart lwp%d: %s", (int)_lwp_self(),
		    strerror(errno));
}

int
main(void)
{
	int iter;
	char *event0, *event1;
	struct sigaction act;

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

	if ((ind1 = cpc_set_add_request(cpc, set, event1, PRESET,
	    CPC_COUNT_USER | CPC_OVF_NOTIFY_EMT, 0, NULL)) == -1)
		error("could not add second request: %s", strerror(errno));

	if ((buf = cpc_buf_create(cpc, set)) == NULL)
		error("could not create buffer: %s", strerror(errno));

	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof (act.sa_mask));
	act.sa_flags = SA_RESTART|SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));

	if (cpc_bind_curlwp(cpc, set, 0) != 0)
		error("cannot bind lwp%d: %s", (int)_lwp_self(),
		    strerror(errno));

	for (iter = 1; iter <= 20; iter++) {
		/* The computation: fault in 500 fresh pages. */
		size_t len = 500 * 4096, i;
		char *p = mmap(NULL, len, PROT_READ|PROT_WRITE,
		    MAP_PRIVATE|MAP_ANON, -1, 0);

		if (p == MAP_FAILED)
			error("mmap: %s", strerror(errno));
		for (i = 0; i < len; i += 4096)
			p[i] = 1;
		(void) munmap(p, len);
	}

	if (cpc_unbind(cpc, set) != 0)
		error("cannot unbind: %s", strerror(errno));

	(void) cpc_close(cpc);
	return (0);
}
