/* The calling LWP's binding, in thread-local storage. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libcpc.h"
#include "backend.h"
#include "cpuinfo.h"
#include "error.h"
#include "lwpctx.h"

struct lwpctx {
	/* Bumped around every bind and release, so that a sample
	 * interrupted by a handler that rebinds notices and retries. */
	volatile unsigned gen;
	int bound;
	volatile int frozen;	/* stopped by an overflow, until rebind */
	int registered;		/* thread-exit destructor armed */
	unsigned bflags;
	int member;		/* context inherited from another LWP */
	int group_open;		/* owns an inheritance group's aggregate */
	const struct cpc_backend *be;
	const struct cpc_backend *group_be;
	_Alignas(8) unsigned char priv[CPC_BACKEND_PRIV_SIZE];
	_Alignas(8) unsigned char gpriv[CPC_BACKEND_PRIV_SIZE];
	struct cpc_reqset group_set;	/* what the aggregate counts */
	struct cpc_inherit inh;		/* what new LWPs inherit */
};

static __thread struct lwpctx lwp __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static int exit_key_ok;

static void release_locked(struct lwpctx *c)
{
	if (!c->bound)
		return;
	c->gen++;
	atomic_signal_fence(memory_order_seq_cst);
	c->bound = 0;
	c->bflags = 0;
	c->be->release(c->priv);
	atomic_signal_fence(memory_order_seq_cst);
	c->gen++;
}

static void close_group(struct lwpctx *c)
{
	if (c->group_open) {
		c->group_open = 0;
		c->group_be->group_close(c->gpriv);
	}
}

/* A thread that exits while bound gives its counters back. */
static void on_thread_exit(void *arg)
{
	struct lwpctx *c = arg;
	release_locked(c);
	close_group(c);
	c->member = 0;
}

/* A fork child has no binding: its copies of the parent's fds go. */
static void on_fork_child(void)
{
	on_thread_exit(&lwp);
	lwp.registered = 0;
}

__attribute__((constructor)) static void lwpctx_init(void)
{
	exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
	pthread_atfork(NULL, NULL, on_fork_child);
}

/* Same events and modes, whatever the presets and overflow flags? */
static int same_selection(const struct cpc_reqset *a,
    const struct cpc_reqset *b)
{
	const uint32_t modes = CPC_COUNT_USER | CPC_COUNT_SYSTEM;
	if (a->nreqs != b->nreqs)
		return 0;
	for (unsigned i = 0; i < a->nreqs; i++)
		if (memcmp(&a->req[i].sel, &b->req[i].sel,
			sizeof(a->req[i].sel)) != 0 ||
		    (a->req[i].flags & modes) != (b->req[i].flags & modes))
			return 0;
	return 1;
}

/*
 * The LWP that binds with inheritance and did not inherit its own context
 * owns the group aggregate; it keeps it across rebinds of the same events.
 */
static int update_group(struct lwpctx *c, const struct cpc_reqset *set,
    const struct cpc_backend *be)
{
	if (!(c->bflags & CPC_BIND_LWP_INHERIT) || c->member) {
		close_group(c);
		return 0;
	}
	if (c->group_open && c->group_be == be &&
	    same_selection(&c->group_set, set))
		return 0;
	close_group(c);
	memset(c->gpriv, 0, sizeof(c->gpriv));
	int rc = be->group_open(c->gpriv, set);
	if (rc != 0)
		return rc;
	c->group_be = be;
	c->group_set = *set;
	c->group_open = 1;
	return 0;
}

static int bind_locked(struct lwpctx *c, const struct cpc_reqset *set,
    unsigned bflags, const struct cpc_inherit *inh, int *bad,
    const char **why)
{
	const struct cpc_backend *be = cpc_backend_get(why);

	*bad = -1;
	if (be == NULL)
		return -ENXIO;
	/* Calibrate the TSC once, before anything counts. */
	(void)cpc_tsc_khz();

	release_locked(c);
	c->gen++;
	atomic_signal_fence(memory_order_seq_cst);
	memset(c->priv, 0, sizeof(c->priv));
	int rc = be->bind(c->priv, set, bflags, bad);
	if (rc == 0) {
		c->be = be;
		c->frozen = (bflags & CPC_BACKEND_START_FROZEN) != 0;
		c->bflags = bflags & ~CPC_BACKEND_START_FROZEN;
		if (c->bflags & CPC_BIND_LWP_INHERIT)
			c->inh = *inh;
		c->bound = 1;
		rc = update_group(c, set, be);
		if (rc != 0) {
			c->bound = 0;
			c->bflags = 0;
			be->release(c->priv);
		}
	}
	if (rc != 0)
		close_group(c);
	if (rc == 0 && !c->registered && exit_key_ok) {
		pthread_setspecific(exit_key, c);
		c->registered = 1;
	}
	atomic_signal_fence(memory_order_seq_cst);
	c->gen++;
	return rc;
}

