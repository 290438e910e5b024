/*
 * rt-signals.c - a program that uses real-time signals and masks as if it
 * were alone, for t1062: under hpcrun it must print what it prints alone.
 *
 *   cc -O2 -pthread -o rt-signals rt-signals.c
 *
 *   rtmin8 N     a handler for SIGRTMIN+8, raised N times between units of
 *                work: "rtmin8 handler ran N times"
 *   claimall N   a handler for every real-time signal (hpcrun's too, from
 *                SIGRTMAX down), each
 *                raised N times (and sigqueue'd with a value), work between;
 *                then each action read back: one line per signal that
 *                differs, and "claimall: RAISED raised, HANDLED handled"
 *   blockall N   blocks every signal (sigfillset, SIG_SETMASK), works N
 *                units, reads the mask back in this thread and in a thread
 *                created now: "blocked: K, thread blocked: K"; then
 *                SIGRTMIN+8 raised while blocked is pending, and runs its
 *                handler once unblocked
 *   range        prints SIGRTMIN and SIGRTMAX: "34 64"
 *   sigwait N    blocks SIGRTMAX alone and takes N of it with sigwaitinfo,
 *                sent with sigqueue: "sigwait got N of N, values ok"
 *   trap N       a handler for SIGTRAP (which hpcrun takes for perf's
 *                trap), which raise and a breakpoint instruction (int3)
 *                each reach N times between units of work; then SIGTRAP
 *                blocked for N units and read back: "trap handler: N
 *                raised, N breakpoints, none else; blocked reads back 1,
 *                action kept"
 *   trapdie N    N units of work, then raise(SIGTRAP) with the default
 *                action: the process dies of it
 *   waitall N    a daemon's way: main blocks every signal, then starts a
 *                thread that takes them all with sigwaitinfo (a full set)
 *                and a worker; main sends itself SIGRTMAX and SIGRTMIN+3
 *                N times each (sigqueue, values in order) between units
 *                of work, then SIGTERM once they are taken (10 s at
 *                most): "waitall: SIGRTMAX N of N,
 *                SIGRTMIN+3 N of N, in order, nothing else"
 *   timedwait N  every signal blocked, sigtimedwait of a full set with a
 *                20 ms timeout N times on an idle process, then one with
 *                SIGRTMAX queued: "timedwait: N timed out, then SIGRTMAX"
 *   sigwait N    (see above); sigwaitset N: waitall through sigwait(3)
 *   fdall N      waitall through a signalfd of every signal, without
 *                SIGRTMAX, whose reader is still in read() when main
 *                returns: "fdall: SIGRTMIN+3 N of N, nothing else"
 *   heldunblock N  every signal blocked and a handler for SIGRTMAX; it
 *                is sent N times, then unblocked: "heldunblock: pending
 *                before 1, handler ran N times in order"
 *   suspend      every signal blocked, a handler for SIGRTMAX, which a
 *                child sends after 0.1 s while the parent loops on
 *                sigsuspend(the old mask): "suspend: got 1, spurious 0"
 *   ignheld      every signal blocked, SIGRTMAX sent 3 times, then
 *                ignored, then the default again, then unblocked (the
 *                ignoring discarded them): "ignheld: pending 0, alive"
 *   raiseone     every signal blocked; main raises SIGRTMAX while a
 *                thread waits for every signal for 0.3 s: "raiseone:
 *                thread EAGAIN, main pending 1, main takes 64"
 *   badargs      the waits' error results: "badargs: EINVAL EFAULT
 *                EFAULT EFAULT"
 *   restart N    a shell's way: a SIGCHLD handler with SA_RESTART reaps
 *                a child that exits once main blocks in read() on a
 *                pipe, and writes the byte main reads; N rounds:
 *                "restart: N read, 0 EINTR"; norestart N: the handler
 *                without SA_RESTART, each read cut short: "norestart: 0
 *                read, N EINTR"
 *   order N      every signal blocked; N times every real-time signal
 *                queued from SIGRTMAX down, then SIGUSR1 and SIGTERM,
 *                all taken with sigtimedwait, as the kernel gives them
 *                (lowest first): "order: N rounds of 33, lowest first"
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;
static volatile sig_atomic_t hits[65];
static volatile sig_atomic_t bad_value;

static void work(long units)
{
	long i;

	for (i = 0; i < units * 2000000L; i++)
		sink += (double)i * 0.5;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (si->si_code == SI_QUEUE && si->si_value.sival_int != sig * 10)
		bad_value = 1;
	hits[sig]++;
}

static volatile sig_atomic_t traps_raised, traps_int3, traps_else;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_TKILL)
		traps_raised++;
	else if (si->si_code == SI_KERNEL)
		traps_int3++;
	else
		traps_else++;
}

/* fn for sig, SA_SIGINFO and nothing else. */
static void set_action(int sig, void (*fn)(int, siginfo_t *, void *))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void set_handler(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL))
		perror("sigaction");
}

