// SPDX-License-Identifier: GPL-2.0-only
/*
 * simpmu_events.c: event attributes to x86 event-select values, as the
 * kernel's x86 PMU driver (arch/x86/events) computes them for Skylake
 * (Intel family 6) and AMD family 17h, and the simulated count rate of
 * each value.
 *
 * The event-select layout: event 0-7, umask 8-15, USR 16, OS 17, edge 18,
 * INT 20, AnyThread 21 (Intel), EN 22, inv 23, cmask 24-31, and on AMD
 * event bits 8-11 in bits 32-35.
 *
 * What x86 does, and so this file:
 *  - INT always; USR unless exclude_user; OS unless exclude_kernel;
 *    exclude_hv is ignored;
 *  - PERF_TYPE_RAW: the config is masked to the event, umask, edge, inv
 *    and cmask bits (and on AMD event bits 32-35); every other bit (USR,
 *    OS, INT, EN, pin control, reserved bits, Intel's TSX filters 32-33
 *    as on a CPU without TSX, bits 36-63) is dropped silently, never
 *    refused.  Only Intel's AnyThread bit (21) is looked
 *    at: kept for a caller with CAP_PERFMON or CAP_SYS_ADMIN, EACCES
 *    otherwise (x86 asks perf_allow_cpu(), which also allows it when
 *    kernel.perf_event_paranoid <= 0; this module cannot read that
 *    setting and refuses then too);
 *  - PERF_TYPE_HARDWARE: config >= PERF_COUNT_HW_MAX is EINVAL; a generic
 *    event the model does not have is ENOENT;
 *  - PERF_TYPE_HW_CACHE: a cache, op or result out of range is EINVAL; a
 *    combination the model cannot count is ENOENT, one that makes no
 *    sense (e.g. writes to the instruction cache) is EINVAL.  Skylake's
 *    LL and NODE events are OFFCORE_RESPONSE (0x01b7), which on hardware
 *    takes its request type from an extra MSR; here that part is not
 *    simulated;
 *  - config1 and config2 are ignored (x86 reads them only for events with
 *    extra registers, such as OFFCORE_RESPONSE);
 *  - precise_ip > 0 is EOPNOTSUPP (no PEBS or IBS), and so is a branch
 *    stack (no LBR).
 */
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/perf_event.h>
#include <asm/perf_event.h>

#include "simpmu.h"

/* An entry x86 refuses with EINVAL (its "-1"); 0 means ENOENT. */
#define NA (~0ULL)

static const u64 intel_generic[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x003c,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0x4f2e,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x412e,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c4,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c5,
	[PERF_COUNT_HW_BUS_CYCLES] = 0x013c,
	/* The kernel's pseudo encoding for fixed counter 2 (ref cycles). */
	[PERF_COUNT_HW_REF_CPU_CYCLES] = 0x0300,
	/* Skylake has no stalled-cycles events: ENOENT. */
};

static const u64 amd_generic[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS] = 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES] = 0xff60,
	[PERF_COUNT_HW_CACHE_MISSES] = 0x0964,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES] = 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = 0x0287,
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = 0x0187,
	/* No bus cycles or ref cycles on family 17h: ENOENT. */
};

#define C(x) PERF_COUNT_HW_CACHE_##x
#define OPS [C(OP_MAX)][C(RESULT_MAX)]

