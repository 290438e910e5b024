/*
 * rt-sigfam.c - a program that sets its actions and masks with glibc's
 * System V and BSD calls, which reach the kernel through glibc's internal
 * sigaction and sigprocmask, for t1067: under hpcrun it must print what
 * it prints alone, on hpcrun's own sampling signal too.
 *
 *   cc -O2 -pthread -o rt-sigfam rt-sigfam.c
 *
 *   rt-sigfam CALL SIG   SIG: rtmax (SIGRTMAX) or usr1 (SIGUSR1)
 *
 * Each run spins 0.1 s of CPU, does CALL's steps on SIG, each step one
 * line (old handler, hits of the handler, the action's flags read back,
 * whether the mask and sigpending have SIG), then spins 0.4 s more.
 *
 *   sigset        sigset(h), 3 raises; SIG_HOLD, a raise held; sigset(h)
 *                 again returns SIG_HOLD and runs the held one; SIG_DFL
 *   bsd_signal    bsd_signal(h) and ssignal(h), 3 raises each
 *   sysv_signal   sysv_signal(h), a raise resets it to SIG_DFL
 *   hold          sighold, then a handler; a raise held; sigrelse runs it
 *   ignore        sigignore, 3 raises ignored
 *   sigpause      sighold, then sigpause(SIG) until a thread sends SIG;
 *                 the mask after still has SIG
 *   bsdpause      __sigpause(0, 0), BSD's mask of nothing, the same
 *   bsdmask       sighold, a raise held; sigblock of SIGTRAP and SIGUSR2
 *                 and siggetmask print the BSD masks; sigsetmask(0) runs
 *                 the held one
 *   interrupt     siginterrupt(SIG, 1): a read of a pipe interrupted by
 *                 SIG ends with EINTR, a later signal() has no
 *                 SA_RESTART; siginterrupt(SIG, 0) restores it
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu-spin.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* glibc's, not declared for _GNU_SOURCE */
extern __sighandler_t bsd_signal(int, __sighandler_t);
extern int __sigpause(int, int);

static volatile sig_atomic_t hits;
static int sig;
static pthread_t main_thread;

static void h(int s)
{
	(void)s;
	hits++;
}

static const char *name(__sighandler_t f)
{
	return f == SIG_DFL ? "SIG_DFL" : f == SIG_IGN ? "SIG_IGN" :
	       f == SIG_HOLD ? "SIG_HOLD" : f == SIG_ERR ? "SIG_ERR" :
	       f == h ? "h" : "other";
}

/* One line: what, the old handler (or an int result), the state now. */
static void state(const char *what, const char *old)
{
	struct sigaction a;
	sigset_t m, p;

	sigaction(sig, NULL, &a);
	sigprocmask(SIG_BLOCK, NULL, &m);
	sigpending(&p);
	printf("%s: %s, hits %d, action %s flags%s%s%s%s, blocked %d, pending %d\n",
	       what, old, (int)hits, name(a.sa_handler),
	       a.sa_flags & SA_RESTART ? " RESTART" : "",
	       a.sa_flags & SA_RESETHAND ? " RESETHAND" : "",
	       a.sa_flags & SA_NODEFER ? " NODEFER" : "",
	       sigismember(&a.sa_mask, sig) ? " self-masked" : "",
	       sigismember(&m, sig), sigismember(&p, sig));
}

static void result(const char *what, int r)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d%s", r, r < 0 && errno == EINTR ? " EINTR" : "");
	state(what, buf);
}

/* Sends SIG to the main thread after 50 ms. */
static void *sender(void *p)
{
	(void)p;
	usleep(50000);
	pthread_kill(main_thread, sig);
	return NULL;
}

static void send_later(pthread_t *t)
{
	pthread_create(t, NULL, sender, NULL);
}

int main(int argc, char **argv)
{
	const char *call = argc > 2 ? argv[1] : "";
	struct sigaction sa;
	pthread_t t;
	int i, fd[2];
	char c;

	if (argc < 3) {
		fprintf(stderr, "usage: rt-sigfam CALL rtmax|usr1\n");
		return 2;
	}
	sig = !strcmp(argv[2], "rtmax") ? SIGRTMAX : SIGUSR1;
	main_thread = pthread_self();
	spin(0.1);
	if (!strcmp(call, "sigset")) {
		state("sigset h", name(sigset(sig, h)));
		for (i = 0; i < 3; i++)
			raise(sig);
		state("raised 3", "-");
		state("sigset SIG_HOLD", name(sigset(sig, SIG_HOLD)));
		raise(sig);
		state("raised", "-");
		state("sigset SIG_HOLD again", name(sigset(sig, SIG_HOLD)));
		state("sigset h", name(sigset(sig, h)));
		state("sigset SIG_DFL", name(sigset(sig, SIG_DFL)));
	} else if (!strcmp(call, "bsd_signal")) {
		state("bsd_signal h", name(bsd_signal(sig, h)));
		for (i = 0; i < 3; i++)
			raise(sig);
		state("raised 3", "-");
		state("ssignal h", name(ssignal(sig, h)));
		for (i = 0; i < 3; i++)
			raise(sig);
		state("raised 3", "-");
		state("bsd_signal SIG_DFL", name(bsd_signal(sig, SIG_DFL)));
	} else if (!strcmp(call, "sysv_signal")) {
		state("sysv_signal h", name(sysv_signal(sig, h)));
		raise(sig);
		state("raised", "-");
	} else if (!strcmp(call, "hold")) {
		result("sighold", sighold(sig));
		state("signal h", name(signal(sig, h)));
		raise(sig);
		state("raised", "-");
		result("sigrelse", sigrelse(sig));
	} else if (!strcmp(call, "ignore")) {
		result("sigignore", sigignore(sig));
		for (i = 0; i < 3; i++)
			raise(sig);
		state("raised 3", "-");
		state("signal SIG_DFL", name(signal(sig, SIG_DFL)));
	} else if (!strcmp(call, "sigpause") || !strcmp(call, "bsdpause")) {
		state("signal h", name(signal(sig, h)));
		result("sighold", sighold(sig));
		send_later(&t);
		if (!strcmp(call, "sigpause"))
			result("sigpause", sigpause(sig));
		else
			result("__sigpause(0, 0)", __sigpause(0, 0));
		pthread_join(t, NULL);
		result("sigrelse", sigrelse(sig));
	} else if (!strcmp(call, "bsdmask")) {
		state("signal h", name(signal(sig, h)));
		result("sighold", sighold(sig));
		raise(sig);
		printf("sigblock: %#x\n", sigblock(1 << (SIGTRAP - 1) | 1 << (SIGUSR2 - 1)));
		printf("siggetmask: %#x\n", siggetmask());
		state("held", "-");
		printf("sigsetmask 0: %#x\n", sigsetmask(0));
		state("unblocked", "-");
	} else if (!strcmp(call, "interrupt")) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = h;
		sa.sa_flags = SA_RESTART;
		sigaction(sig, &sa, NULL);
		state("sigaction h RESTART", "-");
		result("siginterrupt 1", siginterrupt(sig, 1));
		if (pipe(fd))
			return 1;
		send_later(&t);
		result("read", (int)read(fd[0], &c, 1));
		pthread_join(t, NULL);
		state("signal h", name(signal(sig, h)));
		result("siginterrupt 0", siginterrupt(sig, 0));
		state("signal h", name(signal(sig, h)));
	} else {
		fprintf(stderr, "rt-sigfam: '%s': no such call\n", call);
		return 2;
	}
	spin(0.4);
	return 0;
}
