/* Building and walking initramfs images (see mkinitramfs.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io.h"
#include "mkinitramfs.h"

struct node {
	char *path;      /* normalized, no leading '/' */
	uint32_t mode;   /* type | permissions */
	uint32_t major, minor;
	uint8_t *data;   /* file contents or symlink target (no NUL) */
	size_t size;
	uint32_t nlink;
	struct node *hnext;
};

struct lb_initramfs {
	struct node **v;
	size_t n, cap;
	struct node **hash;
	size_t hsize;    /* power of two */
	uint64_t bytes;
	uint32_t mtime;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

int lb_initramfs_new(struct lb_initramfs **out, uint32_t mtime)
{
	struct lb_initramfs *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->hsize = 1024;
	r->hash = calloc(r->hsize, sizeof(*r->hash));
	if (!r->hash) {
		free(r);
		return -ENOMEM;
	}
	r->mtime = mtime;
	*out = r;
	return 0;
}

void lb_initramfs_free(struct lb_initramfs *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i]->path);
		free(r->v[i]->data);
		free(r->v[i]);
	}
	free(r->v);
	free(r->hash);
	free(r);
}

static struct node *lookup(const struct lb_initramfs *r, const char *path)
{
	struct node *n = r->hash[hash(path) & (r->hsize - 1)];

	while (n && strcmp(n->path, path))
		n = n->hnext;
	return n;
}


size_t lb_initramfs_count(const struct lb_initramfs *r)
{
	return r->n;
}

static int rehash(struct lb_initramfs *r)
{
	size_t hs = r->hsize * 2;
	struct node **h = calloc(hs, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		struct node *n = r->v[i];
		size_t b = hash(n->path) & (hs - 1);
		n->hnext = h[b];
		h[b] = n;
	}
	free(r->hash);
	r->hash = h;
	r->hsize = hs;
	return 0;
}

/* Normalize a member path: leading '/' allowed, no "..", not empty. */
static int norm(const char *path, char *out, size_t outsz)
{
	int rc;

	while (*path == '/')
		path++;
	if ((rc = lb_cpio_safe_path(path, out, outsz)) < 0)
		return rc;
	return out[0] ? 0 : -EINVAL;
}

int lb_initramfs_has(const struct lb_initramfs *r, const char *path)
{
	char buf[LB_CPIO_MAX_NAME];

	if (norm(path, buf, sizeof(buf)) < 0)
		return 0;
	return lookup(r, buf) != NULL;
}

/* How many more file bytes the image may take (caps host reads). */
static size_t room(const struct lb_initramfs *r)
{
	uint64_t left = LB_INITRAMFS_MAX_BYTES - r->bytes;

	return left > UINT32_MAX ? UINT32_MAX : (size_t)left;
}

/* Insert a node (takes data on success); parents must exist. */
static int insert(struct lb_initramfs *r, const char *path, uint32_t mode,
		  uint32_t major, uint32_t minor, uint8_t *data, size_t size)
{
	struct node *n;
	size_t b;

	if (r->n >= LB_INITRAMFS_MAX_NODES)
		return -E2BIG;
	if (size > UINT32_MAX || size > LB_INITRAMFS_MAX_BYTES - r->bytes)
		return -EFBIG;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		struct node **v = realloc(r->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->v = v;
		r->cap = cap;
	}
	if (r->n >= r->hsize && rehash(r) < 0)
		return -ENOMEM;
	n = calloc(1, sizeof(*n));
	if (!n || !(n->path = strdup(path))) {
		free(n);
		return -ENOMEM;
	}
	n->mode = mode;
	n->major = major;
	n->minor = minor;
	n->data = data;
	n->size = size;
	b = hash(path) & (r->hsize - 1);
	n->hnext = r->hash[b];
	r->hash[b] = n;
	r->v[r->n++] = n;
	r->bytes += size;
	return 0;
}

