/* pane.c - pane instances and the calls the watch makes; see pane.h. */
#include <stdlib.h>

#include "../core/xmalloc.h"
#include "pane.h"

struct pane *
pane_new(const struct pane_class *cls, struct pane_view *view)
{
	struct pane *p = xcalloc(1, sizeof *p);

	p->cls = cls;
	p->view = view;
	if (cls->init != NULL)
		cls->init(p);
	return p;
}

void
pane_free(struct pane *p)
{
	if (p == NULL)
		return;
	if (p->cls->free != NULL)
		p->cls->free(p);
	free(p);
}

int
pane_update(struct pane *p)
{
	return p->cls->update != NULL ? p->cls->update(p) : 0;
}

void
pane_draw(struct pane *p, struct screen *s, const struct screen_rect *r)
{
	if (r->w <= 0 || r->h <= 0)
		return;
	screen_clip(s, r);
	p->cls->draw(p, s, r);
	screen_clip(s, NULL);
}

int
pane_key(struct pane *p, int key)
{
	return p->cls->key != NULL ? p->cls->key(p, key) : 0;
}

int
pane_digits(long v)
{
	int n = v < 0 ? 2 : 1;

	while (v <= -10 || v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}
