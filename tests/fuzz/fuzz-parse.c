/*
 * fuzz-parse.c - libFuzzer harness: the command language's parser
 * (shell/lang/parse.h): a line split into words (quotes, escapes,
 * continuation), then every word through the rank-target, number, shape,
 * list and region parsers, as the commands use them.  Seeds: the golden
 * transcripts' lines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

static void
words(const char *line)
{
	struct words w;
	char *cause = NULL;
	size_t col = 0;

	if (parse_line(line, &w, &cause, &col) != PARSE_OK) {
		free(cause);
		if (w.v != NULL || w.n != 0) /* an error leaves no words */
			abort();
		return;
	}
	for (size_t i = 0; i < w.n; i++) {
		const char *s = w.v[i].s;
		struct rankset rs;
		struct region_syntax rg;
		uint64_t dims[8], u, shape[2] = { 7, 5 };
		int64_t v, list[16];
		double d;
		int nd, nl;
		char *t, *why = NULL;

		if (parse_ranks(s, 16, &rs, &why) == 0)
			free(rankset_format(&rs, 16));
		free(why), why = NULL;
		parse_int(s, &v, 1, &why), free(why), why = NULL;
		parse_uint(s, &u, 1, &why), free(why), why = NULL;
		parse_number(s, &d, &why), free(why), why = NULL;
		parse_shape(s, dims, 8, &nd, &why), free(why), why = NULL;
		parse_int_list(s, list, 16, &nl, &why), free(why), why = NULL;
		if (parse_region_syntax(s, &rg, &why) == 0) {
			uint64_t first, count;
			int cell;
			free(why), why = NULL;
			region_resolve(&rg, shape, 2, &first, &count, &cell,
			    &why);
		}
		free(why);
		t = words_rest(&w, line, i);
		free(t);
		(void)edit_distance(s, "allreduce");
	}
	words_free(&w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *line = malloc(n + 1);

	/* line by line, as a script is read (a NUL ends a line too) */
	for (size_t i = 0; i < n;) {
		size_t k = 0;

		while (i < n && data[i] != '\n' && data[i] != '\0')
			line[k++] = (char)data[i++];
		line[k] = '\0';
		words(line);
		i++;
	}
	free(line);
	return 0;
}
