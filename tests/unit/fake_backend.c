/* SPDX-License-Identifier: MIT */
/* The fake backend: see fake_backend.h. */
#include <errno.h>
#include <string.h>

#include "libcpc.h"
#include "fake_backend.h"

/* Requests a fake binding holds (tests use a few). */
#define FAKE_MAX_REQS 8

struct fake_log fake;
uint64_t fake_events[CPC_MAX_REQS];
uint64_t fake_ontime_ns;
int fake_bind_error, fake_bind_bad = -1, fake_rearm_error;
void (*fake_during_bind)(void);
int fake_kernel_frozen;
const struct cpc_backend *fake_chosen = &fake_perf_like;

/* The per-binding state, in the core's priv bytes. */
struct fake_priv {
	int counting;
	int frozen;
	unsigned nreqs;
	uint64_t preset[FAKE_MAX_REQS];
	uint64_t events_at_start[FAKE_MAX_REQS];
	uint64_t events_at_freeze[FAKE_MAX_REQS];
	uint64_t ontime_at_start;
};

_Static_assert(sizeof(struct fake_priv) <= CPC_BACKEND_PRIV_SIZE,
    "fake state does not fit");

void fake_reset(void)
{
	memset(&fake, 0, sizeof(fake));
	memset(fake_events, 0, sizeof(fake_events));
	fake_ontime_ns = 0;
	fake_bind_error = 0;
	fake_bind_bad = -1;
	fake_rearm_error = 0;
	fake_during_bind = NULL;
	fake_kernel_frozen = 0;
	fake_chosen = &fake_perf_like;
}

siginfo_t fake_notification(int fd)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGEMT;
	si.si_code = POLL_IN;
	si.si_fd = fd;
	return si;
}

static void start(struct fake_priv *p, const struct cpc_reqset *set)
{
	p->counting = 1;
	p->frozen = 0;
	p->nreqs = set->nreqs;
	for (unsigned i = 0; i < set->nreqs; i++) {
		p->preset[i] = set->req[i].preset;
		p->events_at_start[i] = fake_events[i];
		p->events_at_freeze[i] = fake_events[i];
	}
	p->ontime_at_start = fake_ontime_ns;
	fake_kernel_frozen = 0;
}

static int fake_bind(void *priv, const struct cpc_reqset *set,
    unsigned bflags, int *bad)
{
	fake.binds++;
	fake.last_bflags = bflags;
	if (set->nreqs > FAKE_MAX_REQS)
		return -EINVAL;
	if (fake_during_bind != NULL)
		fake_during_bind();
	if (fake_bind_error != 0) {
		*bad = fake_bind_bad;
		return fake_bind_error;
	}
	*bad = -1;
	start(priv, set);
	fake.last_set = *set;
	((struct fake_priv *)priv)->frozen =
	    (bflags & CPC_BACKEND_START_FROZEN) != 0;
	return 0;
}

static int fake_sample(void *priv, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	struct fake_priv *p = priv;
	if (!p->counting || n > p->nreqs)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		vals[i] = p->preset[i] +
		    (p->frozen ? p->events_at_freeze[i] : fake_events[i]) -
		    p->events_at_start[i];
	*ontime_ns = fake_ontime_ns - p->ontime_at_start;
	return 0;
}

static void fake_release(void *priv)
{
	struct fake_priv *p = priv;
	fake.releases++;
	p->counting = 0;
}

static int fake_rearm(void *priv, const struct cpc_reqset *set)
{
	fake.rearms++;
	if (fake_during_bind != NULL)
		fake_during_bind();
	if (fake_rearm_error != 0)
		return fake_rearm_error;
	start(priv, set);
	fake.last_set = *set;
	return 0;
}

static int fake_is_overflow(void *priv, const siginfo_t *si)
{
	struct fake_priv *p = priv;
	return p->counting && si->si_code == POLL_IN && si->si_fd == FAKE_OVF_FD;
}

static void fake_freeze(void *priv)
{
	struct fake_priv *p = priv;
	fake.freezes++;
	p->frozen = 1;
	memcpy(p->events_at_freeze, fake_events, sizeof(p->events_at_freeze));
}

static int fake_frozen(void *priv)
{
	return ((struct fake_priv *)priv)->frozen || fake_kernel_frozen;
}

static int fake_probe(const struct cpc_reqset *set)
{
	(void)set;
	fake.probes++;
	return 0;
}

static int fake_task_open(void *priv, const struct cpc_reqset *set,
    pid_t tid, int *bad)
{
	fake.task_opens++;
	fake.last_target = (int)tid;
	*bad = -1;
	start(priv, set);
	fake.last_set = *set;
	return 0;
}

static int fake_cpu_open(void *priv, const struct cpc_reqset *set, int cpu,
    int *bad)
{
	fake.cpu_opens++;
	fake.last_target = cpu;
	*bad = -1;
	start(priv, set);
	fake.last_set = *set;
	return 0;
}

static int fake_group_open(void *gpriv, const struct cpc_reqset *set)
{
	fake.group_opens++;
	struct cpc_reqset zero = *set;
	for (unsigned i = 0; i < zero.nreqs; i++)
		zero.req[i].preset = 0;
	start(gpriv, &zero);
	return 0;
}

static void fake_group_close(void *gpriv)
{
	fake.group_closes++;
	((struct fake_priv *)gpriv)->counting = 0;
}

const struct cpc_backend fake_perf_like = {
	.name = "fake-perf",
	.bind = fake_bind,
	.sample = fake_sample,
	.release = fake_release,
	.rearm = fake_rearm,
	.is_overflow = fake_is_overflow,
	.freeze = fake_freeze,
	.probe = fake_probe,
	.task_open = fake_task_open,
	.cpu_open = fake_cpu_open,
	.group_open = fake_group_open,
	.group_sample = fake_sample,
	.group_close = fake_group_close,
};

const struct cpc_backend fake_kmod_like = {
	.name = "fake-kmod",
	.kernel_sends_sigemt = 1,
	.bind = fake_bind,
	.sample = fake_sample,
	.release = fake_release,
	.is_overflow = fake_is_overflow,
	.freeze = fake_freeze,
	.frozen = fake_frozen,
	.probe = fake_probe,
	.task_open = fake_task_open,
	.cpu_open = fake_cpu_open,
	.group_open = fake_group_open,
	.group_sample = fake_sample,
	.group_close = fake_group_close,
};

/* In place of libcpc/backend/backend.c. */
const struct cpc_backend *__cpc_backend_get(const char **why)
{
	if (fake_chosen == NULL && why != NULL)
		*why = "no backend (fake)";
	return fake_chosen;
}

const struct cpc_backend *__cpc_backend_for(enum cpc_scope scope,
    const char **why)
{
	(void)scope;
	return __cpc_backend_get(why);
}

/*
 * In place of libcpc/backend/perf.c: the LWP sample calls the real perf
 * backend's sample inline when it is the binding's backend (lwpctx.h);
 * never here, where every binding uses a fake.
 */
const struct cpc_backend __cpc_perf_backend = { .name = "perf (unused)" };
