/* SPDX-License-Identifier: MIT */
/*
 * kctx_test's helpers (kctx_test.c), shared with kctx_acct.c.
 */
#ifndef KCTX_TEST_H
#define KCTX_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpc_kmod.h"

/* One "ok"/"not ok" line (counted as a failure) or a "skip" line. */
void result(int ok, const char *name, const char *detail);
void skip(const char *name, const char *why);

/* /dev/cpc opened read-write (-1 with errno). */
int open_dev(void);
/* A binding of @tid with no requests yet; request @i of it. */
void bind_init(struct cpc_kbind *kb, pid_t tid);
void req(struct cpc_kbind *kb, unsigned i, uint32_t kind, uint64_t config,
    uint32_t flags, uint64_t preset);
/* An ioctl taking a struct cpc_ktarget: its errno (0: done). */
int target(int fd, unsigned long cmd, pid_t tid);
/* A module parameter's (or another file's) value: 0 or -1. */
int write_file(const char *path, const char *val);
int read_file(const char *path, char *buf, size_t n);

void test_m2_userns(void);
void test_m1_inherit(void);

#endif
