/* SPDX-License-Identifier: MIT */
/*
 * The Solaris names of the saved program counter and stack pointer in
 * uc_mcontext.gregs[]: PC, USP and SP (the old <sys/reg.h> names) and
 * REG_PC and REG_SP (<sys/regset.h>).  On Solaris they come with
 * <ucontext.h> in the default compilation mode, and signal handlers
 * written for Solaris, such as Example 2 of cpc_bind_event(3CPC), index
 * gregs[] with them.  glibc has only REG_RIP/REG_RSP (REG_EIP/REG_UESP
 * on i386), and only with _GNU_SOURCE; the values here are the same
 * indices.
 *
 * <libcpc.h> includes this header.  Define _LIBCPC_NO_REGSET_NAMES before
 * including it to leave these names free for the program's own use.
 *
 * Part of libcpc for Linux.
 */
#ifndef _SYS_CPC_REGSET_H
#define _SYS_CPC_REGSET_H

#if !defined(_LIBCPC_NO_REGSET_NAMES)
#if defined(__x86_64__)
#define _LIBCPC_GREG_PC 16 /* glibc REG_RIP */
#define _LIBCPC_GREG_SP 15 /* glibc REG_RSP */
#elif defined(__i386__)
#define _LIBCPC_GREG_PC 14 /* glibc REG_EIP */
#define _LIBCPC_GREG_SP 17 /* glibc REG_UESP */
#endif

#ifdef _LIBCPC_GREG_PC
#ifndef REG_PC
#define REG_PC _LIBCPC_GREG_PC
#endif
#ifndef REG_SP
#define REG_SP _LIBCPC_GREG_SP
#endif
#ifndef PC
#define PC _LIBCPC_GREG_PC
#endif
#ifndef USP
#define USP _LIBCPC_GREG_SP
#endif
#ifndef SP
#define SP _LIBCPC_GREG_SP
#endif
#endif
#endif

#endif /* _SYS_CPC_REGSET_H */
