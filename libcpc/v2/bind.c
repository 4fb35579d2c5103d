/* SPDX-License-Identifier: MIT */
/*
 * Binding and sampling with the current interfaces: cpc_bind_curlwp,
 * cpc_unbind, cpc_set_sample, cpc_request_preset, cpc_set_restart,
 * cpc_enable and cpc_disable, on the same per-LWP core as version 1.
 * The sample, restart, preset and rebind paths are async-signal-safe.
 */
#include <errno.h>
#include <string.h>

#include <stdlib.h>

#include "cpuctx.h"
#include "lwpctx.h"
#include "ovf_signal.h"
#include "pctxctx.h"
#include "cpuinfo.h"
#include "error.h"
#include "v2.h"

#define FN_BIND "cpc_bind_curlwp"

/* New LWPs start from the set's presets (Solaris v2). */
static void v2_adopt(const unsigned char *tag)
{
	(void)tag;
}

static const struct cpc_inherit v2_inherit = {
	.zero_presets = 0,
	.all_start_at_max = 0,
	.adopt = v2_adopt,
};

/* The subcode a backend error is reported with. */
static int backend_subcode(int err)
{
	switch (err) {
	case ENOENT:	/* no such event here (ENOTSUP: cannot notify) */
	case EBUSY:
	case ENOSPC:	/* more requests than the processor has counters */
		return CPC_RESOURCE_UNAVAIL;
	default:
		return -1;
	}
}

int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	int saved = errno;
	struct cpc_reqset rs;
	int bad = -1, emt = 0;
	const char *why = NULL;

	if (set == NULL || set->nreqs == 0 ||
	    (flags & ~(uint_t)CPC_BIND_LWP_INHERIT) != 0)
		return __cpc_fail(EINVAL);
	if (v2_check_reqs(cpc, set, FN_BIND) != 0)
		return -1;
	/* As Solaris: not while this LWP has a processor binding. */
	if (v2_cpu_lwp_has_binding(set)) {
		v2_note(cpc, FN_BIND, "the LWP has a processor binding "
		    "(cpc_bind_cpu)");
		return __cpc_fail(EAGAIN);
	}
	for (struct v2_req *r = set->reqs; r != NULL; r = r->next)
		emt |= (r->req.flags & CPC_OVF_NOTIFY_EMT) != 0;
	if (emt) {
		int rc = __cpc_ovf_signal_arm();
		if (rc != 0)
			return __cpc_fail(-rc);
	}
	if (set->state == V2_BOUND_CPU || set->state == V2_BOUND_PCTX)
		v2_unbind_set(set);
	v2_compile(set, &rs);
	/*
	 * The set is the LWP's before the core binds it: the new counters'
	 * first overflow can come as soon as the core's change ends (raised
	 * again there if it landed inside), before this returns, and the
	 * handler's cpc_set_sample must then find the set bound.  The core
	 * still refuses a sample of a set that is not its binding's owner.
	 */
	int was = set->state;
	set->state = V2_BOUND_LWP;
	int rc = __cpc_lwp_bind(&rs, flags, &v2_inherit, set, &bad, &why);
	if (rc != 0) {
		set->state = was;
		if (why != NULL) {
			v2_note(cpc, FN_BIND, why);
		} else if (-rc == EACCES || -rc == EPERM) {
			/*
			 * Refused by policy (system mode, say): as the
			 * original's kernel refuses what needs a privilege,
			 * with the Linux cause and remedy in the note.
			 */
			char text[400];
			int sys = 0;
			for (const struct v2_req *r = set->reqs; r != NULL;
			     r = r->next)
				sys |= (r->req.flags & CPC_COUNT_SYSTEM) != 0;
			__cpc_lwp_explain_refusal(text, sizeof(text), sys);
			if (cpc != NULL)
				v2_keep_note(cpc, text);
			v2_report(cpc, FN_BIND, CPC_ATTR_REQUIRES_PRIVILEGE);
			return __cpc_fail(EACCES);
		} else {
			if (-rc == ENOENT && bad >= 0)
				v2_note_uncountable(cpc, set, bad);
			v2_report(cpc, FN_BIND, backend_subcode(-rc));
		}
		return __cpc_fail(-rc == ENOENT || -rc == ENOSPC ? EINVAL : -rc);
	}
	errno = saved;
	return 0;
}

/* The counter a request names with its picnum attribute, or -1. */
static long req_picnum(const struct v2_req *r)
{
	long pic = -1;
	for (int i = 0; i < r->nattrs; i++)
		if (strcmp(r->attrs[i].ca_name, "picnum") == 0)
			pic = (long)r->attrs[i].ca_val;
	return pic;
}

/*
 * The checks of the original's kernel, in its order: first the set as a
 * whole and each request in index order (kcpc_verify_set: more requests
 * than counters, and a counter named twice, are refused with no
 * description; unknown request flags with CPC_REQ_INVALID_FLAGS), then
 * the requests' attributes (the PCBE's configuration, also in index
 * order), which were resolved when the requests were added.
 */
