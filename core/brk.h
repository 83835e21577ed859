/*
 * brk.h - breakpoint matching at the step gate: does micro-op pc of the
 * program a rank runs hit an entry of the segment's breakpoint table
 * (struct seg_break, seg.h)?  Ranks call it; the shell fills the table.
 */
#ifndef COLLDB_BRK_H
#define COLLDB_BRK_H

#include <stdint.h>

#include "prog.h"
#include "seg.h"
#include "site.h"

/*
 * The id of the first breakpoint rank stops at before u, the micro-op at
 * index pc of its program, or 0.  site is the user call the program is
 * (NULL or fn FN_NONE: not a user call).  A hit is counted in the entry;
 * a spent one-shot entry (BRK_ONCE) matches no more, and a per-rank one
 * (BRK_ONCE_PER_RANK) no more for this rank.
 */
uint32_t brk_match(struct seg *sg, int rank, const struct site *site,
    uint32_t pc, const struct uop *u);

/* Whether u touches the cells bp names (BRK_CELLS), on any rank's copy. */
int brk_touches(struct seg *sg, const struct seg_break *bp, const struct uop *u);

/* Whether a call from site is where bp stops (BRK_AT_CALL). */
int brk_site_matches(const struct seg_break *bp, const struct site *site);

#endif
