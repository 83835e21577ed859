/*
 * mpi-launch.c - the MPI launcher of an mpi session: which MPI it is, its
 * command line, its process group, its end.
 *
 * The settings.  Everything colldb asks of an MPI beyond `-n N PROGRAM`
 * is here and nowhere else (docs/mpi.md, "Settings", says why each one):
 *
 *   Open MPI, always      --oversubscribe, --mca mpi_yield_when_idle 1,
 *                         -x for the COLLDB_* variables; as root
 *                         OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1
 *             one host    --mca orte_tmpdir_base DIR (its session files
 *                         in a directory colldb makes in /dev/shm and
 *                         removes at the end),
 *                         --mca btl_vader_backing_directory DIR,
 *                         --mca shmem_mmap_relocate_backing_file -1,
 *                         --mca shmem_mmap_backing_file_base_dir DIR
 *             across      --mca osc pt2pt --mca btl tcp,self
 *             --net IF    --mca btl_tcp_if_include IF
 *                         --mca oob_tcp_if_include IF
 *             --hosts     --host H:N,...
 *   MPICH     across      UCX_TLS=tcp,self
 *             --net IF    UCX_NET_DEVICES=IF
 *             --hosts     -hosts H:N,...
 *
 * colldb's words come after the user's --mpirun words (which may be a
 * wrapper that ends in the launcher); a --mca parameter the user's words
 * set already is not given again (Open MPI refuses one given twice), so
 * theirs wins, and so do variables already in the environment.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mpi-int.h"
#include "xmalloc.h"

#ifndef COLLDB_LIBDIR
#define COLLDB_LIBDIR "/usr/local/lib/colldb"
#endif

/* ---- which MPI ------------------------------------------------------------ */

/* `argv... --version`'s output (at most 4 KiB, 10 s); 0 or -1 + cause. */
static int
version_text(char *const *argv, struct strbuf *out, char **cause)
{
	const char *cmd = argv[0];
	size_t n_args = 0;
	char **av;
	int p[2], st = 0;
	pid_t pid;
	char buf[512];
	ssize_t n;
	uint64_t deadline = mono_ns() + 10000000000ull;

	if (pipe2(p, O_CLOEXEC) != 0)
		return cause_set(cause, "pipe: %s", strerror(errno));
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return cause_set(cause, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		while (argv[n_args] != NULL)
			n_args++;
		av = xcalloc(n_args + 2, sizeof *av);
		memcpy(av, argv, n_args * sizeof *av);
		av[n_args] = (char *)"--version";
		setpgid(0, 0);
		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp(cmd, av);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		struct pollfd pf = { p[0], POLLIN, 0 };
		int left = (int)((deadline - mono_ns()) / 1000000);

		if (mono_ns() >= deadline ||
		    poll(&pf, 1, left > 0 ? left : 0) <= 0)
			break;
		if ((n = read(p[0], buf, sizeof buf)) <= 0)
			break;
		if (out->len < 4096)
			strbuf_add(out, buf, (size_t)n);
	}
	close(p[0]);
	kill(-pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && out->len == 0)
		return cause_set(cause, "cannot run the MPI launcher '%s'", cmd);
	return 0;
}

int
mpi_launch_flavor(char *const *argv, enum mpi_flavor *fl, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	const char *cmd = argv[0];
	int rc = 0;

	if (version_text(argv, &sb, cause) != 0) {
		strbuf_release(&sb);
		return -1;
	}
	if (strstr(sb.buf, "Open MPI") != NULL ||
	    strstr(sb.buf, "OpenRTE") != NULL)
		*fl = MPI_OPENMPI;
	else if (strstr(sb.buf, "HYDRA") != NULL ||
	    strstr(sb.buf, "MPICH") != NULL)
		*fl = MPI_MPICH;
	else
		rc = cause_set(cause,
		    "'%s --version' names neither Open MPI nor MPICH", cmd);
	strbuf_release(&sb);
	return rc;
}

/* ---- the command line -------------------------------------------------------- */

