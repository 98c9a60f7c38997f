/*
 * Trace paths -> relative paths, '..' resolved lexically.  A trace path is '/'-separated
 * whatever produced it (the SMB producers turn the protocol's '\' into '/'), so '\' here
 * is part of a name: an NFS or POSIX file may be called "a\\b".
 */
#include <errno.h>
#include <string.h>

#include "formats/path.h"

int rp_path_norm(const char *in, uint32_t len, char *out, size_t cap)
{
	size_t o = 0;
	uint32_t i = 0;
	if (cap == 0)
		return -ENAMETOOLONG;
	while (i < len) {
		while (i < len && in[i] == '/')
			i++;
		const uint32_t s = i;
		while (i < len && in[i] != '/') {
			if (in[i] == '\0')
				return -EINVAL;
			i++;
		}
		const uint32_t n = i - s;
		if (n == 0 || (n == 1 && in[s] == '.'))
			continue;
		if (n == 2 && in[s] == '.' && in[s + 1] == '.') {
			/* Up one level; above the client's directory is an escape, never clamped. */
			if (o == 0)
				return -EXDEV;
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		if (o + (o ? 1 : 0) + n + 1 > cap)
			return -ENAMETOOLONG;
		if (o)
			out[o++] = '/';
		memcpy(out + o, in + s, n);
		o += n;
	}
	out[o] = '\0';
	return (int)o;
}