/* Add every missing parent directory of the normalized path p. */
static int parents(struct lb_initramfs *r, char *p)
{
	int rc;

	for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		struct node *n;
		*s = 0;
		n = lookup(r, p);
		if (!n)
			rc = insert(r, p, S_IFDIR | 0755, 0, 0, NULL, 0);
		else
			rc = S_ISDIR(n->mode) ? 0 : -ENOTDIR;
		*s = '/';
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Common path of the add functions: takes ownership of data always. */
static int add(struct lb_initramfs *r, const char *path, uint32_t mode,
	       uint32_t major, uint32_t minor, uint8_t *data, size_t size)
{
	char p[LB_CPIO_MAX_NAME];
	struct node *n;
	int rc;

	if ((rc = norm(path, p, sizeof(p))) < 0)
		goto out;
	if ((n = lookup(r, p))) {
		rc = S_ISDIR(n->mode) && S_ISDIR(mode) ? 0 : -EEXIST;
		goto out;
	}
	if ((rc = parents(r, p)) < 0)
		goto out;
	if ((rc = insert(r, p, mode, major, minor, data, size)) < 0)
		goto out;
	return 0;
out:
	free(data);
	return rc;
}

int lb_initramfs_add_dir(struct lb_initramfs *r, const char *path, uint32_t mode)
{
	return add(r, path, S_IFDIR | (mode & 07777), 0, 0, NULL, 0);
}

int lb_initramfs_add_file(struct lb_initramfs *r, const char *path,
			  uint32_t mode, const void *data, size_t len)
{
	uint8_t *copy = NULL;

	if (len) {
		if (!data)
			return -EINVAL;
		if (!(copy = malloc(len)))
			return -ENOMEM;
		memcpy(copy, data, len);
	}
	return add(r, path, S_IFREG | (mode & 07777), 0, 0, copy, len);
}

int lb_initramfs_add_symlink(struct lb_initramfs *r, const char *path,
			     const char *target)
{
	size_t len = target ? strlen(target) : 0;
	uint8_t *copy;

	if (!len || len > LB_CPIO_MAX_LINK)
		return -EINVAL;
	if (!(copy = malloc(len)))
		return -ENOMEM;
	memcpy(copy, target, len);
	return add(r, path, S_IFLNK | 0777, 0, 0, copy, len);
}

int lb_initramfs_add_node(struct lb_initramfs *r, const char *path,
			  uint32_t type, uint32_t mode, uint32_t major,
			  uint32_t minor)
{
	if (type != S_IFCHR && type != S_IFBLK && type != S_IFIFO)
		return -EINVAL;
	return add(r, path, type | (mode & 07777), major, minor, NULL, 0);
}

/* ---- writing ---------------------------------------------------------------- */

static int cmp_node(const void *a, const void *b)
{
	return strcmp((*(struct node *const *)a)->path,
		      (*(struct node *const *)b)->path);
}

int lb_initramfs_write(const struct lb_initramfs *r, struct lb_cpio_writer *w)
{
	struct node **v;
	int rc = 0;

	if (!(v = malloc((r->n ? r->n : 1) * sizeof(*v))))
		return -ENOMEM;
	if (r->n)
		memcpy(v, r->v, r->n * sizeof(*v));
	qsort(v, r->n, sizeof(*v), cmp_node);
	/* link counts: 1, directories 2 + their subdirectories */
	for (size_t i = 0; i < r->n; i++)
		v[i]->nlink = S_ISDIR(v[i]->mode) ? 2 : 1;
	for (size_t i = 0; i < r->n; i++) {
		char *s;
		if (!S_ISDIR(v[i]->mode) || !(s = strrchr(v[i]->path, '/')))
			continue;
		*s = 0;
		struct node *p = lookup(r, v[i]->path);
		*s = '/';
		if (p)
			p->nlink++;
	}
	for (size_t i = 0; i < r->n && rc >= 0; i++) {
		const struct node *n = v[i];
		struct lb_cpio_entry e = {
			.name = n->path,
			.ino = (uint32_t)(i + 1),
			.mode = n->mode,
			.nlink = n->nlink,
			.mtime = r->mtime,
			.filesize = (uint32_t)n->size,
			.rdevmajor = n->major,
			.rdevminor = n->minor,
			.data = n->data,
		};
		rc = lb_cpio_write_entry(w, &e);
	}
	if (rc >= 0)
		rc = lb_cpio_write_trailer(w, 512);
	free(v);
	return rc;
}

/* ---- host files --------------------------------------------------------------- */

int lb_initramfs_read_host(const char *path, size_t max,
			   const struct lb_initramfs_avoid *avoid,
			   uint8_t **data, size_t *len, char *err, size_t errsz)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t n = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", path, strerror(errno));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		lb_seterr(err, errsz, "%s: not a regular file", path);
		goto out;
	}
	if (avoid && avoid->set && st.st_dev == avoid->dev && st.st_ino == avoid->ino) {
		rc = -EEXIST;
		lb_seterr(err, errsz, "%s: is the output file", path);
		goto out;
	}
	if ((rc = lb_read_fd(fd, max, &buf, &n))) {
		if (rc == -EFBIG)
			lb_seterr(err, errsz, "%s: larger than %zu bytes", path, max);
		else
			lb_seterr(err, errsz, "%s: %s", path,
			       rc == -EIO ? "file shrank while reading" : strerror(-rc));
		buf = NULL;
		goto out;
	}
	close(fd);
	*data = buf;
	*len = n;
	return 0;
