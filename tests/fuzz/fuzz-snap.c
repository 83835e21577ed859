/*
 * fuzz-snap.c - libFuzzer harness: the snapshot text reader
 * (viz/snapfile.c) and what is drawn from it: a snapshot that parses must
 * format back to one that parses equal, and the watch pane draws it at two
 * sizes through a few keys.  Seeds: tests/viz/ (*.snap).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "screen.h"
#include "snap.h"
#include "strbuf.h"
#include "viz.h"
#include "watch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static int
src_snapshot(void *arg, struct snap *out)
{
	snap_copy(out, arg);
	return 0;
}

static const struct watch_source src = { .snapshot = src_snapshot };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	struct snap s, back;
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
	struct watch_opts opts = WATCH_OPTS_INIT;
	struct screen scr;
	struct watch *w;
	char *buf = malloc(n + 1), *cause = NULL;
	static const int keys[] = { '\t', VIZ_KEY_DOWN, VIZ_KEY_PGDN, '?',
		VIZ_KEY_RESIZE };

	memcpy(buf, data, n);
	buf[n] = '\0';
	snap_init(&s);
	snap_init(&back);
	if (snap_parse(&s, buf, &cause) != 0)
		goto out;
	snap_format(&s, &text);
	if (snap_parse(&back, text.buf, &cause) != 0 || !snap_equal(&s, &back))
		abort(); /* what it writes it must read back the same */
	screen_init(&scr, 80, 24);
	w = watch_new(&src, &s, &opts);
	watch_refresh(w);
	watch_draw(w, &scr);
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (keys[i] == VIZ_KEY_RESIZE)
			screen_resize(&scr, 20, 5);
		watch_key(w, keys[i]);
		watch_draw(w, &scr);
	}
	dump_screen(&scr, &out, DUMP_STYLES);
	watch_free(w);
	screen_release(&scr);
out:
	free(cause);
	free(buf);
	strbuf_release(&text);
	strbuf_release(&out);
	snap_release(&s);
	snap_release(&back);
	return 0;
}