struct argv_b {
	char **v;
	size_t n, a;
};

static void
add(struct argv_b *b, const char *s)
{
	if (b->n + 2 > b->a) {
		b->a = b->a ? 2 * b->a : 32;
		b->v = xreallocarray(b->v, b->a, sizeof *b->v);
	}
	b->v[b->n++] = xstrdup(s);
	b->v[b->n] = NULL;
}

static void
add2(struct argv_b *b, const char *a, const char *c)
{
	add(b, a);
	add(b, c);
}

/* --mca NAME VALUE, unless the user's words set NAME (Open MPI refuses
 * a parameter given twice): theirs wins. */
static void
mca(struct argv_b *b, const struct words *user, const char *name,
    const char *value)
{
	for (size_t i = 1; i + 1 < user->n; i++) {
		if ((strcmp(user->v[i].s, "--mca") == 0 ||
			strcmp(user->v[i].s, "-mca") == 0) &&
		    strcmp(user->v[i + 1].s, name) == 0)
			return;
	}
	add(b, "--mca");
	add2(b, name, value);
}

static void
argv_free(struct argv_b *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i]);
	free(b->v);
}

/* Distinct hosts named by H:N,H:N (1 for none). */
static int
count_hosts(const char *hosts)
{
	char *copy, *save = NULL, *seen[256];
	int n = 0;

	if (hosts == NULL)
		return 1;
	copy = xstrdup(hosts);
	for (char *t = strtok_r(copy, ",", &save); t != NULL && n < 256;
	     t = strtok_r(NULL, ",", &save)) {
		int dup = 0;

		t[strcspn(t, ":")] = '\0';
		for (int i = 0; i < n; i++)
			dup |= strcmp(seen[i], t) == 0;
		if (!dup)
			seen[n++] = t;
	}
	free(copy);
	return n > 0 ? n : 1;
}

/* The launchers' options that name hosts: host files, host lists. */
static const char *const host_files[] = { "-f", "-hostfile", "--hostfile",
	"-machinefile", "--machinefile", "--default-hostfile" };
static const char *const host_lists[] = { "-host", "--host", "-hosts",
	"--hosts", "-H" };

static int
one_of(const char *s, const char *const *set, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (strcmp(s, set[k]) == 0)
			return 1;
	}
	return 0;
}

/* The user's launcher names hosts itself (a host file, a host list). */
static int
names_hosts(const struct words *w)
{
	for (size_t i = 1; i < w->n; i++) {
		if (one_of(w->v[i].s, host_files, ARRAY_SIZE(host_files)) ||
		    one_of(w->v[i].s, host_lists, ARRAY_SIZE(host_lists)))
			return 1;
	}
	return 0;
}

/* The first word of each line of host file path (MPICH's "node1:4",
 * Open MPI's "node1 slots=4"; '#' starts a comment), at most 256. */
static void
file_hosts(const char *path, struct strbuf *out)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int n = 0;

	if (f == NULL)
		return; /* the launcher says why */
	while (n < 256 && fgets(line, sizeof line, f) != NULL) {
		char *h = line + strspn(line, " \t");

		h[strcspn(h, " \t\r\n#")] = '\0';
		if (h[0] == '\0')
			continue;
		strbuf_addf(out, "%s%s", out->len > 0 ? "," : "", h);
		n++;
	}
	fclose(f);
}

void
mpi_launch_hosts(const char *mpirun, struct strbuf *out)
{
	struct words uw = { 0 };

	if (mpirun != NULL && parse_line(mpirun, &uw, NULL, NULL) == PARSE_OK) {
		for (size_t i = 1; i + 1 < uw.n; i++) {
			const char *opt = uw.v[i].s, *val = uw.v[i + 1].s;

			if (one_of(opt, host_lists, ARRAY_SIZE(host_lists)))
				strbuf_addf(out, "%s%s",
				    out->len > 0 ? "," : "", val);
			else if (one_of(opt, host_files, ARRAY_SIZE(host_files)))
				file_hosts(val, out);
		}
	}
	words_free(&uw);
}

