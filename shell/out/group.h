/*
 * group.h - many ranks' lines, grouped as STAT groups stack traces.
 *
 * On a large world `ranks`, `where`, `diagnose`, `print` and the rank
 * events would print a line per rank: 1024 lines that say the same thing.
 * A group holds one line of text per rank and gives back one line per
 * kind of line, with the ranks that have it:
 *
 *	ranks 1-1023: stopped  allreduce(ring) step 101/10470405 rs row 0:
 *	    notify 0..1 sig[0,1..1023] 1
 *
 * Texts alike (GROUP_ALIKE): lines that differ only in their numbers are
 * one group when there are more than 3 different ones among them (fewer
 * keep their own exact lines); a number that differs inside it is shown
 * as its lowest and highest value, "lo..hi" (the rank's own cell, its
 * step, its time).
 * Texts equal (GROUP_EQUAL): only identical lines group (values of
 * `print`, which must not be summarised).  Groups come in the order of
 * their first rank; within a rank, a line repeated is a new group each
 * time (a rank's own sequence of events is kept).
 *
 * When: group_wanted() says, from the world size and the `group` setting
 * (auto: worlds of GROUP_MIN_RANKS ranks or more; on; off).  Smaller
 * worlds print a line per rank, as they always did.
 *
 * Ownership: group_new() returns what group_free() frees; texts given to
 * group_add() are copied; what group_each() hands its callback is
 * borrowed for the call.
 */
#ifndef COLLDB_GROUP_H
#define COLLDB_GROUP_H

#include <stddef.h>

#define GROUP_MIN_RANKS 32

enum group_how { GROUP_ALIKE, GROUP_EQUAL };
enum group_setting { GROUP_AUTO, GROUP_ON, GROUP_OFF };

/* The `group` setting (GROUP_AUTO unless set). */
void group_set(enum group_setting how);
enum group_setting group_setting(void);
/* Whether a world of nranks ranks prints grouped lines. */
int group_wanted(int nranks);

struct group;
struct group *group_new(int nranks, enum group_how how);
void group_add(struct group *g, int rank, const char *text);
/* Each group in order: ranks as "1-3,5", how many, the text. */
typedef void (
    *group_fn)(void *arg, const char *ranks, int count, const char *text);
void group_each(struct group *g, group_fn fn, void *arg);
void group_free(struct group *g);

/* "rank" for one, "ranks" for more. */
const char *group_ranks_word(int count);
/* line after its leading "rank N" (all of it when it has none). */
const char *group_after_rank(const char *line);

/*
 * A command's lines, one per rank: "rank N" then the text the caller
 * gives (": idle", "  blocked  wait sig[0] >= 1"), each after indent.
 * When the world groups (group_wanted()) they come out grouped at
 * rank_lines_end(), "ranks 1-3,5" then the merged text; otherwise each
 * line as it is added.  Lines go to out (appended).
 */
struct strbuf;
struct rank_lines {
	struct group *g; /* NULL: not grouping */
	const char *indent;
	struct strbuf *out;
};
void rank_lines_begin(struct rank_lines *rl, int nranks, enum group_how how,
    const char *indent, struct strbuf *out);
void rank_lines_add(struct rank_lines *rl, int rank, const char *text);
void rank_lines_end(struct rank_lines *rl);

#endif
