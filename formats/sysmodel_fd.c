/* The syscall model's fd tables and paths: handles, positions, joins to the dirfd or cwd (docs/syscall-capture.md, docs/strace.md). */
#include "formats/sysmodel_int.h"

#include <stdlib.h>
#include <string.h>

#include "formats/error.h"

static uint32_t hash32(uint32_t k)
{
	return k * 2654435761u;
}

uint32_t rp__sm_map_get(const rp__sm_map *mp, uint32_t key)
{
	if (!mp->cap)
		return 0;
	for (uint32_t h = hash32(key) & (mp->cap - 1);; h = (h + 1) & (mp->cap - 1)) {
		if (!mp->val[h])
			return 0;
		if (mp->key[h] == key)
			return mp->val[h];
	}
}

static void put_slot(uint32_t *keys, uint32_t *vals, uint32_t cap, uint32_t key, uint32_t val, bool *added)
{
	uint32_t h = hash32(key) & (cap - 1);
	while (vals[h] && keys[h] != key)
		h = (h + 1) & (cap - 1);
	*added = !vals[h];
	keys[h] = key;
	vals[h] = val;
}

int rp__sm_map_put(rp__sm_map *mp, uint32_t key, uint32_t val)
{
	if (2u * (mp->n + 1) > mp->cap) {
		/* at most half full, so a probe always ends at an empty slot */
		const uint32_t ncap = mp->cap ? 2u * mp->cap : 64u;
		uint32_t *const nk = calloc(ncap, sizeof(*nk));
		uint32_t *const nv = calloc(ncap, sizeof(*nv));
		if (!nk || !nv || ncap < mp->cap) {
			free(nk);
			free(nv);
			return RP_E_NOMEM;
		}
		for (uint32_t i = 0; i < mp->cap; i++) {
			bool added;
			if (mp->val[i])
				put_slot(nk, nv, ncap, mp->key[i], mp->val[i], &added);
		}
		free(mp->key);
		free(mp->val);
		mp->key = nk;
		mp->val = nv;
		mp->cap = ncap;
	}
	bool added;
	put_slot(mp->key, mp->val, mp->cap, key, val, &added);
	mp->n += added;
	return 0;
}

void rp__sm_map_free(rp__sm_map *mp)
{
	free(mp->key);
	free(mp->val);
	*mp = (rp__sm_map){ 0 };
}

rp__sm_fd *rp__sm_fd_slot(rp_sysmodel *m, rp__sm_proc *p, int64_t fd, bool grow)
{
	if (fd < 0)
		return NULL;
	if (fd >= RP__SM_FD_MAX) {
		m->st.limits++;
		return NULL;
	}
	if ((uint64_t)fd < p->cap)
		return &p->fds[fd];
	if (!grow)
		return NULL;
	uint32_t ncap = p->cap ? p->cap : 16;
	while (ncap <= (uint64_t)fd)
		ncap *= 2;
	if (m->fd_slots + (ncap - p->cap) > RP__SM_FD_BUDGET) {
		m->st.limits++;
		return NULL;
	}
	rp__sm_fd *const nv = realloc(p->fds, (size_t)ncap * sizeof(*nv));
	if (!nv) {
		m->st.limits++; /* as a limit: the fd is not tracked, and the model goes on */
		return NULL;
	}
	memset(nv + p->cap, 0, (size_t)(ncap - p->cap) * sizeof(*nv));
	m->fd_slots += ncap - p->cap;
	p->fds = nv;
	p->cap = ncap;
	return &p->fds[fd];
}

uint64_t rp__sm_new_fd(rp_sysmodel *m, rp__sm_proc *p, int64_t fd, uint32_t path, bool cloexec, uint64_t pos)
{
	const uint64_t h = ++m->next_handle;
	rp__sm_fd *const e = rp__sm_fd_slot(m, p, fd, true);
	if (e)
		*e = (rp__sm_fd){ .handle = h, .pos = pos, .path = path, .state = RP__SM_FILE, .cloexec = cloexec };
	return h;
}

