/* SPDX-License-Identifier: MIT */
/*
 * The SIGEMT handler that turns backend notifications into Solaris SIGEMT,
 * and the interposers that keep it in front of the application's own.
 *
 * Once a binding asks for overflow notification, the library's handler is
 * SIGEMT's action in the kernel for the rest of the process's life.  The
 * application's action (set before or after, with sigaction, signal,
 * bsd_signal, sysv_signal or sigset) is kept here, reported back by
 * sigaction, and called by the library's handler with the Solaris siginfo.
 * SIG_IGN, SIG_DFL, SA_SIGINFO, SA_RESETHAND, SA_NODEFER, SA_RESTART,
 * SA_ONSTACK and sa_mask keep their meaning: the kernel registration
 * carries the application's mask and flags.
 *
 * Everything here is async-signal-safe: a change of the application's
 * action is published by writing a fresh slot and switching an atomic
 * index, under a spin lock taken with every signal blocked (so that no
 * handler can run on a thread that holds it).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "libcpc.h"
#include "lwpctx.h"
#include "ovf_signal.h"

/* glibc's own sigaction, reached without going through our interposer. */
extern int __sigaction(int sig, const struct sigaction *act,
    struct sigaction *old);

typedef void (*handler_fn)(int);

/* The application's SIGEMT action: slots[cur] (see the top of the file). */
#define NSLOTS 16
static struct sigaction slots[NSLOTS];
static atomic_uint cur;
static atomic_int armed;	/* the library's handler is installed */
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void emt_handler(int sig, siginfo_t *si, void *uc);

static void app_action(struct sigaction *out)
{
	*out = slots[atomic_load_explicit(&cur, memory_order_acquire) % NSLOTS];
}

/* Takes the lock with all signals blocked; restores *saved at unlock. */
static void lock_all(sigset_t *saved)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, saved);
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
		;
}

static void unlock_all(const sigset_t *saved)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/*
 * The kernel registration of the library's handler for the application
 * action app: the application's mask and flags, and as on Solaris no
 * blocking of SIGEMT in a handler that resets itself.
 */
static int register_handler(const struct sigaction *app)
{
	struct sigaction mine;
	memset(&mine, 0, sizeof(mine));
	mine.sa_sigaction = emt_handler;
	mine.sa_mask = app->sa_mask;
	mine.sa_flags = SA_SIGINFO |
	    (app->sa_flags & (SA_RESTART | SA_ONSTACK | SA_NODEFER));
	if (app->sa_flags & SA_RESETHAND)
		mine.sa_flags |= SA_NODEFER;
	return __sigaction(SIGEMT, &mine, NULL);
}

/* Publishes act as the application's action; with the lock held. */
static int set_app_action(const struct sigaction *act)
{
	if (register_handler(act) != 0)
		return -1;
	unsigned next = (atomic_load_explicit(&cur, memory_order_relaxed) + 1) %
	    NSLOTS;
	slots[next] = *act;
	atomic_store_explicit(&cur, next, memory_order_release);
	return 0;
}

/*
 * Set while the library's handler runs the application's: a bind from
 * there (the usual rebind after an overflow) finds the library's handler
 * installed without asking the kernel (the kernel is running it).
 */
static __thread int in_handler __attribute__((tls_model("initial-exec")));

static void *interrupted_pc(const void *ucv)
{
	const ucontext_t *uc = ucv;
	if (uc == NULL)
		return NULL;
#if defined(__x86_64__)
	return (void *)uc->uc_mcontext.gregs[REG_RIP];
#else
	return (void *)uc->uc_mcontext.gregs[REG_EIP];
#endif
}

