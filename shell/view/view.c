/* view.c - what every view gets without implementing it (view.h). */
#include "view.h"

int
view_first_nonzero_read(struct view *v, int r, uint64_t off, uint64_t n,
    uint64_t *at)
{
	uint8_t buf[16384];

	for (uint64_t done = 0; done < n;) {
		size_t k = (size_t)MIN(sizeof buf, n - done);

		if (view_read(v, r, off + done, buf, k) != 0)
			return -1;
		for (size_t i = 0; i < k; i++) {
			if (buf[i] != 0) {
				*at = off + done + i;
				return 1;
			}
		}
		done += k;
	}
	return 0;
}

int
view_first_nonzero(struct view *v, int r, uint64_t off, uint64_t n, uint64_t *at)
{
	if (v->ops->first_nonzero != NULL)
		return v->ops->first_nonzero(v, r, off, n, at);
	return view_first_nonzero_read(v, r, off, n, at);
}