int rp__sm_copy_fds(rp_sysmodel *m, rp__sm_proc *dst, const rp__sm_proc *src)
{
	rp__sm_drop_fds(m, dst);
	dst->cwd = src->cwd;
	if (!src->cap)
		return 0;
	if (m->fd_slots + src->cap > RP__SM_FD_BUDGET) {
		m->st.limits++;
		return 1;
	}
	dst->fds = malloc((size_t)src->cap * sizeof(*dst->fds));
	if (!dst->fds) {
		m->st.limits++;
		return 1;
	}
	memcpy(dst->fds, src->fds, (size_t)src->cap * sizeof(*dst->fds));
	dst->cap = src->cap;
	m->fd_slots += src->cap;
	return 0;
}

void rp__sm_drop_fds(rp_sysmodel *m, rp__sm_proc *p)
{
	m->fd_slots -= p->cap;
	free(p->fds);
	p->fds = NULL;
	p->cap = 0;
}

void rp__sm_exec(rp__sm_proc *p)
{
	for (uint32_t fd = 0; fd < p->cap; fd++)
		if (p->fds[fd].state != RP__SM_FREE && p->fds[fd].cloexec)
			p->fds[fd] = (rp__sm_fd){ 0 };
}

int64_t rp__sm_intern(rp_sysmodel *m, const char *s, uint32_t len)
{
	int added;
	return rp_strtab_intern(m->paths, s, len, &added);
}

/* The directory a relative path is joined to: its local id, 0 when unknown. */
static uint32_t dir_of(rp__sm_proc *p, int64_t dirfd)
{
	if (dirfd == RP__SM_AT_FDCWD)
		return p->cwd;
	if (dirfd < 0 || (uint64_t)dirfd >= p->cap)
		return 0;
	const rp__sm_fd *const e = &p->fds[dirfd];
	return e->state == RP__SM_FILE ? e->path : 0;
}

int rp__sm_path(rp_sysmodel *m, rp__sm_proc *p, int64_t dirfd, const char *s, uint32_t len, uint32_t *id)
{
	const uint32_t dir = len && s[0] == '/' ? 0 : dir_of(p, dirfd);
	uint32_t dlen = 0;
	const char *const d = dir ? rp_strtab_get(m->paths, dir, &dlen) : NULL;
	const char *out = s;
	uint32_t total = len;
	if (d && dlen) {
		if (len == 0) {
			out = d; /* AT_EMPTY_PATH: the directory fd itself */
			total = dlen;
		} else {
			const bool slash = d[dlen - 1] == '/';
			total = dlen + !slash + len;
			if (total > RP_STR_MAX)
				return 0;
			memcpy(m->jbuf, d, dlen);
			if (!slash)
				m->jbuf[dlen] = '/';
			memcpy(m->jbuf + dlen + !slash, s, len);
			out = m->jbuf;
		}
	}
	if (total > RP_STR_MAX)
		return 0;
	const int64_t got = rp__sm_intern(m, out ? out : "", total);
	if (got < 0)
		return (int)got;
	*id = (uint32_t)got;
	return 1;
}

int rp__sm_renamed(rp_sysmodel *m, uint32_t from, uint32_t to)
{
	uint32_t flen = 0, tlen = 0;
	const char *const f = rp_strtab_get(m->paths, from, &flen);
	const char *const t = rp_strtab_get(m->paths, to, &tlen);
	if (!f || !t || !flen)
		return 0;
	for (uint32_t i = 0; i < m->n_procs; i++) {
		rp__sm_proc *const p = &m->procs[i];
		for (uint32_t fd = 0; fd < p->cap; fd++) {
			rp__sm_fd *const e = &p->fds[fd];
			if (e->state != RP__SM_FILE || !e->path)
				continue;
			if (e->path == from) {
				e->path = to;
				continue;
			}
			uint32_t len = 0;
			const char *const s = rp_strtab_get(m->paths, e->path, &len);
			/* beneath a directory renamed: the same name under the new one */
			if (!s || len <= flen || s[flen] != '/' || memcmp(s, f, flen) != 0 || tlen + (len - flen) > RP_STR_MAX)
				continue;
			memcpy(m->jbuf, t, tlen);
			memcpy(m->jbuf + tlen, s + flen, len - flen);
			const int64_t id = rp__sm_intern(m, m->jbuf, tlen + (len - flen));
			if (id < 0)
				return (int)id;
			e->path = (uint32_t)id;
		}
	}
	return 0;
}
