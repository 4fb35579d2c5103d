/* SPDX-License-Identifier: MIT */
/*
 * What every version 2 file uses: the handle's lock, reports through the
 * handle's error handler, and the check that a set belongs to a handle.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "platform_events.h"
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
		__cpc_vreport_stderr(name, fmt, ap);
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

void v2_keep_note(cpc_t *cpc, const char *msg)
{
	size_t n = strlen(msg);
	if (n > sizeof(cpc->note) - 1)
		n = sizeof(cpc->note) - 1;
	memcpy(cpc->note, msg, n);
	cpc->note[n] = '\0';
}

void v2_note_uncountable(cpc_t *cpc, const cpc_set_t *set, int bad)
{
	char msg[sizeof(cpc->note)];
	for (const struct v2_req *r = set->reqs; r != NULL; r = r->next) {
		if (r->index != bad)
			continue;
		if (!__cpc_kernel_has_core_pmu())
			snprintf(msg, sizeof(msg), "event '%s' cannot be "
			    "counted on this system: the kernel has no "
			    "hardware PMU (a virtual machine without a virtual "
			    "PMU, or a processor it does not drive), so only "
			    "its software events count (task-clock, "
			    "page-faults, ...; cputrack -h and cpustat -h list them); to "
			    "count '%s', run on hardware or give the virtual "
			    "machine a PMU (KVM: -cpu host)", r->event,
			    r->event);
		else
			snprintf(msg, sizeof(msg), "event '%s' cannot be "
			    "counted on this system (this PMU has no such "
			    "event)", r->event);
		if (cpc != NULL)
			v2_keep_note(cpc, msg);
	}
}

void v2_note(cpc_t *cpc, const char *fn, const char *msg)
{
	/*
	 * Subcode -1 (no description): illumos's cpc_err() reports nothing,
	 * through the application's handler or its default printer alike;
	 * the Linux explanation waits in the note (cpc_linux_errnote).
	 */
	(void)fn;
	if (cpc != NULL)
		v2_keep_note(cpc, msg);
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
