/*
 * Follow-ups (followup.c): what a stage of an op's end, the NT layer or
 * sharing, leaves to the request lifecycle rather than issuing it itself:
 * the delete a delete-on-close asks for at the last close.  The client
 * issues them through req.c like any request (client_req.c), in the order
 * they were asked, before its next op.
 */
#ifndef REPRISE_REPLAY_FOLLOWUP_H
#define REPRISE_REPLAY_FOLLOWUP_H

#include <stddef.h>

typedef struct rp_followups {
	char **del; /* paths to delete (owned), in the order asked */
	size_t n, cap;
} rp_followups;

/* Ask for the delete of path, a malloc'd string the list takes (freed at once when it cannot): 0 or RP_E_NOMEM. */
int rp__followup_delete(rp_followups *f, char *path);
/* The oldest follow-up, now the caller's to free; NULL when there is none. */
char *rp__followup_next(rp_followups *f);
/* Drop what is left (a client without a backend state cannot issue it) and the list's memory. */
void rp__followups_fini(rp_followups *f);

#endif
