/* trace-meta.c - the header of a trace colldb saved; see trace-meta.h. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "strbuf.h"
#include "xmalloc.h"
#include "trace-meta.h"

#define STRACE_HEAD "[colldb] trace v=1"
#define JSON_HEAD "{\"colldb\": "

void
trace_meta_strace(const struct trace_meta *m, struct strbuf *sb)
{
	strbuf_addf(sb, STRACE_HEAD " ranks=%d", m->ranks);
	if (m->root != NULL)
		strbuf_addf(sb, " root=%s", m->root);
	if (m->rounds >= 0)
		strbuf_addf(sb, " rounds=%ld", m->rounds);
	if (m->warmup >= 0)
		strbuf_addf(sb, " warmup=%ld", m->warmup);
}

void
trace_meta_json(const struct trace_meta *m, struct strbuf *sb)
{
	/* root is [A-Za-z0-9_-]+ (the writer makes sure): nothing to escape */
	strbuf_addf(sb, "{\"trace\": 1, \"ranks\": %d", m->ranks);
	if (m->root != NULL)
		strbuf_addf(sb, ", \"root\": \"%s\"", m->root);
	if (m->rounds >= 0)
		strbuf_addf(sb, ", \"rounds\": %ld", m->rounds);
	if (m->warmup >= 0)
		strbuf_addf(sb, ", \"warmup\": %ld", m->warmup);
	strbuf_addch(sb, '}');
}

static int
word_value(const char *line, size_t len, const char *key, const char **v,
    size_t *vlen)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k < len; i++) {
		if ((i == 0 || line[i - 1] == ' ') &&
		    strncmp(line + i, key, k) == 0 && line[i + k] == '=') {
			size_t e = i + k + 1;

			*v = line + e;
			while (e < len && line[e] != ' ' && line[e] != '\r')
				e++;
			*vlen = (size_t)(line + e - *v);
			return 1;
		}
	}
	return 0;
}

static long
word_long(const char *line, size_t len, const char *key, long dflt)
{
	const char *v;
	size_t n;
	char tmp[24], *end;
	long x;

	if (!word_value(line, len, key, &v, &n) || n == 0 || n >= sizeof tmp)
		return dflt;
	memcpy(tmp, v, n);
	tmp[n] = '\0';
	x = strtol(tmp, &end, 10);
	return *end == '\0' && x >= 0 ? x : dflt;
}

static int
read_strace(const char *buf, size_t len, struct trace_meta *m)
{
	const char *nl = memchr(buf, '\n', len), *v;
	size_t n = nl != NULL ? (size_t)(nl - buf) : len, vlen;

	m->ranks = (int)word_long(buf, n, "ranks", 0);
	if (word_value(buf, n, "root", &v, &vlen) && vlen > 0)
		m->root = xstrndup(v, vlen);
	m->rounds = word_long(buf, n, "rounds", -1);
	m->warmup = word_long(buf, n, "warmup", -1);
	return 1;
}

static int
read_json(const char *buf, size_t len, struct trace_meta *m)
{
	size_t off = strlen(JSON_HEAD);
	json_error_t err;
	json_t *o, *v;

	o = json_loadb(buf + off, len - off, JSON_DISABLE_EOF_CHECK, &err);
	if (!json_is_object(o) || !json_is_integer(json_object_get(o, "trace"))) {
		json_decref(o);
		return 0;
	}
	if (json_is_integer(v = json_object_get(o, "ranks")))
		m->ranks = (int)json_integer_value(v);
	if (json_is_string(v = json_object_get(o, "root")))
		m->root = xstrdup(json_string_value(v));
	if (json_is_integer(v = json_object_get(o, "rounds")) &&
	    json_integer_value(v) >= 0)
		m->rounds = (long)json_integer_value(v);
	if (json_is_integer(v = json_object_get(o, "warmup")) &&
	    json_integer_value(v) >= 0)
		m->warmup = (long)json_integer_value(v);
	json_decref(o);
	return 1;
}

int
trace_meta_read(const char *buf, size_t len, struct trace_meta *m)
{
	memset(m, 0, sizeof *m);
	m->rounds = m->warmup = -1;
	if (len >= strlen(STRACE_HEAD) &&
	    strncmp(buf, STRACE_HEAD, strlen(STRACE_HEAD)) == 0)
		return read_strace(buf, len, m);
	if (len > strlen(JSON_HEAD) &&
	    strncmp(buf, JSON_HEAD, strlen(JSON_HEAD)) == 0)
		return read_json(buf, len, m);
	return 0;
}

void
trace_meta_release(struct trace_meta *m)
{
	free(m->root);
	m->root = NULL;
}
