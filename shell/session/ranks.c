/* ranks.c - a rank's liveness, state and current job (session.h). */
#include "session-int.h"

int
rank_alive(struct session *s, int r)
{
	/* alive and still talking to us (not exec'd away) */
	return r >= 0 && r < s->nranks && s->rp[r].alive && s->rp[r].sock >= 0;
}

enum rank_state
rank_state_of(struct session *s, int r)
{
	return view_state(&s->view, r);
}

struct job *
rank_job(struct session *s, int r)
{
	return s->rp[r].jobs;
}
