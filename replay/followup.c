/* Follow-ups a stage leaves to the request lifecycle (replay/followup.h). */
#include "replay/followup.h"

#include <stdlib.h>
#include <string.h>

#include "formats/error.h"

int rp__followup_delete(rp_followups *f, char *path)
{
	if (f->n == f->cap) {
		const size_t cap = f->cap ? f->cap * 2 : 4;
		char **const v = realloc(f->del, cap * sizeof(*v));
		if (!v) {
			free(path);
			return RP_E_NOMEM;
		}
		f->del = v;
		f->cap = cap;
	}
	f->del[f->n++] = path;
	return 0;
}

char *rp__followup_next(rp_followups *f)
{
	if (!f->n)
		return NULL;
	char *const path = f->del[0];
	/* Rarely more than one: a close asks for one delete, the end of a pass for a few. */
	memmove(f->del, f->del + 1, --f->n * sizeof(*f->del));
	return path;
}

void rp__followups_fini(rp_followups *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->del[i]);
	free(f->del);
	*f = (rp_followups){ 0 };
}