/* Runs the application's action for SIGEMT with the given siginfo. */
static void deliver(siginfo_t *si, void *uc)
{
	struct sigaction app;
	app_action(&app);

	if (app.sa_flags & SA_RESETHAND) {
		/* Reset to SIG_DFL on entry, as the kernel would. */
		struct sigaction dfl;
		sigset_t saved;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		lock_all(&saved);
		(void)set_app_action(&dfl);
		unlock_all(&saved);
	}
	if (app.sa_flags & SA_SIGINFO) {
		if (app.sa_sigaction != NULL)
			app.sa_sigaction(SIGEMT, si, uc);
		return;
	}
	if (app.sa_handler == SIG_IGN)
		return;
	if (app.sa_handler != SIG_DFL && app.sa_handler != NULL) {
		app.sa_handler(SIGEMT);
		return;
	}
	/*
	 * The default action (the process ends): let the kernel carry it
	 * out.  Should the process survive it, the library's handler is put
	 * back.
	 */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	__sigaction(SIGEMT, &dfl, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGEMT);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGEMT);
	(void)register_handler(&app);
}

static void emt_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	(void)sig;

	/*
	 * The application's action runs inside this handler, whether for
	 * an overflow of the library's own or for a Solaris SIGEMT the
	 * kernel module sent itself: a rebind from there asks nothing of
	 * the kernel.
	 */
	in_handler++;
	switch (__cpc_lwp_overflow(si)) {
	case CPC_OVF_NEW: {
		siginfo_t info;
		memset(&info, 0, sizeof(info));
		info.si_signo = SIGEMT;
		info.si_code = EMT_CPCOVF;
		info.si_addr = interrupted_pc(uc);
		deliver(&info, uc);
		break;
	}
	case CPC_OVF_DUPLICATE:	/* Solaris posts one SIGEMT per freeze */
	case CPC_OVF_STALE:	/* for counters being replaced */
		break;
	default:
		deliver(si, uc);
		break;
	}
	in_handler--;
	errno = saved;
}

int __cpc_ovf_signal_arm(void)
{
	struct sigaction cur_k;
	sigset_t saved;
	int rc = 0;

	/*
	 * Inside our handler, ours is the installed action (a bind from
	 * there, the usual rebind after an overflow, asks nothing of the
	 * kernel).
	 */
	if (in_handler > 0)
		return 0;
	lock_all(&saved);
	if (__sigaction(SIGEMT, NULL, &cur_k) != 0) {
		rc = -errno;
	} else if (!((cur_k.sa_flags & SA_SIGINFO) &&
		       cur_k.sa_sigaction == emt_handler)) {
		/*
		 * The kernel holds the application's action: set before the
		 * first arming, or since by a way around the interposers.
		 */
		if (set_app_action(&cur_k) != 0)
			rc = -errno;
		else
			atomic_store(&armed, 1);
	}
	unlock_all(&saved);
	return rc;
}

/* ------------------------------------------------------------ interposers */

/*
 * sigaction for SIGEMT: the kernel's own until the library's handler is
 * armed, then the application's action kept here (under the lock, so
 * that an arming on another thread cannot slip in between).
 */
static int emt_sigaction(const struct sigaction *act, struct sigaction *old)
{
	sigset_t saved;
	int rc = 0, err = 0;
	struct sigaction prev;
	lock_all(&saved);
	if (!atomic_load(&armed)) {
		rc = __sigaction(SIGEMT, act, old);
		err = errno;
		unlock_all(&saved);
		errno = err;
		return rc;
	}
	app_action(&prev);
	if (act != NULL)
		rc = set_app_action(act);
	err = errno;
	unlock_all(&saved);
	if (rc != 0) {
		errno = err;
		return -1;
	}
	if (old != NULL)
		*old = prev;
	return 0;
}

__attribute__((visibility("default"))) int sigaction(int sig,
    const struct sigaction *act, struct sigaction *old)
{
	if (sig == SIGEMT)
		return emt_sigaction(act, old);
	return __sigaction(sig, act, old);
}