static int count_blocked(const sigset_t *s)
{
	int sig, n = 0;

	for (sig = 1; sig < 65; sig++)
		n += sigismember(s, sig) == 1;
	return n;
}

static void *read_mask(void *out)
{
	sigset_t cur;

	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	*(int *)out = count_blocked(&cur);
	work(5);
	return NULL;
}

/* waitall, sigwaitset and fdall: what the taking thread saw. */
static volatile long seen_max, seen_min3, seen_else, order_bad;
static int take_fd = -1, take_by_sigwait;

/* The next signal of a full set: its number and value. */
static int take_one(int *value)
{
	sigset_t all;
	siginfo_t si;
	int sig;

	if (take_fd >= 0) {
		struct signalfd_siginfo fsi;

		if (read(take_fd, &fsi, sizeof(fsi)) != sizeof(fsi))
			return -1;
		*value = fsi.ssi_int;
		return (int)fsi.ssi_signo;
	}
	sigfillset(&all);
	if (take_by_sigwait) {
		*value = -1;
		return sigwait(&all, &sig) ? -1 : sig;
	}
	sig = sigwaitinfo(&all, &si);
	*value = si.si_value.sival_int;
	return sig;
}

static void *take_all(void *arg)
{
	int sig, value = -1;

	(void)arg;
	while ((sig = take_one(&value)) != SIGTERM) {
		if (sig == SIGRTMAX && take_fd < 0) {
			order_bad += !take_by_sigwait && value != seen_max;
			seen_max++;
		} else if (sig == SIGRTMIN + 3) {
			order_bad += !take_by_sigwait && value != 1000 + seen_min3;
			seen_min3++;
		} else {
			seen_else++;
			if (sig < 0)
				return NULL;
			if (take_fd >= 0) {
				/* main may be in exit, holding stdout */
				char line[40];
				int len = snprintf(line, sizeof(line),
						   "fdall: read signal %d\n", sig);

				if (write(1, line, (size_t)len) < 0)
					return NULL;
			}
		}
	}
	return NULL;
}

static void *work_a_while(void *arg)
{
	work((long)arg);
	return NULL;
}

/* waitall N (signals, 1 for SIGRTMAX too), sigwaitset and fdall. */
static void wait_all(long n, int rtmax, int fd)
{
	sigset_t all;
	pthread_t taker, worker;
	long i;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (fd)
		take_fd = signalfd(-1, &all, 0);
	pthread_create(&taker, NULL, take_all, NULL);
	pthread_create(&worker, NULL, work_a_while, (void *)(2 * n));
	for (i = 0; i < n; i++) {
		union sigval v = { .sival_int = (int)i };

		work(2);
		if (rtmax)
			sigqueue(getpid(), SIGRTMAX, v);
		v.sival_int = 1000 + (int)i;
		sigqueue(getpid(), SIGRTMIN + 3, v);
	}
	pthread_join(worker, NULL);
	if (fd) {
		/* the reader stays in read() past main's return */
		while (seen_min3 < n)
			usleep(1000);
		printf("fdall: SIGRTMIN+3 %ld of %ld, nothing else\n", seen_min3, n);
		fflush(stdout);
		return;
	}
	/* SIGTERM, a lower number, would be taken before those still
	 * pending; 10 s at most */
	for (i = 0; i < 10000 && (seen_min3 < n || (rtmax && seen_max < n)); i++)
		usleep(1000);
	kill(getpid(), SIGTERM);
	pthread_join(taker, NULL);
	printf("%s: SIGRTMAX %ld of %ld, SIGRTMIN+3 %ld of %ld, %s, %s\n",
	       take_by_sigwait ? "sigwaitset" : "waitall", seen_max, n, seen_min3,
	       n, order_bad ? "out of order" : "in order",
	       seen_else ? "something else" : "nothing else");
}

