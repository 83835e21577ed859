/*
 * mpi-int.h - what the files of the mpi kinds share (shell/session/mpi-*.c,
 * rank-mpi.c) and nothing else sees.
 *
 *   mpi-launch.c   the launcher: which MPI, the command line with the
 *                  settings each MPI needs (the one place they live), its
 *                  process group, its output, its end, its files
 *   mpi-attach.c   the control port: token, listening, the ranks'
 *                  attach (constant-time token check), their clocks
 *   mpi-relay.c    the relay thread: every rank's TCP connection beside
 *                  the SEQPACKET pair and output pipe the session uses, as
 *                  for a local rank; board samples, cell reads and span
 *                  records; the segment's sync hooks (core/seg.h)
 *   rank-mpi.c     the two kinds (agents, a user program) and the view
 *
 * Threads: the relay thread touches only what is marked so below (under
 * mu) and the mirror's span rings (it is their producer); everything else
 * is the main thread's.
 */
#ifndef COLLDB_MPI_INT_H
#define COLLDB_MPI_INT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "remote.h"
#include "session-int.h"

enum mpi_flavor { MPI_OPENMPI, MPI_MPICH };

/* One rank's connection, on the shell's side. */
struct mpi_link {
	int tcp;	     /* to the rank's control thread; -1: none */
	int pair;	     /* the relay's end of the session's pair */
	int out;	     /* the write end of the rank's output pipe */
	struct strbuf in;    /* bytes of a message still coming (relay) */
	struct strbuf outq;  /* output the pipe did not take yet (relay) */
	struct strbuf pairq; /* packets for the session not taken yet:
				 * each a struct msg_hdr and its payload */
	int64_t clock;	     /* ns to add to the rank's CLOCK_MONOTONIC */
	uint64_t ctl_sent;   /* MSG_CTL sent (main thread) */
	int signal;	     /* the last signal `kill` sent it (main) */
	int ended_sig;	     /* the signal the launcher says ended it
				  * (main), 0: none said */
	int pid;
	char host[REMOTE_HOST_MAX];
	/* a user rank that said how it ends (MSG_END, core/remote.h) and
	 * waits for the shell's answer (main thread) */
	int end_told;	  /* its end is reported (session_rank_ended()) */
	int end_released; /* it was told to go (mpi_end_go()) */
	uint64_t end_ns;  /* when the shell heard it */
	int end_status;	  /* the wait status it said */
	/* the relay's */
	int ending;   /* MSG_END came: the session's end of the pair
		       * closing does not close the connection */
	int end_sent; /* the go went out */
	/* under mu */
	int end_go;		   /* the main thread lets it go */
	int gone;		   /* its connection closed */
	uint64_t gone_ns;	   /* when the relay saw that */
	uint32_t sample_id;	   /* the last MSG_BOARD's id */
	uint64_t board_seq;	   /* boards received */
	uint64_t merged_seq;	   /* boards merged into the mirror (main) */
	struct remote_board board; /* the last one */
	uint64_t forwarded;	   /* packets put in the session's pair */
	uint64_t board_after;	   /* ... before the last board came */
	/* a read in progress: MSG_DATA with this id lands in rd_buf */
	uint32_t rd_id;
	uint8_t *rd_buf;
	uint64_t rd_off, rd_len;
	int rd_done;
};

