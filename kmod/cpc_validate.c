// SPDX-License-Identifier: GPL-2.0-only
/*
 * Validation of every byte that user space passes to /dev/cpc.
 *
 * The rules are those of uapi/cpc_kmod.h: `abi` must be CPC_KMOD_ABI,
 * every reserved field and every request past `nreqs` must be zero, only
 * known flag bits may be set, and each request must name an event of a
 * known kind with a config that the kind allows.  Anything else is EINVAL.
 */
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/perf_event.h>
#include <linux/signal.h>
#include <linux/string.h>

#include "cpc_validate.h"

/* The layout is the ABI: no padding may hide unchecked bytes. */
static_assert(sizeof(struct cpc_kreq) == 40);
static_assert(sizeof(struct cpc_kbind) == 32 + 40 * CPC_KMOD_MAX_REQS);
static_assert(sizeof(struct cpc_ksample) == 40 + 8 * CPC_KMOD_MAX_REQS);
static_assert(sizeof(struct cpc_ktarget) == 16);
static_assert(sizeof(struct cpc_kinfo) == 32);
static_assert(sizeof(struct cpc_kpage) == 64 + 12 * CPC_KMOD_MAX_REQS);
/* Solaris' SIGEMT is SIGSTKFLT on x86 Linux. */
static_assert(CPC_KMOD_SIGEMT == SIGSTKFLT);

static int kcpc_validate_software(u64 config)
{
	switch (config) {
	case PERF_COUNT_SW_CPU_CLOCK:
	case PERF_COUNT_SW_TASK_CLOCK:
	case PERF_COUNT_SW_PAGE_FAULTS:
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
	case PERF_COUNT_SW_CPU_MIGRATIONS:
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
	case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
	case PERF_COUNT_SW_ALIGNMENT_FAULTS:
	case PERF_COUNT_SW_EMULATION_FAULTS:
		return 0;
	default:
		return -EINVAL;
	}
}

static int kcpc_validate_hw_cache(u64 config)
{
	u64 id = config & 0xff;
	u64 op = (config >> 8) & 0xff;
	u64 result = (config >> 16) & 0xff;

	if (config >> 24)
		return -EINVAL;
	if (id >= PERF_COUNT_HW_CACHE_MAX ||
	    op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	return 0;
}

static int kcpc_validate_req(const struct cpc_kreq *r, bool group)
{
	if (r->flags & ~CPC_KREQ_ALL)
		return -EINVAL;
	if (r->reserved[0] || r->reserved[1])
		return -EINVAL;
	/* A group aggregate only sums: no presets, no overflow signal. */
	if (group && (r->preset || (r->flags & CPC_KREQ_OVF_EMT)))
		return -EINVAL;

	switch (r->kind) {
	case CPC_KEV_RAW_X86:
		return (r->config & ~CPC_KMOD_RAW_X86_MASK) ? -EINVAL : 0;
	case CPC_KEV_SOFTWARE:
		return kcpc_validate_software(r->config);
	case CPC_KEV_HARDWARE:
		return r->config < PERF_COUNT_HW_MAX ? 0 : -EINVAL;
	case CPC_KEV_HW_CACHE:
		return kcpc_validate_hw_cache(r->config);
	default:
		return -EINVAL;
	}
}

/**
 * kcpc_validate_bind() - check a CPC_KIOC_BIND or CPC_KIOC_GROUP_OPEN
 * @kb: the structure copied from user space
 * @group: true for CPC_KIOC_GROUP_OPEN
 *
 * Return: 0 or -EINVAL.
 */
int kcpc_validate_bind(const struct cpc_kbind *kb, bool group)
{
	unsigned int i;
	int err;

	if (kb->abi != CPC_KMOD_ABI)
		return -EINVAL;
	if (kb->flags & ~CPC_KBIND_ALL)
		return -EINVAL;
	/* A group aggregate never starts frozen: it has nothing to freeze. */
	if (group && kb->flags)
		return -EINVAL;
	if (kb->tid < 0)
		return -EINVAL;
	if (kb->reserved[0] || kb->reserved[1])
		return -EINVAL;
	if (kb->nreqs < 1 || kb->nreqs > CPC_KMOD_MAX_REQS)
		return -EINVAL;

	for (i = 0; i < kb->nreqs; i++) {
		err = kcpc_validate_req(&kb->req[i], group);
		if (err)
			return err;
	}
	if (kb->nreqs < CPC_KMOD_MAX_REQS &&
	    memchr_inv(&kb->req[kb->nreqs], 0,
		       (CPC_KMOD_MAX_REQS - kb->nreqs) * sizeof(kb->req[0])))
		return -EINVAL;
	return 0;
}

/**
 * kcpc_validate_sample() - check a CPC_KIOC_SAMPLE or CPC_KIOC_GROUP_SAMPLE
 * @ks: the structure copied from user space
 *
 * Only abi, tid and reserved are inputs; the other fields are overwritten.
 *
 * Return: 0 or -EINVAL.
 */
int kcpc_validate_sample(const struct cpc_ksample *ks)
{
	if (ks->abi != CPC_KMOD_ABI || ks->tid < 0)
		return -EINVAL;
	if (ks->reserved[0] || ks->reserved[1])
		return -EINVAL;
	return 0;
}

/**
 * kcpc_validate_target() - check a CPC_KIOC_RELE, _RESTART or _GROUP_CLOSE
 * @kt: the structure copied from user space
 *
 * Return: 0 or -EINVAL.
 */
int kcpc_validate_target(const struct cpc_ktarget *kt)
{
	if (kt->abi != CPC_KMOD_ABI || kt->tid < 0 || kt->reserved)
		return -EINVAL;
	return 0;
}

/**
 * kcpc_bind_counts_system() - does a (valid) binding count in kernel mode?
 * @kb: a structure that passed kcpc_validate_bind()
 *
 * Return: true if any request has CPC_KREQ_SYSTEM.
 */
bool kcpc_bind_counts_system(const struct cpc_kbind *kb)
{
	unsigned int i;

	for (i = 0; i < kb->nreqs; i++)
		if (kb->req[i].flags & CPC_KREQ_SYSTEM)
			return true;
	return false;
}
