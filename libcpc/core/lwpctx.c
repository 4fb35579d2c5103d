/* SPDX-License-Identifier: MIT */
/* The calling LWP's binding, in thread-local storage. */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libcpc.h"
#include "backend.h"
#include "backends.h"
#include "cpuinfo.h"
#include "error.h"
#include "lwpctx.h"
#include "policy.h"

/* The calling LWP's binding (struct lwpctx: lwpctx.h). */
__thread struct lwpctx __cpc_lwp __attribute__((tls_model("initial-exec")));

/*
 * An overflow of the new counters that lands while the binding is still
 * changing (a small preset on hardware counts the rest of the bind): kept
 * here and raised again when the change ends, if the binding still
 * counts.  "fresh" is set once the change has closed the old counters
 * (or rearmed them), so that only the new counters' notifications are
 * kept (only the first: the first freezes them all); what is kept is
 * what the handler looks at.
 */
struct later_ovf {
	volatile int fresh;
	volatile int pending;
	int code;	/* si_code */
	int fd;		/* si_fd of a perf notification (POLL_*) */
	void *addr;	/* si_addr of the module's own SIGEMT */
};
static __thread struct later_ovf later __attribute__((tls_model("initial-exec")));

/* si_errno of the SIGEMT libcpc sends a new LWP itself ("CPC!"). */
#define INHERITED_EMT_MARK 0x43504321

static pthread_key_t exit_key;
static int exit_key_ok;

/*
 * fork() waits until no LWP is changing its binding, and changes wait
 * while a fork is under way, so that a fork child never holds counters
 * opened but not yet recorded (it releases all recorded ones).  No lock:
 * changes happen in signal handlers too.
 */
static _Atomic int changing;	/* LWPs in the middle of a change */
static _Atomic int forking;
static __thread sigset_t fork_saved_mask;

static void begin_change(struct lwpctx *c)
{
	for (;;) {
		atomic_fetch_add(&changing, 1);
		if (!atomic_load(&forking))
			break;
		atomic_fetch_sub(&changing, 1);
		while (atomic_load(&forking))
			sched_yield();
	}
	c->gen++;
	atomic_signal_fence(memory_order_seq_cst);
	later.fresh = 0;
}

static void end_change(struct lwpctx *c)
{
	later.fresh = 0;
	atomic_signal_fence(memory_order_seq_cst);
	c->gen++;
	atomic_fetch_sub(&changing, 1);
	/*
	 * The new counters overflowed before the change was over (a small
	 * preset on hardware counts the rest of the bind): their
	 * notification comes again now that the handler can take it.
	 */
	if (later.pending) {
		later.pending = 0;
		atomic_signal_fence(memory_order_seq_cst);
		if (!c->counting)
			return;
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGEMT;
		si.si_code = later.code;
		if (c->be->kernel_sends_sigemt)
			si.si_addr = later.addr;
		else
			si.si_fd = later.fd;
		(void)syscall(SYS_rt_tgsigqueueinfo, getpid(),
		    (pid_t)syscall(SYS_gettid), SIGEMT, &si);
	}
}

/* Before fork: no signal here, and no change anywhere, until it is done. */
static void on_fork_prepare(void)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &fork_saved_mask);
	/*
	 * A count, not a flag: with two threads forking at once, the first
	 * to finish must not let a bind begin while the other one's fork
	 * is still copying the descriptors.
	 */
	atomic_fetch_add(&forking, 1);
	while (atomic_load(&changing) > 0)
		sched_yield();
}

static void on_fork_parent(void)
{
	atomic_fetch_sub(&forking, 1);
	pthread_sigmask(SIG_SETMASK, &fork_saved_mask, NULL);
}

static void stop_counters(struct lwpctx *c)
{
	if (c->counting) {
		c->counting = 0;
		c->be->release(c->priv);
	}
}

