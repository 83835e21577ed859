/*
 * call-results.c - the result collection load and call share: each
 * target rank's LOAD or CALL job reports its end here; while the command
 * collects, the result is kept for it, later it prints as an event.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "proto.h"
#include "xmalloc.h"

static struct {
	struct call_result *v;
	size_t n;
	int active;
} results;

void
call_results_begin(void)
{
	call_results_end();
	results.active = 1;
}

void
call_results_end(void)
{
	for (size_t i = 0; i < results.n; i++)
		free(results.v[i].text);
	free(results.v);
	memset(&results, 0, sizeof results);
}

/* A load or call job ended.  While a load/call command collects
 * (call_results_begin()), the result is kept for it; later it prints as an
 * event.  A rank that died reports itself. */
static void
call_job_done(struct session *s, struct job *j, const struct job_end *e)
{
	struct strbuf sb = STRBUF_INIT;
	int status = e->status;
	const char *text = e->text;

	if (status == JOB_DIED)
		return;
	for (size_t i = 0; results.active && i < results.n; i++) {
		struct call_result *cr = &results.v[i];
		if (cr->rank == j->rank && cr->tag == j->tag) {
			cr->done = 1;
			cr->status = status;
			cr->text = xstrdup(text);
			return;
		}
	}
	/* finished after its command returned */
	if (status == DONE_ERROR) {
		out_event(j->rank, "[rank %d] %s failed: %s", j->rank, j->desc,
		    text);
	} else if (status == DONE_ABORTED) {
		/* text: how a call that did not return was ended (core/call.h) */
		out_event(j->rank, "[rank %d] %s interrupted%s%s", j->rank,
		    j->desc, text[0] ? ": " : "", text);
	} else if (j->prog != NULL && j->prog->nmops > 0 &&
	    j->prog->mops[0].kind == UOP_CALL) {
		call_value_format(s, text, &sb);
		out_event(j->rank, "[rank %d] %s %s", j->rank, j->desc, sb.buf);
	}
	strbuf_release(&sb);
}

int
call_submit(struct cmdctx *ctx, int r, struct prog *p, char *desc)
{
	if (cmd_submit_done(ctx, r, p, desc, JOB_CALL, 0, call_job_done) != 0)
		return -1;
	results.v = xreallocarray(results.v, results.n + 1, sizeof *results.v);
	memset(&results.v[results.n], 0, sizeof results.v[0]);
	results.v[results.n].rank = r;
	results.v[results.n].tag = ctx->subs[ctx->nsubs - 1].tag;
	results.n++;
	return 0;
}

struct call_result *
call_results_settle(struct cmdctx *ctx, size_t *n)
{
	session_settle(ctx->s);
	*n = results.n;
	return results.v;
}

/* "= 5", "= &buf[4]", "done" for void. */
void
call_value_format(struct session *s, const char *text, struct strbuf *sb)
{
	if (strcmp(text, "void") == 0) {
		strbuf_addstr(sb, "done");
	} else if (strncmp(text, "f64 ", 4) == 0 ||
	    strncmp(text, "f32 ", 4) == 0) {
		strbuf_addf(sb, "= %g", strtod(text + 4, NULL));
	} else if (strncmp(text, "ptr area+", 9) == 0) {
		uint64_t off = strtoull(text + 9, NULL, 10);
		struct seg_window *w = view_win_at(&s->view, off);

		if (w != NULL && w->off == off) {
			strbuf_addf(sb, "= %s", w->name);
		} else {
			strbuf_addstr(sb, "= &");
			describe_cell(&s->view, off, 1, sb);
		}
	} else if (strchr(text, ' ') != NULL) {
		strbuf_addf(sb, "= %s", strchr(text, ' ') + 1); /* "TYPE VALUE" */
	} else {
		strbuf_addf(sb, "= %s", text);
	}
}

int
call_results_report_errors(struct cmdctx *ctx, size_t col, size_t len)
{
	struct rankset bad;
	const char *first = NULL;
	int nbad = 0, alike = 1;

	rankset_clear(&bad);
	for (size_t i = 0; i < results.n; i++) {
		struct call_result *cr = &results.v[i];
		if (!cr->done || cr->status != DONE_ERROR)
			continue;
		rankset_add(&bad, cr->rank);
		nbad++;
		if (first == NULL)
			first = cr->text;
		else if (strcmp(first, cr->text) != 0)
			alike = 0;
	}
	if (nbad == 0)
		return 0;
	if (alike && (size_t)nbad == results.n) {
		cmd_error(ctx, "%s", first);
		out_caret(col, len);
		return nbad;
	}
	for (size_t i = 0; i < results.n; i++) {
		struct call_result *cr = &results.v[i];
		if (cr->done && cr->status == DONE_ERROR)
			cmd_error(ctx, "rank %d: %s", cr->rank, cr->text);
	}
	(void)ctx;
	return nbad;
}
