/* SPDX-License-Identifier: MIT */
/*
 * The perf_event backend.  Each bound LWP owns one perf event group,
 * pinned so that it is never multiplexed and read with a single
 * PERF_FORMAT_GROUP read().
 *
 * Clock requests (task-clock, cpu-clock) are not group members: this
 * kernel does not reliably count clock events and other software events
 * in one group.  Their value is the group's time_enabled, which for an
 * event bound to a thread is that thread's on-CPU time since bind, i.e.
 * exactly what task-clock counts.
 *
 * A request with CPC_OVF_NOTIFY_EMT samples with a period of
 * 2^64 - preset, armed once with PERF_EVENT_IOC_REFRESH(1): its overflow
 * disables it and sends SIGEMT (F_SETSIG) to the binding thread
 * (F_SETOWN_EX), where the library freezes the whole context.  A sampling
 * clock request gets a separate event used only for that notification.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libcpc.h"
#include "backend.h"
#include "backends.h"
#include "cpuinfo.h"
#include "perf_sample.h"
#include "rdpmc.h"

#define READ_FORMAT                                                         \
	(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |              \
	    PERF_FORMAT_TOTAL_TIME_RUNNING)

/* Where the events of the set being opened count (see open_set). */
struct target {
	pid_t pid;	/* 0: the calling thread; -1: every task on cpu */
	int cpu;	/* -1: wherever the thread runs */
};

static const struct target this_thread = { 0, -1 };

static int perf_open(struct perf_event_attr *attr, const struct target *t,
    int group)
{
	return (int)syscall(SYS_perf_event_open, attr, t->pid, t->cpu, group,
	    PERF_FLAG_FD_CLOEXEC);
}

static void fill_attr(struct perf_event_attr *attr, const struct cpc_req *r,
    int leader)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = r->sel.type;
	attr->config = r->sel.config;
	attr->config1 = r->sel.config1;
	attr->read_format = READ_FORMAT;
	attr->exclude_user = (r->flags & CPC_COUNT_USER) == 0;
	attr->exclude_kernel = (r->flags & CPC_COUNT_SYSTEM) == 0;
	attr->exclude_hv = 1;
	attr->pinned = leader;
}

/*
 * The sampling period that makes a counter preset to `preset` notify when
 * it passes UINT64_MAX, or 0 when that cannot happen in practice (perf
 * refuses periods of 2^63 and more: centuries of events).
 */
static uint64_t overflow_period(uint64_t preset)
{
	uint64_t period = 0 - preset;	/* 2^64 - preset, mod 2^64 */
	if (period == 0 || period >= (1ULL << 63))
		return 0;
	return period;
}

static int samples(const struct cpc_req *r)
{
	return (r->flags & CPC_OVF_NOTIFY_EMT) && overflow_period(r->preset);
}

static int is_clock(const struct cpc_req *r)
{
	return r->sel.type == PERF_TYPE_SOFTWARE &&
	    (r->sel.config == PERF_COUNT_SW_TASK_CLOCK ||
		r->sel.config == PERF_COUNT_SW_CPU_CLOCK);
}

/* Makes fd's overflow send SIGEMT to the calling thread, then arms it. */
static int arm_overflow(int fd)
{
	struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	if (fcntl(fd, F_SETFL, O_ASYNC) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
	    fcntl(fd, F_SETSIG, SIGEMT) != 0 ||
	    ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0)
		return errno;
	return 0;
}

/* How open_request opens an event. */
#define OPEN_DISABLED 0x1	/* stopped (a leader: the whole group) */
#define OPEN_NO_SAMPLING 0x2	/* count only, whatever the request says */
#define OPEN_INHERIT 0x4	/* also counts new threads (aggregates) */
/*
 * A sampling event is left disabled: the caller records it first, then
 * arms it (arm_overflow), so that an overflow on arming (a preset close
 * to 2^64) is known for ours when its signal comes.
 */
#define OPEN_NO_ARM 0x8

/*
 * Opens the event of request r, leading a group (group < 0) or in one.
 * Returns the fd, or -errno with ENOENT meaning "no such event here" and
 * ENOTSUP "cannot notify overflow".
 */
