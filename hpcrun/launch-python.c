/*
 * launch-python.c - pyenv shims resolved, Python programs named by their
 * script (the invariants are in launch-python.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "launch-python.h"
#include "python-argv.h"
#include "strbuf.h"

/* A shim is a short script; the head of a file read to tell. */
#define SHIM_HEAD 4096

int launch_which(const char *name, struct strbuf *out)
{
	const char *path = getenv("PATH"), *p;
	int saw_noexec = 0;

	strbuf_reset(out);
	if (strchr(name, '/')) {
		strbuf_addstr(out, name);
		if (access(name, F_OK))
			return 127;
		return access(name, X_OK) ? 126 : 0;
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		struct stat st;

		strbuf_reset(out);
		if (end == p)
			strbuf_addch(out, '.');
		else
			strbuf_add(out, p, (size_t)(end - p));
		strbuf_addf(out, "/%s", name);
		if (!stat(out->buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(out->buf, X_OK))
				return 0;
			saw_noexec = 1;
		}
		if (!*end)
			break;
		p = end;
	}
	return saw_noexec ? 126 : 127;
}

/* The first SHIM_HEAD - 1 bytes of path, NUL-terminated; 0, or -1. */
static int read_head(const char *path, char *buf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, SHIM_HEAD - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* The text between the double quotes that follow key at the start of a
 * line of head, into out: 0, or -1 when there is no such line. */
static int quoted_after(const char *head, const char *key, struct strbuf *out)
{
	const char *p = head, *end;
	size_t klen = strlen(key);

	for (; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) || p[klen] != '"')
			continue;
		end = strchr(p + klen + 1, '"');
		if (!end || memchr(p, '\n', (size_t)(end - p)) || end == p + klen + 1)
			return -1;
		strbuf_reset(out);
		strbuf_add(out, p + klen + 1, (size_t)(end - p - klen - 1));
		return 0;
	}
	return -1;
}

/* Whether path is a pyenv shim: its pyenv and PYENV_ROOT into pyenv and
 * root (invariant 1), which may be changed when it is not. */
static int shim_parts(const char *path, struct strbuf *pyenv, struct strbuf *root)
{
	char head[SHIM_HEAD];
	struct strbuf line = STRBUF_INIT;
	int yes;

	if (read_head(path, head) || strncmp(head, "#!", 2))
		return 0;
	yes = !quoted_after(head, "export PYENV_ROOT=", root) &&
	      !quoted_after(head, "exec ", pyenv) && pyenv->buf[0] == '/';
	if (yes) {
		strbuf_addf(&line, "exec \"%s\" exec \"$program\" \"$@\"\n", pyenv->buf);
		yes = strstr(head, line.buf) != NULL;
	}
	strbuf_release(&line);
	return yes;
}

static int is_shim(const char *path)
{
	struct strbuf pyenv = STRBUF_INIT, root = STRBUF_INIT;
	int yes = shim_parts(path, &pyenv, &root);

	strbuf_release(&pyenv);
	strbuf_release(&root);
	return yes;
}

/* Runs argv (a path and its arguments) with stdout into out, stderr to
 * /dev/null: 0 when it exits 0 having printed one line, else -1. */
