#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fs.h"
#include "io.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define LB_RESOLVE_NO_MAGICLINKS 0x02
#define LB_RESOLVE_IN_ROOT 0x10

struct lb_open_how {
	uint64_t flags, mode, resolve;
};

const char *lb_fs_ident(const struct lb_fs *fs)
{
	if (fs->uuid && *fs->uuid)
		return fs->uuid;
	if (fs->label && *fs->label)
		return fs->label;
	return fs->name ? fs->name : fs->dir;
}

/* Lexically clean a path: drop ., resolve .. without going above the root. */
static int clean(const char *path, char *out, size_t outsz)
{
	size_t o = 0;
	const char *p = path;

	while (*p) {
		const char *s;
		size_t n;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		s = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - s);
		if (n == 1 && s[0] == '.')
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		if (o + 1 + n + 1 > outsz)
			return -ENAMETOOLONG;
		if (o)
			out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
	}
	if (!o) {
		if (outsz < 2)
			return -ENAMETOOLONG;
		out[o++] = '.';
	}
	out[o] = 0;
	return 0;
}

static int open_in(const struct lb_fs *fs, const char *path, int flags)
{
	char rel[4096];
	struct lb_open_how how = { 0 };
	int root, fd, r;

	if (!fs || !fs->dir || !path)
		return -EINVAL;
	if ((r = clean(path, rel, sizeof(rel))))
		return r;
	root = open(fs->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -errno;
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.resolve = LB_RESOLVE_IN_ROOT | LB_RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS) {
		/* old kernel: refuse symlinks in the last component at least */
		fd = openat(root, rel, flags | O_CLOEXEC | O_NOFOLLOW);
	}
	r = fd < 0 ? -errno : fd;
	close(root);
	return r;
}

int lb_fs_open(const struct lb_fs *fs, const char *path)
{
	return open_in(fs, path, O_RDONLY);
}

int lb_fs_read(const struct lb_fs *fs, const char *path, size_t max,
	       char **buf, size_t *len)
{
	struct stat st;
	uint8_t *b;
	size_t n;
	int fd, r;

	fd = lb_fs_open(fs, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else /* regular files only: a FIFO on a disk would block the boot */
		r = lb_read_fd(fd, max, &b, &n);
	close(fd);
	if (r)
		return r;
	*buf = (char *)b;
	if (len)
		*len = n;
	return 0;
}

int lb_fs_stat(const struct lb_fs *fs, const char *path, struct stat *st)
{
	int fd = open_in(fs, path, O_RDONLY | O_PATH), r = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, st) < 0)
		r = -errno;
	close(fd);
	return r;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void lb_fs_list_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int lb_fs_list(const struct lb_fs *fs, const char *path, char ***names,
	       size_t *n)
{
	int fd = open_in(fs, path, O_RDONLY | O_DIRECTORY);
	char **v = NULL;
	size_t k = 0, cap = 0;
	struct dirent *d;
	DIR *dir;

	if (fd < 0)
		return fd;
	if (!(dir = fdopendir(fd))) {
		int r = -errno;
		close(fd);
		return r;
	}
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (k >= 4096)
			break;
		if (k == cap) {
			size_t nc = cap ? cap * 2 : 16;
			char **nv = realloc(v, nc * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
			cap = nc;
		}
		if (!(v[k] = strdup(d->d_name)))
			goto nomem;
		k++;
	}
	closedir(dir);
	if (k)
		qsort(v, k, sizeof(*v), cmpstr);
	*names = v;
	*n = k;
	return 0;
nomem:
	closedir(dir);
	lb_fs_list_free(v, k);
	return -ENOMEM;
}

static const struct lb_fs *by(const struct lb_fsset *s, size_t off,
			      const char *val, int icase)
{
	if (!val)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		const char *f = *(char *const *)((const char *)&s->v[i] + off);
		if (f && (icase ? !strcasecmp(f, val) : !strcmp(f, val)))
			return &s->v[i];
	}
	return NULL;
}

const struct lb_fs *lb_fsset_by_uuid(const struct lb_fsset *s, const char *u)
{
	return by(s, offsetof(struct lb_fs, uuid), u, 1);
}

const struct lb_fs *lb_fsset_by_label(const struct lb_fsset *s, const char *l)
{
	return by(s, offsetof(struct lb_fs, label), l, 0);
}

const struct lb_fs *lb_fsset_by_ident(const struct lb_fsset *s, const char *id)
{
	const struct lb_fs *f;

	if ((f = lb_fsset_by_uuid(s, id)) || (f = lb_fsset_by_label(s, id)) ||
	    (f = by(s, offsetof(struct lb_fs, name), id, 0)) ||
	    (f = by(s, offsetof(struct lb_fs, dir), id, 0)))
		return f;
	return NULL;
}

void lb_fs_free(struct lb_fs *fs)
{
	free(fs->dir);
	free(fs->uuid);
	free(fs->label);
	free(fs->name);
	free(fs->grub);
	free(fs->fstype);
	free(fs->partuuid);
	memset(fs, 0, sizeof(*fs));
}

void lb_fsset_free(struct lb_fsset *s)
{
	for (size_t i = 0; i < s->n; i++)
		lb_fs_free(&s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

int lb_fsset_add(struct lb_fsset *s, const struct lb_fs *fs)
{
	struct lb_fs *v;

	if (s->n >= 256)
		return -E2BIG;
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	s->v[s->n++] = *fs;
	return 0;
}

static const char *const spec_keys[] = { "uuid", "label", "name", "grub", "type", "partuuid" };

static int known_key(const char *s)
{
	for (size_t i = 0; i < sizeof(spec_keys) / sizeof(spec_keys[0]); i++) {
		size_t n = strlen(spec_keys[i]);
		if (!strncmp(s, spec_keys[i], n) && s[n] == '=')
			return 1;
	}
	return 0;
}

static char **key_field(struct lb_fs *fs, const char *k)
{
	char **f[] = { &fs->uuid, &fs->label, &fs->name, &fs->grub, &fs->fstype, &fs->partuuid };

	for (size_t i = 0; i < sizeof(spec_keys) / sizeof(spec_keys[0]); i++)
		if (!strcmp(k, spec_keys[i]))
			return f[i];
	return NULL;
}

int lb_fs_parse_spec(const char *spec, struct lb_fs *fs)
{
	const char *at = strrchr(spec, '@');
	char *opts = NULL, *tok, *next;

	memset(fs, 0, sizeof(*fs));
	if (at && !strchr(at, '='))
		at = NULL;
	if (!(fs->dir = at ? strndup(spec, (size_t)(at - spec)) : strdup(spec)))
		return -ENOMEM;
	if (!(fs->name = strdup(fs->dir)))
		goto nomem;
	if (!at)
		return 0;
	if (!(opts = strdup(at + 1)))
		goto nomem;
	for (tok = opts; tok && *tok; tok = next) {
		char *eq, **dst, *c;

		/* the value runs to the next ",key=" with a known key */
		next = NULL;
		for (c = strchr(tok, ','); c; c = strchr(c + 1, ','))
			if (known_key(c + 1)) {
				*c = 0;
				next = c + 1;
				break;
			}
		if (!(eq = strchr(tok, '=')))
			goto inval;
		*eq++ = 0;
		if (!(dst = key_field(fs, tok)))
			goto inval;
		free(*dst);
		if (!(*dst = strdup(eq)))
			goto nomem;
	}
	free(opts);
	return 0;
inval:
	free(opts);
	lb_fs_free(fs);
	return -EINVAL;
nomem:
	free(opts);
	lb_fs_free(fs);
	return -ENOMEM;
}
