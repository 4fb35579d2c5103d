/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the hardware-event suite (tests/hw): the simulated PMU's
 * record of the events it was asked to count (/sys/kernel/simpmu), the
 * encodings libpfm4 gives for the guest's processor, and the fields of an
 * x86 event-select word.
 */
#ifndef TESTS_HW_HWUTIL_H
#define TESTS_HW_HWUTIL_H

#include <stddef.h>
#include <stdint.h>

/* What /sys/kernel/simpmu/info says. */
struct simpmu_info {
	int amd;		/* vendor=amd (else intel) */
	unsigned counters;	/* general-purpose counters */
	unsigned mhz;		/* cycles per microsecond of on-CPU time */
};

/* One line of /sys/kernel/simpmu/log: an event_init the PMU saw. */
struct simpmu_rec {
	unsigned type;
	uint64_t config, raw, period;
	int excl_user, excl_kernel, pinned, group, rc;
};

/*
 * 1 if the simulated PMU is loaded (and fills *info), else 0 with a
 * reason in why.  hw_require() exits 77 (skip) with that reason.
 */
int simpmu_present(struct simpmu_info *info, const char **why);
void hw_require(const char *prog);
/* The info read by hw_require(). */
extern struct simpmu_info hw_pmu;

/*
 * The back end's names for cycles and instructions in the current
 * interfaces: Zen's on AMD (the EPYC guest), the architectural events on
 * Intel where CPUID shows the architectural PMU, else (qemu hides it)
 * the Pentium Pro names of the back end for such a processor.
 */
const char *hw_v2_cycles(void);
const char *hw_v2_instructions(void);

/* Reads the log: the number of records (at most max), or -1. */
int simpmu_read(struct simpmu_rec *out, int max);

/*
 * Marks the log: binds a unique numeric marker event through libcpc (so
 * it works as any user, on either backend) and returns its config.
 * simpmu_since() then returns the records logged after the last marker.
 */
uint64_t simpmu_mark(void);
int simpmu_since(uint64_t mark, struct simpmu_rec *out, int max);
/* The records as text, for failure messages. */
const char *simpmu_format(const struct simpmu_rec *r, int n);

/* The fields of an x86 event-select word that name an event. */
struct evsel_fields {
	unsigned event;		/* 12 bits: 0-7, and 32-35 on AMD */
	unsigned umask, cmask;
	int inv, edge, usr, os;
};

void evsel_split(uint64_t raw, struct evsel_fields *f);
/* "event=0xc0 umask=0x00 ..." */
const char *evsel_format(const struct evsel_fields *f);

/*
 * The fields libpfm4 encodes for spec on this processor (with usr/os
 * from plm: 1 user, 2 kernel, 3 both): 0, or -1 with a message in
 * hw_pfm_error.
 */
int pfm_expected(const char *spec, int plm, struct evsel_fields *f);
extern char hw_pfm_error[256];

/*
 * Index of a record with rc=0 whose encoding has exactly the fields f,
 * or -1.
 */
int simpmu_find(const struct simpmu_rec *r, int n, const struct evsel_fields *f);

/*
 * Spins in user mode for `iters` loop iterations, inside the section
 * "hwspin" (see hw_in_spin), calling nothing.
 */
void hw_spin(unsigned long iters);
/* 1 if pc lies in hw_spin's code; 1 if pc lies in this program's text. */
int hw_in_spin(const void *pc);
int hw_in_text(const void *pc);
/* Iterations of hw_spin per millisecond of CPU time (measured once). */
unsigned long hw_iters_per_ms(void);
/* Spins for about ms milliseconds of CPU time. */
void hw_spin_ms(unsigned ms);

#endif
