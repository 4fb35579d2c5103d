#!/bin/sh
# SPDX-License-Identifier: MIT
# The public headers compile warning-free as C11, gnu89 and C++, alone and
# with the transitive includes Solaris programs rely on.
set -eu
: "${top_srcdir:=.}" "${CC:=cc}" "${CXX:=c++}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc="-I$top_srcdir/include"

cat > "$tmp/t.c" <<'SRC'
#include <libcpc.h>
/* Transitive includes: no <string.h>, <signal.h> or <ucontext.h> here. */
int use(cpc_event_t *ev, int sig)
{
	char buf[8];
	memset(buf, 0, sizeof(buf));
	switch (sig) {
	case SIGEMT:
		return (int)ev->ce_pic[0] + EMT_CPCOVF + (int)CPC_TICKREG(ev);
	default:
		return (int)sizeof(ucontext_t) + (int)cpc_getnpic(ev->ce_cpuver);
	}
}
SRC
cat > "$tmp/posix.c" <<'SRC'
#include <libcpc.h>
static void handler(int sig, siginfo_t *si, void *uc)
{
	cpc_event_t ev;
	(void)sig; (void)uc;
	if (si->si_code == EMT_CPCOVF)
		(void)cpc_take_sample(&ev);
}
int install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	return sigaction(SIGEMT, &sa, NULL) + (int)gethrtime() + (int)_lwp_self();
}
SRC
# hrtime_t is long long, as on Solaris: %lld and long long * take it.
cat > "$tmp/hrtime.c" <<'SRC'
#include <stdio.h>
#include <libcpc.h>
void show(cpc_event_t *ev)
{
	hrtime_t t = gethrtime();
	long long *p = &t;
	long long *q = &ev->ce_hrt;
	printf("%lld %lld %lld\n", gethrtime(), *p, *q);
}
SRC
# The Solaris gregs[] index names come with <libcpc.h>, equal glibc's, and
# _LIBCPC_NO_REGSET_NAMES leaves them to the program.
cat > "$tmp/regs.c" <<'SRC'
#include <libcpc.h>
#if defined(__x86_64__)
_Static_assert(PC == REG_RIP && USP == REG_RSP && SP == REG_RSP, "amd64");
#else
_Static_assert(PC == REG_EIP && USP == REG_UESP && SP == REG_UESP, "i386");
#endif
_Static_assert(REG_PC == PC && REG_SP == USP, "REG_PC/REG_SP");
long pc_of(ucontext_t *uap) { return (long)uap->uc_mcontext.gregs[PC]; }
SRC
cat > "$tmp/noregs.c" <<'SRC'
#define _LIBCPC_NO_REGSET_NAMES
#include <libcpc.h>
int PC, USP, SP, REG_PC, REG_SP;
SRC
$CC $inc -D_GNU_SOURCE -std=c11 -Wall -Wextra -Werror -c "$tmp/regs.c" -o "$tmp/r.o"
$CC $inc -Wall -Wextra -Werror -c "$tmp/noregs.c" -o "$tmp/r.o"
for f in libcpc.h libcpc_group.h libpctx.h sys/cpc_event.h sys/cpc_impl.h sys/cpc_solaris.h sys/cpc_regset.h \
    sys/processor.h sys/procset.h sys/pset.h sys/cpc_gethrtime.h sys/lwp.h; do
	printf '#include <%s>\n#include <%s>\nint x;\n' "$f" "$f" > "$tmp/alone.c"
	$CC $inc -std=c11 -Wall -Wextra -Werror -pedantic -c "$tmp/alone.c" -o "$tmp/a.o"
done
$CC $inc -std=c11 -Wall -Wextra -Werror -c "$tmp/t.c" -o "$tmp/t.o"
$CC $inc -std=c11 -Wall -Wextra -Werror -pedantic -c "$tmp/t.c" -o "$tmp/t.o"
$CC $inc -std=gnu89 -Wall -Wextra -Werror -c "$tmp/t.c" -o "$tmp/t.o"
$CC $inc -std=c11 -Wall -Wextra -Werror -pedantic -c "$tmp/hrtime.c" -o "$tmp/h.o"
$CC $inc -std=gnu11 -Wall -Wextra -Werror -c "$tmp/posix.c" -o "$tmp/p.o"
$CC $inc -std=gnu89 -Wall -Wextra -Werror -c "$tmp/posix.c" -o "$tmp/p.o"

