/* lboot cpio: list or extract newc cpio archives (initramfs images). */
#include "lboot.h"

LB_APPLET(cpio, LB_HOST,
"usage: lboot cpio -t [-v] [--json] ARCHIVE\n"
"       lboot cpio -x [-v] [-C DIR] ARCHIVE\n"
"List (-t) or extract (-x) a newc cpio archive (070701/070702), as the kernel\n"
"reads an initramfs: several archives one after another, each plain, xz or\n"
"gzip compressed (detected), zero padding between. ARCHIVE - reads stdin.\n"
"  -t, --list       print member names (-v: like ls -l, as cpio -tv does)\n"
"  --json           with -t: a JSON list of {name, mode, size, type, target}\n"
"  -x, --extract    create the members under DIR (default .), making parent\n"
"                   directories; refuses absolute names and '..', never\n"
"                   writes through a symlink; replaces existing non-directories;\n"
"                   keeps modes (and owners when run as root), hard links\n"
"  -C, --directory DIR  extract there (created if missing)\n"
"  -v, --verbose    -t: long listing; -x: print names to stderr\n"
"Exit: 0 ok, 1 failure (bad archive, a member not extracted), 2 usage.\n")

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cpio.h"
#include "io.h"
#include "compress.h"
#include "mkinitramfs.h"

#define MAX_INPUT  ((size_t)1 << 30)
#define MAX_OUTPUT ((size_t)2 << 30)

static int read_input(const char *path, uint8_t **out, size_t *outlen)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (fd < 0) {
		rc = -errno;
		lb_err("%s: %s", path, strerror(errno));
		return rc;
	}
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 16;
			uint8_t *n;
			if (cap >= MAX_INPUT) {
				lb_err("%s: larger than %zu bytes", path, MAX_INPUT);
				rc = -EFBIG;
				goto fail;
			}
			if (!(n = realloc(buf, ncap))) {
				lb_err("%s: out of memory", path);
				rc = -ENOMEM;
				goto fail;
			}
			buf = n;
			cap = ncap;
		}
		ssize_t k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = -errno;
			lb_err("%s: %s", path, strerror(errno));
			goto fail;
		}
		if (!k)
			break;
		len += (size_t)k;
	}
	if (fd)
		close(fd);
	*out = buf;
	*outlen = len;
	return 0;
fail:
	if (fd)
		close(fd);
	free(buf);
	return rc;
}

static const char *type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "dir";
	case S_IFLNK: return "symlink";
	case S_IFCHR: return "char";
	case S_IFBLK: return "block";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	}
	return "unknown";
}

static void mode_string(uint32_t m, char s[11])
{
	static const char types[] = "?pc?d?b?-?l?s???";

	s[0] = types[(m >> 12) & 15];
	for (int i = 0; i < 9; i++)
		s[1 + i] = m & (0400 >> i) ? "rwxrwxrwx"[i] : '-';
	if (m & S_ISUID)
		s[3] = s[3] == 'x' ? 's' : 'S';
	if (m & S_ISGID)
		s[6] = s[6] == 'x' ? 's' : 'S';
	if (m & S_ISVTX)
		s[9] = s[9] == 'x' ? 't' : 'T';
	s[10] = 0;
}

/* JSON string: escapes, and invalid UTF-8 bytes as \u00XX. */
static void json_str(const uint8_t *p, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		size_t k = 0;
		if (c == '"' || c == '\\') {
			printf("\\%c", c);
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			printf("\\u%04x", c);
			continue;
		}
		if (c < 0x80) {
			putchar(c);
			continue;
		}
		/* validate one UTF-8 sequence (no overlongs, no surrogates) */
		if (c >= 0xc2 && c <= 0xdf)
			k = 1;
		else if (c >= 0xe0 && c <= 0xef)
			k = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 3;
		int ok = k && n - i > k;
		for (size_t j = 1; ok && j <= k; j++)
			if ((p[i + j] & 0xc0) != 0x80)
				ok = 0;
		if (ok && k == 2) {
			uint8_t d = p[i + 1];
			if ((c == 0xe0 && d < 0xa0) || (c == 0xed && d > 0x9f))
				ok = 0;
		}
		if (ok && k == 3) {
			uint8_t d = p[i + 1];
			if ((c == 0xf0 && d < 0x90) || (c == 0xf4 && d > 0x8f))
				ok = 0;
		}
		if (!ok) {
			printf("\\u%04x", c);
			continue;
		}
		fwrite(p + i, 1, k + 1, stdout);
		i += k;
	}
	putchar('"');
}

