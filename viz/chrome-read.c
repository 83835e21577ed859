/*
 * chrome-read.c - Chrome trace-event JSON back into spans; see strace.h.
 *
 * simpler's to_chrome_trace() puts each invocation on a synthetic lane:
 * the event "pid" is a lane number, the real pid is only in the lane's
 * process_name metadata ("<label> inv=<n> (pid=<p>)"), and ts/dur are
 * microseconds.  Each "X" event's args carry inv, hid, depth and attrs,
 * which is everything the invocation views need (the OS tid is lost).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../core/xmalloc.h"
#include "strace.h"

struct lane {
	json_int_t lane;
	int64_t pid;
};

static int
cmp_lane(const void *a, const void *b)
{
	json_int_t x = ((const struct lane *)a)->lane;
	json_int_t y = ((const struct lane *)b)->lane;

	return x < y ? -1 : x > y;
}

int
chrome_sniff(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", buf[i]) != NULL && buf[i] != '\0')
		i++;
	if (i < len && buf[i] == '{')
		return 1;
	if (i >= len || buf[i] != '[')
		return 0;
	for (i++;
	     i < len && strchr(" \t\r\n", buf[i]) != NULL && buf[i] != '\0'; i++)
		;
	return i < len && (buf[i] == '{' || buf[i] == ']');
}

/* The integer ns value whose ns / 1000.0 is US (the inverse of the writer). */
static int64_t
us_to_ns(double us)
{
	double x = us * 1000.0;
	int64_t n, d;

	if (!(x >= 0.0) || x >= 9.2e18)
		return -1;
	n = llround(x);
	for (d = 0; d <= 2; d++) {
		if ((double)(n - d) / 1000.0 == us)
			return n - d;
		if ((double)(n + d) / 1000.0 == us)
			return n + d;
	}
	return n;
}

/* Trailing "(pid=<n>)" of a process_name, or -1. */
static int64_t
lane_pid(const char *name)
{
	const char *p = strstr(name, "(pid=");
	const char *last = NULL;
	char *end;
	long long v;

	while (p != NULL) {
		last = p;
		p = strstr(p + 1, "(pid=");
	}
	if (last == NULL)
		return -1;
	v = strtoll(last + 5, &end, 10);
	if (end == last + 5 || *end != ')' || v < 0)
		return -1;
	return v;
}

int
chrome_read(struct span_set *set, const char *buf, size_t len, char **cause)
{
	json_error_t err;
	json_t *root, *events, *ev;
	struct lane *lanes = NULL;
	size_t nlanes = 0, i, skipped = 0;
	int rc = -1;

	root = json_loadb(buf, len, JSON_ALLOW_NUL, &err);
	if (root == NULL)
		return cause_set(cause, "%d:%d: invalid JSON: %s", err.line,
		    err.column, err.text);
	events =
	    json_is_array(root) ? root : json_object_get(root, "traceEvents");
	if (!json_is_array(events)) {
		cause_set(cause,
		    "no \"traceEvents\" array: not a Chrome "
		    "trace-event file");
		goto out;
	}

	lanes = xreallocarray(NULL, json_array_size(events) + 1, sizeof *lanes);
	json_array_foreach(events, i, ev)
	{
		json_t *ph = json_object_get(ev, "ph");
		json_t *nm = json_object_get(ev, "name");
		json_t *args = json_object_get(ev, "args");
		json_t *lp = json_object_get(ev, "pid");
		int64_t pid;

		if (!json_is_string(ph) || strcmp(json_string_value(ph), "M") ||
		    !json_is_string(nm) ||
		    strcmp(json_string_value(nm), "process_name") ||
		    !json_is_integer(lp) || !json_is_object(args) ||
		    !json_is_string(json_object_get(args, "name")))
			continue;
		pid = lane_pid(json_string_value(json_object_get(args, "name")));
		if (pid < 0)
			continue;
		lanes[nlanes].lane = json_integer_value(lp);
		lanes[nlanes++].pid = pid;
	}
	qsort(lanes, nlanes, sizeof *lanes, cmp_lane);

	json_array_foreach(events, i, ev)
	{
		json_t *ph = json_object_get(ev, "ph");
		json_t *nm = json_object_get(ev, "name");
		json_t *args = json_object_get(ev, "args");
		json_t *lp = json_object_get(ev, "pid");
		json_t *tid = json_object_get(ev, "tid");
		json_t *jinv, *jhid, *jdepth, *jattrs;
		struct lane key, *hit;
		int64_t pid, ts, dur;
		const char *hid = "0", *attrs = "";
		size_t hid_len = 1, attrs_len = 0;

		if (!json_is_string(ph) || strcmp(json_string_value(ph), "X"))
			continue;
		jinv = json_object_get(args, "inv");
		jdepth = json_object_get(args, "depth");
		jhid = json_object_get(args, "hid");
		jattrs = json_object_get(args, "attrs");
		if (!json_is_string(nm) || !json_is_integer(lp) ||
		    !json_is_number(json_object_get(ev, "ts")) ||
		    !json_is_number(json_object_get(ev, "dur")) ||
		    !json_is_integer(jinv) || !json_is_integer(jdepth) ||
		    json_integer_value(jinv) < 0 ||
		    json_integer_value(jdepth) < 0 ||
		    json_integer_value(jdepth) > INT32_MAX) {
			skipped++;
			continue;
		}
		ts = us_to_ns(json_number_value(json_object_get(ev, "ts")));
		dur = us_to_ns(json_number_value(json_object_get(ev, "dur")));
		if (ts < 0 || dur < 0) {
			skipped++;
			continue;
		}
		key.lane = json_integer_value(lp);
		hit = nlanes ?
		    bsearch(&key, lanes, nlanes, sizeof *lanes, cmp_lane) :
		    NULL;
		pid = hit != NULL ? hit->pid : (int64_t)key.lane;
		if (json_is_string(jhid)) {
			hid = json_string_value(jhid);
			hid_len = json_string_length(jhid);
		}
		if (json_is_string(jattrs)) {
			attrs = json_string_value(jattrs);
			attrs_len = json_string_length(jattrs);
		}
		span_set_add_n(set, pid,
		    json_is_integer(tid) ? json_integer_value(tid) : 0,
		    (uint64_t)json_integer_value(jinv), hid, hid_len,
		    (int)json_integer_value(jdepth), json_string_value(nm),
		    json_string_length(nm), ts, dur, attrs, attrs_len);
	}
	if (skipped != 0)
		span_set_diag(set, 0,
		    "%zu trace event%s without the "
		    "inv/depth args of a span skipped",
		    skipped, skipped == 1 ? "" : "s");
	rc = 0;
out:
	free(lanes);
	json_decref(root);
	return rc;
}