static int capture(char *const argv[], struct strbuf *out)
{
	char buf[512];
	int fd[2], status, nul;
	ssize_t n;
	pid_t pid;

	strbuf_reset(out);
	if (pipe2(fd, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (!pid) {
		nul = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (dup2(fd[1], 1) < 0 || nul < 0 || dup2(nul, 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (out->len < PATH_MAX)
			strbuf_add(out, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	while (out->len && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) || !out->len ||
	    out->len >= PATH_MAX || strchr(out->buf, '\n'))
		return -1;
	return 0;
}

/*
 * The program the shim at shim would run (invariants 1 and 2) into real,
 * with pyenv's environment set: 0, or -1 with nothing changed but
 * PYENV_ROOT, which the shim sets too.  pyenv which is asked with
 * PYENV_VERSION unchanged: it reads the version as version-name does.
 */
static int shim_target(const char *shim, struct strbuf *real, int verbose)
{
	struct strbuf pyenv = STRBUF_INIT, root = STRBUF_INIT;
	struct strbuf version = STRBUF_INIT, sb = STRBUF_INIT;
	const char *name = strrchr(shim, '/') ? strrchr(shim, '/') + 1 : shim;
	const char *path = getenv("PATH");
	char *args[4];
	int err = -1;

	if (!shim_parts(shim, &pyenv, &root))
		goto out;
	if (setenv("PYENV_ROOT", root.buf, 1))
		goto out;
	args[0] = pyenv.buf;
	args[1] = (char *)"version-name";
	args[2] = (char *)"-f";
	args[3] = NULL;
	if (capture(args, &version))
		goto out;
	args[1] = (char *)"which";
	args[2] = (char *)name;
	if (capture(args, real) || real->buf[0] != '/' ||
	    access(real->buf, X_OK) || is_shim(real->buf))
		goto out;
	/* pyenv exec puts a version's bin directory, not the system's,
	 * first in PATH */
	if (!strncmp(real->buf, root.buf, root.len) && real->buf[root.len] == '/') {
		strbuf_add(&sb, real->buf, (size_t)(strrchr(real->buf, '/') - real->buf));
		if (path && *path)
			strbuf_addf(&sb, ":%s", path);
	}
	if (setenv("PYENV_VERSION", version.buf, 1) ||
	    (sb.len && setenv("PATH", sb.buf, 1)))
		hpc_die(1, "cannot set pyenv's environment: %s", strerror(errno));
	if (verbose)
		fprintf(stderr, "hpcrun: pyenv shim '%s' runs '%s'\n"
			"hpcrun: PYENV_VERSION=%s\n%s%s%s", shim, real->buf,
			version.buf, sb.len ? "hpcrun: PATH=" : "", sb.buf,
			sb.len ? "\n" : "");
	err = 0;
out:
	strbuf_release(&pyenv);
	strbuf_release(&root);
	strbuf_release(&version);
	strbuf_release(&sb);
	return err;
}

/* The shim a script's "#!" line names (invariant 3), into shim: 0, or
 * -1 when its interpreter is no shim. */
static int script_shim(const char *script, struct strbuf *shim)
{
	char head[SHIM_HEAD], *line, *word, *rest;
	int err = -1;

	if (read_head(script, head) || strncmp(head, "#!", 2))
		return -1;
	line = head + 2;
	line[strcspn(line, "\n")] = '\0';
	line += strspn(line, " \t");
	word = line;
	rest = word + strcspn(word, " \t");
	if (*rest)
		*rest++ = '\0';
	rest += strspn(rest, " \t");
	rest[strcspn(rest, " \t")] = '\0';
	if (!strcmp(word, "/usr/bin/env") || !strcmp(word, "/bin/env")) {
		if (*rest && *rest != '-' && !strchr(rest, '/') &&
		    !launch_which(rest, shim))
			err = 0;
	} else if (!*rest) {
		strbuf_addstr(shim, word);
		err = 0;
	}
	return !err && is_shim(shim->buf) ? 0 : -1;
}

int launch_pyenv_resolve(struct strbuf *path, char ***argv, int verbose)
{
	struct strbuf shim = STRBUF_INIT, real = STRBUF_INIT;
	char **old = *argv, **v;
	size_t n, i, script;

	script = !script_shim(path->buf, &shim);
	if (!script) {
		strbuf_reset(&shim);
		strbuf_addstr(&shim, path->buf);
	}
	if (shim_target(shim.buf, &real, verbose)) {
		strbuf_release(&shim);
		strbuf_release(&real);
		return 0;
	}
	for (n = 0; old[n]; n++)
		;
	v = xcalloc(n + 2, sizeof(*v));
	/* pyenv exec runs the program by its full path */
	v[0] = xstrdup(real.buf);
	if (script)		/* the kernel passes the script as given */
		v[1] = old[0];
	for (i = 1; i < n; i++)
		v[i + script] = old[i];
	*argv = v;
	strbuf_reset(path);
	strbuf_addstr(path, real.buf);
	strbuf_release(&shim);
	strbuf_release(&real);
	return 1;
}

char *launch_python_program(const char *path, char *const *argv)
{
	size_t len;
	const char *name = hpc_python_program(path, argv, &len);

	return name ? xstrndup(name, len) : NULL;
}
