// SPDX-License-Identifier: GPL-2.0-only
/*
 * simpmu_log.c: /sys/kernel/simpmu/, the record tests read:
 *
 *   info   (0444) "vendor=intel|amd counters=N mhz=M icount_shift=S\n"
 *   log    (0444) the last SIMPMU_LOG_LINES event_init calls, oldest
 *                 first, one line each:
 *     type=<u32> config=0x<hex> raw=0x<hex> excl_user=<0|1>
 *     excl_kernel=<0|1> period=<u64> pinned=<0|1> group=<n> rc=<int>
 *                 (one line, single spaces; see README.md).  A binary
 *                 attribute, so all 64 lines fit (a sysfs text
 *                 attribute has one page); sysfs reads it a page at a
 *                 time and each read() formats the record anew, so the
 *                 pages of one cat are consistent only if no event is
 *                 opened meanwhile.
 *   clear  (0200) writing anything empties the log.
 */
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "simpmu.h"

#define SIMPMU_LOG_LINES 64
/* The longest line: every field at its widest, plus the newline. */
#define SIMPMU_LINE_MAX 200

struct simpmu_entry {
	u64 config, raw, period;
	u32 type;
	int group, rc;
	u8 excl_user, excl_kernel, pinned;
};

static DEFINE_SPINLOCK(log_lock);
static struct simpmu_entry log_ring[SIMPMU_LOG_LINES];
static unsigned int log_next;	/* next slot to write */
static unsigned int log_count;	/* entries held, <= SIMPMU_LOG_LINES */
static struct kobject *simpmu_kobj;

void simpmu_log_add(const struct perf_event *event, u64 raw, int group,
		    int rc)
{
	const struct perf_event_attr *attr = &event->attr;
	struct simpmu_entry e = {
		.type = attr->type,
		.config = attr->config,
		.raw = raw,
		.period = attr->sample_period,
		.excl_user = attr->exclude_user,
		.excl_kernel = attr->exclude_kernel,
		.pinned = attr->pinned,
		.group = group,
		.rc = rc,
	};
	unsigned long flags;

	spin_lock_irqsave(&log_lock, flags);
	log_ring[log_next] = e;
	log_next = (log_next + 1) % SIMPMU_LOG_LINES;
	if (log_count < SIMPMU_LOG_LINES)
		log_count++;
	spin_unlock_irqrestore(&log_lock, flags);
}

/* The whole log as text in a new buffer; its length in *len. */
static char *log_format(size_t *len)
{
	struct simpmu_entry *snap;
	unsigned int n, first, i;
	unsigned long flags;
	size_t size, off = 0;
	char *buf;

	snap = kmalloc_array(SIMPMU_LOG_LINES, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return NULL;
	spin_lock_irqsave(&log_lock, flags);
	n = log_count;
	first = (log_next + SIMPMU_LOG_LINES - n) % SIMPMU_LOG_LINES;
	for (i = 0; i < n; i++)
		snap[i] = log_ring[(first + i) % SIMPMU_LOG_LINES];
	spin_unlock_irqrestore(&log_lock, flags);

	size = (size_t)n * SIMPMU_LINE_MAX + 1;
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf) {
		kfree(snap);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const struct simpmu_entry *e = &snap[i];

		off += scnprintf(buf + off, size - off,
				 "type=%u config=0x%llx raw=0x%llx excl_user=%u excl_kernel=%u period=%llu pinned=%u group=%d rc=%d\n",
				 e->type, e->config, e->raw, e->excl_user,
				 e->excl_kernel, e->period, e->pinned,
				 e->group, e->rc);
	}
	kfree(snap);
	*len = off;
	return buf;
}

/* sysfs hands binary attributes out const from 6.16 on (probe). */
#ifdef SIMPMU_HAVE_BIN_ATTR_CONST
#define SIMPMU_BIN_CONST const
#else
#define SIMPMU_BIN_CONST
#endif

static ssize_t log_read(struct file *file, struct kobject *kobj,
			SIMPMU_BIN_CONST struct bin_attribute *attr, char *out,
			loff_t pos, size_t count)
{
	size_t len;
	char *text = log_format(&len);

	if (!text)
		return -ENOMEM;
	if (pos < 0 || pos >= len) {
		count = 0;
	} else {
		count = min_t(size_t, count, len - pos);
		memcpy(out, text + pos, count);
	}
	kfree(text);
	return count;
}

static struct bin_attribute log_attr = {
	.attr = { .name = "log", .mode = 0444 },
	.size = 0,
	.read = log_read,
};

static ssize_t info_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "vendor=%s counters=%u mhz=%u icount_shift=%d\n",
			  simpmu_vendor == SIMPMU_AMD ? "amd" : "intel",
			  simpmu_counters, simpmu_mhz, simpmu_icount_shift);
}

static ssize_t clear_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	unsigned long flags;

	spin_lock_irqsave(&log_lock, flags);
	log_next = 0;
	log_count = 0;
	spin_unlock_irqrestore(&log_lock, flags);
	return count;
}

static struct kobj_attribute info_attr = __ATTR_RO(info);
static struct kobj_attribute clear_attr = __ATTR_WO(clear);

static struct attribute *simpmu_attrs[] = {
	&info_attr.attr,
	&clear_attr.attr,
	NULL,
};

static SIMPMU_BIN_CONST struct bin_attribute *SIMPMU_BIN_CONST simpmu_bin_attrs[] = {
	&log_attr,
	NULL,
};

static const struct attribute_group simpmu_group = {
	.attrs = simpmu_attrs,
	.bin_attrs = simpmu_bin_attrs,
};

int simpmu_log_init(void)
{
	int rc;

	simpmu_kobj = kobject_create_and_add("simpmu", kernel_kobj);
	if (!simpmu_kobj)
		return -ENOMEM;
	rc = sysfs_create_group(simpmu_kobj, &simpmu_group);
	if (rc) {
		kobject_put(simpmu_kobj);
		simpmu_kobj = NULL;
	}
	return rc;
}

void simpmu_log_exit(void)
{
	if (!simpmu_kobj)
		return;
	sysfs_remove_group(simpmu_kobj, &simpmu_group);
	kobject_put(simpmu_kobj);
	simpmu_kobj = NULL;
}