static void close_group(struct lwpctx *c)
{
	if (c->group_open) {
		c->group_open = 0;
		c->group_be->group_close(c->gpriv);
		munmap(c->gpriv, CPC_BACKEND_PRIV_SIZE);
		c->gpriv = NULL;
	}
}

static void release_all(struct lwpctx *c)
{
	begin_change(c);
	stop_counters(c);
	c->bound = 0;
	c->bflags = 0;
	c->owner = NULL;
	close_group(c);
	end_change(c);
}

/* A thread that exits while bound gives its counters back. */
/*
 * Every LWP context that has been bound, so that a fork child can close
 * the counters of the parent's other threads too (their thread-local
 * storage is still in the child's memory).  Lock-free slots: binding is
 * async-signal-safe.  LWPs beyond the table's size are not found there.
 */
#define CONTEXTS_MAX 4096
static struct lwpctx *_Atomic contexts[CONTEXTS_MAX];

static void remember(struct lwpctx *c)
{
	for (int i = 0; i < CONTEXTS_MAX; i++) {
		struct lwpctx *expect = NULL;
		if (atomic_compare_exchange_strong(&contexts[i], &expect, c))
			return;
	}
}

static void forget(struct lwpctx *c)
{
	for (int i = 0; i < CONTEXTS_MAX; i++) {
		struct lwpctx *expect = c;
		if (atomic_compare_exchange_strong(&contexts[i], &expect, NULL))
			return;
	}
}

static void on_thread_exit(void *arg)
{
	struct lwpctx *c = arg;
	release_all(c);
	c->member = 0;
	forget(c);
}

/* A fork child has no binding: the copies of all the parent's fds go. */
static void on_fork_child(void)
{
	atomic_store(&changing, 0);
	atomic_store(&forking, 0);
	for (int i = 0; i < CONTEXTS_MAX; i++) {
		struct lwpctx *c = atomic_exchange(&contexts[i], NULL);
		if (c != NULL && c != &__cpc_lwp) {
			release_all(c);
			c->member = 0;
		}
	}
	on_thread_exit(&__cpc_lwp);
	__cpc_lwp.registered = 0;
	pthread_sigmask(SIG_SETMASK, &fork_saved_mask, NULL);
}

__attribute__((constructor)) static void lwpctx_init(void)
{
	exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
	pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
}

/* A fingerprint of the events and modes of a set (not presets, not EMT). */
static uint64_t selection_key(const struct cpc_reqset *set)
{
	const uint32_t modes = CPC_COUNT_USER | CPC_COUNT_SYSTEM;
	uint64_t h = 1469598103934665603ULL;
	for (unsigned i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->req[i];
		uint64_t words[4] = { r->sel.type, r->sel.config,
			r->sel.config1, r->flags & modes };
		for (int w = 0; w < 4; w++)
			h = (h ^ words[w]) * 1099511628211ULL;
	}
	return h ^ set->nreqs;
}

/*
 * The LWP that binds with inheritance and did not inherit its own context
 * owns the group aggregate; it keeps it across rebinds of the same events.
 */
static int update_group(struct lwpctx *c)
{
	if (!(c->bflags & CPC_BIND_LWP_INHERIT) || c->member ||
	    !c->inh.aggregate) {
		close_group(c);
		return 0;
	}
	uint64_t key = selection_key(&c->set);
	if (c->group_open && c->group_be == c->be && c->group_key == key)
		return 0;
	close_group(c);
	/* mmap, not malloc: binding is async-signal-safe. */
	c->gpriv = mmap(NULL, CPC_BACKEND_PRIV_SIZE, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->gpriv == MAP_FAILED) {
		c->gpriv = NULL;
		return -ENOMEM;
	}
	int rc = c->be->group_open(c->gpriv, &c->set);
	if (rc != 0) {
		munmap(c->gpriv, CPC_BACKEND_PRIV_SIZE);
		c->gpriv = NULL;
	}
	if (rc != 0)
		return rc;
	c->group_be = c->be;
	c->group_key = key;
	c->group_open = 1;
	return 0;
}