/* The plugin of this MPI: next to colldb (a build tree), then the
 * installed one; COLLDB_MPI_PLUGIN overrides both. */
static int
find_plugin(struct mpi_world *w, char **cause)
{
	const char *name = w->flavor == MPI_OPENMPI ? "libcolldb-mpi-openmpi.so" :
						      "libcolldb-mpi-mpich.so";
	const char *env = getenv("COLLDB_MPI_PLUGIN");
	char exe[PATH_MAX];
	ssize_t n;

	if (env != NULL && env[0] != '\0') {
		snprintf(w->plugin, sizeof w->plugin, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof exe - 64);
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(w->plugin, sizeof w->plugin, "%.*s/%s", PATH_MAX - 64,
		    exe, name);
		if (access(w->plugin, R_OK) == 0)
			return 0;
	}
	snprintf(w->plugin, sizeof w->plugin, "%s/%s", COLLDB_LIBDIR, name);
	if (access(w->plugin, R_OK) == 0)
		return 0;
	return cause_set(cause,
	    "this colldb has no %s plugin (%s): it was built without %s",
	    w->flavor == MPI_OPENMPI ? "Open MPI" : "MPICH", name,
	    w->flavor == MPI_OPENMPI ? "mpicc" : "mpicc.mpich");
}

static void
env_default(const char *name, const char *value)
{
	setenv(name, value, 0);
}

/* The child: its own process group, no terminal, output to the pipe;
 * it goes when the shell does (SIGTERM, so that it ends its daemons): a
 * shell killed before the ranks attach leaves no launcher behind (one
 * waiting on an unreachable host waits for ever otherwise). */
