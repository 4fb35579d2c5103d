/* SPDX-License-Identifier: MIT */
/*
 * What libpctx asks the kernel about a traced thread: ptrace event
 * messages, wait statuses, /proc status and arguments, the system call
 * a stopped thread is in.
 */
#include "pctx_impl.h"

/* ------------------------------------------------------------ ptrace */

void __pctx_resume(struct lwp *l, int sig)
{
	if (!l->stopped || l->dead)
		return;
	l->stopped = 0;
	(void)ptrace(PTRACE_CONT, l->tid, NULL, (void *)(long)sig);
}

unsigned long __pctx_event_msg(pid_t tid)
{
	unsigned long msg = 0;
	(void)ptrace(PTRACE_GETEVENTMSG, tid, NULL, &msg);
	return msg;
}

int __pctx_is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	    sig == SIGTTOU;
}

/* The status an exit callback receives: exit code, or 128 + signal. */
int __pctx_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

/* Reads one line "Key:\tvalue" of /proc/<pid>/task/<tid>/status. */
static int task_status(pid_t pid, pid_t tid, const char *key, char *val,
    size_t n)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid,
	    (int)tid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int found = -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			const char *v = line + klen + 1;
			v += strspn(v, " \t");
			snprintf(val, n, "%s", v);
			found = 0;
			break;
		}
	fclose(f);
	return found;
}

/* The thread group a task belongs to, or -1. */
pid_t __pctx_task_tgid(pid_t tid)
{
	char v[32];
	if (task_status(tid, tid, "Tgid", v, sizeof(v)) != 0)
		return -1;
	return (pid_t)strtol(v, NULL, 10);
}

/*
 * Is thread tid of pid on its way out with the rest of the process: gone,
 * a zombie, or with SIGKILL pending (what exit_group, exec and fatal
 * signals send to the other threads)?
 */
int __pctx_task_dying(pid_t pid, pid_t tid)
{
	char v[64];
	if (task_status(pid, tid, "State", v, sizeof(v)) != 0)
		return 1;
	if (v[0] == 'Z' || v[0] == 'X')
		return 1;
	if (task_status(pid, tid, "SigPnd", v, sizeof(v)) != 0)
		return 1;
	unsigned long long pending = strtoull(v, NULL, 16);
	return (pending & (1ULL << (SIGKILL - 1))) != 0;
}

void __pctx_read_psargs(pid_t pid, char *buf, size_t n)
{
	char path[64];
	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return;
	size_t got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = '\0';
	for (size_t i = 0; i < got; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	while (got > 0 && buf[got - 1] == ' ')
		buf[--got] = '\0';
}

long __pctx_task_syscall(pid_t pid, pid_t tid)
{
	char path[64], buf[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
	    (int)tid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	int ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok || buf[0] < '0' || buf[0] > '9')
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * Does l end alone (pthread_exit: the exit system call), rather than with
 * its process (exit_group, a fatal signal, or an exec by another LWP)?
 */
