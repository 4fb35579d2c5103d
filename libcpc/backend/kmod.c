/* SPDX-License-Identifier: MIT */
/*
 * The kernel-module backend: the libcpc module's device /dev/cpc keeps a
 * virtualised context per thread (see kmod/ and cpc(4)).  The module
 * freezes the counters and sends SIGEMT with si_code EMT_CPCOVF and the
 * PC itself, and counts for users that perf_event_paranoid refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "libcpc.h"
#include "backend.h"
#include "backends.h"
#include "cpc_kmod.h"
#include "kpage.h"
#include "cpuinfo.h"

static int kmod_fd = -1;
static unsigned kmod_caps;

struct kmod_lwp {
	unsigned nreqs;
	/*
	 * 0: the calling thread, through the process's file kmod_fd;
	 * else another thread (task_open), through a file of its own, fd
	 * (each process context its own, as perf's are: a second one on
	 * the same thread does not replace the first).
	 */
	pid_t tid;
	int fd;
	int cpu;	/* a processor context: the processor + 1 (cpu_open) */
	/*
	 * The thread's state page, mapped at the first sample of a binding
	 * it can answer (a rebind in place keeps it; a release ends it), or
	 * NULL; page_state says what samples do (enum page_state).
	 */
	const volatile struct cpc_kpage *page;
	int page_state;
	int may_freeze;	/* a request notifies overflow */
};

enum page_state {
	PAGE_NO,	/* the ioctl: the page cannot answer this binding */
	PAGE_CHECK,	/* it may: the next sample checks it (check_page) */
	PAGE_OK,	/* samples read the page while it has a time base or
			 * says frozen (after an overflow) */
};

_Static_assert(sizeof(struct kmod_lwp) <= CPC_BACKEND_PRIV_SIZE,
    "kmod backend state does not fit");
_Static_assert(CPC_MAX_REQS <= CPC_KMOD_MAX_REQS, "request limits differ");

/*
 * Per thread, outside the binding's state (the core clears that before
 * every bind, also in a SIGEMT handler that interrupted this thread in
 * the middle of a read of its page):
 * - reading: reads of the page in progress on this thread (a signal
 *   handler may interrupt one);
 * - maps: every state page this thread has mapped and not yet unmapped;
 *   whenever no read is in progress, a release unmaps them all and the
 *   end of the outermost read all but the binding's current page (so no
 *   mapping outlives its binding, whatever a handler's rebind did to the
 *   binding's state in the middle of a first sample or of a read);
 * - epoch: moves on at every bind and release, so that a first sample
 *   that a handler's rebind interrupted (check_page) leaves the new
 *   binding's page and state alone.
 */
struct kmod_thread {
	volatile int reading;
	void *maps[6];
	volatile unsigned epoch;
};
static __thread struct kmod_thread kt __attribute__((tls_model("initial-exec")));

/* x86 event-select bits the module accepts for CPC_KEV_RAW_X86. */
#define RAW_X86_BITS CPC_KMOD_RAW_X86_MASK

int __cpc_kmod_open(void)
{
	if (kmod_fd >= 0)
		return 0;
	int fd = open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct cpc_kinfo info;
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, CPC_KIOC_INFO, &info) != 0 || info.abi != CPC_KMOD_ABI) {
		close(fd);
		return -EPROTO;
	}
	kmod_caps = info.caps;
	kmod_fd = fd;
	return 0;
}

/* Fills kb from set; -errno with *bad for a request the module cannot count. */
static int fill_bind(struct cpc_kbind *kb, const struct cpc_reqset *set,
    unsigned kflags, int *bad)
{
	memset(kb, 0, sizeof(*kb));
	kb->abi = CPC_KMOD_ABI;
	kb->flags = kflags;
	kb->nreqs = set->nreqs;
	for (unsigned i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->req[i];
		struct cpc_kreq *k = &kb->req[i];
		switch (r->sel.type) {
		case PERF_TYPE_RAW:
			k->kind = CPC_KEV_RAW_X86;
			if ((r->sel.config & ~RAW_X86_BITS) != 0 ||
			    r->sel.config1 != 0) {
				*bad = (int)i;
				return -ENOENT;
			}
			break;
		case PERF_TYPE_SOFTWARE:
			k->kind = CPC_KEV_SOFTWARE;
			break;
		case PERF_TYPE_HARDWARE:
			k->kind = CPC_KEV_HARDWARE;
			break;
		case PERF_TYPE_HW_CACHE:
			k->kind = CPC_KEV_HW_CACHE;
			break;
		default:
			*bad = (int)i;
			return -ENOENT;
		}
		k->config = r->sel.config;
		k->flags = r->flags & CPC_KREQ_ALL;
		k->preset = r->preset;
	}
	return 0;
}