out:
	free(buf);
	close(fd);
	return rc;
}

struct walkctx {
	struct lb_initramfs *r;
	const struct lb_initramfs_avoid *avoid;
	char *err;
	size_t errsz;
};

static int add_err(struct walkctx *c, int rc, const char *src, const char *dst)
{
	if (rc == -EEXIST)
		lb_seterr(c->err, c->errsz, "%s: /%s is already in the image", src, dst);
	else if (rc == -ENOTDIR)
		lb_seterr(c->err, c->errsz, "%s: a parent of /%s is not a directory", src, dst);
	else
		lb_seterr(c->err, c->errsz, "%s: cannot add as /%s: %s", src, dst,
		       strerror(-rc));
	return rc;
}

static int join(char *out, size_t sz, const char *a, const char *b)
{
	int n = snprintf(out, sz, "%s%s%s", a, a[0] && a[strlen(a) - 1] != '/' ? "/" : "", b);

	return n < 0 || (size_t)n >= sz ? -ENAMETOOLONG : 0;
}

static int add_one(struct walkctx *c, const char *src, const char *dst,
		   const struct stat *st, int depth);

static int add_tree(struct walkctx *c, const char *src, const char *dst,
		    const struct stat *st, int depth)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (depth > LB_INITRAMFS_MAX_DEPTH) {
		lb_seterr(c->err, c->errsz, "%s: directories nested too deep", src);
		return -ELOOP;
	}
	if (dst[0] && (rc = lb_initramfs_add_dir(c->r, dst, st->st_mode)) < 0)
		return add_err(c, rc, src, dst);
	if (!(d = opendir(src))) {
		rc = -errno;
		lb_seterr(c->err, c->errsz, "%s: %s", src, strerror(errno));
		return rc;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 32;
			char **v = realloc(names, ncap * sizeof(*v));
			if (!v) {
				rc = -ENOMEM;
				break;
			}
			names = v;
			cap = ncap;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc < 0)
		lb_seterr(c->err, c->errsz, "%s: out of memory", src);
	for (size_t i = 0; i < n && rc >= 0; i++) {
		char s[PATH_MAX], t[LB_CPIO_MAX_NAME];
		struct stat cst;
		if (join(s, sizeof(s), src, names[i]) < 0 ||
		    join(t, sizeof(t), dst, names[i]) < 0) {
			rc = -ENAMETOOLONG;
			lb_seterr(c->err, c->errsz, "%s/%s: path too long", src, names[i]);
			break;
		}
		if (lstat(s, &cst) < 0) {
			rc = -errno;
			lb_seterr(c->err, c->errsz, "%s: %s", s, strerror(errno));
			break;
		}
		rc = add_one(c, s, t, &cst, depth + 1);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int add_one(struct walkctx *c, const char *src, const char *dst,
		   const struct stat *st, int depth)
{
	int rc;

	if (S_ISDIR(st->st_mode))
		return add_tree(c, src, dst, st, depth);
	if (!dst[0]) {
		lb_seterr(c->err, c->errsz, "%s: only a directory can go to /", src);
		return -EINVAL;
	}
	if (S_ISREG(st->st_mode)) {
		uint8_t *data;
		size_t len;
		rc = lb_initramfs_read_host(src, room(c->r), c->avoid, &data, &len,
					    c->err, c->errsz);
		if (rc < 0)
			return rc;
		rc = add(c->r, dst, S_IFREG | (st->st_mode & 07777), 0, 0, data, len);
	} else if (S_ISLNK(st->st_mode)) {
		char t[LB_CPIO_MAX_LINK + 1];
		ssize_t k = readlink(src, t, sizeof(t));
		if (k < 0) {
			rc = -errno;
			lb_seterr(c->err, c->errsz, "%s: %s", src, strerror(errno));
			return rc;
		}
		if (k == 0 || (size_t)k > LB_CPIO_MAX_LINK) {
			lb_seterr(c->err, c->errsz, "%s: symlink target too long", src);
			return -ENAMETOOLONG;
		}
		t[k] = 0;
		rc = lb_initramfs_add_symlink(c->r, dst, t);
	} else if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ||
		   S_ISFIFO(st->st_mode)) {
		uint32_t type = st->st_mode & S_IFMT;
		rc = lb_initramfs_add_node(c->r, dst, type, st->st_mode,
					   S_ISFIFO(st->st_mode) ? 0 : major(st->st_rdev),
					   S_ISFIFO(st->st_mode) ? 0 : minor(st->st_rdev));
	} else {
		return 0; /* sockets make no sense in an image */
	}
	return rc < 0 ? add_err(c, rc, src, dst) : 0;
}

