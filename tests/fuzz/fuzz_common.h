/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets of tests/fuzz/ ("make fuzz") and by
 * their replay in "make check" (tests/test_fuzz_replay.c).
 *
 * A target defines FUZZ_ENTRY(data, size), which is
 * LLVMFuzzerTestOneInput unless the includer renames it, and uses only
 * the public interfaces.  A violated property aborts (FUZZ_CHECK), which
 * libFuzzer reports as a crash with the input saved.
 */
#ifndef TESTS_FUZZ_COMMON_H
#define TESTS_FUZZ_COMMON_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libcpc.h>

#ifndef FUZZ_ENTRY
#define FUZZ_ENTRY LLVMFuzzerTestOneInput
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif

#define FUZZ_CHECK(cond, ...)                                               \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "fuzz property failed: %s: ", #cond);\
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			abort();                                            \
		}                                                           \
	} while (0)

/* The input as a C string (an embedded NUL ends it early). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Error messages are formatted (so that a bad format or argument shows)
 * and dropped.
 */
static inline void fuzz_quiet_v1(const char *fn, const char *fmt, va_list ap)
{
	char buf[2048];
	(void)fn;
	vsnprintf(buf, sizeof(buf), fmt, ap);
}

static inline void fuzz_quiet_v2(const char *fn, int subcode, const char *fmt,
    va_list ap)
{
	char buf[2048];
	(void)fn, (void)subcode;
	vsnprintf(buf, sizeof(buf), fmt, ap);
}

static inline void fuzz_ignore_signal(int sig)
{
	(void)sig;
}

/* Once per process: quiet errors, and overflow signals that do no harm. */
static inline void fuzz_setup(void)
{
	static int done;
	if (done)
		return;
	done = 1;
	cpc_seterrfn(fuzz_quiet_v1);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fuzz_ignore_signal;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGEMT, &sa, NULL);
}

/* The handle of the current interfaces the targets share. */
static inline cpc_t *fuzz_cpc(void)
{
	static cpc_t *cpc;
	if (cpc == NULL) {
		cpc = cpc_open(CPC_VER_CURRENT);
		if (cpc == NULL) {
			perror("cpc_open");
			abort();
		}
		cpc_seterrhndlr(cpc, fuzz_quiet_v2);
	}
	return cpc;
}

/* The cpuvers of the version 1 parser, chosen by one input byte. */
static inline int fuzz_cpuver(uint8_t selector)
{
	static const int cpuvers[] = { CPC_PENTIUM, CPC_PENTIUM_MMX,
		CPC_PENTIUM_PRO, CPC_PENTIUM_PRO_MMX, CPC_AMD64, CPC_LINUX_PERF,
		CPC_ULTRA1, -1 };
	unsigned i = selector % 9u;
	return i < 8 ? cpuvers[i] : cpc_getcpuver();
}

/* Reads a little-endian 64-bit value of up to 8 bytes. */
static inline uint64_t fuzz_u64(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

#endif
