/* SPDX-License-Identifier: MIT */
/*
 * The calling LWP's counter context: at most one bound request set per
 * LWP, kept in thread-local storage so that binding and sampling need no
 * allocation and no lock (they are async-signal-safe).
 *
 * With CPC_BIND_LWP_INHERIT, every LWP the bound LWP creates afterwards
 * (see inherit.c) binds the same set in its own context, and the LWP that
 * bound first also owns the aggregate counts of the whole inheritance
 * group.
 */
#ifndef LIBCPC_LWPCTX_H
#define LIBCPC_LWPCTX_H

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "backend.h"
#include "cpuinfo.h"
#include "perf_sample.h"
#include "reqset.h"

#define CPC_INHERIT_TAG_SIZE 64

/* How new LWPs inherit a binding made with CPC_BIND_LWP_INHERIT. */
struct cpc_inherit {
	int zero_presets;	/* count from 0 (v1), not the set's presets (v2) */
	/* With overflow notification, all requests (v1), not only the
	 * notifying ones (v2), start frozen at UINT64_MAX. */
	int all_start_at_max;
	int aggregate;		/* keep the group aggregate (v1 extension) */
	/* Run in the new LWP once bound: the interface layer's own state. */
	void (*adopt)(const unsigned char *tag);
	unsigned char tag[CPC_INHERIT_TAG_SIZE];
};

/* Everything a new LWP needs, captured by pthread_create. */
struct cpc_inheritance {
	struct cpc_reqset set;
	struct cpc_inherit inh;
	const void *owner;
};

/*
 * Binds set to the calling LWP, replacing any previous binding.  inh is
 * required with CPC_BIND_LWP_INHERIT and ignored otherwise; owner tags the
 * binding with the interface object it belongs to (__cpc_lwp_owner).
 * Returns 0 or -errno; on failure *bad is the failing request (or -1) and
 * *why a static explanation when the backend itself is unavailable.
 */
int __cpc_lwp_bind(const struct cpc_reqset *set, unsigned bflags,
    const struct cpc_inherit *inh, const void *owner, int *bad,
    const char **why);

/*
 * Can this process count at all (a user-mode software event, what every
 * binding can rely on)?  0, -ENXIO (with *why) when no backend is
 * available, or the backend's -errno.
 */
int __cpc_lwp_probe(const char **why);

/*
 * Writes into buf the Linux explanation of a bind the chosen backend
 * refused by policy (EACCES, EPERM): perf_event_paranoid's or the kernel
 * module's, for a set that counts system mode if system is nonzero.
 * Async-signal-safe.
 */
void __cpc_lwp_explain_refusal(char *buf, size_t n, int system);

/* The owner tag of the calling LWP's binding, or NULL if unbound. */
const void *__cpc_lwp_owner(void);

/*
 * The context itself, and its sample, inline: cpc_set_sample and
 * cpc_take_sample read the counters from their own frame (the perf
 * backend's read inline too, perf_sample.h; other backends through their
 * table).  Every call level between the interface and the read system
 * call costs a return the processor cannot predict after the system call
 * (the kernel leaves the return-address predictor full of its own
 * addresses), several nanoseconds each (BENCHMARKS.md).
 */
struct lwpctx {
	/* Bumped around every change of the binding, so that a sample
	 * interrupted by a handler that rebinds notices and retries. */
	volatile unsigned gen;
	int bound;		/* a binding exists (maybe stopped) */
	int counting;		/* the backend holds counters (priv valid) */
	int perf_direct;	/* be is perf: its sample is called inline */
	volatile int frozen;	/* stopped by an overflow, until rebind */
	int registered;		/* thread-exit destructor armed */
	unsigned bflags;
	int member;		/* context inherited from another LWP */
	int group_open;		/* owns an inheritance group's aggregate */
	uint64_t group_key;	/* which events the aggregate counts */
	const void *owner;
	const struct cpc_backend *be;
	const struct cpc_backend *group_be;
	struct cpc_inherit inh;
	struct cpc_reqset set;	/* as bound; presets for restart */
	uint64_t stopped[CPC_MAX_REQS];	/* counts when stopped */
	uint64_t stopped_tsc;
	uint64_t tsc_carry;	/* ticks before the last restart/resume */
	_Alignas(8) unsigned char priv[CPC_BACKEND_PRIV_SIZE];
	/* The aggregate's backend state, mapped only while a group is open
	 * (few LWPs own one): keeps this per-thread structure under 1 KiB. */
	unsigned char *gpriv;
};