/* The handler of a previous action, as signal() returns it. */
static handler_fn old_handler(const struct sigaction *o)
{
	return (o->sa_flags & SA_SIGINFO) ? (handler_fn)(void *)o->sa_sigaction
					  : o->sa_handler;
}

static handler_fn set_handler(int sig, handler_fn h, int flags, int self_mask)
{
	struct sigaction act, old;
	if (h == SIG_ERR || sig < 1 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = h;
	sigemptyset(&act.sa_mask);
	if (self_mask)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old_handler(&old);
}

/* glibc's functions, for the signals that are not SIGEMT. */
static handler_fn (*real_signal)(int, handler_fn);
static handler_fn (*real_sysv_signal)(int, handler_fn);
static handler_fn (*real_sigset)(int, handler_fn);

#if defined(__x86_64__)
#define SIG_VERSION "GLIBC_2.2.5"
#else
#define SIG_VERSION "GLIBC_2.0"
#endif

__attribute__((constructor(101))) static void ovf_signal_init(void)
{
	real_signal = (handler_fn(*)(int, handler_fn))dlvsym(RTLD_NEXT,
	    "signal", SIG_VERSION);
	real_sysv_signal = (handler_fn(*)(int, handler_fn))dlvsym(RTLD_NEXT,
	    "__sysv_signal", SIG_VERSION);
	real_sigset = (handler_fn(*)(int, handler_fn))dlvsym(RTLD_NEXT,
	    "sigset", SIG_VERSION);
}

/* BSD semantics (glibc's signal and bsd_signal). */
static handler_fn bsd_signal_impl(int sig, handler_fn h)
{
	if (sig == SIGEMT || real_signal == NULL)
		return set_handler(sig, h, SA_RESTART, 1);
	return real_signal(sig, h);
}

/* System V semantics (signal in strict ISO C modes: __sysv_signal). */
static handler_fn sysv_signal_impl(int sig, handler_fn h)
{
	if (sig == SIGEMT || real_sysv_signal == NULL)
		return set_handler(sig, h, SA_RESETHAND | SA_NODEFER, 0);
	return real_sysv_signal(sig, h);
}

__attribute__((visibility("default"))) handler_fn signal(int sig,
    handler_fn h)
{
	return bsd_signal_impl(sig, h);
}

__attribute__((visibility("default"))) handler_fn bsd_signal(int sig,
    handler_fn h)
{
	return bsd_signal_impl(sig, h);
}

handler_fn __sysv_signal(int sig, handler_fn h);
handler_fn sysv_signal(int sig, handler_fn h);

__attribute__((visibility("default"))) handler_fn __sysv_signal(int sig,
    handler_fn h)
{
	return sysv_signal_impl(sig, h);
}

__attribute__((visibility("default"))) handler_fn sysv_signal(int sig,
    handler_fn h)
{
	return sysv_signal_impl(sig, h);
}

/*
 * System V sigset: SIG_HOLD blocks the signal; any other disposition is
 * set and unblocks it.  Returns SIG_HOLD if the signal was blocked, else
 * the previous disposition.
 */
__attribute__((visibility("default"))) handler_fn sigset(int sig,
    handler_fn h)
{
	if (sig != SIGEMT && real_sigset != NULL)
		return real_sigset(sig, h);
	if (h == SIG_ERR || sig < 1 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigset_t one, was;
	sigemptyset(&one);
	sigaddset(&one, sig);
	struct sigaction old;
	if (sigaction(sig, NULL, &old) != 0 ||
	    pthread_sigmask(SIG_BLOCK, NULL, &was) != 0)
		return SIG_ERR;
	int held = sigismember(&was, sig) == 1;
	if (h == SIG_HOLD) {
		pthread_sigmask(SIG_BLOCK, &one, NULL);
		return held ? SIG_HOLD : old_handler(&old);
	}
	if (set_handler(sig, h, 0, 0) == SIG_ERR)
		return SIG_ERR;
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	return held ? SIG_HOLD : old_handler(&old);
}