static void
launcher_child(struct mpi_world *w, char **argv, int outfd, pid_t shell)
{
	int null = open("/dev/null", O_RDONLY);
	int across = w->opt->hosts != NULL ? count_hosts(w->opt->hosts) > 1 : 0;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != shell) /* it went before the line above */
		_exit(127);
	dup2(null, 0);
	dup2(outfd, 1);
	dup2(outfd, 2);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	setenv("COLLDB_SHELL", w->addr, 1);
	setenv("COLLDB_TOKEN", w->token, 1);
	setenv("COLLDB_MPI_PLUGIN", w->plugin, 1);
	if (w->tmpdir[0] != '\0') /* a rank removes it if we die */
		setenv("COLLDB_MPI_TMPDIR", w->tmpdir, 1);
	unsetenv("COLLDB_SEG_FD");
	if (w->flavor == MPI_OPENMPI && geteuid() == 0) {
		env_default("OMPI_ALLOW_RUN_AS_ROOT", "1");
		env_default("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
	}
	if (w->flavor == MPI_MPICH) {
		if (across || getenv("COLLDB_MPI_ACROSS") != NULL)
			env_default("UCX_TLS", "tcp,self");
		if (w->opt->net != NULL)
			env_default("UCX_NET_DEVICES", w->opt->net);
	}
	execvp(argv[0], argv);
	fprintf(stderr, "colldb: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Where Open MPI's launcher keeps its session files on this host when
 * colldb gives it no directory of its own: TMPDIR's (or /tmp's)
 * ompi.NODE.UID/pid.PID, NODE the host name without its domain.  Its
 * end removes it; mpi_launch_end() removes what a launcher killed
 * leaves. */
static void
ompi_session_dir(struct mpi_world *w, pid_t pid)
{
	const char *base = NULL, *vars[] = { "TMPDIR", "TEMP", "TMP" };
	char host[256] = "";

	for (size_t i = 0; i < ARRAY_SIZE(vars) && base == NULL; i++) {
		if (getenv(vars[i]) != NULL && getenv(vars[i])[0] != '\0')
			base = getenv(vars[i]);
	}
	if (gethostname(host, sizeof host - 1) != 0)
		return;
	if (strspn(host, "0123456789.") != strlen(host)) /* not an address */
		host[strcspn(host, ".")] = '\0';
	snprintf(w->ompi_top, sizeof w->ompi_top, "%s/ompi.%s.%u",
	    base != NULL ? base : "/tmp", host, (unsigned)getuid());
	snprintf(w->ompi_session, sizeof w->ompi_session, "%s/pid.%d",
	    w->ompi_top, (int)pid);
}

int
mpi_launch(struct mpi_world *w, char *const *prog, char **cause)
{
	struct mpi_ranks *o = w->opt;
	struct words uw = { 0 };
	struct argv_b b = { 0 };
	char num[32], *err = NULL;
	int across, outp[2], rc = -1;
	pid_t pid, shell;

	if (parse_line(o->mpirun != NULL ? o->mpirun : "mpirun", &uw, &err,
		NULL) != PARSE_OK ||
	    uw.n == 0) {
		cause_set(cause, "--mpirun '%s': %s",
		    o->mpirun != NULL ? o->mpirun : "",
		    err != NULL ? err : "expected a command");
		goto out;
	}
	for (size_t i = 0; i < uw.n; i++)
		add(&b, uw.v[i].s);
	/* the whole command asked: a wrapper names its MPI too */
	if (mpi_launch_flavor(b.v, &w->flavor, cause) != 0 ||
	    find_plugin(w, cause) != 0)
		goto out;
	argv_free(&b);
	memset(&b, 0, sizeof b);
	across = count_hosts(o->hosts) > 1 || names_hosts(&uw) ||
	    getenv("COLLDB_MPI_ACROSS") != NULL;
	/* the user's words first (a wrapper's too), then colldb's */
	for (size_t i = 0; i < uw.n; i++)
		add(&b, uw.v[i].s);
	if (w->flavor == MPI_OPENMPI) {
		add(&b, "--oversubscribe");
		mca(&b, &uw, "mpi_yield_when_idle", "1");
		if (!across) {
			/* memory, not disk: the windows' shared files live
			 * there; named by the shell's pid: a leak is the dir
			 * of a dead one */
			char tmpl[64], tmpl2[64], *dir;

			snprintf(tmpl, sizeof tmpl,
			    "/dev/shm/colldb-mpi-%d-XXXXXX", (int)getpid());
			snprintf(tmpl2, sizeof tmpl2,
			    "/tmp/colldb-mpi-%d-XXXXXX", (int)getpid());
			if ((dir = mkdtemp(tmpl)) == NULL &&
			    (dir = mkdtemp(tmpl2)) == NULL) {
				cause_set(cause, "mkdtemp: %s", strerror(errno));
				goto out;
			}
			snprintf(w->tmpdir, sizeof w->tmpdir, "%s", dir);
			mca(&b, &uw, "orte_tmpdir_base", w->tmpdir);
			/* its shared memory files too: the window (osc rdma)
			 * and the transfers (btl vader) */
			mca(&b, &uw, "btl_vader_backing_directory", w->tmpdir);
			mca(&b, &uw, "shmem_mmap_relocate_backing_file", "-1");
			mca(&b, &uw, "shmem_mmap_backing_file_base_dir",
			    w->tmpdir);
		} else {
			/* no tmpdir of ours: orte_tmpdir_base goes to every
			 * host's daemon, which leaves the (empty) directory
			 * there; Open MPI's own session directory is removed
			 * by each daemon, and here by mpi_launch_end() */
			mca(&b, &uw, "osc", "pt2pt");
			mca(&b, &uw, "btl", "tcp,self");
		}
		if (o->net != NULL) {
			mca(&b, &uw, "btl_tcp_if_include", o->net);
			mca(&b, &uw, "oob_tcp_if_include", o->net);
		}
		add2(&b, "-x", "COLLDB_SHELL");
		add2(&b, "-x", "COLLDB_TOKEN");
		add2(&b, "-x", "COLLDB_MPI_PLUGIN");
		if (w->tmpdir[0] != '\0')
			add2(&b, "-x", "COLLDB_MPI_TMPDIR");
		if (o->hosts != NULL)
			add2(&b, "--host", o->hosts);
	} else if (o->hosts != NULL) {
		add2(&b, "-hosts", o->hosts);
	}
	snprintf(num, sizeof num, "%d", w->s->nranks);
	add2(&b, "-n", num);
	for (size_t i = 0; prog[i] != NULL; i++)
		add(&b, prog[i]);

	if (pipe2(outp, O_CLOEXEC) != 0) {
		cause_set(cause, "pipe: %s", strerror(errno));
		goto out;
	}
	/* ranks the launcher leaves behind become ours, and are reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	shell = getpid();
	if ((pid = fork()) < 0) {
		cause_set(cause, "fork: %s", strerror(errno));
		close(outp[0]);
		close(outp[1]);
		goto out;
	}
	if (pid == 0)
		launcher_child(w, b.v, outp[1], shell);
	setpgid(pid, pid); /* as the child does: no race either way */
	close(outp[1]);
	if (w->flavor == MPI_OPENMPI && w->tmpdir[0] == '\0')
		ompi_session_dir(w, pid);
	w->launcher = w->pgid = pid;
	w->launcher_out = outp[0];
	fcntl(w->launcher_out, F_SETFL, O_NONBLOCK);
	rc = 0;
out:
	free(err);
	words_free(&uw);
	argv_free(&b);
	return rc;
}

int
mpi_launch_reap(struct mpi_world *w, int *st)
{
	int x = 0;

	if (w->launcher <= 0) {
		*st = w->launcher_status;
		return 1;
	}
	if (waitpid(w->launcher, &x, WNOHANG) != w->launcher)
		return 0;
	w->launcher_status = *st = x;
	w->launcher = 0;
	return 1;
}

void
mpi_launch_describe(int st, struct strbuf *sb)
{
	if (WIFSIGNALED(st))
		strbuf_addf(sb, "killed by %s", signal_name(WTERMSIG(st)));
	else
		strbuf_addf(sb, "exited with status %d", WEXITSTATUS(st));
}

/* rm -r of a directory colldb made (no symlinks followed). */
static void
remove_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;

	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			char *sub;
			struct stat st;

			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			sub = xasprintf("%s/%s", path, e->d_name);
			if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
				remove_tree(sub);
			else
				unlink(sub);
			free(sub);
		}
		closedir(d);
	}
	rmdir(path);
}

