/* SPDX-License-Identifier: MIT */
/*
 * The version 1 per-LWP interfaces: cpc_bind_event, cpc_take_sample,
 * cpc_count_usr_events, cpc_count_sys_events and cpc_rele, as a thin layer
 * that turns a cpc_event_t into a request set of two requests.
 * Everything here is async-signal-safe.
 */
#include <errno.h>
#include <string.h>

#include "libcpc.h"
#include "libcpc_group.h"
#include "cpuinfo.h"
#include "error.h"
#include "lwpctx.h"
#include "ovf_signal.h"
#include "pes.h"
#include "v1.h"
#include "platform_events.h"

#define FN_BIND "bind_event"

/* The calling LWP's version 1 binding. */
struct v1_binding {
	int bound;
	int flags;
	cpc_event_t ev;		/* cpuver and control words as bound */
	uint64_t tsc_base;	/* ticks before the last internal rebind */
};

static __thread struct v1_binding v1 __attribute__((tls_model("initial-exec")));

/* Tags the LWP bindings made through this layer (__cpc_lwp_owner). */
static const char v1_owner;

/* Is the calling LWP's binding a version 1 one? */
static int v1_bound(void)
{
	return v1.bound && __cpc_lwp_owner() == &v1_owner;
}

/* What a new LWP needs to take over a version 1 binding. */
struct v1_tag {
	int cpuver;
	int flags;
	uint32_t pes[2];
};

_Static_assert(sizeof(struct v1_tag) <= CPC_INHERIT_TAG_SIZE, "v1 tag");

/* In a new LWP that inherited a version 1 binding. */
static void v1_adopt(const unsigned char *tag)
{
	struct v1_tag t;
	memcpy(&t, tag, sizeof(t));
	memset(&v1.ev, 0, sizeof(v1.ev));
	v1.ev.ce_cpuver = t.cpuver;
	v1.ev.ce_pes[0] = t.pes[0];
	v1.ev.ce_pes[1] = t.pes[1];
	v1.flags = t.flags;
	v1.tsc_base = 0;
	v1.bound = 1;
}

/* New LWPs count from zero, with the same events (Solaris v1). */
static void describe_inheritance(struct cpc_inherit *inh,
    const cpc_event_t *ev, int flags)
{
	struct v1_tag t = { ev->ce_cpuver, flags,
		{ ev->ce_pes[0], ev->ce_pes[1] } };
	inh->zero_presets = 1;
	inh->all_start_at_max = 1;
	inh->aggregate = 1;
	inh->adopt = v1_adopt;
	memset(inh->tag, 0, sizeof(inh->tag));
	memcpy(inh->tag, &t, sizeof(t));
}

/* Explains a backend error for request i. */
static void report_bind_error(const cpc_event_t *ev, int err, int bad,
    const char *why)
{
	char name[CPC_MAX_EVENT_LEN];

	if (why != NULL) {
		__cpc_note(FN_BIND, "%s\n", why);
		return;
	}
	if (err == ENOSPC) {
		__cpc_note(FN_BIND,
		    "more events than the processor has counters\n");
		return;
	}
	if (bad < 0 || bad > 1) {
		__cpc_note(FN_BIND, "cannot bind: %s\n", strerrordesc_np(err));
		return;
	}
	if (__cpc_pes_event_name(ev->ce_cpuver, bad, ev->ce_pes[bad], name,
		sizeof(name)) != 0)
		name[0] = '\0';
	switch (err) {
	case ENOTSUP:
		__cpc_note(FN_BIND,
		    "pic%d: event '%s' cannot signal its overflow\n", bad, name);
		break;
	case ENOENT:
		__cpc_note(FN_BIND,
		    "pic%d: event '%s' cannot be counted on this system "
		    "(no hardware PMU or no such event)\n",
		    bad, name);
		break;
	case EACCES:
	case EPERM: {
		char text[400];
		__cpc_lwp_explain_refusal(text, sizeof(text),
		    (ev->ce_pes[bad] & PES_OS) != 0);
		__cpc_note(FN_BIND, "pic%d: not permitted to count '%s'%s: %s",
		    bad, name,
		    (ev->ce_pes[bad] & PES_OS) ? " in system mode" : "", text);
		break;
	}
	default:
		__cpc_note(FN_BIND, "pic%d: cannot count '%s': %s\n", bad,
		    name, strerrordesc_np(err));
		break;
	}
}