/*
 * (Re)starts counting c->set with the given presets (NULL: the set's own).
 * The caller has begun a change.
 */
static int start_counters(struct lwpctx *c, const uint64_t *presets,
    unsigned extra_flags, int *bad)
{
	struct cpc_reqset run = c->set;
	if (presets != NULL)
		for (unsigned i = 0; i < run.nreqs; i++)
			run.req[i].preset = presets[i];
	/* The same counters with new presets: rearmed in place if possible. */
	if (c->counting && c->be->rearm != NULL &&
	    !(extra_flags & CPC_BACKEND_START_FROZEN) &&
	    c->be->rearm(c->priv, &run) == 0) {
		c->frozen = 0;
		atomic_signal_fence(memory_order_seq_cst);
		later.fresh = 1;
		return 0;
	}
	stop_counters(c);
	memset(c->priv, 0, sizeof(c->priv));
	/* From here on, notifications are the new counters'. */
	atomic_signal_fence(memory_order_seq_cst);
	later.fresh = 1;
	int rc = c->be->bind(c->priv, &run, c->bflags | extra_flags, bad);
	if (rc == 0) {
		c->counting = 1;
		c->frozen = (extra_flags & CPC_BACKEND_START_FROZEN) != 0;
	}
	return rc;
}

static int bind_locked(struct lwpctx *c, const struct cpc_reqset *set,
    unsigned bflags, const struct cpc_inherit *inh, const void *owner,
    int *bad, const char **why)
{
	const struct cpc_backend *be = __cpc_backend_for(CPC_SCOPE_LWP, why);

	*bad = -1;
	if (be == NULL)
		return -ENXIO;
	/* Known before it holds counters: a fork child must find it. */
	if (!c->registered) {
		if (exit_key_ok)
			pthread_setspecific(exit_key, c);
		remember(c);
		c->registered = 1;
	}
	begin_change(c);
	/*
	 * Calibrate the TSC once, before anything counts, and inside the
	 * change: the calibration may open a perf event of its own for a
	 * moment, which a fork from another thread must not copy.
	 */
	(void)__cpc_tsc_khz();
	/* Keep the counters only for the same events, flags and backend. */
	if (!c->bound || c->be != be ||
	    c->bflags != (bflags & ~CPC_BACKEND_START_FROZEN) ||
	    selection_key(&c->set) != selection_key(set))
		stop_counters(c);
	c->bound = 0;
	c->be = be;
	c->perf_direct = be == &__cpc_perf_backend;
	c->set = *set;
	c->tsc_carry = 0;
	c->bflags = bflags & ~CPC_BACKEND_START_FROZEN;
	if (c->bflags & CPC_BIND_LWP_INHERIT)
		c->inh = *inh;
	int rc = start_counters(c, NULL, bflags & CPC_BACKEND_START_FROZEN,
	    bad);
	if (rc == 0)
		rc = update_group(c);
	if (rc == 0) {
		c->bound = 1;
		c->owner = owner;
	} else {
		stop_counters(c);
		close_group(c);
		c->bflags = 0;
		c->owner = NULL;
	}
	end_change(c);
	return rc;
}

int __cpc_lwp_bind(const struct cpc_reqset *set, unsigned bflags,
    const struct cpc_inherit *inh, const void *owner, int *bad,
    const char **why)
{
	struct lwpctx *c = &__cpc_lwp;
	if ((bflags & CPC_BIND_LWP_INHERIT) && inh == NULL)
		return -EINVAL;
	/* A bind without inheritance leaves an inherited group. */
	if (!(bflags & CPC_BIND_LWP_INHERIT))
		c->member = 0;
	return bind_locked(c, set, bflags, inh, owner, bad, why);
}