static void target_ioctl(int fd, unsigned long cmd, pid_t tid);
static int sample_ioctl(int fd, unsigned long cmd, pid_t tid, uint64_t *vals,
    unsigned n, uint64_t *ontime_ns);

/* The state page's length: one page (the module refuses any other). */
#define CPC_KPAGE_SIZE 4096

/*
 * Can the module's state page answer this set (see CPC_KPAGE_TIME)?
 * Only if every request that counts asks for a clock (task-clock,
 * cpu-clock); others keep to the ioctl without the cost of mapping and
 * checking the page.
 */
static int page_can_answer(const struct cpc_reqset *set)
{
	int counting = 0;

	for (unsigned i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->req[i];
		if (!(r->flags & (CPC_COUNT_USER | CPC_COUNT_SYSTEM)))
			continue;
		if (r->sel.type != PERF_TYPE_SOFTWARE ||
		    (r->sel.config != PERF_COUNT_SW_TASK_CLOCK &&
			r->sel.config != PERF_COUNT_SW_CPU_CLOCK))
			return 0;
		counting = 1;
	}
	return counting;
}

/* Can an overflow freeze this set (the page then answers samples)? */
static int may_freeze(const struct cpc_reqset *set)
{
	for (unsigned i = 0; i < set->nreqs; i++)
		if (set->req[i].flags & CPC_OVF_NOTIFY_EMT)
			return 1;
	return 0;
}

/*
 * Unmaps this thread's state pages but the one *keep points to, read
 * afresh for each (a handler may install a new page meanwhile; NULL:
 * unmaps them all).
 */