int cpc_lwp_bind(const struct cpc_reqset *set, unsigned bflags,
    const struct cpc_inherit *inh, int *bad, const char **why)
{
	struct lwpctx *c = &lwp;
	if ((bflags & CPC_BIND_LWP_INHERIT) && inh == NULL)
		return -EINVAL;
	/* A bind without inheritance leaves an inherited group. */
	if (!(bflags & CPC_BIND_LWP_INHERIT))
		c->member = 0;
	return bind_locked(c, set, bflags, inh, bad, why);
}

static uint64_t ns_to_ticks(uint64_t ns)
{
	return (uint64_t)((unsigned __int128)ns * cpc_tsc_khz() / 1000000u);
}

int cpc_lwp_sample(uint64_t *vals, unsigned n, uint64_t *tsc)
{
	struct lwpctx *c = &lwp;

	for (;;) {
		unsigned g = c->gen;
		atomic_signal_fence(memory_order_seq_cst);
		if (g & 1)
			return -EINVAL;	/* only a handler sees this midway */
		if (!c->bound)
			return -EINVAL;
		uint64_t ns = 0;
		int rc = c->be->sample(c->priv, vals, n, &ns);
		atomic_signal_fence(memory_order_seq_cst);
		if (c->gen != g)
			continue;
		if (rc == 0 && tsc != NULL)
			*tsc = ns_to_ticks(ns);
		return rc;
	}
}

int cpc_lwp_group_sample(uint64_t *vals, unsigned n, uint64_t *tsc)
{
	struct lwpctx *c = &lwp;

	for (;;) {
		unsigned g = c->gen;
		atomic_signal_fence(memory_order_seq_cst);
		if ((g & 1) || !c->group_open)
			return -EINVAL;
		uint64_t ns = 0;
		int rc = c->group_be->group_sample(c->gpriv, vals, n, &ns);
		atomic_signal_fence(memory_order_seq_cst);
		if (c->gen != g)
			continue;
		if (rc == 0 && tsc != NULL)
			*tsc = ns_to_ticks(ns);
		return rc;
	}
}

int cpc_lwp_release(void)
{
	struct lwpctx *c = &lwp;
	c->member = 0;
	if (!c->bound) {
		close_group(c);
		return -EINVAL;
	}
	release_locked(c);
	c->gen++;
	close_group(c);
	c->gen++;
	return 0;
}

int cpc_lwp_is_bound(void)
{
	return lwp.bound;
}

int cpc_lwp_overflow(const siginfo_t *si)
{
	struct lwpctx *c = &lwp;

	/* A signal that lands while this LWP is (re)binding is not ours. */
	if ((c->gen & 1) || !c->bound || !c->be->is_overflow(c->priv, si))
		return CPC_OVF_NOT_OURS;
	if (c->frozen)
		return CPC_OVF_DUPLICATE;
	c->be->freeze(c->priv);
	c->frozen = 1;
	return CPC_OVF_NEW;
}

int cpc_lwp_inherits(void)
{
	return lwp.bound && (lwp.bflags & CPC_BIND_LWP_INHERIT);
}

int cpc_lwp_inheritance(struct cpc_inherit *inh)
{
	if (!cpc_lwp_inherits())
		return 0;
	*inh = lwp.inh;
	return 1;
}

void cpc_lwp_adopt(const struct cpc_inherit *inh, void *start_pc)
{
	struct lwpctx *c = &lwp;
	struct cpc_reqset set = inh->child;
	unsigned bflags = CPC_BIND_LWP_INHERIT;
	int emt = 0, bad;
	const char *why = NULL;

	for (unsigned i = 0; i < set.nreqs; i++)
		if (set.req[i].flags & CPC_OVF_NOTIFY_EMT) {
			set.req[i].preset = UINT64_MAX;
			emt = 1;
		}
	if (emt) {
		bflags |= CPC_BACKEND_START_FROZEN;
		for (unsigned i = 0; i < set.nreqs; i++)
			if (inh->all_start_at_max)
				set.req[i].preset = UINT64_MAX;
	}
	c->member = 1;
	int rc = bind_locked(c, &set, bflags, inh, &bad, &why);
	if (rc != 0) {
		c->member = 0;
		cpc_report("bind_event", "new LWP %d could not inherit its "
		    "counter context: %s\n", (int)syscall(SYS_gettid),
		    why != NULL ? why : strerrordesc_np(-rc));
		return;
	}
	inh->adopt(inh->tag);
	if (emt) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGEMT;
		si.si_code = EMT_CPCOVF;
		si.si_addr = start_pc;
		syscall(SYS_rt_tgsigqueueinfo, getpid(),
		    (pid_t)syscall(SYS_gettid), SIGEMT, &si);
	}
}
