// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static-key anchors.
 *
 * The kernel enables the code of each software event kind (page faults,
 * context switches, ...) with a static key, which it live-patches into
 * kernel text whenever the number of such events goes from 0 to 1 or
 * back: a system-wide text_poke with three synchronising IPIs to every
 * CPU.  Binding and releasing would do that over and over (and under
 * qemu's TCG it can even hang the guest).  So while the module is loaded,
 * one disabled CPU-bound counter of each kind keeps its key enabled.
 * They are created at load, by root, so no request of a user ever
 * creates or releases one.  The price: while the module is loaded, the
 * software-event hooks of the kernel look for counters (and find none
 * for threads nobody counts).
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "cpc_anchor.h"

static struct perf_event *kcpc_anchor[PERF_COUNT_SW_MAX];

/**
 * kcpc_anchors_create() - create the anchors (at module load)
 *
 * A kind the kernel refuses gets no anchor; binding still works for it,
 * at the price of text patching.
 */
void kcpc_anchors_create(void)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned int i;
	int cpu;

	cpu = get_cpu();
	put_cpu();
	for (i = 0; i < PERF_COUNT_SW_MAX; i++) {
		/* The clocks have their own PMUs and no static key. */
		if (i == PERF_COUNT_SW_CPU_CLOCK ||
		    i == PERF_COUNT_SW_TASK_CLOCK)
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = i;
		attr.disabled = 1;
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL,
						      NULL);
		if (!IS_ERR(ev))
			kcpc_anchor[i] = ev;
	}
}

/**
 * kcpc_anchors_release() - release the anchors (at module unload)
 */
void kcpc_anchors_release(void)
{
	unsigned int i;

	for (i = 0; i < PERF_COUNT_SW_MAX; i++) {
		if (kcpc_anchor[i]) {
			perf_event_release_kernel(kcpc_anchor[i]);
			kcpc_anchor[i] = NULL;
		}
	}
}
