/* kexec_file_load of boot entries (bzImage + initrds, or a UKI). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"
#include "io.h"
#include "hash.h"
#include "console.h"
#include "ipxe.h"
#include "kexec.h"
#include "kexecload.h"
#include "kmsg.h"
#include "netio.h"
#include "uptime.h"
#include "uki.h"

#define LB_MFD_CLOEXEC 1u

/* lboot.kexec= (kexecload.h) */
int lb_kexec_mode_parse(const char *v)
{
	if (!v)
		return -EINVAL;
	if (!strcmp(v, "file"))
		return LB_KEXEC_FILE;
	if (!strcmp(v, "load"))
		return LB_KEXEC_LOAD;
	if (!strcmp(v, "auto"))
		return LB_KEXEC_AUTO;
	return -EINVAL;
}

const char *lb_kexec_mode_name(int mode)
{
	switch (mode) {
	case LB_KEXEC_FILE:
		return "file";
	case LB_KEXEC_LOAD:
		return "load";
	default:
		return "auto";
	}
}

const char *lb_entry_device(const struct lb_fsset *set, const struct lb_entry *e)
{
	const struct lb_fs *fs = e->fs && set ? lb_fsset_by_ident(set, e->fs) : NULL;

	if (fs && fs->name)
		return fs->name;
	if (!e->fs && e->kernel && lb_is_url(e->kernel))
		return "network";
	return e->fs ? e->fs : "?";
}

