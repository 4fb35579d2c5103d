/* SPDX-License-Identifier: (GPL-2.0-only WITH Linux-syscall-note) OR MIT */
/*
 * The user/kernel ABI of the libcpc kernel module: a misc device,
 * /dev/cpc, giving each thread virtualised 64-bit counters with Solaris
 * libcpc semantics.  Shared by the module (kmod/) and libcpc's kmod
 * backend.  See cpc(4).
 *
 * Every structure starts with `abi` (CPC_KMOD_ABI) and has reserved
 * fields that must be zero; the module rejects anything else with EINVAL.
 */
#ifndef _UAPI_CPC_KMOD_H
#define _UAPI_CPC_KMOD_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define CPC_KMOD_DEVICE "/dev/cpc"
#define CPC_KMOD_ABI 1
#define CPC_KMOD_MAX_REQS 16

/* Request flags (the values of CPC_OVF_NOTIFY_EMT, CPC_COUNT_USER/SYSTEM). */
#define CPC_KREQ_OVF_EMT 0x1	/* SIGEMT when the count passes 2^64-1 */
#define CPC_KREQ_USER 0x2	/* count in user mode */
#define CPC_KREQ_SYSTEM 0x4	/* count in kernel mode (see cpc(4)) */
#define CPC_KREQ_ALL (CPC_KREQ_OVF_EMT | CPC_KREQ_USER | CPC_KREQ_SYSTEM)

/* Event kinds and what `config` holds for each. */
#define CPC_KEV_RAW_X86 1	/* x86 event select: event 0-7, umask 8-15,
				 * edge 18, inv 23, cmask 24-31, AMD extended
				 * event 32-35; no other bit */
#define CPC_KEV_SOFTWARE 2	/* PERF_COUNT_SW_CPU_CLOCK .. _EMULATION_FAULTS */
#define CPC_KEV_HARDWARE 3	/* PERF_COUNT_HW_* (generic) */
#define CPC_KEV_HW_CACHE 4	/* id | op << 8 | result << 16 */

/*
 * The x86 event-select bits a CPC_KEV_RAW_X86 request may set: event
 * select (0-7), unit mask (8-15), edge detect (18), invert (23), counter
 * mask (24-31) and the AMD extended event select (32-35).  USR, OS, INT,
 * EN, ANY and PC (16, 17, 19, 20, 21, 22) belong to the kernel, as does
 * the rest.
 */
#define CPC_KMOD_RAW_X86_MASK \
	(0xffffULL | 1ULL << 18 | 1ULL << 23 | 0xffULL << 24 | 0xfULL << 32)

/*
 * The overflow signal: Solaris' SIGEMT is SIGSTKFLT (16) on x86 Linux,
 * with si_code EMT_CPCOVF (1) and si_addr the user PC at the overflow.
 */
#define CPC_KMOD_SIGEMT 16
#define CPC_KMOD_EMT_CPCOVF 1

struct cpc_kreq {
	__u32 kind;		/* CPC_KEV_* */
	__u32 flags;		/* CPC_KREQ_* */
	__u64 config;
	__u64 preset;		/* the count starts here, mod 2^64 */
	__u64 reserved[2];	/* must be 0 */
};

/* Bind flags. */
#define CPC_KBIND_START_FROZEN 0x1	/* counters start stopped */
#define CPC_KBIND_ALL CPC_KBIND_START_FROZEN

/*
 * CPC_KIOC_BIND: replaces the target thread's binding with these requests.
 * CPC_KIOC_GROUP_OPEN: (re)opens the target thread's group aggregate:
 * counters that also count every thread it creates afterwards (and their
 * threads), live or exited; presets and CPC_KREQ_OVF_EMT are not allowed.
 */
struct cpc_kbind {
	__u32 abi;		/* CPC_KMOD_ABI */
	__u32 flags;		/* CPC_KBIND_* */
	__s32 tid;		/* 0: the calling thread */
	__u32 nreqs;		/* 1 .. CPC_KMOD_MAX_REQS */
	__u64 reserved[2];	/* must be 0 */
	struct cpc_kreq req[CPC_KMOD_MAX_REQS];	/* nreqs used, rest 0 */
};

/* Sample flags (out). */
#define CPC_KSAMPLE_FROZEN 0x1	/* stopped by an overflow */

/*
 * CPC_KIOC_SAMPLE: the target's counts (preset + events since bind).
 * CPC_KIOC_GROUP_SAMPLE: the sums of its group aggregate.
 */
struct cpc_ksample {
	__u32 abi;		/* in: CPC_KMOD_ABI */
	__s32 tid;		/* in: 0 for the calling thread */
	__u32 nreqs;		/* out */
	__u32 flags;		/* out: CPC_KSAMPLE_* */
	__u64 ontime_ns;	/* out: on-CPU time since bind (group: summed) */
	__u64 vals[CPC_KMOD_MAX_REQS];	/* out */
	__u64 reserved[2];	/* in: must be 0 */
};

/* CPC_KIOC_RELE, CPC_KIOC_GROUP_CLOSE, CPC_KIOC_RESTART: which thread. */
struct cpc_ktarget {
	__u32 abi;		/* CPC_KMOD_ABI */
	__s32 tid;		/* 0: the calling thread */
	__u64 reserved;		/* must be 0 */
};

