/* SPDX-License-Identifier: MIT */
/*
 * A malloc interposer for the test programs that link tests/allocshim.c:
 * counts heap allocations, fails them on demand, and tracks the blocks
 * allocated while armed, to prove "no allocation" and "no leak".
 *
 * Interposed: malloc, calloc, realloc, free, strdup, strndup,
 * posix_memalign, aligned_alloc, memalign, valloc.  Each forwards to the
 * next definition (glibc's, or a sanitizer's), so it works in plain,
 * AddressSanitizer and valgrind builds alike.  Not thread-aware beyond
 * being safe: arm it around single-threaded code.
 */
#ifndef TESTS_ALLOCSHIM_H
#define TESTS_ALLOCSHIM_H

#include <stddef.h>

/*
 * Starts a window: counts allocation calls from zero, forgets earlier
 * failures and tracked blocks.  fail_at >= 0 fails the allocation of
 * that number (0: the first) in the window, and with sticky every one
 * after it too; fail_at < 0 fails none.
 */
void alloc_arm(long fail_at, int sticky);

/* Ends the window: nothing fails or is counted any more. */
void alloc_disarm(void);

/* Allocation calls in the current (or last) window. */
long alloc_calls(void);

/* Allocations made to fail in the current (or last) window. */
long alloc_failures(void);

/* Blocks allocated in the window and not freed yet (leaks so far). */
long alloc_live(void);

/*
 * Frees the blocks allocated in the last window that are still live, and
 * returns how many there were: for a known leak of the library, so that
 * it does not show again in valgrind or LeakSanitizer.
 */
long alloc_reclaim(void);

/* The name of the allocator function of the first allocation in the window. */
const char *alloc_first_caller(void);

#endif