static int open_request(const struct cpc_req *r, const struct target *t,
    int group, unsigned how)
{
	struct perf_event_attr attr;
	int sampling = samples(r) && !(how & OPEN_NO_SAMPLING);

	fill_attr(&attr, r, group < 0);
	attr.disabled = (how & OPEN_DISABLED) != 0;
	if (how & OPEN_INHERIT) {
		attr.inherit = 1;
		attr.inherit_thread = 1;	/* threads, not fork children */
		attr.remove_on_exec = 1;
	}
	if (sampling) {
		attr.sample_period = overflow_period(r->preset);
		attr.wakeup_events = 1;
		attr.disabled = 1;	/* until armed */
	}
	int fd = perf_open(&attr, t, group);
	if (fd < 0 && errno == EINVAL && (how & OPEN_INHERIT)) {
		/* Before Linux 5.13: plain inheritance. */
		attr.inherit_thread = 0;
		attr.remove_on_exec = 0;
		fd = perf_open(&attr, t, group);
	}
	if (fd >= 0) {
		int e = sampling && !(how & OPEN_NO_ARM) ? arm_overflow(fd) : 0;
		if (e == 0)
			return fd;
		close(fd);
		return -e;
	}
	int e = errno;
	if (sampling && (e == EOPNOTSUPP || e == EINVAL)) {
		/* Does it open without a period?  Then it cannot notify. */
		attr.sample_period = 0;
		attr.disabled = 0;
		int probe = perf_open(&attr, t, -1);
		if (probe >= 0) {
			close(probe);
			return -ENOTSUP;
		}
	}
	return e == EOPNOTSUPP ? -ENOENT : -e;
}

static int open_dummy_leader(const struct target *t, unsigned how)
{
	struct cpc_req dummy = {
		.sel = { .type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY },
		.flags = CPC_COUNT_USER,
	};
	return open_request(&dummy, t, -1, how);
}

#ifdef CPC_SYNTHETIC_PAGES
unsigned char *(*__cpc_synth_pages)(unsigned nfd);
cpc_rdpmc_fn __cpc_synth_rdpmc;
#endif

static void unmap_pages(struct perf_lwp *p)
{
	if (p->pages != NULL) {
		munmap(p->pages, (size_t)p->nfd * PERF_PAGE);
		p->pages = NULL;
	}
}

static void perf_release(void *priv)
{
	struct perf_lwp *p = priv;
	unmap_pages(p);
	while (p->nnotify > 0)
		close(p->notify[--p->nnotify]);
	/* Members before the leader. */
	while (p->nfd > 0)
		close(p->fd[--p->nfd]);
}

/*
 * The request that leads the group.  When exactly one request notifies
 * overflow and it is not a clock, it leads: its overflow (a refresh limit
 * of 1) disables it, and a disabled leader takes its whole group off the
 * PMU, so the kernel itself stops every counter at the overflow, the
 * freeze Solaris requires, with no system call; refreshing it restarts
 * the group.  Otherwise the first plain counting request, or -1 (a dummy
 * leader).
 */
static int pick_leader(const struct cpc_reqset *set, unsigned how)
{
	if (!(how & OPEN_NO_SAMPLING)) {
		int lead = -1, nsampling = 0;
		for (unsigned i = 0; i < set->nreqs; i++)
			if (samples(&set->req[i])) {
				nsampling++;
				lead = is_clock(&set->req[i]) ? -2 : (int)i;
			}
		if (nsampling == 1 && lead >= 0)
			return lead;
	}
	for (unsigned i = 0; i < set->nreqs; i++)
		if (!is_clock(&set->req[i]) &&
		    ((how & OPEN_NO_SAMPLING) || !samples(&set->req[i])))
			return (int)i;
	return -1;
}

/*
 * After the kernel refused request r as a group member with EINVAL: 1 if
 * r opens on its own, i.e. the group needs more counters than the PMU
 * has (x86's group validation), not that r is invalid.
 */
