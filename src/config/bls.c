/*
 * Boot Loader Specification type 1 and type 2 entries, loader.conf, and the
 * order and default systemd-boot derives from them.
 *
 * Ordering (BLS "Sorting", plus systemd-boot's boot counting rule), first
 * rule that differs decides:
 *  1. entries whose boot counter says no tries are left ("+0" or "+0-N" in
 *     the file name: "bad") sort after all others;
 *  2. an entry with a sort-key sorts before one without;
 *  3. both with sort-key: sort-key ascending (strcmp), then machine-id
 *     ascending, then version descending (UAPI version comparison);
 *  4. finally the file name without suffix and counter (the entry id),
 *     descending by the UAPI version comparison.
 * Type 2 entries (UKIs) take sort-key from os-release IMAGE_ID (else ID) and
 * version from IMAGE_VERSION (else VERSION_ID, else .uname) and sort in the
 * same list.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bls.h"
#include "bootcount.h"
#include "io.h"
#include "pe.h"
#include "vercmp.h"

#define BLS_MAX_ENTRY (256u << 10)  /* one entry file */
#define UKI_MAX_HDR   (64u << 10)   /* PE headers we read */
#define UKI_MAX_SECT  (64u << 10)   /* .cmdline/.osrel/.uname */

static int isws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Next line of [*p, end): sets line/len, advances *p. 0 at the end. */
static int next_line(const char **p, const char *end, const char **line,
		     size_t *len)
{
	const char *s = *p, *e;

	if (s >= end)
		return 0;
	e = memchr(s, '\n', (size_t)(end - s));
	if (!e)
		e = end;
	*line = s;
	*len = (size_t)(e - s);
	*p = e < end ? e + 1 : end;
	return 1;
}

/* Split "key value" (leading/trailing blanks dropped). Returns 0 for blank
 * and comment lines. */
static int split_kv(const char *l, size_t n, const char **k, size_t *kn,
		    const char **v, size_t *vn)
{
	size_t i = 0, j;

	while (i < n && isws(l[i]))
		i++;
	if (i == n || l[i] == '#')
		return 0;
	j = i;
	while (j < n && !isws(l[j]))
		j++;
	*k = l + i;
	*kn = j - i;
	while (j < n && isws(l[j]))
		j++;
	while (n > j && isws(l[n - 1]))
		n--;
	*v = l + j;
	*vn = n - j;
	return 1;
}

static int keyis(const char *k, size_t kn, const char *want)
{
	return strlen(want) == kn && !memcmp(k, want, kn);
}

