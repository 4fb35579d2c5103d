/*
 * Handles of the current interfaces: cpc_open, cpc_close, the handle's
 * descriptions (cpc_npic, cpc_caps, cpc_cciname, cpc_cpuref), its error
 * handler (cpc_seterrhndlr) and cpc_terminate.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "lwpctx.h"
#include "native_events.h"
#include "pctxctx.h"
#include "v2.h"

static const char *const subcode_text[] = {
	[CPC_INVALID_EVENT] = "Unknown event",
	[CPC_INVALID_PICNUM] = "Invalid counter number",
	[CPC_INVALID_ATTRIBUTE] = "Unknown attribute",
	[CPC_ATTRIBUTE_OUT_OF_RANGE] = "Attribute out of range",
	[CPC_RESOURCE_UNAVAIL] = "Hardware resource unavailable",
	[CPC_PIC_NOT_CAPABLE] = "Counter cannot count requested event",
	[CPC_REQ_INVALID_FLAGS] = "Invalid flags in a request",
	[CPC_CONFLICTING_REQS] = "Requests conflict with each other",
	[CPC_ATTR_REQUIRES_PRIVILEGE] =
	    "Attribute requires the cpc_cpu privilege",
	[CPC_PBIND_FAILED] = "Couldn't bind LWP to requested processor",
	[CPC_HV_NO_ACCESS] = "Hypervisor event access denied",
};

static void call_handler(cpc_errhndlr_t *fn, const char *name, int subcode,
    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (fn != NULL)
		fn(name, subcode, fmt, ap);
	else
		cpc_vreport_stderr(name, fmt, ap);
	va_end(ap);
}

/* The handler gets the message itself as its format, as on Solaris. */
static void report_text(cpc_t *cpc, const char *fn, int subcode,
    const char *text)
{
	int saved = errno;
	char msg[CPC_MAX_EVENT_LEN];
	size_t n = strlen(text);
	if (n > sizeof(msg) - 2)
		n = sizeof(msg) - 2;
	memcpy(msg, text, n);
	memcpy(msg + n, "\n", 2);
	/* No conversions in the texts: "%" would not reach here. */
	for (char *p = msg; *p != '\0'; p++)
		if (*p == '%')
			*p = ' ';
	call_handler(cpc != NULL ? cpc->errfn : NULL, fn, subcode, msg);
	errno = saved;
}

void v2_report(cpc_t *cpc, const char *fn, int subcode)
{
	if (subcode <= 0 ||
	    (size_t)subcode >= sizeof(subcode_text) / sizeof(subcode_text[0]))
		return;
	report_text(cpc, fn, subcode, subcode_text[subcode]);
}

void v2_note(cpc_t *cpc, const char *fn, const char *msg)
{
	report_text(cpc, fn, -1, msg);
}

void v2_lock(cpc_t *cpc, sigset_t *saved)
{
	sigset_t emt;
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	pthread_sigmask(SIG_BLOCK, &emt, saved);
	pthread_mutex_lock(&cpc->lock);
}

void v2_unlock(cpc_t *cpc, const sigset_t *saved)
{
	pthread_mutex_unlock(&cpc->lock);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* Counters a set may use: the PMU's, or a fixed number for software events. */
static uint_t count_pics(void)
{
	int has_pmu = access("/sys/bus/event_source/devices/cpu/type", F_OK) ==
		0 ||
	    access("/sys/bus/event_source/devices/cpu_core/type", F_OK) == 0;
	int n = has_pmu ? cpc_native_counters() : 0;
	if (n < 2)
		n = 8;
	if (n > CPC_MAX_REQS)
		n = CPC_MAX_REQS;
	return (uint_t)n;
}

cpc_t *cpc_open(int ver)
{
	if (ver != CPC_VER_CURRENT) {
		errno = EINVAL;
		return NULL;
	}
	/* Can this process count at all? */
	const char *why = NULL;
	int rc = cpc_lwp_probe(&why);
	if (rc != 0) {
		errno = why != NULL ? ENOSYS : -rc;
		return NULL;
	}
	cpc_t *cpc = calloc(1, sizeof(*cpc));
	if (cpc == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&cpc->lock, NULL);
	cpc->cpuver = cpc_getcpuver();
	cpc->npic = count_pics();
	cpc->caps = CPC_CAP_OVERFLOW_INTERRUPT | CPC_CAP_OVERFLOW_PRECISE;
	return cpc;
}

int cpc_close(cpc_t *cpc)
{
	if (cpc == NULL) {
		errno = EINVAL;
		return -1;
	}
	while (cpc->sets != NULL)
		cpc_set_destroy(cpc, cpc->sets);
	while (cpc->bufs != NULL)
		cpc_buf_destroy(cpc, cpc->bufs);
	pthread_mutex_destroy(&cpc->lock);
	free(cpc);
	return 0;
}

uint_t cpc_npic(cpc_t *cpc)
{
	return cpc != NULL ? cpc->npic : 0;
}

uint_t cpc_caps(cpc_t *cpc)
{
	return cpc != NULL ? cpc->caps : 0;
}

const char *cpc_cciname(cpc_t *cpc)
{
	return cpc_getcciname(cpc != NULL ? cpc->cpuver : cpc_getcpuver());
}

const char *cpc_cpuref(cpc_t *cpc)
{
	return cpc_getcpuref(cpc != NULL ? cpc->cpuver : cpc_getcpuver());
}

int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn)
{
	if (cpc != NULL)
		cpc->errfn = fn;
	return 0;
}

void cpc_terminate(cpc_t *cpc)
{
	/* Ends the pctx_run of every process context a set is bound in. */
	if (cpc != NULL)
		cpc_pctx_terminate_owner(cpc);
}

int v2_owns_set(cpc_t *cpc, const cpc_set_t *set)
{
	sigset_t saved;
	int found = 0;
	if (cpc == NULL || set == NULL)
		return 0;
	v2_lock(cpc, &saved);
	for (cpc_set_t *s = cpc->sets; s != NULL; s = s->next)
		if (s == set)
			found = 1;
	v2_unlock(cpc, &saved);
	return found;
}