static int fits_alone(const struct cpc_req *r, const struct target *t,
    unsigned how)
{
	int fd = open_request(r, t, -1, how | OPEN_DISABLED | OPEN_NO_SAMPLING);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* Opens the group of a request set into p; see the top of this file. */
static int open_set(struct perf_lwp *p, const struct cpc_reqset *set,
    const struct target *t, unsigned how, int *bad)
{
	*bad = -1;
	memset(p, 0, sizeof(*p));
	if (set->nreqs == 0 || set->nreqs > CPC_MAX_REQS)
		return -EINVAL;
	p->nreqs = (uint8_t)set->nreqs;

	/* Inherited groups read best under a leader of their own. */
	int lead = (how & OPEN_INHERIT) ? -1 : pick_leader(set, how);
	int fd = lead >= 0 ? open_request(&set->req[lead], t, -1, how)
			   : open_dummy_leader(t, how);
	if (fd < 0) {
		*bad = lead;
		return fd;
	}
	p->fd[p->nfd++] = fd;

	for (unsigned i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->req[i];
		int sampling = samples(r) && !(how & OPEN_NO_SAMPLING);
		p->offset[i] = r->preset;
		if ((int)i == lead) {
			p->slot[i] = 0;
			if (sampling)
				p->sampling |= 1;
			continue;
		}
		if (is_clock(r)) {
			p->slot[i] = PERF_SLOT_CLOCK;
			if (!sampling)
				continue;
			fd = open_request(r, t, -1, how | OPEN_NO_ARM);
			if (fd >= 0) {
				p->notify_req[p->nnotify] = (uint8_t)i;
				p->notify[p->nnotify++] = fd;
				int e = arm_overflow(fd);
				if (e != 0)
					fd = -e;
			}
		} else {
			fd = open_request(r, t, p->fd[0],
			    (how & ~OPEN_DISABLED) | OPEN_NO_ARM);
			if (fd == -EINVAL && fits_alone(r, t, how))
				fd = -ENOSPC;
			if (fd >= 0) {
				if (sampling)
					p->sampling |= 1u << p->nfd;
				p->slot[i] = p->nfd;
				p->fd[p->nfd++] = fd;
				int e = sampling ? arm_overflow(fd) : 0;
				if (e != 0)
					fd = -e;
			}
		}
		if (fd < 0) {
			*bad = (int)i;
			perf_release(p);
			return fd;
		}
	}
	p->first_page = p->slot[0];
	for (unsigned i = 0; i < p->nreqs; i++)
		if (p->slot[i] == PERF_SLOT_CLOCK ||
		    p->slot[i] != p->slot[0] + i)
			p->first_page = PERF_NO_RUN;
	return 0;
}

/*
 * Can user space rdpmc here?  Only with a hardware PMU that lets it
 * (cap_user_rdpmc) and a TSC-based time (cap_user_time).  Probed once.
 */
static _Atomic int rdpmc_state;	/* 0 unknown, 1 yes, 2 no */

static int read_pages(const struct perf_lwp *p, struct perf_group_read *gr);

static int rdpmc_usable(void)
{
	int st = atomic_load(&rdpmc_state);
	if (st != 0)
		return st == 1;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int ok = 0;
	int fd = perf_open(&attr, &this_thread, -1);
	if (fd >= 0) {
		void *pg = mmap(NULL, PERF_PAGE, PROT_READ, MAP_SHARED, fd, 0);
		if (pg != MAP_FAILED) {
			const volatile struct perf_event_mmap_page *u = pg;
			ok = u->cap_user_rdpmc && u->cap_user_time;
			munmap(pg, PERF_PAGE);
		}
		close(fd);
	}
	atomic_store(&rdpmc_state, ok ? 1 : 2);
	return ok;
}

/*
 * Maps the user pages of a group of hardware events, so that samples
 * need no system call; keeps them only if a read through them agrees
 * with read() (else this process stops trying).
 */
static void map_pages(struct perf_lwp *p, const struct cpc_reqset *set)
{
	int hardware = 0;
#ifdef CPC_SYNTHETIC_PAGES
	if (__cpc_synth_pages != NULL) {
		p->pages = __cpc_synth_pages(p->nfd);
		return;
	}
#endif
	for (unsigned i = 0; i < set->nreqs; i++)
		hardware |= set->req[i].sel.type != PERF_TYPE_SOFTWARE;
	if (!hardware || !rdpmc_usable())
		return;
	size_t len = (size_t)p->nfd * PERF_PAGE;
	unsigned char *base = mmap(NULL, len, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return;
	for (unsigned i = 0; i < p->nfd; i++) {
		if (mmap(base + (size_t)i * PERF_PAGE, PERF_PAGE, PROT_READ,
			MAP_SHARED | MAP_FIXED, p->fd[i], 0) == MAP_FAILED) {
			munmap(base, len);
			return;
		}
		(void)*(volatile unsigned char *)(base + (size_t)i * PERF_PAGE);
	}
	p->pages = base;
	struct perf_group_read by_pages, by_read;
	if (read_pages(p, &by_pages) != 0 ||
	    read(p->fd[0], &by_read, sizeof(by_read)) <= 0)
		return;	/* not on counters now: reads fall back */
	for (unsigned i = 0; i < p->nreqs; i++) {
		unsigned s = p->slot[i];
		if (s != PERF_SLOT_CLOCK &&
		    (by_pages.values[s] > by_read.values[s] ||
			by_read.values[s] - by_pages.values[s] > 100000000)) {
			unmap_pages(p);
			atomic_store(&rdpmc_state, 2);
			return;
		}
	}
}

static int perf_bind(void *priv, const struct cpc_reqset *set,
    unsigned bflags, int *bad)
{
	unsigned how = 0;
	if (bflags & CPC_BACKEND_START_FROZEN)
		how = OPEN_DISABLED | OPEN_NO_SAMPLING;
	int rc = open_set(priv, set, &this_thread, how, bad);
	if (rc == 0)
		map_pages(priv, set);
	return rc;
}

static int perf_task_open(void *priv, const struct cpc_reqset *set, pid_t tid,
    int *bad)
{
	struct target t = { tid, -1 };
	return open_set(priv, set, &t, OPEN_NO_SAMPLING, bad);
}

static int perf_cpu_open(void *priv, const struct cpc_reqset *set, int cpu,
    int *bad)
{
	struct target t = { -1, cpu };
	return open_set(priv, set, &t, OPEN_NO_SAMPLING, bad);
}

/* Reads the group without a system call: 0, or -1 to use read(). */
static int read_pages(const struct perf_lwp *p, struct perf_group_read *gr)
{
	const volatile struct perf_event_mmap_page *pg;
	for (unsigned i = 0; i < p->nreqs; i++) {
		unsigned s = p->slot[i];
		if (s == PERF_SLOT_CLOCK)
			continue;
		pg = (const volatile void *)(p->pages + (size_t)s * PERF_PAGE);
		if (__cpc_rdpmc_read(pg, PERF_RDPMC_FN, &gr->values[s]) != 0)
			return -1;
	}
	pg = (const volatile void *)p->pages;
	if (__cpc_rdpmc_time_enabled(pg, __cpc_perf_read_tsc,
		&gr->time_enabled) != 0)
		return -1;
	gr->time_running = gr->time_enabled;
	gr->nr = p->nfd;
	return 0;
}

/* Out of line for the backend table (lwpctx.h calls the inline one). */
static int perf_sample(void *priv, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	return __cpc_perf_sample(priv, vals, n, ontime_ns);
}

/*
 * Rebinding the same events with new presets, in place: new offsets, new
 * sampling periods, and the group enabled again (an overflow may have
 * frozen it).  Far cheaper than closing and reopening every event.
 * -EAGAIN when the set needs a full bind (which requests sample changed).
 */
static int perf_rearm(void *priv, const struct cpc_reqset *set)
{
	struct perf_lwp *p = priv;
	struct perf_group_read gr;

	if (p->nfd == 0 || set->nreqs != p->nreqs)
		return -EAGAIN;
	for (unsigned i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->req[i];
		int was = p->slot[i] == PERF_SLOT_CLOCK ? 0
						   : (p->sampling >> p->slot[i]) & 1;
		if (p->slot[i] == PERF_SLOT_CLOCK)
			for (unsigned k = 0; k < p->nnotify; k++)
				was |= p->notify_req[k] == i;
		if (was != samples(r))
			return -EAGAIN;
	}
	/*
	 * A notifying leader that has not overflowed still has its refresh
	 * limit: a refresh would raise it to 2 (no freeze at the next
	 * overflow).  Only a new group starts it again at 1.
	 */
	if ((p->sampling & 1) && !p->leader_fired)
		return -EAGAIN;
	ssize_t got = read(p->fd[0], &gr, sizeof(gr));
	if (got < (ssize_t)(3 * sizeof(uint64_t)) || gr.nr != p->nfd)
		return -EAGAIN;
	p->time_base = gr.time_enabled;
	for (unsigned i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->req[i];
		uint64_t raw = p->slot[i] == PERF_SLOT_CLOCK
		    ? 0
		    : gr.values[p->slot[i]];
		p->offset[i] = r->preset - raw;
		if (samples(r) && p->slot[i] != PERF_SLOT_CLOCK) {
			/*
			 * Always, also for the same period: it makes perf
			 * forget what the counter did past its overflow
			 * before it stopped (a late interrupt, events before
			 * the disable), so that the new period starts whole.
			 */
			uint64_t period = overflow_period(r->preset);
			if (ioctl(p->fd[p->slot[i]], PERF_EVENT_IOC_PERIOD,
				&period) != 0)
				return -errno;
		}
	}
	if (p->sampling & 1) {
		/* Only the leader was stopped: its refresh restarts all. */
		p->leader_fired = 0;
		if (ioctl(p->fd[0], PERF_EVENT_IOC_REFRESH, 1) != 0)
			return -errno;
		return 0;
	}
	for (unsigned k = 0; k < p->nnotify; k++) {
		uint64_t period =
		    overflow_period(set->req[p->notify_req[k]].preset);
		if (ioctl(p->notify[k], PERF_EVENT_IOC_PERIOD, &period) != 0)
			return -errno;
	}
	if (ioctl(p->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0)
		return -errno;
	for (unsigned i = 1; i < p->nfd; i++)
		if (((p->sampling >> i) & 1) &&
		    ioctl(p->fd[i], PERF_EVENT_IOC_REFRESH, 1) != 0)
			return -errno;
	for (unsigned k = 0; k < p->nnotify; k++)
		if (ioctl(p->notify[k], PERF_EVENT_IOC_REFRESH, 1) != 0)
			return -errno;
	return 0;
}

static int perf_is_overflow(void *priv, const siginfo_t *si)
{
	struct perf_lwp *p = priv;
	if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
		return 0;
	for (unsigned i = 0; i < p->nfd; i++)
		if ((p->sampling & (1u << i)) && si->si_fd == p->fd[i]) {
			/* POLL_HUP: its refresh limit ran out, it is off. */
			if (i == 0 && si->si_code == POLL_HUP)
				p->leader_fired = 1;
			return 1;
		}
	for (unsigned i = 0; i < p->nnotify; i++)
		if (si->si_fd == p->notify[i])
			return 1;
	return 0;
}

static void perf_freeze(void *priv)
{
	struct perf_lwp *p = priv;
	/* The kernel stopped the group with its notifying leader. */
	if (p->leader_fired && p->sampling == 1 && p->nnotify == 0)
		return;
	if (p->nfd > 0)
		ioctl(p->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	for (unsigned i = 0; i < p->nnotify; i++)
		ioctl(p->notify[i], PERF_EVENT_IOC_DISABLE, 0);
}

static int perf_group_open(void *gpriv, const struct cpc_reqset *set)
{
	struct perf_lwp *p = gpriv;
	int bad;
	int rc = open_set(p, set, &this_thread, OPEN_INHERIT | OPEN_NO_SAMPLING,
	    &bad);
	/* Sums of events: the presets are not part of them. */
	memset(p->offset, 0, sizeof(p->offset));
	return rc;
}

static int perf_probe(const struct cpc_reqset *set)
{
	struct perf_lwp p;
	int bad;
	int rc = perf_bind(&p, set, 0, &bad);
	if (rc == 0)
		perf_release(&p);
	return rc;
}

const struct cpc_backend __cpc_perf_backend = {
	.name = "perf",
	.bind = perf_bind,
	.sample = perf_sample,
	.release = perf_release,
	.rearm = perf_rearm,
	.is_overflow = perf_is_overflow,
	.freeze = perf_freeze,
	.probe = perf_probe,
	.task_open = perf_task_open,
	.cpu_open = perf_cpu_open,
	.group_open = perf_group_open,
	.group_sample = perf_sample,
	.group_close = perf_release,
};