int lb_kexec_memfd(const char *name)
{
	int fd = (int)syscall(LB_SYS_MEMFD_CREATE, name, LB_MFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static const char *err_text(int err)
{
	switch (err) {
	case ENOENT:
		return "no such file (ENOENT)";
	case ENOEXEC:
		return "not a kernel image the running kernel can kexec (ENOEXEC)";
	case EKEYREJECTED:
		return "signature rejected (EKEYREJECTED)";
	case EKEYEXPIRED:
		return "signing key expired (EKEYEXPIRED)";
	case EBADMSG:
		return "bad signature data (EBADMSG)";
	case ENOMEM:
		return "out of memory (ENOMEM)";
	case ENOSYS:
		return "kexec_file_load not supported by this kernel (ENOSYS)";
	case EPERM:
		return "not permitted (EPERM)";
	case EBUSY:
		return "kexec busy (EBUSY)";
	case EISDIR:
		return "is a directory (EISDIR)";
	case EFBIG:
		return "file too large (EFBIG)";
	case EINVAL:
		return "invalid argument (EINVAL)";
	default:
		return strerror(err);
	}
}

static int fail(char *why, size_t whysz, const char *file, int r, const char *what)
{
	size_t fl = file ? strlen(file) : 0;

	/* a fetch error already starts with its URL: not twice */
	if (what && fl && !strncmp(what, file, fl) && what[fl] == ':')
		snprintf(why, whysz, "%s", what);
	else
		snprintf(why, whysz, "%s: %s", file ? file : "?",
			 what ? what : err_text(-r));
	return r;
}

/* the command line of a UKI's .cmdline: up to a NUL, trailing space cut */
static char *span_str(const uint8_t *img, const struct lb_span *s)
{
	size_t n = 0;
	char *c;

	while (n < s->len && img[s->off + n])
		n++;
	while (n && (img[s->off + n - 1] == '\n' || img[s->off + n - 1] == ' ' ||
		     img[s->off + n - 1] == '\r' || img[s->off + n - 1] == '\t'))
		n--;
	if (!(c = malloc(n + 1)))
		return NULL;
	memcpy(c, img + s->off, n);
	c[n] = 0;
	return c;
}


/* blob writes with the caller's meaning of errors */
#define CHUNK ((size_t)1 << 20)

static int pad4(struct lb_blob *b)
{
	static const uint8_t z[4];
	size_t pad = (size_t)((4 - (b->size & 3)) & 3);

	return pad ? lb_blob_write(b, z, pad) : 0;
}

/* a regular file of fs, opened (FIFOs and devices never are: fs.c) */
static int open_file(const struct lb_fs *fs, const char *path, int *fd)
{
	struct stat st;
	int f = lb_fs_open(fs, path);

	if (f < 0)
		return f;
	if (fstat(f, &st) < 0) {
		int r = -errno;
		close(f);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(f);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	*fd = f;
	return 0;
}

/* Pieces are padded to 4 bytes between each other, not after the last:
 * the buffer is what systemd-boot hands over (and measures into PCR 9). */
static struct lb_stage_part *add_part(struct lb_stage *st, const char *name,
				      int from_entry)
{
	struct lb_stage_part *p;

	if (st->n_parts >= LB_STAGE_MAX_PARTS || pad4(&st->initrd))
		return NULL;
	p = &st->part[st->n_parts++];
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->from_entry = from_entry;
	p->off = st->initrd.size;
	return p;
}

static void note_initrd(struct lb_stage *st, const char *name)
{
	size_t l = strlen(st->initrds);

	if (l < sizeof(st->initrds) - 1)
		snprintf(st->initrds + l, sizeof(st->initrds) - l, "%s%s",
			 l ? "," : "", name);
}

/* a piece of memory (a UKI section) into the initrd blob */
static int stage_mem(struct lb_stage *st, const char *name, const uint8_t *p,
		     size_t len)
{
	struct lb_stage_part *part = add_part(st, name, 0);
	int r;

	if (!part)
		return -E2BIG;
	if ((r = lb_blob_write(&st->initrd, p, len)))
		return r;
	part->len = len;
	note_initrd(st, name);
	return 0;
}

/*
 * iPXE's cpio wrapping ("initrd URL /etc/x.conf mode=0600"): newc header(s)
 * before the file's bytes, as iPXE's bzImage loader lays them out (header,
 * name, NUL, zeros to 4 bytes; the file right after; the next piece at the
 * next 4 bytes). The header's size depends only on the path; its
 * c_filesize field on the file's length, known before the first byte when
 * the server announces it (Content-Length, TFTP tsize) or fstat says it:
 * then the header goes into the blob first and everything is written and
 * hashed once, in order. When the length is not known in advance (chunked
 * HTTP, no tsize), the header is written with length 0, the file follows,
 * and the header is patched in place once the length is known; the
 * initrd's digests (PCR 9) are then computed again over the sealed bytes.
 * The file's own digests (its signature) never include the header.
 */
struct wrap {
	struct lb_ipxe_initrd rd;
	long hl;                 /* header bytes; 0: the file as is */
	uint64_t hoff;           /* where they start in the initrd blob */
	int written;             /* header in the blob, saying hlen */
	uint64_t hlen;
	int announced;           /* the size came before the bytes */
	uint64_t size;
};

static int wrap_init(struct wrap *w, const struct lb_initrd_cpio *c,
		     struct lb_stage *st)
{
	int r;

	memset(w, 0, sizeof(*w));
	if (!c || !c->path)
		return 0;
	w->rd.cpio_name = c->path;
	w->rd.mode = c->mode;
	w->rd.mkdir = c->mkdir;
	if ((r = lb_ipxe_cpio_check(&w->rd, st->neterr, sizeof(st->neterr))))
		return r;
	w->hl = lb_ipxe_cpio_header(&w->rd, 0, NULL, 0);
	w->hoff = st->initrd.size;
	return w->hl < 0 ? (int)w->hl : 0;
}

/* the header for a file of len bytes: appended (first), or patched */
static int wrap_put(struct lb_blob *b, struct wrap *w, uint64_t len, int patch)
{
	uint8_t *hdr;
	int r;

	if (len > 0xffffffffu)
		return -EFBIG; /* c_filesize has 8 hex digits */
	if (!(hdr = malloc((size_t)w->hl)))
		return -ENOMEM;
	if (lb_ipxe_cpio_header(&w->rd, (size_t)len, hdr, (size_t)w->hl) != w->hl)
		r = -EINVAL;
	else
		r = patch ? lb_blob_patch(b, w->hoff, hdr, (size_t)w->hl)
			  : lb_blob_write(b, hdr, (size_t)w->hl);
	free(hdr);
	if (!r) {
		w->written = 1;
		w->hlen = len;
	}
	return r;
}

/* before the file's first byte (or at its end when it had none) */
static int wrap_begin(struct lb_blob *b, struct wrap *w)
{
	if (!w || !w->hl || w->written)
		return 0;
	return wrap_put(b, w, w->announced ? w->size : 0, 0);
}

/* the file ended after len bytes: the header says so */
static int wrap_end(struct lb_blob *b, struct wrap *w, uint64_t len)
{
	if (!w->hl)
		return 0;
	if (!w->written)
		return wrap_put(b, w, len, 0); /* nothing after it yet: in order */
	return w->hlen == len ? 0 : wrap_put(b, w, len, 1);
}

static int fetch_into(const char *url, struct lb_blob *b, struct lb_hash *h,
		      struct wrap *w, uint64_t *got, char *err, size_t errsz);

/* an initrd file: read once into the initrd blob, hashed on its own too */
static int stage_file(struct lb_stage *st, const char *path,
		      const struct lb_initrd_cpio *cpio, unsigned mask, uint8_t *buf)
{
	struct lb_stage_part *part = add_part(st, path, 1);
	struct lb_hash h;
	struct wrap w;
	struct stat sb;
	int fd, r;

	if (!part)
		return -E2BIG;
	if ((r = wrap_init(&w, cpio, st)))
		return r;
	part->off += (uint64_t)w.hl; /* the file's own bytes, after the header */
	if (mask && (r = lb_hash_init(&h, mask)))
		return r;
	if (lb_is_url(path)) {
		if ((r = fetch_into(path, &st->initrd, mask ? &h : NULL, &w, &part->len,
				    st->neterr, sizeof(st->neterr))) ||
		    (r = wrap_end(&st->initrd, &w, part->len)))
			return r;
		if (mask)
			lb_hash_final(&h, &part->dig);
		note_initrd(st, path);
		return 0;
	}
	if ((r = open_file(st->fs, path, &fd)))
		return r;
	if (w.hl && !fstat(fd, &sb)) {
		w.announced = 1;
		w.size = (uint64_t)sb.st_size;
	}
	for (;;) {
		ssize_t n = read(fd, buf, CHUNK);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (!n)
			break;
		if ((r = wrap_begin(&st->initrd, &w)) ||
		    (r = lb_blob_write(&st->initrd, buf, (size_t)n)))
			break;
		if (mask)
			lb_hash_update(&h, buf, (size_t)n);
		part->len += (uint64_t)n;
	}
	close(fd);
	if (!r)
		r = wrap_end(&st->initrd, &w, part->len);
	if (r)
		return r;
	if (mask)
		lb_hash_final(&h, &part->dig);
	note_initrd(st, path);
	return 0;
}

/* --- network entries ---------------------------------------------------- */

static const struct lb_fetch_opts *fetch_base;

void lb_kexec_set_fetch(const struct lb_fetch_opts *o)
{
	fetch_base = o;
}

int lb_is_url(const char *s)
{
	return s && (!strncmp(s, "tftp://", 7) || !strncmp(s, "http://", 7) ||
		     !strncmp(s, "https://", 8));
}

struct url_sink {
	struct lb_blob *b;
	struct lb_hash *h;      /* the piece's own digests, or NULL */
	struct wrap *w;         /* a cpio header before it, or NULL */
	uint64_t n;
};

static void url_size(void *arg, uint64_t size)
{
	struct url_sink *u = arg;

	if (u->w) {
		u->w->announced = 1;
		u->w->size = size;
	}
}

static int url_sink(void *arg, const void *data, size_t len, uint64_t off)
{
	struct url_sink *u = arg;
	int r;

	(void)off; /* always in order (netio.h) */
	if ((r = wrap_begin(u->b, u->w)) || (r = lb_blob_write(u->b, data, len)))
		return r;
	if (u->h)
		lb_hash_update(u->h, data, len);
	u->n += len;
	return 0;
}

/* the progress line ends with "\n" once the size is reached; a transfer
 * that stops early, or of unknown size, leaves it open for fetch_into() to
 * close, so that the next line (an error) starts on its own */
static void url_progress(void *arg, uint64_t done, uint64_t total, uint64_t bps)
{
	int *open = arg;

	*open = !total || done != total;
	if (total)
		printf("\rlboot: fetched %llu of %llu KiB (%llu KiB/s) ",
		       (unsigned long long)(done >> 10), (unsigned long long)(total >> 10),
		       (unsigned long long)(bps >> 10));
	else
		printf("\rlboot: fetched %llu KiB (%llu KiB/s) ",
		       (unsigned long long)(done >> 10), (unsigned long long)(bps >> 10));
	if (done == total)
		printf("\n");
	fflush(stdout);
}

/* fetch url onto the end of blob b (its piece hashed into h when given) */
static int fetch_into(const char *url, struct lb_blob *b, struct lb_hash *h,
		      struct wrap *w, uint64_t *got, char *err, size_t errsz)
{
	struct lb_fetch_opts o = { 0 };
	struct lb_fetch_result *res = malloc(sizeof(*res));
	struct url_sink u = { .b = b, .h = h, .w = w };
	int r, open = 0;

	if (!res)
		return -ENOMEM;
	if (fetch_base)
		o = *fetch_base;
	o.sink = url_sink;
	o.sink_arg = &u;
	o.size = url_size;
	o.progress = url_progress;
	o.progress_arg = &open;
	o.max_size = b->cap;
	r = lb_fetch(url, &o, res);
	if (open) {
		printf("\n");
		fflush(stdout);
	}
	if (r && err)
		snprintf(err, errsz, "%s", res->err);
	free(res);
	if (got)
		*got = u.n;
	return r;
}

struct mem_sink {
	char *p;
	size_t n, max;
};

static int mem_sink(void *arg, const void *data, size_t len, uint64_t off)
{
	struct mem_sink *m = arg;
	char *np;

	(void)off;
	if (len > m->max - m->n)
		return -EFBIG;
	if (!(np = realloc(m->p, m->n + len + 1)))
		return -ENOMEM;
	m->p = np;
	memcpy(m->p + m->n, data, len);
	m->n += len;
	m->p[m->n] = 0;
	return 0;
}

int lb_kexec_fetch_small(const char *url, size_t max, char **buf, size_t *len,
			 char *err, size_t errsz)
{
	struct lb_fetch_opts o = { 0 };
	struct lb_fetch_result *res = malloc(sizeof(*res));
	struct mem_sink m = { .max = max };
	int r;

	if (!res)
		return -ENOMEM;
	if (fetch_base)
		o = *fetch_base;
	o.sink = mem_sink;
	o.sink_arg = &m;
	o.size = NULL;
	o.progress = NULL;
	o.max_size = max;
	r = lb_fetch(url, &o, res);
	if (r && err)
		snprintf(err, errsz, "%s", res->err);
	free(res);
	if (!r && !m.p && !(m.p = calloc(1, 1)))
		r = -ENOMEM;
	if (r) {
		free(m.p);
		return r;
	}
	*buf = m.p;
	if (len)
		*len = m.n;
	return 0;
}

void lb_stage_free(struct lb_stage *st)
{
	lb_blob_free(&st->file);
	lb_blob_free(&st->linux_);
	lb_blob_free(&st->initrd);
	free(st->cmdline);
	memset(st, 0, sizeof(*st));
	st->file.fd = st->linux_.fd = st->initrd.fd = -1;
}

static int stage_fail(struct lb_stage *st, char *why, size_t whysz,
		      const char *file, int r, const char *what)
{
	fail(why, whysz, file, r, what); /* what may point into st */
	lb_stage_free(st);
	return r;
}

int lb_kexec_stage(const struct lb_fsset *set, const struct lb_entry *e,
		   const char *cmdline, unsigned mask, struct lb_stage *st,
		   char *why, size_t whysz)
{
	const uint8_t *img;
	struct lb_uki u;
	uint8_t *buf = NULL;
	size_t n_initrd;
	const char *cmd;
	int fd, r;

	memset(st, 0, sizeof(*st));
	st->file.fd = st->linux_.fd = st->initrd.fd = -1;
	if (!set || !e)
		return fail(why, whysz, "entry", -EINVAL, "no entry");
	if (!e->kernel || !*e->kernel)
		return fail(why, whysz, "entry", -ENOENT, "no kernel path");
	st->fs = e->fs ? lb_fsset_by_ident(set, e->fs) : NULL;
	if (!st->fs && !e->fs && set->n == 1)
		st->fs = &set->v[0];
	if (!st->fs && e->fs && lb_fsset_count_ident(set, e->fs) > 1)
		return fail(why, whysz, e->fs, -ENODEV,
			    "names more than one filesystem (as UUID, label or device): ambiguous, refused");
	if (!st->fs && !lb_is_url(e->kernel))
		return fail(why, whysz, e->fs ? e->fs : "(no filesystem)", -ENODEV,
			    "filesystem not found (ENODEV)");

	/* the kernel file (or UKI), once: from the disk or the network */
	if (lb_is_url(e->kernel)) {
		if ((r = lb_blob_begin(&st->file, LB_KEXEC_MAX_UKI, mask)) ||
		    (r = fetch_into(e->kernel, &st->file, NULL, NULL, NULL, st->neterr,
				    sizeof(st->neterr))) ||
		    (r = lb_blob_end(&st->file)))
			return stage_fail(st, why, whysz, e->kernel, r,
					  st->neterr[0] ? st->neterr : NULL);
	} else {
		if ((r = open_file(st->fs, e->kernel, &fd)))
			return stage_fail(st, why, whysz, e->kernel, r, NULL);
		r = lb_blob_from_fd(fd, LB_KEXEC_MAX_UKI, mask, &st->file);
		close(fd);
		if (r)
			return stage_fail(st, why, whysz, e->kernel, r, NULL);
	}
	if ((r = lb_blob_map(&st->file, &img)))
		return stage_fail(st, why, whysz, e->kernel, r, NULL);

	st->is_uki = e->type == LB_ENTRY_UKI;
	if (st->is_uki) {
		if (!st->file.size)
			return stage_fail(st, why, whysz, e->kernel, -ENOEXEC,
					  "empty file (ENOEXEC)");
		if ((r = lb_uki_split(img, st->file.size, &u)))
			return stage_fail(st, why, whysz, e->kernel, -ENOEXEC,
					  r == -ENOENT ? "UKI without a .linux section (ENOEXEC)"
						       : "not a PE unified kernel image (ENOEXEC)");
		st->cmdmax = lb_kimage_cmdline_max(img + u.linux_.off, u.linux_.len);
		if (st->cmdmax < 0) {
			char what[80];

			snprintf(what, sizeof(what), "UKI .linux section is not %s (ENOEXEC)",
				 lb_kimage_name);
			return stage_fail(st, why, whysz, e->kernel, -ENOEXEC, what);
		}
		if ((r = lb_blob_begin(&st->linux_, LB_KEXEC_MAX_UKI, 0)) ||
		    (r = lb_blob_write(&st->linux_, img + u.linux_.off, u.linux_.len)) ||
		    (r = lb_blob_end(&st->linux_)))
			return stage_fail(st, why, whysz, e->kernel, r, NULL);
	} else {
		st->cmdmax = lb_kimage_cmdline_max(img, (size_t)st->file.size);
		if (st->cmdmax < 0) {
			char what[80];

			snprintf(what, sizeof(what), "not %s (ENOEXEC)", lb_kimage_name);
			return stage_fail(st, why, whysz, e->kernel, -ENOEXEC, what);
		}
	}

	/* the initrd the kernel receives: UKI sections, then the entry's files */
	n_initrd = e->n_initrd < LB_MAX_INITRDS ? e->n_initrd : LB_MAX_INITRDS;
	if ((st->is_uki && (u.ucode.len || u.initrd.len)) || n_initrd) {
		if ((r = lb_blob_begin(&st->initrd, LB_KEXEC_MAX_UKI, mask)))
			return stage_fail(st, why, whysz, e->kernel, r, NULL);
		if (st->is_uki && u.ucode.len &&
		    (r = stage_mem(st, ".ucode", img + u.ucode.off, u.ucode.len)))
			return stage_fail(st, why, whysz, e->kernel, r, NULL);
		if (st->is_uki && u.initrd.len &&
		    (r = stage_mem(st, ".initrd", img + u.initrd.off, u.initrd.len)))
			return stage_fail(st, why, whysz, e->kernel, r, NULL);
		if (n_initrd && !(buf = malloc(CHUNK)))
			return stage_fail(st, why, whysz, e->initrd[0], -ENOMEM, NULL);
		for (size_t i = 0; i < n_initrd; i++)
			if ((r = stage_file(st, e->initrd[i], &e->initrd_cpio[i], mask, buf))) {
				free(buf);
				return stage_fail(st, why, whysz, e->initrd[i], r,
						  st->neterr[0] ? st->neterr : NULL);
			}
		free(buf);
		if ((r = lb_blob_end(&st->initrd)) ||
		    (st->initrd.patched && (r = lb_blob_rehash(&st->initrd))))
			return stage_fail(st, why, whysz, e->kernel, r, NULL);
	}

	/* the command line: the caller's, the UKI's, the entry's */
	if (cmdline) {
		st->cmdline = strdup(cmdline);
		st->cmdline_edited = 1;
	} else if (st->is_uki && u.cmdline.len) {
		st->cmdline = span_str(img, &u.cmdline);
		st->cmdline_from_uki = 1;
	} else {
		st->cmdline = strdup(e->cmdline ? e->cmdline : "");
	}
	if (!st->cmdline)
		return stage_fail(st, why, whysz, e->kernel, -ENOMEM, NULL);
	cmd = st->cmdline;
	if (strlen(cmd) > (size_t)st->cmdmax) {
		char what[128];

		snprintf(what, sizeof(what), "%zu bytes, the kernel takes at most %ld (E2BIG)",
			 strlen(cmd), st->cmdmax);
		return stage_fail(st, why, whysz, "command line", -E2BIG, what);
	}
	return 0;
}

static int kexec_file_load(int kfd, int ifd, const char *cmdline, unsigned long flags)
{
	unsigned long len = strlen(cmdline) + 1;

	if (syscall(LB_SYS_KEXEC_FILE_LOAD, kfd, ifd, len, cmdline, flags) < 0)
		return -errno;
	return 0;
}

int lb_kexec_load(const struct lb_kexec_req *rq, char *why, size_t whysz)
{
	const struct lb_entry *e = rq ? rq->entry : NULL;
	struct lb_stage st;
	struct lb_blob kz = { .fd = -1 };
	int r, fast = 0;

	if (!rq || !e)
		return fail(why, whysz, "entry", -EINVAL, "no entry");
	if ((r = lb_kexec_stage(rq->set, e, rq->cmdline, rq->digest_mask, &st,
				why, whysz)))
		return r;
	if (rq->log && !rq->dry_run) { /* debug level: shown with loglevel=8 */
		char up[32];
		fprintf(rq->log, LB_LOG_DEBUG "lboot: staged %s: %llu + %llu initrd bytes (digests %#x) at uptime %s s\n",
			e->kernel, (unsigned long long)st.file.size,
			(unsigned long long)(st.initrd.fd >= 0 ? st.initrd.size : 0),
			rq->digest_mask, lb_uptime(up, sizeof(up)));
		fflush(rq->log);
	}
	if (rq->check && (r = rq->check(rq->check_arg, e, &st, why, whysz)))
		goto out;
	/* kexec_load with our layout (kexecload.h); kexec_file_load when
	 * asked, or when that fails in auto mode (e.g. lockdown: KEXEC_SIG) */
	r = -ENOSYS;
	if (!rq->dry_run && rq->mode != LB_KEXEC_FILE) {
		r = lb_kexec_load_segments(&st, why, whysz);
		fast = !r;
		if (r && rq->mode == LB_KEXEC_LOAD)
			goto out;
		if (r && rq->log)
			fprintf(rq->log, "lboot: %s; trying kexec_file_load\n", why);
	}
	if (!rq->dry_run && r) {
		/* the kernel as this architecture's kexec_file_load takes it,
		 * made from the staged bytes (arm64: a compressed Image
		 * decompressed; kimage_ARCH.c) */
		struct lb_blob *kb = st.is_uki ? &st.linux_ : &st.file;
		const uint8_t *kimg;
		char note[160], what[160] = "";

		if ((r = lb_blob_map(kb, &kimg)) ||
		    (r = lb_kimage_unpack(kimg, (size_t)kb->size, &kz, note, sizeof(note),
					  what, sizeof(what)))) {
			fail(why, whysz, e->kernel, r, what[0] ? what : NULL);
			goto out;
		}
		if (note[0] && rq->log)
			fprintf(rq->log, "lboot: %s: %s\n", e->kernel, note);
		if ((r = kexec_file_load(kz.fd >= 0 ? kz.fd : kb->fd, st.initrd.fd, st.cmdline,
					 st.initrd.fd < 0 ? LB_KEXEC_FILE_NO_INITRAMFS : 0))) {
			fail(why, whysz, e->kernel, r, NULL);
			goto out;
		}
	}
	if (rq->log) {
		fprintf(rq->log, "lboot: %skexec '%s' kernel=%s initrd=%s cmdline=%s\n",
			rq->dry_run ? "would " : "", e->title ? e->title : "",
			e->kernel, st.initrds[0] ? st.initrds : "none", st.cmdline);
		if (!rq->dry_run) {
			char up[32];
			fprintf(rq->log, "lboot: loaded (%s); handing over at uptime %s s\n",
				fast ? "kexec_load" : "kexec_file_load", lb_uptime(up, sizeof(up)));
		}
		fflush(rq->log);
	}
	r = 0;
out:
	if (kz.fd >= 0)
		lb_blob_free(&kz);
	lb_stage_free(&st);
	return r;
}

int lb_reboot(unsigned cmd)
{
	lb_console_drain(); /* the last lines reach every console first */
	sync();
	if (syscall(SYS_reboot, LB_LINUX_REBOOT_MAGIC1, LB_LINUX_REBOOT_MAGIC2,
		    cmd, NULL) < 0)
		return -errno;
	return 0;
}

int lb_kexec_exec(void)
{
	return lb_reboot(LB_LINUX_REBOOT_CMD_KEXEC);
}
