/* TFTP client state machine without I/O: see tftp.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "tftp.h"

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static unsigned get16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* Copy printable text (at most n bytes, stops at NUL) into a C string. */
static void copy_text(char *dst, size_t cap, const uint8_t *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && s[i] && o + 1 < cap; i++)
		dst[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? (char)s[i] : '?';
	dst[o] = 0;
}

static int fail(struct lb_tftp *t, int rc, const char *msg)
{
	t->state = LB_TFTP_S_FAILED;
	snprintf(t->errmsg, sizeof(t->errmsg), "%s", msg);
	return rc;
}

int lb_tftp_error_pkt(unsigned code, const char *msg, uint8_t *buf, size_t cap,
		      size_t *len)
{
	size_t n = strlen(msg);

	if (n > 100)
		n = 100;
	if (cap < 5 + n)
		return -ENOSPC;
	put16(buf, LB_TFTP_ERROR);
	put16(buf + 2, code);
	memcpy(buf + 4, msg, n);
	buf[4 + n] = 0;
	*len = 5 + n;
	return 0;
}

/* Fail with an ERROR packet to the server in ev. */
static int fail_send(struct lb_tftp *t, struct lb_tftp_ev *ev, int rc,
		     unsigned code, const char *msg)
{
	lb_tftp_error_pkt(code, msg, ev->reply, sizeof(ev->reply), &ev->replylen);
	return fail(t, rc, msg);
}

static void ack(struct lb_tftp *t, struct lb_tftp_ev *ev, uint64_t block)
{
	put16(ev->reply, LB_TFTP_ACK);
	put16(ev->reply + 2, (unsigned)(block & 0xffff));
	ev->replylen = 4;
	t->acked = block;
	t->in_window = 0;
}

int lb_tftp_init(struct lb_tftp *t, const char *file, const struct lb_tftp_opts *o)
{
	size_t n = strlen(file);

	memset(t, 0, sizeof(*t));
	if (!n || n > LB_TFTP_NAME_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)file[i] < 0x20 || file[i] == 0x7f)
			return -EINVAL;
	if (o)
		t->req = *o;
	if (t->req.blksize == 512)
		t->req.blksize = 0;
	if (t->req.windowsize == 1)
		t->req.windowsize = 0;
	if (t->req.blksize && (t->req.blksize < LB_TFTP_BLKSIZE_MIN ||
			       t->req.blksize > LB_TFTP_BLKSIZE_MAX))
		return -EINVAL;
	if (t->req.windowsize > LB_TFTP_WINDOW_MAX || t->req.timeout > 255)
		return -EINVAL;
	if (!t->req.max_size)
		t->req.max_size = (uint64_t)4 << 30;
	if (!t->req.retries)
		t->req.retries = 6;
	memcpy(t->file, file, n + 1);
	t->state = LB_TFTP_S_RRQ;
	t->blksize = 512;
	t->windowsize = 1;
	t->timeout = t->req.timeout ? t->req.timeout : 1;
	t->errcode = -1;
	return 0;
}

static int put_str(uint8_t *buf, size_t cap, size_t *o, const char *s)
{
	size_t n = strlen(s) + 1;

	if (n > cap - *o)
		return -ENOSPC;
	memcpy(buf + *o, s, n);
	*o += n;
	return 0;
}

static int put_opt(uint8_t *buf, size_t cap, size_t *o, const char *name, unsigned v)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", v);
	if (put_str(buf, cap, o, name) || put_str(buf, cap, o, num))
		return -ENOSPC;
	return 0;
}

int lb_tftp_rrq(struct lb_tftp *t, uint8_t *buf, size_t cap, size_t *len)
{
	size_t o = 2;

	if (cap < 2)
		return -ENOSPC;
	put16(buf, LB_TFTP_RRQ);
	if (put_str(buf, cap, &o, t->file) || put_str(buf, cap, &o, "octet"))
		return -ENOSPC;
	if (t->req.blksize && put_opt(buf, cap, &o, "blksize", t->req.blksize))
		return -ENOSPC;
	if (t->req.tsize && put_opt(buf, cap, &o, "tsize", 0))
		return -ENOSPC;
	if (t->req.timeout && put_opt(buf, cap, &o, "timeout", t->req.timeout))
		return -ENOSPC;
	if (t->req.windowsize && put_opt(buf, cap, &o, "windowsize", t->req.windowsize))
		return -ENOSPC;
	*len = o;
	return 0;
}