int __cpc_lwp_probe(const char **why)
{
	const struct cpc_backend *be = __cpc_backend_for(CPC_SCOPE_LWP, why);
	struct cpc_reqset set;

	if (be == NULL)
		return -ENXIO;
	/* A user-mode software event: what every binding can rely on. */
	memset(&set, 0, sizeof(set));
	set.nreqs = 1;
	set.req[0].sel.type = PERF_TYPE_SOFTWARE;
	set.req[0].sel.config = PERF_COUNT_SW_TASK_CLOCK;
	set.req[0].flags = CPC_COUNT_USER;
	return be->probe(&set);
}

void __cpc_lwp_explain_refusal(char *buf, size_t n, int system)
{
	const char *why = NULL;
	const struct cpc_backend *be = __cpc_backend_for(CPC_SCOPE_LWP, &why);

	/* The module's policy is its own (no perf_event_paranoid). */
	if (be != NULL && be->kernel_sends_sigemt)
		__cpc_kmod_explain(buf, n, system);
	else
		__cpc_policy_explain(buf, n, system);
}

const void *__cpc_lwp_owner(void)
{
	return __cpc_lwp.bound ? __cpc_lwp.owner : NULL;
}

int __cpc_lwp_group_sample(uint64_t *vals, unsigned n, uint64_t *tsc)
{
	struct lwpctx *c = &__cpc_lwp;

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
			*tsc = __cpc_ns_to_tsc(ns);
		return rc;
	}
}

int __cpc_lwp_release(void)
{
	struct lwpctx *c = &__cpc_lwp;
	int was_bound = c->bound;
	c->member = 0;
	release_all(c);
	return was_bound ? 0 : -EINVAL;
}

int __cpc_lwp_is_bound(void)
{
	return __cpc_lwp.bound;
}

int __cpc_lwp_set_preset(unsigned index, uint64_t preset)
{
	struct lwpctx *c = &__cpc_lwp;
	if (!c->bound || index >= c->set.nreqs)
		return -EINVAL;
	c->set.req[index].preset = preset;
	return 0;
}

/*
 * Starts the counters again from presets (NULL: the set's own), keeping
 * the on-CPU ticks counted so far (they run from the bind).
 */
static int resume(struct lwpctx *c, const uint64_t *presets, uint64_t ticks)
{
	int bad;
	begin_change(c);
	int rc = start_counters(c, presets, 0, &bad);
	if (rc == 0)
		c->tsc_carry = ticks;
	else
		c->bound = 0;
	end_change(c);
	return rc;
}

int __cpc_lwp_restart(void)
{
	struct lwpctx *c = &__cpc_lwp;
	uint64_t vals[CPC_MAX_REQS], ticks = c->stopped_tsc;
	if (!c->bound)
		return -EINVAL;
	if (c->counting && __cpc_lwp_sample(NULL, vals, c->set.nreqs, &ticks) != 0)
		ticks = c->tsc_carry;
	return resume(c, NULL, ticks);
}

int __cpc_lwp_enable(int on)
{
	struct lwpctx *c = &__cpc_lwp;
	uint64_t vals[CPC_MAX_REQS], tsc;
	int rc;

	if (!c->bound)
		return -EINVAL;
	if (on && c->counting &&
	    (c->frozen || (c->be->frozen != NULL && c->be->frozen(c->priv)))) {
		/* Unfreezes after an overflow: counting goes on from there. */
		rc = __cpc_lwp_sample(NULL, vals, c->set.nreqs, &tsc);
		return rc != 0 ? rc : resume(c, vals, tsc);
	}
	if ((on != 0) == (c->counting != 0))
		return -EINVAL;
	if (on)
		return resume(c, c->stopped, c->stopped_tsc);
	rc = __cpc_lwp_sample(NULL, vals, c->set.nreqs, &tsc);
	if (rc != 0)
		return rc;
	begin_change(c);
	memcpy(c->stopped, vals, sizeof(vals));
	c->stopped_tsc = tsc;
	stop_counters(c);
	end_change(c);
	return 0;
}

