/* The kernel log's records, written and read; the boot log (kmsg.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kmsg.h"

int lb_kmsg_level(const char *line, size_t len, const char **text, size_t *tlen)
{
	int level = LB_LEVEL_DEFAULT;

	while (len >= 2 && line[0] == '\001' && line[1] >= '0' && line[1] <= '7') {
		level = line[1] - '0';
		line += 2;
		len -= 2;
	}
	*text = line;
	*tlen = len;
	return level;
}

size_t lb_kmsg_record(char *out, size_t outsz, const char *line, size_t len)
{
	static const char cut[] = "[...]";
	const size_t tagl = sizeof(LB_KMSG_TAG) - 1;
	const char *t;
	size_t tl, n, room;
	int level = lb_kmsg_level(line, len, &t, &tl);
	int hdr;

	if (!tl || outsz < 16)
		return 0;
	hdr = snprintf(out, outsz, "<%d>", LB_KMSG_FACILITY * 8 + level);
	if (hdr < 0 || (size_t)hdr >= outsz)
		return 0;
	n = (size_t)hdr;
	room = outsz - n - 1; /* keep a NUL */
	if (room > LB_KMSG_TEXT_MAX)
		room = LB_KMSG_TEXT_MAX;
	if (!(tl >= tagl && !memcmp(t, LB_KMSG_TAG, tagl))) {
		if (room < tagl + sizeof(cut))
			return 0;
		memcpy(out + n, LB_KMSG_TAG, tagl);
		n += tagl;
		room -= tagl;
	}
	if (tl > room) {
		if (room < sizeof(cut))
			return 0;
		memcpy(out + n, t, room - (sizeof(cut) - 1));
		n += room - (sizeof(cut) - 1);
		memcpy(out + n, cut, sizeof(cut) - 1);
		n += sizeof(cut) - 1;
	} else {
		memcpy(out + n, t, tl);
		n += tl;
	}
	out[n] = 0;
	return n;
}

/* a decimal field ending in one of ends; *p moves past the end byte */
static int field(const char **p, const char *end, const char *ends, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -EINVAL;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (s >= end || !strchr(ends, *s) || !*s)
		return -EINVAL;
	*v = x;
	*p = s + 1;
	return 0;
}

int lb_kmsg_parse(const char *buf, size_t len, struct lb_kmsg_rec *r)
{
	const char *p = buf, *end = buf + len, *semi, *nl;
	uint64_t prio, seq, usec;

	if (field(&p, end, ",", &prio) || field(&p, end, ",", &seq) ||
	    field(&p, end, ",;", &usec))
		return -EINVAL;
	if (prio > 0xffffff)
		return -EINVAL;
	/* the flags and any later fields up to ';' */
	if (p[-1] == ';')
		semi = p - 1;
	else if (!(semi = memchr(p, ';', (size_t)(end - p))))
		return -EINVAL;
	nl = memchr(semi + 1, '\n', (size_t)(end - semi - 1));
	if (!nl)
		return -EINVAL;
	r->facility = (unsigned)(prio >> 3);
	r->level = (unsigned)(prio & 7);
	r->seq = seq;
	r->usec = usec;
	r->text = semi + 1;
	r->tlen = (size_t)(nl - semi - 1);
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t lb_kmsg_unescape(char *text, size_t tlen)
{
	size_t i = 0, o = 0;

	while (i < tlen) {
		int h, l;

		if (text[i] == '\\' && tlen - i >= 4 && text[i + 1] == 'x' &&
		    (h = hexval(text[i + 2])) >= 0 && (l = hexval(text[i + 3])) >= 0 &&
		    (h << 4 | l) != 0x7f && ((h << 4 | l) == '\\' || (h << 4 | l) > 0x7e)) {
			text[o++] = (char)(h << 4 | l);
			i += 4;
			continue;
		}
		text[o++] = text[i++];
	}
	return o;
}

void lb_bootlog_add(char *buf, size_t cap, size_t *len, unsigned level,
		    const char *text, size_t tlen)
{
	char hdr[4] = { '<', (char)('0' + (level & 7)), '>', 0 };
	size_t need = 3 + tlen + 1, used = *len, drop = 0;

	if (cap < 5 || used > cap)
		return;
	if (need > cap) { /* longer than the whole buffer: its start */
		tlen = cap - 4;
		need = cap;
	}
	/* drop the oldest whole lines until it fits */
	while (used - drop + need > cap) {
		const char *nl = memchr(buf + drop, '\n', used - drop);
		drop = nl ? (size_t)(nl - buf) + 1 : used;
	}
	if (drop) {
		memmove(buf, buf + drop, used - drop);
		used -= drop;
	}
	memcpy(buf + used, hdr, 3);
	memcpy(buf + used + 3, text, tlen);
	buf[used + 3 + tlen] = '\n';
	*len = used + need;
}