int lb_initramfs_add_host(struct lb_initramfs *r, const char *src,
			  const char *dst, const struct lb_initramfs_avoid *avoid,
			  char *err, size_t errsz)
{
	struct walkctx c = { r, avoid, err, errsz };
	char d[LB_CPIO_MAX_NAME];
	struct stat st;
	int rc;

	if (stat(src, &st) < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: %s", src, strerror(errno));
		return rc;
	}
	while (*dst == '/')
		dst++;
	if ((rc = lb_cpio_safe_path(dst, d, sizeof(d))) < 0) {
		lb_seterr(err, errsz, "%s: bad destination '%s'", src, dst);
		return rc;
	}
	/* "DIR/" as destination: put src under it, keeping its name */
	if (d[0] && dst[strlen(dst) - 1] == '/') {
		const char *base = strrchr(src, '/');
		char tmp[LB_CPIO_MAX_NAME];
		size_t bl;
		base = base ? base + 1 : src;
		bl = strlen(base);
		while (!bl && base > src) { /* "src/" */
			const char *e = base - 1;
			while (e > src && e[-1] == '/')
				e--;
			const char *s = e;
			while (s > src && s[-1] != '/')
				s--;
			base = s;
			bl = (size_t)(e - s);
		}
		if (!bl || (bl == 1 && base[0] == '.') ||
		    (bl == 2 && !memcmp(base, "..", 2)) ||
		    (size_t)snprintf(tmp, sizeof(tmp), "%s/%.*s", d, (int)bl, base) >= sizeof(tmp)) {
			lb_seterr(err, errsz, "%s: cannot name it under '%s'", src, dst);
			return -EINVAL;
		}
		strcpy(d, tmp);
	}
	return add_one(&c, src, d, &st, 0);
}

/* ---- busybox ----------------------------------------------------------------- */

void lb_initramfs_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int applet_name_ok(const char *s, size_t n)
{
	if (!n || n > 64 || (n == 1 && s[0] == '.') || (n == 2 && !memcmp(s, "..", 2)))
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch <= ' ' || ch >= 0x7f || ch == '/')
			return 0;
	}
	return 1;
}

