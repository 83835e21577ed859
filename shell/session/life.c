/*
 * life.c - a session's life: its fields, segment and hooks, starting
 * the ranks of its kind, registering it for `colldb watch`, closing it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto.h"
#include "registry.h"
#include "session-int.h"
#include "span.h"
#include "xmalloc.h"

struct session *sess;

void
session_hook_add(struct session *s, const struct session_hook *h)
{
	if (s->nhooks == SESSION_HOOKS_MAX)
		BUG("more than %d session hooks", SESSION_HOOKS_MAX);
	if ((h->job_begin != NULL || h->job_end != NULL) && h->call == NULL)
		BUG("session hook %s follows jobs but not the calls read whole",
		    h->name);
	s->hooks[s->nhooks++] = h;
	if (h->call != NULL)
		s->call_hooks[s->ncall_hooks++] = h;
}

/*
 * Every rank costs the shell two descriptors (its socket, its output):
 * raise the soft limit as far as the hard one allows, or say why the
 * world does not fit.
 */
static int
fds_enough(int nranks, char **cause)
{
	struct rlimit rl;
	rlim_t want = 2 * (rlim_t)nranks + 64;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return 0;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ?
	    want :
	    rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur >= want)
		return 0;
	return cause_set(cause,
	    "%d ranks need %llu open files in the shell; "
	    "the limit is %llu (ulimit -Hn)",
	    nranks, (unsigned long long)want, (unsigned long long)rl.rlim_max);
}

int
session_prepare(struct session *s, int nranks, const char *name, uint64_t area,
    char **cause)
{
	if (fds_enough(nranks, cause) != 0)
		return -1;
	s->nranks = nranks;
	s->transport = "shm";
	snprintf(s->name, sizeof s->name, "%s", name);
	rankset_all(&s->focus, nranks);
	s->next_tag = 1;
	s->next_coll = 1;
	if (s->self_exe == NULL)
		s->self_exe = xstrdup("/proc/self/exe");
	if (seg_create(&s->seg, name, nranks,
		area ? area : seg_default_area(nranks),
		span_ring_default_bytes(nranks), cause) != 0)
		return -1;
	view_seg_init(&s->view, &s->seg);
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->open != NULL)
			s->hooks[i]->open(s);
	}
	proc_watch_children();
	s->rp = xcalloc((size_t)nranks, sizeof *s->rp);
	for (int r = 0; r < nranks; r++) {
		s->rp[r].sock = s->rp[r].out = -1;
		strbuf_init(&s->rp[r].outbuf, 0);
		strbuf_init(&s->rp[r].last_op, 0);
	}
	return 0;
}

void
session_register(struct session *s)
{
	/* a name already in use only costs `colldb watch NAME` */
	char *why = NULL, *note = NULL;

	if (registry_add(s->name, s->seg.fd, s->nranks, &note, &why) == 0)
		s->registered = 1;
	else if (s->interactive)
		fprintf(stderr,
		    "colldb: warning: %s; colldb watch cannot show "
		    "this session\n",
		    why);
	if (note != NULL) /* someone else's file where ours should be */
		fprintf(stderr, "colldb: warning: %s\n", note);
	free(note);
	free(why);
}

int
session_open(struct session *s, const struct rank_kind *kind, void *kind_arg,
    int nranks, const char *name, uint64_t area, char **cause)
{
	s->kind = kind;
	s->kind_arg = kind_arg;
	if (session_prepare(s, nranks, name, area, cause) != 0)
		return -1;
	if (kind->open(s, cause) != 0) {
		session_close(s);
		return -1;
	}
	s->idle_since = mono_ns();
	return 0;
}

static void
jobs_free(struct job **head)
{
	while (*head != NULL) {
		struct job *j = *head;
		*head = j->next;
		job_free(j);
	}
}

void
session_close(struct session *s)
{
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->close != NULL)
			s->hooks[i]->close(s);
	}
	if (s->rp != NULL) {
		for (int r = 0; r < s->nranks; r++) {
			struct rankproc *rp = &s->rp[r];
			if (rp->sock >= 0) {
				struct msg_hdr h = { .type = MSG_QUIT };
				proto_send(rp->sock, &h, NULL);
			}
		}
		if (s->kind->close != NULL)
			s->kind->close(s);
		/* a rank blocked in a wait never reads QUIT: kill them all,
		 * then reap them all (one by one would serialise the exits) */
		for (int r = 0; r < s->nranks; r++) {
			if (s->rp[r].pid > 0 && s->rp[r].alive)
				s->kind->kill(s, r, SIGKILL);
		}
		for (int r = 0; r < s->nranks; r++) {
			struct rankproc *rp = &s->rp[r];
			if (rp->pid > 0 && rp->alive)
				waitpid(rp->pid, NULL, 0);
			if (rp->sock >= 0)
				close(rp->sock);
			if (rp->out >= 0)
				close(rp->out);
			jobs_free(&rp->jobs);
			jobs_free(&rp->orphans);
			strbuf_release(&rp->outbuf);
			strbuf_release(&rp->last_op);
			free(rp->death);
			if (rp->outbox != NULL)
				munmap(rp->outbox, rp->outbox_len);
			user_memo_release(rp);
		}
		free(s->rp);
		s->rp = NULL;
	}
	if (s->seg.h != NULL)
		atomic_store(&s->seg.h->ended, 1);
	if (s->registered)
		registry_remove(s->name);
	s->registered = 0;
	seg_close(&s->seg);
	free(s->over);
	s->over = NULL;
}

void
session_end(struct session *s, const char *why)
{
	if (s->over != NULL)
		return;
	for (int i = 0; i < s->nhooks; i++) {
		if (s->hooks[i]->ending != NULL)
			s->hooks[i]->ending(s);
	}
	s->over = xstrdup(why);
}