struct mpi_world {
	struct session *s;
	struct mpi_ranks *opt;
	int user; /* ranks are a user program's */
	enum mpi_flavor flavor;
	struct mpi_link *links; /* [s->nranks] */
	/* the control port */
	int listen_fd;
	char token[REMOTE_TOKEN_LEN + 1];
	char addr[128]; /* what COLLDB_SHELL says: "10.0.0.1:4242" */
	/* the launcher */
	pid_t launcher;	     /* 0 once reaped */
	pid_t pgid;	     /* its process group, 0 once ended */
	int launcher_out;    /* its stdout and stderr (relay reads) */
	int launcher_status; /* waitpid() status once it ended */
	char tmpdir[96];     /* its session files: removed at the end */
	/* Open MPI's session directory on this host when tmpdir is not
	 * given to it (across hosts): removed at the end if still there */
	char ompi_top[300], ompi_session[320];
	char plugin[4096]; /* COLLDB_MPI_PLUGIN */
	/* what the ranks said */
	char mpi[64]; /* "Open MPI 4.1.4" */
	int nhosts;
	char transport[128]; /* "mpi (Open MPI 4.1.4, 2 hosts)" */
	/* the relay */
	pthread_t relay;
	int relay_on;
	int wake[2]; /* the main thread pokes the relay */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	/* under mu */
	int stopping;
	struct strbuf lines; /* launcher output not printed yet */
	int launcher_ended;  /* the relay saw its output end */
	uint32_t next_id;    /* samples and reads (main thread) */
	int lost;	     /* a connection closed (not at the end) of a
			      * rank that had not finalized */
	int gos;	     /* end_go set and not sent yet */
	/* main thread */
	int culprit;	/* the rank that died first, -1: none */
	int told;	/* its "[rank N] died" line is out: at once when
		      * `kill` sent the signal, else once the launcher had
		      * its say (which signal), in job_lost() */
	int banner_pid; /* MPICH's BAD TERMINATION banner: its PID line */
	char *doing;	/* what the culprit did as it went (" during
			 * allreduce(ring) step 4/105 ..."), or NULL */
	int ended;	/* the job is over (job_lost()) */
};

/* mpi-launch.c */
/* Which MPI the launcher is, from `ARGV... --version`; 0 or -1 + cause. */
int mpi_launch_flavor(char *const *argv, enum mpi_flavor *fl, char **cause);
/* Start the launcher for w (its own process group, output to
 * w->launcher_out); argv is what the ranks run.  0 or -1 + cause. */
int mpi_launch(struct mpi_world *w, char *const *prog, char **cause);
/* The hosts the user's --mpirun words name (a host list's entries, the
 * first word of each line of a host file), "H,H:N,..." added to out
 * (nothing for NULL or no hosts): where the control address is chosen
 * from when --hosts is not given. */
void mpi_launch_hosts(const char *mpirun, struct strbuf *out);
/* Whether the launcher ended (reaps it); its status in *st. */
int mpi_launch_reap(struct mpi_world *w, int *st);
/* End the launcher's process group (TERM, then KILL after grace_ms),
 * reap it, remove its files. */
void mpi_launch_end(struct mpi_world *w, int grace_ms);
/* "exited with status 1", "killed by SIGKILL" */
void mpi_launch_describe(int st, struct strbuf *sb);

/* mpi-attach.c */
/* Listen on the control port and make the token; 0 or -1 + cause. */
int mpi_listen(struct mpi_world *w, char **cause);
/* Accept every rank (refusing strangers), welcome it, wait until each
 * made its window; watches the launcher meanwhile.  0 or -1 + cause. */
int mpi_attach_all(struct mpi_world *w, char **cause);
/* Constant-time comparison of two tokens of REMOTE_TOKEN_LEN digits. */
int mpi_token_eq(const char *a, const char *b);

/* mpi-relay.c */
int mpi_relay_start(struct mpi_world *w, char **cause);
void mpi_relay_stop(struct mpi_world *w);
/* The segment's sync hooks (core/seg.h). */
extern const struct seg_sync mpi_seg_sync;
/* Fresh boards of every live rank, merged into the segment (bounded
 * wait); mpi_merge() merges what came in meanwhile. */
void mpi_sample(struct mpi_world *w);
void mpi_merge(struct mpi_world *w);
/* n bytes at off of rank r's area into dst: 0, or -1 (zeroed). */
int mpi_read(struct mpi_world *w, int r, uint64_t off, void *dst, size_t n);
/* Send rank r a message (through the session's pair, in order). */
int mpi_send(struct mpi_world *w, int r, uint32_t type, uint32_t tag,
    int32_t status, const void *payload, size_t len);
/* Launcher lines not printed yet, taken (the caller frees), or NULL. */
char *mpi_take_lines(struct mpi_world *w);
/* Let rank r, which said MSG_END, go on to its end (the relay answers
 * MSG_END on its connection). */
void mpi_end_go(struct mpi_world *w, int r);

#endif
