/* SPDX-License-Identifier: MIT */
/*
 * The version 1 system-wide interfaces: cpc_shared_open, _bind_event,
 * _take_sample, _rele and _close.  As on Solaris, the caller binds itself
 * to one processor first (processor_bind, here sched_setaffinity) and
 * counts everything that runs there, on the core's processor contexts
 * (cpuctx.h: per-CPU perf events); that needs
 * CAP_PERFMON or perf_event_paranoid <= 0.  The descriptor returned names
 * the shared context; unlike Solaris, opening it does not invalidate the
 * per-LWP contexts of other processes.
 *
 * As Solaris 8's driver: a processor is opened once at a time (EAGAIN,
 * in every process of this library: the descriptor is a socket bound to
 * the processor's abstract address, __cpc_cpu_claim_fd), the
 * descriptor belongs to the processor it was opened on (EAGAIN once the
 * caller runs elsewhere), and a descriptor that is not one gives EBADF,
 * or ENOTTY for an open file, which cpc_shared_close closes all the same.  None of these calls speaks through the
 * error function (cpc_seterrfn); the Linux explanations go to the note
 * (cpc_linux_errnote(NULL)).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "libcpc.h"
#include "cpuctx.h"
#include "error.h"
#include "v1.h"

#define SHARED_MAX 64

struct shared {
	int fd;			/* -1: free slot */
	int cpu;		/* the processor it was opened on */
	int bound;
	cpc_event_t ev;
	struct cpc_cpuctx ctx;
};

static struct shared shared[SHARED_MAX] = { [0 ... SHARED_MAX - 1] = {
	.fd = -1 } };
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;

static struct shared *lookup(int fd)
{
	if (fd < 0)
		return NULL;
	for (int i = 0; i < SHARED_MAX; i++)
		if (shared[i].fd == fd)
			return &shared[i];
	return NULL;
}

static int bound_processor(void);

/* What the original's ioctl gives for a descriptor that is not one. */
static int not_shared(int fd)
{
	return __cpc_fail(fd < 0 || fcntl(fd, F_GETFD) < 0 ? EBADF : ENOTTY);
}

/* The descriptor's processor is no longer the caller's: EAGAIN. */
static int moved(const struct shared *s)
{
	return bound_processor() != s->cpu;
}

int cpc_shared_open(void)
{
	int rc = __cpc_cpu_probe();
	if (rc != 0) {
		if (rc == -EACCES || rc == -EPERM) {
			char why[320];
			__cpc_counters_refusal(CPC_SCOPE_CPU, why, sizeof(why));
			__cpc_note("shared_open", "%s\n", why);
			return __cpc_fail(EACCES);
		}
		return __cpc_fail(-rc);
	}
	/* As on Solaris, the caller binds itself to a processor first. */
	int cpu = bound_processor();
	if (cpu < 0) {
		__cpc_note("shared_open", "the caller must first be bound to "
		    "one processor (processor_bind)\n");
		return __cpc_fail(EINVAL);
	}
	int fd = -1;
	pthread_mutex_lock(&shared_lock);
	struct shared *s = NULL;
	for (int i = 0; i < SHARED_MAX && s == NULL; i++)
		if (shared[i].fd < 0)
			s = &shared[i];
	/*
	 * One open per processor, with cpc_bind_cpu's bindings too, and in
	 * every process: the descriptor is the claim's (cpuctx.h).
	 */
	int busy = s != NULL && __cpc_cpu_claim_fd(cpu, &fd) != 0;
	if (s != NULL && !busy && fd < 0 &&
	    (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		int e = errno;
		__cpc_cpu_unclaim(cpu);
		pthread_mutex_unlock(&shared_lock);
		return __cpc_fail(e);
	}
	if (s != NULL && !busy) {
		memset(s, 0, sizeof(*s));
		s->fd = fd;
		s->cpu = cpu;
	}
	pthread_mutex_unlock(&shared_lock);
	if (s == NULL || busy) {
		if (busy)
			__cpc_note("shared_open", "processor %d is already "
			    "open for system-wide counting\n", cpu);
		return __cpc_fail(EAGAIN);
	}
	return fd;
}

/* The one processor the calling thread is bound to, or -1. */
static int bound_processor(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) != 0 ||
	    CPU_COUNT(&set) != 1)
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

static void release(struct shared *s)
{
	if (s->bound) {
		__cpc_cpu_close(&s->ctx);
		s->bound = 0;
	}
}

int cpc_shared_bind_event(int fd, cpc_event_t *event, int flags)
{
	struct cpc_reqset set;
	int bad;
	struct shared *s = lookup(fd);

	/* As Solaris 8: no event releases, whatever the descriptor. */
	if (event == NULL) {
		if (s != NULL)
			release(s);
		return 0;
	}
	if (flags != 0)
		return __cpc_fail(EINVAL);
	if (s == NULL)
		return not_shared(fd);
	int cpu = s->cpu;
	if (moved(s)) {
		__cpc_note("shared_bind_event", "the caller no longer runs "
		    "only on processor %d, which the descriptor was opened "
		    "on\n", cpu);
		return __cpc_fail(EAGAIN);
	}
	int err = __cpc_v1_build_set(event, 0, &set, "shared_bind_event");
	if (err != 0)
		return __cpc_fail(err);
	release(s);
	int rc = __cpc_cpu_open(&s->ctx, &set, cpu, &bad);
	if (rc != 0) {
		if (rc == -ENOENT || rc == -EOPNOTSUPP) {
			__cpc_note("shared_bind_event", "pic%d: event cannot be "
			    "counted on this system\n", bad < 0 ? 0 : bad);
			return __cpc_fail(EINVAL);
		}
		return __cpc_fail(-rc == EPERM ? EACCES : -rc);
	}
	s->ev = *event;
	s->bound = 1;
	return 0;
}

int cpc_shared_take_sample(int fd, cpc_event_t *event)
{
	uint64_t vals[2], tick;
	struct shared *s = lookup(fd);

	if (s == NULL)
		return not_shared(fd);
	if (event == NULL || !s->bound)
		return __cpc_fail(EINVAL);
	if (moved(s))
		return __cpc_fail(EAGAIN);
	int rc = __cpc_cpu_sample(&s->ctx, vals, 2, &tick);
	if (rc != 0)
		return __cpc_fail(-rc);
	event->ce_cpuver = s->ev.ce_cpuver;
	event->ce_hrt = gethrtime();
	event->ce_tsc = tick;
	event->ce_pic[0] = vals[0];
	event->ce_pic[1] = vals[1];
	return 0;
}

int cpc_shared_rele(int fd)
{
	struct shared *s = lookup(fd);
	if (s == NULL)
		return not_shared(fd);
	if (!s->bound)
		return __cpc_fail(EINVAL);
	release(s);
	return 0;
}

/*
 * As the originals: release, then close the descriptor whatever it is
 * (on one that is not a shared one the release fails, EBADF or ENOTTY,
 * and errno keeps that).
 */
void cpc_shared_close(int fd)
{
	pthread_mutex_lock(&shared_lock);
	struct shared *s = lookup(fd);
	if (s != NULL) {
		release(s);
		__cpc_cpu_unclaim(s->cpu);
		s->fd = -1;
	} else {
		(void)not_shared(fd);
	}
	int saved = errno;
	if (fd >= 0)
		close(fd);
	errno = saved;
	pthread_mutex_unlock(&shared_lock);
}