static int setn(char **dst, const char *s, size_t n)
{
	char *c = strndup(s, n);

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

/* Append " s" (or s) to *dst. */
static int appendn(char **dst, const char *s, size_t n)
{
	size_t o = *dst ? strlen(*dst) : 0;
	char *c;

	if (!n)
		return 0;
	if (o > ((size_t)1 << 24) || n > ((size_t)1 << 24))
		return -E2BIG;
	if (!(c = realloc(*dst, o + 1 + n + 1)))
		return -ENOMEM;
	if (o)
		c[o++] = ' ';
	memcpy(c + o, s, n);
	c[o + n] = 0;
	*dst = c;
	return 0;
}

/*
 * Split a file name "STEM[+LEFT[-DONE]]SUFFIX" (SUFFIX ".conf"/".efi",
 * compared case-insensitively; the counter as systemd-boot parses it:
 * bootcount.h). Returns the stem length; *left = LEFT or -1.
 */
static size_t parse_fname(const char *fname, const char *suffix, int *left)
{
	size_t n = strlen(fname), sl = strlen(suffix);
	struct lb_bootcount bc;

	*left = -1;
	if (!lb_bootcount_parse(fname, suffix, &bc) && bc.prefix > 0) {
		*left = bc.left;
		return bc.prefix;
	}
	if (n >= sl && !strcasecmp(fname + n - sl, suffix))
		n -= sl;
	return n;
}

int lb_bls_parse_entry(const char *fname, const char *where, const char *buf,
		       size_t len, struct lb_entry *out, int *tries_left,
		       struct lb_entries *msgs)
{
	struct lb_entry e = { 0 };
	const char *p = buf, *end = buf + len, *l, *k, *v;
	size_t ln, kn, vn, stem;
	int r = -ENOMEM, lineno = 0, kline = 0, left;
	char *efi = NULL, *arch = NULL;

	stem = parse_fname(fname, ".conf", &left);
	if (!stem) {
		lb_entries_msg(msgs, "%s: empty entry name", where);
		return -ENOENT;
	}
	if (!(e.id = strndup(fname, stem)))
		goto fail;
	while (next_line(&p, end, &l, &ln)) {
		lineno++;
		if (!split_kv(l, ln, &k, &kn, &v, &vn))
			continue;
		if (keyis(k, kn, "title"))
			r = setn(&e.title, v, vn);
		else if (keyis(k, kn, "version"))
			r = setn(&e.version, v, vn);
		else if (keyis(k, kn, "machine-id"))
			r = setn(&e.machine_id, v, vn);
		else if (keyis(k, kn, "sort-key"))
			r = setn(&e.sort_key, v, vn);
		else if (keyis(k, kn, "linux")) {
			r = setn(&e.kernel, v, vn);
			e.type = LB_ENTRY_LINUX;
			kline = lineno;
		} else if (keyis(k, kn, "uki")) {
			if (e.kernel && e.type == LB_ENTRY_LINUX) {
				r = 0; /* `linux` wins */
				continue;
			}
			r = setn(&e.kernel, v, vn);
			e.type = LB_ENTRY_UKI;
			kline = lineno;
		} else if (keyis(k, kn, "efi"))
			r = setn(&efi, v, vn);
		else if (keyis(k, kn, "initrd")) {
			char *t = strndup(v, vn);
			if (!t)
				goto fail;
			r = vn ? lb_entry_add_initrd(&e, t) : 0;
			free(t);
			if (r == -E2BIG) {
				lb_entries_msg(msgs, "%s:%d: more than %d initrds, rest ignored",
					       where, lineno, LB_MAX_INITRDS);
				r = 0;
			}
		} else if (keyis(k, kn, "options"))
			r = appendn(&e.cmdline, v, vn);
		else if (keyis(k, kn, "devicetree"))
			r = setn(&e.devicetree, v, vn);
		else if (keyis(k, kn, "devicetree-overlay")) {
			lb_entries_msg(msgs, "%s:%d: devicetree-overlay not supported, ignored",
				       where, lineno);
			r = 0;
		} else if (keyis(k, kn, "architecture"))
			r = setn(&arch, v, vn);
		else
			r = 0; /* unknown keys are ignored (spec) */
		if (r)
			goto fail;
	}
	if (!e.kernel) {
		if (efi)
			lb_entries_msg(msgs, "%s: skipped: 'efi %s' is an EFI program, kexec cannot run it",
				       where, efi);
		else
			lb_entries_msg(msgs, "%s: skipped: no 'linux' or 'uki' key", where);
		r = -ENOENT;
		goto fail;
	}
	if (arch && strcasecmp(arch, LB_BLS_ARCH)) {
		lb_entries_msg(msgs, "%s: architecture '%s' is not %s: hidden",
			       where, arch, LB_BLS_ARCH);
		e.hidden = 1;
	}
	if (!e.title && !(e.title = strdup(e.id)))
		goto nomem;
	if (asprintf(&e.source, "%s:%d", where, kline) < 0) {
		e.source = NULL;
		goto nomem;
	}
	free(efi);
	free(arch);
	*out = e;
	*tries_left = left;
	return 0;
nomem:
	r = -ENOMEM;
fail:
	free(efi);
	free(arch);
	lb_entry_free(&e);
	return r;
}

static int cmpnull(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

int lb_bls_compare(const struct lb_entry *a, int a_bad,
		   const struct lb_entry *b, int b_bad)
{
	int r;

	if (!!a_bad != !!b_bad)
		return a_bad ? 1 : -1;
	if (!a->sort_key != !b->sort_key)
		return a->sort_key ? -1 : 1;
	if (a->sort_key) {
		if ((r = strcmp(a->sort_key, b->sort_key)))
			return r;
		if ((r = cmpnull(a->machine_id, b->machine_id)))
			return r;
		if ((r = lb_vercmp(b->version, a->version)))
			return r;
	}
	return lb_vercmp(b->id, a->id);
}

struct item {
	struct lb_entry e;
	int bad;
	char *fname; /* "ID.conf" / "ID.efi" (no boot counter), for globs */
};

static int cmp_item(const void *x, const void *y)
{
	const struct item *a = x, *b = y;

	return lb_bls_compare(&a->e, a->bad, &b->e, b->bad);
}

struct items {
	struct item *v;
	size_t n, cap;
};

static void items_free(struct items *it)
{
	for (size_t i = 0; i < it->n; i++) {
		lb_entry_free(&it->v[i].e);
		free(it->v[i].fname);
	}
	free(it->v);
	memset(it, 0, sizeof(*it));
}

/* Takes ownership of e on success. `suffix` (".conf"/".efi") makes the
 * systemd-boot entry id "ID.conf" that loader.conf globs match. */
static int items_add(struct items *it, struct lb_entry *e, int bad,
		     const char *suffix)
{
	char *f;

	if (it->n == it->cap) {
		size_t cap = it->cap ? it->cap * 2 : 16;
		struct item *v;

		if (cap > 8192)
			return -E2BIG;
		if (!(v = realloc(it->v, cap * sizeof(*v))))
			return -ENOMEM;
		it->v = v;
		it->cap = cap;
	}
	if (asprintf(&f, "%s%s", e->id, suffix) < 0)
		return -ENOMEM;
	it->v[it->n].e = *e;
	it->v[it->n].bad = bad;
	it->v[it->n].fname = f;
	it->n++;
	return 0;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n > m && !strcasecmp(s + n - m, suf);
}

static char *join(const char *dir, const char *name)
{
	char *s;
	size_t n = strlen(dir);

	while (n && dir[n - 1] == '/')
		n--;
	if (asprintf(&s, "%.*s/%s", (int)n, dir, name) < 0)
		return NULL;
	return s;
}

/* Read and parse the *.conf of dir into it. Missing dir: -ENOENT. */
static int load_entries(const struct lb_fs *fs, const char *dir,
			struct items *it, struct lb_entries *msgs)
{
	char **names = NULL, *path = NULL, *buf = NULL;
	size_t n = 0, len;
	int r;

	r = lb_fs_list(fs, dir, &names, &n);
	if (r)
		return r;
	for (size_t i = 0; i < n; i++) {
		struct lb_entry e;
		int left;

		if (names[i][0] == '.' || !has_suffix(names[i], ".conf"))
			continue;
		if (!(path = join(dir, names[i]))) {
			r = -ENOMEM;
			break;
		}
		r = lb_fs_read(fs, path, BLS_MAX_ENTRY, &buf, &len);
		if (r) {
			lb_entries_msg(msgs, "%s: cannot read: %s", path, strerror(-r));
			free(path);
			path = NULL;
			r = 0;
			continue;
		}
		r = lb_bls_parse_entry(names[i], path, buf, len, &e, &left, msgs);
		free(buf);
		buf = NULL;
		free(path);
		path = NULL;
		if (r == -ENOENT) {
			r = 0; /* skipped with a message */
			continue;
		}
		if (r)
			break;
		if (!(e.fs = strdup(lb_fs_ident(fs)))) {
			lb_entry_free(&e);
			r = -ENOMEM;
			break;
		}
		if ((r = items_add(it, &e, left == 0, ".conf"))) {
			lb_entry_free(&e);
			if (r != -E2BIG)
				break;
			lb_entries_msg(msgs, "%s: too many entries, rest ignored", dir);
			r = 0;
			break;
		}
	}
	lb_fs_list_free(names, n);
	return r;
}

/* Move sorted items into out (in order); frees it. */
static int items_emit(struct items *it, struct lb_entries *out)
{
	int r = 0;

	for (size_t i = 0; i < it->n; i++) {
		struct lb_entry *d;

		if (r || !(d = lb_entries_add(out))) {
			r = -ENOMEM;
			continue;
		}
		*d = it->v[i].e;
		memset(&it->v[i].e, 0, sizeof(it->v[i].e));
	}
	items_free(it);
	return r;
}

int lb_bls_load_dir(const struct lb_fs *fs, const char *dir,
		    struct lb_entries *out)
{
	struct items it = { 0 };
	int r;

	r = load_entries(fs, dir, &it, out);
	if (r) {
		items_free(&it);
		return r;
	}
	if (it.n)
		qsort(it.v, it.n, sizeof(it.v[0]), cmp_item);
	return items_emit(&it, out);
}

/* ---- os-release --------------------------------------------------------- */

char *lb_osrel_get(const char *buf, size_t len, const char *key)
{
	const char *p = buf, *end = buf + len, *l;
	size_t ln, kl = strlen(key);
	char *res = NULL;

	while (next_line(&p, end, &l, &ln)) {
		size_t i = 0, o = 0;
		char q = 0, *v;

		while (i < ln && isws(l[i]))
			i++;
		if (ln - i <= kl || memcmp(l + i, key, kl) || l[i + kl] != '=')
			continue;
		i += kl + 1;
		if (!(v = malloc(ln - i + 1)))
			break;
		for (; i < ln; i++) {
			char c = l[i];

			if (!q && (c == '"' || c == '\'')) {
				q = c;
			} else if (q && c == q) {
				q = 0;
			} else if (c == '\\' && q != '\'' && i + 1 < ln) {
				v[o++] = l[++i];
			} else if (!q && (isws(c) || c == '#')) {
				break;
			} else if (c) {
				v[o++] = c;
			}
		}
		v[o] = 0;
		free(res);
		res = v; /* last assignment wins */
	}
	return res;
}

/* ---- type 2: unified kernel images ------------------------------------ */

/* Read a section (capped) as a NUL-terminated string; NULL if absent. */
static int read_sect(int fd, const struct lb_pe *pe, const char *name,
		     char **out, size_t *outlen)
{
	const struct lb_pe_section *s = lb_pe_uki_section(pe, name);
	uint64_t off, len;
	char *b;
	int r;

	*out = NULL;
	*outlen = 0;
	if (!s)
		return 0;
	lb_pe_span(s, &off, &len);
	if (len > UKI_MAX_SECT)
		len = UKI_MAX_SECT;
	if (!(b = malloc((size_t)len + 1)))
		return -ENOMEM;
	if ((r = lb_pread_full(fd, b, (size_t)len, off, NULL))) {
		free(b);
		return r;
	}
	b[len] = 0;
	*out = b;
	*outlen = (size_t)len;
	return 0;
}

static char *trim_dup(const char *s)
{
	size_t n;

	if (!s)
		return NULL;
	while (*s && (isws(*s) || *s == '\n'))
		s++;
	n = strlen(s);
	while (n && (isws(s[n - 1]) || s[n - 1] == '\n'))
		n--;
	return strndup(s, n);
}

int lb_bls_uki_entry(const struct lb_fs *fs, const char *path,
		     struct lb_entry *out)
{
	struct lb_entry e = { 0 };
	struct lb_pe *pe = NULL;
	uint8_t *hdr = NULL;
	char *cmd = NULL, *osrel = NULL, *uname = NULL, *name = NULL;
	char *pretty = NULL, *ver = NULL, *skey = NULL, *tu = NULL;
	const char *base;
	size_t hl, cl, ol, ul;
	struct stat st;
	int fd, r, left;

	fd = lb_fs_open(fs, path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		goto out;
	}
	hl = (uint64_t)st.st_size < UKI_MAX_HDR ? (size_t)st.st_size : UKI_MAX_HDR;
	if (!(hdr = malloc(hl ? hl : 1)) || !(pe = malloc(sizeof(*pe)))) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = lb_pread_full(fd, hdr, hl, 0, NULL)))
		goto out;
	if ((r = lb_pe_parse(hdr, hl, (uint64_t)st.st_size, pe)))
		goto out;
	if (!lb_pe_find(pe, ".linux")) {
		r = -ENOENT;
		goto out;
	}
	if ((r = read_sect(fd, pe, ".cmdline", &cmd, &cl)) ||
	    (r = read_sect(fd, pe, ".osrel", &osrel, &ol)) ||
	    (r = read_sect(fd, pe, ".uname", &uname, &ul)))
		goto out;
	r = -ENOMEM;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!(e.id = strndup(base, parse_fname(base, ".efi", &left))))
		goto out;
	if (osrel) {
		if (!(pretty = lb_osrel_get(osrel, ol, "PRETTY_NAME")))
			name = lb_osrel_get(osrel, ol, "NAME");
		if (!(ver = lb_osrel_get(osrel, ol, "IMAGE_VERSION")))
			ver = lb_osrel_get(osrel, ol, "VERSION_ID");
		if (!(skey = lb_osrel_get(osrel, ol, "IMAGE_ID")))
			skey = lb_osrel_get(osrel, ol, "ID");
	}
	tu = trim_dup(uname);
	if (tu && !*tu) {
		free(tu);
		tu = NULL;
	}
	if (!ver && tu && !(ver = strdup(tu)))
		goto out;
	{
		const char *t = pretty ? pretty : name ? name : e.id;
		const char *v = tu ? tu : ver;

		if (v ? asprintf(&e.title, "%s (%s)", t, v) < 0
		      : asprintf(&e.title, "%s", t) < 0) {
			e.title = NULL;
			goto out;
		}
	}
	e.type = LB_ENTRY_UKI;
	e.version = ver;
	ver = NULL;
	e.sort_key = skey && *skey ? skey : NULL;
	if (e.sort_key)
		skey = NULL;
	if (!(e.kernel = strdup(path)))
		goto out;
	if (cmd) {
		if (!(e.cmdline = trim_dup(cmd)))
			goto out;
		if (!*e.cmdline) {
			free(e.cmdline);
			e.cmdline = NULL;
		}
	}
	if (asprintf(&e.source, "%s:0", path) < 0) {
		e.source = NULL;
		goto out;
	}
	*out = e;
	memset(&e, 0, sizeof(e));
	r = 0;
