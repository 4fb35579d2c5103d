/* SPDX-License-Identifier: MIT */
/*
 * The processor bindings of the process (cpc_bind_cpu): which set has
 * which processor, bound by which LWP, and the affinity that LWP had
 * before its first binding.  The last unbind of an LWP's bindings
 * restores that affinity whatever the order; an earlier one pins the LWP
 * to the processor of its latest remaining binding.  The processor is
 * taken from cpc_shared_open's descriptors as well (__cpc_cpu_claim).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpuctx.h"
#include "v2.h"

#define MAX_CPU_BINDINGS 256

static struct cpu_binding {
	const cpc_set_t *set;	/* NULL: a free slot */
	pid_t tid;		/* the LWP that bound (and was pinned) */
	int cpu;
	unsigned long seq;	/* order of binding */
	cpu_set_t original;	/* tid's affinity before its first binding */
} bindings[MAX_CPU_BINDINGS];
static unsigned long binding_seq;
static pthread_mutex_t bindings_lock = PTHREAD_MUTEX_INITIALIZER;

static pid_t self_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* The latest binding of tid other than `except`, or NULL; lock held. */
static struct cpu_binding *latest_of(pid_t tid, const cpc_set_t *except)
{
	struct cpu_binding *best = NULL;
	for (int i = 0; i < MAX_CPU_BINDINGS; i++) {
		struct cpu_binding *b = &bindings[i];
		if (b->set != NULL && b->set != except && b->tid == tid &&
		    (best == NULL || b->seq > best->seq))
			best = b;
	}
	return best;
}

int v2_cpu_lwp_has_binding(const cpc_set_t *except)
{
	pthread_mutex_lock(&bindings_lock);
	int has = latest_of(self_tid(), except) != NULL;
	pthread_mutex_unlock(&bindings_lock);
	return has;
}

void v2_cpu_forget(const cpc_set_t *set)
{
	pthread_mutex_lock(&bindings_lock);
	for (int i = 0; i < MAX_CPU_BINDINGS; i++) {
		struct cpu_binding *b = &bindings[i];
		if (b->set != set)
			continue;
		struct cpu_binding *rest = latest_of(b->tid, set);
		if (rest != NULL) {
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(rest->cpu, &one);
			(void)sched_setaffinity(b->tid, sizeof(one), &one);
		} else {
			/* Every binding of tid holds the same original. */
			(void)sched_setaffinity(b->tid, sizeof(b->original),
			    &b->original);
		}
		__cpc_cpu_unclaim(b->cpu);
		b->set = NULL;
	}
	pthread_mutex_unlock(&bindings_lock);
}

int v2_cpu_claim(const cpc_set_t *set, int cpu)
{
	int rc = 0;
	pid_t tid = self_tid();
	pthread_mutex_lock(&bindings_lock);
	struct cpu_binding *slot = NULL, *prev = latest_of(tid, set);
	for (int i = 0; i < MAX_CPU_BINDINGS && rc == 0; i++) {
		if (bindings[i].set != NULL && bindings[i].cpu == cpu)
			rc = -EAGAIN;
		else if (bindings[i].set == NULL && slot == NULL)
			slot = &bindings[i];
	}
	if (rc == 0 && slot == NULL)
		rc = -EAGAIN;
	/* Also against cpc_shared_open's processors. */
	int claimed = rc == 0 && (rc = __cpc_cpu_claim(cpu)) == 0;
	if (rc == 0) {
		if (prev != NULL)
			slot->original = prev->original;
		else if (sched_getaffinity(0, sizeof(slot->original),
			     &slot->original) != 0)
			rc = -errno;
	}
	if (rc == 0) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one) != 0)
			rc = -errno;
	}
	if (rc == 0) {
		slot->set = set;
		slot->tid = tid;
		slot->cpu = cpu;
		slot->seq = ++binding_seq;
	} else if (claimed) {
		__cpc_cpu_unclaim(cpu);
	}
	pthread_mutex_unlock(&bindings_lock);
	return rc;
}
