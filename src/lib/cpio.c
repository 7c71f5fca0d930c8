/* newc cpio writer and reader (see cpio.h). libc only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpio.h"

static const char hexdig[] = "0123456789ABCDEF";

static size_t pad4(uint64_t off)
{
	return (size_t)((4 - (off & 3)) & 3);
}

static int is_special(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: case S_IFCHR: case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		return 1;
	}
	return 0;
}

static int known_type(uint32_t mode)
{
	return (mode & S_IFMT) == S_IFREG || (mode & S_IFMT) == S_IFLNK ||
	       is_special(mode);
}

/* ---- writer --------------------------------------------------------------- */

void lb_cpio_writer_init(struct lb_cpio_writer *w, lb_cpio_write_fn fn,
			 void *ctx)
{
	w->write = fn;
	w->ctx = ctx;
	w->off = 0;
}

static int emit(struct lb_cpio_writer *w, const void *buf, size_t len)
{
	int rc;

	if (!len)
		return 0;
	rc = w->write(w->ctx, buf, len);
	if (rc < 0)
		return rc;
	w->off += len;
	return 0;
}

static int emit_pad(struct lb_cpio_writer *w, size_t n)
{
	static const uint8_t zero[512];
	int rc;

	while (n) {
		size_t k = n < sizeof(zero) ? n : sizeof(zero);
		if ((rc = emit(w, zero, k)) < 0)
			return rc;
		n -= k;
	}
	return 0;
}

static void put_hex(char *p, uint32_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = hexdig[v & 0xf];
		v >>= 4;
	}
}

int lb_cpio_write_entry(struct lb_cpio_writer *w, const struct lb_cpio_entry *e)
{
	char hdr[LB_CPIO_HDR_LEN];
	size_t nlen;
	uint32_t f[13];
	int rc;

	if (!e->name)
		return -EINVAL;
	nlen = strnlen(e->name, LB_CPIO_MAX_NAME);
	if (!nlen || nlen >= LB_CPIO_MAX_NAME)
		return -EINVAL;
	if (e->filesize && !e->data)
		return -EINVAL;
	if (e->filesize && is_special(e->mode))
		return -EINVAL;
	f[0] = e->ino; f[1] = e->mode; f[2] = e->uid; f[3] = e->gid;
	f[4] = e->nlink; f[5] = e->mtime; f[6] = e->filesize;
	f[7] = e->devmajor; f[8] = e->devminor;
	f[9] = e->rdevmajor; f[10] = e->rdevminor;
	f[11] = (uint32_t)(nlen + 1); f[12] = 0;
	memcpy(hdr, "070701", 6);
	for (int i = 0; i < 13; i++)
		put_hex(hdr + 6 + 8 * i, f[i]);
	if ((rc = emit(w, hdr, sizeof(hdr))) < 0 ||
	    (rc = emit(w, e->name, nlen + 1)) < 0 ||
	    (rc = emit_pad(w, pad4(w->off))) < 0 ||
	    (rc = emit(w, e->data, e->filesize)) < 0 ||
	    (rc = emit_pad(w, pad4(w->off))) < 0)
		return rc;
	return 0;
}

int lb_cpio_write_trailer(struct lb_cpio_writer *w, size_t block)
{
	struct lb_cpio_entry t = { .name = LB_CPIO_TRAILER, .nlink = 1 };
	int rc;

	if ((rc = lb_cpio_write_entry(w, &t)) < 0)
		return rc;
	if (block > 1 && w->off % block)
		return emit_pad(w, block - (size_t)(w->off % block));
	return 0;
}

int lb_cpio_buf_write(void *ctx, const void *buf, size_t len)
{
	struct lb_cpio_buf *b = ctx;

	if (len > b->max || b->len > b->max - len)
		return -EFBIG;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + len)
			cap = cap > SIZE_MAX / 2 ? b->len + len : cap * 2;
		if (cap > b->max)
			cap = b->max;
		uint8_t *p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, buf, len);
	b->len += len;
	return 0;
}