out:
	lb_entry_free(&e);
	free(hdr);
	free(pe);
	free(cmd);
	free(osrel);
	free(uname);
	free(name);
	free(pretty);
	free(ver);
	free(skey);
	free(tu);
	close(fd);
	return r;
}

/* ---- systemd-boot ------------------------------------------------------ */

/* Path p of an entry relative to the BLS root; fall back to fs root. */
static char *resolve(const struct lb_fs *fs, const char *root, const char *p)
{
	struct stat st;
	char *c;

	if (!*root)
		return p[0] == '/' ? strdup(p) : join("", p);
	if (!(c = join(root, p[0] == '/' ? p + 1 : p)))
		return NULL;
	if (lb_fs_stat(fs, c, &st) && !lb_fs_stat(fs, p, &st)) {
		free(c);
		return p[0] == '/' ? strdup(p) : join("", p);
	}
	return c;
}

static int resolve_entry(const struct lb_fs *fs, const char *root,
			 struct lb_entry *e)
{
	char *c;

	if (!(c = resolve(fs, root, e->kernel)))
		return -ENOMEM;
	free(e->kernel);
	e->kernel = c;
	for (size_t i = 0; i < e->n_initrd; i++) {
		if (!(c = resolve(fs, root, e->initrd[i])))
			return -ENOMEM;
		free(e->initrd[i]);
		e->initrd[i] = c;
	}
	if (e->devicetree) {
		if (!(c = resolve(fs, root, e->devicetree)))
			return -ENOMEM;
		free(e->devicetree);
		e->devicetree = c;
	}
	return 0;
}

