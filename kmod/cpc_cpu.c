// SPDX-License-Identifier: GPL-2.0-only
/*
 * Processor contexts of /dev/cpc: counting on one processor, every task
 * that runs there (libcpc's cpc_bind_cpu, cpc_shared_*, cpustat), with
 * perf's CPU-wide kernel counters, one per request, pinned.
 *
 * Who may: CAP_PERFMON (or CAP_SYS_ADMIN), as perf's own rule for
 * CPU-wide counters wherever perf_event_paranoid forbids them to users;
 * and, where the administrator sets the parameter cpu_access (the
 * analogue of granting Solaris's cpc_cpu privilege), everyone who may
 * open the device (cpc_main.c checks, as for bindings, kernel mode
 * against allow_system).  perf applies its own rule for CPU-wide counters
 * (perf_allow_cpu(): perf_event_paranoid > 0 needs CAP_PERFMON) to kernel
 * counters too, with the caller's credentials: for a caller the module
 * admits through cpu_access, the counters are created under credentials
 * that add CAP_PERFMON and nothing else, for the creation only.
 *
 * With Solaris, binding a processor takes its counters from the LWPs
 * that run there, whose contexts are invalidated (EAGAIN at their next
 * sample).  perf schedules a processor's pinned counters before any
 * task's, and a task's pinned counter that finds no room stays in error
 * state: the module's bindings read EIO (EAGAIN in libcpc) from then on,
 * never wrong counts.  Software counters are not limited and never
 * conflict.
 *
 * A file keeps its processor contexts on a list (a file binds a few
 * processors); the file lock serialises them.  Each is charged to the
 * opener like a binding, without a thread (cpc_acct.c).
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

#include "cpc.h"
#include "cpc_acct.h"
#include "cpc_cpu.h"
#include "cpc_perf.h"
#include "cpc_set.h"

/**
 * struct kcpc_cpuctx - a processor context of a file
 * @node: in the file's cpus
 * @cpu: the processor
 * @nreqs: number of requests
 * @ev: the counters; NULL for a request that counts nothing
 * @preset: the presets
 * @acct: its charge
 */
struct kcpc_cpuctx {
	struct list_head node;
	int cpu;
	unsigned int nreqs;
	struct perf_event *ev[CPC_KMOD_MAX_REQS];
	u64 preset[CPC_KMOD_MAX_REQS];
	struct kcpc_acct acct;
};

static struct kcpc_cpuctx *kcpc_cpu_find(struct kcpc_file *cf, int cpu)
{
	struct kcpc_cpuctx *cc;

	list_for_each_entry(cc, &cf->cpus, node)
		if (cc->cpu == cpu)
			return cc;
	return NULL;
}

static void kcpc_cpu_free(struct kcpc_cpuctx *cc)
{
	unsigned int i;

	for (i = 0; i < cc->nreqs; i++)
		if (cc->ev[i])
			perf_event_release_kernel(cc->ev[i]);
	kfree(cc);
}

static void kcpc_cpu_drop(struct kcpc_cpuctx *cc)
{
	list_del(&cc->node);
	kcpc_acct_uncharge(&cc->acct);
	kcpc_cpu_free(cc);
}

static unsigned int kcpc_cpu_counters(const struct cpc_kbind *kb)
{
	unsigned int i, n = 0;

	for (i = 0; i < kb->nreqs; i++)
		if (kb->req[i].flags & (CPC_KREQ_USER | CPC_KREQ_SYSTEM))
			n++;
	return n;
}

/*
 * The credentials that create a processor's counters for a caller the
 * module admitted without CAP_PERFMON (the administrator's cpu_access):
 * the caller's own, with CAP_PERFMON added to the effective set.  NULL
 * with *err 0 where the caller has it already.
 */
static struct cred *kcpc_cpu_creds(int *err)
{
	struct cred *cr;

	*err = 0;
	if (perfmon_capable())
		return NULL;
	cr = prepare_creds();
	if (!cr) {
		*err = -ENOMEM;
		return NULL;
	}
	cap_raise(cr->cap_effective, CAP_PERFMON);
	return cr;
}

/**
 * kcpc_cpu_bind() - count @kb's requests on processor @kb->tid
 * @cf: the file
 * @kb: validated requests without overflow notification (access checked:
 *      CAP_PERFMON, or the administrator's cpu_access)
 *
 * Replaces the file's context of that processor; if the new counters
 * cannot be created, the old ones stay.
 *
 * Return: 0, -EINVAL for a processor that is not online, -EAGAIN past
 * the opener's limits, or perf's error.
 */