void
mpi_launch_end(struct mpi_world *w, int grace_ms)
{
	uint64_t deadline = mono_ns() + (uint64_t)grace_ms * 1000000u;
	int st, sent = 0;

	while (w->launcher > 0 && !mpi_launch_reap(w, &st)) {
		if (mono_ns() >= deadline && sent == 0) {
			kill(-w->launcher, SIGTERM);
			sent = 1;
			deadline = mono_ns() + 2000000000ull;
		} else if (mono_ns() >= deadline && sent == 1) {
			kill(-w->launcher, SIGKILL);
			sent = 2;
		}
		poll(NULL, 0, 5);
	}
	/* what the launcher left behind in its group (a stray rank): killed,
	 * and reaped once it is ours (we are a subreaper) */
	if (w->pgid > 0) {
		deadline = mono_ns() + 2000000000ull;
		kill(-w->pgid, SIGKILL);
		while (kill(-w->pgid, 0) == 0 && mono_ns() < deadline) {
			while (waitpid(-w->pgid, NULL, WNOHANG) > 0)
				;
			poll(NULL, 0, 5);
		}
		while (waitpid(-w->pgid, NULL, WNOHANG) > 0)
			;
	}
	w->pgid = 0;
	if (w->tmpdir[0] != '\0') {
		remove_tree(w->tmpdir);
		w->tmpdir[0] = '\0';
	}
	if (w->ompi_session[0] != '\0') {
		remove_tree(w->ompi_session);
		rmdir(w->ompi_top); /* if nothing else is in it */
		w->ompi_session[0] = w->ompi_top[0] = '\0';
	}
}
