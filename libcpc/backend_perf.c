/*
 * The perf_event backend: each bound LWP owns one perf event group (the
 * first request leads it, pinned so that it is never multiplexed), read
 * with a single PERF_FORMAT_GROUP read().
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libcpc.h"
#include "backend.h"

/*
 * fd[0] leads the group.  When `dummy` is set it is a software dummy event
 * that counts nothing and the requests are fd[1..]: the kernel does not
 * count software-event siblings of a clock event leader (task-clock,
 * cpu-clock) nor the reverse, but counts both under a dummy leader.
 */
struct perf_lwp {
	unsigned nfd;
	unsigned dummy;
	int fd[CPC_MAX_REQS + 1];
	uint64_t preset[CPC_MAX_REQS];
};

_Static_assert(sizeof(struct perf_lwp) <= CPC_BACKEND_PRIV_SIZE,
    "perf backend state does not fit");

#define READ_FORMAT                                                         \
	(PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |              \
	    PERF_FORMAT_TOTAL_TIME_RUNNING)

struct group_read {
	uint64_t nr;
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t values[CPC_MAX_REQS + 1];
};

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
    int group)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group,
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
	attr->config2 = r->sel.config2;
	attr->read_format = READ_FORMAT;
	attr->exclude_user = (r->flags & CPC_COUNT_USER) == 0;
	attr->exclude_kernel = (r->flags & CPC_COUNT_SYSTEM) == 0;
	attr->exclude_hv = 1;
	attr->pinned = leader;
}

/* Does this set need a dummy group leader (see struct perf_lwp)? */
static int needs_dummy_leader(const struct cpc_reqset *set)
{
	if (set->nreqs < 2)
		return 0;
	for (unsigned i = 0; i < set->nreqs; i++)
		if (set->req[i].sel.type == PERF_TYPE_SOFTWARE)
			return 1;
	return 0;
}

static int open_dummy_leader(void)
{
	struct cpc_req dummy = {
		.sel = { .type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY },
		.flags = CPC_COUNT_USER,
	};
	struct perf_event_attr attr;
	fill_attr(&attr, &dummy, 1);
	return perf_open(&attr, 0, -1, -1);
}

static void perf_release(void *priv)
{
	struct perf_lwp *p = priv;
	/* Close the siblings before the leader. */
	while (p->nfd > 0)
		close(p->fd[--p->nfd]);
}

static int perf_bind(void *priv, const struct cpc_reqset *set,
    unsigned bflags, int *bad)
{
	struct perf_lwp *p = priv;
	struct perf_event_attr attr;

	(void)bflags;
	*bad = -1;
	p->nfd = 0;
	if (set->nreqs == 0 || set->nreqs > CPC_MAX_REQS)
		return -EINVAL;
	p->dummy = (unsigned)needs_dummy_leader(set);
	if (p->dummy) {
		int fd = open_dummy_leader();
		if (fd < 0)
			return -errno;
		p->fd[0] = fd;
		p->nfd = 1;
	}
	for (unsigned i = 0; i < set->nreqs; i++) {
		const struct cpc_req *r = &set->req[i];
		int leader = p->nfd == 0;
		fill_attr(&attr, r, leader);
		int fd = perf_open(&attr, 0, -1, leader ? -1 : p->fd[0]);
		if (fd < 0) {
			int e = errno;
			*bad = (int)i;
			perf_release(p);
			errno = e;
			return -e;
		}
		p->fd[p->nfd++] = fd;
		p->preset[i] = r->preset;
	}
	return 0;
}

static int perf_sample(void *priv, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	struct perf_lwp *p = priv;
	struct group_read gr;

	if (p->nfd == 0 || n + p->dummy > p->nfd)
		return -EINVAL;
	ssize_t got = read(p->fd[0], &gr, sizeof(gr));
	/*
	 * A pinned group the kernel could not schedule is put in error
	 * state and reads as end-of-file: the context is lost.
	 */
	if (got < (ssize_t)(3 * sizeof(uint64_t)) || gr.nr != p->nfd ||
	    gr.time_running < gr.time_enabled)
		return -EAGAIN;
	for (unsigned i = 0; i < n; i++)
		vals[i] = p->preset[i] + gr.values[i + p->dummy];
	*ontime_ns = gr.time_enabled;
	return 0;
}

static int perf_probe(const struct cpc_reqset *set)
{
	struct perf_lwp p;
	int bad;
	memset(&p, 0, sizeof(p));
	int rc = perf_bind(&p, set, 0, &bad);
	if (rc == 0)
		perf_release(&p);
	return rc;
}

const struct cpc_backend cpc_perf_backend = {
	.name = "perf",
	.bind = perf_bind,
	.sample = perf_sample,
	.release = perf_release,
	.probe = perf_probe,
};
