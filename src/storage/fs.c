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
	if (fs->ambiguous && fs->name && *fs->name)
		return fs->name;
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

/*
 * Resolution inside the root. With openat2: RESOLVE_IN_ROOT (the kernel
 * resolves `..` and symlinks as if fs->dir were /). Without it (ENOSYS,
 * kernels before 5.6, or lb_fs_no_openat2 set by a test), walk() does the
 * same by hand: one component at a time with O_NOFOLLOW, a symlink's text
 * read and spliced in front of the rest (absolute: from the root again),
 * `..` clamped at the root and checked against the directory it came from,
 * at most LB_MAXSYMLINKS symlinks per lookup as the kernel (ELOOP).
 */
int lb_fs_no_openat2;
static int have_no_openat2; /* the kernel said ENOSYS once */

#define LB_MAXSYMLINKS 40
#define WALK_MAX_DEPTH 4096 /* directories deep */

struct ident {
	dev_t dev;
	ino_t ino;
};

struct target {
	int root;        /* fs->dir, O_PATH */
	int dir;         /* walk(): the directory holding name, or -1 */
	char rel[4096];  /* the cleaned path, relative to the root */
	char name[256];  /* walk(): the last component (never a symlink) or "." */
};

static int walk(int root, const char *rel, int *dirfd, char *last, size_t lastsz)
{
	struct ident *up = NULL, cur_id;
	size_t depth = 0, cap = 0, pos = 0;
	char *rest, *link = NULL;
	int cur, links = 0, r;
	struct stat st;

	if (!(rest = strdup(rel)))
		return -ENOMEM;
	if (!(link = malloc(4096))) {
		free(rest);
		return -ENOMEM;
	}
	if ((cur = fcntl(root, F_DUPFD_CLOEXEC, 3)) < 0 || fstat(cur, &st) < 0) {
		r = -errno;
		goto out;
	}
	cur_id = (struct ident){ st.st_dev, st.st_ino };
	for (;;) {
		size_t s, n;
		int fd, is_last, slash;

		while (rest[pos] == '/')
			pos++;
		if (!rest[pos]) {
			strcpy(last, ".");
			break;
		}
		s = pos;
		while (rest[pos] && rest[pos] != '/')
			pos++;
		n = pos - s;
		slash = rest[pos] == '/';
		while (rest[pos] == '/')
			pos++;
		is_last = !rest[pos];
		if (n == 1 && rest[s] == '.')
			continue;
		if (n == 2 && rest[s] == '.' && rest[s + 1] == '.') {
			if (!depth) /* clamped at the root */
				continue;
			fd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st) < 0) {
				r = -errno;
				if (fd >= 0)
					close(fd);
				goto out;
			}
			depth--;
			if (st.st_dev != up[depth].dev || st.st_ino != up[depth].ino) {
				close(fd); /* moved while we walked */
				r = -EAGAIN;
				goto out;
			}
			close(cur);
			cur = fd;
			cur_id = up[depth];
			continue;
		}
		if (n >= lastsz || n > 255) {
			r = -ENAMETOOLONG;
			goto out;
		}
		memcpy(last, rest + s, n);
		last[n] = 0;
		fd = openat(cur, last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t k = readlinkat(fd, "", link, 4096);
			size_t tail = strlen(rest + pos);
			char *nr;

			close(fd);
			if (++links > LB_MAXSYMLINKS) {
				r = -ELOOP;
				goto out;
			}
			if (k < 0) {
				r = -errno;
				goto out;
			}
			if (k == 0 || k >= 4096) {
				r = k ? -ENAMETOOLONG : -ENOENT;
				goto out;
			}
			/* the link's text, then what followed it */
			if (!(nr = malloc((size_t)k + 1 + tail + 1))) {
				r = -ENOMEM;
				goto out;
			}
			memcpy(nr, link, (size_t)k);
			nr[k] = '/';
			memcpy(nr + k + 1, rest + pos, tail + 1);
			if (!tail && !slash)
				nr[k] = 0; /* keep "link" and "link/" apart */
			free(rest);
			rest = nr;
			pos = 0;
			if (link[0] == '/') { /* absolute: from the root */
				if ((fd = fcntl(root, F_DUPFD_CLOEXEC, 3)) < 0) {
					r = -errno;
					goto out;
				}
				close(cur);
				cur = fd;
				depth = 0;
				if (fstat(cur, &st) < 0) {
					r = -errno;
					goto out;
				}
				cur_id = (struct ident){ st.st_dev, st.st_ino };
			}
			continue;
		}
		if (is_last) {
			close(fd);
			if (slash && !S_ISDIR(st.st_mode)) {
				r = -ENOTDIR;
				goto out;
			}
			break;
		}
		if (!S_ISDIR(st.st_mode)) {
			close(fd);
			r = -ENOTDIR;
			goto out;
		}
		if (depth == cap) {
			struct ident *nu;

			if (cap >= WALK_MAX_DEPTH) {
				close(fd);
				r = -ENAMETOOLONG;
				goto out;
			}
			cap = cap ? cap * 2 : 16;
			if (!(nu = realloc(up, cap * sizeof(*up)))) {
				close(fd);
				r = -ENOMEM;
				goto out;
			}
			up = nu;
		}
		up[depth++] = cur_id;
		close(cur);
		cur = fd;
		cur_id = (struct ident){ st.st_dev, st.st_ino };
	}
	*dirfd = cur;
	cur = -1;
	r = 0;