/* One UTF-8 sequence at s (n bytes left) that UCS-2 holds (1 to 3 bytes,
 * no overlong form, no surrogate): its length, else 0. */
static size_t utf8_bmp_len(const unsigned char *s, size_t n)
{
	unsigned c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if ((s[0] & 0xf0) != 0xe0 || n < 3 || (s[1] & 0xc0) != 0x80 ||
	    (s[2] & 0xc0) != 0x80)
		return 0;
	c = (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
	return c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 0 : 3;
}

int lb_bls_sdboot_cmdline(struct lb_entry *e, const char **bad)
{
	size_t n = 0, o = 0, cl = e->cmdline ? strlen(e->cmdline) : 0;
	char *c;

	*bad = NULL;
	if (e->type != LB_ENTRY_LINUX || !e->n_initrd)
		return 0;
	for (size_t i = 0; i < e->n_initrd; i++) {
		const unsigned char *p = (const unsigned char *)e->initrd[i];
		size_t pl = strlen(e->initrd[i]);

		for (size_t j = 0, k; j < pl; j += k) {
			k = utf8_bmp_len(p + j, pl - j);
			if (!k || p[j] <= ' ' || p[j] == 0x7f || p[j] == '"') {
				*bad = e->initrd[i];
				return -EINVAL;
			}
		}
		if (pl > ((size_t)1 << 20))
			return -E2BIG;
		n += sizeof("initrd=\\ ") + pl; /* at most one '\' per byte */
	}
	if (cl > ((size_t)1 << 24))
		return -E2BIG;
	if (!(c = malloc(n + cl + 1)))
		return -ENOMEM;
	for (size_t i = 0; i < e->n_initrd; i++) {
		if (i)
			c[o++] = ' ';
		memcpy(c + o, "initrd=\\", 8);
		o += 8;
		for (const char *p = e->initrd[i]; *p; p++) {
			char ch = *p == '/' ? '\\' : *p;

			if (ch == '\\' && c[o - 1] == '\\')
				continue; /* "//" and a leading '/' */
			c[o++] = ch;
		}
	}
	if (cl) {
		c[o++] = ' ';
		memcpy(c + o, e->cmdline, cl);
		o += cl;
	}
	c[o] = 0;
	free(e->cmdline);
	e->cmdline = c;
	return 0;
}

struct loader_conf {
	char *deflt;
	int timeout;
};

static int parse_loader_conf(const char *where, const char *buf, size_t len,
			     struct loader_conf *lc, struct lb_entries *msgs)
{
	const char *p = buf, *end = buf + len, *l, *k, *v;
	size_t ln, kn, vn;
	int lineno = 0;

	while (next_line(&p, end, &l, &ln)) {
		lineno++;
		if (!split_kv(l, ln, &k, &kn, &v, &vn))
			continue;
		if (keyis(k, kn, "default")) {
			if (setn(&lc->deflt, v, vn))
				return -ENOMEM;
		} else if (keyis(k, kn, "timeout")) {
			char t[16];
			long n;
			char *e;

			if (vn >= sizeof(t))
				vn = sizeof(t) - 1;
			memcpy(t, v, vn);
			t[vn] = 0;
			if (!strcmp(t, "menu-hidden") || !strcmp(t, "menu-disabled")) {
				lc->timeout = 0;
				continue;
			}
			if (!strcmp(t, "menu-force")) {
				lb_entries_msg(msgs, "%s:%d: timeout menu-force: waiting forever is not supported, no timeout set",
					       where, lineno);
				continue;
			}
			n = strtol(t, &e, 10);
			if (e == t || *e || n < 0) {
				lb_entries_msg(msgs, "%s:%d: bad timeout '%s'",
					       where, lineno, t);
				continue;
			}
			lc->timeout = n > 86400 ? 86400 : (int)n;
		}
		/* editor, console-mode, auto-entries, ...: not relevant here */
	}
	return 0;
}

static int title_dup(const struct items *it, size_t i)
{
	for (size_t j = 0; j < it->n; j++)
		if (j != i && !strcmp(it->v[j].e.title, it->v[i].e.title))
			return 1;
	return 0;
}

/* Make equal titles distinct as systemd-boot does: append " (VERSION)",
 * then, where still equal, " (ID)" (among the first 64 entries). */
static int unique_titles(struct items *it)
{
	for (int pass = 0; pass < 2; pass++) {
		char *nt[64];
		size_t n = it->n < 64 ? it->n : 64;

		for (size_t i = 0; i < n; i++) {
			const struct lb_entry *e = &it->v[i].e;
			const char *add = pass ? e->id : e->version;

			nt[i] = NULL;
			if (add && title_dup(it, i) &&
			    asprintf(&nt[i], "%s (%s)", e->title, add) < 0) {
				nt[i] = NULL;
				for (size_t k = 0; k < i; k++)
					free(nt[k]);
				return -ENOMEM;
			}
		}
		for (size_t i = 0; i < n; i++)
			if (nt[i]) {
				free(it->v[i].e.title);
				it->v[i].e.title = nt[i];
			}
	}
	return 0;
}

static int glob_match(const char *pat, const struct item *it)
{
	return !fnmatch(pat, it->fname, FNM_CASEFOLD) ||
	       !fnmatch(pat, it->e.id, FNM_CASEFOLD);
}

int lb_bls_scan(const struct lb_fs *fs, const char *root,
		struct lb_entries *out)
{
	struct loader_conf lc = { NULL, -1 };
	struct items it = { 0 };
	char *path = NULL, *buf = NULL, **names = NULL;
	size_t len, nn = 0, first;
	long def = -1;
	int r;

	if (!(path = join(root, "loader/loader.conf")))
		return -ENOMEM;
	r = lb_fs_read(fs, path, BLS_MAX_ENTRY, &buf, &len);
	if (!r) {
		r = parse_loader_conf(path, buf, len, &lc, out);
		free(buf);
		buf = NULL;
		if (r)
			goto out;
	} else if (r != -ENOENT) {
		lb_entries_msg(out, "%s: cannot read: %s", path, strerror(-r));
	}
	free(path);
	if (!(path = join(root, "loader/entries"))) {
		r = -ENOMEM;
		goto out;
	}
	r = load_entries(fs, path, &it, out);
	if (r && r != -ENOENT && r != -ENOTDIR)
		goto out;
	/* systemd-boot's initrd= words (before the paths are resolved: the
	 * words name the files as the entry does); resolve paths; drop
	 * entries whose kernel is missing or whose initrd cannot be named on
	 * the command line */
	for (size_t i = 0; i < it.n;) {
		struct item *x = &it.v[i];
		struct stat st;
		const char *bad;

		r = lb_bls_sdboot_cmdline(&x->e, &bad);
		if (r == -EINVAL)
			lb_entries_msg(out, "%s: skipped: initrd '%s' has a blank, a quote, a control character or a byte UCS-2 cannot carry: systemd-boot's initrd= word for it would not be one word on the command line",
				       x->e.source, bad);
		else if (r == -E2BIG)
			lb_entries_msg(out, "%s: skipped: command line too long", x->e.source);
		else if (r || (r = resolve_entry(fs, root, &x->e)))
			goto out; /* -ENOMEM */
		else if (lb_fs_stat(fs, x->e.kernel, &st) || !S_ISREG(st.st_mode)) {
			lb_entries_msg(out, "%s: skipped: kernel %s not found",
				       x->e.source, x->e.kernel);
			r = -ENOENT;
		}
		if (r) {
			r = 0;
			lb_entry_free(&x->e);
			free(x->fname);
			memmove(x, x + 1, (it.n - i - 1) * sizeof(*x));
			it.n--;
			continue;
		}
		/* `uki` without `options`: no command line in the entry. The
		 * stage takes the UKI's own .cmdline from the bytes it reads
		 * (covered by the UKI's signature); a copy read here, at scan
		 * time, is covered by nothing and could be another file's
		 * (issue 23, finding 3) */
		i++;
	}
	/* type 2 */
	free(path);
	if (!(path = join(root, "EFI/Linux"))) {
		r = -ENOMEM;
		goto out;
	}
	r = lb_fs_list(fs, path, &names, &nn);
	if (r)
		nn = 0; /* no EFI/Linux: fine */
	for (size_t i = 0; i < nn; i++) {
		struct lb_entry e;
		char *p;
		int left;

		if (names[i][0] == '.' || !has_suffix(names[i], ".efi"))
			continue;
		if (!(p = join(path, names[i]))) {
			r = -ENOMEM;
			goto out;
		}
		r = lb_bls_uki_entry(fs, p, &e);
		if (r) {
			lb_entries_msg(out, "%s: skipped: %s", p,
				       r == -ENOENT ? "no .linux section (not a UKI)" :
				       r == -EINVAL ? "not a PE image" : strerror(-r));
			free(p);
			if (r == -ENOMEM)
				goto out;
			continue;
		}
		free(p);
		/* type 2: the same; the scan-time .cmdline is not kept */
		free(e.cmdline);
		e.cmdline = NULL;
		if (!(e.fs = strdup(lb_fs_ident(fs)))) {
			lb_entry_free(&e);
			r = -ENOMEM;
			goto out;
		}
		parse_fname(names[i], ".efi", &left);
		if ((r = items_add(&it, &e, left == 0, ".efi"))) {
			lb_entry_free(&e);
			goto out;
		}
	}
	r = 0;
	if (!it.n)
		goto out;
	qsort(it.v, it.n, sizeof(it.v[0]), cmp_item);
	if ((r = unique_titles(&it)))
		goto out;
	/* default: loader.conf glob (first match in menu order), "@saved"
	 * (an EFI variable we cannot see) = first entry; else the first. */
	first = 0;
	for (size_t i = 0; i < it.n; i++)
		if (!it.v[i].e.hidden) {
			first = i;
			break;
		}
	if (lc.deflt && strcmp(lc.deflt, "@saved")) {
		for (size_t i = 0; i < it.n && def < 0; i++)
			if (!it.v[i].e.hidden && glob_match(lc.deflt, &it.v[i]))
				def = (long)i;
		if (def < 0)
			lb_entries_msg(out, "%s/loader/loader.conf: default '%s' matches no entry, using the first",
				       root, lc.deflt);
	}
	if (def < 0)
		def = (long)first;
	it.v[def].e.is_default = 1;
	if (lc.timeout >= 0 && out->timeout < 0)
		out->timeout = lc.timeout;
	r = items_emit(&it, out);
out:
	lb_fs_list_free(names, nn);
	items_free(&it);
	free(path);
	free(lc.deflt);
	return r;
}