int __cpc_lwp_overflow(const siginfo_t *si)
{
	struct lwpctx *c = &__cpc_lwp;

	/*
	 * A notification (si_code > 0: only the kernel sends those) that
	 * lands while this LWP is rebinding belongs to the counters being
	 * replaced: dropped, not passed on half-formed.
	 */
	/* Our own SIGEMT for a new LWP that inherited an overflow context. */
	if (si->si_code == EMT_CPCOVF && si->si_errno == INHERITED_EMT_MARK)
		return CPC_OVF_NOT_OURS;
	if (c->gen & 1) {
		/*
		 * Once the old counters are closed (their notifications
		 * came at the latest when close() returned), a kernel
		 * notification is the new counters', even before the
		 * backend has recorded them: checked when raised again.
		 */
		if (later.fresh && si->si_code > 0) {
			if (!later.pending) {
				later.code = si->si_code;
				if (c->be->kernel_sends_sigemt)
					later.addr = si->si_addr;
				else
					later.fd = si->si_fd;
				atomic_signal_fence(memory_order_seq_cst);
				later.pending = 1;
			}
			return CPC_OVF_STALE;
		}
		return si->si_code > 0 ? CPC_OVF_STALE : CPC_OVF_NOT_OURS;
	}
	if (!c->counting || !c->be->is_overflow(c->priv, si)) {
		/*
		 * A kernel notification of counters already released (it was
		 * pending while they were closed) is stale too, unless the
		 * context's backend's kernel sends the Solaris signal itself.
		 * (An LWP that never bound has no counters to be stale.)
		 */
		if (si->si_code > 0 && c->be != NULL &&
		    !c->be->kernel_sends_sigemt)
			return CPC_OVF_STALE;
		return CPC_OVF_NOT_OURS;
	}
	if (c->frozen)
		return CPC_OVF_DUPLICATE;
	c->be->freeze(c->priv);
	c->frozen = 1;
	return CPC_OVF_NEW;
}

int __cpc_lwp_inherits(void)
{
	return __cpc_lwp.bound && (__cpc_lwp.bflags & CPC_BIND_LWP_INHERIT);
}

int __cpc_lwp_inheritance(struct cpc_inheritance *out)
{
	struct lwpctx *c = &__cpc_lwp;
	if (!__cpc_lwp_inherits())
		return 0;
	out->set = c->set;
	out->inh = c->inh;
	out->owner = c->owner;
	if (c->inh.zero_presets)
		for (unsigned i = 0; i < out->set.nreqs; i++)
			out->set.req[i].preset = 0;
	return 1;
}

void __cpc_lwp_adopt(const struct cpc_inheritance *in, void *start_pc)
{
	struct lwpctx *c = &__cpc_lwp;
	struct cpc_reqset set = in->set;
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
		if (in->inh.all_start_at_max)
			for (unsigned i = 0; i < set.nreqs; i++)
				set.req[i].preset = UINT64_MAX;
	}
	c->member = 1;
	int rc = bind_locked(c, &set, bflags, &in->inh, in->owner, &bad, &why);
	if (rc != 0) {
		c->member = 0;
		__cpc_note("bind_event", "new LWP %d could not inherit its "
		    "counter context: %s\n", (int)syscall(SYS_gettid),
		    why != NULL ? why : strerrordesc_np(-rc));
		return;
	}
	in->inh.adopt(in->inh.tag);
	if (emt) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		si.si_signo = SIGEMT;
		si.si_code = EMT_CPCOVF;
		si.si_errno = INHERITED_EMT_MARK;
		si.si_addr = start_pc;
		syscall(SYS_rt_tgsigqueueinfo, getpid(),
		    (pid_t)syscall(SYS_gettid), SIGEMT, &si);
	}
}

_Static_assert(sizeof(struct lwpctx) <= 1024,
    "an LWP's context must stay under 1 KiB");
