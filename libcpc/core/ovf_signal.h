/* SPDX-License-Identifier: MIT */
/*
 * Delivery of counter-overflow SIGEMT in Solaris form: the library's
 * handler recognises the backend's notification, freezes the LWP's
 * counters, rewrites the siginfo (si_code EMT_CPCOVF, si_addr = the
 * interrupted PC) and calls the application's SIGEMT action.
 */
#ifndef LIBCPC_OVF_SIGNAL_H
#define LIBCPC_OVF_SIGNAL_H

/*
 * Installs the library's SIGEMT handler in front of the application's
 * current action (which it keeps and calls); from then on the interposed
 * sigaction, signal, bsd_signal, sysv_signal and sigset keep it there.
 * Done at every bind that asks for overflow notification, so that an
 * action set around the interposers is picked up.  0 or -errno.
 * Async-signal-safe.
 */
int __cpc_ovf_signal_arm(void);

#endif