out:
	if (cur >= 0)
		close(cur);
	free(up);
	free(link);
	free(rest);
	return r;
}

static int target_init(const struct lb_fs *fs, const char *path, struct target *t)
{
	int r;

	t->root = t->dir = -1;
	if (!fs || !fs->dir || !path)
		return -EINVAL;
	if ((r = clean(path, t->rel, sizeof(t->rel))))
		return r;
	t->root = open(fs->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return t->root < 0 ? -errno : 0;
}

static void target_done(struct target *t)
{
	if (t->dir >= 0)
		close(t->dir);
	if (t->root >= 0)
		close(t->root);
}

/* Open the target with flags (O_CLOEXEC added); the last component is
 * followed when it is a symlink (inside the root). */
static int target_open(struct target *t, int flags)
{
	int fd, r;

	if (!lb_fs_no_openat2 && !have_no_openat2) {
		struct lb_open_how how = { 0 };

		how.flags = (uint64_t)(flags | O_CLOEXEC);
		how.resolve = LB_RESOLVE_IN_ROOT | LB_RESOLVE_NO_MAGICLINKS;
		fd = (int)syscall(SYS_openat2, t->root, t->rel, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno != ENOSYS)
			return -errno;
		have_no_openat2 = 1;
	}
	if (t->dir < 0 &&
	    (r = walk(t->root, t->rel, &t->dir, t->name, sizeof(t->name))))
		return r;
	fd = openat(t->dir, t->name, flags | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 ? -errno : fd;
}

enum want { WANT_ANY, WANT_FILE, WANT_DIR };

/*
 * Nothing found on a scanned filesystem may block or touch a driver: the
 * target is first opened with O_PATH (which opens nothing: a FIFO, socket
 * or device node is only looked up) and its type checked; only a regular
 * file or a directory is then opened for reading, with O_NONBLOCK and
 * O_NOCTTY, and must be the same inode as the one checked.
 * WANT_ANY returns the O_PATH fd (for fstat).
 */
static int open_in(const struct lb_fs *fs, const char *path, enum want want,
		   struct stat *out)
{
	struct target t;
	struct stat a, b;
	int fd, r;

	if ((r = target_init(fs, path, &t)))
		goto out;
	if ((fd = r = target_open(&t, O_PATH)) < 0)
		goto out;
	if (fstat(fd, &a) < 0) {
		r = -errno;
		close(fd);
		goto out;
	}
	if (want == WANT_ANY) {
		*out = a;
		goto out; /* r = fd */
	}
	close(fd);
	if (want == WANT_FILE && !S_ISREG(a.st_mode)) {
		r = S_ISDIR(a.st_mode) ? -EISDIR : -EINVAL;
		goto out;
	}
	if (want == WANT_DIR && !S_ISDIR(a.st_mode)) {
		r = -ENOTDIR;
		goto out;
	}
	fd = target_open(&t, O_RDONLY | O_NONBLOCK | O_NOCTTY |
				     (want == WANT_DIR ? O_DIRECTORY : 0));
	if (fd < 0) {
		r = fd;
		goto out;
	}
	if (fstat(fd, &b) < 0) {
		r = -errno;
		close(fd);
		goto out;
	}
	if (b.st_dev != a.st_dev || b.st_ino != a.st_ino ||
	    (b.st_mode & S_IFMT) != (a.st_mode & S_IFMT)) {
		r = -EAGAIN; /* replaced between the check and the open */
		close(fd);
		goto out;
	}
	if (want == WANT_FILE) {
		int fl = fcntl(fd, F_GETFL);

		if (fl >= 0)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	}
	*out = b;
	r = fd;
out:
	target_done(&t);
	return r;
}

int lb_fs_open(const struct lb_fs *fs, const char *path)
{
	struct stat st;

	return open_in(fs, path, WANT_FILE, &st);
}

void (*lb_fs_read_hook)(void *arg, const struct lb_fs *fs, const char *path,
			const uint8_t *buf, size_t len);
void *lb_fs_read_hook_arg;

static int fs_read(const struct lb_fs *fs, const char *path, size_t max,
		   char **buf, size_t *len)
{
	uint8_t *b;
	size_t n;
	int fd, r;

	fd = lb_fs_open(fs, path);
	if (fd < 0)
		return fd;
	r = lb_read_fd(fd, max, &b, &n);
	close(fd);
	if (r)
		return r;
	*buf = (char *)b;
	*len = n;
	return 0;
}

static int fs_stat(const struct lb_fs *fs, const char *path, struct stat *st)
{
	int fd = open_in(fs, path, WANT_ANY, st);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
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

static int fs_list(const struct lb_fs *fs, const char *path, char ***names,
		   size_t *n)
{
	struct stat st;
	int fd = open_in(fs, path, WANT_DIR, &st);
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

/* ------------------------------------------------------------------ */
/* lb_fs_memo: a snapshot of what was read, for trees that never change */

enum memo_kind { M_READ, M_STAT, M_LIST };

struct memo {
	const struct lb_fs *fs;
	char *path;
	enum memo_kind kind;
	size_t max;     /* M_READ: the limit it was read with */
	int r;          /* what the call returned */
	char *buf;      /* M_READ: the bytes, NUL-terminated */
	size_t len;     /* M_READ: their length; M_LIST: names */
	char **names;   /* M_LIST */
	struct stat st; /* M_STAT */
};

#define MEMO_SLOTS 4096 /* a power of two */
#define MEMO_MAX (MEMO_SLOTS / 2)

static struct memo *memo; /* MEMO_SLOTS slots when on */
static size_t memo_n;

static void memo_clear(void)
{
	for (size_t i = 0; memo && i < MEMO_SLOTS; i++) {
		free(memo[i].path);
		free(memo[i].buf);
		lb_fs_list_free(memo[i].names, memo[i].len * (memo[i].kind == M_LIST));
	}
	free(memo);
	memo = NULL;
	memo_n = 0;
}

int lb_fs_memo(int on)
{
	memo_clear();
	if (on && !(memo = calloc(MEMO_SLOTS, sizeof(*memo))))
		return -ENOMEM;
	return 0;
}

/* The slot of (fs, path, kind, max): the entry, or the empty slot where it
 * goes; NULL when memoising is off. */
static struct memo *memo_slot(const struct lb_fs *fs, const char *path,
			      enum memo_kind kind, size_t max)
{
	uint64_t h = 1469598103934665603ull ^ (uintptr_t)fs ^ ((uint64_t)kind << 56) ^ max;

	if (!memo)
		return NULL;
	for (const char *p = path; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (size_t i = h & (MEMO_SLOTS - 1);; i = (i + 1) & (MEMO_SLOTS - 1)) {
		struct memo *m = &memo[i];

		/* at most MEMO_MAX of the slots are taken: an empty one comes */
		if (!m->path || (m->fs == fs && m->kind == kind && m->max == max &&
				 !strcmp(m->path, path)))
			return m;
	}
}

/* Fill the empty slot m with the key; 0 if it is kept, -1 when full. */
static int memo_key(struct memo *m, const struct lb_fs *fs, const char *path,
		    enum memo_kind kind, size_t max)
{
	if (memo_n >= MEMO_MAX || !(m->path = strdup(path)))
		return -1;
	m->fs = fs;
	m->kind = kind;
	m->max = max;
	memo_n++;
	return 0;
}

/* Give back the slot memo_key just filled (what it was to keep could not
 * be copied). */
static void memo_unkey(struct memo *m)
{
	free(m->path);
	m->path = NULL;
	memo_n--;
}

int lb_fs_read(const struct lb_fs *fs, const char *path, size_t max,
	       char **buf, size_t *len)
{
	struct memo *m = memo_slot(fs, path, M_READ, max);
	size_t n;
	int r;

	if (m && m->path) {
		if (m->r)
			return m->r;
		if (!(*buf = lb_memdup0(m->buf, m->len)))
			return -ENOMEM;
		n = m->len;
	} else {
		if ((r = fs_read(fs, path, max, buf, &n))) {
			if (m && r != -ENOMEM && !memo_key(m, fs, path, M_READ, max))
				m->r = r;
			return r;
		}
		if (m && !memo_key(m, fs, path, M_READ, max)) {
			if ((m->buf = lb_memdup0(*buf, n)))
				m->len = n;
			else
				memo_unkey(m);
		}
	}
	if (lb_fs_read_hook)
		lb_fs_read_hook(lb_fs_read_hook_arg, fs, path, (const uint8_t *)*buf, n);
	if (len)
		*len = n;
	return 0;
}

int lb_fs_stat(const struct lb_fs *fs, const char *path, struct stat *st)
{
	struct memo *m = memo_slot(fs, path, M_STAT, 0);
	int r;

	if (m && m->path) {
		if (!m->r)
			*st = m->st;
		return m->r;
	}
	r = fs_stat(fs, path, st);
	if (m && r != -ENOMEM && !memo_key(m, fs, path, M_STAT, 0)) {
		m->r = r;
		if (!r)
			m->st = *st;
	}
	return r;
}

static char **names_dup(char *const *v, size_t n)
{
	char **c = calloc(n ? n : 1, sizeof(*c));

	for (size_t i = 0; c && i < n; i++) {
		if (!(c[i] = strdup(v[i]))) {
			lb_fs_list_free(c, i);
			return NULL;
		}
	}
	return c;
}

int lb_fs_list(const struct lb_fs *fs, const char *path, char ***names,
	       size_t *n)
{
	struct memo *m = memo_slot(fs, path, M_LIST, 0);
	int r;

	if (m && m->path) {
		if (m->r)
			return m->r;
		if (!(*names = names_dup(m->names, m->len)))
			return -ENOMEM;
		*n = m->len;
		return 0;
	}
	if ((r = fs_list(fs, path, names, n))) {
		if (m && r != -ENOMEM && !memo_key(m, fs, path, M_LIST, 0))
			m->r = r;
		return r;
	}
	if (m && !memo_key(m, fs, path, M_LIST, 0)) {
		if ((m->names = names_dup(*names, *n)))
			m->len = *n;
		else
			memo_unkey(m);
	}
	return 0;
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

/* Does id name fs, by any of the names an entry may use for it: UUID
 * (case-insensitive, as GRUB's search compares it), label, display name or
 * directory? */
static int names_fs(const struct lb_fs *fs, const char *id)
{
	return id && *id &&
	       ((fs->uuid && !strcasecmp(fs->uuid, id)) ||
		(fs->label && !strcmp(fs->label, id)) ||
		(fs->name && !strcmp(fs->name, id)) ||
		(fs->dir && !strcmp(fs->dir, id)));
}

size_t lb_fsset_count_ident(const struct lb_fsset *s, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->n; i++)
		n += names_fs(&s->v[i], id);
	return n;
}

/* Exactly one filesystem, or none: a string that names two (a label equal
 * to another's UUID, a UUID on a clone, a label equal to a device name)
 * resolves to nothing, whatever kind of name it is on each; trying UUIDs
 * before labels would let a disk's label take another disk's place. */
const struct lb_fs *lb_fsset_by_ident(const struct lb_fsset *s, const char *id)
{
	const struct lb_fs *f = NULL;

	for (size_t i = 0; s && i < s->n; i++)
		if (names_fs(&s->v[i], id)) {
			if (f)
				return NULL;
			f = &s->v[i];
		}
	return f;
}

/* The name an fs's entries use when it is not ambiguous */
static const char *own_ident(const struct lb_fs *fs)
{
	if (fs->uuid && *fs->uuid)
		return fs->uuid;
	if (fs->label && *fs->label)
		return fs->label;
	return NULL;
}

size_t lb_fsset_mark_ambiguous(struct lb_fsset *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const char *id = own_ident(&s->v[i]);

		for (size_t j = 0; id && j < s->n; j++)
			if (i != j && names_fs(&s->v[j], id)) {
				n += !s->v[i].ambiguous;
				s->v[i].ambiguous = 1;
				break;
			}
	}
	return n;
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
	free(fs->subvol);
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

static const char *const spec_keys[] = { "uuid", "label", "name", "grub", "type", "partuuid",
					  "subvol" };

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
	char **f[] = { &fs->uuid, &fs->label, &fs->name, &fs->grub, &fs->fstype, &fs->partuuid,
			  &fs->subvol };

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
	/* the options start at the first '@' followed by a known key (a
	 * value may hold '@' itself: subvol=/@), else at the last '@'
	 * followed by some '=' */
	for (const char *a = strchr(spec, '@'); a; a = strchr(a + 1, '@'))
		if (known_key(a + 1)) {
			at = a;
			break;
		}
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