/* Capabilities (struct cpc_kinfo). */
#define CPC_KCAP_OVERFLOW 0x1	/* SIGEMT on overflow */
#define CPC_KCAP_HW_PMU 0x2	/* the kernel has a hardware PMU */
#define CPC_KCAP_CPU 0x4	/* CPC_KIOC_CPU_* (processor contexts) */

struct cpc_kinfo {
	__u32 abi;		/* out: CPC_KMOD_ABI */
	__u32 max_reqs;		/* out: CPC_KMOD_MAX_REQS */
	__u32 caps;		/* out: CPC_KCAP_* */
	__u32 signo;		/* out: CPC_KMOD_SIGEMT */
	__u64 reserved[2];	/* out: 0 */
};

/*
 * The state page: mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) maps the
 * calling thread's page (it must be bound; a rebind keeps the page).  The
 * module rewrites it at bind, at each CPC_KIOC_SAMPLE, when an overflow
 * freezes the counters and, with CPC_KPAGE_TIME, each time the thread is
 * scheduled in, under the sequence counter: read seq (even), the fields,
 * then seq again, and retry if it changed.  index[i] is the rdpmc counter
 * number + 1 of request i when user space may read the counter itself, or
 * 0 (always 0 in this version, whose counters are perf kernel counters).
 *
 * time_flags & CPC_KPAGE_TIME: for the thread the page belongs to only,
 * while it runs, the counts of the requests in time_mask (bit i: request
 * i) and ontime_ns advance with its on-CPU time: each is its field plus
 * ((rdtsc() - time_tsc) * time_mult) >> time_shift nanoseconds (a 128-bit
 * product), the TSC read between the two reads of seq; the other
 * requests' counts are vals[i] as they are.  The result is at most
 * time_slack_ns + 1 below and 1 above what CPC_KIOC_SAMPLE would read at
 * that moment (the module reads the kernel's clock, then the TSC).
 * Without CPC_KPAGE_TIME, vals and ontime_ns are as of the last update:
 * use CPC_KIOC_SAMPLE for current counts, unless flags has
 * CPC_KSAMPLE_FROZEN: an overflow froze the counters (the module writes
 * the page before it sends SIGEMT), and vals and ontime_ns are what
 * CPC_KIOC_SAMPLE reads until a bind or CPC_KIOC_RESTART runs them again.
 */
#define CPC_KPAGE_TIME 0x1

struct cpc_kpage {
	__u32 seq;
	__u32 nreqs;
	__u32 flags;		/* CPC_KSAMPLE_* */
	__u32 reserved0;
	__u32 index[CPC_KMOD_MAX_REQS];
	__u64 vals[CPC_KMOD_MAX_REQS];	/* counts as of the last update */
	__u64 ontime_ns;
	__u64 updates;		/* number of updates since bind */
	__u32 time_flags;	/* CPC_KPAGE_TIME */
	__u32 time_mask;	/* requests that advance with on-CPU time */
	__u32 time_mult;
	__u32 time_shift;
	__u64 time_tsc;		/* the TSC when vals and ontime_ns were taken */
	__u64 time_slack_ns;	/* the clock's and the TSC's reads apart */
};

#define CPC_KIOC_TYPE 0xCF
#define CPC_KIOC_INFO _IOR(CPC_KIOC_TYPE, 0, struct cpc_kinfo)
#define CPC_KIOC_BIND _IOW(CPC_KIOC_TYPE, 1, struct cpc_kbind)
#define CPC_KIOC_SAMPLE _IOWR(CPC_KIOC_TYPE, 2, struct cpc_ksample)
#define CPC_KIOC_RELE _IOW(CPC_KIOC_TYPE, 3, struct cpc_ktarget)
#define CPC_KIOC_RESTART _IOW(CPC_KIOC_TYPE, 4, struct cpc_ktarget)
#define CPC_KIOC_GROUP_OPEN _IOW(CPC_KIOC_TYPE, 5, struct cpc_kbind)
#define CPC_KIOC_GROUP_SAMPLE _IOWR(CPC_KIOC_TYPE, 6, struct cpc_ksample)
#define CPC_KIOC_GROUP_CLOSE _IOW(CPC_KIOC_TYPE, 7, struct cpc_ktarget)

/*
 * Processor contexts (CPC_KCAP_CPU): counting on one processor, every
 * task that runs there, as perf's CPU-wide counters.  `tid` is the
 * processor's number.  CPC_KIOC_CPU_BIND takes a struct cpc_kbind
 * (presets allowed; no CPC_KREQ_OVF_EMT, no bind flags) and replaces the
 * file's binding of that processor; CPC_KIOC_CPU_SAMPLE reads it (struct
 * cpc_ksample; ontime_ns: the time it counted), CPC_KIOC_CPU_RELE
 * releases it (struct cpc_ktarget).  Allowed to CAP_PERFMON (or
 * CAP_SYS_ADMIN), and to everyone who may open the device where the
 * administrator sets the module parameter cpu_access; EACCES otherwise.
 * Its hardware counters come first: a thread's binding that loses its
 * counters to them reads EIO (its counts are invalid) from then on.
 */
#define CPC_KIOC_CPU_BIND _IOW(CPC_KIOC_TYPE, 8, struct cpc_kbind)
#define CPC_KIOC_CPU_SAMPLE _IOWR(CPC_KIOC_TYPE, 9, struct cpc_ksample)
#define CPC_KIOC_CPU_RELE _IOW(CPC_KIOC_TYPE, 10, struct cpc_ktarget)

#endif /* _UAPI_CPC_KMOD_H */