static const u64 intel_cache[C(MAX)] OPS = {
	[C(L1D)] = {
		[C(OP_READ)] = { 0x81d0, 0x0151 },
		[C(OP_WRITE)] = { 0x82d0, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(L1I)] = {
		[C(OP_READ)] = { 0, 0x0283 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(LL)] = {
		[C(OP_READ)] = { 0x01b7, 0x01b7 },
		[C(OP_WRITE)] = { 0x01b7, 0x01b7 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(DTLB)] = {
		[C(OP_READ)] = { 0x81d0, 0x0e08 },
		[C(OP_WRITE)] = { 0x82d0, 0x0e49 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(ITLB)] = {
		[C(OP_READ)] = { 0x2085, 0x0e85 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(BPU)] = {
		[C(OP_READ)] = { 0x00c4, 0x00c5 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(NODE)] = {
		[C(OP_READ)] = { 0x01b7, 0x01b7 },
		[C(OP_WRITE)] = { 0x01b7, 0x01b7 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
};

static const u64 amd_cache[C(MAX)] OPS = {
	[C(L1D)] = {
		[C(OP_READ)] = { 0x0040, 0xc860 },
		[C(OP_WRITE)] = { 0, 0 },
		[C(OP_PREFETCH)] = { 0xff5a, 0 },
	},
	[C(L1I)] = {
		[C(OP_READ)] = { 0x0080, 0x0081 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	/* Family 17h has no last-level cache events in the core PMU. */
	[C(LL)] = {
		[C(OP_READ)] = { 0, 0 },
		[C(OP_WRITE)] = { 0, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(DTLB)] = {
		[C(OP_READ)] = { 0xff45, 0xf045 },
		[C(OP_WRITE)] = { 0, 0 },
		[C(OP_PREFETCH)] = { 0, 0 },
	},
	[C(ITLB)] = {
		[C(OP_READ)] = { 0x0084, 0xff85 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(BPU)] = {
		[C(OP_READ)] = { 0x00c2, 0x00c3 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
	[C(NODE)] = {
		[C(OP_READ)] = { 0, 0 },
		[C(OP_WRITE)] = { NA, NA },
		[C(OP_PREFETCH)] = { NA, NA },
	},
};

static int encode_raw(u64 config, u64 *sel)
{
	if (simpmu_vendor == SIMPMU_AMD) {
		*sel |= config & AMD64_RAW_EVENT_MASK;
		return 0;
	}
	*sel |= config & X86_RAW_EVENT_MASK;
	if (config & ARCH_PERFMON_EVENTSEL_ANY) {
		if (!perfmon_capable())
			return -EACCES;
		*sel |= ARCH_PERFMON_EVENTSEL_ANY;
	}
	return 0;
}

static int encode_generic(u64 config, u64 *sel)
{
	const u64 *map = simpmu_vendor == SIMPMU_AMD ? amd_generic :
						       intel_generic;
	u64 v;

	if (config >= PERF_COUNT_HW_MAX)
		return -EINVAL;
	v = map[config];
	if (!v)
		return -ENOENT;
	*sel |= v;
	return 0;
}

static int encode_cache(u64 config, u64 *sel)
{
	unsigned int cache = config & 0xff, op = (config >> 8) & 0xff;
	unsigned int result = (config >> 16) & 0xff;
	u64 v;

	if (cache >= C(MAX) || op >= C(OP_MAX) || result >= C(RESULT_MAX))
		return -EINVAL;
	if (simpmu_vendor == SIMPMU_AMD)
		v = amd_cache[cache][op][result];
	else
		v = intel_cache[cache][op][result];
	if (v == 0)
		return -ENOENT;
	if (v == NA)
		return -EINVAL;
	*sel |= v;
	return 0;
}

int simpmu_encode(struct perf_event *event, u64 *raw)
{
	const struct perf_event_attr *attr = &event->attr;
	u64 sel = ARCH_PERFMON_EVENTSEL_INT;
	int rc;

	*raw = 0;
	if (attr->precise_ip)
		return -EOPNOTSUPP;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	if (!attr->exclude_user)
		sel |= ARCH_PERFMON_EVENTSEL_USR;
	if (!attr->exclude_kernel)
		sel |= ARCH_PERFMON_EVENTSEL_OS;
	switch (attr->type) {
	case PERF_TYPE_RAW:
		rc = encode_raw(attr->config, &sel);
		break;
	case PERF_TYPE_HARDWARE:
		rc = encode_generic(attr->config, &sel);
		break;
	case PERF_TYPE_HW_CACHE:
		rc = encode_cache(attr->config, &sel);
		break;
	default:
		rc = -ENOENT;
		break;
	}
	if (rc)
		return rc;
	*raw = sel | ARCH_PERFMON_EVENTSEL_ENABLE;
	return 0;
}

/*
 * The rates, by event code only (umask matters for Intel's cycles):
 *   cycles        divisor 1   Intel event 0x3c umask 0x00, Intel 0x0300
 *                             (ref cycles), AMD event 0x076
 *   instructions  divisor 2   event 0xc0 (any umask), both vendors
 *   anything else divisor 64
 * edge, inv, cmask and AnyThread do not change the count.
 */
unsigned int simpmu_divisor(u64 raw)
{
	unsigned int ev = raw & 0xff, umask = (raw >> 8) & 0xff;

	if (simpmu_vendor == SIMPMU_AMD) {
		ev |= ((raw >> 32) & 0xf) << 8;
		if (ev == 0x076)
			return 1;
		return ev == 0x0c0 ? 2 : 64;
	}
	if ((ev == 0x3c && umask == 0x00) || (ev == 0x00 && umask == 0x03))
		return 1;
	return ev == 0xc0 ? 2 : 64;
}
