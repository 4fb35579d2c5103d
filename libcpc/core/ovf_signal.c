/* The SIGEMT handler that turns backend notifications into Solaris SIGEMT. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "libcpc.h"
#include "lwpctx.h"
#include "ovf_signal.h"

/* The application's SIGEMT action, called by the library's handler. */
static struct sigaction app_action;

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
	struct sigaction app = app_action;

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
	/* The default action: let the kernel carry it out. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGEMT, &dfl, NULL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGEMT);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGEMT);
}

static void emt_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	(void)sig;

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
	errno = saved;
}

int __cpc_ovf_signal_arm(void)
{
	struct sigaction cur;

	if (sigaction(SIGEMT, NULL, &cur) != 0)
		return -errno;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == emt_handler)
		return 0;
	app_action = cur;
	struct sigaction mine;
	memset(&mine, 0, sizeof(mine));
	mine.sa_sigaction = emt_handler;
	mine.sa_mask = cur.sa_mask;
	mine.sa_flags = (cur.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
	if (sigaction(SIGEMT, &mine, NULL) != 0)
		return -errno;
	return 0;
}