# Solaris programs the headers must not break (issue 21).
nofn="-Wall -Wextra -Werror -Werror=implicit-function-declaration"
# uperf: its configure found no hrtime_t on Linux and made it a macro.
cat > "$tmp/macros.c" <<'SRC'
#include <stdint.h>
#define hrtime_t uint64_t
#define uint_t unsigned int
#define processorid_t int
#include <libcpc.h>
hrtime_t now(void) { return gethrtime(); }
uint_t npic(void) { return cpc_getnpic(cpc_getcpuver()); }
SRC
# Solaris 10's <libcpc.h> brings <sys/processor.h>.
cat > "$tmp/pbind.c" <<'SRC'
#include <libcpc.h>
int pin(processorid_t cpu)
{
	processorid_t old;
	if (processor_bind(P_LWPID, P_MYID, cpu, &old) != 0)
		return -1;
	return processor_bind(P_LWPID, P_MYID, PBIND_NONE, NULL);
}
SRC
# sigset, interposed by libcpc, declared in every mode (illumos's cputrack).
cat > "$tmp/sigset.c" <<'SRC'
#include <libcpc.h>
static void intr(int sig) { (void)sig; }
int hold(void)
{
	return sigset(SIGINT, intr) == SIG_ERR || sigset(SIGEMT, SIG_HOLD) == SIG_ERR;
}
SRC
# _lwp_self in <sys/lwp.h>, as Solaris declares it; nothing of libcpc else.
cat > "$tmp/lwp.c" <<'SRC'
#include <sys/lwp.h>
long me(void) { return (long)_lwp_self(); }
SRC
# gethrtime in <sys/time.h> through the overlay (libcpc-solaris.pc), the
# C library's <sys/time.h> still whole; a 64-bit value, not an int.
cat > "$tmp/hrt.c" <<'SRC'
#include <sys/time.h>
_Static_assert(sizeof(gethrtime()) == 8, "64 bits");
long long since(struct timeval *tv)
{
	gettimeofday(tv, 0);
	return (long long)gethrtime() + (long long)tv->tv_sec;
}
SRC
for std in c11 gnu11 gnu89; do
	$CC $inc -std=$std $nofn -c "$tmp/macros.c" -o "$tmp/m.o"
	$CC $inc -std=$std $nofn -c "$tmp/pbind.c" -o "$tmp/m.o"
	$CC $inc -std=$std $nofn -Wno-deprecated-declarations -c "$tmp/sigset.c" -o "$tmp/m.o"
	$CC $inc -std=$std $nofn -pedantic -c "$tmp/lwp.c" -o "$tmp/m.o"
done
$CC $inc -isystem "$top_srcdir/include/solaris" -std=c11 $nofn -c "$tmp/hrt.c" -o "$tmp/m.o"
$CC $inc -isystem "$top_srcdir/include/solaris" -std=gnu11 $nofn -c "$tmp/hrt.c" -o "$tmp/m.o"

if command -v "$CXX" >/dev/null 2>&1; then
	cp "$tmp/t.c" "$tmp/t.cc"
	cp "$tmp/posix.c" "$tmp/posix.cc"
	$CXX $inc -Wall -Wextra -Werror -c "$tmp/t.cc" -o "$tmp/t.o"
	$CXX $inc -Wall -Wextra -Werror -c "$tmp/posix.cc" -o "$tmp/p.o"
	$CXX $inc -std=c++11 -Wall -Wextra -Werror -pedantic -c "$tmp/t.cc" -o "$tmp/t.o"
else
	echo "headers.sh: no C++ compiler ($CXX): C++ check not run" >&2
	exit 1
fi
echo "headers: C11, gnu89, C++ clean"