int v2_check_reqs(cpc_t *cpc, const cpc_set_t *set, const char *fn)
{
	const struct v2_req *byidx[CPC_MAX_REQS] = { NULL };
	uint64_t named = 0;

	if (set->nreqs > CPC_MAX_REQS ||
	    (cpc != NULL && (uint_t)set->nreqs > cpc->npic))
		return __cpc_fail(EINVAL);
	for (const struct v2_req *r = set->reqs; r != NULL; r = r->next)
		if (r->index >= 0 && r->index < set->nreqs)
			byidx[r->index] = r;
	for (int i = 0; i < set->nreqs; i++) {
		const struct v2_req *r = byidx[i];
		if (r == NULL)
			return __cpc_fail(EINVAL);
		long pic = req_picnum(r);
		if (pic >= 0 && pic < 64) {
			if (named & (UINT64_C(1) << pic))
				return __cpc_fail(EINVAL);
			named |= UINT64_C(1) << pic;
		}
		if (r->bind_subcode == CPC_REQ_INVALID_FLAGS) {
			v2_report(cpc, fn, r->bind_subcode);
			return __cpc_fail(r->bind_errno);
		}
	}
	for (int i = 0; i < set->nreqs; i++)
		if (byidx[i]->bind_subcode > 0) {
			v2_report(cpc, fn, byidx[i]->bind_subcode);
			return __cpc_fail(byidx[i]->bind_errno);
		}
	return 0;
}

void v2_unbind_set(cpc_set_t *set)
{
	switch (set->state) {
	case V2_BOUND_LWP:
		if (__cpc_lwp_owner() == set)
			(void)__cpc_lwp_release();
		break;
	case V2_BOUND_CPU:
		__cpc_cpu_close(set->bound_cpu);
		v2_cpu_forget(set);
		free(set->bound_cpu);
		set->bound_cpu = NULL;
		break;
	case V2_BOUND_PCTX:
		__cpc_pctx_close(set->bound_pctx);
		free(set->bound_pctx);
		set->bound_pctx = NULL;
		break;
	default:
		break;
	}
	set->state = V2_UNBOUND;
}

/*
 * Samples a bound set: 0 or -errno; errno untouched.  Async-signal-safe
 * for an LWP's.
 */
static int sample_set(cpc_set_t *set, cpc_buf_t *buf)
{
	unsigned n = (unsigned)buf->nvals;
	uint64_t tick = 0;
	int rc;

	/*
	 * The LWP's first: the path every sampling thread takes.  It leaves
	 * errno alone when it succeeds (lwpctx.h); the others may not.
	 */
	if (__builtin_expect(set->state == V2_BOUND_LWP, 1)) {
		rc = __cpc_lwp_sample(set, buf->vals, n, &tick);
	} else {
		int saved = errno;
		switch (set->state) {
		case V2_BOUND_CPU:
			rc = __cpc_cpu_sample(set->bound_cpu, buf->vals, n,
			    &tick);
			break;
		case V2_BOUND_PCTX:
			rc = __cpc_pctx_read(set->bound_pctx, buf->vals, n,
			    &tick);
			break;
		default:
			return -EINVAL;
		}
		errno = saved;
	}
	if (rc != 0)
		return rc;
	buf->hrtime = (hrtime_t)__cpc_hrtime();
	buf->tick = tick;
	return 0;
}

int cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	int saved = errno;
	if (!v2_owns_set(cpc, set) || set->state == V2_UNBOUND)
		return __cpc_fail(EINVAL);
	v2_unbind_set(set);
	errno = saved;
	return 0;
}

/* errno stays as it was when it succeeds: sample_set leaves it alone. */
int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	(void)cpc;
	if (set == NULL || buf == NULL || buf->nvals != set->nreqs)
		return __cpc_fail(EINVAL);
	int rc = sample_set(set, buf);
	if (rc != 0)
		return __cpc_fail(-rc);
	return 0;
}

int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset)
{
	int saved = errno;
	(void)cpc;
	if (index < 0 || __cpc_lwp_set_preset((unsigned)index, preset) != 0)
		return __cpc_fail(EINVAL);
	errno = saved;
	return 0;
}

int cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	int saved = errno;
	(void)cpc, (void)set;
	int rc = __cpc_lwp_restart();
	if (rc != 0)
		return __cpc_fail(-rc);
	errno = saved;
	return 0;
}

static int enable(int on)
{
	int saved = errno;
	int rc = __cpc_lwp_enable(on);
	if (rc != 0)
		return __cpc_fail(-rc);
	errno = saved;
	return 0;
}

int cpc_enable(cpc_t *cpc)
{
	(void)cpc;
	return enable(1);
}

int cpc_disable(cpc_t *cpc)
{
	(void)cpc;
	return enable(0);
}