int lb_initramfs_busybox_applets(const char *busybox, char ***out, size_t *nout,
				 char *err, size_t errsz)
{
	enum { MAX_OUT = 256 * 1024, MAX_APPLETS = 4096 };
	int pfd[2], status, rc = 0;
	char *buf = NULL, **names = NULL;
	size_t len = 0, n = 0;
	pid_t pid;

	if (access(busybox, X_OK) < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "%s: not executable: %s", busybox, strerror(errno));
		return rc;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "pipe: %s", strerror(errno));
		return rc;
	}
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		lb_seterr(err, errsz, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return rc;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDWR);
		if (dup2(pfd[1], 1) < 0)
			_exit(127);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 2);
		}
		execl(busybox, "busybox", "--list", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	buf = malloc(MAX_OUT + 1);
	if (!buf)
		rc = -ENOMEM;
	while (buf) {
		ssize_t k = read(pfd[0], buf + len, MAX_OUT - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			break;
		}
		if (!k)
			break;
		len += (size_t)k;
		if (len == MAX_OUT) {
			rc = -EFBIG;
			break;
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		lb_seterr(err, errsz, "%s --list: %s", busybox,
		       rc == -EFBIG ? "output too large" : strerror(-rc));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		rc = -ECHILD;
		lb_seterr(err, errsz, "%s --list: failed (status %d)", busybox,
		       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		goto out;
	}
	buf[len] = 0;
	for (char *p = buf, *e; *p; p = e) {
		e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		e = e ? e + 1 : p + l;
		if (!l)
			continue;
		if (!applet_name_ok(p, l)) {
			rc = -EINVAL;
			lb_seterr(err, errsz, "%s --list: bad applet name '%.*s'", busybox,
			       (int)(l > 64 ? 64 : l), p);
			goto out;
		}
		if (n == MAX_APPLETS) {
			rc = -E2BIG;
			lb_seterr(err, errsz, "%s --list: too many applets", busybox);
			goto out;
		}
		if (!names && !(names = calloc(MAX_APPLETS, sizeof(*names)))) {
			rc = -ENOMEM;
			goto out;
		}
		if (!(names[n] = strndup(p, l))) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (!n) {
		rc = -ENOENT;
		lb_seterr(err, errsz, "%s --list: no applets listed", busybox);
		goto out;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	*nout = n;
	names = NULL;
	n = 0;
out:
	if (rc == -ENOMEM)
		lb_seterr(err, errsz, "%s --list: out of memory", busybox);
	lb_initramfs_names_free(names, n);
	free(buf);
	return rc;
}

/* ---- the standard image ------------------------------------------------------------ */

int lb_initramfs_build(const struct lb_initramfs_opts *o,
		       struct lb_initramfs **out, char *err, size_t errsz)
{
	static const char *const dirs[] = {
		"dev", "proc", "sys", "run", "tmp", "mnt", "etc", "bin", "sbin",
	};
	struct lb_initramfs *r;
	char **applets = NULL;
	size_t n_applets = 0;
	uint8_t *data;
	size_t len;
	int rc;

	if ((rc = lb_initramfs_new(&r, o->mtime)) < 0) {
		lb_seterr(err, errsz, "out of memory");
		return rc;
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((rc = lb_initramfs_add_dir(r, dirs[i], i == 4 ? 01777 : 0755)) < 0)
			goto fail_mem;
	if ((rc = lb_initramfs_add_node(r, "dev/console", S_IFCHR, 0600, 5, 1)) < 0 ||
	    (rc = lb_initramfs_add_node(r, "dev/null", S_IFCHR, 0666, 1, 3)) < 0)
		goto fail_mem;
	if (o->init) {
		rc = lb_initramfs_read_host(o->init, room(r), &o->avoid, &data, &len,
					    err, errsz);
		if (rc < 0)
			goto fail;
		if ((rc = add(r, "init", S_IFREG | 0755, 0, 0, data, len)) < 0 ||
		    (rc = lb_initramfs_add_symlink(r, "bin/lboot", "../init")) < 0)
			goto fail_mem;
	}
	for (size_t i = 0; i < o->n_files; i++) {
		const char *src = o->files[i].src, *dst = o->files[i].dst;
		char def[LB_CPIO_MAX_NAME];
		if (!dst) {
			const char *b = strrchr(src, '/');
			/* "dir/" names dir itself */
			snprintf(def, sizeof(def), "/%s", b && b[1] ? b + 1 : src);
			if (b && !b[1]) {
				size_t l = strlen(src);
				while (l > 1 && src[l - 1] == '/')
					l--;
				const char *s = src + l;
				while (s > src && s[-1] != '/')
					s--;
				snprintf(def, sizeof(def), "/%.*s", (int)(src + l - s), s);
			}
			dst = def;
		}
		if ((rc = lb_initramfs_add_host(r, src, dst, &o->avoid, err, errsz)) < 0)
			goto fail;
	}
	if (o->busybox) {
		rc = lb_initramfs_busybox_applets(o->busybox, &applets, &n_applets,
						  err, errsz);
		if (rc < 0)
			goto fail;
		rc = lb_initramfs_read_host(o->busybox, room(r), &o->avoid, &data,
					    &len, err, errsz);
		if (rc < 0)
			goto fail;
		if ((rc = add(r, "bin/busybox", S_IFREG | 0755, 0, 0, data, len)) < 0) {
			lb_seterr(err, errsz, "%s: cannot add as /bin/busybox: %s",
			       o->busybox, strerror(-rc));
			goto fail;
		}
		for (size_t i = 0; i < n_applets; i++) {
			char p[128];
			snprintf(p, sizeof(p), "bin/%s", applets[i]);
			if (lookup(r, p))
				continue;
			if ((rc = lb_initramfs_add_symlink(r, p, "busybox")) < 0)
				goto fail_mem;
		}
	}
	lb_initramfs_names_free(applets, n_applets);
	*out = r;
	return 0;
fail_mem:
	lb_seterr(err, errsz, "building the image: %s", strerror(-rc));
fail:
	lb_initramfs_names_free(applets, n_applets);
	lb_initramfs_free(r);
	return rc;
}

/* ---- walking --------------------------------------------------------------------------- */

static int walk(const uint8_t *buf, size_t len, size_t *budget, int depth,
		lb_initramfs_cb cb, void *ctx, size_t *where)
{
	struct lb_cpio_reader rd;
	struct lb_cpio_entry e;
	size_t off = 0;
	int rc;

	while (off < len) {
		if (!buf[off]) {
			off++;
			continue;
		}
		if (buf[off] == '0') {
			lb_cpio_reader_init(&rd, buf, len, off);
			while ((rc = lb_cpio_next(&rd, &e)) > 0)
				if ((rc = cb(ctx, &e)) < 0)
					break;
			if (rc < 0) {
				if (where && depth == 0)
					*where = rd.off;
				return rc;
			}
			if (rd.off == off)
				return -EINVAL; /* cannot happen: '0' starts a header */
			off = rd.off;
			continue;
		}
		uint8_t *out;
		size_t outlen, used;
		if (depth >= 4) {
			rc = -ELOOP;
		} else {
			rc = lb_decompress(buf + off, len - off, *budget, &out,
					   &outlen, &used);
		}
		if (rc < 0) {
			if (where && depth == 0)
				*where = off;
			return rc;
		}
		*budget -= outlen;
		rc = walk(out, outlen, budget, depth + 1, cb, ctx, where);
		free(out);
		if (rc < 0) {
			if (where && depth == 0)
				*where = off;
			return rc;
		}
		if (!used)
			return -EBADMSG;
		off += used;
	}
	return 0;
}

int lb_initramfs_walk(const void *buf, size_t len, size_t max_out,
		      lb_initramfs_cb cb, void *ctx, size_t *where)
{
	size_t budget = max_out;

	return walk(buf, len, &budget, 0, cb, ctx, where);
}