static volatile sig_atomic_t held_ran, held_bad;

static void on_held(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	held_bad |= si->si_code != SI_QUEUE || si->si_value.sival_int != held_ran;
	held_ran++;
}

static volatile sig_atomic_t suspended_got;

static void on_suspend(int sig)
{
	(void)sig;
	suspended_got++;
}

static void *wait_a_while(void *out)
{
	sigset_t all;
	siginfo_t si;
	struct timespec t = { 0, 300000000 };

	sigfillset(&all);
	*(int *)out = sigtimedwait(&all, &si, &t) < 0 && errno == EAGAIN;
	return NULL;
}

/* The modes of the waits' corners (suspend, ignheld, raiseone, badargs). */
static int chld_pipe = -1;

static void on_chld(int sig)
{
	int err = errno;

	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		if (write(chld_pipe, "x", 1) != 1)
			break;
	errno = err;
}

/* Is process pid blocked in read(2) (its /proc syscall line "0 ...")? */
static int in_read(pid_t pid)
{
	char path[64], buf[64];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	if (!(f = fopen(path, "r")))
		return 0;
	r = fgets(buf, sizeof(buf), f) && !strncmp(buf, "0 ", 2);
	fclose(f);
	return r;
}

/* restart / norestart N (see the top). */
static int restarts(const char *mode, long n)
{
	struct sigaction sa;
	long i, got = 0, eintr = 0;
	pid_t parent = getpid();
	int p[2];
	char b;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sa.sa_flags = SA_NOCLDSTOP | (!strcmp(mode, "restart") ? SA_RESTART : 0);
	sigaction(SIGCHLD, &sa, NULL);
	for (i = 0; i < n; i++) {
		if (pipe(p))
			return 1;
		chld_pipe = p[1];
		if (fork() == 0) {
			while (!in_read(parent))
				usleep(1000);
			_exit(0);
		}
		if (read(p[0], &b, 1) == 1)
			got++;
		else if (errno == EINTR && read(p[0], &b, 1) == 1)
			eintr++;
		close(p[0]);
		close(p[1]);
	}
	printf("%s: %ld read, %ld EINTR\n", mode, got, eintr);
	return 0;
}

