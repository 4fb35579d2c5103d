// SPDX-License-Identifier: GPL-2.0-only
/*
 * Build-time probes of the kernel simpmu is built for.  Kbuild compiles
 * this file once per probe, with -DSIMPMU_PROBE_<NAME> and the module's
 * own flags, against the target kernel's headers, and writes
 * simpmu_have.h into the build directory: SIMPMU_HAVE_<NAME> is defined
 * when the probe compiled.  Never part of the module.
 */
#include <linux/hrtimer.h>
#include <linux/build_bug.h>
#include <linux/module.h>
#include <linux/sysfs.h>

int simpmu_probe(void *p);

/* The compiler and headers work at all (else the build stops). */
#ifdef SIMPMU_PROBE_SANITY
int simpmu_probe(void *p)
{
	return p != NULL;
}
#endif

/*
 * hrtimer_setup(timer, function, clock, mode) (6.13; hrtimer_init, which
 * leaves the function to the caller, is gone from 6.15).
 */
#ifdef SIMPMU_PROBE_HRTIMER_SETUP
static enum hrtimer_restart simpmu_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

int simpmu_probe(void *p)
{
	hrtimer_setup(p, simpmu_probe_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	return 0;
}
#endif

/*
 * Binary sysfs attributes are const to their read method and in their
 * group (6.16; 6.13 to 6.15 have both forms, and the old one is used).
 */
#ifdef SIMPMU_PROBE_BIN_ATTR_CONST
typedef ssize_t (*simpmu_probe_read_t)(struct file *, struct kobject *,
				       const struct bin_attribute *, char *,
				       loff_t, size_t);

int simpmu_probe(void *p)
{
	struct attribute_group *g = p;
	struct bin_attribute *a = p;

	BUILD_BUG_ON(!__same_type(a->read, simpmu_probe_read_t));
	BUILD_BUG_ON(!__same_type(g->bin_attrs,
				  const struct bin_attribute *const *));
	return 0;
}
#endif
