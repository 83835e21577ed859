/* watch-run.c - the watch pane's event loop on a terminal; see watch.h. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "viz.h"
#include "watch.h"

static char watch_errbuf[256];

static int64_t watch_now_ms(void);

const char *
watch_error(void)
{
	return watch_errbuf;
}

static int64_t
watch_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
watch_run(const struct watch_source *src, void *arg, const struct watch_opts *opts)
{
	struct watch_opts o = WATCH_OPTS_INIT;
	struct watch *w;
	struct screen scr;
	struct pollfd pfd[2];
	char *cause = NULL;
	int64_t next, now, ended_at = -1;
	int bits, key, nfd, fd, cols, rows, period, rc = WATCH_ERROR;

	if (opts != NULL)
		o = *opts;
	period = o.interval_ms > 0 ? o.interval_ms : 100;
	fd = o.fd;
	w = watch_new(src, arg, &o);
	screen_init(&scr, 0, 0);
	watch_errbuf[0] = '\0';
	if (viz_init(&cause) != 0) {
		snprintf(watch_errbuf, sizeof watch_errbuf, "%s", cause);
		goto out;
	}
	bits = watch_refresh(w) | VIZ_RESIZE | VIZ_REDRAW;
	next = watch_now_ms() + period;
	for (;;) {
		if (!viz_active()) {
			/* A signal went on to the caller's own handler. */
			rc = WATCH_INTERRUPTED;
			goto out;
		}
		if (bits & VIZ_QUIT)
			break;
		if (bits & VIZ_RESIZE) {
			viz_size(&cols, &rows);
			screen_resize(&scr, cols, rows);
		}
		if (bits & (VIZ_REDRAW | VIZ_RESIZE)) {
			watch_draw(w, &scr);
			viz_paint(&scr, bits & VIZ_RESIZE);
		}
		bits = 0;

		now = watch_now_ms();
		if (watch_ended(w)) {
			if (ended_at < 0)
				ended_at = now;
			if (o.linger_ms >= 0 &&
			    now - ended_at >=
				(o.linger_ms > 0 ? o.linger_ms : 3000))
				break;
		}
		pfd[0] = (struct pollfd){ .fd = viz_key_fd(), .events = POLLIN };
		nfd = 1;
		if (fd > 0)
			pfd[nfd++] =
			    (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(pfd, nfd, (int)MAX(next - now, 0)) < 0 &&
		    errno != EINTR) {
			snprintf(watch_errbuf, sizeof watch_errbuf, "poll: %s",
			    strerror(errno));
			goto out;
		}
		if (nfd > 1 && pfd[1].revents != 0) {
			bits |= src->fd_ready != NULL ? src->fd_ready(arg) :
							VIZ_REFRESH;
			if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL))
				fd = -1;
		}
		while ((key = viz_getkey(0)) != VIZ_KEY_NONE)
			bits |= watch_key(w, key);
		if (bits & VIZ_QUIT)
			continue;
		now = watch_now_ms();
		if (now >= next || (bits & VIZ_REFRESH)) {
			bits |= watch_refresh(w);
			/* Keep the period, not the period plus our work. */
			if (now >= next)
				next += period;
			if (next <= now)
				next = now + period;
		}
	}
	rc = watch_ended(w) ? WATCH_ENDED : WATCH_QUIT;
out:
	viz_done();
	free(cause);
	screen_release(&scr);
	watch_free(w);
	return rc;
}