static int corners(const char *mode)
{
	sigset_t all, old, pend;
	siginfo_t si;
	struct timespec zero = { 0, 0 }, bad = { 0, -1 };
	sigset_t *volatile nowhere = NULL;	/* a bad pointer, unseen */
	int i, eagain = 0, spurious = 0;
	pthread_t t;
	pid_t child;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	if (!strcmp(mode, "suspend")) {
		signal(SIGRTMAX, on_suspend);
		if (!(child = fork())) {
			usleep(100000);
			kill(getppid(), SIGRTMAX);
			_exit(0);
		}
		while (!suspended_got) {
			sigsuspend(&old);
			spurious += !suspended_got;
		}
		waitpid(child, NULL, 0);
		printf("suspend: got %d, spurious %d\n", (int)suspended_got, spurious);
	} else if (!strcmp(mode, "ignheld")) {
		for (i = 0; i < 3; i++)
			sigqueue(getpid(), SIGRTMAX, (union sigval){ .sival_int = i });
		signal(SIGRTMAX, SIG_IGN);
		signal(SIGRTMAX, SIG_DFL);
		sigpending(&pend);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		printf("ignheld: pending %d, alive\n", sigismember(&pend, SIGRTMAX));
	} else if (!strcmp(mode, "raiseone")) {
		pthread_create(&t, NULL, wait_a_while, &eagain);
		usleep(100000);
		raise(SIGRTMAX);
		pthread_join(t, NULL);
		sigpending(&pend);
		printf("raiseone: thread %s, main pending %d, main takes %d\n",
		       eagain ? "EAGAIN" : "took it", sigismember(&pend, SIGRTMAX),
		       sigtimedwait(&all, &si, &zero));
	} else {
		printf("badargs: %s", sigtimedwait(&all, &si, &bad) < 0 && errno == EINVAL ?
		       "EINVAL" : "other");
		printf(" %s", sigtimedwait(&all, &si, (struct timespec *)8) < 0 &&
		       errno == EFAULT ? "EFAULT" : "other");
		printf(" %s", sigwaitinfo(nowhere, &si) < 0 && errno == EFAULT ?
		       "EFAULT" : "other");
		printf(" %s\n", signalfd(-1, nowhere, 0) < 0 && errno == EFAULT ?
		       "EFAULT" : "other");
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 10, i;
	int sig;

	if (!strcmp(mode, "range")) {
		printf("%d %d\n", SIGRTMIN, SIGRTMAX);
	} else if (!strcmp(mode, "rtmin8")) {
		set_handler(SIGRTMIN + 8);
		for (i = 0; i < n; i++) {
			work(2);
			raise(SIGRTMIN + 8);
		}
		printf("rtmin8 handler ran %d times\n", (int)hits[SIGRTMIN + 8]);
	} else if (!strcmp(mode, "claimall")) {
		long raised = 0, handled = 0;

		for (sig = SIGRTMAX; sig >= SIGRTMIN; sig--)
			set_handler(sig);
		for (i = 0; i < n; i++)
			for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
				union sigval v = { .sival_int = sig * 10 };

				work(1);
				raise(sig);
				sigqueue(getpid(), sig, v);
				raised += 2;
			}
		for (sig = SIGRTMIN; sig <= SIGRTMAX; sig++) {
			struct sigaction old;

			handled += hits[sig];
			if (hits[sig] != 2 * n)
				printf("signal %d: handler ran %d times\n", sig, (int)hits[sig]);
			sigaction(sig, NULL, &old);
			if (old.sa_sigaction != on_signal ||
			    (old.sa_flags & (SA_SIGINFO | SA_RESTART)) != (SA_SIGINFO | SA_RESTART))
				printf("signal %d: action reads back changed\n", sig);
		}
		printf("claimall: %ld raised, %ld handled%s\n", raised, handled,
		       bad_value ? ", a value was wrong" : "");
	} else if (!strcmp(mode, "blockall")) {
		sigset_t all, cur, pend;
		pthread_t t;
		int in_thread = -1;

		set_handler(SIGRTMIN + 8);
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		work(n);
		sigprocmask(SIG_SETMASK, NULL, &cur);
		pthread_create(&t, NULL, read_mask, &in_thread);
		pthread_join(t, NULL);
		printf("blocked: %d, thread blocked: %d\n", count_blocked(&cur), in_thread);
		raise(SIGRTMIN + 8);
		sigpending(&pend);
		printf("pending SIGRTMIN+8: %d, handler ran %d times\n",
		       sigismember(&pend, SIGRTMIN + 8), (int)hits[SIGRTMIN + 8]);
		sigemptyset(&cur);
		sigaddset(&cur, SIGRTMIN + 8);
		pthread_sigmask(SIG_UNBLOCK, &cur, NULL);
		printf("after unblock the handler ran %d times\n", (int)hits[SIGRTMIN + 8]);
	} else if (!strcmp(mode, "trap")) {
		struct sigaction old;
		sigset_t set, cur;

		set_action(SIGTRAP, on_trap);
		for (i = 0; i < n; i++) {
			work(2);
			raise(SIGTRAP);
			__asm__ volatile("int3");
		}
		sigemptyset(&set);
		sigaddset(&set, SIGTRAP);
		sigprocmask(SIG_BLOCK, &set, NULL);
		work(n);
		sigprocmask(SIG_BLOCK, NULL, &cur);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		sigaction(SIGTRAP, NULL, &old);
		printf("trap handler: %d raised, %d breakpoints, %s else; "
		       "blocked reads back %d, action %s\n", (int)traps_raised,
		       (int)traps_int3, traps_else ? "some" : "none",
		       sigismember(&cur, SIGTRAP),
		       old.sa_sigaction == on_trap ? "kept" : "changed");
	} else if (!strcmp(mode, "trapdie")) {
		work(n);
		fflush(stdout);
		raise(SIGTRAP);
		printf("still alive\n");
	} else if (!strcmp(mode, "sigwait")) {
		sigset_t set;
		siginfo_t si;
		long got = 0, ok = 0;

		sigemptyset(&set);
		sigaddset(&set, SIGRTMAX);
		sigprocmask(SIG_BLOCK, &set, NULL);
		for (i = 0; i < n; i++) {
			union sigval v = { .sival_int = (int)i };

			work(2);
			sigqueue(getpid(), SIGRTMAX, v);
			if (sigwaitinfo(&set, &si) == SIGRTMAX) {
				got++;
				ok += si.si_code == SI_QUEUE && si.si_value.sival_int == (int)i;
			}
		}
		printf("sigwait got %ld of %ld, values %s\n", got, n,
		       ok == n ? "ok" : "wrong");
	} else if (!strcmp(mode, "waitall")) {
		wait_all(n, 1, 0);
	} else if (!strcmp(mode, "sigwaitset")) {
		take_by_sigwait = 1;
		wait_all(n, 1, 0);
	} else if (!strcmp(mode, "fdall")) {
		wait_all(n, 0, 1);
	} else if (!strcmp(mode, "timedwait")) {
		sigset_t all;
		siginfo_t si;
		struct timespec t = { 0, 20000000 };
		long timedout = 0;
		int got;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		for (i = 0; i < n; i++)
			timedout += sigtimedwait(&all, &si, &t) < 0 && errno == EAGAIN;
		sigqueue(getpid(), SIGRTMAX, (union sigval){ .sival_int = 7 });
		got = sigtimedwait(&all, &si, &t);
		printf("timedwait: %ld timed out, then %s\n", timedout,
		       got == SIGRTMAX && si.si_value.sival_int == 7 ? "SIGRTMAX" : "something else");
	} else if (!strcmp(mode, "suspend") || !strcmp(mode, "ignheld") ||
		   !strcmp(mode, "raiseone") || !strcmp(mode, "badargs")) {
		return corners(mode);
	} else if (!strcmp(mode, "restart") || !strcmp(mode, "norestart")) {
		return restarts(mode, n);
	} else if (!strcmp(mode, "order")) {
		struct timespec zero = { 0, 0 };
		int ok = 0, s, last, got;
		sigset_t all;
		siginfo_t si;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		for (i = 0; i < n; i++) {
			for (s = SIGRTMAX; s >= SIGRTMIN; s--)
				sigqueue(getpid(), s, (union sigval){ .sival_int = s });
			kill(getpid(), SIGUSR1);
			kill(getpid(), SIGTERM);
			work(1);
			for (got = 0, last = 0; sigtimedwait(&all, &si, &zero) > 0; got++) {
				if (si.si_signo < last)
					break;
				last = si.si_signo;
			}
			ok += got == SIGRTMAX - SIGRTMIN + 3;
		}
		printf("order: %d rounds of %d, lowest first\n", ok,
		       SIGRTMAX - SIGRTMIN + 3);
	} else if (!strcmp(mode, "heldunblock")) {
		sigset_t all, pend;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, NULL);
		set_action(SIGRTMAX, on_held);
		for (i = 0; i < n; i++) {
			work(1);
			sigqueue(getpid(), SIGRTMAX, (union sigval){ .sival_int = (int)i });
		}
		sigpending(&pend);
		sigprocmask(SIG_UNBLOCK, &all, NULL);
		printf("heldunblock: pending before %d, handler ran %d times%s\n",
		       sigismember(&pend, SIGRTMAX), (int)held_ran,
		       held_bad ? " out of order" : " in order");
	} else {
		fprintf(stderr, "usage: rt-signals range|rtmin8|claimall|blockall|sigwait|"
			"waitall|sigwaitset|timedwait|fdall|heldunblock|suspend|ignheld|raiseone|\n"
			"badargs|order|restart|norestart|trap|trapdie N\n");
		return 2;
	}
	return 0;
}