/* Decimal value of an option, at most 20 digits, no overflow. */
static int parse_num(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - 9) / 10)
			return -ERANGE;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

static int on_oack(struct lb_tftp *t, const uint8_t *p, size_t len,
		   struct lb_tftp_ev *ev)
{
	unsigned blksize = 512, window = 1, timeout = t->timeout;
	int have_tsize = 0;
	uint64_t tsize = 0;
	size_t o = 2;

	while (o < len) {
		const char *name = (const char *)p + o, *val;
		const uint8_t *z = memchr(p + o, 0, len - o);
		uint64_t v;

		if (!z)
			return fail_send(t, ev, -EPROTO, 8, "malformed OACK");
		o = (size_t)(z - p) + 1;
		if (o >= len || !(z = memchr(p + o, 0, len - o)))
			return fail_send(t, ev, -EPROTO, 8, "malformed OACK");
		val = (const char *)p + o;
		o = (size_t)(z - p) + 1;
		if (parse_num(val, &v))
			return fail_send(t, ev, -EPROTO, 8, "bad OACK option value");
		if (!strcasecmp(name, "blksize") && t->req.blksize) {
			if (v < LB_TFTP_BLKSIZE_MIN || v > t->req.blksize)
				return fail_send(t, ev, -EOPNOTSUPP, 8, "OACK blksize out of range");
			blksize = (unsigned)v;
		} else if (!strcasecmp(name, "windowsize") && t->req.windowsize) {
			if (v < 1 || v > t->req.windowsize)
				return fail_send(t, ev, -EOPNOTSUPP, 8, "OACK windowsize out of range");
			window = (unsigned)v;
		} else if (!strcasecmp(name, "timeout") && t->req.timeout) {
			if (v < 1 || v > 255)
				return fail_send(t, ev, -EOPNOTSUPP, 8, "OACK timeout out of range");
			timeout = (unsigned)v;
		} else if (!strcasecmp(name, "tsize") && t->req.tsize) {
			if (v > t->req.max_size)
				return fail_send(t, ev, -EFBIG, 3, "file larger than allowed");
			have_tsize = 1;
			tsize = v;
		} else {
			return fail_send(t, ev, -EOPNOTSUPP, 8, "OACK option not requested");
		}
	}
	t->blksize = blksize;
	t->windowsize = window;
	t->timeout = timeout;
	t->have_tsize = have_tsize;
	t->tsize = tsize;
	t->state = LB_TFTP_S_DATA;
	ack(t, ev, 0);
	return 0;
}

static int on_data(struct lb_tftp *t, const uint8_t *p, size_t len,
		   struct lb_tftp_ev *ev)
{
	unsigned b = get16(p + 2), d = (b - (unsigned)(t->block & 0xffff)) & 0xffff;
	size_t n = len - 4;

	if (d == 0) {
		/* the server resent the last in-order block: our ACK was lost */
		if (t->block || t->state == LB_TFTP_S_DATA)
			ack(t, ev, t->block);
		return t->state == LB_TFTP_S_DONE ? 1 : 0;
	}
	if (t->state == LB_TFTP_S_DONE)
		return 1;
	if (d > 32768)
		return 0;       /* older than the last in-order block: ignore */
	if (d != 1) {
		/* a gap: restart the window from the last in-order block, once */
		if (t->gap_acked != t->block + 1) {
			t->gap_acked = t->block + 1;
			ack(t, ev, t->block);
		}
		return 0;
	}
	if (n > t->blksize)
		return fail_send(t, ev, -EPROTO, 4, "DATA larger than blksize");
	if (n > t->req.max_size - t->received)
		return fail_send(t, ev, -EFBIG, 3, "file larger than allowed");
	if (t->have_tsize && n > t->tsize - t->received)
		return fail_send(t, ev, -EPROTO, 4, "more data than tsize");
	ev->data = p + 4;
	ev->datalen = n;
	ev->offset = t->received;
	t->received += n;
	t->block++;
	t->in_window++;
	if (n < t->blksize) {
		ack(t, ev, t->block);
		if (t->have_tsize && t->received != t->tsize)
			return fail(t, -EPROTO, "transfer shorter than tsize");
		t->state = LB_TFTP_S_DONE;
		return 1;
	}
	if (t->in_window >= t->windowsize)
		ack(t, ev, t->block);
	return 0;
}

