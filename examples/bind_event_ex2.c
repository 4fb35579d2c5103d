/* SPDX-License-Identifier: MIT */
/*
 * Example 2 of cpc_bind_event(3CPC): take a SIGEMT every 1000 events of
 * counter 1, print where the program was, and rebind with a new preset
 * from the signal handler.  Written against the Solaris v1 API as a
 * Solaris program would be; only error() is supplied.  The handler reads
 * gregs[PC] and gregs[USP] as on Solaris (<libcpc.h> supplies the names).
 *
 *	PERFEVENTS=pic0=task-clock,pic1=page-faults ./bind_event_ex2
 */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
#include <sys/mman.h>
#include <libcpc.h>

#define	PRESET	(UINT64_MAX - 999ull)

static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) fprintf(stderr, "bind_event_ex2: ");
	(void) vfprintf(stderr, fmt, ap);
	(void) fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	ucontext_t *uap = arg;
	cpc_event_t sample;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		psignal(sig, "example");
		psiginfo(sip, "example");
		return;
	}

	(void) printf("lwp%d - si_addr %p ucontext: %%pc %p %%sp %p\n",
	    (int)_lwp_self(), (void *)sip->si_addr,
	    (void *)uap->uc_mcontext.gregs[PC],
	    (void *)uap->uc_mcontext.gregs[USP]);

	if (cpc_take_sample(&sample) == -1)
		error("can't sample: %s", strerror(errno));

	(void) printf("0x%" PRIx64 " 0x%" PRIx64 "\n",
	    sample.ce_pic[0], sample.ce_pic[1]);
	(void) fflush(stdout);

	sample.ce_pic[1] = PRESET;
	if (cpc_bind_event(&sample, CPC_BIND_EMT_OVF) == -1)
		error("cannot bind lwp%d: %s", (int)_lwp_self(),
		    strerror(errno));
}

int
main(int argc, char *argv[])
{
	int cpuver, iter;
	char *setting = NULL;
	cpc_event_t event;
	struct sigaction act;

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

	act.sa_sigaction = emt_handler;
	bzero(&act.sa_mask, sizeof (act.sa_mask));
	act.sa_flags = SA_RESTART|SA_SIGINFO;
	if (sigaction(SIGEMT, &act, NULL) == -1)
		error("sigaction: %s", strerror(errno));

	event.ce_pic[1] = PRESET;
	if (cpc_bind_event(&event, CPC_BIND_EMT_OVF) == -1)
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

	(void) cpc_bind_event(NULL, 0);	/* done */
	free(setting);
	return (0);
}
