/* A spool directory's life outside its rings (capture/preload/spool_dir.c): where it is made, its removal, the sweep of orphans. */
#ifndef REPRISE_CAPTURE_SPOOL_DIR_H
#define REPRISE_CAPTURE_SPOOL_DIR_H

#include <stdbool.h>

/* A spool directory's name: this, then mkdtemp's six characters. */
#define RP__SPOOL_PREFIX "reprise-spool-"

/* Where spools are made when the caller names no directory: /dev/shm if it is one, else $TMPDIR, else /tmp. */
const char *rp__spool_default_dir(void);
/* Unlink what directory fd holds; fd stays open.  Whether anything was there. */
bool rp__spool_empty(int fd);
/*
 * Remove spool directory fd, named name in parent (AT_FDCWD and a path
 * too): renamed to name.gone first, so no traced program makes a ring in it
 * while it is emptied.  0, or -1 (retired by someone else first, or not
 * removed).  fd stays open.
 */
int rp__spool_retire(int parent, const char *name, int fd);

#endif