int lb_tftp_feed(struct lb_tftp *t, const uint8_t *pkt, size_t len,
		 struct lb_tftp_ev *ev)
{
	unsigned op;

	memset(ev, 0, offsetof(struct lb_tftp_ev, reply));
	ev->replylen = 0;
	if (t->state == LB_TFTP_S_FAILED)
		return -EINVAL;
	if (len < 4)
		return t->state == LB_TFTP_S_DONE ? 1 :
			fail_send(t, ev, -EPROTO, 4, "short TFTP packet");
	op = get16(pkt);
	if (len > LB_TFTP_PKT_MAX)
		return fail_send(t, ev, -EPROTO, 4, "oversized TFTP packet");
	switch (op) {
	case LB_TFTP_ERROR:
		if (t->state == LB_TFTP_S_DONE)
			return 1;
		t->errcode = (int)get16(pkt + 2);
		t->state = LB_TFTP_S_FAILED;
		copy_text(t->errmsg, sizeof(t->errmsg), pkt + 4, len - 4);
		if (!t->errmsg[0])
			snprintf(t->errmsg, sizeof(t->errmsg), "TFTP error %d", t->errcode);
		switch (t->errcode) {
		case 1: return -ENOENT;
		case 2: return -EACCES;
		case 3: return -ENOSPC;
		case 8: return -EOPNOTSUPP;
		default: return -EIO;
		}
	case LB_TFTP_OACK:
		if (t->state == LB_TFTP_S_DONE)
			return 1;
		if (t->state == LB_TFTP_S_DATA) {
			/* our ACK 0 was lost: the server resent its OACK */
			if (t->block == 0)
				ack(t, ev, 0);
			return 0;
		}
		if (!t->req.blksize && !t->req.windowsize && !t->req.timeout &&
		    !t->req.tsize)
			return fail_send(t, ev, -EPROTO, 8, "OACK to a request without options");
		t->timeouts = 0;
		return on_oack(t, pkt, len, ev);
	case LB_TFTP_DATA:
		if (t->state == LB_TFTP_S_RRQ) {
			/* no OACK: the server ignores options (RFC 1350 rules) */
			t->state = LB_TFTP_S_DATA;
			t->blksize = 512;
			t->windowsize = 1;
		}
		t->timeouts = 0;
		return on_data(t, pkt, len, ev);
	default:
		if (t->state == LB_TFTP_S_DONE)
			return 1;
		return fail_send(t, ev, -EPROTO, 4, "unexpected TFTP opcode");
	}
}

int lb_tftp_timeout(struct lb_tftp *t, uint8_t *buf, size_t cap, size_t *len)
{
	*len = 0;
	if (t->state == LB_TFTP_S_DONE)
		return 0;
	if (t->state == LB_TFTP_S_FAILED)
		return -EINVAL;
	if (++t->timeouts > t->req.retries)
		return fail(t, -ETIMEDOUT, t->state == LB_TFTP_S_RRQ ?
			    "no answer from the TFTP server" :
			    "TFTP server stopped sending");
	if (t->state == LB_TFTP_S_RRQ)
		return lb_tftp_rrq(t, buf, cap, len);
	if (cap < 4)
		return -ENOSPC;
	put16(buf, LB_TFTP_ACK);
	put16(buf + 2, (unsigned)(t->block & 0xffff));
	t->acked = t->block;
	t->in_window = 0;
	*len = 4;
	return 0;
}