int kcpc_cpu_bind(struct kcpc_file *cf, const struct cpc_kbind *kb)
{
	struct perf_event_attr attr;
	struct kcpc_cpuctx *cc, *old;
	const struct cred *was = NULL;
	struct cred *cr;
	int cpu = kb->tid, err;
	unsigned int i;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	cr = kcpc_cpu_creds(&err);
	if (err)
		return err;
	cc = kzalloc(sizeof(*cc), GFP_KERNEL_ACCOUNT);
	if (!cc) {
		if (cr)
			put_cred(cr);
		return -ENOMEM;
	}
	cc->cpu = cpu;
	cc->nreqs = kb->nreqs;

	mutex_lock(&cf->lock);
	old = kcpc_cpu_find(cf, cpu);
	err = kcpc_acct_charge(&cc->acct, cf->user, NULL,
			       kcpc_cpu_counters(kb), old ? &old->acct : NULL);
	if (err) {
		mutex_unlock(&cf->lock);
		kfree(cc);
		if (cr)
			put_cred(cr);
		return err;
	}
	if (cr)
		was = override_creds(cr);
	for (i = 0; i < kb->nreqs; i++) {
		const struct cpc_kreq *r = &kb->req[i];
		struct perf_event *ev;

		cc->preset[i] = r->preset;
		if (!(r->flags & (CPC_KREQ_USER | CPC_KREQ_SYSTEM)))
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = kcpc_perf_type(r->kind);
		attr.config = r->config;
		attr.pinned = 1;
		attr.exclude_hv = 1;
		attr.exclude_user = !(r->flags & CPC_KREQ_USER);
		attr.exclude_kernel = !(r->flags & CPC_KREQ_SYSTEM);
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL,
						      NULL);
		if (IS_ERR(ev)) {
			err = PTR_ERR(ev);
			break;
		}
		cc->ev[i] = ev;
	}
	if (cr) {
		revert_creds(was);
		put_cred(cr);
	}
	if (err) {
		kcpc_acct_uncharge(&cc->acct);
		kcpc_cpu_free(cc);
		mutex_unlock(&cf->lock);
		return err;
	}
	if (old)
		kcpc_cpu_drop(old);
	list_add(&cc->node, &cf->cpus);
	mutex_unlock(&cf->lock);
	return 0;
}

/**
 * kcpc_cpu_sample() - read the file's context of a processor
 * @cf: the file
 * @cpu: the processor
 * @ks: receives nreqs, vals and ontime_ns (the time it counted)
 *
 * Return: 0, -EINVAL if the file does not count that processor, or -EIO
 * if a counter could not be scheduled (another CPU-wide pinned counter
 * holds the PMU).
 */
int kcpc_cpu_sample(struct kcpc_file *cf, int cpu, struct cpc_ksample *ks)
{
	struct kcpc_cpuctx *cc;
	bool first = true;
	unsigned int i;
	int err = -EINVAL;

	mutex_lock(&cf->lock);
	cc = kcpc_cpu_find(cf, cpu);
	if (cc) {
		err = 0;
		ks->nreqs = cc->nreqs;
		for (i = 0; i < cc->nreqs; i++) {
			u64 enabled = 0, running;

			ks->vals[i] = cc->preset[i];
			if (!cc->ev[i])
				continue;
			ks->vals[i] += perf_event_read_value(cc->ev[i],
							     &enabled,
							     &running);
			if (first)
				ks->ontime_ns = enabled;
			first = false;
			if (kcpc_perf_state(cc->ev[i]) ==
			    PERF_EVENT_STATE_ERROR)
				err = -EIO;
		}
	}
	mutex_unlock(&cf->lock);
	return err;
}

/**
 * kcpc_cpu_rele() - release the file's context of a processor
 * @cf: the file
 * @cpu: the processor
 *
 * Return: 0, or -EINVAL if the file does not count that processor.
 */
int kcpc_cpu_rele(struct kcpc_file *cf, int cpu)
{
	struct kcpc_cpuctx *cc;

	mutex_lock(&cf->lock);
	cc = kcpc_cpu_find(cf, cpu);
	if (cc)
		kcpc_cpu_drop(cc);
	mutex_unlock(&cf->lock);
	return cc ? 0 : -EINVAL;
}

/**
 * kcpc_cpu_destroy_all() - release every processor context of a file
 * @cf: the file, being released
 */
void kcpc_cpu_destroy_all(struct kcpc_file *cf)
{
	struct kcpc_cpuctx *cc, *tmp;

	mutex_lock(&cf->lock);
	list_for_each_entry_safe(cc, tmp, &cf->cpus, node)
		kcpc_cpu_drop(cc);
	mutex_unlock(&cf->lock);
}