void lb_cpio_buf_free(struct lb_cpio_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ---- reader --------------------------------------------------------------- */

void lb_cpio_reader_init(struct lb_cpio_reader *r, const void *buf, size_t len,
			 size_t off)
{
	r->buf = buf;
	r->len = len;
	r->off = off > len ? len : off;
	r->in_archive = 0;
	r->archives = 0;
	r->err = 0;
}

static int get_hex(const uint8_t *p, uint32_t *v)
{
	uint32_t x = 0;

	for (int i = 0; i < 8; i++) {
		uint8_t c = p[i];
		uint32_t d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -EINVAL;
		x = x << 4 | d;
	}
	*v = x;
	return 0;
}

static int fail(struct lb_cpio_reader *r, int err)
{
	r->err = err;
	return err;
}

int lb_cpio_next(struct lb_cpio_reader *r, struct lb_cpio_entry *e)
{
	uint32_t f[13];
	const uint8_t *h;
	size_t left, data_off, next;
	int crc;

	if (r->err)
		return r->err;
	for (;;) {
		if (!r->in_archive) {
			while (r->off < r->len && !r->buf[r->off])
				r->off++;
			if (r->off == r->len)
				return 0;
			if (r->buf[r->off] != '0') /* something else follows */
				return r->archives ? 0 : fail(r, -EINVAL);
			if (r->off & 3)
				return fail(r, -EBADMSG);
			r->in_archive = 1;
		}
		left = r->len - r->off;
		if (!left)
			return fail(r, -EBADMSG); /* no trailer */
		h = r->buf + r->off;
		if (left < 6)
			return fail(r, memcmp(h, "070701", left) &&
				       memcmp(h, "070702", left) ? -EINVAL : -EBADMSG);
		if (!memcmp(h, "070701", 6))
			crc = 0;
		else if (!memcmp(h, "070702", 6))
			crc = 1;
		else
			return fail(r, -EINVAL);
		if (left < LB_CPIO_HDR_LEN)
			return fail(r, -EBADMSG);
		for (int i = 0; i < 13; i++)
			if (get_hex(h + 6 + 8 * i, &f[i]) < 0)
				return fail(r, -EINVAL);
		uint32_t namesize = f[11];
		if (namesize < 2 || namesize > LB_CPIO_MAX_NAME) /* "" is no name */
			return fail(r, -EINVAL);
		if (namesize > left - LB_CPIO_HDR_LEN)
			return fail(r, -EBADMSG);
		const char *name = (const char *)h + LB_CPIO_HDR_LEN;
		if (name[namesize - 1] || memchr(name, 0, namesize - 1))
			return fail(r, -EINVAL);
		/* offsets are <= len, so these sums cannot overflow */
		data_off = r->off + LB_CPIO_HDR_LEN + namesize;
		data_off += pad4(data_off);
		if (data_off > r->len)
			return fail(r, -EBADMSG);
		if (!strcmp(name, LB_CPIO_TRAILER)) {
			r->off = data_off;
			if (f[6] > r->len - data_off)
				return fail(r, -EBADMSG);
			r->off += f[6];
			r->off += pad4(r->off);
			if (r->off > r->len)
				r->off = r->len;
			r->in_archive = 0;
			r->archives++;
			continue;
		}
		uint32_t mode = f[1], size = f[6];
		if (!known_type(mode))
			return fail(r, -EINVAL);
		if (is_special(mode) && size)
			return fail(r, -EINVAL);
		if ((mode & S_IFMT) == S_IFLNK && (!size || size > LB_CPIO_MAX_LINK))
			return fail(r, -EINVAL);
		if (size > r->len - data_off)
			return fail(r, -EBADMSG);
		const uint8_t *data = r->buf + data_off;
		if (crc && (mode & S_IFMT) == S_IFREG) {
			uint32_t sum = 0;
			for (uint32_t i = 0; i < size; i++)
				sum += data[i];
			if (sum != f[12])
				return fail(r, -EBADMSG);
		}
		next = data_off + size;
		next += pad4(next);
		memset(e, 0, sizeof(*e));
		e->name = name;
		e->ino = f[0]; e->mode = mode; e->uid = f[2]; e->gid = f[3];
		e->nlink = f[4]; e->mtime = f[5]; e->filesize = size;
		e->devmajor = f[7]; e->devminor = f[8];
		e->rdevmajor = f[9]; e->rdevminor = f[10];
		e->check = f[12];
		e->data = data;
		e->offset = r->off;
		/* a missing final pad is caught as a missing trailer */
		r->off = next > r->len ? r->len : next;
		return 1;
	}
}

int lb_cpio_safe_path(const char *name, char *out, size_t outsz)
{
	size_t o = 0;
	const char *p = name;

	if (!name || !outsz)
		return -EINVAL;
	if (name[0] == '/')
		return -EINVAL;
	while (*p) {
		const char *s = p;
		size_t n;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - s);
		while (*p == '/')
			p++;
		if (!n || (n == 1 && s[0] == '.'))
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return -EINVAL;
		if (n + (o ? 1 : 0) >= outsz - o)
			return -ENAMETOOLONG;
		if (o)
			out[o++] = '/';
		memcpy(out + o, s, n);
		o += n;
	}
	out[o] = 0;
	return 0;
}
