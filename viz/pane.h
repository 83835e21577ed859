/*
 * pane.h - panes of the watch screen, as const vtables (htop's MeterClass,
 * tmux's window_mode).
 *
 * A pane draws one part of the watch screen into the screen model; it never
 * touches a terminal.  The watch (viz/watch.c) owns the panes, the shared
 * view and the snapshots, and calls, once per event-loop iteration:
 *   update  after a new snapshot, to recompute derived state (highlights);
 *   draw    to render into a rectangle of the screen model;
 *   key     with a key the watch did not take itself.
 *
 * Classes:
 *   pane_ranks_class   a row per rank: state, op, blocked-on cell now/exp.
 *   pane_cells_class   one signal window's cells, rows = ranks, columns =
 *                      cells; changed cells highlighted, awaited cells
 *                      marked '*', owed cells marked '<R' (R = the owing
 *                      rank, '<+' when several owe).  Tab / Shift-Tab pick
 *                      the window, arrows, PgUp/PgDn, '<' '>' and
 *                      Home/End scroll.
 *   pane_text_class    a boxed, scrollable text overlay (help, diagnosis);
 *                      set its text with pane_text_set().
 *
 * Ownership: pane_new() allocates a pane and its class data; pane_free()
 * frees both.  The view is borrowed: it must outlive the pane.
 */
#ifndef COLLDB_VIZ_PANE_H
#define COLLDB_VIZ_PANE_H

#include "screen.h"
#include "snap.h"

/* What the panes of one watch share; owned by the watch. */
struct pane_view {
	const struct snap *snap; /* current snapshot, never NULL */
	const struct snap *prev; /* the one before, NULL at first */
	int top;  /* first rank row shown (ranks and cells panes) */
	int win;  /* window shown by the cells pane (index in wins[]) */
	int left; /* first cell column shown by the cells pane */
	int page; /* rank rows the cells pane showed at its last draw */
	int hold; /* refreshes a change stays highlighted (>= 1) */
};

/* One line of the help overlay: keys and what they do. */
struct pane_help {
	const char *keys;
	const char *text;
};

struct pane;

struct pane_class {
	const char *name;
	/* Keys this class handles, for the help overlay; {NULL} ends it. */
	const struct pane_help *help;
	/* Allocate p->data (may be NULL: no private state). */
	void (*init)(struct pane *p);
	/* Free p->data. */
	void (*free)(struct pane *p);
	/*
	 * view->snap changed (view->prev is the previous one).  Returns
	 * VIZ_REDRAW when what the pane shows changed.  May be NULL.
	 */
	int (*update)(struct pane *p);
	/*
	 * Draw into r of s; r is also the clip rectangle.  Blank cells are
	 * already cleared.  May adjust the view (clamp scrolling, set
	 * page).
	 */
	void (*draw)(struct pane *p, struct screen *s,
	    const struct screen_rect *r);
	/* A key: returns viz_flags bits, 0 when not handled.  May be NULL. */
	int (*key)(struct pane *p, int key);
};

struct pane {
	const struct pane_class *cls;
	struct pane_view *view;
	void *data; /* class-private, owned by the class */
};

extern const struct pane_class pane_ranks_class;
extern const struct pane_class pane_cells_class;
extern const struct pane_class pane_text_class;

struct pane *pane_new(const struct pane_class *cls, struct pane_view *view);
void pane_free(struct pane *p);

/* cls->update() if any, else 0. */
int pane_update(struct pane *p);
/* Clip to r and cls->draw(); the clip is reset afterwards. */
void pane_draw(struct pane *p, struct screen *s, const struct screen_rect *r);
/* cls->key() if any, else 0. */
int pane_key(struct pane *p, int key);

/*
 * pane_ranks.c: rows the ranks pane wants for nranks ranks when h rows are
 * free for ranks and cells together (header included).
 */
int pane_ranks_height(int nranks, int h);

/*
 * pane-text.c: show text (lines split at '\n', tabs expanded) under
 * title in a text pane, scrolled to the top.  Both are copied.
 */
void pane_text_set(struct pane *p, const char *title, const char *text);

/* Helpers shared by the pane files. */
int pane_digits(long v); /* characters of "%ld" */

#endif
