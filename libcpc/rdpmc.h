/*
 * Reading a counter without a system call: the perf_event mmap page
 * protocol (sequence lock, counter index, width and offset), with the
 * rdpmc instruction.  See perf_event_open(2), "mmap layout".
 */
#ifndef LIBCPC_RDPMC_H
#define LIBCPC_RDPMC_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* Reads hardware counter idx (the page's index - 1). */
typedef uint64_t (*cpc_rdpmc_fn)(uint32_t idx);

/* The rdpmc instruction. */
uint64_t cpc_rdpmc_insn(uint32_t idx);

/*
 * Reads the count of the event whose user page is pg: offset plus the
 * sign-extended pmc_width-bit counter, retried while the kernel changes
 * the page.  Returns 0, or -1 when user-space reading is not possible now
 * (rdpmc not allowed, or the event is not on a counter: index 0); the
 * caller then falls back to read().  Async-signal-safe.
 */
int cpc_rdpmc_read(const volatile struct perf_event_mmap_page *pg,
    cpc_rdpmc_fn rdpmc, uint64_t *count);

/* Reads the time stamp counter. */
typedef uint64_t (*cpc_tsc_fn)(void);

/*
 * The event's enabled time from its user page: time_enabled plus the
 * TSC time (converted with time_shift, time_mult and time_offset) since
 * the kernel last wrote the page; retried while the kernel changes it.
 * 0, or -1 without cap_user_time.  Async-signal-safe.
 */
int cpc_page_enabled_time(const volatile struct perf_event_mmap_page *pg,
    cpc_tsc_fn tsc, uint64_t *enabled);

/* A group's user pages: page i (of page_size bytes) belongs to fd i. */
struct cpc_group_pages {
	const unsigned char *base;
	size_t page_size;
	unsigned nfd;
	unsigned nreqs;
	const uint8_t *slot;	/* request -> fd index, or skip_slot */
	uint8_t skip_slot;	/* requests not read from a page (clocks) */
};

/*
 * Reads a group without a system call, as read() with PERF_FORMAT_GROUP
 * and both times would: values[slot[i]] for every counted request,
 * *enabled (and *running, equal) from page 0, *nr = nfd.  0, or -1 when
 * a page cannot be read now (then read() must be used).
 */
int cpc_read_group_pages(const struct cpc_group_pages *g, cpc_rdpmc_fn rdpmc,
    cpc_tsc_fn tsc, uint64_t *nr, uint64_t *enabled, uint64_t *running,
    uint64_t *values);

#endif
