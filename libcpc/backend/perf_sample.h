/* SPDX-License-Identifier: MIT */
/*
 * The perf backend's per-LWP state and its sample, inline, so that the
 * interfaces' sample paths (through lwpctx.h) read the group from their
 * own frame: no call level between cpc_set_sample / cpc_take_sample and
 * the read system call, whose returns the processor would mispredict
 * after the kernel (see lwpctx.h).  perf.c does everything else.
 */
#ifndef LIBCPC_PERF_SAMPLE_H
#define LIBCPC_PERF_SAMPLE_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backend.h"
#include "cpuinfo.h"
#include "rdpmc.h"
#include "reqset.h"

/* Where request i's value comes from. */
#define PERF_SLOT_CLOCK 0xff	/* the group's time_enabled */
#define PERF_NO_RUN 0xff	/* first_page: requests not one run of pages */

struct perf_lwp {
	uint8_t nfd;		/* fd[0] leads the group; then members */
	uint8_t nnotify;	/* separate notification events of clocks */
	uint8_t nreqs;
	/* The notifying leader's overflow disabled it (see pick_leader). */
	uint8_t leader_fired;
	/* index into the group read, or PERF_SLOT_CLOCK */
	uint8_t slot[CPC_MAX_REQS];
	uint32_t sampling;	/* bit i: fd[i] notifies overflow */
	int fd[CPC_MAX_REQS + 1];
	int notify[CPC_MAX_REQS];
	uint8_t notify_req[CPC_MAX_REQS];	/* request of notify[i] */
	/* PERF_NO_RUN, or request i reads page first_page + i (every
	 * request, no clock): the pages' sample needs no slot look-up. */
	uint8_t first_page;
	/* value = offset + raw count; the offset is the preset at bind and
	 * preset minus the raw count at a rearm (perf_rearm). */
	uint64_t offset[CPC_MAX_REQS];
	uint64_t time_base;	/* time_enabled at the last rearm */
	/* With rdpmc: the user pages of fd[0..nfd-1], one after another. */
	unsigned char *pages;
};

_Static_assert(sizeof(struct perf_lwp) <= CPC_BACKEND_PRIV_SIZE,
    "perf backend state does not fit");

/* What one read() of a group returns (PERF_FORMAT_GROUP and both times). */
struct perf_group_read {
	uint64_t nr;
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t values[CPC_MAX_REQS + 1];
};

#define PERF_PAGE 4096

#ifdef CPC_SYNTHETIC_PAGES
/*
 * Only in bench/synthbench, which compiles the library with this macro:
 * user pages written by the benchmark, read with a stand-in for rdpmc,
 * so that the syscall-free path can be measured on a machine without a
 * PMU.  pages(nfd) returns nfd pages mapped with mmap (released by
 * perf.c).
 */
extern unsigned char *(*__cpc_synth_pages)(unsigned nfd);
extern cpc_rdpmc_fn __cpc_synth_rdpmc;
#define PERF_RDPMC_FN __cpc_synth_rdpmc
#else
#define PERF_RDPMC_FN __cpc_rdpmc_insn
#endif

static inline uint64_t __cpc_perf_read_tsc(void)
{
	return __cpc_rdtsc();
}

/*
 * Samples the first n requests through the user pages, straight into
 * vals: 0, or -1 to use read().  Out of line: a call costs little where
 * no system call follows, and it keeps the read() path short and
 * straight in the caller.  (unused: for the files that include this
 * header without sampling.)
 */
static __attribute__((noinline, unused)) int __cpc_perf_sample_pages(
    const struct perf_lwp *p, uint64_t *vals, unsigned n,
    uint64_t *ontime_ns)
{
	const volatile struct perf_event_mmap_page *pg;
	uint64_t enabled, v;

	pg = (const volatile void *)p->pages;
	if (__cpc_rdpmc_time_enabled(pg, __cpc_perf_read_tsc, &enabled) != 0)
		return -1;
	uint64_t ontime = enabled - p->time_base;
	*ontime_ns = ontime;
	if (p->first_page != PERF_NO_RUN) {
		/* The usual set: request i on page first_page + i. */
		const unsigned char *page =
		    p->pages + (size_t)p->first_page * PERF_PAGE;
		for (unsigned i = 0; i < n; i++, page += PERF_PAGE) {
			uint64_t count;
			if (__cpc_rdpmc_read((const volatile void *)page,
				PERF_RDPMC_FN, &count) != 0)
				return -1;
			vals[i] = p->offset[i] + count;
		}
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned s = p->slot[i];
		v = ontime;
		if (s != PERF_SLOT_CLOCK) {
			pg = (const volatile void *)(p->pages +
			    (size_t)s * PERF_PAGE);
			if (__cpc_rdpmc_read(pg, PERF_RDPMC_FN, &v) != 0)
				return -1;
		}
		vals[i] = p->offset[i] + v;
	}
	return 0;
}

/*
 * read(2) of the group, as the system call itself: bytes read, or
 * -errno; errno untouched.  Not through the C library, whose wrapper is
 * one more call level after the system call and a cancellation point,
 * which a sample taken in a signal handler is not.
 */
static inline long __cpc_perf_read_group(int fd, struct perf_group_read *gr)
{
#ifdef __x86_64__
	long ret;
	__asm__ __volatile__("syscall"
			     : "=a"(ret), "=m"(*gr)
			     : "0"((long)SYS_read), "D"((long)fd), "S"(gr),
			     "d"(sizeof(*gr))
			     : "rcx", "r11", "memory");
	return ret;
#else
	int saved = errno;
	long ret = syscall(SYS_read, fd, gr, sizeof(*gr));
	if (ret < 0)
		ret = -errno;
	errno = saved;
	return ret;
#endif
}

/*
 * The backend's sample (struct cpc_backend): the first n counts of the
 * group and its on-CPU time since the last rearm, in ns.  0, -EINVAL, or
 * -EAGAIN when the context is lost.  Async-signal-safe.
 */
static inline __attribute__((always_inline)) int __cpc_perf_sample(
    void *priv, uint64_t *vals, unsigned n, uint64_t *ontime_ns)
{
	struct perf_lwp *p = priv;
	struct perf_group_read gr;

	if (__builtin_expect(p->nfd == 0 || n > p->nreqs, 0))
		return -EINVAL;
	if (p->pages != NULL &&
	    __cpc_perf_sample_pages(p, vals, n, ontime_ns) == 0)
		return 0;
	long got = __cpc_perf_read_group(p->fd[0], &gr);
	/*
	 * A pinned group the kernel could not schedule is put in error
	 * state and reads as end-of-file: the context is lost.
	 */
	if (__builtin_expect(got < (long)(3 * sizeof(uint64_t)) ||
		gr.nr != p->nfd || gr.time_running < gr.time_enabled,
		0))
		return -EAGAIN;
	for (unsigned i = 0; i < n; i++)
		vals[i] = p->offset[i] + (p->slot[i] == PERF_SLOT_CLOCK
						 ? gr.time_enabled - p->time_base
						 : gr.values[p->slot[i]]);
	*ontime_ns = gr.time_enabled - p->time_base;
	return 0;
}

#endif
