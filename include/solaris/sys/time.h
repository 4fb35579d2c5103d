/* SPDX-License-Identifier: MIT */
/*
 * libcpc's Solaris header overlay: <sys/time.h> as on Solaris, the C
 * library's own plus gethrtime() and hrtime_t (<sys/cpc_gethrtime.h>).
 * Used when the program is compiled with the overlay's directory before
 * the system's ("pkg-config --cflags libcpc-solaris", which gives
 * -isystem <includedir>/libcpc-solaris); other programs see the C
 * library's <sys/time.h> unchanged.  See libcpc(3LIB).
 *
 * Part of libcpc for Linux (-lcpc).
 */
#include_next <sys/time.h>

#ifndef _LIBCPC_SOLARIS_SYS_TIME_H
#define _LIBCPC_SOLARIS_SYS_TIME_H
#include <sys/cpc_gethrtime.h>
#endif
