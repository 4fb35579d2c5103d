/* The calling LWP's binding, in thread-local storage. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "backend.h"
#include "cpuinfo.h"
#include "lwpctx.h"

struct lwpctx {
	/* Bumped around every bind and release, so that a sample
	 * interrupted by a handler that rebinds notices and retries. */
	volatile unsigned gen;
	int bound;
	volatile int frozen;	/* stopped by an overflow, until rebind */
	int registered;		/* thread-exit destructor armed */
	const struct cpc_backend *be;
	_Alignas(8) unsigned char priv[CPC_BACKEND_PRIV_SIZE];
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
	c->be->release(c->priv);
	atomic_signal_fence(memory_order_seq_cst);
	c->gen++;
}

/* A thread that exits while bound gives its counters back. */
static void on_thread_exit(void *arg)
{
	release_locked(arg);
}

/* A fork child has no binding: its copies of the parent's fds go. */
static void on_fork_child(void)
{
	release_locked(&lwp);
	lwp.registered = 0;
}

__attribute__((constructor)) static void lwpctx_init(void)
{
	exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
	pthread_atfork(NULL, NULL, on_fork_child);
}

int cpc_lwp_bind(const struct cpc_reqset *set, unsigned bflags, int *bad,
    const char **why)
{
	struct lwpctx *c = &lwp;
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
		c->frozen = 0;
		c->bound = 1;
		if (!c->registered && exit_key_ok) {
			pthread_setspecific(exit_key, c);
			c->registered = 1;
		}
	}
	atomic_signal_fence(memory_order_seq_cst);
	c->gen++;
	return rc;
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
		if (rc == 0 && tsc != NULL) {
			uint64_t khz = cpc_tsc_khz();
			*tsc = (uint64_t)((unsigned __int128)ns * khz / 1000000u);
		}
		return rc;
	}
}

int cpc_lwp_release(void)
{
	if (!lwp.bound)
		return -EINVAL;
	release_locked(&lwp);
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