/* The calling LWP's context (lwpctx.c). */
extern __thread struct lwpctx __cpc_lwp
    __attribute__((tls_model("initial-exec")));

/*
 * Samples the n counts of the calling LWP's binding and its on-CPU time
 * since bind, converted to TSC ticks.  0, -EINVAL (nothing bound, or
 * owner is not NULL and not the binding's owner tag) or -EAGAIN (context
 * lost).  errno is untouched (the interfaces' callers rely on it: no save
 * and restore of their own; perf's inline sample makes its system call
 * itself).  Async-signal-safe.
 */
static inline __attribute__((always_inline)) int __cpc_lwp_sample(
    const void *owner, uint64_t *vals, unsigned n, uint64_t *tsc)
{
	struct lwpctx *c = &__cpc_lwp;

	for (;;) {
		unsigned g = c->gen;
		atomic_signal_fence(memory_order_seq_cst);
		if (__builtin_expect((g & 1) || !c->bound ||
			n > c->set.nreqs ||
			(owner != NULL && c->owner != owner), 0))
			return -EINVAL;	/* odd: only a handler sees this */
		int rc = 0;
		uint64_t ns = 0;
		if (__builtin_expect(c->counting, 1)) {
			/* perf's inline: no call level before its read() */
			if (__builtin_expect(c->perf_direct, 1)) {
				rc = __cpc_perf_sample(c->priv, vals, n, &ns);
			} else {
				int saved = errno;
				rc = c->be->sample(c->priv, vals, n, &ns);
				errno = saved;
			}
			ns = c->tsc_carry + __cpc_ns_to_tsc(ns);
		} else {
			memcpy(vals, c->stopped, n * sizeof(vals[0]));
			ns = c->stopped_tsc;
		}
		atomic_signal_fence(memory_order_seq_cst);
		if (__builtin_expect(c->gen != g, 0))
			continue;
		if (rc == 0 && tsc != NULL)
			*tsc = ns;
		return rc;
	}
}

/*
 * Samples the aggregate of the inheritance group the calling LWP owns
 * (it bound with CPC_BIND_LWP_INHERIT and did not inherit its context):
 * 0, or -EINVAL when it owns none.
 */
int __cpc_lwp_group_sample(uint64_t *vals, unsigned n, uint64_t *tsc);

/* Releases the calling LWP's binding: 0, or -EINVAL if none. */
int __cpc_lwp_release(void);

/* 1 if the calling LWP has a binding. */
int __cpc_lwp_is_bound(void);

/* Sets the preset request `index` gets at the next restart: 0 or -EINVAL. */
int __cpc_lwp_set_preset(unsigned index, uint64_t preset);

/*
 * Restarts the binding: every count goes back to its preset and counting
 * resumes (also after an overflow froze it).  0 or -errno.
 */
int __cpc_lwp_restart(void);

/*
 * Stops (on = 0) or resumes (on = 1) counting without unbinding; samples
 * taken while stopped return the counts at the stop.  0, or -EINVAL when
 * nothing is bound or it is already in that state, or another -errno.
 */
int __cpc_lwp_enable(int on);

enum { CPC_OVF_NOT_OURS, CPC_OVF_NEW, CPC_OVF_DUPLICATE, CPC_OVF_STALE };

/*
 * In the SIGEMT handler: is si the overflow notification of the calling
 * LWP's binding?  A new one freezes all its counters until the next bind.
 */
int __cpc_lwp_overflow(const siginfo_t *si);

/* 1 if threads the calling LWP creates now inherit its context. */
int __cpc_lwp_inherits(void);

/*
 * For pthread_create: copies what a new LWP must inherit from the calling
 * LWP into *out and returns 1, or returns 0 when it inherits nothing.
 */
int __cpc_lwp_inheritance(struct cpc_inheritance *out);

/*
 * In a new LWP, before its start routine: binds the inherited context.
 * When the set asks for overflow notification, the counters start frozen
 * at UINT64_MAX and SIGEMT is sent at once, so the LWP's handler can
 * preset them and rebind (Solaris semantics).
 */
void __cpc_lwp_adopt(const struct cpc_inheritance *in, void *start_pc);

#endif