/* Checks an event and its flags, and builds the request set. */
int __cpc_v1_build_set(const cpc_event_t *ev, int flags,
    struct cpc_reqset *set, const char *fn)
{
	int family = __cpc_platform_family(ev->ce_cpuver);

	if (family == CPC_FAMILY_NONE) {
		__cpc_note(fn, "unknown cpuver %d\n", ev->ce_cpuver);
		return EINVAL;
	}
	if (family == CPC_FAMILY_P5) {
		__cpc_note(fn,
		    "Pentium (P5) events cannot be counted on this processor\n");
		return EINVAL;
	}
	memset(set, 0, sizeof(*set));
	set->nreqs = 2;
	for (int i = 0; i < 2; i++) {
		uint32_t pes = ev->ce_pes[i];
		struct cpc_req *r = &set->req[i];
		if ((pes & PES_INT) && (pes & PES_OS)) {
			__cpc_note(fn,
			    "pic%d: 'int' cannot be combined with 'sys'\n", i);
			return EINVAL;
		}
		if ((pes & PES_INT) && !(flags & CPC_BIND_EMT_OVF)) {
			__cpc_note(fn,
			    "pic%d: 'int' requires CPC_BIND_EMT_OVF\n", i);
			return EINVAL;
		}
		if (__cpc_pes_evsel(ev->ce_cpuver, pes, &r->sel) != 0) {
			__cpc_note(fn, "pic%d: invalid event selection "
			    "0x%x\n", i, pes);
			return EINVAL;
		}
		r->preset = ev->ce_pic[i];
		if (pes & PES_USR)
			r->flags |= CPC_COUNT_USER;
		if (pes & PES_OS)
			r->flags |= CPC_COUNT_SYSTEM;
	}
	/*
	 * With CPC_BIND_EMT_OVF every counter may signal its overflow, as on
	 * illumos; once the event string sets 'int' bits, only those do.
	 */
	if (flags & CPC_BIND_EMT_OVF) {
		int any_int = ((ev->ce_pes[0] | ev->ce_pes[1]) & PES_INT) != 0;
		for (int i = 0; i < 2; i++)
			if (!any_int || (ev->ce_pes[i] & PES_INT))
				set->req[i].flags |= CPC_OVF_NOTIFY_EMT;
	}
	return 0;
}

/* A bind that fails leaves the LWP unbound, whatever the reason. */
static int bind_failed(int err)
{
	v1.bound = 0;
	(void)__cpc_lwp_release();
	return __cpc_fail(err);
}

static int bind_v1(const cpc_event_t *ev, int flags, uint64_t tsc_base)
{
	struct cpc_reqset set;
	int bad;
	const char *why = NULL;

	if ((flags & ~(CPC_BIND_LWP_INHERIT | CPC_BIND_EMT_OVF)) != 0) {
		__cpc_note(FN_BIND, "invalid flags 0x%x\n", (unsigned)flags);
		return bind_failed(EINVAL);
	}
	int err = __cpc_v1_build_set(ev, flags, &set, FN_BIND);
	if (err != 0)
		return bind_failed(err);
	if (flags & CPC_BIND_EMT_OVF) {
		int rc = __cpc_ovf_signal_arm();
		if (rc != 0) {
			__cpc_note(FN_BIND, "cannot install the SIGEMT handler\n");
			return bind_failed(-rc);
		}
	}
	/*
	 * The new binding replaces the old one; an inheritance group
	 * aggregate survives a rebind of the same events with inheritance.
	 * v1.bound stays set meanwhile: an overflow handler that runs just
	 * before or after the core's change must still be able to sample.
	 */
	struct cpc_inherit inh;
	if (flags & CPC_BIND_LWP_INHERIT)
		describe_inheritance(&inh, ev, flags);
	/*
	 * Set before the core binds: the new counters' first overflow can
	 * come as soon as the core's change ends, before this returns.
	 */
	v1.ev = *ev;
	v1.flags = flags;
	v1.tsc_base = tsc_base;
	v1.bound = 1;
	int rc = __cpc_lwp_bind(&set, (unsigned)flags, &inh, &v1_owner, &bad,
	    &why);
	if (rc != 0) {
		v1.bound = 0;
		int err = -rc;
		if ((err == EACCES || err == EPERM) && why == NULL) {
			/*
			 * Refused by policy.  If no counting at all is allowed,
			 * the counters are inaccessible (ENOSYS, as
			 * cpc_access and cpc_open say); else this event is
			 * (EACCES, not Linux's EPERM).
			 */
			int probe = __cpc_lwp_probe(NULL);
			if (probe == -EACCES || probe == -EPERM) {
				char text[400];
				__cpc_lwp_explain_refusal(text, sizeof(text),
				    0);
				__cpc_note(FN_BIND, "CPU performance counters "
				    "are inaccessible on this machine: %s",
				    text);
				return __cpc_fail(ENOSYS);
			}
			err = EACCES;
		}
		report_bind_error(ev, err, bad, why);
		return __cpc_fail(err == ENOENT || err == ENOSPC ? EINVAL : err);
	}
	return 0;
}

