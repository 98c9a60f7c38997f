/* Trace paths as relative '/'-separated paths (SMB '\' and NFS/syscall '/' alike): replay and trace analysis share one form. */
#ifndef REPRISE_FORMATS_PATH_H
#define REPRISE_FORMATS_PATH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Normalise in[0..len) to out: separator '/' ('\' is part of a name: the
 * SMB producers already wrote SMB's separators as '/'), empty and '.'
 * components dropped, '..' resolved lexically.  Returns the length, or
 * -EXDEV (climbs above the top: never clamped), -ENAMETOOLONG (does not fit
 * cap with its NUL), -EINVAL (a NUL inside).
 */
int rp_path_norm(const char *in, uint32_t len, char *out, size_t cap);

#endif
