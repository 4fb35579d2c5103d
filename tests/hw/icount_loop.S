/* SPDX-License-Identifier: MIT */
/*
 * Work of a known instruction count for tests/hw/test_hw_icount.c
 * (x86-64 only; n >= 1).  Do not change the instruction sequences
 * without the constants and the byte offsets there.
 *
 * hw_icount_loop(n): mov, then n iterations of 4 instructions (nop, nop,
 * dec %r8, jnz), then ret; the body starts at hw_icount_body.
 * hw_icount_sysloop(n): mov, then n iterations of 6 user instructions
 * (mov, syscall getppid, nop, nop, dec %r8, jnz), then ret.
 * hw_icount_sysloop12(n): the same with 6 more nops: 12 user
 * instructions per iteration.
 */
#ifdef __x86_64__
	.text
	.globl	hw_icount_loop
	.type	hw_icount_loop, @function
hw_icount_loop:
	movq	%rdi, %r8
	.globl	hw_icount_body
hw_icount_body:
	nop
	nop
	decq	%r8
	jnz	hw_icount_body
	.globl	hw_icount_body_end
hw_icount_body_end:
	ret
	.size	hw_icount_loop, . - hw_icount_loop

	.globl	hw_icount_sysloop
	.type	hw_icount_sysloop, @function
hw_icount_sysloop:
	movq	%rdi, %r8
1:
	movl	$110, %eax	/* __NR_getppid */
	syscall
	nop
	nop
	decq	%r8
	jnz	1b
	ret
	.size	hw_icount_sysloop, . - hw_icount_sysloop

	.globl	hw_icount_sysloop12
	.type	hw_icount_sysloop12, @function
hw_icount_sysloop12:
	movq	%rdi, %r8
1:
	movl	$110, %eax	/* __NR_getppid */
	syscall
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	nop
	decq	%r8
	jnz	1b
	ret
	.size	hw_icount_sysloop12, . - hw_icount_sysloop12
#endif

	.section .note.GNU-stack, "", @progbits