int cpc_bind_event(cpc_event_t *event, int flags)
{
	int saved = errno;
	if (event == NULL) {
		(void)cpc_rele();
		errno = saved;
		return 0;
	}
	int rc = bind_v1(event, flags, 0);
	if (rc == 0)
		errno = saved;
	return rc;
}

/* Samples the binding: counts, ticks (with the rebind base) and time. */
/* Inline: cpc_take_sample calls the backend from its own frame (lwpctx.h). */
static inline __attribute__((always_inline)) int sample_v1(cpc_event_t *out)
{
	uint64_t vals[2], tsc = 0;

	if (!v1.bound)
		return __cpc_fail(EINVAL);
	int rc = __cpc_lwp_sample(&v1_owner, vals, 2, &tsc);
	if (rc != 0)
		return __cpc_fail(-rc);
	out->ce_cpuver = v1.ev.ce_cpuver;
	out->ce_pes[0] = v1.ev.ce_pes[0];
	out->ce_pes[1] = v1.ev.ce_pes[1];
	out->ce_hrt = (hrtime_t)__cpc_hrtime();
	out->ce_tsc = v1.tsc_base + tsc;
	out->ce_pic[0] = vals[0];
	out->ce_pic[1] = vals[1];
	return 0;
}

/* errno stays as it was when it succeeds: the LWP's sample leaves it alone. */
int cpc_take_sample(cpc_event_t *event)
{
	if (event == NULL)
		return __cpc_fail(EINVAL);
	return sample_v1(event);
}

int cpc_take_group_sample(cpc_event_t *event)
{
	int saved = errno;
	uint64_t vals[2], tsc = 0;

	if (event == NULL || !v1_bound())
		return __cpc_fail(EINVAL);
	int rc = __cpc_lwp_group_sample(vals, 2, &tsc);
	if (rc != 0)
		return __cpc_fail(-rc);
	event->ce_cpuver = v1.ev.ce_cpuver;
	event->ce_pes[0] = v1.ev.ce_pes[0];
	event->ce_pes[1] = v1.ev.ce_pes[1];
	event->ce_hrt = gethrtime();
	event->ce_tsc = tsc;
	event->ce_pic[0] = vals[0];
	event->ce_pic[1] = vals[1];
	errno = saved;
	return 0;
}

/* Rebinds with the current counts as presets and one flag bit changed. */
static int toggle_mode(uint32_t bit, int enable)
{
	int saved = errno;
	cpc_event_t now;

	if (sample_v1(&now) != 0)
		return -1;
	if (bit == PES_OS && enable && (v1.flags & CPC_BIND_EMT_OVF)) {
		__cpc_note(bit == PES_OS ? "count_sys_events" : "count_usr_events",
		    "system counting cannot be combined with overflow "
		    "interrupts\n");
		return __cpc_fail(EINVAL);
	}
	for (int i = 0; i < 2; i++) {
		if (enable)
			now.ce_pes[i] |= bit;
		else
			now.ce_pes[i] &= ~bit;
	}
	if (bind_v1(&now, v1.flags, now.ce_tsc) != 0)
		return -1;
	errno = saved;
	return 0;
}

int cpc_count_usr_events(int enable)
{
	return toggle_mode(PES_USR, enable);
}

int cpc_count_sys_events(int enable)
{
	return toggle_mode(PES_OS, enable);
}

int cpc_rele(void)
{
	int saved = errno;
	/*
	 * The core first: until its counters are gone, an overflow signal
	 * may still reach the application's handler, which must be able to
	 * sample (found with hardware events, which overflow right up to
	 * the release).
	 */
	int rc = __cpc_lwp_release();
	v1.bound = 0;
	if (rc != 0)
		return __cpc_fail(EINVAL);
	errno = saved;
	return 0;
}