/* ---- listing --------------------------------------------------------------- */

struct lctx {
	int verbose, json;
	size_t n;
	time_t now;
};

static void owner(char *buf, size_t sz, uint32_t id, int group)
{
	if (group) {
		struct group *g = getgrgid((gid_t)id);
		if (g) {
			snprintf(buf, sz, "%s", g->gr_name);
			return;
		}
	} else {
		struct passwd *pw = getpwuid((uid_t)id);
		if (pw) {
			snprintf(buf, sz, "%s", pw->pw_name);
			return;
		}
	}
	snprintf(buf, sz, "%u", id);
}

static int list_cb(void *ctx, const struct lb_cpio_entry *e)
{
	struct lctx *c = ctx;
	int lnk = (e->mode & S_IFMT) == S_IFLNK;
	int dev = S_ISCHR(e->mode) || S_ISBLK(e->mode);

	if (c->json) {
		fputs(c->n ? ",\n {\"name\": " : "[\n {\"name\": ", stdout);
		json_str((const uint8_t *)e->name, strlen(e->name));
		printf(", \"mode\": \"%04o\", \"size\": %u, \"type\": \"%s\", \"target\": ",
		       e->mode & 07777, e->filesize, type_name(e->mode));
		if (lnk)
			json_str(e->data, e->filesize);
		else
			fputs("null", stdout);
		if (dev)
			printf(", \"rdev\": [%u, %u]", e->rdevmajor, e->rdevminor);
		putchar('}');
	} else if (c->verbose) {
		char m[11], u[64], g[64], date[32], size[32];
		time_t t = (time_t)e->mtime;
		struct tm tm;
		mode_string(e->mode, m);
		owner(u, sizeof(u), e->uid, 0);
		owner(g, sizeof(g), e->gid, 1);
		if (dev)
			snprintf(size, sizeof(size), "%3u, %3u", e->rdevmajor, e->rdevminor);
		else
			snprintf(size, sizeof(size), "%8u", e->filesize);
		localtime_r(&t, &tm);
		/* like ls: the year instead of the time when not within 6 months */
		if (c->now - t > 6L * 30 * 24 * 3600 || t - c->now > 3600)
			strftime(date, sizeof(date), "%b %e  %Y", &tm);
		else
			strftime(date, sizeof(date), "%b %e %H:%M", &tm);
		printf("%s %3u %-8s %-8s %s %s %s", m, e->nlink, u, g, size, date, e->name);
		if (lnk)
			printf(" -> %.*s", (int)e->filesize, (const char *)e->data);
		putchar('\n');
	} else {
		puts(e->name);
	}
	c->n++;
	return ferror(stdout) ? -EIO : 0;
}

/* ---- extraction -------------------------------------------------------------- */

struct link {
	uint32_t maj, min, ino;
	char *path;
};
struct dirmode {
	char *path;
	uint32_t mode;
};
struct xctx {
	int root;
	int verbose;
	int failed;
	int chown;
	struct link *links;
	size_t n_links;
	struct dirmode *dirs;
	size_t n_dirs;
};

/*
 * Open the directory that holds rel (a lb_cpio_safe_path result) under
 * root, never following symlinks; create missing ones if asked. *leaf
 * points into rel at the last component.
 */
static int open_parent(int root, const char *rel, int create, int *pfd,
		       const char **leaf)
{
	char comp[LB_CPIO_MAX_NAME];
	const char *p = rel, *slash;
	int fd = dup(root);

	if (fd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		size_t n = (size_t)(slash - p);
		int nfd;
		memcpy(comp, p, n);
		comp[n] = 0;
		nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (nfd < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST) {
				int rc = -errno;
				close(fd);
				return rc;
			}
			nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0) {
			int rc = errno == ELOOP ? -ENOTDIR : -errno;
			close(fd);
			return rc;
		}
		close(fd);
		fd = nfd;
		p = slash + 1;
	}
	*pfd = fd;
	*leaf = p;
	return 0;
}

/* Remove a non-directory at leaf (a symlink itself, never its target). */
static int clear_leaf(int pfd, const char *leaf)
{
	if (unlinkat(pfd, leaf, 0) < 0 && errno != ENOENT)
		return errno == EISDIR ? -EISDIR : -errno;
	return 0;
}

static struct link *find_link(struct xctx *c, const struct lb_cpio_entry *e)
{
	for (size_t i = 0; i < c->n_links; i++)
		if (c->links[i].ino == e->ino && c->links[i].maj == e->devmajor &&
		    c->links[i].min == e->devminor)
			return &c->links[i];
	return NULL;
}

