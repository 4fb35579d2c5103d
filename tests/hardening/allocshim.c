/* SPDX-License-Identifier: MIT */
/* A malloc interposer for the tests: see allocshim.h. */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "allocshim.h"

/*
 * Not instrumented by AddressSanitizer: its runtime calls malloc and free
 * while it initialises, before the shadow memory that instrumented code
 * reads exists.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SHIM __attribute__((no_sanitize_address))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SHIM __attribute__((no_sanitize_address))
#endif
#endif
#ifndef SHIM
#define SHIM
#endif

/* The next definitions, found on first use. */
static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int (*next_posix_memalign)(void **, size_t, size_t);
static void *(*next_aligned_alloc)(size_t, size_t);
static void *(*next_memalign)(size_t, size_t);
static void *(*next_valloc)(size_t);

/*
 * dlsym itself may allocate before the next functions are known: those
 * few blocks come from here and are never given back.
 */
static _Alignas(16) unsigned char boot_arena[16384];
static size_t boot_used;
static int resolving;

SHIM static void *boot_alloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n > sizeof(boot_arena) - boot_used)
		return NULL;
	void *p = boot_arena + boot_used;
	boot_used += n;
	return p;	/* static storage: already zero */
}

SHIM static int in_arena(const void *p)
{
	return (const unsigned char *)p >= boot_arena &&
	    (const unsigned char *)p < boot_arena + sizeof(boot_arena);
}

SHIM static void resolve(void)
{
	if (next_free != NULL || resolving)
		return;
	resolving = 1;
	next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	next_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(
	    RTLD_NEXT, "posix_memalign");
	next_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT,
	    "aligned_alloc");
	next_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	next_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
	next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	resolving = 0;
}

/* ------------------------------------------------------------ the window */

static atomic_flag lock = ATOMIC_FLAG_INIT;
static int armed;
static long calls, failures, fail_at = -1;
static int sticky;
static const char *first_caller;

/* Blocks allocated while armed: an open-addressing set of pointers. */
#define TRACK_SLOTS 16384
static void *tracked[TRACK_SLOTS];
static long live;
static void *const TOMBSTONE = (void *)&tracked;

SHIM static void take(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

SHIM static void give(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

SHIM static size_t slot_of(const void *p)
{
	uintptr_t h = (uintptr_t)p;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 7) % TRACK_SLOTS;
}

SHIM static void track_add(void *p)
{
	for (size_t i = slot_of(p), k = 0; k < TRACK_SLOTS;
	     i = (i + 1) % TRACK_SLOTS, k++)
		if (tracked[i] == NULL || tracked[i] == TOMBSTONE) {
			tracked[i] = p;
			live++;
			return;
		}
}

SHIM static void track_del(void *p)
{
	for (size_t i = slot_of(p), k = 0; k < TRACK_SLOTS && tracked[i] != NULL;
	     i = (i + 1) % TRACK_SLOTS, k++)
		if (tracked[i] == p) {
			tracked[i] = TOMBSTONE;
			live--;
			return;
		}
}

/* Before an allocation: 1 if it must fail. */
SHIM static int before(const char *fn)
{
	int fail = 0;
	take();
	if (armed) {
		if (calls == 0)
			first_caller = fn;
		if (fail_at >= 0 &&
		    (calls == fail_at || (sticky && calls > fail_at))) {
			fail = 1;
			failures++;
		}
		calls++;
	}
	give();
	return fail;
}

/* After an allocation that succeeded. */
SHIM static void after(void *p, void *old)
{
	take();
	if (old != NULL)
		track_del(old);
	if (armed && p != NULL)
		track_add(p);
	give();
}

SHIM void alloc_arm(long at, int stick)
{
	take();
	memset(tracked, 0, sizeof(tracked));
	live = 0;
	calls = failures = 0;
	fail_at = at;
	sticky = stick;
	first_caller = NULL;
	armed = 1;
	give();
}

SHIM void alloc_disarm(void)
{
	take();
	armed = 0;
	give();
}

SHIM long alloc_calls(void)
{
	return calls;
}

SHIM long alloc_failures(void)
{
	return failures;
}

SHIM long alloc_live(void)
{
	return live;
}

SHIM long alloc_reclaim(void)
{
	long n = 0;
	take();
	for (size_t i = 0; i < TRACK_SLOTS; i++)
		if (tracked[i] != NULL && tracked[i] != TOMBSTONE) {
			if (next_free != NULL)
				next_free(tracked[i]);
			tracked[i] = TOMBSTONE;
			n++;
		}
	live = 0;
	give();
	return n;
}

SHIM const char *alloc_first_caller(void)
{
	return first_caller != NULL ? first_caller : "(none)";
}

/* ----------------------------------------------------- the interposers */

SHIM void *malloc(size_t n)
{
	resolve();
	if (next_malloc == NULL)
		return boot_alloc(n);
	if (before("malloc")) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = next_malloc(n);
	after(p, NULL);
	return p;
}

SHIM void *calloc(size_t n, size_t size)
{
	resolve();
	if (next_calloc == NULL)
		return size != 0 && n > SIZE_MAX / size ? NULL
							 : boot_alloc(n * size);
	if (before("calloc")) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = next_calloc(n, size);
	after(p, NULL);
	return p;
}

SHIM void *realloc(void *old, size_t n)
{
	resolve();
	if (in_arena(old)) {
		/* Moves a bootstrap block to the real heap. */
		size_t avail = (size_t)(boot_arena + sizeof(boot_arena) -
		    (unsigned char *)old);
		void *p = malloc(n);
		if (p != NULL)
			memcpy(p, old, n < avail ? n : avail);
		return p;
	}
	if (next_realloc == NULL)
		return NULL;
	if (before("realloc")) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = next_realloc(old, n);
	if (p != NULL || n == 0)
		after(p, old);
	return p;
}

SHIM void free(void *p)
{
	if (p == NULL || in_arena(p))
		return;
	/* Not resolved yet: p cannot be ours (malloc resolves first). */
	take();
	track_del(p);
	give();
	if (next_free != NULL)
		next_free(p);
}

SHIM int posix_memalign(void **out, size_t align, size_t n)
{
	resolve();
	if (next_posix_memalign == NULL)
		return ENOMEM;
	if (before("posix_memalign"))
		return ENOMEM;
	int rc = next_posix_memalign(out, align, n);
	if (rc == 0)
		after(*out, NULL);
	return rc;
}

SHIM void *aligned_alloc(size_t align, size_t n)
{
	resolve();
	if (next_aligned_alloc == NULL || before("aligned_alloc")) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = next_aligned_alloc(align, n);
	after(p, NULL);
	return p;
}

SHIM void *memalign(size_t align, size_t n)
{
	resolve();
	if (next_memalign == NULL || before("memalign")) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = next_memalign(align, n);
	after(p, NULL);
	return p;
}

SHIM void *valloc(size_t n)
{
	resolve();
	if (next_valloc == NULL || before("valloc")) {
		errno = ENOMEM;
		return NULL;
	}
	void *p = next_valloc(n);
	after(p, NULL);
	return p;
}

/* Through malloc above, so that they count and fail like it. */
SHIM char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

SHIM char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *p = malloc(n + 1);
	if (p != NULL) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}