static void sweep_maps(const volatile struct cpc_kpage *const volatile *keep)
{
	for (unsigned i = 0; i < sizeof(kt.maps) / sizeof(kt.maps[0]); i++) {
		void *m = kt.maps[i];
		if (m == NULL ||
		    (keep != NULL && m == (const void *)*keep))
			continue;
		/* A handler may sweep this slot meanwhile: one of us wins. */
		if (__atomic_compare_exchange_n(&kt.maps[i], &m, NULL, 0,
			__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			(void)munmap(m, CPC_KPAGE_SIZE);
	}
}

/* Maps the thread's state page and records it; NULL if it cannot. */
static void *map_page(void)
{
	void *m = mmap(NULL, CPC_KPAGE_SIZE, PROT_READ, MAP_SHARED, kmod_fd,
	    0);
	if (m == MAP_FAILED)
		return NULL;
	for (unsigned i = 0; i < sizeof(kt.maps) / sizeof(kt.maps[0]); i++) {
		void *none = NULL;
		if (__atomic_compare_exchange_n(&kt.maps[i], &none, m, 0,
			__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return m;
	}
	/* Handlers nested deeper than the slots: no page for this one. */
	(void)munmap(m, CPC_KPAGE_SIZE);
	return NULL;
}

/*
 * Reads the page, if mapped (see __cpc_kpage_read).  A SIGEMT handler
 * that rebinds from scratch releases the page meanwhile: it stays mapped
 * until this read ends.
 */
static int read_page(struct kmod_lwp *p, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	int rc = -1;

	kt.reading++;
	atomic_signal_fence(memory_order_seq_cst);
	const volatile struct cpc_kpage *page = p->page;
	if (page != NULL)
		rc = __cpc_kpage_read(page, __cpc_rdtsc, vals, n, ontime_ns);
	atomic_signal_fence(memory_order_seq_cst);
	if (--kt.reading == 0)
		sweep_maps(&p->page);
	return rc;
}

static void unmap_page(struct kmod_lwp *p)
{
	/* The mapping itself goes in a sweep (see struct kmod_thread). */
	__atomic_store_n((void **)&p->page, NULL, __ATOMIC_SEQ_CST);
	kt.epoch++;
	p->page_state = PAGE_NO;
	atomic_signal_fence(memory_order_seq_cst);
	/* In a handler that interrupted a read: when that read ends. */
	if (kt.reading == 0)
		sweep_maps(NULL);
}

/*
 * The first sample of a binding the page may answer: maps the thread's
 * state page if need be, and lets later samples use it if one read of it
 * lies at or below CPC_KIOC_SAMPLE just after (by at most 1 ns of
 * rounding).  Anything else leaves samples on the ioctl.  This sample
 * is the ioctl's (vals, ontime_ns).  Mapping at the first sample rather
 * than at bind keeps a binding that is never sampled as cheap as before.
 * The module gives the page a time base at the first sample after it is
 * mapped (it creates its scheduler hook then, not at bind): without one
 * at the first read, one sample more makes it.  A binding that may
 * freeze keeps the page even when it cannot answer now: samples in the
 * SIGEMT handler, frozen, read it.
 */
static int check_page(struct kmod_lwp *p, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	uint64_t pv[CPC_KMOD_MAX_REQS], pt;
	int have_page = 0;
	unsigned epoch = kt.epoch;

	p->page_state = PAGE_NO;
	if (p->page == NULL) {
		/* Counted as a read: no handler sweeps the new mapping
		 * before it is installed. */
		kt.reading++;
		atomic_signal_fence(memory_order_seq_cst);
		void *m = map_page();
		void *none = NULL;
		/*
		 * A handler that rebound meanwhile made this the page of a
		 * binding gone, or installed its own: this one is swept.
		 */
		if (m != NULL && kt.epoch == epoch)
			(void)__atomic_compare_exchange_n((void **)&p->page,
			    &none, m, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		atomic_signal_fence(memory_order_seq_cst);
		if (--kt.reading == 0)
			sweep_maps(&p->page);
	}
	if (p->page != NULL) {
		have_page = read_page(p, pv, n, &pt) == 0;
		if (!have_page &&
		    sample_ioctl(kmod_fd, CPC_KIOC_SAMPLE, 0, vals, n, ontime_ns) == 0)
			have_page = read_page(p, pv, n, &pt) == 0;
	}
	int rc = sample_ioctl(kmod_fd, CPC_KIOC_SAMPLE, 0, vals, n, ontime_ns);
	if (rc != 0 || p->page == NULL || kt.epoch != epoch)
		return rc;
	if (!have_page) {
		if (p->may_freeze)
			p->page_state = PAGE_OK;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		if (pv[i] > vals[i] + 1)
			return 0;
	if (pt > *ontime_ns + 1)
		return 0;
	p->page_state = PAGE_OK;
	return 0;
}

/* Which request the module refused: each alone, on an error path only.
 * A request that binds is released again: no binding is left behind. */
static int find_bad_request(int fd, const struct cpc_kbind *all, int err)
{
	if (all->nreqs == 1)
		return 0;
	for (unsigned i = 0; i < all->nreqs; i++) {
		struct cpc_kbind one;
		memset(&one, 0, sizeof(one));
		one.abi = CPC_KMOD_ABI;
		one.flags = CPC_KBIND_START_FROZEN;
		one.tid = all->tid;
		one.nreqs = 1;
		one.req[0] = all->req[i];
		if (ioctl(fd, CPC_KIOC_BIND, &one) == 0)
			target_ioctl(fd, CPC_KIOC_RELE, all->tid);
		else if (errno == err)
			return (int)i;
	}
	return -1;
}

/* The file of a binding: the process's, or a task context's own. */
static int lwp_fd(const struct kmod_lwp *p)
{
	return p->tid != 0 ? p->fd : kmod_fd;
}

static int bind_tid(struct kmod_lwp *p, const struct cpc_reqset *set,
    unsigned bflags, pid_t tid, int *bad)
{
	struct cpc_kbind kb;

	*bad = -1;
	if (set->nreqs == 0 || set->nreqs > CPC_MAX_REQS)
		return -EINVAL;
	int rc = fill_bind(&kb, set,
	    (bflags & CPC_BACKEND_START_FROZEN) ? CPC_KBIND_START_FROZEN : 0,
	    bad);
	if (rc != 0)
		return rc;
	kb.tid = tid;
	int fd = tid != 0 ? p->fd : kmod_fd;
	if (ioctl(fd, CPC_KIOC_BIND, &kb) != 0) {
		int err = errno;
		/*
		 * Not one request's fault: too many, the PMU is taken, or
		 * the thread is not there or not ours to count.
		 */
		*bad = err != ENOSPC && err != EAGAIN && err != EPERM &&
			err != ESRCH
		    ? find_bad_request(fd, &kb, err)
		    : -1;
		return -err;
	}
	p->nreqs = set->nreqs;
	p->tid = tid;
	kt.epoch++;
	p->may_freeze = may_freeze(set);
	p->page_state = tid == 0 && (page_can_answer(set) || p->may_freeze)
	    ? PAGE_CHECK
	    : PAGE_NO;
	return 0;
}

static int kmod_bind(void *priv, const struct cpc_reqset *set,
    unsigned bflags, int *bad)
{
	return bind_tid(priv, set, bflags, 0, bad);
}

/* Does request r notify overflow of a clock (an hrtimer in the kernel)? */
static int clock_overflow(const struct cpc_req *r)
{
	return (r->flags & CPC_OVF_NOTIFY_EMT) &&
	    r->sel.type == PERF_TYPE_SOFTWARE &&
	    (r->sel.config == PERF_COUNT_SW_TASK_CLOCK ||
		r->sel.config == PERF_COUNT_SW_CPU_CLOCK);
}

/*
 * The same events with new presets: one CPC_KIOC_BIND without a release
 * first, which the module serves with the same kernel counters (see
 * kcpc_set_rearm in kmod/cpc_ctx.c).  Not for clocks that notify
 * overflow, which the module does not rebind in place: replaced without
 * a release first, they lost overflow signals under timer storms
 * (tests/hardening/test_stress.c), so they take the release and bind of
 * a bind from scratch.  -EAGAIN: bind from scratch, which also reports
 * any error properly.
 */
static int kmod_rearm(void *priv, const struct cpc_reqset *set)
{
	struct kmod_lwp *p = priv;
	struct cpc_kbind kb;
	int bad;

	if (p->nreqs == 0 || p->tid != 0 || set->nreqs != p->nreqs)
		return -EAGAIN;
	for (unsigned i = 0; i < set->nreqs; i++)
		if (clock_overflow(&set->req[i]))
			return -EAGAIN;
	if (fill_bind(&kb, set, 0, &bad) != 0)
		return -EAGAIN;
	if (ioctl(kmod_fd, CPC_KIOC_BIND, &kb) != 0)
		return -EAGAIN;
	/*
	 * A checked page stays so: it answers for whatever the thread is
	 * bound to, only when it can (a time base, or frozen).
	 */
	kt.epoch++;
	p->may_freeze = may_freeze(set);
	if (p->page_state != PAGE_OK)
		p->page_state = page_can_answer(set) || p->may_freeze
		    ? PAGE_CHECK
		    : PAGE_NO;
	return 0;
}

static int sample_ioctl(int fd, unsigned long cmd, pid_t tid, uint64_t *vals,
    unsigned n, uint64_t *ontime_ns)
{
	struct cpc_ksample ks;
	memset(&ks, 0, sizeof(ks));
	ks.abi = CPC_KMOD_ABI;
	ks.tid = tid;
	if (ioctl(fd, cmd, &ks) != 0)
		/* EIO: a pinned counter could not be scheduled, the context
		 * is lost (EAGAIN to the caller, as on Solaris). */
		return errno == EIO ? -EAGAIN : -errno;
	if (n > ks.nreqs)
		return -EINVAL;
	memcpy(vals, ks.vals, n * sizeof(vals[0]));
	*ontime_ns = ks.ontime_ns;
	return 0;
}

static int kmod_sample(void *priv, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	struct kmod_lwp *p = priv;
	if (p->cpu != 0)
		return sample_ioctl(p->fd, CPC_KIOC_CPU_SAMPLE, p->cpu - 1,
		    vals, n, ontime_ns);
	if (p->page_state == PAGE_OK &&
	    read_page(p, vals, n, ontime_ns) == 0)
		return 0;
	if (p->page_state == PAGE_CHECK)
		return check_page(p, vals, n, ontime_ns);
	return sample_ioctl(lwp_fd(p), CPC_KIOC_SAMPLE, p->tid, vals, n,
	    ontime_ns);
}

static void target_ioctl(int fd, unsigned long cmd, pid_t tid)
{
	struct cpc_ktarget kt;
	memset(&kt, 0, sizeof(kt));
	kt.abi = CPC_KMOD_ABI;
	kt.tid = tid;
	(void)ioctl(fd, cmd, &kt);
}

static void kmod_release(void *priv)
{
	struct kmod_lwp *p = priv;
	p->nreqs = 0;
	if (p->tid != 0 || p->cpu != 0) {
		/* A task context: its file goes, and its binding with it. */
		(void)close(p->fd);
		p->fd = -1;
		p->tid = 0;
		p->cpu = 0;
		return;
	}
	target_ioctl(kmod_fd, CPC_KIOC_RELE, 0);
	/* The module gives the next binding a new page. */
	unmap_page(p);
}

/*
 * Counting in another thread (process contexts: libpctx, cputrack,
 * cpc_bind_pctx): a binding of that thread through a file of its own,
 * under the module's access rules (ptrace rights over the thread, or
 * CAP_PERFMON; see cpc(4)), not perf_event_paranoid.  Without overflow
 * notification (the core strips it).  The module's bindings stop at the
 * thread's exec (libpctx binds the new image afresh) and read their final
 * counts after the thread has exited.
 */
static int kmod_task_open(void *priv, const struct cpc_reqset *set,
    pid_t tid, int *bad)
{
	struct kmod_lwp *p = priv;

	*bad = -1;
	if (tid <= 0)
		return -EINVAL;
	p->fd = open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		return -errno;
	int rc = bind_tid(p, set, 0, tid, bad);
	if (rc != 0) {
		(void)close(p->fd);
		p->fd = -1;
		p->tid = 0;
	}
	return rc;
}

/* 1 if an overflow froze the binding (the module tells at sample). */
static int kmod_frozen(void *priv)
{
	struct cpc_ksample ks;
	(void)priv;
	memset(&ks, 0, sizeof(ks));
	ks.abi = CPC_KMOD_ABI;
	return ioctl(kmod_fd, CPC_KIOC_SAMPLE, &ks) == 0 &&
	    (ks.flags & CPC_KSAMPLE_FROZEN) != 0;
}

/* The module sends the Solaris SIGEMT itself, already frozen. */
static int kmod_is_overflow(void *priv, const siginfo_t *si)
{
	(void)priv, (void)si;
	return 0;
}

static void kmod_freeze(void *priv)
{
	(void)priv;
}

static int kmod_probe(const struct cpc_reqset *set)
{
	(void)set;
	struct cpc_kinfo info;
	memset(&info, 0, sizeof(info));
	return ioctl(kmod_fd, CPC_KIOC_INFO, &info) == 0 ? 0 : -errno;
}

/*
 * Counting on a processor (cpustat, cpc_bind_cpu, cpc_shared_*): the
 * module's processor context, through a file of its own; allowed to
 * CAP_PERFMON, and to the device's users where the administrator set the
 * module's cpu_access (see cpc(4)).  -ENOTTY from a module without them.
 */
static int kmod_cpu_open(void *priv, const struct cpc_reqset *set, int cpu,
    int *bad)
{
	struct kmod_lwp *p = priv;
	struct cpc_kbind kb;

	*bad = -1;
	if (!(kmod_caps & CPC_KCAP_CPU))
		return -ENOTTY;
	if (cpu < 0 || set->nreqs == 0 || set->nreqs > CPC_MAX_REQS)
		return -EINVAL;
	int rc = fill_bind(&kb, set, 0, bad);
	if (rc != 0)
		return rc;
	kb.tid = cpu;
	p->fd = open(CPC_KMOD_DEVICE, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		return -errno;
	if (ioctl(p->fd, CPC_KIOC_CPU_BIND, &kb) != 0) {
		int err = errno;
		(void)close(p->fd);
		p->fd = -1;
		return -err;
	}
	p->nreqs = set->nreqs;
	p->cpu = cpu + 1;
	return 0;
}

static int kmod_group_open(void *gpriv, const struct cpc_reqset *set)
{
	struct cpc_reqset plain = *set;
	struct cpc_kbind kb;
	int bad;

	(void)gpriv;
	for (unsigned i = 0; i < plain.nreqs; i++) {
		plain.req[i].preset = 0;
		plain.req[i].flags &= ~CPC_OVF_NOTIFY_EMT;
	}
	int rc = fill_bind(&kb, &plain, 0, &bad);
	if (rc != 0)
		return rc;
	return ioctl(kmod_fd, CPC_KIOC_GROUP_OPEN, &kb) == 0 ? 0 : -errno;
}

static int kmod_group_sample(void *gpriv, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	(void)gpriv;
	return sample_ioctl(kmod_fd, CPC_KIOC_GROUP_SAMPLE, 0, vals, n,
	    ontime_ns);
}

static void kmod_group_close(void *gpriv)
{
	(void)gpriv;
	target_ioctl(kmod_fd, CPC_KIOC_GROUP_CLOSE, 0);
}

const struct cpc_backend __cpc_kmod_backend = {
	.name = "kmod",
	.kernel_sends_sigemt = 1,
	.bind = kmod_bind,
	.sample = kmod_sample,
	.release = kmod_release,
	.rearm = kmod_rearm,
	.is_overflow = kmod_is_overflow,
	.freeze = kmod_freeze,
	.frozen = kmod_frozen,
	.probe = kmod_probe,
	.task_open = kmod_task_open,
	.cpu_open = kmod_cpu_open,
	.group_open = kmod_group_open,
	.group_sample = kmod_group_sample,
	.group_close = kmod_group_close,
};