static int extract_file(struct xctx *c, const struct lb_cpio_entry *e,
			const char *rel, int pfd, const char *leaf)
{
	struct link *l = e->nlink > 1 ? find_link(c, e) : NULL;
	int fd, rc;

	if ((rc = clear_leaf(pfd, leaf)) < 0)
		return rc;
	if (l) {
		int pfd1;
		const char *leaf1;
		if ((rc = open_parent(c->root, l->path, 0, &pfd1, &leaf1)) < 0)
			return rc;
		rc = linkat(pfd1, leaf1, pfd, leaf, 0) < 0 ? -errno : 0;
		close(pfd1);
		if (rc < 0)
			return rc;
		if (!e->filesize)
			return 0;
		fd = openat(pfd, leaf, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	} else {
		fd = openat(pfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
	}
	if (fd < 0)
		return -errno;
	rc = lb_write_all(fd, e->data, e->filesize);
	if (!rc && c->chown && fchown(fd, e->uid, e->gid) < 0)
		rc = -errno;
	if (!rc && fchmod(fd, e->mode & 07777) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (rc < 0 || l || e->nlink < 2)
		return rc;
	/* first of a hard-linked set: remember where it went */
	struct link *nl = realloc(c->links, (c->n_links + 1) * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	c->links = nl;
	nl[c->n_links] = (struct link){ e->devmajor, e->devminor, e->ino, strdup(rel) };
	if (!nl[c->n_links].path)
		return -ENOMEM;
	c->n_links++;
	return 0;
}

static int extract_dir(struct xctx *c, const struct lb_cpio_entry *e,
		       const char *rel, int pfd, const char *leaf)
{
	struct stat st;
	struct dirmode *nd;

	if (rel[0]) {
		if (mkdirat(pfd, leaf, 0700) < 0) {
			if (errno != EEXIST)
				return -errno;
			if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
				return -errno;
			if (!S_ISDIR(st.st_mode)) {
				if (unlinkat(pfd, leaf, 0) < 0 || mkdirat(pfd, leaf, 0700) < 0)
					return -errno;
			}
		}
		if (c->chown && fchownat(pfd, leaf, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	}
	/* modes last, so that read-only directories can be filled first */
	nd = realloc(c->dirs, (c->n_dirs + 1) * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	c->dirs = nd;
	nd[c->n_dirs].mode = e->mode & 07777;
	if (!(nd[c->n_dirs].path = strdup(rel)))
		return -ENOMEM;
	c->n_dirs++;
	return 0;
}

static int extract_cb(void *ctx, const struct lb_cpio_entry *e)
{
	struct xctx *c = ctx;
	char rel[LB_CPIO_MAX_NAME];
	const char *leaf;
	int pfd = -1, rc;

	if (c->verbose)
		fprintf(stderr, "%s\n", e->name);
	if (lb_cpio_safe_path(e->name, rel, sizeof(rel)) < 0) {
		lb_err("%s: refusing an absolute name or a '..' component", e->name);
		c->failed = 1;
		return 0;
	}
	if (!rel[0] && !S_ISDIR(e->mode)) {
		lb_err("%s: not a directory but names the extraction root", e->name);
		c->failed = 1;
		return 0;
	}
	if (rel[0]) {
		if ((rc = open_parent(c->root, rel, 1, &pfd, &leaf)) < 0) {
			lb_err("%s: cannot open its directory: %s", e->name,
			       rc == -ENOTDIR ? "a parent is a symlink or not a directory"
					      : strerror(-rc));
			c->failed = 1;
			return 0;
		}
	}
	switch (e->mode & S_IFMT) {
	case S_IFDIR:
		rc = extract_dir(c, e, rel, pfd, leaf);
		break;
	case S_IFREG:
		rc = extract_file(c, e, rel, pfd, leaf);
		break;
	case S_IFLNK: {
		char t[LB_CPIO_MAX_LINK + 1];
		memcpy(t, e->data, e->filesize);
		t[e->filesize] = 0;
		if (strlen(t) != e->filesize) {
			rc = -EINVAL;
			break;
		}
		if ((rc = clear_leaf(pfd, leaf)) < 0)
			break;
		if (symlinkat(t, pfd, leaf) < 0 ||
		    (c->chown && fchownat(pfd, leaf, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0))
			rc = -errno;
		break;
	}
	default: /* char, block, fifo, socket */
		if ((rc = clear_leaf(pfd, leaf)) < 0)
			break;
		if (mknodat(pfd, leaf, (e->mode & S_IFMT) | 0600,
			    makedev(e->rdevmajor, e->rdevminor)) < 0 ||
		    (c->chown && fchownat(pfd, leaf, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) < 0) ||
		    fchmodat(pfd, leaf, e->mode & 07777, 0) < 0)
			rc = -errno;
		break;
	}
	if (pfd >= 0)
		close(pfd);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		lb_err("%s: cannot extract: %s", e->name, strerror(-rc));
		c->failed = 1;
	}
	return 0;
}

static void finish_dirs(struct xctx *c)
{
	/* deepest first: reverse archive order */
	for (size_t i = c->n_dirs; i-- > 0;) {
		const char *rel = c->dirs[i].path, *leaf;
		int pfd, fd, rc = 0;
		if (!rel[0]) {
			if (fchmod(c->root, c->dirs[i].mode) < 0)
				rc = -errno;
		} else if ((rc = open_parent(c->root, rel, 0, &pfd, &leaf)) == 0) {
			fd = openat(pfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0 || fchmod(fd, c->dirs[i].mode) < 0)
				rc = -errno;
			if (fd >= 0)
				close(fd);
			close(pfd);
		}
		if (rc < 0) {
			lb_err("%s: cannot set mode: %s", rel[0] ? rel : ".", strerror(-rc));
			c->failed = 1;
		}
	}
}

static void xctx_free(struct xctx *c)
{
	for (size_t i = 0; i < c->n_links; i++)
		free(c->links[i].path);
	free(c->links);
	for (size_t i = 0; i < c->n_dirs; i++)
		free(c->dirs[i].path);
	free(c->dirs);
}

static const char *why(int rc)
{
	switch (rc) {
	case -EINVAL: return "not a cpio archive or a corrupt header";
	case -EBADMSG: return "truncated or corrupt archive";
	case -EFBIG: return "decompressed data too large";
	case -EOPNOTSUPP: return "unsupported compression";
	case -ELOOP: return "compressed data nested too deep";
	}
	return strerror(-rc);
}

int cpio_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 't' },
		{ "extract", no_argument, NULL, 'x' },
		{ "directory", required_argument, NULL, 'C' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *dir = ".", *path;
	int mode = 0, verbose = 0, json = 0, c, rc, ret = 1;
	uint8_t *buf = NULL;
	size_t len = 0, where = 0;

	while ((c = getopt_long(argc, argv, "txC:vh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'x':
			if (mode && mode != c) {
				lb_err("-t and -x exclude each other");
				goto usage;
			}
			mode = c;
			break;
		case 'C':
			dir = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(lb_applet_cpio.usage, stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (!mode) {
		lb_err("need -t or -x");
		goto usage;
	}
	if (optind + 1 != argc) {
		lb_err("need exactly one ARCHIVE");
		goto usage;
	}
	if (json && mode != 't') {
		lb_err("--json goes with -t");
		goto usage;
	}
	path = argv[optind];
	if (read_input(path, &buf, &len) < 0)
		return 1;
	if (!len) {
		lb_err("%s: empty file", path);
		free(buf);
		return 1;
	}
	if (mode == 't') {
		struct lctx lc = { .verbose = verbose, .json = json, .now = time(NULL) };
		rc = lb_initramfs_walk(buf, len, MAX_OUTPUT, list_cb, &lc, &where);
		if (json)
			fputs(lc.n ? "\n]\n" : "[]\n", stdout);
		if (fflush(stdout) == EOF && rc >= 0)
			rc = -EIO;
		if (rc < 0)
			lb_err("%s: at offset %zu: %s", path, where, why(rc));
		ret = rc < 0;
	} else {
		struct xctx xc = { .root = -1, .verbose = verbose, .chown = geteuid() == 0 };
		if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
			lb_err("%s: cannot create: %s", dir, strerror(errno));
			goto out;
		}
		xc.root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (xc.root < 0) {
			lb_err("%s: %s", dir, strerror(errno));
			goto out;
		}
		rc = lb_initramfs_walk(buf, len, MAX_OUTPUT, extract_cb, &xc, &where);
		finish_dirs(&xc);
		if (rc < 0)
			lb_err("%s: at offset %zu: %s", path, where, why(rc));
		ret = rc < 0 || xc.failed;
		close(xc.root);
		xctx_free(&xc);
	}
out:
	free(buf);
	return ret;
usage:
	lb_usage("cpio");
	return 2;
}
